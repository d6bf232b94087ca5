package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/statusd/statusd/bench/internal/stats"
)

// write makes a results file of the lines.
func write(t *testing.T, lines []string) *results {
	t.Helper()
	path := filepath.Join(t.TempDir(), "results.jsonl")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	rs, err := load(path)
	if err != nil {
		t.Fatal(err)
	}
	return rs
}

func wrk(phase, req, variant, server string, round int, rps float64) string {
	return fmt.Sprintf(`{"kind":"wrk","phase":%q,"req":%q,"variant":%q,"server":%q,"round":%d,"rps":%g}`,
		phase, req, variant, server, round, rps)
}

func TestRatiosAndVerdicts(t *testing.T) {
	lines := []string{`{"kind":"meta","meta":{"mode":"full","nproc":"2"}}`}
	for round := 1; round <= 5; round++ {
		// statusd at 90% of the baseline for status, 60% for notices.
		lines = append(lines,
			wrk("main", "status", "plain", "statusd", round, 900+float64(round)),
			wrk("main", "status", "plain", "baseline", round, 1000),
			wrk("main", "notices", "plain", "statusd", round, 600),
			wrk("main", "notices", "plain", "baseline", round, 1000),
			wrk("control", "status", "plain", "baseline", round, 1000),
			wrk("control", "status", "plain", "baseline2", round, 1010))
	}
	lines = append(lines,
		`{"kind":"load","name":"20k status","result":{"rate":20000,"scheduled":100,"completed":100,"served":100,"latency_ms":{"p99":2,"p99_9":60}}}`,
		`{"kind":"probe","name":"start_to_first_answer","ms":1500}`,
		`{"kind":"rss","when":"warm","vmrss_kb":409600,"vmhwm_kb":409600}`)
	rs := write(t, lines)
	if got := stats.Median(rs.ratios("main", "status", "plain", "statusd", "baseline")); got != 0.903 {
		t.Errorf("median ratio %v, want 0.903", got)
	}
	if got := rs.medianRPS("main", "status", "plain", "statusd"); got != 903 {
		t.Errorf("median req/s %v, want 903", got)
	}
	md := render(rs)
	for _, want := range []string{
		"Run: valid.",
		"| req/s ratio statusd/baseline, `/api/v1/status` | ≥ 0.85 | 0.90 | PASS |",
		"| req/s ratio, every other JSON request | ≥ 0.7 | 0.60 | **FAIL** |",
		"2.00 ms / 60.00 ms, 0 errors", // p99.9 over 50 ms
		"| start to first answer (snapshot built) | ≤ 2 s | 1.50 s | PASS |",
		"400 MB after warm-up (VmRSS) | **FAIL** |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("the table lacks %q:\n%s", want, md)
		}
	}
	if !strings.Contains(md, "no errors | 2.00 ms / 60.00 ms, 0 errors, 0 not 2xx/3xx of 100 | **FAIL** |") {
		t.Errorf("a p99.9 over 50 ms should fail:\n%s", md)
	}
}

func TestControlOutOfRangeDiscards(t *testing.T) {
	var lines []string
	for round := 1; round <= 5; round++ {
		lines = append(lines,
			wrk("main", "status", "plain", "statusd", round, 900),
			wrk("main", "status", "plain", "baseline", round, 1000),
			wrk("control", "status", "plain", "baseline", round, 1000),
			wrk("control", "status", "plain", "baseline2", round, 1100))
	}
	if md := render(write(t, lines)); !strings.Contains(md, "Run: **DISCARDED**") {
		t.Errorf("a control ratio of 1.1 should discard the run:\n%s", md)
	}
}

// TestNotModifiedNeverAnswered304 checks that an If-None-Match kind that
// statusd answered 200 after every round is shown but not judged, while one
// that missed some rounds is judged with a note.
func TestNotModifiedNeverAnswered304(t *testing.T) {
	lines := []string{`{"kind":"meta","meta":{"mode":"full","nproc":"2"}}`}
	check := func(req string, round, status int) string {
		return fmt.Sprintf(`{"kind":"check","req":%q,"variant":"inm","server":"statusd","round":%d,"status":%d}`, req, round, status)
	}
	for round := 1; round <= 2; round++ {
		lines = append(lines,
			wrk("main", "status", "inm", "statusd", round, 950), wrk("main", "status", "inm", "baseline", round, 1000),
			wrk("main", "components", "inm", "statusd", round, 500), wrk("main", "components", "inm", "baseline", round, 1000),
			wrk("main", "notices", "inm", "statusd", round, 920), wrk("main", "notices", "inm", "baseline", round, 1000),
			check("status", round, 304), check("components", round, 200))
	}
	lines = append(lines, check("notices", 1, 304), check("notices", 2, 200))
	md := render(write(t, lines))
	want := "| req/s ratio, `If-None-Match` answered 304 | ≥ 0.9 | lowest 0.92: status 0.95, " +
		"components 0.50 (not counted: statusd answered 200 after every round, its answer changes every second), " +
		"notices 0.92 (statusd answered 200, not 304, after 1 of 2 rounds) | PASS |"
	wantIn(t, md, want)
}

