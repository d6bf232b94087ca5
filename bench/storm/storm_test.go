package main

import (
	"errors"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/bench/internal/rig"
	"github.com/statusd/statusd/internal/signals"
)

// TestBodies: a storm's bodies are Alertmanager bodies that statusd's own
// decoder takes, PerBody alerts each, every alert with a fingerprint of
// its own (and none shared with the next storm), naming a component of
// its body's group; a recovery resolves the same alerts.
func TestBodies(t *testing.T) {
	groups := [][]string{{"c1", "c2"}, {"c3", "c4", "c5"}}
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	s := storm{Number: 7, Requests: 10, PerBody: 100, Groups: groups, StartsAt: at.Add(-time.Minute)}
	keys := map[string]bool{}
	var firing []signals.Batch
	for _, resolved := range []bool{false, true} {
		s.Resolved, s.At = resolved, at
		bodies, err := s.bodies()
		if err != nil {
			t.Fatal(err)
		}
		if len(bodies) != 10 {
			t.Fatalf("%d bodies, want 10", len(bodies))
		}
		groupKeys := map[string]bool{}
		for b, body := range bodies {
			if len(body) > signals.MaxBody {
				t.Errorf("body %d is %d bytes, over the hook's %d", b, len(body), signals.MaxBody)
			}
			batch, err := signals.Decode(signals.Alertmanager, body)
			if err != nil {
				t.Fatalf("body %d does not decode: %v", b, err)
			}
			if len(batch.Alerts) != 100 {
				t.Fatalf("body %d holds %d alerts, want 100", b, len(batch.Alerts))
			}
			if !resolved {
				firing = append(firing, batch)
			}
			groupKeys[batch.Alerts[0].Group] = true
			for i, a := range batch.Alerts {
				want := signals.Firing
				if resolved {
					want = signals.Resolved
				}
				if a.Status != want || resolved && !a.EndsAt.Equal(at) || !a.StartsAt.Equal(at.Add(-time.Minute)) {
					t.Fatalf("body %d alert %d: %s from %v to %v; want %s from %v (to %v when resolved)", b, i, a.Status, a.StartsAt, a.EndsAt,
						want, at.Add(-time.Minute), at)
				}
				if c := a.Labels["statusd_component"]; !slices.Contains(groups[b%2], c) {
					t.Fatalf("body %d alert %d names %q, not one of its group's %v", b, i, c, groups[b%2])
				}
				for _, l := range []string{"alertname", "instance", "severity"} {
					if a.Labels[l] == "" {
						t.Fatalf("body %d alert %d has no label %s: %v", b, i, l, a.Labels)
					}
				}
				if resolved {
					if f := firing[b].Alerts[i]; f.Key != a.Key {
						t.Fatalf("body %d alert %d: recovery key %s, firing %s", b, i, a.Key, f.Key)
					}
					continue
				}
				if keys[a.Key] || len(a.Key) != 16 {
					t.Fatalf("body %d alert %d: key %q repeated or not 16 hex digits", b, i, a.Key)
				}
				keys[a.Key] = true
			}
		}
		if len(groupKeys) != 10 {
			t.Errorf("%d group keys, want one a body", len(groupKeys))
		}
	}
	if len(keys) != 1000 {
		t.Errorf("%d keys in the storm, want 1000", len(keys))
	}
	s.Number, s.Resolved = 8, false
	next, err := s.bodies()
	if err != nil {
		t.Fatal(err)
	}
	batch, _ := signals.Decode(signals.Alertmanager, next[0])
	if keys[batch.Alerts[0].Key] {
		t.Errorf("storm 8 repeats storm 7's key %s", batch.Alerts[0].Key)
	}
}

// TestWithKeys: every component gets a key, in document order, and the
// document still imports; the component of the open incident is left
// out of the groups, which share the others out.
func TestWithKeys(t *testing.T) {
	dir := t.TempDir()
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	doc := &statusd.Document{Page: statusd.Page{Name: "Bench", URL: "https://status.bench.test", CreatedAt: at, UpdatedAt: at}}
	for i := range 7 {
		doc.Components = append(doc.Components, statusd.Component{ID: int64(10 + i), Name: "C" + string(rune('a'+i)), Position: i,
			CreatedAt: at, UpdatedAt: at})
	}
	doc.Notices = []statusd.Notice{{ID: 1, Type: statusd.Unplanned, Subject: "Errors", ComponentIDs: []int64{12},
		CreatedAt: at, UpdatedAt: at, Updates: []statusd.Update{{ID: 1, State: statusd.Investigating, Content: "Looking.", CreatedAt: at}}}}
	page := filepath.Join(dir, "page.json")
	f, err := os.Create(page)
	if err != nil {
		t.Fatal(err)
	}
	if err := statusd.EncodeDocument(f, doc); err != nil {
		t.Fatal(err)
	}
	f.Close()
	out := filepath.Join(dir, "out.json")
	groups, err := withKeys(page, out, 3)
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{{"c1", "c2"}, {"c4", "c5"}, {"c6", "c7"}} // c3 is component 12's
	if !slices.EqualFunc(groups, want, slices.Equal) {
		t.Errorf("groups %v, want %v", groups, want)
	}
	r, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	got, err := statusd.DecodeDocument(r)
	if err != nil {
		t.Fatalf("the document does not import: %v", err)
	}
	for i, c := range got.Components {
		if c.Key != "c"+string(rune('1'+i)) {
			t.Errorf("component %d: key %q, want c%d", c.ID, c.Key, i+1)
		}
	}
	if _, err := withKeys(page, out, 7); err == nil {
		t.Error("7 groups of 6 free components: no error")
	}
}

