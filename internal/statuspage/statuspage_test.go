package statuspage

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/bench/large"
	"github.com/statusd/statusd/internal/httpjson"
	"github.com/statusd/statusd/internal/route"
	"github.com/statusd/statusd/internal/snapshot"
)

type holder struct{ snap *snapshot.Snapshot }

func (h *holder) Current() *snapshot.Snapshot { return h.snap }

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func upd(id int64, state statusd.State, at time.Time) statusd.Update {
	return statusd.Update{ID: id, State: state, Content: "u" + string(state), CreatedAt: at, UpdatedAt: at}
}

// doc is a page with a group (1) of two members (2, 3), both degraded by
// a major incident (10), and a top-level component (4) under maintenance;
// a notice of each kind and state that matters, a critical incident (11)
// among them, resolved.
func doc() *statusd.Document {
	h := func(n int) time.Time { return t0.Add(time.Duration(n) * time.Hour) }
	one := int64(1)
	notice := func(id int64, typ statusd.NoticeType, comps []int64, ups ...statusd.Update) statusd.Notice {
		return statusd.Notice{ID: id, Type: typ, Subject: "notice " + string(rune('A'+id%26)), ComponentIDs: comps,
			CreatedAt: ups[0].CreatedAt, UpdatedAt: ups[len(ups)-1].CreatedAt, Updates: ups}
	}
	planned := func(n statusd.Notice, b, e time.Time) statusd.Notice { n.BeginsAt, n.EndsAt = &b, &e; return n }
	zero := int64(0)
	override := notice(15, statusd.Unplanned, nil, upd(150, statusd.Investigating, h(-30)), upd(151, statusd.Resolved, h(-29)))
	override.ImpactSeconds = &zero
	severe := func(n statusd.Notice, s statusd.Severity) statusd.Notice { n.Severity = s; return n }
	return &statusd.Document{
		Page: statusd.Page{Name: "Acme", URL: "https://status.acme.test/", CreatedAt: h(-100), UpdatedAt: h(-100)},
		Components: []statusd.Component{
			{ID: 1, Position: 1, Name: "Web", Description: "The web", MetricsEnabled: true, CreatedAt: h(-100), UpdatedAt: h(-90)},
			{ID: 2, ParentID: &one, Position: 2, Name: "Dashboard", CreatedAt: h(-100), UpdatedAt: h(-90)},
			{ID: 3, ParentID: &one, Position: 3, Name: "Login", CreatedAt: h(-100), UpdatedAt: h(-90)},
			{ID: 4, Position: 4, Name: "DB", CreatedAt: h(-100), UpdatedAt: h(-90)},
		},
		Notices: []statusd.Notice{
			severe(notice(10, statusd.Unplanned, []int64{3, 2}, upd(100, statusd.Investigating, h(-3)), upd(101, statusd.Identified, h(-2))), statusd.SeverityMajor),
			severe(notice(11, statusd.Unplanned, []int64{4},
				upd(110, statusd.Investigating, h(-10)), upd(111, statusd.Recovering, h(-9)), upd(112, statusd.Identified, h(-8)),
				upd(113, statusd.Recovering, h(-7)), upd(114, statusd.Recovering, h(-6)), upd(115, statusd.Resolved, h(-5))), statusd.SeverityCritical),
			notice(12, statusd.Unplanned, nil, upd(120, statusd.Investigating, h(-20)), upd(121, statusd.FalseAlarm, h(-19))),
			override,
			planned(notice(20, statusd.Planned, []int64{4}, upd(200, statusd.Scheduled, h(-4)), upd(201, statusd.Underway, h(-1))), h(-1), h(1)),
			planned(notice(21, statusd.Planned, nil, upd(210, statusd.Scheduled, h(-5))), h(5), h(6)),
			planned(notice(22, statusd.Planned, nil, upd(220, statusd.Scheduled, h(-50)), upd(221, statusd.Cancelled, h(-49))), h(-48), h(-47)),
			planned(notice(23, statusd.Planned, nil, upd(230, statusd.Scheduled, h(-60)), upd(231, statusd.Underway, h(-59)), upd(232, statusd.Cancelled, h(-58))), h(-59), h(-57)),
			{ID: 30, Type: statusd.General, Subject: "Hello", CreatedAt: h(-1), UpdatedAt: h(0).Add(-time.Minute),
				Updates: []statusd.Update{{ID: 300, Content: "hi", CreatedAt: h(-1), UpdatedAt: h(-1)}}},
		},
	}
}

