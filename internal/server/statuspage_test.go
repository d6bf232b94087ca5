package server_test

// Black-box tests of the Statuspage-compatible v2 endpoints and the badges.
// Helpers here start with tm.

import (
	"encoding/xml"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/internal/testserver"
)

// tmField is what a key of a Statuspage object holds: a JSON kind
// ("string", "time" (RFC 3339), "date" (yyyy-mm-dd), "int", "bool",
// "array", "object"), whether it may be null, and the values allowed.
type tmField struct {
	kind     string
	nullable bool
	enum     []string
}

// The field lists of Statuspage's public v2 API, from its published
// documentation and example answers (page, status, component, incident,
// incident update, scheduled maintenance). Every key must be present with
// its type; no other key may be.
var (
	tmPageFields = map[string]tmField{
		"id": {kind: "string"}, "name": {kind: "string"}, "url": {kind: "string"},
		"time_zone": {kind: "string"}, "updated_at": {kind: "time"},
	}
	tmStatusFields = map[string]tmField{
		"indicator":   {kind: "string", enum: []string{"none", "minor", "major", "critical", "maintenance"}},
		"description": {kind: "string"},
	}
	tmComponentFields = map[string]tmField{
		"id": {kind: "string"}, "name": {kind: "string"},
		"status":     {kind: "string", enum: []string{"operational", "degraded_performance", "partial_outage", "major_outage", "under_maintenance"}},
		"created_at": {kind: "time"}, "updated_at": {kind: "time"}, "position": {kind: "int"},
		"description": {kind: "string", nullable: true}, "showcase": {kind: "bool"},
		"start_date": {kind: "date", nullable: true}, "group_id": {kind: "string", nullable: true},
		"page_id": {kind: "string"}, "group": {kind: "bool"}, "only_show_if_degraded": {kind: "bool"},
	}
	tmIncidentFields = map[string]tmField{
		"id": {kind: "string"}, "name": {kind: "string"},
		"status":     {kind: "string", enum: []string{"investigating", "identified", "monitoring", "resolved", "postmortem"}},
		"created_at": {kind: "time"}, "updated_at": {kind: "time"},
		"monitoring_at": {kind: "time", nullable: true}, "resolved_at": {kind: "time", nullable: true},
		"impact":    {kind: "string", enum: []string{"none", "minor", "major", "critical"}},
		"shortlink": {kind: "string"}, "started_at": {kind: "time"}, "page_id": {kind: "string"},
		"incident_updates": {kind: "array"}, "components": {kind: "array"},
	}
	tmUpdateFields = map[string]tmField{
		"id": {kind: "string"}, "status": {kind: "string"}, "body": {kind: "string"}, "incident_id": {kind: "string"},
		"created_at": {kind: "time"}, "updated_at": {kind: "time"}, "display_at": {kind: "time"},
		"affected_components": {kind: "array", nullable: true}, "deliver_notifications": {kind: "bool"},
		"custom_tweet": {kind: "string", nullable: true}, "tweet_id": {kind: "string", nullable: true},
	}
	tmMaintenanceFields = func() map[string]tmField {
		m := map[string]tmField{}
		for k, v := range tmIncidentFields {
			m[k] = v
		}
		m["status"] = tmField{kind: "string", enum: []string{"scheduled", "in_progress", "verifying", "completed"}}
		m["impact"] = tmField{kind: "string", enum: []string{"none", "minor", "major", "critical", "maintenance"}}
		m["scheduled_for"] = tmField{kind: "time"}
		m["scheduled_until"] = tmField{kind: "time"}
		return m
	}()
)

