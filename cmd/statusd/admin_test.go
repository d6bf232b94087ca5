package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/statusd/statusd"
)

// Black-box tests of the admin API (CONTRACT C6, issue 4) through the real
// server: every operation, every refusal, and that a refused write changed
// nothing. Expected values are worked out by hand from the fixture
// (fixture_test.go) and the rules; comments give the reasoning. Every helper
// here starts with adm.

// admRefuse sends a request that must be refused with status and code, a
// message that contains each of inMsg (the field's JSON path, a hint), and
// checks that nothing changed: the exported document is byte for byte the
// same and no audit entry was written.
func admRefuse(srv *testServer, token, method, path, body string, status int, code string, inMsg ...string) response {
	t := srv.t
	t.Helper()
	before := export(t, srv.DB)
	audit := srv.auditTotal(token)
	what := fmt.Sprintf("%s %s %.60s", method, path, body)
	r := srv.admin(method, admPrefix+path, token, body)
	assertError(t, what, r, status, code)
	msg := errorMessage(r)
	for _, s := range inMsg {
		if !strings.Contains(msg, s) {
			t.Errorf("%s: message %q does not contain %q", what, msg, s)
		}
	}
	if after := export(t, srv.DB); after != before {
		t.Errorf("%s: a refused request changed the page:\nbefore %s\nafter  %s", what, before, after)
	}
	if got := srv.auditTotal(token); got != audit {
		t.Errorf("%s: a refused request wrote %v audit entries", what, got-audit)
	}
	return r
}

// admTime parses a timestamp of the API and checks that it lies in
// [lo, hi] (lo truncated to the millisecond, as statusd stores times).
func admTime(t *testing.T, v any, lo, hi time.Time) time.Time {
	t.Helper()
	s, _ := v.(string)
	got, err := time.Parse(statusd.TimeLayout, s)
	if err != nil {
		t.Fatalf("timestamp %v: %v", v, err)
	}
	if got.Before(lo.Truncate(time.Millisecond)) || got.After(hi) {
		t.Errorf("timestamp %s not within [%s, %s]", s, ts(lo), ts(hi))
	}
	return got
}

// admOpenImpact checks the impact of an incident that is still open and
// began at began (up to now), and replaces it with a placeholder.
func admOpenImpact(t *testing.T, n map[string]any, began time.Time) {
	t.Helper()
	it, ok := n["impact_time"].(map[string]any)
	if !ok {
		t.Errorf("notice %v: impact_time %v", n["id"], n["impact_time"])
		return
	}
	secs, _ := it["seconds"].(float64)
	if secs < 0 || secs > time.Since(began).Seconds()+1 {
		t.Errorf("notice %v: impact_time %v, want the seconds since %s", n["id"], it, ts(began))
	}
	n["impact_time"] = obj{"seconds": -1, "words": ""}
}

// admPublicNotice is the public detail of a notice (without envelope).
func admPublicNotice(t *testing.T, srv *testServer, id int64) map[string]any {
	t.Helper()
	r := srv.get(fmt.Sprintf("/api/v1/notices/%d", id), 200)
	return at(t, r.JSON, "notice").(map[string]any)
}

// admPublic drops the admin-only keys of an admin notice, giving what the
// public detail must show.
func admPublic(n map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range n {
		switch k {
		case "component_ids", "automate", "expires_at", "impact_seconds":
		default:
			out[k] = v
		}
	}
	return out
}

// admRFC formats a body timestamp.
func admRFC(t time.Time) string { return t.UTC().Format(time.RFC3339) }

func TestAdminPage(t *testing.T) {
	now := time.Now().UTC().Truncate(time.Second)
	srv := startServer(t, fixture(now))
	tok := newToken(t, srv.DB, "ops")
	audit0 := srv.auditTotal(tok) // entries written before (an import may write one)

	// Incident 100 is identified: degraded (SPEC §3); default texts (C2);
	// updated_at is the latest change, 100's and 200's last updates.
	page := obj{
		"name": "Acme Status", "state": "degraded", "state_text": "Some systems are degraded",
		"url": "https://status.acme.test",
		"links": obj{
			"self":       "/api/v1",
			"components": obj{"href": "/v1/components", "count": 6},
			"notices":    obj{"href": "/v1/notices", "count": 15},
		},
		"created_at": "2026-01-01T00:00:00.000Z", "updated_at": ts(now.Add(-time.Hour)),
		"state_texts": obj{"operational": "All systems operational", "degraded": "Some systems are degraded",
			"under_maintenance": "Maintenance is underway"},
	}
	r := srv.admin(http.MethodGet, admPrefix+"/page", tok, "")
	if r.Status != 200 || r.Header.Get("Cache-Control") != "no-store" {
		t.Errorf("GET /page: status %d, Cache-Control %q", r.Status, r.Header.Get("Cache-Control"))
	}
	assertJSON(t, "GET /page", r.JSON, page)

	t0 := time.Now()
	got := srv.adminOK(http.MethodPatch, "/page", tok,
		`{"name": "Acme Cloud Status", "url": "https://status.acme.example", "state_texts": {"degraded": "We are on it"}}`, 200)
	updated := admTime(t, got["updated_at"], t0, time.Now())
	page["name"], page["url"], page["state_text"], page["updated_at"] = "Acme Cloud Status", "https://status.acme.example", "We are on it", ts(updated)
	page["state_texts"].(obj)["degraded"] = "We are on it"
	assertJSON(t, "PATCH /page", got, page)

	// The very next public request shows the change.
	public := obj{}
	for k, v := range page {
		if k != "state_texts" {
			public[k] = v
		}
	}
	assertJSON(t, "public status", srv.get("/api/v1/status", 200).JSON, obj{"page": public})
	if u := at(t, admPublicNotice(t, srv, 100), "url"); u != "https://status.acme.example/notices/100" {
		t.Errorf("notice url %v after the page url changed", u)
	}

	// Only the texts sent change.
	t0 = time.Now()
	got = srv.adminOK(http.MethodPatch, "/page", tok,
		`{"state_texts": {"operational": "All good", "under_maintenance": "Planned work"}}`, 200)
	page["updated_at"] = ts(admTime(t, got["updated_at"], t0, time.Now()))
	page["state_texts"] = obj{"operational": "All good", "degraded": "We are on it", "under_maintenance": "Planned work"}
	assertJSON(t, "PATCH /page texts", got, page)
	assertJSON(t, "GET /page", srv.adminOK(http.MethodGet, "/page", tok, "", 200), page)

	admRefuse(srv, tok, http.MethodPatch, "/page", `{"name": ""}`, 422, "invalid_field", "name")
	admRefuse(srv, tok, http.MethodPatch, "/page", `{"url": "status.acme.test"}`, 422, "invalid_field", "url")
	admRefuse(srv, tok, http.MethodPatch, "/page", `{"name": 5}`, 422, "invalid_field", "name")
	admRefuse(srv, tok, http.MethodPatch, "/page", `{"title": "x"}`, 422, "invalid_field", "title")
	admRefuse(srv, tok, http.MethodPatch, "/page", `{"state_texts": {"down": "x"}}`, 422, "invalid_field", "down")
	if n := srv.auditTotal(tok) - audit0; n != 2 {
		t.Errorf("audit has %v new entries after two page writes", n)
	}
}

// admComponentsTest follows the fixture's component tree through the
// admin API's changes, to say what the public list must show.
type admComponentsTest struct {
	now                       time.Time
	state, name, desc, stamps map[int64]string
	metrics                   map[int64]bool
}

// admRow is a component in a wanted public list: its parent and how many
// children it has.
type admRow struct {
	id       int64
	parent   any
	children int
}

