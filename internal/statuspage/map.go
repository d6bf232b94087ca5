package statuspage

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/internal/snapshot"
)

// MaxListed is how many notices the incidents.json and
// scheduled-maintenances.json lists hold, as on Statuspage: the most recent.
const MaxListed = 50

// TimeZone is the page's time_zone: statusd keeps every time in UTC.
const TimeZone = "Etc/UTC"

// Statuspage's values, as statusd maps them.
const (
	ComponentOperational         = "operational"
	ComponentDegradedPerformance = "degraded_performance"
	ComponentPartialOutage       = "partial_outage"
	ComponentMajorOutage         = "major_outage"
	ComponentUnderMaintenance    = "under_maintenance"

	IndicatorNone        = "none"
	IndicatorMaintenance = "maintenance"

	ImpactNone        = "none"
	ImpactMaintenance = "maintenance"

	IncidentInvestigating = "investigating"
	IncidentIdentified    = "identified"
	IncidentMonitoring    = "monitoring"
	IncidentResolved      = "resolved"

	MaintenanceScheduled  = "scheduled"
	MaintenanceInProgress = "in_progress"
	MaintenanceCompleted  = "completed"
)

// outages are the statuses of a degraded component, by the severity of
// the worst current incident that lists it or a descendant.
var outages = map[statusd.Severity]string{
	statusd.SeverityMinor:    ComponentDegradedPerformance,
	statusd.SeverityMajor:    ComponentPartialOutage,
	statusd.SeverityCritical: ComponentMajorOutage,
}

// PageID is the page's id: statusd pages have none, so it is made from the
// page's public url (12 lowercase hex digits, the shape of Statuspage's
// ids), the same on every replica and across restarts.
func PageID(pageURL string) string {
	sum := sha256.Sum256([]byte(pageURL))
	return hex.EncodeToString(sum[:6])
}

// ComponentStatus maps a component's state and the worst severity of the
// current incidents that list it or a descendant (snapshot.Component):
// degraded, which statusd derives from a current incident, is
// degraded_performance, partial_outage or major_outage as that severity is
// minor, major or critical; maintenance is under_maintenance.
func ComponentStatus(s statusd.PageState, worst statusd.Severity) string {
	switch s {
	case statusd.PageDegraded:
		return outages[worst.Level()]
	case statusd.PageUnderMaintenance:
		return ComponentUnderMaintenance
	}
	return ComponentOperational
}

// Indicator maps the page's state to status.indicator: degraded is the
// worst severity of the current incidents (minor, major or critical, as
// Statuspage's impacts are named), maintenance is maintenance, operational
// is none.
func Indicator(snap *snapshot.Snapshot) string {
	switch snap.PageState {
	case statusd.PageDegraded:
		return string(snap.Severity.Level())
	case statusd.PageUnderMaintenance:
		return IndicatorMaintenance
	}
	return IndicatorNone
}

// IncidentStatus maps the state of an unplanned notice or of one of its
// updates: recovering is monitoring; false_alarm is resolved.
func IncidentStatus(s statusd.State) string {
	switch s {
	case statusd.Investigating:
		return IncidentInvestigating
	case statusd.Identified:
		return IncidentIdentified
	case statusd.Recovering:
		return IncidentMonitoring
	}
	return IncidentResolved
}

// MaintenanceStatus maps the state of a planned notice or of one of its
// updates: underway is in_progress; complete, and cancelled after the work
// began, are completed. (A maintenance cancelled before it began is not
// listed at all: Statuspage has no such state, and it never happened.)
func MaintenanceStatus(s statusd.State) string {
	switch s {
	case statusd.Scheduled:
		return MaintenanceScheduled
	case statusd.Underway:
		return MaintenanceInProgress
	}
	return MaintenanceCompleted
}

// view is every answer's data, mapped once per snapshot.
type view struct {
	page         Page
	status       Status
	components   []Component
	incidents    []Incident    // every incident, newest first
	maintenances []Maintenance // every listed maintenance, newest first
}

func ts(t time.Time) string { return t.UTC().Format(statusd.TimeLayout) }

func optTS(t *time.Time) *string {
	if t == nil {
		return nil
	}
	s := ts(*t)
	return &s
}

func id(n int64) string { return strconv.FormatInt(n, 10) }

