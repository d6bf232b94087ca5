package statusd

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

func tFmtIntervals(ivs []Interval) string {
	s := "["
	for i, iv := range ivs {
		if i > 0 {
			s += " "
		}
		s += "[" + iv.Start.Format("15:04:05.000") + "," + iv.End.Format("15:04:05.000") + ")"
	}
	return s + "]"
}

func TestNoticeImpact(t *testing.T) {
	now := tAt(600)
	override := func(n *Notice, secs int64) *Notice { n.ImpactSeconds = tI64(secs); return n }
	iv := func(a, b time.Time) Interval { return Interval{a, b} }
	tests := []struct {
		name string
		n    *Notice
		want []Interval
	}{
		{"open investigating runs up to now",
			tIncident(tUp(Investigating, tAt(0))), []Interval{iv(tAt(0), now)}},
		{"first update identified runs up to now",
			tIncident(tUp(Identified, tAt(30))), []Interval{iv(tAt(30), now)}},
		{"investigating then identified is one interval",
			tIncident(tUp(Investigating, tAt(0)), tUp(Identified, tAt(30))), []Interval{iv(tAt(0), now)}},
		{"resolved ends the impact",
			tIncident(tUp(Investigating, tAt(0)), tUp(Identified, tAt(10)), tUp(Resolved, tAt(60))), []Interval{iv(tAt(0), tAt(60))}},
		{"recovering ends the impact",
			tIncident(tUp(Investigating, tAt(0)), tUp(Recovering, tAt(45)), tUp(Resolved, tAt(90))), []Interval{iv(tAt(0), tAt(45))}},
		{"still recovering: impact ended at recovering",
			tIncident(tUp(Investigating, tAt(0)), tUp(Recovering, tAt(45))), []Interval{iv(tAt(0), tAt(45))}},
		{"identified, recovering, identified, resolved gives two intervals",
			tIncident(tUp(Investigating, tAt(0)), tUp(Identified, tAt(10)), tUp(Recovering, tAt(20)), tUp(Identified, tAt(30)), tUp(Resolved, tAt(50))),
			[]Interval{iv(tAt(0), tAt(20)), iv(tAt(30), tAt(50))}},
		{"identified, recovering, identified still open: second runs up to now",
			tIncident(tUp(Identified, tAt(0)), tUp(Recovering, tAt(20)), tUp(Identified, tAt(30))),
			[]Interval{iv(tAt(0), tAt(20)), iv(tAt(30), now)}},
		{"resolved and reopened gives two intervals",
			tIncident(tUp(Investigating, tAt(0)), tUp(Resolved, tAt(10)), tUp(Investigating, tAt(20)), tUp(Resolved, tAt(25))),
			[]Interval{iv(tAt(0), tAt(10)), iv(tAt(20), tAt(25))}},
		{"recovering, resolved, recovering extra updates do not reopen",
			tIncident(tUp(Investigating, tAt(0)), tUp(Recovering, tAt(10)), tUp(Recovering, tAt(20)), tUp(Resolved, tAt(25)), tUp(Resolved, tAt(30))),
			[]Interval{iv(tAt(0), tAt(10))}},
		{"false alarm has none",
			tIncident(tUp(Investigating, tAt(0)), tUp(FalseAlarm, tAt(5))), nil},
		{"false alarm after identified and resolved has none",
			tIncident(tUp(Investigating, tAt(0)), tUp(Identified, tAt(5)), tUp(Resolved, tAt(20)), tUp(FalseAlarm, tAt(30))), nil},
		{"first update already resolved has none",
			tIncident(tUp(Resolved, tAt(0))), nil},
		{"first update recovering has none",
			tIncident(tUp(Recovering, tAt(0)), tUp(Resolved, tAt(10))), nil},
		{"zero-length interval is dropped",
			tIncident(tUp(Investigating, tAt(0)), tUp(Resolved, tAt(0))), nil},
		{"updates after now are cut at now",
			tIncident(tUp(Investigating, tAt(0)), tUp(Resolved, tAt(700))), []Interval{iv(tAt(0), now)}},
		{"override replaces the computed impact",
			override(tIncident(tUp(Investigating, tAt(0)), tUp(Resolved, tAt(60))), 120),
			[]Interval{iv(tAt(0), tAt(2))}},
		{"override on an open incident",
			override(tIncident(tUp(Investigating, tAt(0))), 90),
			[]Interval{iv(tAt(0), tAt(0).Add(90*time.Second))}},
		{"override starts at began_at even when first update is resolved",
			override(tIncident(tUp(Resolved, tAt(10))), 60),
			[]Interval{iv(tAt(10), tAt(11))}},
		{"override 0 means no impact",
			override(tIncident(tUp(Investigating, tAt(0)), tUp(Resolved, tAt(60))), 0), nil},
		{"override on a false alarm has none",
			override(tIncident(tUp(Investigating, tAt(0)), tUp(FalseAlarm, tAt(60))), 300), nil},
		{"general has none", tGeneral(nil), nil},
		{"planned underway has none",
			tMaintenance(tUp(Scheduled, tAt(0)), tUp(Underway, tAt(10))), nil},
		{"planned with an override-like field still has none",
			override(tMaintenance(tUp(Underway, tAt(10))), 100), nil},
		{"no updates has none", tIncident(), nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.n.Impact(now)
			eq := slices.EqualFunc(got, tc.want, func(a, b Interval) bool {
				return a.Start.Equal(b.Start) && a.End.Equal(b.End)
			})
			if !eq {
				t.Errorf("Impact() = %s, want %s", tFmtIntervals(got), tFmtIntervals(tc.want))
			}
		})
	}
}

