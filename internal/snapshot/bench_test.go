package snapshot

import (
	"slices"
	"testing"
	"time"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/bench/large"
)

var benchNow = time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)

func benchDoc(components, notices int) *statusd.Document {
	return large.Document(components, notices, benchNow)
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