func TestMappings(t *testing.T) {
	for s, want := range map[statusd.State]string{
		statusd.Investigating: "investigating", statusd.Identified: "identified", statusd.Recovering: "monitoring",
		statusd.Resolved: "resolved", statusd.FalseAlarm: "resolved",
	} {
		if got := IncidentStatus(s); got != want {
			t.Errorf("IncidentStatus(%s) = %s, want %s", s, got, want)
		}
	}
	for s, want := range map[statusd.State]string{
		statusd.Scheduled: "scheduled", statusd.Underway: "in_progress", statusd.Complete: "completed", statusd.Cancelled: "completed",
	} {
		if got := MaintenanceStatus(s); got != want {
			t.Errorf("MaintenanceStatus(%s) = %s, want %s", s, got, want)
		}
	}
	for _, tc := range []struct {
		state statusd.PageState
		worst statusd.Severity
		want  string
	}{
		{statusd.PageOperational, "", "operational"},
		{statusd.PageDegraded, "", "degraded_performance"},
		{statusd.PageDegraded, statusd.SeverityMinor, "degraded_performance"},
		{statusd.PageDegraded, statusd.SeverityMajor, "partial_outage"},
		{statusd.PageDegraded, statusd.SeverityCritical, "major_outage"},
		{statusd.PageUnderMaintenance, "", "under_maintenance"},
	} {
		if got := ComponentStatus(tc.state, tc.worst); got != tc.want {
			t.Errorf("ComponentStatus(%s, %q) = %s, want %s", tc.state, tc.worst, got, tc.want)
		}
	}
	if id := PageID("https://status.acme.test"); !regexp.MustCompile(`^[0-9a-f]{12}$`).MatchString(id) || id != PageID("https://status.acme.test") || id == PageID("https://other.test") {
		t.Errorf("PageID gave %q", id)
	}
}

