// Command report turns the measurements that bench/run.sh collects (one JSON
// object a line) into the results table of the benchmark, in Markdown.
//
//	report -results results.jsonl -o results.md   the table, also printed
//	report -results results.jsonl -median status/plain/statusd
//	                                              the median req/s of one wrk kind
//	                                              (of the rounds; phase/... for
//	                                              another phase than main)
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/statusd/statusd/bench/internal/stats"
)

func main() {
	var (
		path   = flag.String("results", "results.jsonl", "measurements `file`")
		out    = flag.String("o", "", "also write the table to `file`")
		median = flag.String("median", "", "print the median req/s of `request/variant/server` in the main rounds and exit")
	)
	flag.Parse()
	rs, err := load(*path)
	if err != nil {
		fail(err)
	}
	if *median != "" {
		kind, err := wrkKind(*median)
		if err != nil {
			fail(err)
		}
		v := rs.medianRPS(kind[0], kind[1], kind[2], kind[3])
		if v == 0 {
			fail(fmt.Errorf("no wrk measurement of %s", *median))
		}
		fmt.Printf("%.0f\n", v)
		return
	}
	md := render(rs)
	fmt.Print(md)
	if *out != "" {
		if err := os.WriteFile(*out, []byte(md), 0o644); err != nil {
			fail(err)
		}
	}
}

// wrkKind splits -median's request/variant/server into phase (main),
// request, variant and server.
func wrkKind(s string) ([4]string, error) {
	parts := strings.Split(s, "/")
	if len(parts) != 3 || slices.Contains(parts, "") {
		return [4]string{}, fmt.Errorf("-median wants request/variant/server, not %q", s)
	}
	return [4]string{"main", parts[0], parts[1], parts[2]}, nil
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "report:", err)
	os.Exit(1)
}

// record is one measurement line; which fields are set depends on Kind.
type record struct {
	Kind string `json:"kind"` // meta, wrk, check, load, probe, rss, note

	// meta
	Meta map[string]string `json:"meta"`

	// wrk: one throughput run; check: the status a kind answered
	Phase   string  `json:"phase"` // main or control
	Req     string  `json:"req"`
	Variant string  `json:"variant"`
	Server  string  `json:"server"`
	Round   int     `json:"round"`
	RPS     float64 `json:"rps"`
	Non2xx  int64   `json:"non2xx"`
	Errors  string  `json:"errors"`
	Status  int     `json:"status"`

	// load
	Name   string      `json:"name"`
	Result *loadResult `json:"result"`

	// probe
	MS       float64   `json:"ms"`
	MaxMS    float64   `json:"max_ms"`
	Trials   []float64 `json:"trials_ms"`
	SecondMS float64   `json:"second_ms"`
	AckMS    float64   `json:"ack_ms"`
	WriteAck float64   `json:"write_ack_ms"`
	Bytes    int64     `json:"bytes"`

	// rss
	When    string `json:"when"`
	VmRSSKB int64  `json:"vmrss_kb"`
	VmHWMKB int64  `json:"vmhwm_kb"`

	// note
	Text string `json:"text"`
}

// loadResult is the part of bench/load's result that the table shows.
type loadResult struct {
	Label         string           `json:"label"`
	URL           string           `json:"url"`
	Rate          float64          `json:"rate"`
	Duration      float64          `json:"duration_s"`
	Scheduled     int64            `json:"scheduled"`
	Completed     int64            `json:"completed"`
	Served        int64            `json:"served"`
	Shed          int64            `json:"shed"`
	SentRate      float64          `json:"sent_rate"`
	AchievedRate  float64          `json:"achieved_rate"`
	ServedRate    float64          `json:"served_rate"`
	Status        map[string]int64 `json:"status"`
	ErrorCount    int64            `json:"error_count"`
	Errors        map[string]int64 `json:"errors"`
	ConnsUsed     int              `json:"conns_used"`
	Dials         int              `json:"dials"`
	Latency       summary          `json:"latency_ms"`
	LatencyServed summary          `json:"latency_served_ms"`
	LatencyShed   summary          `json:"latency_shed_ms"`
	ServiceServed summary          `json:"service_served_ms"`
	SendLag       summary          `json:"send_lag_ms"`
}