// tmCheckObject checks that v is an object with exactly the keys of fields
// (plus those of optional that it has), each of the right kind.
func tmCheckObject(t *testing.T, where string, v any, fields, optional map[string]tmField) map[string]any {
	t.Helper()
	o, ok := v.(map[string]any)
	if !ok {
		t.Errorf("%s: %T, want an object", where, v)
		return nil
	}
	for k := range o {
		if _, ok := fields[k]; !ok {
			if _, ok := optional[k]; !ok {
				t.Errorf("%s: key %q is not in Statuspage's field list", where, k)
			}
		}
	}
	check := func(k string, f tmField) {
		val := o[k]
		if val == nil {
			if !f.nullable {
				t.Errorf("%s.%s is null", where, k)
			}
			return
		}
		okKind := false
		switch f.kind {
		case "string", "time", "date":
			s, isString := val.(string)
			okKind = isString
			if isString && f.kind == "time" {
				if _, err := time.Parse(time.RFC3339Nano, s); err != nil {
					t.Errorf("%s.%s = %q is not RFC 3339", where, k, s)
				}
			}
			if isString && f.kind == "date" {
				if _, err := time.Parse(statusd.DateLayout, s); err != nil {
					t.Errorf("%s.%s = %q is not a date", where, k, s)
				}
			}
			if isString && f.enum != nil && !slices.Contains(f.enum, s) {
				t.Errorf("%s.%s = %q is not one of %v", where, k, s, f.enum)
			}
		case "int":
			n, isNumber := val.(float64)
			okKind = isNumber && n == float64(int64(n))
		case "bool":
			_, okKind = val.(bool)
		case "array":
			_, okKind = val.([]any)
		case "object":
			_, okKind = val.(map[string]any)
		}
		if !okKind {
			t.Errorf("%s.%s = %v (%T), want %s", where, k, val, val, f.kind)
		}
	}
	for k, f := range fields {
		if _, present := o[k]; !present {
			t.Errorf("%s: key %q missing", where, k)
			continue
		}
		check(k, f)
	}
	for k, f := range optional {
		if _, present := o[k]; present {
			check(k, f)
		}
	}
	return o
}

// tmCheckComponent checks a component: "components" (member ids) is
// present exactly on groups.
func tmCheckComponent(t *testing.T, where string, v any) map[string]any {
	t.Helper()
	c := tmCheckObject(t, where, v, tmComponentFields, map[string]tmField{"components": {kind: "array"}})
	if c == nil {
		return nil
	}
	members, has := c["components"].([]any)
	if group, _ := c["group"].(bool); group != has {
		t.Errorf("%s: group %v with components %v", where, c["group"], c["components"])
	}
	for i, m := range members {
		if _, ok := m.(string); !ok {
			t.Errorf("%s.components[%d] = %v, want an id string", where, i, m)
		}
	}
	return c
}

// tmCheckIncident checks an incident or maintenance with its updates and
// components.
func tmCheckIncident(t *testing.T, where string, v any, fields map[string]tmField) map[string]any {
	t.Helper()
	in := tmCheckObject(t, where, v, fields, nil)
	if in == nil {
		return nil
	}
	updates, _ := in["incident_updates"].([]any)
	for i, u := range updates {
		uo := tmCheckObject(t, fmt.Sprintf("%s.incident_updates[%d]", where, i), u, tmUpdateFields, nil)
		if uo != nil && uo["incident_id"] != in["id"] {
			t.Errorf("%s.incident_updates[%d].incident_id %v", where, i, uo["incident_id"])
		}
		if uo != nil && !slices.Contains(fields["status"].enum, fmt.Sprint(uo["status"])) {
			t.Errorf("%s.incident_updates[%d].status %v", where, i, uo["status"])
		}
	}
	comps, _ := in["components"].([]any)
	for i, c := range comps {
		tmCheckComponent(t, fmt.Sprintf("%s.components[%d]", where, i), c)
	}
	return in
}

