package snapshot

import (
	"slices"
	"time"

	"github.com/statusd/statusd"
)

// Page returns the page resource.
func (s *Snapshot) Page() statusd.PageResource { return s.page }

// ComponentFilter selects components; nil fields do not filter.
type ComponentFilter struct {
	ParentIDNull *bool
	ParentIDEq   *int64
}

func (f ComponentFilter) match(c *Component) bool {
	if f.ParentIDNull != nil && (c.ParentID == nil) != *f.ParentIDNull {
		return false
	}
	if f.ParentIDEq != nil && (c.ParentID == nil || *c.ParentID != *f.ParentIDEq) {
		return false
	}
	return true
}

// Components returns page number page (from 1) of the components that match
// f, in position order, and how many match in all.
func (s *Snapshot) Components(f ComponentFilter, page int64, now time.Time) ([]statusd.ComponentResource, int) {
	list, total, _ := s.ComponentsAt(f, page, now)
	return list, total
}

// ComponentsAt is Components, also reporting whether the answer depends on
// the moment (a metrics_summary that moves with the clock).
func (s *Snapshot) ComponentsAt(f ComponentFilter, page int64, now time.Time) (out []statusd.ComponentResource, total int, timeDependent bool) {
	var list []*Component
	switch {
	case f.ParentIDEq != nil:
		if p := s.componentID[*f.ParentIDEq]; p != nil {
			list = p.Children
		}
	case f.ParentIDNull != nil && *f.ParentIDNull:
		list = s.topLevel
	default:
		list = s.AllComponents
	}
	listed, total := pageMatching(list, f.match, page)
	out = make([]statusd.ComponentResource, 0, PageSize)
	for _, c := range listed {
		out = append(out, s.ComponentResource(c, now))
		timeDependent = timeDependent || (c.MetricsEnabled && s.Variant.HasMetrics())
	}
	return out, total, timeDependent
}

// ComponentResource returns a component as the components list shows it at
// now.
func (s *Snapshot) ComponentResource(c *Component, now time.Time) statusd.ComponentResource {
	r := c.resource
	if s.Variant.HasMetrics() {
		r.MetricsSummary = s.summary(c, now)
	}
	return r
}

// NoticeFilter selects notices; empty fields do not filter, and all given
// fields apply together.
type NoticeFilter struct {
	// Types keeps the notices whose type is in every one of the sets.
	Types [][]statusd.NoticeType
	// Timelines keeps the notices whose timeline state is in every one of the
	// sets; "past" stands for both past states.
	Timelines [][]string
	// MetricsComponentID keeps the notices that count for the component's
	// metrics at any time.
	MetricsComponentID *int64
	// Overlaps keeps the notices with an impact interval [s, e) that meets
	// the closed range: s <= To and e > From (CONTRACT C4).
	Overlaps *Range
}

// Range is the closed time range [From, To] of the impact overlap filter.
type Range struct {
	From, To time.Time
}

func (f *NoticeFilter) match(n *Notice, now int64) bool {
	for _, set := range f.Types {
		if !contains(set, n.Type()) {
			return false
		}
	}
	for _, set := range f.Timelines {
		ok := false
		for _, tl := range set {
			ok = ok || statusd.MatchesTimeline(n.Timeline(), tl)
		}
		if !ok {
			return false
		}
	}
	if f.Overlaps != nil && !n.meets(f.Overlaps.From.UnixMilli(), f.Overlaps.To.UnixMilli()+1, now) {
		return false
	}
	return true
}

// Notices returns page number page (from 1) of the notices that match f,
// newest first, and how many match in all.
func (s *Snapshot) Notices(f NoticeFilter, page int64, now time.Time) ([]statusd.NoticeListEntry, int) {
	list, total, _ := s.AppendNotices(nil, f, page, now)
	return list, total
}

// Find returns every notice of the type in the timeline state at now,
// newest first.
func (s *Snapshot) Find(typ statusd.NoticeType, tl statusd.TimelineState, now time.Time) []*Notice {
	f := NoticeFilter{Types: [][]statusd.NoticeType{{typ}}, Timelines: [][]string{{string(tl)}}}
	var out []*Notice
	for page := int64(1); ; page++ {
		list, total := s.Notices(f, page, now)
		for _, e := range list {
			out = append(out, s.Notice(e.ID))
		}
		if len(list) == 0 || len(out) >= total {
			return out
		}
	}
}

