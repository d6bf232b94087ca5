package snapshot

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/statusd/statusd"
)

// followHref lists the notices that the metrics href of component id for tf
// gives on the notices API at now, every page of it.
func followHref(s *Snapshot, id int64, tf statusd.Timeframe, now time.Time) []int64 {
	f := NoticeFilter{MetricsComponentID: &id, Overlaps: &Range{From: tf.Start, To: tf.End.Add(24*time.Hour - time.Millisecond)}}
	var ids []int64
	for page := int64(1); ; page++ {
		list, total := s.Notices(f, page, now)
		for _, e := range list {
			ids = append(ids, e.ID)
		}
		if len(ids) >= total || len(list) == 0 {
			return ids
		}
	}
}

func noticeIDs(ns []*Notice) []int64 {
	out := []int64{}
	for _, n := range ns {
		out = append(out, n.ID)
	}
	return out
}

// TestDaysAgainstOracle checks, on random pages, that every day of Days has
// the metrics of the one-day timeframe as the slow oracle computes them, and
// exactly the incidents that the API's href lists for that day; and that
// CountedNotices is the href's list for any timeframe.
func TestDaysAgainstOracle(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	for round := 0; round < 300; round++ {
		now := time.Date(2028, 3, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(rng.Int64N(int64(48 * time.Hour))))
		doc := randomDoc(rng, now)
		s := Build(doc, 1, now, Options{Variant: statusd.VariantA})
		// A few minutes later than the build, as a request would be.
		at := now.Add(time.Duration(rng.Int64N(int64(10 * time.Minute))))
		today := statusd.Day(at)
		for id := int64(1); id <= 4; id++ {
			c := s.Component(id)
			first := today.AddDate(0, 0, -rng.IntN(90))
			days := s.Days(c, first, today.AddDate(0, 0, 3), at)
			if want := int(today.Sub(first).Hours()/24) + 1; len(days) != want {
				t.Fatalf("round %d: %d days from %s, want %d (future days left out)", round, len(days), first, want)
			}
			for i, d := range days {
				tf := statusd.Timeframe{Start: d.Date, End: d.Date}
				if !d.Date.Equal(first.AddDate(0, 0, i)) {
					t.Fatalf("day %d is %s", i, d.Date)
				}
				if want := naiveMetrics(doc, id, tf, at); d.Metrics != want {
					t.Fatalf("round %d, component %d, %s: metrics %+v, oracle %+v", round, id, d.Date, d.Metrics, want)
				}
				got, want := noticeIDs(d.Incidents), followHref(s, id, tf, at)
				if want == nil {
					want = []int64{}
				}
				if !slices.Equal(got, want) || int64(len(got)) != d.Metrics.Count {
					t.Fatalf("round %d, component %d, %s: incidents %v, href lists %v, count %d", round, id, d.Date, got, want, d.Metrics.Count)
				}
			}
			tf := statusd.Timeframe{Start: today.AddDate(0, 0, -rng.IntN(300)), End: today.AddDate(0, 0, rng.IntN(3))}
			if got, want := noticeIDs(s.CountedNotices(c, tf, at)), followHref(s, id, tf, at); !slices.Equal(got, append([]int64{}, want...)) {
				t.Fatalf("round %d, component %d: counted %v, href lists %v", round, id, got, want)
			}
		}
	}
}

// TestDaysByHand checks one page worked out by hand: an incident from 22:00
// to 02:00 across midnight, and one that is still open.
func TestDaysByHand(t *testing.T) {
	now := time.Date(2028, 3, 10, 12, 0, 0, 0, time.UTC)
	at := func(s string) time.Time {
		v, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	up := func(st statusd.State, s string) statusd.Update {
		return statusd.Update{State: st, Content: "x", CreatedAt: at(s), UpdatedAt: at(s)}
	}
	doc := &statusd.Document{
		Page:       statusd.Page{Name: "P", URL: "https://p.test"},
		Components: []statusd.Component{{ID: 1, Position: 1, Name: "A", MetricsEnabled: true}},
		Notices: []statusd.Notice{
			{ID: 7, Type: statusd.Unplanned, Subject: "Night", ComponentIDs: []int64{1}, CreatedAt: at("2028-03-07T22:00:00Z"),
				Updates: []statusd.Update{up(statusd.Investigating, "2028-03-07T22:00:00Z"), up(statusd.Resolved, "2028-03-08T02:00:00Z")}},
			{ID: 8, Type: statusd.Unplanned, Subject: "Now", ComponentIDs: []int64{1}, CreatedAt: at("2028-03-10T09:00:00Z"),
				Updates: []statusd.Update{up(statusd.Identified, "2028-03-10T09:00:00Z")}},
		},
	}
	s := Build(doc, 1, now, Options{Variant: statusd.VariantA})
	days := s.Days(s.Component(1), at("2028-03-06T00:00:00Z"), at("2028-03-20T00:00:00Z"), now)
	type want struct {
		total, impact int64
		words         string
		ids           []int64
	}
	wants := []want{
		{86400, 0, "100.00%", []int64{}},     // 6 March
		{86400, 7200, "91.66%", []int64{7}},  // 7 March: 22:00-24:00; 100 - 7200/86400*100 = 91.666...
		{86400, 7200, "91.66%", []int64{7}},  // 8 March: 00:00-02:00
		{86400, 0, "100.00%", []int64{}},     // 9 March
		{43200, 10800, "75.00%", []int64{8}}, // 10 March, cut at noon: 09:00-12:00 of 12 hours
	}
	if len(days) != len(wants) {
		t.Fatalf("%d days, want %d (up to today)", len(days), len(wants))
	}
	for i, w := range wants {
		d := days[i]
		if d.Metrics.TotalSeconds != w.total || d.Metrics.ImpactSeconds != w.impact || d.Metrics.UptimeWords() != w.words ||
			!slices.Equal(noticeIDs(d.Incidents), w.ids) {
			t.Errorf("%s: %+v %s %v, want %+v", d.Date.Format(statusd.DateLayout), d.Metrics, d.Metrics.UptimeWords(), noticeIDs(d.Incidents), w)
		}
	}
	if got := s.Days(s.Component(1), at("2028-03-11T00:00:00Z"), at("2028-03-12T00:00:00Z"), now); len(got) != 0 {
		t.Errorf("future days: %d, want none", len(got))
	}

	// The same component added on 8 March at 10:00: 6 and 7 March end
	// before it existed and have no data, though incident 7 began on the
	// 7th; the 8th, the day it was added, has its figures as before.
	later := *doc
	later.Components = []statusd.Component{{ID: 1, Position: 1, Name: "A", MetricsEnabled: true, CreatedAt: at("2028-03-08T10:00:00Z")}}
	s = Build(&later, 1, now, Options{Variant: statusd.VariantA})
	days = s.Days(s.Component(1), at("2028-03-06T00:00:00Z"), at("2028-03-20T00:00:00Z"), now)
	if len(days) != len(wants) {
		t.Fatalf("%d days, want %d", len(days), len(wants))
	}
	for i, w := range wants {
		d := days[i]
		noData := i < 2
		if d.NoData != noData || (noData && (d.Metrics != statusd.Metrics{} || d.Incidents != nil)) ||
			(!noData && (d.Metrics.ImpactSeconds != w.impact || !slices.Equal(noticeIDs(d.Incidents), w.ids))) {
			t.Errorf("added on the 8th, %s: NoData %v, %+v %v", d.Date.Format(statusd.DateLayout), d.NoData, d.Metrics, noticeIDs(d.Incidents))
		}
	}
}