// tmCheckAnswer checks the shape of a v2 answer: exactly the top-level
// keys of the endpoint, each checked in depth. It returns the page id.
func tmCheckAnswer(t *testing.T, path string, v any, keys ...string) string {
	t.Helper()
	o, ok := v.(map[string]any)
	if !ok {
		t.Fatalf("%s: not an object", path)
	}
	if got := slices.Sorted(func(yield func(string) bool) {
		for k := range o {
			if !yield(k) {
				return
			}
		}
	}); fmt.Sprint(got) != fmt.Sprint(slices.Sorted(slices.Values(keys))) {
		t.Errorf("%s: top-level keys %v, want %v", path, got, keys)
	}
	page := tmCheckObject(t, path+" page", o["page"], tmPageFields, nil)
	pageID, _ := page["id"].(string)
	if !regexp.MustCompile(`^[0-9a-f]{12}$`).MatchString(pageID) {
		t.Errorf("%s: page.id %q", path, pageID)
	}
	if st, ok := o["status"]; ok {
		tmCheckObject(t, path+" status", st, tmStatusFields, nil)
	}
	checkPageID := func(where string, x map[string]any) {
		if x != nil && x["page_id"] != pageID {
			t.Errorf("%s.page_id %v, want %s", where, x["page_id"], pageID)
		}
	}
	if list, ok := o["components"]; ok {
		items, isList := list.([]any)
		if !isList {
			t.Errorf("%s: components is %T", path, list)
		}
		for i, c := range items {
			checkPageID(fmt.Sprintf("%s components[%d]", path, i), tmCheckComponent(t, fmt.Sprintf("%s components[%d]", path, i), c))
		}
	}
	if list, ok := o["incidents"]; ok {
		items, isList := list.([]any)
		if !isList {
			t.Errorf("%s: incidents is %T", path, list)
		}
		for i, in := range items {
			checkPageID(fmt.Sprintf("%s incidents[%d]", path, i), tmCheckIncident(t, fmt.Sprintf("%s incidents[%d]", path, i), in, tmIncidentFields))
		}
	}
	if list, ok := o["scheduled_maintenances"]; ok {
		items, isList := list.([]any)
		if !isList {
			t.Errorf("%s: scheduled_maintenances is %T", path, list)
		}
		for i, m := range items {
			checkPageID(fmt.Sprintf("%s scheduled_maintenances[%d]", path, i), tmCheckIncident(t, fmt.Sprintf("%s scheduled_maintenances[%d]", path, i), m, tmMaintenanceFields))
		}
	}
	return pageID
}

// tmIDs lists "id:status" of the objects of a list.
func tmIDs(t *testing.T, list any) string {
	t.Helper()
	var out []string
	items, _ := list.([]any)
	for _, x := range items {
		o := x.(map[string]any)
		out = append(out, fmt.Sprintf("%v:%v", o["id"], o["status"]))
	}
	return strings.Join(out, " ")
}

// tmFind returns the object of a list with the id.
func tmFind(t *testing.T, list any, id string) map[string]any {
	t.Helper()
	items, _ := list.([]any)
	for _, x := range items {
		if o := x.(map[string]any); o["id"] == id {
			return o
		}
	}
	t.Fatalf("no %s in %v", id, list)
	return nil
}

// tmStates are the fixture in each page state: as it is (degraded by
// incident 100), without 100 (under maintenance by 200), without 100 and
// 200 (operational).
func tmStates(now time.Time) []struct {
	name string
	doc  *statusd.Document
} {
	without := func(ids ...int64) *statusd.Document {
		d := testserver.Fixture(now)
		d.Notices = slices.DeleteFunc(d.Notices, func(n statusd.Notice) bool { return slices.Contains(ids, n.ID) })
		return d
	}
	return []struct {
		name string
		doc  *statusd.Document
	}{{"degraded", testserver.Fixture(now)}, {"maintenance", without(100)}, {"operational", without(100, 200)}}
}

