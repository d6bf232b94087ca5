package statusd

import (
	"fmt"
	"time"
)

// Variant is one of the two deployments of SPEC.md: A has component metrics
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

func isClosed(t NoticeType, s State) bool {
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
	for i > 0 && isClosed(n.Type, n.Updates[i-1].State) {
		i--
	}
	if i == len(n.Updates) {
		return nil
	}
	t := n.Updates[i].CreatedAt
	return &t
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
		case !isClosed(n.Type, s):
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

// DerivePageState applies SPEC §3: a current incident makes the page
// degraded, otherwise an underway maintenance puts it under maintenance.
func DerivePageState(notices []Notice) PageState {
	state := PageOperational
	for i := range notices {
		switch {
		case notices[i].IsCurrentIncident():
			return PageDegraded
		case notices[i].IsUnderway():
			state = PageUnderMaintenance
		}
	}
	return state
}

// DeriveComponentStates applies CONTRACT C3: a component listed by a current
// incident is degraded, else one listed by an underway maintenance is under
// maintenance. Components missing from the map are operational.
func DeriveComponentStates(notices []Notice) map[int64]PageState {
	states := make(map[int64]PageState)
	for i := range notices {
		n := &notices[i]
		switch {
		case n.IsCurrentIncident():
			for _, id := range n.ComponentIDs {
				states[id] = PageDegraded
			}
		case n.IsUnderway():
			for _, id := range n.ComponentIDs {
				if states[id] != PageDegraded {
					states[id] = PageUnderMaintenance
				}
			}
		}
	}
	return states
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