// AppendNotices is Notices, the page appended to dst (so that a caller can
// reuse the room of a page: its entries are a third of what computing one
// allocates), also reporting whether the answer depends on the moment (an
// impact_time still growing, an overlap filter reaching now).
func (s *Snapshot) AppendNotices(dst []statusd.NoticeListEntry, f NoticeFilter, page int64, now time.Time) (out []statusd.NoticeListEntry, total int, timeDependent bool) {
	var list []int32
	if f.MetricsComponentID != nil {
		if c := s.componentID[*f.MetricsComponentID]; c != nil {
			list = c.counting
		}
	} else {
		key := [2]string{"", ""}
		if len(f.Types) > 0 && len(f.Types[0]) == 1 {
			key[0] = string(f.Types[0][0])
		}
		if len(f.Timelines) > 0 && len(f.Timelines[0]) == 1 && f.Timelines[0][0] != "past" {
			key[1] = f.Timelines[0][0]
		}
		list = s.byTypeTimeline[key]
	}
	var keep func(int32) bool
	if !f.indexed() {
		ms := now.UnixMilli()
		keep = func(slot int32) bool { return f.match(s.slot(slot), ms) }
	}
	listed, total := pageMatching(list, keep, page)
	out = slices.Grow(dst, len(listed))
	if out == nil {
		out = []statusd.NoticeListEntry{} // an empty list, not null
	}
	for _, slot := range listed {
		n := s.slot(slot)
		out = append(out, s.Entry(n, now))
		timeDependent = timeDependent || s.TimeDependent(n)
	}
	// Which open impacts meet an overlap range moves with the clock.
	timeDependent = timeDependent || (f.Overlaps != nil && len(s.open) > 0)
	return out, total, timeDependent
}

// indexed reports whether the list AppendNotices starts from holds exactly the
// matching notices, so that nothing is left to filter.
func (f *NoticeFilter) indexed() bool {
	single := func(sets [][]string) bool {
		return len(sets) == 0 || (len(sets) == 1 && len(sets[0]) == 1 && sets[0][0] != "past")
	}
	types := make([][]string, len(f.Types))
	for i, set := range f.Types {
		for _, t := range set {
			types[i] = append(types[i], string(t))
		}
	}
	if f.Overlaps != nil || !single(types) || !single(f.Timelines) {
		return false
	}
	return f.MetricsComponentID == nil || (len(f.Types) == 0 && len(f.Timelines) == 0)
}

// TimeDependent reports whether the notice's resources change with the
// clock: an impact_time that is still growing.
func (s *Snapshot) TimeDependent(n *Notice) bool {
	return n.open && s.Variant.HasMetrics()
}

func filter[T any](list []T, keep func(T) bool) []T {
	var out []T
	for _, v := range list {
		if keep(v) {
			out = append(out, v)
		}
	}
	return out
}

// pageMatching returns page number page (from 1) of the items of list that
// keep keeps (nil: all of them), and how many it keeps in all, without
// building the list of all of them.
func pageMatching[T any](list []T, keep func(T) bool, page int64) ([]T, int) {
	if keep == nil {
		return pageOf(list, page), len(list)
	}
	var out []T
	total := 0
	first := int64(-1) // a page too far for int never starts
	if page >= 1 && page <= int64(len(list)/PageSize+1) {
		first = (page - 1) * PageSize
	}
	for _, v := range list {
		if keep(v) {
			if i := int64(total); first >= 0 && i >= first && i < first+PageSize {
				out = append(out, v)
			}
			total++
		}
	}
	return out, total
}

func pageOf[T any](list []T, page int64) []T {
	if page < 1 || page > int64(len(list)/PageSize+1) {
		return nil
	}
	start := int((page - 1) * PageSize)
	if start >= len(list) {
		return nil
	}
	return list[start:min(start+PageSize, len(list))]
}

func contains[T comparable](list []T, v T) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}