// want is the public list of rows in this order: positions 1..n.
func (c *admComponentsTest) want(rows ...admRow) obj {
	list := []obj{}
	for i, r := range rows {
		o := componentWant("a", r.id, c.state[r.id], c.name[r.id], c.desc[r.id], r.parent, i+1, r.children, c.metrics[r.id], c.now)
		if s, ok := c.stamps[r.id]; ok {
			created, updated, _ := strings.Cut(s, " ")
			o["created_at"], o["updated_at"] = created, updated
		}
		list = append(list, o)
	}
	return obj{"components": list, "meta": obj{"count": len(list), "total_count": len(list), "next_page": nil}}
}

func (c *admComponentsTest) check(t *testing.T, srv *testServer, what string, rows ...admRow) {
	t.Helper()
	r := srv.get("/api/v1/components", 200)
	checkSummaries(t, "a", at(t, r.JSON, "components").([]any))
	assertJSON(t, what, r.JSON, c.want(rows...))
}

func TestAdminComponents(t *testing.T) {
	now := time.Now().UTC().Truncate(time.Second)
	srv := startServer(t, fixture(now))
	tok := newToken(t, srv.DB, "ops")
	m := maint("a")
	// Maintenance 200 (underway) lists 20 and 30, incident 100 lists 11,
	// whose parent 10 is degraded with it (CONTRACT C3).
	c := &admComponentsTest{now: now,
		state: map[int64]string{20: m, 10: "degraded", 12: "operational", 11: "degraded", 30: m, 31: "operational"},
		name:  map[int64]string{20: "Dashboard", 10: "API", 12: "API US", 11: "API EU", 30: "Database", 31: "Replica"},
		desc: map[int64]string{20: "Web dashboard", 10: "Public REST API", 12: "API in the US", 11: "API in the EU",
			30: "Primary database", 31: "Read replica"},
		metrics: map[int64]bool{10: true, 11: true, 30: true},
		stamps:  map[int64]string{},
	}
	writes := 0
	audit0 := srv.auditTotal(tok)

	// The admin list: the public fields plus metrics_enabled.
	list := srv.adminOK(http.MethodGet, "/components", tok, "", 200)
	comps := at(t, list, "components").([]any)
	checkSummaries(t, "a", comps)
	wantList := c.want(admRow{20, nil, 0}, admRow{10, nil, 2}, admRow{12, 10, 0}, admRow{11, 10, 0}, admRow{30, nil, 1}, admRow{31, 30, 0})["components"].([]obj)
	for _, o := range wantList {
		o["metrics_enabled"] = c.metrics[o["id"].(int64)]
	}
	assertJSON(t, "GET /components", list, obj{"components": wantList})
	one := srv.adminOK(http.MethodGet, "/components/12", tok, "", 200)
	assertJSON(t, "GET /components/12", one, wantList[2])

	// Create at position 2: the new id is 32 (after 31), the others after it
	// move down one.
	t0 := time.Now()
	got := srv.adminOK(http.MethodPost, "/components", tok, `{"name": "CDN", "description": "Edge network", "position": 2}`, 201)
	writes++
	stamp := ts(admTime(t, got["created_at"], t0, time.Now()))
	c.state[32], c.name[32], c.desc[32], c.stamps[32] = "operational", "CDN", "Edge network", stamp+" "+stamp
	want := c.want(admRow{20, nil, 0}, admRow{32, nil, 0})["components"].([]obj)[1]
	want["metrics_enabled"] = false
	assertJSON(t, "POST /components", got, want)
	c.check(t, srv, "after create at 2",
		admRow{20, nil, 0}, admRow{32, nil, 0}, admRow{10, nil, 2}, admRow{12, 10, 0}, admRow{11, 10, 0}, admRow{30, nil, 1}, admRow{31, 30, 0})

	// Without position: last (30's subtree is last, so after it too).
	// Under 30, with metrics.
	t0 = time.Now()
	got = srv.adminOK(http.MethodPost, "/components", tok, `{"name": "Status DB", "parent_id": 30, "metrics_enabled": true}`, 201)
	writes++
	stamp = ts(admTime(t, got["created_at"], t0, time.Now()))
	c.state[33], c.name[33], c.desc[33], c.metrics[33], c.stamps[33] = "operational", "Status DB", "", true, stamp+" "+stamp
	if got["id"] != float64(33) || got["position"] != float64(8) || got["parent_id"] != float64(30) || got["metrics_enabled"] != true {
		t.Errorf("POST /components without position: %v", got)
	}
	c.check(t, srv, "after create last",
		admRow{20, nil, 0}, admRow{32, nil, 0}, admRow{10, nil, 2}, admRow{12, 10, 0}, admRow{11, 10, 0}, admRow{30, nil, 2}, admRow{31, 30, 0}, admRow{33, 30, 0})

	// Rename; Metrics on and off (metrics_summary object, then null).
	t0 = time.Now()
	got = srv.adminOK(http.MethodPatch, "/components/32", tok, `{"name": "Edge CDN"}`, 200)
	writes++
	c.name[32] = "Edge CDN"
	c.stamps[32] = strings.Fields(c.stamps[32])[0] + " " + ts(admTime(t, got["updated_at"], t0, time.Now()))
	got = srv.adminOK(http.MethodPatch, "/components/20", tok, `{"metrics_enabled": true}`, 200)
	writes++
	c.metrics[20] = true
	c.stamps[20] = "2026-01-01T00:00:00.000Z " + ts(admTime(t, got["updated_at"], t0, time.Now()))
	if got["metrics_enabled"] != true {
		t.Errorf("metrics on: %v", got)
	}
	c.check(t, srv, "after rename and metrics on",
		admRow{20, nil, 0}, admRow{32, nil, 0}, admRow{10, nil, 2}, admRow{12, 10, 0}, admRow{11, 10, 0}, admRow{30, nil, 2}, admRow{31, 30, 0}, admRow{33, 30, 0})
	t0 = time.Now()
	got = srv.adminOK(http.MethodPatch, "/components/20", tok, `{"metrics_enabled": false}`, 200)
	writes++
	c.metrics[20] = false
	c.stamps[20] = "2026-01-01T00:00:00.000Z " + ts(admTime(t, got["updated_at"], t0, time.Now()))
	c.check(t, srv, "after metrics off",
		admRow{20, nil, 0}, admRow{32, nil, 0}, admRow{10, nil, 2}, admRow{12, 10, 0}, admRow{11, 10, 0}, admRow{30, nil, 2}, admRow{31, 30, 0}, admRow{33, 30, 0})

	// Move 32 under 10 at position 5: without it the order is 20 10 12 11
	// 30 31 33; it goes fifth.
	t0 = time.Now()
	got = srv.adminOK(http.MethodPatch, "/components/32", tok, `{"parent_id": 10, "position": 5}`, 200)
	writes++
	c.stamps[32] = strings.Fields(c.stamps[32])[0] + " " + ts(admTime(t, got["updated_at"], t0, time.Now()))
	c.check(t, srv, "after move",
		admRow{20, nil, 0}, admRow{10, nil, 3}, admRow{12, 10, 0}, admRow{11, 10, 0}, admRow{32, 10, 0}, admRow{30, nil, 2}, admRow{31, 30, 0}, admRow{33, 30, 0})
	r := srv.get("/api/v1/components?filter[parent_id_eq]=10", 200)
	var children []any
	for _, x := range at(t, r.JSON, "components").([]any) {
		children = append(children, x.(map[string]any)["id"])
	}
	assertJSON(t, "children of 10", children, []int{12, 11, 32})
	// Back to the top level, to position 1.
	t0 = time.Now()
	got = srv.adminOK(http.MethodPatch, "/components/32", tok, `{"parent_id": null, "position": 1}`, 200)
	writes++
	c.stamps[32] = strings.Fields(c.stamps[32])[0] + " " + ts(admTime(t, got["updated_at"], t0, time.Now()))
	c.check(t, srv, "after move back",
		admRow{32, nil, 0}, admRow{20, nil, 0}, admRow{10, nil, 2}, admRow{12, 10, 0}, admRow{11, 10, 0}, admRow{30, nil, 2}, admRow{31, 30, 0}, admRow{33, 30, 0})

	// Refusals change nothing.
	admRefuse(srv, tok, http.MethodPost, "/components", `{"description": "no name"}`, 422, "invalid_field", "name")
	admRefuse(srv, tok, http.MethodPost, "/components", `{"name": " "}`, 422, "invalid_field", "name")
	admRefuse(srv, tok, http.MethodPost, "/components", `{"name": "X", "parent_id": 999}`, 422, "invalid_field", "parent_id")
	admRefuse(srv, tok, http.MethodPost, "/components", `{"name": "X", "position": 0}`, 422, "invalid_field", "position")
	// Eight components: a new one goes at 1 to 9.
	admRefuse(srv, tok, http.MethodPost, "/components", `{"name": "X", "position": 10}`, 422, "invalid_field", "position")
	admRefuse(srv, tok, http.MethodPost, "/components", `{"name": "X", "metrics_enabled": "yes"}`, 422, "invalid_field", "metrics_enabled")
	admRefuse(srv, tok, http.MethodPost, "/components", `{"name": "X", "colour": "red"}`, 422, "invalid_field", "colour")
	admRefuse(srv, tok, http.MethodPost, "/components", `{"name": "X"`, 400, "invalid_body")
	admRefuse(srv, tok, http.MethodPatch, "/components/10", `{"parent_id": 11}`, 422, "invalid_field", "parent_id")
	admRefuse(srv, tok, http.MethodPatch, "/components/10", `{"parent_id": 10}`, 422, "invalid_field", "parent_id")
	admRefuse(srv, tok, http.MethodPatch, "/components/10", `{"name": ""}`, 422, "invalid_field", "name")
	admRefuse(srv, tok, http.MethodPatch, "/components/10", `{"position": 9}`, 422, "invalid_field", "position")
	admRefuse(srv, tok, http.MethodPatch, "/components/999", `{"name": "X"}`, 404, "not_found", "999")
	admRefuse(srv, tok, http.MethodGet, "/components/999", "", 404, "not_found", "999")
	admRefuse(srv, tok, http.MethodDelete, "/components/999", "", 404, "not_found", "999")
	admRefuse(srv, tok, http.MethodDelete, "/components/10", "", 409, "conflict", "recursive")
	admRefuse(srv, tok, http.MethodDelete, "/components/30?recursive=false", "", 409, "conflict")
	admRefuse(srv, tok, http.MethodDelete, "/components/10?recursive=perhaps", "", 400, "invalid_parameter", "recursive")

	// Deleting a leaf renumbers the rest.
	srv.adminOK(http.MethodDelete, "/components/33", tok, "", 204)
	writes++
	c.check(t, srv, "after deleting 33",
		admRow{32, nil, 0}, admRow{20, nil, 0}, admRow{10, nil, 2}, admRow{12, 10, 0}, admRow{11, 10, 0}, admRow{30, nil, 1}, admRow{31, 30, 0})
	admRefuse(srv, tok, http.MethodGet, "/components/33", "", 404, "not_found")

	// Notices list components of the subtree of 10 (10, 12, 11): 100 (11),
	// 102 (30 and 10), 103 (12), 104 (11) and 201 (10), in id order. They
	// go only with detach=true, which takes them out of those notices. 31
	// alone is listed by 101 and 203.
	admRefuse(srv, tok, http.MethodDelete, "/components/10?recursive=true", "", 409, "conflict",
		`component 10 or a component below it is listed by notices 100 ("API errors"), 102 ("Outage, reopened"), `+
			`103 ("US alarm"), 104 ("Slow EU responses"), 201 ("API maintenance"); pass detach=true`)
	admRefuse(srv, tok, http.MethodDelete, "/components/31", "", 409, "conflict",
		`component 31 is listed by notices 101 ("Replica lag"), 203 ("Cancelled work"); pass detach=true to remove it from those notices`)
	admRefuse(srv, tok, http.MethodDelete, "/components/31?detach=perhaps", "", 400, "invalid_parameter", "detach")
	srv.adminOK(http.MethodDelete, "/components/10?recursive=true&detach=true", tok, "", 204)
	writes++
	if e := at(t, srv.adminOK(http.MethodGet, "/audit", tok, "", 200), "audit.0"); at(t, e, "detail") != "deleted 3 component(s), detached from 5 notice(s)" {
		t.Errorf("audit of the detaching delete: %v", e)
	}
	c.check(t, srv, "after deleting the subtree of 10",
		admRow{32, nil, 0}, admRow{20, nil, 0}, admRow{30, nil, 1}, admRow{31, 30, 0})
	for _, id := range []string{"10", "11", "12"} {
		admRefuse(srv, tok, http.MethodGet, "/components/"+id, "", 404, "not_found")
	}

	// Notices that listed them keep existing, with their whole history.
	doc := fixture(now)
	notices := fixUpdateIDs(doc)
	embedded := obj{"id": 30, "state": m, "name": "Database", "description": "Primary database", "parent_id": nil,
		"created_at": "2026-01-01T00:00:00.000Z", "updated_at": "2026-01-01T01:00:00.000Z"}
	for _, w := range fixtureWant(now) {
		if w.id != 100 && w.id != 102 && w.id != 103 && w.id != 104 && w.id != 201 {
			continue
		}
		o := noticeFields("a", w)
		o["components"] = []obj{}
		if w.id == 102 { // listed 30 and 10
			o["components"] = []obj{embedded}
		}
		var ups []obj
		for _, u := range notices[w.id].Updates {
			ups = append(ups, updateWant(u, true))
		}
		o["updates"] = ups
		got := admPublicNotice(t, srv, w.id)
		checkOpenImpact(t, got, now)
		assertJSON(t, fmt.Sprintf("notice %d after deleting its components", w.id), got, o)
	}
	if ids := at(t, srv.adminOK(http.MethodGet, "/notices/102", tok, "", 200), "component_ids"); !admSame(t, ids, []int{30}) {
		t.Errorf("notice 102 component_ids %v, want [30]", ids)
	}
	if n := srv.auditTotal(tok) - audit0; n != float64(writes) {
		t.Errorf("audit has %v new entries after %d writes", n, writes)
	}
}