// TestStatuspageV2 checks every v2 endpoint against Statuspage's field
// lists and every mapped value against the fixture, in each page state.
// (No third-party Go client of this API installs from the Go module proxy
// here: the one found, github.com/mdwn/ghstatus, answers 403 there. So the
// answers are checked against the published field lists instead.)
func TestStatuspageV2(t *testing.T) {
	now := time.Now().UTC().Truncate(time.Second)
	h := func(n float64) string { return testserver.TS(now.Add(time.Duration(n * float64(time.Hour)))) }
	d := func(n float64) time.Time { return now.Add(time.Duration(n * 24 * float64(time.Hour))) }
	for _, st := range tmStates(now) {
		t.Run(st.name, func(t *testing.T) {
			srv := startServer(t, st.doc, options{})
			get := func(path string) map[string]any {
				t.Helper()
				r := srv.Get(path, 200)
				if r.Header.Get("Access-Control-Allow-Origin") != "*" || r.Header.Get("ETag") == "" ||
					r.Header.Get("Content-Type") != "application/json; charset=utf-8" {
					t.Errorf("%s headers %v", path, r.Header)
				}
				return r.JSON.(map[string]any)
			}
			summary := get("/api/v2/summary.json")
			pageID := tmCheckAnswer(t, "summary", summary, "page", "components", "incidents", "scheduled_maintenances", "status")
			answers := map[string]map[string]any{}
			for path, keys := range map[string][]string{
				"/api/v2/status.json":                          {"page", "status"},
				"/api/v2/components.json":                      {"page", "components"},
				"/api/v2/incidents.json":                       {"page", "incidents"},
				"/api/v2/incidents/unresolved.json":            {"page", "incidents"},
				"/api/v2/scheduled-maintenances.json":          {"page", "scheduled_maintenances"},
				"/api/v2/scheduled-maintenances/upcoming.json": {"page", "scheduled_maintenances"},
				"/api/v2/scheduled-maintenances/active.json":   {"page", "scheduled_maintenances"},
			} {
				answers[path] = get(path)
				if id := tmCheckAnswer(t, path, answers[path], keys...); id != pageID {
					t.Errorf("%s: page.id %s, summary says %s", path, id, pageID)
				}
				testserver.AssertJSON(t, path+" page", answers[path]["page"], summary["page"])
			}

			// page: the fixture's name and url; updated_at is the latest
			// change to the page, a component or a notice (the fixture's
			// notices change last, at their last update), as in the v1 API.
			latest := st.doc.Page.UpdatedAt
			for _, n := range st.doc.Notices {
				if n.UpdatedAt.After(latest) {
					latest = n.UpdatedAt
				}
			}
			if v1 := testserver.At(t, srv.Get("/api/v1/status", 200).JSON, "page.updated_at"); v1 != testserver.TS(latest) {
				t.Errorf("v1 page.updated_at %v, want %s", v1, testserver.TS(latest))
			}
			testserver.AssertJSON(t, "page", summary["page"], testserver.Obj{"id": pageID, "name": "Acme Status", "url": "https://status.acme.test",
				"time_zone": "Etc/UTC", "updated_at": testserver.TS(latest)})

			// status
			wantStatus := map[string]testserver.Obj{
				"degraded":    {"indicator": "minor", "description": "Some systems are degraded"},
				"maintenance": {"indicator": "maintenance", "description": "Maintenance is underway"},
				"operational": {"indicator": "none", "description": "All systems operational"},
			}[st.name]
			testserver.AssertJSON(t, "summary status", summary["status"], wantStatus)
			testserver.AssertJSON(t, "status.json status", answers["/api/v2/status.json"]["status"], wantStatus)

			// components, in position order. Groups (10 API, 30 Database)
			// show their worst member, as on Statuspage.
			wantComps := map[string]string{
				"degraded":    "20:under_maintenance 10:degraded_performance 12:operational 11:degraded_performance 30:under_maintenance 31:operational",
				"maintenance": "20:under_maintenance 10:operational 12:operational 11:operational 30:under_maintenance 31:operational",
				"operational": "20:operational 10:operational 12:operational 11:operational 30:operational 31:operational",
			}[st.name]
			if got := tmIDs(t, summary["components"]); got != wantComps {
				t.Errorf("components %s, want %s", got, wantComps)
			}
			testserver.AssertJSON(t, "components.json", answers["/api/v2/components.json"]["components"], summary["components"])
			api := tmFind(t, summary["components"], "10")
			testserver.AssertJSON(t, "component 10", api, testserver.Obj{"id": "10", "name": "API", "status": api["status"],
				"created_at": testserver.TS(testserver.PageCreated), "updated_at": testserver.TS(testserver.PageCreated.Add(time.Hour)), "position": 2,
				"description": "Public REST API", "showcase": true, "start_date": "2026-01-01", "group_id": nil,
				"page_id": pageID, "group": true, "only_show_if_degraded": false, "components": []string{"12", "11"}})
			eu := tmFind(t, summary["components"], "11")
			if eu["group_id"] != "10" || eu["group"] != false || eu["showcase"] != true || eu["position"] != float64(4) {
				t.Errorf("component 11: %v", eu)
			}
			if us := tmFind(t, summary["components"], "12"); us["showcase"] != false {
				t.Errorf("component 12 has no metrics: showcase %v", us["showcase"])
			}

			// incidents: the unplanned notices, newest first.
			wantIncidents := "100:identified 105:monitoring 101:resolved 103:resolved 104:resolved 102:resolved"
			wantUnresolved := "100:identified 105:monitoring"
			if st.name != "degraded" {
				wantIncidents = strings.TrimPrefix(wantIncidents, "100:identified ")
				wantUnresolved = "105:monitoring"
			}
			incidents := answers["/api/v2/incidents.json"]["incidents"]
			if got := tmIDs(t, incidents); got != wantIncidents {
				t.Errorf("incidents %s, want %s", got, wantIncidents)
			}
			if got := tmIDs(t, answers["/api/v2/incidents/unresolved.json"]["incidents"]); got != wantUnresolved {
				t.Errorf("unresolved %s, want %s", got, wantUnresolved)
			}
			if got := tmIDs(t, summary["incidents"]); got != wantUnresolved {
				t.Errorf("summary incidents %s, want %s", got, wantUnresolved)
			}
			// By hand from the fixture: impact none only for the false
			// alarm, else minor, the default (the fixture names none); monitoring_at when recovering began; resolved_at when
			// the final run of resolved began.
			for _, w := range []struct {
				id, impact          string
				started, monitoring any
				resolved            any
				updates             string
				components          string
			}{
				{"105", "minor", h(-5), h(-4), nil, "monitoring investigating", "20:under_maintenance"},
				{"101", "minor", testserver.TS(d(-3)), testserver.TS(d(-3).Add(30 * time.Minute)), testserver.TS(d(-3).Add(time.Hour)), "resolved monitoring investigating", "31:operational"},
				{"103", "none", testserver.TS(d(-10)), nil, testserver.TS(d(-10).Add(20 * time.Minute)), "resolved investigating", "12:operational"},
				{"104", "minor", testserver.TS(d(-20)), nil, testserver.TS(d(-20).Add(4 * time.Hour)), "resolved investigating", ""},
				{"102", "minor", testserver.TS(d(-40)), nil, testserver.TS(d(-40).Add(3 * time.Hour)), "resolved resolved identified investigating resolved investigating", ""},
			} {
				in := tmFind(t, incidents, w.id)
				if in["impact"] != w.impact || in["started_at"] != w.started || in["monitoring_at"] != w.monitoring || in["resolved_at"] != w.resolved {
					t.Errorf("incident %s: impact %v started %v monitoring %v resolved %v, want %v %v %v %v", w.id,
						in["impact"], in["started_at"], in["monitoring_at"], in["resolved_at"], w.impact, w.started, w.monitoring, w.resolved)
				}
				if in["shortlink"] != "https://status.acme.test/notices/"+w.id {
					t.Errorf("incident %s shortlink %v", w.id, in["shortlink"])
				}
				var statuses []string
				for _, u := range in["incident_updates"].([]any) {
					statuses = append(statuses, u.(map[string]any)["status"].(string))
				}
				if got := strings.Join(statuses, " "); got != w.updates {
					t.Errorf("incident %s updates, newest first: %s, want %s", w.id, got, w.updates)
				}
				if w.components != "" {
					if got := tmIDs(t, in["components"]); !strings.HasPrefix(got, strings.Split(w.components, ":")[0]+":") {
						t.Errorf("incident %s components %s, want %s", w.id, got, w.components)
					}
				}
			}
			// Components of an incident in position order: 102 lists 30, 10.
			var ids []string
			for _, c := range tmFind(t, incidents, "102")["components"].([]any) {
				ids = append(ids, c.(map[string]any)["id"].(string))
			}
			if strings.Join(ids, ",") != "10,30" {
				t.Errorf("incident 102 components %v, want 10,30", ids)
			}
			if st.name == "degraded" {
				in := tmFind(t, incidents, "100")
				testserver.AssertJSON(t, "incident 100 update", in["incident_updates"].([]any)[0], testserver.Obj{
					"id": in["incident_updates"].([]any)[0].(map[string]any)["id"], "status": "identified", "body": "A bad deploy; rolling back.",
					"incident_id": "100", "created_at": h(-1), "updated_at": h(-1), "display_at": h(-1),
					"affected_components": nil, "deliver_notifications": false, "custom_tweet": nil, "tweet_id": nil})
				if _, err := strconv.ParseInt(fmt.Sprint(in["incident_updates"].([]any)[0].(map[string]any)["id"]), 10, 64); err != nil {
					t.Errorf("update id is not a statusd id: %v", err)
				}
				if in["name"] != "API errors" || in["created_at"] != h(-2) || in["updated_at"] != h(-1) || in["resolved_at"] != nil {
					t.Errorf("incident 100: %v", in)
				}
			}

			// scheduled maintenances: the planned notices, newest first;
			// 203 was cancelled before it began and is not listed.
			wantAll := "201:scheduled 200:in_progress 202:completed 204:completed"
			wantUpcoming, wantActive, wantSummary := "201:scheduled", "200:in_progress", "201:scheduled 200:in_progress"
			if st.name == "operational" {
				wantAll, wantActive, wantSummary = "201:scheduled 202:completed 204:completed", "", "201:scheduled"
			}
			all := answers["/api/v2/scheduled-maintenances.json"]["scheduled_maintenances"]
			for path, want := range map[string]string{
				"/api/v2/scheduled-maintenances.json":          wantAll,
				"/api/v2/scheduled-maintenances/upcoming.json": wantUpcoming,
				"/api/v2/scheduled-maintenances/active.json":   wantActive,
			} {
				if got := tmIDs(t, answers[path]["scheduled_maintenances"]); got != want {
					t.Errorf("%s: %s, want %s", path, got, want)
				}
			}
			if got := tmIDs(t, summary["scheduled_maintenances"]); got != wantSummary {
				t.Errorf("summary maintenances %s, want %s", got, wantSummary)
			}
			m := tmFind(t, all, "201")
			if m["scheduled_for"] != testserver.TS(d(2)) || m["scheduled_until"] != testserver.TS(d(2).Add(2*time.Hour)) || m["impact"] != "maintenance" ||
				m["started_at"] != testserver.TS(d(-1)) || m["resolved_at"] != nil || tmIDs(t, m["components"]) != "10:"+api["status"].(string) {
				t.Errorf("maintenance 201: %v", m)
			}
			m = tmFind(t, all, "204")
			if m["started_at"] != testserver.TS(d(-50)) || m["resolved_at"] != testserver.TS(d(-49).Add(time.Hour)) {
				t.Errorf("maintenance 204: started %v resolved %v", m["started_at"], m["resolved_at"])
			}
		})
	}
}