func TestView(t *testing.T) {
	snap := snapshot.Build(doc(), 3, t0, snapshot.Options{Variant: statusd.VariantA})
	v := newView(snap, nil, 0)
	// The latest change to the page, a component or a notice, as in the v1
	// API: general notice 30's updated_at, a minute before t0.
	if v.page.UpdatedAt != "2026-03-01T11:59:00.000Z" {
		t.Errorf("page updated_at %s", v.page.UpdatedAt)
	}
	if v.page.URL != "https://status.acme.test/" || v.page.TimeZone != "Etc/UTC" {
		t.Errorf("page %+v", v.page)
	}
	if v.status != (Status{Indicator: "major", Description: statusd.DefaultDegradedText}) {
		t.Errorf("status %+v", v.status)
	}
	got := map[string]string{}
	for _, c := range v.components {
		got[c.ID] = c.Status
	}
	// The group rolls up its degraded member; statusd's own state of 1 is
	// operational.
	want := map[string]string{"1": "partial_outage", "2": "partial_outage", "3": "partial_outage", "4": "under_maintenance"}
	if len(got) != 4 || got["1"] != want["1"] || got["2"] != want["2"] || got["3"] != want["3"] || got["4"] != want["4"] {
		t.Errorf("component statuses %v, want %v", got, want)
	}
	web := v.components[0]
	if !web.Group || strings.Join(web.Components, ",") != "2,3" || web.GroupID != nil || *web.Description != "The web" || !web.Showcase || *web.StartDate != "2026-02-25" {
		t.Errorf("group %+v", web)
	}
	if dash := v.components[1]; dash.Group || dash.Components != nil || *dash.GroupID != "1" || dash.Description != nil || dash.Showcase {
		t.Errorf("member %+v", dash)
	}

	ids := func(list []Incident) string {
		var out []string
		for _, in := range list {
			out = append(out, in.ID+":"+in.Status+":"+in.Impact)
		}
		return strings.Join(out, " ")
	}
	if got, want := ids(v.incidents), "10:identified:major 11:resolved:critical 12:resolved:none 15:resolved:none"; got != want {
		t.Errorf("incidents %s, want %s", got, want)
	}
	in := v.incidents[0]
	if in.StartedAt != "2026-03-01T09:00:00.000Z" || in.MonitoringAt != nil || in.ResolvedAt != nil ||
		in.Shortlink != "https://status.acme.test/notices/10" || in.PageID != v.page.ID {
		t.Errorf("incident 10 %+v", in)
	}
	if len(in.Components) != 2 || in.Components[0].ID != "2" || in.Components[1].ID != "3" {
		t.Errorf("incident 10 components in position order: %+v", in.Components)
	}
	if u := in.IncidentUpdates; len(u) != 2 || u[0].ID != "101" || u[0].Status != "identified" || u[1].ID != "100" ||
		u[0].IncidentID != "10" || u[0].Body != "uidentified" || u[0].DisplayAt != u[0].CreatedAt || u[0].AffectedComponents != nil {
		t.Errorf("incident 10 updates, newest first: %+v", u)
	}
	// Monitoring since the start of the last run of recovering.
	if in := v.incidents[1]; *in.MonitoringAt != "2026-03-01T05:00:00.000Z" || *in.ResolvedAt != "2026-03-01T07:00:00.000Z" {
		t.Errorf("incident 11 monitoring_at %v resolved_at %v", *in.MonitoringAt, *in.ResolvedAt)
	}

	ms := func(list []Maintenance) string {
		var out []string
		for _, m := range list {
			out = append(out, m.ID+":"+m.Status+":"+m.Impact)
		}
		return strings.Join(out, " ")
	}
	// 22 was cancelled before it began: not listed. 23 was cancelled while
	// underway: completed.
	if got, want := ms(v.maintenances), "20:in_progress:maintenance 21:scheduled:maintenance 23:completed:maintenance"; got != want {
		t.Errorf("maintenances %s, want %s", got, want)
	}
	m := v.maintenances[0]
	if m.ScheduledFor != "2026-03-01T11:00:00.000Z" || m.ScheduledUntil != "2026-03-01T13:00:00.000Z" || m.StartedAt != "2026-03-01T11:00:00.000Z" ||
		m.ResolvedAt != nil || m.MonitoringAt != nil || m.IncidentUpdates[0].Status != "in_progress" || m.IncidentUpdates[1].Status != "scheduled" {
		t.Errorf("maintenance 20 %+v", m)
	}
	if m := v.maintenances[1]; m.StartedAt != m.CreatedAt {
		t.Errorf("a maintenance not begun starts at its creation: %+v", m)
	}
	if m := v.maintenances[2]; *m.ResolvedAt != "2026-02-27T02:00:00.000Z" {
		t.Errorf("maintenance 23 resolved_at %v", *m.ResolvedAt)
	}

	a := answers(snap)
	if s := a["/api/v2/summary.json"].(SummaryResponse); ids(s.Incidents) != "10:identified:major" || ms(s.ScheduledMaintenances) != "20:in_progress:maintenance 21:scheduled:maintenance" {
		t.Errorf("summary %s / %s", ids(s.Incidents), ms(s.ScheduledMaintenances))
	}
	if s := a["/api/v2/scheduled-maintenances/upcoming.json"].(MaintenancesResponse); ms(s.ScheduledMaintenances) != "21:scheduled:maintenance" {
		t.Errorf("upcoming %s", ms(s.ScheduledMaintenances))
	}
	if s := a["/api/v2/scheduled-maintenances/active.json"].(MaintenancesResponse); ms(s.ScheduledMaintenances) != "20:in_progress:maintenance" {
		t.Errorf("active %s", ms(s.ScheduledMaintenances))
	}
	if len(a) != len(Paths) {
		t.Errorf("%d answers for %d paths", len(a), len(Paths))
	}
}