// admSame reports whether two values are the same JSON.
func admSame(t *testing.T, a, b any) bool {
	t.Helper()
	x, _ := json.Marshal(normalize(t, a))
	y, _ := json.Marshal(normalize(t, b))
	return string(x) == string(y)
}

func TestAdminNotices(t *testing.T) {
	now := time.Now().UTC().Truncate(time.Second)
	srv := startServer(t, fixture(now))
	tok := newToken(t, srv.DB, "ops")
	m := maint("a")
	writes := 0
	audit0 := srv.auditTotal(tok)
	emb := func(id int64, state string) obj {
		names := map[int64][3]any{20: {"Dashboard", "Web dashboard", nil}, 10: {"API", "Public REST API", nil},
			12: {"API US", "API in the US", 10}, 30: {"Database", "Primary database", nil}}
		n := names[id]
		return obj{"id": id, "state": state, "name": n[0], "description": n[1], "parent_id": n[2],
			"created_at": "2026-01-01T00:00:00.000Z", "updated_at": "2026-01-01T01:00:00.000Z"}
	}
	compState := func(id float64) any {
		for _, x := range at(t, srv.get("/api/v1/components", 200).JSON, "components").([]any) {
			if x.(map[string]any)["id"] == id {
				return x.(map[string]any)["state"]
			}
		}
		return nil
	}

	// An unplanned notice starts investigating. Ids: notices after 303,
	// updates after the fixture's 34.
	t0 := time.Now()
	got := srv.adminOK(http.MethodPost, "/notices", tok, `{"type": "unplanned", "subject": "Login failures",
		"content": "We are investigating login failures.", "component_ids": [12], "tag_list": ["auth"]}`, 201)
	writes++
	created := admTime(t, got["created_at"], t0, time.Now())
	c := ts(created)
	admOpenImpact(t, got, created)
	incident := obj{"id": 304, "type": "unplanned", "timeline_state": "present", "state": "investigating",
		"subject": "Login failures", "url": "https://status.acme.test/notices/304",
		"began_at": c, "ended_at": nil, "created_at": c, "updated_at": c,
		"impact_time": obj{"seconds": -1, "words": ""}, "tag_list": []string{"auth"},
		"links":         obj{"self": "/api/notices/304"},
		"components":    []obj{emb(12, "degraded")},
		"updates":       []obj{{"id": 35, "state": "investigating", "content": "We are investigating login failures.", "created_at": c, "updated_at": c}},
		"component_ids": []int{12}, "impact_seconds": nil}
	assertJSON(t, "POST unplanned", got, incident)
	pub := admPublicNotice(t, srv, 304)
	admOpenImpact(t, pub, created)
	assertJSON(t, "public 304", pub, admPublic(incident))
	if s := compState(12); s != "degraded" {
		t.Errorf("component 12 is %v while incident 304 is investigating", s)
	}

	// A planned notice starts scheduled; it lists 20, which maintenance 200
	// holds under maintenance.
	begins := now.Add(72 * time.Hour)
	ends := begins.Add(2 * time.Hour)
	t0 = time.Now()
	got = srv.adminOK(http.MethodPost, "/notices", tok, fmt.Sprintf(`{"type": "planned", "subject": "Cache upgrade",
		"content": "We will upgrade the cache.", "component_ids": [20], "begins_at": %q, "ends_at": %q, "automate": true}`,
		admRFC(begins), admRFC(ends)), 201)
	writes++
	c = ts(admTime(t, got["created_at"], t0, time.Now()))
	planned := obj{"id": 305, "type": "planned", "timeline_state": "future", "state": "scheduled",
		"subject": "Cache upgrade", "url": "https://status.acme.test/notices/305",
		"began_at": nil, "ended_at": nil, "begins_at": ts(begins), "ends_at": ts(ends),
		"created_at": c, "updated_at": c, "tag_list": []string{}, "links": obj{"self": "/api/notices/305"},
		"components":    []obj{emb(20, m)},
		"updates":       []obj{{"id": 36, "state": "scheduled", "content": "We will upgrade the cache.", "created_at": c, "updated_at": c}},
		"component_ids": []int{20}, "automate": true}
	assertJSON(t, "POST planned", got, planned)
	assertJSON(t, "public 305", admPublicNotice(t, srv, 305), admPublic(planned))

	// A general notice has no state, in the notice as in its update.
	expires := now.Add(120 * time.Hour)
	t0 = time.Now()
	got = srv.adminOK(http.MethodPost, "/notices", tok, fmt.Sprintf(`{"type": "general", "subject": "New phone line",
		"content": "Call us.", "expires_at": %q}`, admRFC(expires)), 201)
	writes++
	c = ts(admTime(t, got["created_at"], t0, time.Now()))
	general := obj{"id": 306, "type": "general", "timeline_state": "present", "subject": "New phone line",
		"url": "https://status.acme.test/notices/306", "created_at": c, "updated_at": c, "tag_list": []string{},
		"links": obj{"self": "/api/notices/306"}, "components": []obj{},
		"updates":       []obj{{"id": 37, "content": "Call us.", "created_at": c, "updated_at": c}},
		"component_ids": []int{}, "expires_at": ts(expires)}
	assertJSON(t, "POST general", got, general)
	assertJSON(t, "public 306", admPublicNotice(t, srv, 306), admPublic(general))

	// Creation refusals.
	type refusal struct {
		body   string
		status int
		code   string
		in     []string
	}
	future := fmt.Sprintf(`"begins_at": %q, "ends_at": %q`, admRFC(begins), admRFC(ends))
	for _, c := range []refusal{
		{`{"type": "planned", "subject": "S", "content": "C"}`, 422, "invalid_field", []string{"begins_at"}},
		{fmt.Sprintf(`{"type": "planned", "subject": "S", "content": "C", "begins_at": %q}`, admRFC(begins)), 422, "invalid_field", []string{"ends_at"}},
		{fmt.Sprintf(`{"type": "planned", "subject": "S", "content": "C", "begins_at": %q, "ends_at": %q}`, admRFC(ends), admRFC(begins)), 422, "invalid_field", []string{"ends_at", "begins_at"}},
		{`{"type": "planned", "subject": "S", "content": "C", "begins_at": "tomorrow", "ends_at": "2030-01-01T00:00:00Z"}`, 422, "invalid_field", []string{"begins_at"}},
		{`{"type": "planned", "subject": "S", "content": "C", "expires_at": null, ` + future + `}`, 422, "invalid_field", []string{"expires_at"}},
		{`{"type": "planned", "subject": "S", "content": "C", "impact_seconds": 5, ` + future + `}`, 422, "invalid_field", []string{"impact_seconds"}},
		{`{"type": "unplanned", "subject": "S", "content": "C", ` + future + `}`, 422, "invalid_field", []string{"begins_at"}},
		{`{"type": "unplanned", "subject": "S", "content": "C", "automate": true}`, 422, "invalid_field", []string{"automate"}},
		{`{"type": "general", "subject": "S", "content": "C", "impact_seconds": 5}`, 422, "invalid_field", []string{"impact_seconds"}},
		{`{"type": "general", "subject": "S", "content": "C", "state": "investigating"}`, 422, "invalid_field", []string{"state"}},
		{`{"type": "unplanned", "subject": "S", "content": "C", "state": "scheduled"}`, 422, "invalid_field", []string{"state"}},
		{`{"type": "unplanned", "subject": "S", "content": "C", "state": "resolvd"}`, 422, "invalid_field", []string{"state"}},
		{`{"subject": "S", "content": "C"}`, 422, "invalid_field", []string{"type"}},
		{`{"type": "incident", "subject": "S", "content": "C"}`, 422, "invalid_field", []string{"type"}},
		{`{"type": "unplanned", "content": "C"}`, 422, "invalid_field", []string{"subject"}},
		{`{"type": "unplanned", "subject": "", "content": "C"}`, 422, "invalid_field", []string{"subject"}},
		{`{"type": "unplanned", "subject": 5, "content": "C"}`, 422, "invalid_field", []string{"subject"}},
		{`{"type": "unplanned", "subject": "S"}`, 422, "invalid_field", []string{"content"}},
		{`{"type": "unplanned", "subject": "S", "content": "C", "component_ids": [12, 999]}`, 422, "invalid_field", []string{"component_ids[1]"}},
		{`{"type": "unplanned", "subject": "S", "content": "C", "component_ids": ["api"]}`, 422, "invalid_field", []string{"component_ids"}},
		{`{"type": "unplanned", "subject": "S", "content": "C", "tag_list": "x"}`, 422, "invalid_field", []string{"tag_list"}},
		{`{"type": "unplanned", "subject": "S", "content": "C", "severity": "high"}`, 422, "invalid_field", []string{"severity"}},
		{`type=unplanned&subject=S`, 400, "invalid_body", nil},
		{`[{"type": "unplanned"}]`, 400, "invalid_body", nil},
	} {
		admRefuse(srv, tok, http.MethodPost, "/notices", c.body, c.status, c.code, c.in...)
	}

	// Edit subject, tags and components: embedded in position order (10
	// before 30); an incident that is investigating degrades both, over
	// 30's maintenance, and 12 is no longer listed.
	t0 = time.Now()
	got = srv.adminOK(http.MethodPatch, "/notices/304", tok,
		`{"subject": "Login failures for US users", "tag_list": ["auth", "us"], "component_ids": [30, 10]}`, 200)
	writes++
	c = ts(admTime(t, got["updated_at"], t0, time.Now()))
	admOpenImpact(t, got, created)
	incident["subject"], incident["tag_list"], incident["updated_at"] = "Login failures for US users", []string{"auth", "us"}, c
	incident["component_ids"] = []int{30, 10}
	incident["components"] = []obj{emb(10, "degraded"), emb(30, "degraded")}
	assertJSON(t, "PATCH 304", got, incident)
	pub = admPublicNotice(t, srv, 304)
	admOpenImpact(t, pub, created)
	assertJSON(t, "public 304 after PATCH", pub, admPublic(incident))
	for id, want := range map[float64]string{10: "degraded", 30: "degraded", 12: "operational"} {
		if s := compState(id); s != want {
			t.Errorf("component %v is %v, want %s", id, s, want)
		}
	}

	// impact_seconds overrides the impact, and null gives it back.
	got = srv.adminOK(http.MethodPatch, "/notices/304", tok, `{"impact_seconds": 120}`, 200)
	writes++
	if got["impact_seconds"] != float64(120) {
		t.Errorf("impact_seconds %v, want 120", got["impact_seconds"])
	}
	assertJSON(t, "impact_time with override", at(t, admPublicNotice(t, srv, 304), "impact_time"), obj{"seconds": 120, "words": "2 minutes"})
	got = srv.adminOK(http.MethodPatch, "/notices/304", tok, `{"impact_seconds": null}`, 200)
	writes++
	if v, ok := got["impact_seconds"]; !ok || v != nil {
		t.Errorf("impact_seconds %v (present %v), want null", v, ok)
	}
	admOpenImpact(t, admPublicNotice(t, srv, 304), created)

	// Reschedule the maintenance; drop the general notice's expiry.
	begins, ends = begins.Add(24*time.Hour), ends.Add(25*time.Hour)
	got = srv.adminOK(http.MethodPatch, "/notices/305", tok, fmt.Sprintf(`{"begins_at": %q, "ends_at": %q}`, admRFC(begins), admRFC(ends)), 200)
	writes++
	pub = admPublicNotice(t, srv, 305)
	if got["begins_at"] != ts(begins) || got["ends_at"] != ts(ends) || pub["begins_at"] != ts(begins) || pub["ends_at"] != ts(ends) {
		t.Errorf("rescheduled: admin %v-%v, public %v-%v, want %s-%s", got["begins_at"], got["ends_at"], pub["begins_at"], pub["ends_at"], ts(begins), ts(ends))
	}
	got = srv.adminOK(http.MethodPatch, "/notices/306", tok, `{"expires_at": null}`, 200)
	writes++
	if v, ok := got["expires_at"]; !ok || v != nil {
		t.Errorf("expires_at %v (present %v), want null", v, ok)
	}

	// Edit refusals.
	for _, c := range []struct {
		path, body string
		status     int
		code       string
		in         []string
	}{
		{"/notices/304", `{"state": "identified"}`, 422, "invalid_field", []string{"state", "updates"}},
		{"/notices/304", `{"content": "x"}`, 422, "invalid_field", []string{"content"}},
		{"/notices/304", `{"type": "planned"}`, 422, "invalid_field", []string{"type"}},
		{"/notices/304", `{"subject": ""}`, 422, "invalid_field", []string{"subject"}},
		{"/notices/304", `{"subject": 5}`, 422, "invalid_field", []string{"subject"}},
		{"/notices/304", `{"tag_list": ["ok", " "]}`, 422, "invalid_field", []string{"tag_list[1]"}},
		{"/notices/304", `{"component_ids": [999]}`, 422, "invalid_field", []string{"component_ids[0]"}},
		{"/notices/304", `{"component_ids": [10, 10]}`, 422, "invalid_field", []string{"component_ids[1]"}},
		{"/notices/304", `{"impact_seconds": -1}`, 422, "invalid_field", []string{"impact_seconds"}},
		{"/notices/304", `{"impact_seconds": "1h"}`, 422, "invalid_field", []string{"impact_seconds"}},
		{"/notices/304", `{"begins_at": "2030-01-01T00:00:00Z"}`, 422, "invalid_field", []string{"begins_at"}},
		{"/notices/304", `{"priority": 1}`, 422, "invalid_field", []string{"priority"}},
		{"/notices/304", `{"subject": "x"`, 400, "invalid_body", nil},
		{"/notices/305", fmt.Sprintf(`{"begins_at": %q, "ends_at": %q}`, admRFC(ends), admRFC(begins)), 422, "invalid_field", []string{"begins_at"}},
		{"/notices/305", fmt.Sprintf(`{"begins_at": %q}`, admRFC(ends.Add(time.Hour))), 422, "invalid_field", []string{"begins_at"}},
		{"/notices/305", `{"ends_at": null}`, 422, "invalid_field", []string{"ends_at"}},
		{"/notices/305", `{"impact_seconds": 5}`, 422, "invalid_field", []string{"impact_seconds"}},
		{"/notices/306", `{"automate": true}`, 422, "invalid_field", []string{"automate"}},
		{"/notices/999", `{"subject": "x"}`, 404, "not_found", []string{"999"}},
		// A path id that is not an integer is a bad parameter, as in the
		// public API (CONTRACT C2).
		{"/notices/abc", `{"subject": "x"}`, 400, "invalid_parameter", []string{"id"}},
	} {
		admRefuse(srv, tok, http.MethodPatch, c.path, c.body, c.status, c.code, c.in...)
	}

	// Updates: state optional (unchanged), ids increasing.
	type upd struct {
		state, content string
		at             time.Time
		id             float64
	}
	var ups []upd
	ups = append(ups, upd{"investigating", "We are investigating login failures.", created, 35})
	post := func(path, body string, state, content string) map[string]any {
		t.Helper()
		t0 := time.Now()
		got := srv.adminOK(http.MethodPost, path, tok, body, 201)
		writes++
		list := got["updates"].([]any)
		last := list[len(list)-1].(map[string]any)
		u := upd{state, content, admTime(t, last["created_at"], t0, time.Now()), last["id"].(float64)}
		if u.id <= ups[len(ups)-1].id {
			t.Errorf("%s: update id %v after %v", path, u.id, ups[len(ups)-1].id)
		}
		ups = append(ups, u)
		return got
	}
	// want is the public updates list of 304.
	checkUpdates := func(what string, n map[string]any) {
		t.Helper()
		var want []obj
		for _, u := range ups {
			want = append(want, obj{"id": u.id, "state": u.state, "content": u.content, "created_at": ts(u.at), "updated_at": ts(u.at)})
		}
		assertJSON(t, what, n["updates"], want)
	}
	got = post("/notices/304/updates", `{"content": "Still looking."}`, "investigating", "Still looking.")
	if got["state"] != "investigating" {
		t.Errorf("state %v after an update without state", got["state"])
	}
	post("/notices/304/updates", `{"content": "A bad certificate.", "state": "identified"}`, "identified", "A bad certificate.")
	got = post("/notices/304/updates", `{"content": "Fixed.", "state": "resolved"}`, "resolved", "Fixed.")
	pub = admPublicNotice(t, srv, 304)
	checkUpdates("public updates of 304", pub)
	checkUpdates("admin updates of 304", got)
	if pub["state"] != "resolved" || pub["timeline_state"] != "past_recent" || pub["ended_at"] != ts(ups[3].at) || pub["began_at"] != ts(created) {
		t.Errorf("resolved 304: state %v timeline %v began %v ended %v", pub["state"], pub["timeline_state"], pub["began_at"], pub["ended_at"])
	}
	// 30 is back under maintenance; 10 stays degraded, as its child 11 is
	// (incident 100, CONTRACT C3).
	for id, want := range map[float64]string{10: "degraded", 30: m} {
		if s := compState(id); s != want {
			t.Errorf("component %v is %v after 304 resolved, want %s", id, s, want)
		}
	}
	admRefuse(srv, tok, http.MethodPost, "/notices/304/updates", `{"content": "Again.", "state": "investigating"}`, 422, "invalid_transition", "reopen")
	admRefuse(srv, tok, http.MethodPost, "/notices/304/updates", `{"content": "Again.", "state": "identified"}`, 422, "invalid_transition", "reopen")
	admRefuse(srv, tok, http.MethodPost, "/notices/304/updates", `{"state": "resolved"}`, 422, "invalid_field", "content")
	admRefuse(srv, tok, http.MethodPost, "/notices/304/updates", `{"content": " "}`, 422, "invalid_field", "content")
	admRefuse(srv, tok, http.MethodPost, "/notices/304/updates", `{"content": "x", "state": "underway"}`, 422, "invalid_transition", "underway")
	admRefuse(srv, tok, http.MethodPost, "/notices/304/updates", `{"content": "x", "state": 3}`, 422, "invalid_field", "state")
	admRefuse(srv, tok, http.MethodPost, "/notices/304/updates", `{"content": "x", "tags": []}`, 422, "invalid_field", "tags")
	admRefuse(srv, tok, http.MethodPost, "/notices/202/updates", `{"content": "Again.", "state": "underway"}`, 422, "invalid_transition", "complete")
	admRefuse(srv, tok, http.MethodPost, "/notices/201/updates", `{"content": "Done.", "state": "complete"}`, 422, "invalid_transition", "scheduled")
	admRefuse(srv, tok, http.MethodPost, "/notices/300/updates", `{"content": "x", "state": "investigating"}`, 422, "invalid_transition", "state")
	admRefuse(srv, tok, http.MethodPost, "/notices/999/updates", `{"content": "x"}`, 404, "not_found", "999")

	// Reopen: back to investigating, open again.
	got = post("/notices/304/reopen", `{"content": "It is back."}`, "investigating", "It is back.")
	checkUpdates("updates after reopen", got)
	pub = admPublicNotice(t, srv, 304)
	checkUpdates("public updates after reopen", pub)
	if pub["state"] != "investigating" || pub["timeline_state"] != "present" || pub["ended_at"] != nil {
		t.Errorf("reopened 304: state %v timeline %v ended %v", pub["state"], pub["timeline_state"], pub["ended_at"])
	}
	admRefuse(srv, tok, http.MethodPost, "/notices/304/reopen", `{"content": "Twice."}`, 422, "invalid_transition", "investigating")
	admRefuse(srv, tok, http.MethodPost, "/notices/101/reopen", `{"content": "x", "state": "identified"}`, 422, "invalid_field", "state")
	admRefuse(srv, tok, http.MethodPost, "/notices/101/reopen", `{}`, 422, "invalid_field", "content")
	admRefuse(srv, tok, http.MethodPost, "/notices/202/reopen", `{"content": "x"}`, 422, "invalid_transition", "planned")
	admRefuse(srv, tok, http.MethodPost, "/notices/999/reopen", `{"content": "x"}`, 404, "not_found", "999")

	// An update of a general notice carries no state.
	srv.adminOK(http.MethodPost, "/notices/300/updates", tok, `{"content": "More news."}`, 201)
	writes++
	pub = admPublicNotice(t, srv, 300)
	list := pub["updates"].([]any)
	if len(list) != 2 {
		t.Fatalf("notice 300 has %d updates, want 2", len(list))
	}
	last := list[1].(map[string]any)
	if _, ok := last["state"]; ok || last["content"] != "More news." || last["id"].(float64) <= ups[len(ups)-1].id {
		t.Errorf("general update %v", last)
	}
	if _, ok := pub["state"]; ok {
		t.Errorf("general notice has a state: %v", pub["state"])
	}

	// Delete: 204, then gone from both APIs.
	srv.adminOK(http.MethodDelete, "/notices/305", tok, "", 204)
	writes++
	assertErrorBody(t, "public 305 after delete", srv.do(http.MethodGet, "/api/v1/notices/305"), 404, "not_found")
	admRefuse(srv, tok, http.MethodGet, "/notices/305", "", 404, "not_found", "305")
	admRefuse(srv, tok, http.MethodDelete, "/notices/305", "", 404, "not_found", "305")

	// The admin list: newest first, 15 + 3 - 1 notices.
	lst := srv.adminOK(http.MethodGet, "/notices", tok, "", 200)
	assertJSON(t, "admin list meta", lst["meta"], obj{"count": 17, "total_count": 17, "next_page": nil})
	var first []any
	for _, n := range lst["notices"].([]any)[:3] {
		first = append(first, n.(map[string]any)["id"])
	}
	assertJSON(t, "admin list order", first, []int{306, 304, 100})
	if n := at(t, srv.get("/api/v1/notices", 200).JSON, "meta.total_count"); n != float64(17) {
		t.Errorf("public total_count %v, want 17", n)
	}
	if n := srv.auditTotal(tok) - audit0; n != float64(writes) {
		t.Errorf("audit has %v new entries after %d writes", n, writes)
	}
}

