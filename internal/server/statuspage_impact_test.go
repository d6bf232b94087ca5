package server_test

// Black-box tests of the Statuspage v2 files of one notice each and of the
// impact of notices (CONTRACT C6). Helpers here start with ti.

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/statusd/statusd/internal/testserver"
)

// TestStatuspageV2Items: /api/v2/incidents/{id}.json and
// /api/v2/scheduled-maintenances/{id}.json answer the notice as its list
// presents it, under the list's key made singular, beside the page, with
// the headers of the other v2 files (CORS, the rate limit, ETag and 304),
// and 404 JSON for an id that names no notice of that list.
func TestStatuspageV2Items(t *testing.T) {
	now := time.Now().UTC().Truncate(time.Second)
	srv := startServer(t, testserver.Fixture(now), options{rateLimit: 100})
	get := func(path string) map[string]any {
		t.Helper()
		r := srv.Get(path, 200)
		for name, value := range map[string]string{"Content-Type": "application/json; charset=utf-8",
			"Access-Control-Allow-Origin": "*", "RateLimit-Limit": "100"} {
			if got := r.Header.Get(name); got != value {
				t.Errorf("%s: %s %q, want %q", path, name, got, value)
			}
		}
		etag := r.Header.Get("ETag")
		if etag == "" || r.Header.Get("Cache-Control") == "" {
			t.Errorf("%s: ETag %q Cache-Control %q", path, etag, r.Header.Get("Cache-Control"))
		}
		if r := srv.Do(http.MethodGet, path, "If-None-Match", etag); r.Status != 304 {
			t.Errorf("%s If-None-Match: %d", path, r.Status)
		}
		return r.JSON.(map[string]any)
	}
	summary := get("/api/v2/summary.json")
	incidents := get("/api/v2/incidents.json")["incidents"]
	maintenances := get("/api/v2/scheduled-maintenances.json")["scheduled_maintenances"]
	for _, w := range []struct {
		path, key string
		want      any
	}{
		{"/api/v2/incidents/100.json", "incident", tmFind(t, incidents, "100")},
		{"/api/v2/incidents/103.json", "incident", tmFind(t, incidents, "103")},
		{"/api/v2/scheduled-maintenances/200.json", "scheduled_maintenance", tmFind(t, maintenances, "200")},
		{"/api/v2/scheduled-maintenances/201.json", "scheduled_maintenance", tmFind(t, maintenances, "201")},
	} {
		testserver.AssertJSON(t, w.path, get(w.path), testserver.Obj{"page": summary["page"], w.key: w.want})
	}
	if r := srv.Do(http.MethodHead, "/api/v2/incidents/100.json"); r.Status != 200 || len(r.Body) != 0 {
		t.Errorf("HEAD: %d %q", r.Status, r.Body)
	}
	r := srv.Do(http.MethodOptions, "/api/v2/incidents/100.json", "Origin", "https://dash.test", "Access-Control-Request-Method", "GET")
	if r.Status != 204 || r.Header.Get("Access-Control-Allow-Origin") != "*" {
		t.Errorf("preflight: %d %v", r.Status, r.Header)
	}
	r = srv.Do(http.MethodPost, "/api/v2/incidents/100.json")
	if r.Status != 405 || r.Header.Get("Allow") != "GET, HEAD, OPTIONS" {
		t.Errorf("POST: %d %v", r.Status, r.Header)
	}

	// The fixed files of the same folders are still theirs.
	testserver.AssertJSON(t, "unresolved", tmIDs(t, get("/api/v2/incidents/unresolved.json")["incidents"]),
		"100:identified 105:monitoring")
	testserver.AssertJSON(t, "upcoming", tmIDs(t, get("/api/v2/scheduled-maintenances/upcoming.json")["scheduled_maintenances"]),
		"201:scheduled")
	testserver.AssertJSON(t, "active", tmIDs(t, get("/api/v2/scheduled-maintenances/active.json")["scheduled_maintenances"]),
		"200:in_progress")

	// Not a notice of the list: a maintenance as an incident and the
	// reverse, a general notice, a maintenance cancelled before it began
	// (203, not listed), no notice, no id, no .json.
	for _, path := range []string{
		"/api/v2/incidents/200.json", "/api/v2/scheduled-maintenances/100.json", "/api/v2/incidents/300.json",
		"/api/v2/scheduled-maintenances/203.json", "/api/v2/incidents/999.json", "/api/v2/incidents/abc.json",
		"/api/v2/incidents/0.json", "/api/v2/incidents/100", "/api/v2/scheduled-maintenances/201.xml",
	} {
		r := srv.Do(http.MethodGet, path)
		testserver.AssertErrorBody(t, path, r, 404, "not_found")
		if r.Header.Get("RateLimit-Limit") != "100" {
			t.Errorf("%s: no rate limit headers: %v", path, r.Header)
		}
	}

	// A notice written now is there at once.
	tok := newToken(t, srv.DB, "ops")
	created := srv.AdminOK(http.MethodPost, "/notices", tok,
		`{"type": "unplanned", "subject": "Login fails", "state": "investigating", "content": "Looking.", "component_ids": [20]}`, http.StatusCreated)
	path := fmt.Sprintf("/api/v2/incidents/%v.json", created["id"])
	in := get(path)["incident"]
	if testserver.At(t, in, "name") != "Login fails" || testserver.At(t, in, "status") != "investigating" {
		t.Errorf("%s: %v", path, in)
	}
}