// answers are the bodies of every endpoint of snap, by path.
func answers(snap *snapshot.Snapshot) map[string]any {
	a := map[string]any{}
	for _, p := range Paths {
		a[p] = answer(snap, p)
	}
	return a
}

// TestAnswersMapWhatTheyList: each endpoint, which maps only the notices
// it lists, answers what it would from the whole mapping of the snapshot.
func TestAnswersMapWhatTheyList(t *testing.T) {
	for _, snap := range []*snapshot.Snapshot{
		snapshot.Build(doc(), 3, t0, snapshot.Options{Variant: statusd.VariantA}),
		snapshot.Build(large.Document(20, 3000, t0), 1, t0, snapshot.Options{Variant: statusd.VariantA}),
	} {
		all := newView(snap, nil, 0)
		summary := answer(snap, "/api/v2/summary.json").(SummaryResponse)
		for name, c := range map[string]struct{ got, want any }{
			"summary incidents":      {summary.Incidents, keep(all.incidents, unresolved)},
			"summary maintenances":   {summary.ScheduledMaintenances, keep(all.maintenances, withStatus(MaintenanceScheduled, MaintenanceInProgress))},
			"summary components":     {summary.Components, all.components},
			"incidents":              {answer(snap, "/api/v2/incidents.json").(IncidentsResponse).Incidents, first(all.incidents, MaxListed)},
			"unresolved":             {answer(snap, "/api/v2/incidents/unresolved.json").(IncidentsResponse).Incidents, keep(all.incidents, unresolved)},
			"scheduled-maintenances": {answer(snap, "/api/v2/scheduled-maintenances.json").(MaintenancesResponse).ScheduledMaintenances, first(all.maintenances, MaxListed)},
			"upcoming":               {answer(snap, "/api/v2/scheduled-maintenances/upcoming.json").(MaintenancesResponse).ScheduledMaintenances, keep(all.maintenances, withStatus(MaintenanceScheduled))},
			"active":                 {answer(snap, "/api/v2/scheduled-maintenances/active.json").(MaintenancesResponse).ScheduledMaintenances, keep(all.maintenances, withStatus(MaintenanceInProgress))},
			"status":                 {answer(snap, "/api/v2/status.json").(StatusResponse).Status, all.status},
			"components":             {answer(snap, "/api/v2/components.json").(ComponentsResponse).Components, all.components},
		} {
			if !reflect.DeepEqual(c.got, c.want) {
				t.Errorf("%d notices, %s: %+v\nwant %+v", snap.NoticeCount(), name, c.got, c.want)
			}
		}
		if n := len(all.incidents); n <= MaxListed && snap.NoticeCount() > 1000 {
			t.Errorf("%d incidents: the list bound is not tried", n)
		}
	}
}

// TestNotice: one notice mapped alone is the one the lists hold, to the
// byte; the notices the lists leave out are nil.
func TestNotice(t *testing.T) {
	snap := snapshot.Build(doc(), 3, t0, snapshot.Options{Variant: statusd.VariantA})
	v := newView(snap, nil, 0)
	tests := []struct {
		name string
		id   int64
		want any // nil: not listed
	}{
		{"an incident with two components", 10, &v.incidents[0]},
		{"a resolved incident", 11, &v.incidents[1]},
		{"a maintenance underway", 20, &v.maintenances[0]},
		{"a maintenance cancelled while underway", 23, &v.maintenances[2]},
		{"a maintenance cancelled before it began", 22, nil},
		{"a general notice", 30, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := Notice(snap, snap.Notice(tc.id))
			if tc.want == nil {
				if got != nil {
					t.Fatalf("Notice(%d) = %+v, want nil", tc.id, got)
				}
				return
			}
			g, err1 := json.Marshal(got)
			w, err2 := json.Marshal(tc.want)
			if err1 != nil || err2 != nil || string(g) != string(w) {
				t.Errorf("Notice(%d) =\n%s\nwant (as listed)\n%s", tc.id, g, w)
			}
			if !strings.Contains(string(g), `"id":"`+strconv.FormatInt(tc.id, 10)+`"`) {
				t.Errorf("Notice(%d) is another notice: %s", tc.id, g)
			}
		})
	}
}