// TestAdminRefusals covers the refusals common to every endpoint:
// authentication, bodies, sizes, methods, paths.
func TestAdminRefusals(t *testing.T) {
	now := time.Now().UTC().Truncate(time.Second)
	srv := startServer(t, fixture(now))
	tok := newToken(t, srv.DB, "ops")

	// Missing and wrong token: the same answer, and nothing written.
	noToken := admRefuseAs(srv, tok, "", http.MethodPatch, "/page", `{"name": "Hacked"}`, 401, "unauthorized")
	wrong := admRefuseAs(srv, tok, "sdt_wrong", http.MethodPatch, "/page", `{"name": "Hacked"}`, 401, "unauthorized")
	if string(noToken.Body) != string(wrong.Body) {
		t.Errorf("missing and wrong token answer differently:\n%s\n%s", noToken.Body, wrong.Body)
	}
	if noToken.Header.Get("WWW-Authenticate") == "" || wrong.Header.Get("WWW-Authenticate") == "" {
		t.Errorf("401 without WWW-Authenticate")
	}
	r := srv.admin(http.MethodGet, admPrefix+"/page", "", "")
	assertError(t, "GET without token", r, 401, "unauthorized")
	if string(r.Body) != string(noToken.Body) {
		t.Errorf("GET and PATCH without token answer differently:\n%s\n%s", r.Body, noToken.Body)
	}
	admRefuseAs(srv, tok, tok+"x", http.MethodPost, "/notices", `{"type": "general", "subject": "S", "content": "C"}`, 401, "unauthorized")

	// Bodies.
	admRefuse(srv, tok, http.MethodPatch, "/page", `not JSON`, 400, "invalid_body")
	admRefuse(srv, tok, http.MethodPatch, "/page", `{"name": "A"} {"name": "B"}`, 400, "invalid_body")
	admRefuse(srv, tok, http.MethodPatch, "/page", `"Acme"`, 400, "invalid_body")
	admRefuse(srv, tok, http.MethodPatch, "/page", ``, 400, "invalid_body")
	admRefuse(srv, tok, http.MethodPatch, "/page", `{"name": "A",}`, 400, "invalid_body")
	// Over 1 MiB, though valid JSON.
	big := `{"name": "` + strings.Repeat("a", 1<<20) + `"}`
	admRefuse(srv, tok, http.MethodPatch, "/page", big, 413, "too_large")
	admRefuse(srv, tok, http.MethodPost, "/notices", `{"type": "general", "subject": "S", "content": "`+strings.Repeat("b", 1<<20)+`"}`, 413, "too_large")
	// Just under 1 MiB is read (and refused for what it says, not its size).
	under := `{"name": "` + strings.Repeat("a", 1<<20-30) + `", "x": 1}`
	admRefuse(srv, tok, http.MethodPatch, "/page", under, 422, "invalid_field", "x")

	// Methods: 405 with Allow.
	for _, c := range []struct{ method, path, allow string }{
		{http.MethodPut, "/page", "GET, PATCH"},
		{http.MethodDelete, "/page", "GET, PATCH"},
		{http.MethodPut, "/components/10", "GET, PATCH, DELETE"},
		{http.MethodDelete, "/notices", "GET, POST"},
		{http.MethodGet, "/notices/100/reopen", "POST"},
		{http.MethodPost, "/audit", "GET"},
	} {
		r := admRefuse(srv, tok, c.method, c.path, "", 405, "method_not_allowed")
		if got := r.Header.Get("Allow"); got != c.allow {
			t.Errorf("%s %s: Allow %q, want %q", c.method, c.path, got, c.allow)
		}
	}

	// Unknown paths and ids.
	for _, p := range []string{"/nothing", "/components/999", "/notices/999", "/notices/99999999999999999999"} {
		admRefuse(srv, tok, http.MethodGet, p, "", 404, "not_found")
	}
	// A path id that is not an integer is a bad parameter, as in the public
	// API (CONTRACT C2).
	admRefuse(srv, tok, http.MethodGet, "/components/abc", "", 400, "invalid_parameter", "id")
	admRefuse(srv, tok, http.MethodDelete, "/notices/1x", "", 400, "invalid_parameter", "id")
	admRefuse(srv, tok, http.MethodPost, "/notices/1x/updates", `{"content": "x"}`, 400, "invalid_parameter", "id")
	r = srv.admin(http.MethodGet, "/admin/api/v2/page", tok, "")
	assertError(t, "GET /admin/api/v2/page", r, 404, "not_found")

	// The token still works after all this.
	srv.adminOK(http.MethodGet, "/page", tok, "", 200)
}

