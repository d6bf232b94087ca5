package statusd

import (
	"slices"
	"time"
)

// Interval is the half-open time range [Start, End).
type Interval struct {
	Start, End time.Time
}

// MaxImpactSeconds bounds an ImpactSeconds override: 100 years (36,525
// days), far more than any incident, and little enough that the impact, as
// a time.Duration (at most 292 years), and its end stay representable.
const MaxImpactSeconds = 36525 * 24 * 60 * 60

// Impact returns the periods during which an unplanned notice was current
// (investigating or identified), oldest first, as CONTRACT C4 defines them:
// the last period runs up to now while the notice is still current, periods
// are cut at now, empty ones are dropped, a false alarm has none, and an
// ImpactSeconds override replaces them with [began_at, began_at+seconds).
// Other notice types have no impact.
func (n *Notice) Impact(now time.Time) []Interval {
	if n.Type != Unplanned || len(n.Updates) == 0 || n.State() == FalseAlarm {
		return nil
	}
	if n.ImpactSeconds != nil {
		if *n.ImpactSeconds <= 0 {
			return nil
		}
		// A store may hold a larger override from before it was bounded.
		seconds := min(*n.ImpactSeconds, MaxImpactSeconds)
		began := n.Updates[0].CreatedAt
		return []Interval{{began, began.Add(time.Duration(seconds) * time.Second)}}
	}
	var out []Interval
	var start time.Time
	open := false
	add := func(end time.Time) {
		if end.After(now) {
			end = now
		}
		if end.After(start) {
			out = append(out, Interval{start, end})
		}
	}
	for _, u := range n.Updates {
		current := isCurrentIncidentState(u.State)
		switch {
		case current && !open:
			start, open = u.CreatedAt, true
		case !current && open:
			add(u.CreatedAt)
			open = false
		}
	}
	if open {
		add(now)
	}
	return out
}

// ImpactSecondsAt returns the whole seconds, rounded down, of a notice's impact
// at now. It adds seconds and nanoseconds apart, not time.Durations, which
// stop at 292 years, as the periods of updates dated centuries apart pass.
func (n *Notice) ImpactSecondsAt(now time.Time) int64 {
	var secs, nanos int64
	for _, iv := range n.Impact(now) {
		s, ns := iv.End.Unix()-iv.Start.Unix(), iv.End.Nanosecond()-iv.Start.Nanosecond()
		if ns < 0 {
			s, ns = s-1, ns+1e9
		}
		secs, nanos = secs+s, nanos+int64(ns)
	}
	return secs + nanos/1e9
}

// IntervalSet is a sorted list of disjoint intervals, in Unix milliseconds,
// with prefix sums of their lengths, so that the time it covers within any
// window costs two binary searches. The zero value is an empty set. It is
// immutable and safe for concurrent use.
type IntervalSet struct {
	starts, ends []int64
	prefix       []int64 // prefix[i] is the total length of intervals [0, i)
}

// NewIntervalSet returns the union of the given [start, end) intervals,
// in Unix milliseconds, in linear time when they come in CompareIntervals
// order. Empty intervals are ignored.
func NewIntervalSet(intervals [][2]int64) IntervalSet {
	ivs := intervals
	if !slices.IsSortedFunc(ivs, CompareIntervals) {
		ivs = slices.Clone(intervals)
		slices.SortFunc(ivs, CompareIntervals)
	}
	var s IntervalSet
	s.prefix = []int64{0}
	for _, iv := range ivs {
		if iv[1] <= iv[0] {
			continue
		}
		if n := len(s.ends); n > 0 && iv[0] <= s.ends[n-1] {
			if iv[1] > s.ends[n-1] {
				s.prefix[n] += iv[1] - s.ends[n-1]
				s.ends[n-1] = iv[1]
			}
			continue
		}
		s.starts = append(s.starts, iv[0])
		s.ends = append(s.ends, iv[1])
		s.prefix = append(s.prefix, s.prefix[len(s.prefix)-1]+iv[1]-iv[0])
	}
	return s
}

// CompareIntervals orders intervals by start, then end: the order in which
// NewIntervalSet takes them without sorting.
func CompareIntervals(a, b [2]int64) int {
	if a[0] != b[0] {
		return cmpInt64(a[0], b[0])
	}
	return cmpInt64(a[1], b[1])
}

// Len returns the number of disjoint intervals in the set.
func (s IntervalSet) Len() int { return len(s.starts) }

// Covered returns how many milliseconds of [from, to) the set covers.
func (s IntervalSet) Covered(from, to int64) int64 {
	if to <= from || len(s.starts) == 0 {
		return 0
	}
	i, _ := slices.BinarySearch(s.ends, from+1) // first interval ending after from
	j, _ := slices.BinarySearch(s.starts, to)   // first interval starting at or after to
	if i >= j {
		return 0
	}
	total := s.prefix[j] - s.prefix[i]
	if s.starts[i] < from {
		total -= from - s.starts[i]
	}
	if s.ends[j-1] > to {
		total -= s.ends[j-1] - to
	}
	return total
}

func cmpInt64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