// TestStatuspageV2Errors: the v2 endpoints answer like the v1 API when
// there is no page, for other methods and for unknown paths.
func TestStatuspageV2Errors(t *testing.T) {
	empty := startServer(t, nil, options{})
	r := empty.Get("/api/v2/summary.json", 503)
	testserver.AssertJSON(t, "no page", testserver.At(t, r.JSON, "error.code"), "unavailable")
	srv := startServer(t, testserver.Fixture(time.Now().UTC().Truncate(time.Second)), options{})
	r = srv.Do(http.MethodPost, "/api/v2/status.json")
	if r.Status != 405 || r.Header.Get("Allow") != "GET, HEAD, OPTIONS" || testserver.At(t, r.JSON, "error.code") != "method_not_allowed" {
		t.Errorf("POST: %d %v %s", r.Status, r.Header, r.Body)
	}
	r = srv.Get("/api/v2/pages.json", 404)
	testserver.AssertJSON(t, "unknown path", testserver.At(t, r.JSON, "error.code"), "not_found")
	r = srv.Do(http.MethodOptions, "/api/v2/components.json", "Origin", "https://dash.test", "Access-Control-Request-Method", "GET")
	if r.Status != 204 || r.Header.Get("Access-Control-Allow-Origin") != "*" {
		t.Errorf("preflight: %d %v", r.Status, r.Header)
	}
	etag := srv.Get("/api/v2/summary.json", 200).Header.Get("ETag")
	if r := srv.Do(http.MethodGet, "/api/v2/summary.json", "If-None-Match", etag); r.Status != 304 {
		t.Errorf("If-None-Match: %d", r.Status)
	}
}