// admRefuseAs is admRefuse with another token for the refused request
// (auditor reads the audit log).
func admRefuseAs(srv *testServer, auditor, token, method, path, body string, status int, code string) response {
	t := srv.t
	t.Helper()
	before := export(t, srv.DB)
	audit := srv.auditTotal(auditor)
	r := srv.admin(method, admPrefix+path, token, body)
	assertError(t, fmt.Sprintf("%s %s with token %q", method, path, token), r, status, code)
	if after := export(t, srv.DB); after != before {
		t.Errorf("%s %s: a refused request changed the page", method, path)
	}
	if got := srv.auditTotal(auditor); got != audit {
		t.Errorf("%s %s: a refused request wrote an audit entry", method, path)
	}
	return r
}

// TestAdminTokens: tokens created while the server runs work at once,
// revoked ones stop at once, and the audit log names each write's token.
func TestAdminTokens(t *testing.T) {
	now := time.Now().UTC().Truncate(time.Second)
	srv := startServer(t, fixture(now))
	ops := newToken(t, srv.DB, "ops")
	srv.adminOK(http.MethodGet, "/page", ops, "", 200)
	audit0 := srv.auditTotal(ops)
	ci := newToken(t, srv.DB, "ci")
	if ci == ops {
		t.Fatal("two tokens are the same")
	}
	srv.adminOK(http.MethodPatch, "/page", ci, `{"name": "By CI"}`, 200)
	out, stderr, err := cli(t, "", "token", "list", "--db", srv.DB)
	if err != nil || !strings.Contains(out, "ops") || !strings.Contains(out, "ci") {
		t.Errorf("token list: %v\n%s%s", err, out, stderr)
	}
	if _, stderr, err := cli(t, "", "token", "create", "--db", srv.DB, "--name", "ops"); err == nil {
		t.Errorf("a second token named ops was created\n%s", stderr)
	}
	if _, stderr, err := cli(t, "", "token", "revoke", "--db", srv.DB, "ops"); err != nil {
		t.Fatalf("token revoke: %v\n%s", err, stderr)
	}
	admRefuseAs(srv, ci, ops, http.MethodPatch, "/page", `{"name": "By ops"}`, 401, "unauthorized")
	r := srv.admin(http.MethodGet, admPrefix+"/page", ops, "")
	assertError(t, "GET with a revoked token", r, 401, "unauthorized")
	srv.adminOK(http.MethodGet, "/page", ci, "", 200)
	a := srv.adminOK(http.MethodGet, "/audit", ci, "", 200)
	if at(t, a, "audit.0.actor") != "ci" || at(t, a, "audit.0.action") != "page.update" || at(t, a, "meta.total_count") != audit0+1 {
		t.Errorf("audit %v", a)
	}
}

