package snapshot

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/statusd/statusd"
)

var benchNow = time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)

// benchDoc builds a page of components (component 1 the parent of all the
// others, every one with Metrics on) and unplanned notices spread over the
// 13 months before benchNow, each listing one child, with impacts of 1 to
// 120 minutes, one in ten reopened once.
func benchDoc(components, notices int) *statusd.Document {
	rng := rand.New(rand.NewPCG(1, 2))
	doc := &statusd.Document{Page: statusd.Page{Name: "Bench", URL: "https://status.bench.test",
		CreatedAt: benchNow.AddDate(-2, 0, 0), UpdatedAt: benchNow.AddDate(-2, 0, 0)}}
	for i := 1; i <= components; i++ {
		c := statusd.Component{ID: int64(i), Position: i, Name: fmt.Sprintf("C%d", i), MetricsEnabled: true,
			CreatedAt: doc.Page.CreatedAt, UpdatedAt: doc.Page.CreatedAt}
		if i > 1 {
			c.ParentID = &doc.Components[0].ID
		}
		doc.Components = append(doc.Components, c)
	}
	span := benchNow.Sub(benchNow.AddDate(0, -13, 0))
	var uid int64
	up := func(s statusd.State, at time.Time) statusd.Update {
		uid++
		return statusd.Update{ID: uid, State: s, Content: "x", CreatedAt: at, UpdatedAt: at}
	}
	for i := 1; i <= notices; i++ {
		start := benchNow.Add(-time.Duration(rng.Int64N(int64(span)))).Truncate(time.Millisecond)
		impact := time.Duration(1+rng.IntN(120)) * time.Minute
		ups := []statusd.Update{up(statusd.Investigating, start), up(statusd.Recovering, start.Add(impact))}
		if i%10 == 0 {
			ups = append(ups, up(statusd.Identified, start.Add(2*impact)), up(statusd.Resolved, start.Add(3*impact)))
		} else {
			ups = append(ups, up(statusd.Resolved, start.Add(impact+time.Minute)))
		}
		child := int64(2 + rng.IntN(max(1, components-1)))
		doc.Notices = append(doc.Notices, statusd.Notice{ID: int64(i), Type: statusd.Unplanned,
			Subject: "Incident", TagList: []string{}, ComponentIDs: []int64{min(child, int64(components))},
			CreatedAt: start, UpdatedAt: ups[len(ups)-1].CreatedAt, Updates: ups})
	}
	return doc
}

// BenchmarkMetrics12Months is the metrics of a component whose subtree holds
// 100,000 unplanned notices, over a 12-month timeframe, with calculations.
func BenchmarkMetrics12Months(b *testing.B) {
	s := Build(benchDoc(11, 100_000), 1, benchNow, Options{Variant: statusd.VariantA})
	tf, err := statusd.ParseTimeframe(statusd.EarliestStart(benchNow).Format(statusd.DateLayout), "", benchNow)
	if err != nil {
		b.Fatal(err)
	}
	parent := s.Component(1)
	b.ReportAllocs()
	for b.Loop() {
		r := s.MetricsResponse(parent, tf, benchNow, true)
		if r.CalculationData.Notices.Count == 0 {
			b.Fatal("no notices counted")
		}
	}
}

// BenchmarkComponentsPageSummaries is a full page of 25 components, each
// with a metrics_summary, over 100,000 notices: no store access at all.
func BenchmarkComponentsPageSummaries(b *testing.B) {
	s := Build(benchDoc(30, 100_000), 1, benchNow, Options{Variant: statusd.VariantA})
	b.ReportAllocs()
	for b.Loop() {
		list, _ := s.Components(ComponentFilter{}, 1, benchNow)
		if len(list) != PageSize {
			b.Fatalf("%d components", len(list))
		}
	}
}

// BenchmarkBuild100k is building the snapshot of 100,000 notices.
func BenchmarkBuild100k(b *testing.B) {
	doc := benchDoc(11, 100_000)
	b.ReportAllocs()
	for b.Loop() {
		Build(doc, 1, benchNow, Options{Variant: statusd.VariantA})
	}
}

// BenchmarkWith100k is the snapshot that follows one write (a new update on
// one notice) on a page of 100,000 notices: what a write costs before it is
// visible.
func BenchmarkWith100k(b *testing.B) {
	doc := benchDoc(11, 100_000)
	s := Build(doc, 1, benchNow, Options{Variant: statusd.VariantA})
	n := doc.Notices[500]
	n.Updates = append(slices.Clone(n.Updates), statusd.Update{ID: 1 << 40, State: statusd.Resolved, Content: "More.",
		CreatedAt: n.UpdatedAt.Add(time.Minute), UpdatedAt: n.UpdatedAt.Add(time.Minute)})
	w := statusd.Written{Version: 2, Notices: map[int64]*statusd.Notice{n.ID: &n}}
	b.ReportAllocs()
	for b.Loop() {
		s.With(w, benchNow)
	}
}

// BenchmarkRetime100k is the snapshot after a time rule fired on a page of
// 100,000 notices.
func BenchmarkRetime100k(b *testing.B) {
	s := Build(benchDoc(11, 100_000), 1, benchNow, Options{Variant: statusd.VariantA})
	later := benchNow.Add(8 * 24 * time.Hour)
	b.ReportAllocs()
	for b.Loop() {
		s.Retime(later)
	}
}
