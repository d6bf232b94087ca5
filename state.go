package statusd

import (
	"fmt"
	"iter"
	"time"
)

// Variant is one of the two deployments of the public API: A has component metrics
// and spells the maintenance state under_maintenance, B has no metrics and
// spells it under-maintenance.
type Variant string

// The two variants of SPEC §9.
const (
	VariantA Variant = "a"
	VariantB Variant = "b"
)

// ParseVariant accepts "a", "b", "A" or "B".
func ParseVariant(s string) (Variant, error) {
	switch s {
	case "a", "A":
		return VariantA, nil
	case "b", "B":
		return VariantB, nil
	}
	return "", fmt.Errorf("variant %q: want a or b", s)
}

// HasMetrics reports whether the variant has component metrics.
func (v Variant) HasMetrics() bool { return v == VariantA }

// Name returns the wire spelling of a page or component state in v.
func (v Variant) Name(s PageState) string {
	if s == PageUnderMaintenance && v == VariantB {
		return "under-maintenance"
	}
	return string(s)
}

// PageState is the state of the page or of a component (SPEC §3). The
// maintenance value is spelled per variant by [Variant.Name].
type PageState string

// Page and component states.
const (
	PageOperational      PageState = "operational"
	PageDegraded         PageState = "degraded"
	PageUnderMaintenance PageState = "under_maintenance"
)

// TimelineState places a notice in time (CONTRACT C3).
type TimelineState string

// Timeline states.
const (
	Future      TimelineState = "future"
	Present     TimelineState = "present"
	PastRecent  TimelineState = "past_recent"
	PastDistant TimelineState = "past_distant"
)

// TimelineStates lists every timeline state.
var TimelineStates = []TimelineState{Future, Present, PastRecent, PastDistant}

// RecentPeriod is how long an ended notice stays past_recent.
const RecentPeriod = 7 * 24 * time.Hour

// State returns the notice's state: the state of its newest update. General
// notices have none.
func (n *Notice) State() State {
	if len(n.Updates) == 0 {
		return ""
	}
	return n.Updates[len(n.Updates)-1].State
}

// IsCurrentIncident reports whether n is an unplanned notice in state
// investigating or identified.
func (n *Notice) IsCurrentIncident() bool {
	return n.Type == Unplanned && isCurrentIncidentState(n.State())
}

// IsUnderway reports whether n is a planned notice in state underway.
func (n *Notice) IsUnderway() bool { return n.Type == Planned && n.State() == Underway }

func isCurrentIncidentState(s State) bool { return s == Investigating || s == Identified }

// IsClosed reports whether a notice of type t in state s is over: a
// resolved incident or a false alarm, maintenance complete or cancelled.
func IsClosed(t NoticeType, s State) bool {
	switch t {
	case Unplanned:
		return s == Resolved || s == FalseAlarm
	case Planned:
		return s == Complete || s == Cancelled
	}
	return false
}

// BeganAt returns when an unplanned notice's first update was posted, or when
// a planned notice first entered underway; nil before that and for general
// notices.
func (n *Notice) BeganAt() *time.Time {
	for i := range n.Updates {
		u := &n.Updates[i]
		if n.Type == Unplanned || (n.Type == Planned && u.State == Underway) {
			t := u.CreatedAt
			return &t
		}
	}
	return nil
}

// EndedAt returns when the final run of closing updates (resolved or
// false_alarm; complete or cancelled) began, or nil while the notice is open
// and for general notices.
func (n *Notice) EndedAt() *time.Time {
	i := len(n.Updates)
	for i > 0 && IsClosed(n.Type, n.Updates[i-1].State) {
		i--
	}
	if i == len(n.Updates) {
		return nil
	}
	t := n.Updates[i].CreatedAt
	return &t
}

// ChangedAt returns when the notice last changed: the latest of its
// updated_at and its updates' created_at and updated_at.
func (n *Notice) ChangedAt() time.Time {
	t := n.UpdatedAt
	for _, u := range n.Updates {
		t = Latest(t, u.CreatedAt, u.UpdatedAt)
	}
	return t
}

// Latest returns the latest of the times.
func Latest(t time.Time, more ...time.Time) time.Time {
	for _, m := range more {
		if m.After(t) {
			t = m
		}
	}
	return t
}