// TestMaxListed: the full lists hold the 50 newest.
func TestMaxListed(t *testing.T) {
	d := &statusd.Document{Page: statusd.Page{Name: "P", URL: "https://p.test", CreatedAt: t0, UpdatedAt: t0}}
	for i := int64(1); i <= 60; i++ {
		at := t0.Add(time.Duration(i) * time.Minute)
		d.Notices = append(d.Notices, statusd.Notice{ID: i, Type: statusd.Unplanned, Subject: "n", CreatedAt: at, UpdatedAt: at,
			Updates: []statusd.Update{upd(i, statusd.Resolved, at)}})
	}
	a := answers(snapshot.Build(d, 1, t0.Add(2*time.Hour), snapshot.Options{Variant: statusd.VariantA}))
	list := a["/api/v2/incidents.json"].(IncidentsResponse).Incidents
	if len(list) != 50 || list[0].ID != "60" || list[49].ID != "11" {
		t.Errorf("%d incidents, first %s, last %s", len(list), list[0].ID, list[len(list)-1].ID)
	}
	if s := a["/api/v2/summary.json"].(SummaryResponse); s.Incidents == nil || s.ScheduledMaintenances == nil || s.Components == nil {
		t.Errorf("empty lists must be [], not null: %+v", s)
	}
}

func TestServer(t *testing.T) {
	h := &holder{}
	srv := New(Config{Snapshots: h, MaxAge: 5 * time.Second})
	mux := serveMux(srv)
	do := func(method, path string, header ...string) *httptest.ResponseRecorder {
		req := httptest.NewRequest(method, path, nil)
		req.RemoteAddr = "192.0.2.1:1"
		for i := 0; i+1 < len(header); i += 2 {
			req.Header.Set(header[i], header[i+1])
		}
		rec := httptest.NewRecorder()
		mux.ServeHTTP(rec, req)
		return rec
	}
	if rec := do(http.MethodGet, "/api/v2/status.json"); rec.Code != 503 || !strings.Contains(rec.Body.String(), `"code":"unavailable"`) {
		t.Errorf("no page: %d %s", rec.Code, rec.Body)
	}
	h.snap = snapshot.Build(doc(), 3, t0, snapshot.Options{Variant: statusd.VariantA})
	rec := do(http.MethodGet, "/api/v2/status.json")
	if rec.Code != 200 || rec.Header().Get("Cache-Control") != "public, max-age=5" ||
		rec.Header().Get("Content-Type") != "application/json; charset=utf-8" {
		t.Fatalf("GET: %d %v", rec.Code, rec.Header())
	}
	var st StatusResponse
	if err := json.Unmarshal(rec.Body.Bytes(), &st); err != nil || st.Status.Indicator != "major" {
		t.Errorf("body %s: %v", rec.Body, err)
	}
	etag := rec.Header().Get("ETag")
	if rec := do(http.MethodGet, "/api/v2/status.json", "If-None-Match", `W/"x", `+etag); rec.Code != 304 || rec.Body.Len() != 0 {
		t.Errorf("If-None-Match: %d", rec.Code)
	}
	if rec := do(http.MethodOptions, "/api/v2/summary.json", "Origin", "https://x.test", "Access-Control-Request-Method", "GET"); rec.Code != 204 ||
		rec.Header().Get("Access-Control-Allow-Methods") != "GET, HEAD, OPTIONS" {
		t.Errorf("preflight: %d %v", rec.Code, rec.Header())
	}
	srv2 := New(Config{Snapshots: h})
	mux2 := serveMux(srv2)
	rec = httptest.NewRecorder()
	mux2.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/api/v2/summary.json", nil))
	if rec.Code != 405 || rec.Header().Get("Allow") != "GET, HEAD, OPTIONS" || !strings.Contains(rec.Body.String(), `"code":"method_not_allowed"`) {
		t.Errorf("POST: %d %v %s", rec.Code, rec.Header(), rec.Body)
	}
	rec = httptest.NewRecorder()
	mux2.ServeHTTP(rec, httptest.NewRequest(http.MethodHead, "/api/v2/summary.json", nil))
	if rec.Code != 200 || rec.Body.Len() != 0 || rec.Header().Get("Content-Length") == "0" {
		t.Errorf("HEAD: %d %v", rec.Code, rec.Header())
	}
	// A new snapshot gives new answers.
	before := do(http.MethodGet, "/api/v2/status.json").Header().Get("ETag")
	d := doc()
	d.Notices = d.Notices[1:]
	h.snap = snapshot.Build(d, 4, t0, snapshot.Options{Variant: statusd.VariantA})
	rec = httptest.NewRecorder()
	mux2.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/api/v2/status.json", nil))
	if rec.Header().Get("ETag") == before || !strings.Contains(rec.Body.String(), `"indicator":"maintenance"`) {
		t.Errorf("after a new snapshot: %v %s", rec.Header(), rec.Body)
	}
}