// newView maps the snapshot's page and components and, newest first, the
// notices that want keeps (nil: every one), until max incidents and
// maintenances are mapped (0: no bound): mapping a notice is most of an
// answer's cost, and most answers need few of them.
func newView(snap *snapshot.Snapshot, want func(*snapshot.Notice) bool, max int) *view {
	m := newMapper(snap)
	v := &view{
		status: Status{Indicator: Indicator(snap), Description: snap.Doc.Page.StateTexts.Text(snap.PageState)},
		// Never null: an empty list is [].
		components:   make([]Component, 0, len(snap.AllComponents)),
		incidents:    []Incident{},
		maintenances: []Maintenance{},
	}
	for _, c := range snap.AllComponents {
		v.components = append(v.components, m.component(c))
	}
	for _, n := range snap.AllNotices() {
		if max > 0 && len(v.incidents)+len(v.maintenances) >= max {
			break
		}
		if want != nil && !want(n) {
			continue
		}
		switch in, mt := m.notice(n); {
		case in != nil:
			v.incidents = append(v.incidents, *in)
		case mt != nil:
			v.maintenances = append(v.maintenances, *mt)
		}
	}
	v.page = m.page()
	return v
}

// page maps the page.
func (m *mapper) page() Page {
	return Page{ID: m.pageID, Name: m.snap.Doc.Page.Name, URL: m.snap.PageURL, TimeZone: TimeZone, UpdatedAt: ts(m.snap.UpdatedAt)}
}

// Notice maps one notice of snap as incidents.json (an Incident) or
// scheduled-maintenances.json (a Maintenance) lists it, or returns nil for
// a notice that neither lists: a general notice, or a maintenance cancelled
// before it began. Webhook bodies carry it (CONTRACT C7).
func Notice(snap *snapshot.Snapshot, n *snapshot.Notice) any {
	switch in, mt := newMapper(snap).notice(n); {
	case in != nil:
		return in
	case mt != nil:
		return mt
	}
	return nil
}

// ComponentIn maps component c of snap as a write left it: in state, with
// the severity recorded with that state (ChangedStatus).
func ComponentIn(snap *snapshot.Snapshot, c *snapshot.Component, state statusd.PageState, recorded statusd.Severity) any {
	out := newMapper(snap).component(c)
	out.Status = ChangedStatus(c, state, recorded)
	return out
}

// ChangedStatus maps component c's state and severity as a write left
// them (statusd.ComponentChange, the component_update event); a change
// recorded without a severity (made before severities were recorded)
// takes the component's current one.
func ChangedStatus(c *snapshot.Component, state statusd.PageState, recorded statusd.Severity) string {
	if recorded == "" {
		recorded = c.Severity
	}
	return ComponentStatus(state, recorded)
}

// mapper maps the parts of one snapshot, each component once.
type mapper struct {
	snap       *snapshot.Snapshot
	pageID     string
	base       string // the page's url without its trailing slash
	components map[int64]Component
}

func newMapper(snap *snapshot.Snapshot) *mapper {
	return &mapper{snap: snap, pageID: PageID(snap.PageURL), base: strings.TrimRight(snap.PageURL, "/"),
		components: make(map[int64]Component)}
}

// component maps a component, the first time it is asked for.
func (m *mapper) component(c *snapshot.Component) Component {
	if out, ok := m.components[c.ID]; ok {
		return out
	}
	out := Component{
		ID:        id(c.ID),
		Name:      c.Name,
		Status:    ComponentStatus(c.State, c.Severity),
		CreatedAt: ts(c.CreatedAt),
		UpdatedAt: ts(c.UpdatedAt),
		Position:  c.Position,
		Showcase:  c.MetricsEnabled && m.snap.Variant.HasMetrics(),
		StartDate: new(c.CreatedAt.UTC().Format(statusd.DateLayout)),
		PageID:    m.pageID,
	}
	if c.Description != "" {
		out.Description = new(c.Description)
	}
	if c.ParentID != nil {
		out.GroupID = new(id(*c.ParentID))
	}
	if len(c.Children) > 0 {
		out.Group = true
		out.Components = make([]string, len(c.Children))
		for i, ch := range c.Children {
			out.Components[i] = id(ch.ID)
		}
	}
	m.components[c.ID] = out
	return out
}