// Timeline returns the notice's timeline state at now and the next moment
// after now at which it changes by itself (zero when it never does without a
// write).
func (n *Notice) Timeline(now time.Time) (TimelineState, time.Time) {
	var ended time.Time
	switch n.Type {
	case General:
		if n.ExpiresAt == nil {
			return Present, time.Time{}
		}
		if now.Before(*n.ExpiresAt) {
			return Present, *n.ExpiresAt
		}
		ended = *n.ExpiresAt
	case Planned, Unplanned:
		s := n.State()
		switch {
		case s == Scheduled:
			return Future, time.Time{}
		case !IsClosed(n.Type, s):
			return Present, time.Time{}
		}
		ended = *n.EndedAt()
	}
	if distant := ended.Add(RecentPeriod); now.Before(distant) {
		return PastRecent, distant
	}
	return PastDistant, time.Time{}
}

// MatchesTimeline reports whether a notice in timeline state s matches the
// filter value f, where "past" stands for both past states.
func MatchesTimeline(s TimelineState, f string) bool {
	if f == "past" {
		return s == PastRecent || s == PastDistant
	}
	return string(s) == f
}

// StateNotice is a notice as the state rules read it: a *Notice, or a read
// model's own form of one.
type StateNotice interface {
	IsCurrentIncident() bool
	IsUnderway() bool
}

// severity orders states from best to worst: operational (or none), the
// maintenance state, degraded.
func severity(s PageState) int {
	switch s {
	case PageDegraded:
		return 2
	case PageUnderMaintenance:
		return 1
	}
	return 0
}

// Worse returns the worse of two states: degraded over the maintenance state
// over operational.
func Worse(a, b PageState) PageState {
	if severity(b) > severity(a) {
		return b
	}
	return a
}

// DeriveStates applies SPEC §3 and CONTRACT C3 to a page. notices yields
// every notice with the ids of the components it lists; components is the
// component tree. A current incident makes the page and the components it
// lists degraded; otherwise an underway maintenance puts them under
// maintenance. A component's state is the worst over itself and its
// descendants. Components missing from the returned map are operational.
func DeriveStates(components []Component, notices iter.Seq2[StateNotice, []int64]) (PageState, map[int64]PageState) {
	parents := parentsOf(components)
	page := PageOperational
	states := make(map[int64]PageState)
	for n, ids := range notices {
		var s PageState
		switch {
		case n.IsCurrentIncident():
			s = PageDegraded
		case n.IsUnderway():
			s = PageUnderMaintenance
		default:
			continue
		}
		page = Worse(page, s)
		for _, id := range ids {
			upTree(parents, id, func(id int64) bool {
				if severity(states[id]) >= severity(s) {
					return false
				}
				states[id] = s
				return true
			})
		}
	}
	return page, states
}

// DeriveSeverities returns, for each component that a current incident
// lists, itself or through a descendant, the worst severity of those
// incidents (CONTRACT C6's impact: what makes a degraded component
// Statuspage's degraded_performance, partial_outage or major_outage).
// incidents yields each current incident's severity with the ids of the
// components it lists; components missing from the map are degraded by
// none.
func DeriveSeverities(components []Component, incidents iter.Seq2[Severity, []int64]) map[int64]Severity {
	parents := parentsOf(components)
	worst := make(map[int64]Severity)
	for sev, ids := range incidents {
		sev = sev.Level()
		for _, id := range ids {
			upTree(parents, id, func(id int64) bool {
				if w, seen := worst[id]; seen && w.Rank() >= sev.Rank() {
					return false
				}
				worst[id] = sev
				return true
			})
		}
	}
	return worst
}

// parentsOf maps each component that has a parent to its parent's id.
func parentsOf(components []Component) map[int64]int64 {
	parents := make(map[int64]int64, len(components))
	for _, c := range components {
		if c.ParentID != nil {
			parents[c.ID] = *c.ParentID
		}
	}
	return parents
}

// upTree calls raise on id, then on its ancestors, until raise says that
// a component was already as bad (whose ancestors then are too).
func upTree(parents map[int64]int64, id int64, raise func(id int64) bool) {
	for raise(id) {
		parent, ok := parents[id]
		if !ok {
			return
		}
		id = parent
	}
}

// AutomationDue returns the state an automated planned notice must move to
// at now: underway once begins_at has come while it is scheduled, complete
// once ends_at has come while it is underway. ok is false when nothing is
// due.
func (n *Notice) AutomationDue(now time.Time) (next State, ok bool) {
	if n.Type != Planned || !n.Automate || n.BeginsAt == nil || n.EndsAt == nil {
		return "", false
	}
	switch s := n.State(); {
	case s == Scheduled && !now.Before(*n.BeginsAt):
		return Underway, true
	case s == Underway && !now.Before(*n.EndsAt):
		return Complete, true
	}
	return "", false
}