// tiV2 reads what the v2 endpoints say of severity: the page's indicator,
// each component's status ("id:status" in position order) and each
// incident's impact by id.
func tiV2(t *testing.T, srv *testserver.Server) (indicator, components string, impacts map[string]string) {
	t.Helper()
	summary := srv.Get("/api/v2/summary.json", 200).JSON
	impacts = map[string]string{}
	for _, in := range srv.Get("/api/v2/incidents.json", 200).JSON.(map[string]any)["incidents"].([]any) {
		o := in.(map[string]any)
		impacts[o["id"].(string)] = o["impact"].(string)
	}
	return testserver.At(t, summary, "status.indicator").(string), tmIDs(t, summary.(map[string]any)["components"]), impacts
}

// TestStatuspageV2Impact: notices take an optional impact (minor by
// default, major, critical) through the admin API, which shows it, and the
// v2 endpoints follow it (CONTRACT C6): an incident's impact, the page
// indicator (the worst impact of the current incidents; maintenance while
// only maintenance is underway) and each component's status (the worst
// impact of the current incidents listing it or a descendant: minor
// degraded_performance, major partial_outage, critical major_outage). The
// v1 API shows no impact. Expected values by hand from the fixture:
// current incident 100 lists 11 (child of 10); maintenance 200 is underway
// on 30 and 20; 31 is 30's child.
func TestStatuspageV2Impact(t *testing.T) {
	now := time.Now().UTC().Truncate(time.Second)
	srv := startServer(t, testserver.Fixture(now), options{})
	tok := newToken(t, srv.DB, "ops")
	check := func(what, indicator, components string, impacts map[string]string) {
		t.Helper()
		gotInd, gotComps, gotImpacts := tiV2(t, srv)
		if gotInd != indicator || gotComps != components {
			t.Errorf("%s: indicator %s, components %s; want %s, %s", what, gotInd, gotComps, indicator, components)
		}
		for id, want := range impacts {
			if gotImpacts[id] != want {
				t.Errorf("%s: incident %s impact %s, want %s", what, id, gotImpacts[id], want)
			}
		}
	}

	// Left out, impact is minor.
	check("as imported", "minor",
		"20:under_maintenance 10:degraded_performance 12:operational 11:degraded_performance 30:under_maintenance 31:operational",
		map[string]string{"100": "minor", "105": "minor", "103": "none"})
	testserver.AssertJSON(t, "admin 100 impact", testserver.At(t, srv.AdminOK(http.MethodGet, "/notices/100", tok, "", 200), "impact"), "minor")

	// A critical incident on 31: 31 and its parent 30 (degraded wins over
	// maintenance) are major_outage, the page critical.
	created := srv.AdminOK(http.MethodPost, "/notices", tok, `{"type": "unplanned", "subject": "Replica down",
		"state": "identified", "content": "Down.", "component_ids": [31], "impact": "critical"}`, http.StatusCreated)
	testserver.AssertJSON(t, "POST impact", created["impact"], "critical")
	id := fmt.Sprint(created["id"])
	check("critical on 31", "critical",
		"20:under_maintenance 10:degraded_performance 12:operational 11:degraded_performance 30:major_outage 31:major_outage",
		map[string]string{id: "critical", "100": "minor"})

	// 100 made major: 11 and its parent 10 are partial_outage; the page
	// stays critical.
	testserver.AssertJSON(t, "PATCH impact", srv.AdminOK(http.MethodPatch, "/notices/100", tok, `{"impact": "major"}`, 200)["impact"], "major")
	check("100 major", "critical",
		"20:under_maintenance 10:partial_outage 12:operational 11:partial_outage 30:major_outage 31:major_outage",
		map[string]string{id: "critical", "100": "major"})

	// The critical one resolved: it keeps its impact, the page is major,
	// 30 back under maintenance.
	srv.AdminOK(http.MethodPost, "/notices/"+id+"/updates", tok, `{"state": "resolved", "content": "Up."}`, http.StatusCreated)
	check("critical resolved", "major",
		"20:under_maintenance 10:partial_outage 12:operational 11:partial_outage 30:under_maintenance 31:operational",
		map[string]string{id: "critical", "100": "major"})

	// 100 recovering (Statuspage's monitoring): no current incident, only
	// maintenance underway.
	srv.AdminOK(http.MethodPost, "/notices/100/updates", tok, `{"state": "recovering", "content": "Better."}`, http.StatusCreated)
	check("100 recovering", "maintenance",
		"20:under_maintenance 10:operational 12:operational 11:operational 30:under_maintenance 31:operational",
		map[string]string{"100": "major"})

	// Another value, or impact on another type, is refused naming it.
	for _, c := range []struct{ method, path, body string }{
		{http.MethodPost, "/notices", `{"type": "unplanned", "subject": "S", "content": "C", "impact": "severe"}`},
		{http.MethodPost, "/notices", `{"type": "unplanned", "subject": "S", "content": "C", "impact": 3}`},
		{http.MethodPost, "/notices", `{"type": "general", "subject": "S", "content": "C", "impact": "major"}`},
		{http.MethodPatch, "/notices/100", `{"impact": "Major"}`},
		{http.MethodPatch, "/notices/100", `{"impact": ""}`},
		{http.MethodPatch, "/notices/200", `{"impact": "minor"}`},
	} {
		srv.Refuse(tok, c.method, c.path, c.body, 422, "invalid_field", "impact")
	}

	// The v1 API has no impact.
	for _, path := range []string{"/api/v1/notices/100", "/api/v1/notices/" + id, "/api/v1/notices?filter%5Btype_eq%5D=unplanned"} {
		if r := srv.Get(path, 200); strings.Contains(string(r.Body), `"impact"`) {
			t.Errorf("%s shows impact: %s", path, r.Body)
		}
	}
}