// notice maps an unplanned notice to an incident, a planned one to a
// maintenance; both are nil for a notice Statuspage does not list (see
// Notice).
func (m *mapper) notice(n *snapshot.Notice) (*Incident, *Maintenance) {
	if n.Type() == statusd.General {
		return nil, nil // Statuspage has no announcements
	}
	if n.Type() == statusd.Planned && n.State() == statusd.Cancelled && n.BeganAt() == nil {
		return nil, nil
	}
	updates := n.Updates()
	in := Incident{
		ID:              id(n.ID),
		Name:            n.Subject(),
		CreatedAt:       ts(n.CreatedAt()),
		UpdatedAt:       ts(n.UpdatedAt()),
		ResolvedAt:      optTS(n.EndedAt()),
		Shortlink:       m.base + "/notices/" + id(n.ID),
		StartedAt:       ts(n.CreatedAt()),
		PageID:          m.pageID,
		IncidentUpdates: make([]Update, 0, len(updates)),
		Components:      make([]Component, 0, len(n.ComponentIDs())),
	}
	if b := n.BeganAt(); b != nil {
		in.StartedAt = ts(*b)
	}
	status := IncidentStatus
	if n.Type() == statusd.Planned {
		status = MaintenanceStatus
	}
	in.Status = status(n.State())
	// Newest first, as Statuspage lists them.
	for i := len(updates) - 1; i >= 0; i-- {
		u := updates[i]
		in.IncidentUpdates = append(in.IncidentUpdates, Update{
			ID:                   id(u.ID),
			Status:               status(u.State),
			Body:                 u.Content,
			IncidentID:           in.ID,
			CreatedAt:            ts(u.CreatedAt),
			UpdatedAt:            ts(u.UpdatedAt),
			DisplayAt:            ts(u.CreatedAt),
			AffectedComponents:   m.affected(u.Changes),
			DeliverNotifications: u.Notified,
		})
	}
	// Listed components in position order, as the page shows them.
	for _, c := range m.snap.AllComponents {
		if contains(n.ComponentIDs(), c.ID) {
			in.Components = append(in.Components, m.component(c))
		}
	}
	if n.Type() == statusd.Unplanned {
		in.MonitoringAt = monitoringAt(updates)
		in.Impact = string(n.Severity().Level())
		if n.State() == statusd.FalseAlarm || (n.ImpactSeconds() != nil && *n.ImpactSeconds() == 0) {
			in.Impact = ImpactNone
		}
		return &in, nil
	}
	in.Impact = ImpactMaintenance
	mt := &Maintenance{Incident: in}
	if t := n.BeginsAt(); t != nil {
		mt.ScheduledFor = ts(*t)
	}
	if t := n.EndsAt(); t != nil {
		mt.ScheduledUntil = ts(*t)
	}
	return nil, mt
}

// affected maps an update's changes of component states, leaving out the
// components deleted since; nil when none is left.
func (m *mapper) affected(changes []statusd.ComponentChange) []AffectedComponent {
	var out []AffectedComponent
	for _, ch := range changes {
		if c := m.snap.Component(ch.ComponentID); c != nil {
			out = append(out, AffectedComponent{Code: id(c.ID), Name: c.Name,
				OldStatus: ChangedStatus(c, ch.Old, ch.OldSeverity), NewStatus: ChangedStatus(c, ch.New, ch.NewSeverity)})
		}
	}
	return out
}

// monitoringAt is when the incident last entered recovering (Statuspage's
// monitoring), or nil when it never did.
func monitoringAt(updates []statusd.Update) *string {
	var at *time.Time
	for i := range updates {
		if updates[i].State == statusd.Recovering && (i == 0 || updates[i-1].State != statusd.Recovering) {
			at = &updates[i].CreatedAt
		}
	}
	return optTS(at)
}

func contains(ids []int64, v int64) bool {
	for _, x := range ids {
		if x == v {
			return true
		}
	}
	return false
}

// unresolved reports whether an incident is investigating, identified or
// monitoring.
func unresolved(in Incident) bool { return in.Status != IncidentResolved }

func first[T any](list []T, n int) []T {
	if len(list) > n {
		return list[:n]
	}
	return list
}

func keep[T any](list []T, ok func(T) bool) []T {
	out := []T{}
	for _, x := range list {
		if ok(x) {
			out = append(out, x)
		}
	}
	return out
}