// tmSVG is what the tests read of a badge.
type tmSVG struct {
	XMLName   xml.Name `xml:"svg"`
	Role      string   `xml:"role,attr"`
	AriaLabel string   `xml:"aria-label,attr"`
	Title     string   `xml:"title"`
	Texts     []string `xml:"g>text"`
}

func tmParseSVG(t *testing.T, r testserver.Response) tmSVG {
	t.Helper()
	if ct := r.Header.Get("Content-Type"); ct != "image/svg+xml; charset=utf-8" {
		t.Errorf("badge Content-Type %q", ct)
	}
	var s tmSVG
	dec := xml.NewDecoder(strings.NewReader(string(r.Body)))
	dec.Strict = true
	if err := dec.Decode(&s); err != nil {
		t.Fatalf("the badge is not well-formed XML: %v\n%s", err, r.Body)
	}
	if s.XMLName.Space != "http://www.w3.org/2000/svg" || s.Role != "img" || s.AriaLabel != s.Title {
		t.Errorf("badge %+v", s)
	}
	return s
}

// TestBadges: the shields.io endpoint JSON and the SVG of the page and of
// components, in each page state, escaped, with the state in words.
func TestBadges(t *testing.T) {
	now := time.Now().UTC().Truncate(time.Second)
	for _, st := range tmStates(now) {
		t.Run(st.name, func(t *testing.T) {
			srv := startServer(t, st.doc, options{})
			word := map[string]string{"degraded": "degraded", "maintenance": "under maintenance", "operational": "operational"}[st.name]
			color := map[string]string{"degraded": "orange", "maintenance": "blue", "operational": "brightgreen"}[st.name]
			r := srv.Get("/badge/status.json", 200)
			testserver.AssertJSON(t, "status.json", r.JSON, testserver.Obj{"schemaVersion": 1, "label": "status", "message": word, "color": color})
			if r.Header.Get("Access-Control-Allow-Origin") != "*" || !strings.HasPrefix(r.Header.Get("Cache-Control"), "public, max-age=") {
				t.Errorf("headers %v", r.Header)
			}
			svg := tmParseSVG(t, srv.Get("/badge/status.svg", 200))
			if svg.Title != "status: "+word || !slices.Contains(svg.Texts, word) || !slices.Contains(svg.Texts, "status") {
				t.Errorf("status.svg %+v", svg)
			}
		})
	}
	srv := startServer(t, testserver.Fixture(now), options{})
	for _, tc := range []struct {
		id, label, message, color string
	}{
		{"11", "API EU", "degraded", "orange"},
		{"30", "Database", "under maintenance", "blue"},
		{"12", "API US", "operational", "brightgreen"},
		// A parent is the worst of its subtree, as in statusd's own API
		// (CONTRACT C3): 10 with its child 11.
		{"10", "API", "degraded", "orange"},
	} {
		r := srv.Get("/badge/components/"+tc.id+".json", 200)
		testserver.AssertJSON(t, tc.id+".json", r.JSON, testserver.Obj{"schemaVersion": 1, "label": tc.label, "message": tc.message, "color": tc.color})
		svg := tmParseSVG(t, srv.Get("/badge/components/"+tc.id+".svg", 200))
		if svg.Title != tc.label+": "+tc.message || !slices.Contains(svg.Texts, tc.label) || !slices.Contains(svg.Texts, tc.message) {
			t.Errorf("%s.svg %+v", tc.id, svg)
		}
	}
	for _, path := range []string{"/badge/components/999.json", "/badge/components/abc.json", "/badge/components/11"} {
		r := srv.Get(path, 404)
		testserver.AssertJSON(t, path, testserver.At(t, r.JSON, "message"), "not found")
	}
	tmParseSVG(t, srv.Get("/badge/components/999.svg", 404))

	// A name with markup in it is escaped, and reads back as it was.
	tok := newToken(t, srv.DB, "ops")
	name := `Auth <SSO> & "Co" 'n'`
	created := srv.AdminOK(http.MethodPost, "/components", tok, fmt.Sprintf(`{"name": %q}`, name), http.StatusCreated)
	id := fmt.Sprint(created["id"])
	r := srv.Get("/badge/components/"+id+".svg", 200)
	if strings.Contains(string(r.Body), "<SSO>") {
		t.Errorf("unescaped name in the SVG: %s", r.Body)
	}
	if svg := tmParseSVG(t, r); svg.Title != name+": operational" || !slices.Contains(svg.Texts, name) {
		t.Errorf("escaped badge reads %+v", svg)
	}
	testserver.AssertJSON(t, "escaped json", testserver.At(t, srv.Get("/badge/components/"+id+".json", 200).JSON, "label"), name)
}