// TestAdminAudit: one entry per write, newest first, with the token's name;
// paginated by 25; statusd audit prints them.
func TestAdminAudit(t *testing.T) {
	now := time.Now().UTC().Truncate(time.Second)
	srv := startServer(t, fixture(now))
	tok := newToken(t, srv.DB, "ops")
	audit0 := int(srv.auditTotal(tok)) // entries written before (an import may write one)
	type entry struct{ action, target string }
	var writes []entry
	t0 := time.Now()
	srv.adminOK(http.MethodPatch, "/page", tok, `{"name": "Audited"}`, 200)
	writes = append(writes, entry{"page.update", "page"})
	srv.adminOK(http.MethodPost, "/components", tok, `{"name": "CDN"}`, 201)
	writes = append(writes, entry{"component.create", "component 32"})
	srv.adminOK(http.MethodPatch, "/components/32", tok, `{"name": "Edge"}`, 200)
	writes = append(writes, entry{"component.update", "component 32"})
	srv.adminOK(http.MethodPost, "/notices", tok, `{"type": "unplanned", "subject": "Down", "content": "Looking."}`, 201)
	writes = append(writes, entry{"notice.create", "notice 304"})
	srv.adminOK(http.MethodPatch, "/notices/304", tok, `{"subject": "Down hard"}`, 200)
	writes = append(writes, entry{"notice.update", "notice 304"})
	srv.adminOK(http.MethodPost, "/notices/304/updates", tok, `{"content": "Fixed.", "state": "resolved"}`, 201)
	writes = append(writes, entry{"notice.post_update", "notice 304"})
	srv.adminOK(http.MethodPost, "/notices/304/reopen", tok, `{"content": "Back."}`, 201)
	writes = append(writes, entry{"notice.reopen", "notice 304"})
	srv.adminOK(http.MethodDelete, "/notices/304", tok, "", 204)
	writes = append(writes, entry{"notice.delete", "notice 304"})
	srv.adminOK(http.MethodDelete, "/components/32", tok, "", 204)
	writes = append(writes, entry{"component.delete", "component 32"})
	// Refused writes and reads are not recorded.
	srv.admin(http.MethodPatch, admPrefix+"/page", tok, `{"name": ""}`)
	srv.admin(http.MethodGet, admPrefix+"/notices", tok, "")
	t1 := time.Now()

	a := srv.adminOK(http.MethodGet, "/audit", tok, "", 200)
	n := audit0 + len(writes)
	assertJSON(t, "audit meta", a["meta"], obj{"count": n, "total_count": n, "next_page": nil})
	list := a["audit"].([]any)
	if len(list) != n {
		t.Fatalf("audit has %d entries, want %d", len(list), n)
	}
	var prev map[string]any
	for i, x := range list[:len(writes)] {
		e := x.(map[string]any)
		w := writes[len(writes)-1-i]
		if e["actor"] != "ops" || e["action"] != w.action || e["target"] != w.target {
			t.Errorf("audit[%d] = %v, want ops %s %s", i, e, w.action, w.target)
		}
		at := admTime(t, e["at"], t0, t1)
		if prev != nil {
			if e["id"].(float64) >= prev["id"].(float64) || at.After(admTime(t, prev["at"], t0, t1)) {
				t.Errorf("audit not newest first: %v after %v", e, prev)
			}
		}
		prev = e
	}

	// statusd audit prints the same, newest first.
	out, stderr, err := cli(t, "", "audit", "--db", srv.DB)
	if err != nil {
		t.Fatalf("audit: %v\n%s", err, stderr)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != n+1 || !strings.HasPrefix(lines[0], "TIME") {
		t.Fatalf("statusd audit printed %d lines, want a header and %d entries:\n%s", len(lines), n, out)
	}
	for i, line := range lines[1 : 1+len(writes)] {
		w := writes[len(writes)-1-i]
		if !strings.Contains(line, " ops ") || !strings.Contains(line, w.action) || !strings.Contains(line, w.target) {
			t.Errorf("statusd audit line %d %q, want ops %s %s", i+1, line, w.action, w.target)
		}
	}

	// 25 a page: 26 entries make two pages, the second holding the oldest.
	for i := n; i < 26; i++ {
		srv.adminOK(http.MethodPatch, "/page", tok, fmt.Sprintf(`{"name": "Audited %d"}`, i), 200)
	}
	a = srv.adminOK(http.MethodGet, "/audit", tok, "", 200)
	assertJSON(t, "audit page 1 meta", a["meta"], obj{"count": 25, "total_count": 26, "next_page": "/admin/api/v1/audit?page=2"})
	first := a["audit"].([]any)[0].(map[string]any)["id"].(float64)
	a = srv.adminOK(http.MethodGet, "/audit?page=2", tok, "", 200)
	assertJSON(t, "audit page 2 meta", a["meta"], obj{"count": 1, "total_count": 26, "next_page": nil})
	if id := at(t, a, "audit.0.id").(float64); id >= first-24 {
		t.Errorf("page 2 holds entry %v, want one older than page 1's (from %v down)", id, first)
	}
	admRefuse(srv, tok, http.MethodGet, "/audit?page=0", "", 400, "invalid_parameter", "page")
}

// TestAdminAuthRateLimit: ten wrong tokens in a row, then 429 with
// Retry-After.
func TestAdminAuthRateLimit(t *testing.T) {
	now := time.Now().UTC().Truncate(time.Second)
	srv := startServer(t, fixture(now))
	tok := newToken(t, srv.DB, "ops")
	srv.adminOK(http.MethodGet, "/page", tok, "", 200)
	for i := 0; i < 10; i++ {
		r := srv.admin(http.MethodGet, admPrefix+"/page", fmt.Sprintf("sdt_wrong%d", i), "")
		assertError(t, fmt.Sprintf("wrong token %d", i+1), r, 401, "unauthorized")
	}
	r := srv.admin(http.MethodGet, admPrefix+"/page", "sdt_wrong", "")
	assertError(t, "11th wrong token", r, 429, "rate_limited")
	if ra := r.Header.Get("Retry-After"); !regexp.MustCompile(`^[1-9][0-9]*$`).MatchString(ra) {
		t.Errorf("Retry-After %q, want whole seconds >= 1", ra)
	}
	// Failed authentication is limited; the public API is not affected.
	srv.get("/api/v1/status", 200)
}

// TestAdminSeparateListener: with --admin-addr the admin API answers on its
// own listener only.
func TestAdminSeparateListener(t *testing.T) {
	now := time.Now().UTC().Truncate(time.Second)
	srv := startServer(t, fixture(now), "--admin-addr", "127.0.0.1:0")
	adminURL := srv.AdminURL
	if adminURL == "" || adminURL == srv.URL {
		t.Fatalf("admin listener %q (public %s)\n%s", adminURL, srv.URL, srv.logs)
	}
	tok := newToken(t, srv.DB, "ops")
	ctx := context.Background()

	t.Run("the admin listener serves the admin API", func(t *testing.T) {
		page, err := srv.Admin(tok).Page(ctx)
		if err != nil || page.Name != "Acme Status" {
			t.Fatalf("admin listener GET /page: %+v %v", page, err)
		}
		if _, err := srv.Admin(tok).UpdatePage(ctx, statusd.AdminPageRequest{Name: ptr("Split Status")}); err != nil {
			t.Fatalf("admin listener PATCH /page: %v", err)
		}
	})
	t.Run("the public listener shows the write, but has no admin API", func(t *testing.T) {
		if st, err := srv.API.Status(ctx); err != nil || st.Name != "Split Status" {
			t.Errorf("public name %+v (%v) after the admin write", st, err)
		}
		before := export(t, srv.DB)
		r := fetch(t, http.MethodGet, srv.URL+admPrefix+"/page", "", bearer(tok)...)
		if r.Status != 404 {
			t.Errorf("public listener GET /admin/api/v1/page: status %d, want 404\n%s", r.Status, r.Body)
		}
		r = fetch(t, http.MethodPatch, srv.URL+admPrefix+"/page", `{"name": "Via public"}`, bearer(tok)...)
		if r.Status != 404 {
			t.Errorf("public listener PATCH /admin/api/v1/page: status %d, want 404\n%s", r.Status, r.Body)
		}
		if after := export(t, srv.DB); after != before {
			t.Errorf("a write through the public listener changed the page")
		}
	})
	t.Run("the admin listener does not serve the public API", func(t *testing.T) {
		r := fetch(t, http.MethodGet, adminURL+"/api/v1/status", "")
		if r.Status != 404 {
			t.Errorf("admin listener GET /api/v1/status: status %d, want 404", r.Status)
		}
	})
	t.Run("errors are JSON under /admin/ and /api/", func(t *testing.T) {
		r := fetch(t, http.MethodGet, srv.URL+admPrefix+"/page", "", bearer(tok)...)
		r2 := fetch(t, http.MethodGet, adminURL+"/api/v1/status", "")
		assertError(t, "public listener /admin/", r, 404, "not_found")
		assertError(t, "admin listener /api/", r2, 404, "not_found")
	})
}

// TestAdminTooLargeTrailingSpace: a body over 1 MiB is 413 whatever it
// holds, here one small JSON object followed by more than 1 MiB of
// whitespace (still one JSON value).
func TestAdminTooLargeTrailingSpace(t *testing.T) {
	now := time.Now().UTC().Truncate(time.Second)
	srv := startServer(t, fixture(now))
	tok := newToken(t, srv.DB, "ops")
	body := `{"name": "Big"}` + strings.Repeat(" ", 1<<20)
	before := export(t, srv.DB)
	r := srv.admin(http.MethodPatch, admPrefix+"/page", tok, body)
	if after := export(t, srv.DB); after != before {
		t.Errorf("a refused request changed the page")
	}
	assertError(t, "object and 1 MiB of spaces", r, 413, "too_large")
}