func TestNoticeImpactSecondsAt(t *testing.T) {
	now := tAt(600)
	override := func(n *Notice, secs int64) *Notice { n.ImpactSeconds = tI64(secs); return n }
	tests := []struct {
		name string
		n    *Notice
		now  time.Time
		want int64
	}{
		// 10:00 to 11:30 = 90 min = 5400 s.
		{"open incident up to now", tIncident(tUp(Investigating, tAt(0))), tAt(90), 5400},
		// The same incident seen later has grown: 600 min = 36000 s.
		{"open incident grows with now", tIncident(tUp(Investigating, tAt(0))), now, 36000},
		// 45 min = 2700 s.
		{"recovering ends the impact", tIncident(tUp(Investigating, tAt(0)), tUp(Recovering, tAt(45)), tUp(Resolved, tAt(90))), now, 2700},
		// [0,20) + [30,50) = 20 + 20 min = 2400 s.
		{"two intervals add up",
			tIncident(tUp(Investigating, tAt(0)), tUp(Identified, tAt(10)), tUp(Recovering, tAt(20)), tUp(Identified, tAt(30)), tUp(Resolved, tAt(50))), now, 2400},
		// 1.999 s rounds down to 1.
		{"rounds down", tIncident(tUp(Investigating, tAt(0)), tUp(Resolved, tAt(0).Add(1999*time.Millisecond))), now, 1},
		// 0.999 s rounds down to 0.
		{"under a second is 0", tIncident(tUp(Investigating, tAt(0)), tUp(Resolved, tAt(0).Add(999*time.Millisecond))), now, 0},
		// Two intervals of 0.6 s: the total 1.2 s is rounded, not each part.
		{"rounds the total, not each interval",
			tIncident(tUp(Investigating, tAt(0)), tUp(Recovering, tAt(0).Add(600*time.Millisecond)),
				tUp(Identified, tAt(1)), tUp(Resolved, tAt(1).Add(600*time.Millisecond))), now, 1},
		{"false alarm is 0", tIncident(tUp(Investigating, tAt(0)), tUp(FalseAlarm, tAt(30))), now, 0},
		{"override", override(tIncident(tUp(Investigating, tAt(0)), tUp(Resolved, tAt(60))), 3600), now, 3600},
		{"override 0", override(tIncident(tUp(Investigating, tAt(0)), tUp(Resolved, tAt(60))), 0), now, 0},
		// 100 years are 36,525 days of 86,400 s.
		{"override of 100 years", override(tIncident(tUp(Investigating, tAt(0)), tUp(Resolved, tAt(60))), 3_155_760_000), now, 3_155_760_000},
		// An override over the bound, stored before it was refused, counts
		// as the bound, not as a figure wrapped around (300 years gave
		// -8446744073).
		{"override over 100 years counts 100 years", override(tIncident(tUp(Investigating, tAt(0)), tUp(Resolved, tAt(60))), 300*31_557_600), now, 3_155_760_000},
		// Two periods of 400 Gregorian years, 146,097 days each: 2 x
		// 146,097 x 86,400 s, where time.Durations (292 years at most)
		// would wrap around.
		{"periods of centuries add up",
			tIncident(tUp(Investigating, time.Date(1200, 1, 1, 0, 0, 0, 0, time.UTC)), tUp(Resolved, time.Date(1600, 1, 1, 0, 0, 0, 0, time.UTC)),
				tUp(Investigating, time.Date(1600, 1, 1, 0, 0, 0, 0, time.UTC)), tUp(Resolved, time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC))),
			now, 25_245_561_600},
		{"first update already resolved is 0", tIncident(tUp(Resolved, tAt(0))), now, 0},
		{"general is 0", tGeneral(nil), now, 0},
		{"planned is 0", tMaintenance(tUp(Underway, tAt(0)), tUp(Complete, tAt(60))), now, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.n.ImpactSecondsAt(tc.now); got != tc.want {
				t.Errorf("ImpactSecondsAt() = %d, want %d", got, tc.want)
			}
		})
	}
}

