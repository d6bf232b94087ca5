package snapshot

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/statusd/statusd"
)

// naiveMetrics computes a component's metrics the slow, obvious way, as an
// oracle for the indexed computation: walk every notice, keep the unplanned
// ones that list the component or a descendant and are not false alarms,
// clip their impacts to the window, and measure the union by sorting.
func naiveMetrics(doc *statusd.Document, id int64, tf statusd.Timeframe, now time.Time) statusd.Metrics {
	parent := map[int64]*int64{}
	for _, c := range doc.Components {
		parent[c.ID] = c.ParentID
	}
	inSubtree := func(c int64) bool {
		for cur := &c; cur != nil; cur = parent[*cur] {
			if *cur == id {
				return true
			}
		}
		return false
	}
	from, to := tf.Window(now)
	countTo := tf.End.AddDate(0, 0, 1)
	var clipped []statusd.Interval
	var count int64
	for i := range doc.Notices {
		n := &doc.Notices[i]
		if n.Type != statusd.Unplanned || n.State() == statusd.FalseAlarm || !slices.ContainsFunc(n.ComponentIDs, inSubtree) {
			continue
		}
		counted := false
		for _, iv := range n.Impact(now) {
			if iv.Start.Before(countTo) && iv.End.After(from) {
				counted = true
			}
			s, e := maxTime(iv.Start, from), minTime(iv.End, to)
			if e.After(s) {
				clipped = append(clipped, statusd.Interval{Start: s, End: e})
			}
		}
		if counted {
			count++
		}
	}
	slices.SortFunc(clipped, func(a, b statusd.Interval) int { return a.Start.Compare(b.Start) })
	var impact time.Duration
	var curS, curE time.Time
	for i, iv := range clipped {
		if i > 0 && !iv.Start.After(curE) {
			curE = maxTime(curE, iv.End)
			continue
		}
		impact += curE.Sub(curS)
		curS, curE = iv.Start, iv.End
	}
	impact += curE.Sub(curS)
	return statusd.Metrics{Timeframe: tf, TotalSeconds: to.Sub(from).Milliseconds() / 1000,
		ImpactSeconds: impact.Milliseconds() / 1000, Count: count}
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

// randomDoc is a page of a small tree (1 <- 2, 3; 2 <- 4) and random
// unplanned notices around now: some open, some reopened, some false
// alarms, some with an impact override, some listing several components.
func randomDoc(rng *rand.Rand, now time.Time) *statusd.Document {
	doc := benchDoc(1, 0)
	doc.Components = nil
	for i, p := range []int64{0, 1, 1, 2} {
		c := statusd.Component{ID: int64(i + 1), Position: i + 1, Name: "C", MetricsEnabled: true}
		if p != 0 {
			c.ParentID = &p
		}
		doc.Components = append(doc.Components, c)
	}
	var uid int64
	for id := int64(1); id <= int64(1+rng.IntN(40)); id++ {
		at := now.Add(-time.Duration(rng.Int64N(int64(60 * 24 * time.Hour)))).Truncate(time.Millisecond)
		if rng.IntN(2) == 0 {
			at = now.Add(-time.Duration(rng.Int64N(int64(400 * 24 * time.Hour)))).Truncate(time.Millisecond)
		}
		var ups []statusd.Update
		for k := 0; k < 1+rng.IntN(5); k++ {
			states := statusd.States(statusd.Unplanned)
			uid++
			ups = append(ups, statusd.Update{ID: uid, State: states[rng.IntN(len(states))], Content: "x", CreatedAt: at, UpdatedAt: at})
			at = at.Add(time.Duration(rng.Int64N(int64(10 * 24 * time.Hour))))
		}
		n := statusd.Notice{ID: id, Type: statusd.Unplanned, Subject: "S", TagList: []string{}, CreatedAt: ups[0].CreatedAt,
			UpdatedAt: ups[len(ups)-1].CreatedAt, Updates: ups}
		for c := int64(1); c <= 4; c++ {
			if rng.IntN(3) == 0 {
				n.ComponentIDs = append(n.ComponentIDs, c)
			}
		}
		if rng.IntN(8) == 0 {
			n.ImpactSeconds = ptr(rng.Int64N(100000))
		}
		doc.Notices = append(doc.Notices, n)
	}
	return doc
}

func ptr[T any](v T) *T { return &v }

// TestMetricsAgainstOracle checks the indexed metrics against naiveMetrics
// on random pages, components and timeframes.
func TestMetricsAgainstOracle(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	for round := 0; round < 2000; round++ {
		now := time.Date(2028, 3, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(rng.Int64N(int64(48 * time.Hour))))
		doc := randomDoc(rng, now)
		s := Build(doc, 1, now, Options{Variant: statusd.VariantA})
		for k := 0; k < 10; k++ {
			earliest := statusd.EarliestStart(now)
			days := int(statusd.Day(now).Sub(earliest).Hours() / 24)
			start := earliest.AddDate(0, 0, rng.IntN(days+1))
			if rng.IntN(2) == 0 {
				start = statusd.Day(now).AddDate(0, 0, -rng.IntN(60))
			}
			end := start.AddDate(0, 0, rng.IntN(3))
			if rng.IntN(2) == 0 {
				end = start.AddDate(0, 0, rng.IntN(400))
			}
			tf, err := statusd.ParseTimeframe(start.Format(statusd.DateLayout), end.Format(statusd.DateLayout), now)
			if err != nil {
				t.Fatal(err)
			}
			id := int64(1 + rng.IntN(4))
			got := s.Metrics(s.Component(id), tf, now)
			want := naiveMetrics(doc, id, tf, now)
			if got != want {
				t.Fatalf("round %d, component %d, %s..%s at %s:\ngot  %+v\nwant %+v", round, id,
					start.Format(statusd.DateLayout), end.Format(statusd.DateLayout), now, got, want)
			}
		}
	}
}

// BenchmarkMetrics12MonthsNaive is the baseline for BenchmarkMetrics12Months:
// the same metrics by a scan of every notice.
func BenchmarkMetrics12MonthsNaive(b *testing.B) {
	doc := benchDoc(11, 100_000)
	tf, err := statusd.ParseTimeframe(statusd.EarliestStart(benchNow).Format(statusd.DateLayout), "", benchNow)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if m := naiveMetrics(doc, 1, tf, benchNow); m.Count == 0 {
			b.Fatal("no notices counted")
		}
	}
}