// TestBucket: a source's bucket lets the first bursts go at once, then
// makes a storm wait for the tokens it lacks, at pace times the rate.
func TestBucket(t *testing.T) {
	var k bucket
	t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	for i := range 5 {
		if w := k.take(t0, 10); w != 0 {
			t.Fatalf("take %d of 10 from a full bucket of 50: wait %v", i+1, w)
		}
	}
	rate := hookRate * pace
	want := time.Duration(10 / rate * float64(time.Second))
	if w := k.take(t0, 10); w != want {
		t.Errorf("empty bucket: wait %v, want %v", w, want)
	}
	// The next take, at the same moment, queues behind the first.
	if w := k.take(t0, 10); w != 2*want {
		t.Errorf("second take on an empty bucket: wait %v, want %v", w, 2*want)
	}
	// A minute later the bucket is full again, and no fuller.
	later := t0.Add(time.Minute)
	for range 5 {
		if w := k.take(later, 10); w != 0 {
			t.Fatalf("a minute later: wait %v", w)
		}
	}
	if w := k.take(later, 10); w == 0 {
		t.Error("the bucket holds more than its burst")
	}
}

// TestTally: a 202 that summarises every alert is good; a short
// summary, another status and a failed request are described.
func TestTally(t *testing.T) {
	r := stormResult{actions: map[string]int{}}
	good := `{"received": 2, "signals": [{"key": "a", "action": "drafted"}, {"key": "b", "action": "attached"}]}`
	for _, c := range []struct {
		a    answer
		want string
	}{
		{answer{status: http.StatusAccepted, body: []byte(good)}, ""},
		{answer{status: http.StatusAccepted, body: []byte(`{"received": 2, "signals": []}`)}, "202 with 2 received and 0 signals"},
		{answer{status: http.StatusTooManyRequests, body: []byte(`{"error": "rate_limited"}`)}, "429: "},
		{answer{status: http.StatusAccepted, body: []byte(`<html>`)}, "202 that is not a summary"},
		{answer{err: errors.New("connection refused")}, "connection refused"},
	} {
		got := tally(&r, c.a, 2)
		if c.want == "" && got != "" || !strings.HasPrefix(got, c.want) {
			t.Errorf("tally(%d %s) = %q, want %q", c.a.status, c.a.body, got, c.want)
		}
	}
	if r.good != 1 || r.received != 4 || r.actions["drafted"] != 1 || r.actions["attached"] != 1 {
		t.Errorf("after the answers: %d good, %d received, actions %v; want 1, 4, drafted 1 and attached 1", r.good, r.received, r.actions)
	}
}

// TestVerdicts: a phase passes when every storm took at most 1 s; the
// reads ratio is the median over the steady rounds; every answer must be
// good; the end state is checked against the storms sent.
func TestVerdicts(t *testing.T) {
	storms := []stormResult{
		{phase: phaseWarmUp, sec: 3}, // not judged
		{phase: phaseQuiet, sec: 0.4, requests: 10, good: 10},
		{phase: phaseQuiet, resolved: true, sec: 0.9, requests: 10, good: 10},
		{phase: phaseReads, sec: 0.5, requests: 10, good: 10},
		{phase: phaseReads, sec: 0.7, requests: 10, good: 10},
		{phase: phaseReads, resolved: true, sec: 1.2, requests: 10, good: 9},
	}
	if got := stormCell(storms, phaseQuiet); got != "firing 0.400 / 0.400 s; recovery 0.900 / 0.900 s PASS" {
		t.Errorf("quiet cell %q", got)
	}
	if got := stormCell(storms, phaseReads); got != "firing 0.600 / 0.700 s; recovery 1.200 / 1.200 s **FAIL**" {
		t.Errorf("reads cell %q", got)
	}
	if got := stormCell(nil, phaseReads); got != "no storm" {
		t.Errorf("no storms: %q", got)
	}
	if good, all := answers(storms); good != 49 || all != 50 {
		t.Errorf("answers %d of %d, want 49 of 50", good, all)
	}

	d := dbResult{
		quiet:  []rig.Result{{RPS: 1000}, {RPS: 1200}, {RPS: 2000}},
		rounds: []roundResult{{reads: rig.Result{RPS: 880}}, {reads: rig.Result{RPS: 100}}},
	}
	// Round 1: without (1000 + 1200) / 2 = 1100, with 880: 0.8. Round 2
	// (1200, then 2000) is unsteady and left out.
	if got := d.ratio(); math.Abs(got-0.8) > 1e-9 {
		t.Errorf("ratio %v, want 0.8", got)
	}
	if !d.quiet.Steady(0) || d.quiet.Steady(1) {
		t.Errorf("steady: %v, %v; want true, false", d.quiet.Steady(0), d.quiet.Steady(1))
	}
	stopped := dbResult{quiet: []rig.Result{{RPS: 1000}}, rounds: []roundResult{{reads: rig.Result{RPS: 500}}}}
	if got := stopped.ratio(); !math.IsNaN(got) || stopped.quiet.Without(0) != 1000 {
		t.Errorf("a round without its after figure: ratio %v (want NaN), without %v (want 1000)", got, stopped.quiet.Without(0))
	}

	end := dbResult{fired: 2, end: endState{signals: map[string]int{"resolved": 2000}, drafts: map[string]int{"lapsed": 10}}}
	if got := endText(end, 1000, 5); strings.Count(got, "as expected") != 2 {
		t.Errorf("end as expected: %q", got)
	}
	end.end.drafts = map[string]int{"lapsed": 9, "open": 1}
	if got := endText(end, 1000, 5); !strings.Contains(got, "**not as expected**: 10, all lapsed") {
		t.Errorf("an open draft left: %q", got)
	}
}