type summary struct {
	Count int     `json:"count"`
	P50   float64 `json:"p50"`
	P90   float64 `json:"p90"`
	P99   float64 `json:"p99"`
	P999  float64 `json:"p99_9"`
	Max   float64 `json:"max"`
}

type results struct {
	meta    map[string]string
	records []record
}

func load(path string) (*results, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	rs := &results{meta: map[string]string{}}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		var r record
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, n, err)
		}
		if r.Kind == "meta" {
			for k, v := range r.Meta {
				rs.meta[k] = v
			}
			continue
		}
		rs.records = append(rs.records, r)
	}
	return rs, sc.Err()
}

func (rs *results) filter(keep func(r *record) bool) []*record {
	var out []*record
	for i := range rs.records {
		if keep(&rs.records[i]) {
			out = append(out, &rs.records[i])
		}
	}
	return out
}

// rps lists the req/s of one wrk kind by round.
func (rs *results) rps(phase, req, variant, server string) map[int]float64 {
	out := map[int]float64{}
	for _, r := range rs.filter(func(r *record) bool {
		return r.Kind == "wrk" && r.Phase == phase && r.Req == req && r.Variant == variant && r.Server == server
	}) {
		out[r.Round] = r.RPS
	}
	return out
}

func (rs *results) medianRPS(phase, req, variant, server string) float64 {
	var xs []float64
	for _, v := range rs.rps(phase, req, variant, server) {
		xs = append(xs, v)
	}
	return stats.Median(xs)
}

// ratios are the per-round ratios num/den of one kind, in round order.
func (rs *results) ratios(phase, req, variant, num, den string) []float64 {
	a, b := rs.rps(phase, req, variant, num), rs.rps(phase, req, variant, den)
	var out []float64
	for round := 1; round <= len(a)+len(b); round++ {
		x, okA := a[round]
		y, okB := b[round]
		if okA && okB && y > 0 {
			out = append(out, x/y)
		}
	}
	return out
}

// checks are the statuses one request of a kind was answered with, by
// round (0: the check before the rounds).
func (rs *results) checks(req, variant, server string) []*record {
	list := rs.filter(func(r *record) bool {
		return r.Kind == "check" && r.Req == req && r.Variant == variant && r.Server == server
	})
	slices.SortStableFunc(list, func(a, b *record) int { return a.Round - b.Round })
	return list
}

// statuses lists the distinct statuses of a kind in the order seen, as
// "304" or "304→200".
func (rs *results) statuses(req, variant, server string) string {
	var seen []string
	for _, r := range rs.checks(req, variant, server) {
		if s := strconv.Itoa(r.Status); !slices.Contains(seen, s) {
			seen = append(seen, s)
		}
	}
	if len(seen) == 0 {
		return "?"
	}
	return strings.Join(seen, "→")
}

// notModifiedMisses counts the rounds whose check of an If-None-Match kind
// was not answered 304, of the rounds checked.
func (rs *results) notModifiedMisses(req, server string) (misses, rounds int) {
	for _, r := range rs.checks(req, "inm", server) {
		if r.Round == 0 {
			continue
		}
		rounds++
		if r.Status != 304 {
			misses++
		}
	}
	return misses, rounds
}

func (rs *results) load(name string) *loadResult {
	for _, r := range rs.filter(func(r *record) bool { return r.Kind == "load" && r.Name == name }) {
		return r.Result
	}
	return nil
}

func (rs *results) probe(name string) *record {
	for _, r := range rs.filter(func(r *record) bool { return r.Kind == "probe" && r.Name == name }) {
		return r
	}
	return nil
}

func (rs *results) rss(when string) *record {
	for _, r := range rs.filter(func(r *record) bool { return r.Kind == "rss" && r.When == when }) {
		return r
	}
	return nil
}

// kinds lists the (request, variant) pairs measured in phase, in the order
// they were first run.
func (rs *results) kinds(phase string) [][2]string {
	seen := map[[2]string]bool{}
	var out [][2]string
	for _, r := range rs.filter(func(r *record) bool { return r.Kind == "wrk" && r.Phase == phase }) {
		k := [2]string{r.Req, r.Variant}
		if !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	return out
}