// tSetIntervals returns the disjoint intervals of s.
func tSetIntervals(s IntervalSet) [][2]int64 {
	var out [][2]int64
	for i := range s.starts {
		out = append(out, [2]int64{s.starts[i], s.ends[i]})
	}
	return out
}

// tCheckSetInvariants checks that s is sorted, disjoint, non-adjacent and that
// its prefix sums are right.
func tCheckSetInvariants(t *testing.T, s IntervalSet) {
	t.Helper()
	if len(s.starts) != len(s.ends) {
		t.Fatalf("len(starts)=%d != len(ends)=%d", len(s.starts), len(s.ends))
	}
	if len(s.starts) > 0 && len(s.prefix) != len(s.starts)+1 {
		t.Fatalf("len(prefix)=%d, want %d", len(s.prefix), len(s.starts)+1)
	}
	var sum int64
	for i := range s.starts {
		if s.ends[i] <= s.starts[i] {
			t.Errorf("interval %d [%d,%d) is empty", i, s.starts[i], s.ends[i])
		}
		if i > 0 && s.starts[i] <= s.ends[i-1] {
			t.Errorf("interval %d starts at %d, not after the previous end %d", i, s.starts[i], s.ends[i-1])
		}
		if s.prefix[i] != sum {
			t.Errorf("prefix[%d] = %d, want %d", i, s.prefix[i], sum)
		}
		sum += s.ends[i] - s.starts[i]
	}
	if len(s.starts) > 0 && s.prefix[len(s.starts)] != sum {
		t.Errorf("prefix[last] = %d, want %d", s.prefix[len(s.starts)], sum)
	}
}

func TestNewIntervalSet(t *testing.T) {
	tests := []struct {
		name string
		in   [][2]int64
		want [][2]int64
	}{
		{"nil", nil, nil},
		{"empty slice", [][2]int64{}, nil},
		{"single", [][2]int64{{10, 20}}, [][2]int64{{10, 20}}},
		{"empty intervals are ignored", [][2]int64{{5, 5}, {7, 3}}, nil},
		{"empty interval among others", [][2]int64{{0, 10}, {15, 15}, {20, 30}}, [][2]int64{{0, 10}, {20, 30}}},
		{"overlapping", [][2]int64{{0, 10}, {5, 15}}, [][2]int64{{0, 15}}},
		{"adjacent are merged", [][2]int64{{0, 10}, {10, 20}}, [][2]int64{{0, 20}}},
		{"gap of one stays apart", [][2]int64{{0, 10}, {11, 20}}, [][2]int64{{0, 10}, {11, 20}}},
		{"nested", [][2]int64{{0, 100}, {10, 20}}, [][2]int64{{0, 100}}},
		{"nested then extending", [][2]int64{{0, 100}, {10, 20}, {90, 120}}, [][2]int64{{0, 120}}},
		{"same start, different ends", [][2]int64{{0, 50}, {0, 10}}, [][2]int64{{0, 50}}},
		{"duplicates", [][2]int64{{3, 8}, {3, 8}, {3, 8}}, [][2]int64{{3, 8}}},
		{"unsorted and disjoint", [][2]int64{{50, 60}, {0, 10}, {20, 30}}, [][2]int64{{0, 10}, {20, 30}, {50, 60}}},
		{"chain of overlaps", [][2]int64{{18, 30}, {0, 10}, {40, 50}, {5, 20}}, [][2]int64{{0, 30}, {40, 50}}},
		{"one interval covers all", [][2]int64{{10, 20}, {30, 40}, {0, 100}, {50, 60}}, [][2]int64{{0, 100}}},
		{"negative (before 1970)", [][2]int64{{-10, -5}, {-6, 0}}, [][2]int64{{-10, 0}}},
		{"large Unix milliseconds", [][2]int64{{1835000000000, 1835000003600}, {1835000001000, 1835000007200}},
			[][2]int64{{1835000000000, 1835000007200}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var orig [][2]int64
			if tc.in != nil {
				orig = slices.Clone(tc.in)
			}
			s := NewIntervalSet(tc.in)
			tCheckSetInvariants(t, s)
			if got := tSetIntervals(s); !slices.Equal(got, tc.want) {
				t.Errorf("intervals = %v, want %v", got, tc.want)
			}
			if s.Len() != len(tc.want) {
				t.Errorf("Len() = %d, want %d", s.Len(), len(tc.want))
			}
			if !slices.Equal(tc.in, orig) {
				t.Errorf("input modified: %v, was %v", tc.in, orig)
			}
			var total int64
			for _, iv := range tc.want {
				total += iv[1] - iv[0]
			}
			if got := s.Covered(-1<<40, 1<<45); got != total {
				t.Errorf("Covered(everything) = %d, want %d", got, total)
			}
		})
	}
}