// TestStatuspageV2ImpactConsole: the console's incident forms, to declare
// and to edit, choose the impact (minor preselected), which the v2
// endpoints then show; another value is the form again with its problem.
func TestStatuspageV2ImpactConsole(t *testing.T) {
	now := time.Now().UTC()
	srv := startServer(t, consoleDoc(now), options{adminListener: true})
	adm := srv.Admin(newToken(t, srv.DB, "alice"))
	pat := signedIn(t, srv, adm, "pat@example.com", "publisher")
	impact := func(id int) any {
		t.Helper()
		return testserver.At(t, srv.Get(fmt.Sprintf("/api/v2/incidents/%d.json", id), 200).JSON, "incident.impact")
	}

	pat.do("GET", "/manage/incidents/new", nil).has(t, "the incident form",
		`<select id="impact" name="impact">`, `<option value="minor" selected>Minor: degraded performance</option>`,
		`<option value="critical">Critical: major outage</option>`)
	form := url.Values{"subject": {"Login failures"}, "state": {"identified"}, "component_ids": {"3"},
		"content": {"Sign-in fails."}, "impact": {"severe"}}
	p := pat.do("POST", "/manage/incidents/new", form, sameSite...)
	p.want(t, "an unknown impact", 422, "")
	p.has(t, "an unknown impact", `<p class="problem" id="impact-problem" role="alert">`)

	// The document has notices 10 and 11: the next is 12.
	form.Set("impact", "critical")
	pat.do("POST", "/manage/incidents/new", form, sameSite...).want(t, "declare", 303, "/manage/notices/12?done=published&component=3")
	testserver.AssertJSON(t, "declared critical", impact(12), "critical")

	pat.do("GET", "/manage/notices/12/edit", nil).has(t, "the edit form", `<option value="critical" selected>Critical: major outage</option>`)
	pat.do("POST", "/manage/notices/12/edit", url.Values{"subject": {"Login failures"}, "component_ids": {"3"}, "impact": {"major"}},
		sameSite...).want(t, "edit", 303, "/manage/notices/12?done=edited&component=3")
	testserver.AssertJSON(t, "edited major", impact(12), "major")
}
