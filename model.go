package statusd

import "time"

// NoticeType is the kind of a notice.
type NoticeType string

// The notice types of SPEC §3.
const (
	General   NoticeType = "general"
	Planned   NoticeType = "planned"
	Unplanned NoticeType = "unplanned"
)

// NoticeTypes lists every notice type.
var NoticeTypes = []NoticeType{General, Planned, Unplanned}

// State is the state of a notice, carried by its updates (CONTRACT C3).
// General notices have none: their updates carry the empty State.
type State string

// Unplanned notice states.
const (
	Investigating State = "investigating"
	Identified    State = "identified"
	Recovering    State = "recovering"
	Resolved      State = "resolved"
	FalseAlarm    State = "false_alarm"
)

// Planned notice states.
const (
	Scheduled State = "scheduled"
	Underway  State = "underway"
	Complete  State = "complete"
	Cancelled State = "cancelled"
)

// Word names the state for a reader, as the status page and the
// notifications show it; "" for the empty State of general notices.
func (s State) Word() string { return stateWords[s] }

var stateWords = map[State]string{
	Investigating: "Investigating",
	Identified:    "Identified",
	Recovering:    "Recovering",
	Resolved:      "Resolved",
	FalseAlarm:    "False alarm",
	Scheduled:     "Scheduled",
	Underway:      "In progress",
	Complete:      "Completed",
	Cancelled:     "Cancelled",
}

// statesByType lists the allowed states of each notice type (SPEC §3).
var statesByType = map[NoticeType][]State{
	Unplanned: {Investigating, Identified, Recovering, Resolved, FalseAlarm},
	Planned:   {Scheduled, Underway, Complete, Cancelled},
	General:   nil,
}

// States returns the states allowed for notices of type t, in the order of
// SPEC §3; general notices have none.
func States(t NoticeType) []State { return statesByType[t] }

// ValidState reports whether s is a state of notices of type t.
func ValidState(t NoticeType, s State) bool {
	for _, v := range statesByType[t] {
		if v == s {
			return true
		}
	}
	return false
}

// Word names the notice type for a reader: Incident, Maintenance or
// Announcement.
func (t NoticeType) Word() string { return typeWords[t] }

var typeWords = map[NoticeType]string{
	Unplanned: "Incident",
	Planned:   "Maintenance",
	General:   "Announcement",
}

// Valid reports whether t is a notice type.
func (t NoticeType) Valid() bool { _, ok := statesByType[t]; return ok }

// Page is the status page itself: its name, public URL and state texts.
type Page struct {
	Name       string
	URL        string
	StateTexts StateTexts
	CreatedAt  time.Time
	UpdatedAt  time.Time
}

// StateTexts are the human-readable texts of the three page states. An empty
// text means the default of CONTRACT C2.
type StateTexts struct {
	Operational      string
	Degraded         string
	UnderMaintenance string
}

// Default page state texts (CONTRACT C2).
const (
	DefaultOperationalText      = "All systems operational"
	DefaultDegradedText         = "Some systems are degraded"
	DefaultUnderMaintenanceText = "Maintenance is underway"
)

// Text returns the text for a page state, falling back to the defaults.
func (t StateTexts) Text(s PageState) string {
	pick := func(v, def string) string {
		if v == "" {
			return def
		}
		return v
	}
	switch s {
	case PageDegraded:
		return pick(t.Degraded, DefaultDegradedText)
	case PageUnderMaintenance:
		return pick(t.UnderMaintenance, DefaultUnderMaintenanceText)
	default:
		return pick(t.Operational, DefaultOperationalText)
	}
}

// Component is one node of the component tree.
type Component struct {
	ID          int64
	ParentID    *int64
	Position    int // 1..n in display order across the whole page
	Name        string
	Description string
	// Key names the component for machines (alert labels, CONTRACT C9);
	// "" for none. It is never public. CheckComponentKey says which are
	// valid.
	Key            string
	MetricsEnabled bool
	CreatedAt      time.Time
	UpdatedAt      time.Time
}

// Notice is an incident (unplanned), a maintenance (planned) or a general
// announcement, with its full history of updates, oldest first.
type Notice struct {
	ID           int64
	Type         NoticeType
	Subject      string
	TagList      []string
	ComponentIDs []int64
	// ImpactSeconds overrides the computed impact of an unplanned notice.
	ImpactSeconds *int64
	// Severity is how badly an unplanned notice hurts (zero: minor); other
	// notices have none.
	Severity Severity
	// BeginsAt and EndsAt are the schedule of a planned notice.
	BeginsAt *time.Time
	EndsAt   *time.Time
	// Automate moves a planned notice underway and complete on schedule.
	Automate bool
	// ExpiresAt ends a general notice; nil means it never expires.
	ExpiresAt *time.Time
	CreatedAt time.Time
	UpdatedAt time.Time
	Updates   []Update
}

// Update is one progress update of a notice.
type Update struct {
	ID        int64
	State     State // empty on general notices
	Content   string
	CreatedAt time.Time
	UpdatedAt time.Time
	// Notified reports whether the write that posted the update told
	// subscribers (its "notify"): Statuspage's deliver_notifications.
	Notified bool
	// Changes are the components whose states (CONTRACT C3) the write
	// that posted the update changed, in position order: Statuspage's
	// affected_components. Nil when it changed none.
	Changes []ComponentChange
}

// ComponentChange is a change of a component's state, or of the worst
// severity of the current incidents that make it degraded, by a write.
type ComponentChange struct {
	ComponentID int64
	Old, New    PageState
	// OldSeverity and NewSeverity are, when Old and New are degraded, the
	// worst severity of the current incidents that make them so
	// (DeriveSeverities); empty otherwise.
	OldSeverity, NewSeverity Severity
}

// Document is a whole page: the unit of import, export and snapshot building
// (CONTRACT C5). Components are in position order.
type Document struct {
	Page       Page
	Components []Component
	Notices    []Notice
	// Subscribers, when not nil, are imported with the page and replace the
	// store's; nil keeps them. Store.Load leaves them out (the read model
	// has no use for them); export reads them from SubscriberStore.
	Subscribers []Subscriber
	// Sources, when not nil, are the sources of alerts (CONTRACT C9), with
	// their token hashes, imported with the page and replacing the
	// store's (their signals go); nil keeps them. Signals and drafts are
	// never in a document. Store.Load leaves them out; export reads them
	// from SignalStore.
	Sources []Source
}