// serveMux serves every endpoint of s, as internal/server routes them
// (CORS and the rate limit, the assembly's, are tested there).
func serveMux(s *Server) *route.Mux {
	mux := route.NewMux(http.NewServeMux(), route.NewErrors(nil, nil))
	for _, p := range Paths {
		mux.Read(p, s.Serve(p), httpjson.Preflight)
	}
	return mux
}

// TestAffectedComponents: an update's recorded changes of component
// states are its affected_components (the component's id as code, its
// name, the statuses before and after), leaving out a component deleted
// since; its notify is deliver_notifications.
func TestAffectedComponents(t *testing.T) {
	d := doc()
	in := &d.Notices[0] // incident 10 on Login (3) and Dashboard (2), in group Web (1)
	in.Updates[0].Notified = true
	in.Updates[0].Changes = []statusd.ComponentChange{
		{ComponentID: 1, Old: statusd.PageOperational, New: statusd.PageDegraded},
		{ComponentID: 2, Old: statusd.PageUnderMaintenance, New: statusd.PageDegraded},
		{ComponentID: 99, Old: statusd.PageOperational, New: statusd.PageDegraded}, // deleted since
	}
	snap := snapshot.Build(d, 1, t0, snapshot.Options{Variant: statusd.VariantA})
	got := Notice(snap, snap.Notice(10)).(*Incident)
	// Newest first: 101, then 100.
	if u := got.IncidentUpdates[0]; u.AffectedComponents != nil || u.DeliverNotifications {
		t.Errorf("update 101: affected %v, deliver %v; want null, false", u.AffectedComponents, u.DeliverNotifications)
	}
	want := []AffectedComponent{
		{Code: "1", Name: "Web", OldStatus: "operational", NewStatus: "partial_outage"},
		{Code: "2", Name: "Dashboard", OldStatus: "under_maintenance", NewStatus: "partial_outage"},
	}
	u := got.IncidentUpdates[1]
	if !reflect.DeepEqual(u.AffectedComponents, want) || !u.DeliverNotifications {
		t.Errorf("update 100: affected %+v, deliver %v; want %+v, true", u.AffectedComponents, u.DeliverNotifications, want)
	}
	b, err := json.Marshal(u)
	if err != nil {
		t.Fatal(err)
	}
	if s := string(b); !strings.Contains(s, `"affected_components":[{"code":"1","name":"Web","old_status":"operational","new_status":"partial_outage"},`) ||
		!strings.Contains(s, `"deliver_notifications":true`) {
		t.Errorf("update 100 on the wire: %s", s)
	}
}