func TestIntervalSetCovered(t *testing.T) {
	set := NewIntervalSet([][2]int64{{30, 40}, {10, 20}})
	tests := []struct {
		name     string
		s        IntervalSet
		from, to int64
		want     int64
	}{
		{"before", set, 0, 5, 0},
		{"touching the first start", set, 0, 10, 0},
		{"one past the first start", set, 0, 11, 1},
		{"after", set, 50, 60, 0},
		{"touching the last end", set, 40, 50, 0},
		{"one before the last end", set, 39, 50, 1},
		{"inside one", set, 12, 18, 6},
		{"exactly one", set, 10, 20, 10},
		{"spanning all", set, 0, 100, 20},
		{"exactly the hull", set, 10, 40, 20},
		{"across the gap", set, 15, 35, 10},
		{"exactly the gap", set, 20, 30, 0},
		{"inside the gap", set, 22, 28, 0},
		{"partial at the start", set, 5, 15, 5},
		{"partial at the end", set, 35, 45, 5},
		{"from the gap into the second", set, 25, 35, 5},
		{"empty window", set, 15, 15, 0},
		{"reversed window", set, 18, 12, 0},
		{"one millisecond inside", set, 10, 11, 1},
		{"one millisecond at the last ms", set, 39, 40, 1},
		{"zero set", IntervalSet{}, 0, 100, 0},
		{"empty set", NewIntervalSet(nil), 0, 100, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.s.Covered(tc.from, tc.to); got != tc.want {
				t.Errorf("Covered(%d, %d) = %d, want %d", tc.from, tc.to, got, tc.want)
			}
		})
	}
}

// TestIntervalSetProperties checks NewIntervalSet and Covered against a
// brute-force count of covered millisecond buckets on a small range, and the
// additivity Covered(a,b)+Covered(b,c) == Covered(a,c).
func TestIntervalSetProperties(t *testing.T) {
	const lo, hi = -20, 100 // buckets cover [lo, hi)
	for _, seed := range []uint64{1, 2, 3, 42, 2028} {
		r := rand.New(rand.NewPCG(seed, seed*7919+1))
		for iter := range 1000 {
			k := r.IntN(8)
			in := make([][2]int64, k)
			for i := range in {
				s := int64(r.IntN(hi-lo-20)) + lo
				in[i] = [2]int64{s, s + int64(r.IntN(25)) - 3} // some empty or reversed
			}
			s := NewIntervalSet(in)
			var covered [hi - lo]bool
			for _, iv := range in {
				for x := iv[0]; x < iv[1]; x++ {
					covered[x-lo] = true
				}
			}
			ctx := fmt.Sprintf("seed %d iter %d: set %v", seed, iter, in)

			// The merged intervals are exactly the maximal runs of buckets.
			var runs [][2]int64
			for x := int64(lo); x < hi; x++ {
				if !covered[x-lo] {
					continue
				}
				if n := len(runs); n > 0 && runs[n-1][1] == x {
					runs[n-1][1] = x + 1
				} else {
					runs = append(runs, [2]int64{x, x + 1})
				}
			}
			if got := tSetIntervals(s); !slices.Equal(got, runs) {
				t.Fatalf("%s: intervals %v, want %v", ctx, got, runs)
			}
			tCheckSetInvariants(t, s)

			brute := func(a, b int64) int64 {
				var n int64
				for x := a; x < b; x++ {
					if x >= lo && x < hi && covered[x-lo] {
						n++
					}
				}
				return n
			}
			for range 10 {
				a := int64(r.IntN(hi-lo+10)) + lo - 5
				b := int64(r.IntN(hi-lo+10)) + lo - 5
				if got, want := s.Covered(a, b), brute(a, b); got != want {
					t.Fatalf("%s: Covered(%d, %d) = %d, want %d", ctx, a, b, got, want)
				}
				c := int64(r.IntN(hi-lo+10)) + lo - 5
				p := []int64{a, b, c}
				slices.Sort(p)
				if ab, bc, ac := s.Covered(p[0], p[1]), s.Covered(p[1], p[2]), s.Covered(p[0], p[2]); ab+bc != ac {
					t.Fatalf("%s: Covered(%d,%d)+Covered(%d,%d) = %d+%d != Covered(%d,%d) = %d",
						ctx, p[0], p[1], p[1], p[2], ab, bc, p[0], p[2], ac)
				}
			}
		}
	}
}