func withStatus(statuses ...string) func(Maintenance) bool {
	return func(m Maintenance) bool {
		for _, s := range statuses {
			if m.Status == s {
				return true
			}
		}
		return false
	}
}

// answer is the body of the endpoint at path, one of Paths, mapped from
// snap: the notices it lists, each kept again by the rule of its list,
// are mapped alone (see newView).
func answer(snap *snapshot.Snapshot, path string) any {
	switch path {
	case "/api/v2/summary.json":
		v := newView(snap, func(n *snapshot.Notice) bool {
			return openIncident(n) || plannedIn(n, MaintenanceScheduled, MaintenanceInProgress)
		}, 0)
		return SummaryResponse{Page: v.page, Components: v.components, Incidents: keep(v.incidents, unresolved),
			ScheduledMaintenances: keep(v.maintenances, withStatus(MaintenanceScheduled, MaintenanceInProgress)), Status: v.status}
	case "/api/v2/status.json":
		v := newView(snap, noNotice, 0)
		return StatusResponse{Page: v.page, Status: v.status}
	case "/api/v2/components.json":
		v := newView(snap, noNotice, 0)
		return ComponentsResponse{Page: v.page, Components: v.components}
	case "/api/v2/incidents.json":
		v := newView(snap, ofType(statusd.Unplanned), MaxListed)
		return IncidentsResponse{Page: v.page, Incidents: first(v.incidents, MaxListed)}
	case "/api/v2/incidents/unresolved.json":
		v := newView(snap, openIncident, 0)
		return IncidentsResponse{Page: v.page, Incidents: keep(v.incidents, unresolved)}
	case "/api/v2/scheduled-maintenances.json":
		v := newView(snap, ofType(statusd.Planned), MaxListed)
		return MaintenancesResponse{Page: v.page, ScheduledMaintenances: first(v.maintenances, MaxListed)}
	case "/api/v2/scheduled-maintenances/upcoming.json":
		v := newView(snap, func(n *snapshot.Notice) bool { return plannedIn(n, MaintenanceScheduled) }, 0)
		return MaintenancesResponse{Page: v.page, ScheduledMaintenances: keep(v.maintenances, withStatus(MaintenanceScheduled))}
	case "/api/v2/scheduled-maintenances/active.json":
		v := newView(snap, func(n *snapshot.Notice) bool { return plannedIn(n, MaintenanceInProgress) }, 0)
		return MaintenancesResponse{Page: v.page, ScheduledMaintenances: keep(v.maintenances, withStatus(MaintenanceInProgress))}
	}
	panic("statuspage: no endpoint " + path)
}

// noNotice keeps no notice: an answer without notices.
func noNotice(*snapshot.Notice) bool { return false }

// ofType keeps the notices of type t.
func ofType(t statusd.NoticeType) func(*snapshot.Notice) bool {
	return func(n *snapshot.Notice) bool { return n.Type() == t }
}

// openIncident keeps the incidents whose status is not resolved, as
// unresolved keeps them once mapped.
func openIncident(n *snapshot.Notice) bool {
	return n.Type() == statusd.Unplanned && IncidentStatus(n.State()) != IncidentResolved
}

// plannedIn keeps the maintenances whose status is one of statuses, as
// withStatus keeps them once mapped.
func plannedIn(n *snapshot.Notice, statuses ...string) bool {
	return n.Type() == statusd.Planned && slices.Contains(statuses, MaintenanceStatus(n.State()))
}

// itemPath is the path of the file of the notice with id in dir, one of
// Folders.
func itemPath(dir, id string) string { return dir + id + ".json" }

// item is the answer of the file of the notice with the id in dir, one of
// Folders: the notice as dir's list presents it, beside the page, under
// the list's key made singular; ok is false when the list holds no notice
// with that id (another type, a general notice, a maintenance cancelled
// before it began, none at all).
func item(snap *snapshot.Snapshot, dir string, noticeID int64) (ans any, ok bool) {
	n := snap.Notice(noticeID)
	if n == nil {
		return nil, false
	}
	m := newMapper(snap)
	in, mt := m.notice(n)
	switch {
	case dir == "/api/v2/incidents/" && in != nil:
		return IncidentResponse{Page: m.page(), Incident: *in}, true
	case dir == "/api/v2/scheduled-maintenances/" && mt != nil:
		return MaintenanceResponse{Page: m.page(), ScheduledMaintenance: *mt}, true
	}
	return nil, false
}