// TestOverloadRows checks the overload row against the capacity of the
// main rounds.
func TestOverloadRows(t *testing.T) {
	lines := []string{`{"kind":"meta","meta":{"mode":"full","nproc":"2"}}`,
		wrk("main", "status", "plain", "statusd", 1, 30000),
		// status: 58,000 of 60,000 sent (97%, offered), 27,000 served of
		// 30,000 = 90%, p99 40 ms, 100 refused in 3 ms: passes.
		`{"kind":"load","name":"overload status","result":{"rate":60000,"sent_rate":58000,"served_rate":27000,"shed":100,` +
			`"latency_served_ms":{"p99":40},"latency_shed_ms":{"p99":3},"service_served_ms":{"p99":1}}}`,
	}
	md := render(write(t, lines))
	wantIn(t, md, "| 2x capacity offered, `/api/v1/status` | ≥ 80% of capacity served, p99 of served ≤ 50 ms, excess refused in < 5 ms | "+
		"60000 req/s scheduled (2 × 30000; the generator sent 58000/s), 27000 served = 90% of capacity, p99 of served 40.00 ms "+
		"(1.00 ms from the actual send), 100 refused (503) with p99 3.00 ms, 0 errors | PASS |")

	// 33,000 of 60,000 sent is 55%, under 90%: the overload was not
	// offered, and is not judged either way.
	lines[2] = `{"kind":"load","name":"overload status","result":{"rate":60000,"sent_rate":33000,"served_rate":12000,"shed":20000,` +
		`"latency_served_ms":{"p99":900},"latency_shed_ms":{"p99":950},"service_served_ms":{"p99":50}}}`
	md = render(write(t, lines))
	notOffered := "| 2x capacity offered, `/api/v1/status` | ≥ 80% of capacity served, p99 of served ≤ 50 ms, excess refused in < 5 ms | " +
		"not offered: the generator's one core sent 33000 of the 60000 req/s scheduled (2 × 30000); " +
		"statusd served 12000 req/s (40% of its capacity), refused 20000 (503) with p99 950.00 ms | not measurable here |"
	wantIn(t, md, notOffered)

}

func TestTwentyThousandAgainstTheBaseline(t *testing.T) {
	row := func(statusdP99, baselineP99 float64) string {
		lines := []string{`{"kind":"meta","meta":{"mode":"full","nproc":"2"}}`,
			fmt.Sprintf(`{"kind":"load","name":"20k status","result":{"rate":20000,"scheduled":100,"served":100,`+
				`"latency_ms":{"p99":%g,"p99_9":%g},"send_lag_ms":{"p99":30}}}`, statusdP99, statusdP99+5),
			fmt.Sprintf(`{"kind":"load","name":"20k status (baseline)","result":{"rate":20000,"scheduled":100,"served":100,`+
				`"latency_ms":{"p99":%g,"p99_9":%g},"send_lag_ms":{"p99":20}}}`, baselineP99, baselineP99+5),
		}
		for _, l := range strings.Split(render(write(t, lines)), "\n") {
			if strings.HasPrefix(l, "| p99 / p99.9, open loop at 20,000") {
				return l
			}
		}
		t.Fatal("no 20k row")
		return ""
	}
	// The baseline meets the target (p99 2 ms, p99.9 7 ms) and statusd
	// does not (p99 40 ms): a failure of statusd.
	if got := row(40, 2); !strings.HasSuffix(got, "| 40.00 ms / 45.00 ms, 0 errors, 0 not 2xx/3xx of 100 | **FAIL** |") {
		t.Errorf("statusd slow, baseline fast: %s", got)
	}
	// Both miss it (p99 40 and 30 ms): the machine cannot show the target.
	want := "| 40.00 ms / 45.00 ms, 0 errors, 0 not 2xx/3xx of 100; the baseline, which only replays captured bytes, " +
		"had 30.00 ms / 35.00 ms (the generator sent late by up to 20.00 ms at p99, against 30.00 ms for statusd's run): " +
		"this machine cannot show the target | not measurable here |"
	if got := row(40, 30); !strings.HasSuffix(got, want) {
		t.Errorf("both slow:\n got %s\nwant suffix %s", got, want)
	}
	// statusd meets it (p99 8, p99.9 13 ms) whatever the baseline did.
	if got := row(8, 30); !strings.HasSuffix(got, "| 8.00 ms / 13.00 ms, 0 errors, 0 not 2xx/3xx of 100 | PASS |") {
		t.Errorf("statusd fast: %s", got)
	}
}

// wantIn reports the report md lacking want.
func wantIn(t *testing.T, md, want string) {
	t.Helper()
	if !strings.Contains(md, want) {
		t.Errorf("report lacks\n%s\n%s", want, md)
	}
}

// TestWrkKind: -median takes request/variant/server in the main phase; a
// phase's figure is the median of its rounds.
func TestWrkKind(t *testing.T) {
	for in, want := range map[string][4]string{
		"status/plain/statusd": {"main", "status", "plain", "statusd"},
	} {
		if got, err := wrkKind(in); err != nil || got != want {
			t.Errorf("wrkKind(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "status", "status/plain", "a/b/c/d/e", "main/status/plain/statusd", "status//statusd"} {
		if got, err := wrkKind(bad); err == nil {
			t.Errorf("wrkKind(%q) = %v, want an error", bad, got)
		}
	}
	rs := write(t, []string{
		wrk("control", "status", "plain", "baseline", 1, 17900),
		wrk("control", "status", "plain", "baseline", 2, 16500),
		wrk("control", "status", "plain", "baseline", 3, 17100),
		wrk("main", "status", "plain", "baseline", 1, 99999),
	})
	if got := rs.medianRPS("control", "status", "plain", "baseline"); got != 17100 {
		t.Errorf("the control rounds' median %v, want 17100, the middle of 16500, 17100, 17900", got)
	}
}
