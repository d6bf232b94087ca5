package statuspage

import (
	"crypto/sha256"
	"encoding/hex"
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

// newView maps the snapshot.
func newView(snap *snapshot.Snapshot) *view {
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
		switch in, mt := m.notice(n); {
		case in != nil:
			v.incidents = append(v.incidents, *in)
		case mt != nil:
			v.maintenances = append(v.maintenances, *mt)
		}
	}
	v.page = Page{ID: m.pageID, Name: snap.Doc.Page.Name, URL: snap.PageURL, TimeZone: TimeZone, UpdatedAt: ts(snap.UpdatedAt)}
	return v
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
			ID:         id(u.ID),
			Status:     status(u.State),
			Body:       u.Content,
			IncidentID: in.ID,
			CreatedAt:  ts(u.CreatedAt),
			UpdatedAt:  ts(u.UpdatedAt),
			DisplayAt:  ts(u.CreatedAt),
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

// itemPath is the path of the file of the notice with id in dir, one of
// Folders.
func itemPath(dir, id string) string { return dir + id + ".json" }

// items are the answers of the files of one notice each, by path: every
// incident and every listed maintenance.
func (v *view) items() map[string]any {
	out := make(map[string]any, len(v.incidents)+len(v.maintenances))
	for _, in := range v.incidents {
		out[itemPath("/api/v2/incidents/", in.ID)] = IncidentResponse{Page: v.page, Incident: in}
	}
	for _, mt := range v.maintenances {
		out[itemPath("/api/v2/scheduled-maintenances/", mt.ID)] = MaintenanceResponse{Page: v.page, ScheduledMaintenance: mt}
	}
	return out
}

// answers are the bodies of every endpoint, by path.
func (v *view) answers() map[string]any {
	upcoming := keep(v.maintenances, withStatus(MaintenanceScheduled))
	active := keep(v.maintenances, withStatus(MaintenanceInProgress))
	open := keep(v.incidents, unresolved)
	return map[string]any{
		"/api/v2/summary.json": SummaryResponse{Page: v.page, Components: v.components, Incidents: open,
			ScheduledMaintenances: keep(v.maintenances, withStatus(MaintenanceScheduled, MaintenanceInProgress)), Status: v.status},
		"/api/v2/status.json":                          StatusResponse{Page: v.page, Status: v.status},
		"/api/v2/components.json":                      ComponentsResponse{Page: v.page, Components: v.components},
		"/api/v2/incidents.json":                       IncidentsResponse{Page: v.page, Incidents: first(v.incidents, MaxListed)},
		"/api/v2/incidents/unresolved.json":            IncidentsResponse{Page: v.page, Incidents: open},
		"/api/v2/scheduled-maintenances.json":          MaintenancesResponse{Page: v.page, ScheduledMaintenances: first(v.maintenances, MaxListed)},
		"/api/v2/scheduled-maintenances/upcoming.json": MaintenancesResponse{Page: v.page, ScheduledMaintenances: upcoming},
		"/api/v2/scheduled-maintenances/active.json":   MaintenancesResponse{Page: v.page, ScheduledMaintenances: active},
	}
}
