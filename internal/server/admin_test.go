package server_test

import (
	"context"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/client"
	"github.com/statusd/statusd/internal/testserver"
)

// Black-box tests of the admin API (CONTRACT C6) through the real
// server: every operation, every refusal, and that a refused write changed
// nothing. Expected values are worked out by hand from the fixture
// (testserver.Fixture, fixtureWant) and the rules; comments give the
// reasoning. Every helper here starts with adm.

// admOpenImpact checks the impact of an incident that is still open and
// began at began (up to now). It returns the notice n, an answer of the SDK
// or of the wire, as JSON with the impact replaced by a placeholder, to
// compare with a want.
func admOpenImpact(t *testing.T, n any, began time.Time) map[string]any {
	t.Helper()
	m := testserver.Normalize(t, n).(map[string]any)
	it, ok := m["impact_time"].(map[string]any)
	if !ok {
		t.Errorf("notice %v: impact_time %v", m["id"], m["impact_time"])
		return m
	}
	secs, _ := it["seconds"].(float64)
	if secs < 0 || secs > time.Since(began).Seconds()+1 {
		t.Errorf("notice %v: impact_time %v, want the seconds since %s", m["id"], it, testserver.TS(began))
	}
	m["impact_time"] = testserver.Obj{"seconds": -1, "words": ""}
	return m
}

// admPublic drops the admin-only keys of an admin notice, giving what the
// public detail must show.
func admPublic(n map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range n {
		switch k {
		case "component_ids", "automate", "expires_at", "impact_seconds", "impact":
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
	srv := startServer(t, testserver.Fixture(now), options{})
	tok := newToken(t, srv.DB, "ops")
	adm, ctx := srv.Admin(tok), context.Background()
	audit0 := srv.AuditTotal(tok) // entries written before (an import may write one)

	// Incident 100 is identified: degraded (SPEC §3); default texts (C2);
	// updated_at is the latest change, 100's and 200's last updates.
	page := testserver.Obj{
		"name": "Acme Status", "state": "degraded", "state_text": "Some systems are degraded",
		"url": "https://status.acme.test",
		"links": testserver.Obj{
			"self":       "/api/v1",
			"components": testserver.Obj{"href": "/v1/components", "count": 6},
			"notices":    testserver.Obj{"href": "/v1/notices", "count": 15},
		},
		"created_at": "2026-01-01T00:00:00.000Z", "updated_at": testserver.TS(now.Add(-time.Hour)),
		"state_texts": testserver.Obj{"operational": "All systems operational", "degraded": "Some systems are degraded",
			"under_maintenance": "Maintenance is underway"},
	}

	testserver.Step(t, "GET /page answers the page and its state texts, exactly, never cached", func(t *testing.T) {
		r := srv.In(t).Authed(http.MethodGet, testserver.AdminRoot+"/page", tok, "")
		if r.Status != 200 || r.Header.Get("Cache-Control") != "no-store" {
			t.Errorf("GET /page: status %d, Cache-Control %q", r.Status, r.Header.Get("Cache-Control"))
		}
		testserver.AssertJSON(t, "GET /page", r.JSON, page)
	})

	testserver.Step(t, "PATCH /page changes the name, url and a text, and the next public request shows them", func(t *testing.T) {
		srv := srv.In(t)
		t0 := time.Now()
		got, err := adm.UpdatePage(ctx, statusd.AdminPageRequest{Name: testserver.Ptr("Acme Cloud Status"), URL: testserver.Ptr("https://status.acme.example"),
			StateTexts: &statusd.AdminStateTextsRequest{Degraded: testserver.Ptr("We are on it")}})
		testserver.NoErr(t, "PATCH /page", err)
		testserver.Within(t, "updated_at", got.UpdatedAt.Time, t0, time.Now())
		page["name"], page["url"], page["state_text"], page["updated_at"] = "Acme Cloud Status", "https://status.acme.example", "We are on it", testserver.TS(got.UpdatedAt.Time)
		page["state_texts"].(testserver.Obj)["degraded"] = "We are on it"
		testserver.AssertJSON(t, "PATCH /page", got, page)

		public := testserver.Obj{}
		for k, v := range page {
			if k != "state_texts" {
				public[k] = v
			}
		}
		testserver.AssertJSON(t, "public status", srv.Status(), public)
		if u := srv.Notice(100).URL; u != "https://status.acme.example/notices/100" {
			t.Errorf("notice url %v after the page url changed", u)
		}
	})

	testserver.Step(t, "PATCH /page changes only the texts sent", func(t *testing.T) {
		t0 := time.Now()
		got, err := adm.UpdatePage(ctx, statusd.AdminPageRequest{StateTexts: &statusd.AdminStateTextsRequest{
			Operational: testserver.Ptr("All good"), UnderMaintenance: testserver.Ptr("Planned work")}})
		testserver.NoErr(t, "PATCH /page", err)
		testserver.Within(t, "updated_at", got.UpdatedAt.Time, t0, time.Now())
		page["updated_at"] = testserver.TS(got.UpdatedAt.Time)
		page["state_texts"] = testserver.Obj{"operational": "All good", "degraded": "We are on it", "under_maintenance": "Planned work"}
		testserver.AssertJSON(t, "PATCH /page texts", got, page)
		again, err := adm.Page(ctx)
		testserver.NoErr(t, "GET /page", err)
		testserver.AssertJSON(t, "GET /page", again, page)
	})

	testserver.Step(t, "refused changes change nothing", func(t *testing.T) {
		srv := srv.In(t)
		srv.Refuse(tok, http.MethodPatch, "/page", `{"name": ""}`, 422, "invalid_field", "name")
		srv.Refuse(tok, http.MethodPatch, "/page", `{"url": "status.acme.test"}`, 422, "invalid_field", "url")
		srv.Refuse(tok, http.MethodPatch, "/page", `{"name": 5}`, 422, "invalid_field", "name")
		srv.Refuse(tok, http.MethodPatch, "/page", `{"title": "x"}`, 422, "invalid_field", "title")
		srv.Refuse(tok, http.MethodPatch, "/page", `{"state_texts": {"down": "x"}}`, 422, "invalid_field", "down")
	})

	testserver.Step(t, "each write has one audit entry", func(t *testing.T) {
		if n := srv.In(t).AuditTotal(tok) - audit0; n != 2 {
			t.Errorf("audit has %v new entries after two page writes", n)
		}
	})
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
func (c *admComponentsTest) want(rows ...admRow) testserver.Obj {
	list := []testserver.Obj{}
	for i, r := range rows {
		o := componentWant("a", r.id, c.state[r.id], c.name[r.id], c.desc[r.id], r.parent, i+1, r.children, c.metrics[r.id], c.now)
		if s, ok := c.stamps[r.id]; ok {
			created, updated, _ := strings.Cut(s, " ")
			o["created_at"], o["updated_at"] = created, updated
		}
		list = append(list, o)
	}
	return testserver.Obj{"components": list, "meta": testserver.Obj{"count": len(list), "total_count": len(list), "next_page": nil}}
}

// check compares the public list, through the SDK, with the rows.
func (c *admComponentsTest) check(t *testing.T, srv *testserver.Server, what string, rows ...admRow) {
	t.Helper()
	got := testserver.Normalize(t, srv.In(t).Components()).(map[string]any)
	checkSummaries(t, "a", got["components"].([]any))
	testserver.AssertJSON(t, what, got, c.want(rows...))
}

// updated records the updated_at of component id, answered to a write
// sent at t0 or later.
func (c *admComponentsTest) updated(t *testing.T, id int64, got *statusd.AdminComponent, t0 time.Time) {
	t.Helper()
	testserver.Within(t, fmt.Sprintf("component %d updated_at", id), got.UpdatedAt.Time, t0, time.Now())
	created, _, _ := strings.Cut(c.stamps[id], " ")
	if created == "" {
		created = testserver.TS(testserver.PageCreated)
	}
	c.stamps[id] = created + " " + testserver.TS(got.UpdatedAt.Time)
}

func TestAdminComponents(t *testing.T) {
	now := time.Now().UTC().Truncate(time.Second)
	srv := startServer(t, testserver.Fixture(now), options{})
	tok := newToken(t, srv.DB, "ops")
	adm, ctx := srv.Admin(tok), context.Background()
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
	audit0 := srv.AuditTotal(tok)
	// create adds a component with r and returns it with its created_at.
	create := func(t *testing.T, r statusd.AdminComponentRequest) (*statusd.AdminComponent, string) {
		t.Helper()
		t0 := time.Now()
		got, err := adm.CreateComponent(ctx, r)
		testserver.NoErr(t, "POST /components", err)
		writes++
		testserver.Within(t, "created_at", got.CreatedAt.Time, t0, time.Now())
		return got, testserver.TS(got.CreatedAt.Time)
	}
	// edit changes component id with r, a write sent at t0 or later, and
	// records its updated_at.
	edit := func(t *testing.T, id int64, r statusd.AdminComponentRequest, t0 time.Time) *statusd.AdminComponent {
		t.Helper()
		got, err := adm.UpdateComponent(ctx, id, r)
		testserver.NoErr(t, fmt.Sprintf("PATCH /components/%d", id), err)
		writes++
		c.updated(t, id, got, t0)
		return got
	}

	testserver.Step(t, "the admin list is the public fields plus key and metrics_enabled, exactly", func(t *testing.T) {
		list := srv.In(t).AdminOK(http.MethodGet, "/components", tok, "", 200)
		comps := testserver.At(t, list, "components").([]any)
		checkSummaries(t, "a", comps)
		wantList := c.want(admRow{20, nil, 0}, admRow{10, nil, 2}, admRow{12, 10, 0}, admRow{11, 10, 0}, admRow{30, nil, 1}, admRow{31, 30, 0})["components"].([]testserver.Obj)
		for _, o := range wantList {
			o["metrics_enabled"], o["key"] = c.metrics[o["id"].(int64)], nil // the fixture's components have no key
		}
		testserver.AssertJSON(t, "GET /components", list, testserver.Obj{"components": wantList})
		one, err := adm.Component(ctx, 12)
		testserver.NoErr(t, "GET /components/12", err)
		testserver.AssertJSON(t, "GET /components/12", one, wantList[2])
	})

	testserver.Step(t, "a component created at position 2 moves the others after it down one", func(t *testing.T) {
		// The new id is 32 (after 31).
		got, stamp := create(t, statusd.AdminComponentRequest{Name: testserver.Ptr("CDN"), Description: testserver.Ptr("Edge network"), Position: testserver.Ptr(2)})
		c.state[32], c.name[32], c.desc[32], c.stamps[32] = "operational", "CDN", "Edge network", stamp+" "+stamp
		want := c.want(admRow{20, nil, 0}, admRow{32, nil, 0})["components"].([]testserver.Obj)[1]
		want["metrics_enabled"], want["key"] = false, nil
		testserver.AssertJSON(t, "POST /components", got, want)
		c.check(t, srv, "after create at 2",
			admRow{20, nil, 0}, admRow{32, nil, 0}, admRow{10, nil, 2}, admRow{12, 10, 0}, admRow{11, 10, 0}, admRow{30, nil, 1}, admRow{31, 30, 0})
	})

	testserver.Step(t, "a component created without a position goes last", func(t *testing.T) {
		// 30's subtree is last, so after it too. Under 30, with metrics.
		got, stamp := create(t, statusd.AdminComponentRequest{Name: testserver.Ptr("Status DB"), ParentID: statusd.Some[int64](30), MetricsEnabled: testserver.Ptr(true)})
		c.state[33], c.name[33], c.desc[33], c.metrics[33], c.stamps[33] = "operational", "Status DB", "", true, stamp+" "+stamp
		if got.ID != 33 || got.Position != 8 || got.ParentID == nil || *got.ParentID != 30 || !got.MetricsEnabled {
			t.Errorf("POST /components without position: %+v", got)
		}
		c.check(t, srv, "after create last",
			admRow{20, nil, 0}, admRow{32, nil, 0}, admRow{10, nil, 2}, admRow{12, 10, 0}, admRow{11, 10, 0}, admRow{30, nil, 2}, admRow{31, 30, 0}, admRow{33, 30, 0})
	})

	testserver.Step(t, "a rename, and Metrics on and off (metrics_summary an object, then null)", func(t *testing.T) {
		t0 := time.Now()
		c.name[32] = "Edge CDN"
		edit(t, 32, statusd.AdminComponentRequest{Name: testserver.Ptr("Edge CDN")}, t0)
		c.metrics[20] = true
		if got := edit(t, 20, statusd.AdminComponentRequest{MetricsEnabled: testserver.Ptr(true)}, t0); !got.MetricsEnabled {
			t.Errorf("metrics on: %+v", got)
		}
		c.check(t, srv, "after rename and metrics on",
			admRow{20, nil, 0}, admRow{32, nil, 0}, admRow{10, nil, 2}, admRow{12, 10, 0}, admRow{11, 10, 0}, admRow{30, nil, 2}, admRow{31, 30, 0}, admRow{33, 30, 0})
		c.metrics[20] = false
		edit(t, 20, statusd.AdminComponentRequest{MetricsEnabled: testserver.Ptr(false)}, time.Now())
		c.check(t, srv, "after metrics off",
			admRow{20, nil, 0}, admRow{32, nil, 0}, admRow{10, nil, 2}, admRow{12, 10, 0}, admRow{11, 10, 0}, admRow{30, nil, 2}, admRow{31, 30, 0}, admRow{33, 30, 0})
	})

	testserver.Step(t, "keys: set, kept, refused when taken or malformed, cleared by null and by \"\"; never public", func(t *testing.T) {
		srv := srv.In(t)
		rows := []admRow{{20, nil, 0}, {32, nil, 0}, {10, nil, 2}, {12, 10, 0}, {11, 10, 0}, {30, nil, 2}, {31, 30, 0}, {33, 30, 0}}
		key := func(what string, got *statusd.AdminComponent, want string) {
			t.Helper()
			// No key is null, never "".
			if (got.Key == nil) != (want == "") || got.Key != nil && *got.Key != want {
				t.Errorf("%s: key %v, want %q (\"\": null)", what, got.Key, want)
			}
		}
		key("PATCH 32 key cdn", edit(t, 32, statusd.AdminComponentRequest{Key: statusd.Some("cdn")}, time.Now()), "cdn")
		// The public list is as before: check compares it exactly, and it
		// has no key.
		c.check(t, srv, "after a key", rows...)
		got, err := adm.Component(ctx, 32)
		testserver.NoErr(t, "GET /components/32", err)
		key("GET /components/32", got, "cdn")
		srv.Refuse(tok, http.MethodPatch, "/components/20", `{"key": "cdn"}`, 422, "invalid_field", `key: "cdn" is the key of component 32`)
		srv.Refuse(tok, http.MethodPost, "/components", `{"name": "X", "key": "cdn"}`, 422, "invalid_field", `key: "cdn" is the key of component 32`)
		// Upper case, a leading '-', digits only (an id), a '.', 65
		// characters; a number is not a string.
		for _, bad := range []string{"CDN", "-cdn", "123", "a.b", strings.Repeat("k", 65)} {
			srv.Refuse(tok, http.MethodPatch, "/components/20", `{"key": "`+bad+`"}`, 422, "invalid_field", `key: "`+bad+`" is not a key`)
		}
		srv.Refuse(tok, http.MethodPatch, "/components/20", `{"key": 7}`, 422, "invalid_field", "key")
		// Several problems are named at once.
		srv.Refuse(tok, http.MethodPatch, "/components/20", `{"key": "cdn", "position": 99}`, 422, "invalid_field", "key: ", "position: ")
		srv.Refuse(tok, http.MethodPost, "/components", `{"key": "Cdn"}`, 422, "invalid_field", "name: is required", `key: "Cdn" is not a key`)
		// 64 characters, digits first and '-' and '_' inside are a key;
		// a component keeps its own key through another change.
		long := "9" + strings.Repeat("a-_", 21)
		key("PATCH 20 a 64-character key", edit(t, 20, statusd.AdminComponentRequest{Key: statusd.Some(long)}, time.Now()), long)
		c.name[32] = "CDN"
		key("PATCH 32 its own key and a name", edit(t, 32, statusd.AdminComponentRequest{Name: testserver.Ptr("CDN"), Key: statusd.Some("cdn")}, time.Now()), "cdn")
		key("PATCH 32 key null", edit(t, 32, statusd.AdminComponentRequest{Key: statusd.Null[string]()}, time.Now()), "")
		key("PATCH 20 key \"\"", edit(t, 20, statusd.AdminComponentRequest{Key: statusd.Some("")}, time.Now()), "")
		// Once cleared, a key is free: 20 takes cdn.
		key("PATCH 20 key cdn", edit(t, 20, statusd.AdminComponentRequest{Key: statusd.Some("cdn")}, time.Now()), "cdn")
		c.check(t, srv, "after the keys", rows...)
	})

	testserver.Step(t, "a move under a parent, and back to the top", func(t *testing.T) {
		// Move 32 under 10 at position 5: without it the order is 20 10 12
		// 11 30 31 33; it goes fifth.
		edit(t, 32, statusd.AdminComponentRequest{ParentID: statusd.Some[int64](10), Position: testserver.Ptr(5)}, time.Now())
		c.check(t, srv, "after move",
			admRow{20, nil, 0}, admRow{10, nil, 3}, admRow{12, 10, 0}, admRow{11, 10, 0}, admRow{32, 10, 0}, admRow{30, nil, 2}, admRow{31, 30, 0}, admRow{33, 30, 0})
		children, err := srv.API.Components(ctx, client.ComponentQuery{ParentIDEq: 10})
		testserver.NoErr(t, "GET /api/v1/components?filter[parent_id_eq]=10", err)
		var ids []int64
		for _, x := range children.Components {
			ids = append(ids, x.ID)
		}
		testserver.AssertJSON(t, "children of 10", ids, []int{12, 11, 32})
		// Back to the top level, to position 1.
		edit(t, 32, statusd.AdminComponentRequest{ParentID: statusd.Null[int64](), Position: testserver.Ptr(1)}, time.Now())
		c.check(t, srv, "after move back",
			admRow{32, nil, 0}, admRow{20, nil, 0}, admRow{10, nil, 2}, admRow{12, 10, 0}, admRow{11, 10, 0}, admRow{30, nil, 2}, admRow{31, 30, 0}, admRow{33, 30, 0})
	})

	testserver.Step(t, "refusals change nothing", func(t *testing.T) {
		srv := srv.In(t)
		srv.Refuse(tok, http.MethodPost, "/components", `{"description": "no name"}`, 422, "invalid_field", "name")
		srv.Refuse(tok, http.MethodPost, "/components", `{"name": " "}`, 422, "invalid_field", "name")
		srv.Refuse(tok, http.MethodPost, "/components", `{"name": "X", "parent_id": 999}`, 422, "invalid_field", "parent_id")
		srv.Refuse(tok, http.MethodPost, "/components", `{"name": "X", "position": 0}`, 422, "invalid_field", "position")
		// Eight components: a new one goes at 1 to 9.
		srv.Refuse(tok, http.MethodPost, "/components", `{"name": "X", "position": 10}`, 422, "invalid_field", "position")
		srv.Refuse(tok, http.MethodPost, "/components", `{"name": "X", "metrics_enabled": "yes"}`, 422, "invalid_field", "metrics_enabled")
		srv.Refuse(tok, http.MethodPost, "/components", `{"name": "X", "colour": "red"}`, 422, "invalid_field", "colour")
		srv.Refuse(tok, http.MethodPost, "/components", `{"name": "X"`, 400, "invalid_body")
		srv.Refuse(tok, http.MethodPatch, "/components/10", `{"parent_id": 11}`, 422, "invalid_field", "parent_id")
		srv.Refuse(tok, http.MethodPatch, "/components/10", `{"parent_id": 10}`, 422, "invalid_field", "parent_id")
		srv.Refuse(tok, http.MethodPatch, "/components/10", `{"name": ""}`, 422, "invalid_field", "name")
		srv.Refuse(tok, http.MethodPatch, "/components/10", `{"position": 9}`, 422, "invalid_field", "position")
		srv.Refuse(tok, http.MethodPatch, "/components/999", `{"name": "X"}`, 404, "not_found", "999")
		srv.Refuse(tok, http.MethodGet, "/components/999", "", 404, "not_found", "999")
		srv.Refuse(tok, http.MethodDelete, "/components/999", "", 404, "not_found", "999")
		srv.Refuse(tok, http.MethodDelete, "/components/10", "", 409, "conflict", "recursive")
		srv.Refuse(tok, http.MethodDelete, "/components/30?recursive=false", "", 409, "conflict")
		srv.Refuse(tok, http.MethodDelete, "/components/10?recursive=perhaps", "", 400, "invalid_parameter", "recursive")
	})

	testserver.Step(t, "deleting a leaf renumbers the rest", func(t *testing.T) {
		testserver.NoErr(t, "DELETE /components/33", adm.DeleteComponent(ctx, 33, client.DeleteComponentOptions{}))
		writes++
		c.check(t, srv, "after deleting 33",
			admRow{32, nil, 0}, admRow{20, nil, 0}, admRow{10, nil, 2}, admRow{12, 10, 0}, admRow{11, 10, 0}, admRow{30, nil, 1}, admRow{31, 30, 0})
		srv.In(t).Refuse(tok, http.MethodGet, "/components/33", "", 404, "not_found")
	})

	testserver.Step(t, "components listed by notices go only with detach, which takes them out of the notices", func(t *testing.T) {
		srv := srv.In(t)
		// Notices list components of the subtree of 10 (10, 12, 11): 100
		// (11), 102 (30 and 10), 103 (12), 104 (11) and 201 (10), in id
		// order. 31 alone is listed by 101 and 203.
		srv.Refuse(tok, http.MethodDelete, "/components/10?recursive=true", "", 409, "conflict",
			`component 10 or a component below it is listed by notices 100 ("API errors"), 102 ("Outage, reopened"), `+
				`103 ("US alarm"), 104 ("Slow EU responses"), 201 ("API maintenance"); pass detach=true`)
		srv.Refuse(tok, http.MethodDelete, "/components/31", "", 409, "conflict",
			`component 31 is listed by notices 101 ("Replica lag"), 203 ("Cancelled work"); pass detach=true to remove it from those notices`)
		srv.Refuse(tok, http.MethodDelete, "/components/31?detach=perhaps", "", 400, "invalid_parameter", "detach")
		testserver.NoErr(t, "DELETE /components/10?recursive=true&detach=true",
			adm.DeleteComponent(ctx, 10, client.DeleteComponentOptions{Recursive: true, Detach: true}))
		writes++
		a, err := adm.Audit(ctx, 1)
		testserver.NoErr(t, "GET /audit", err)
		if len(a.Audit) == 0 || a.Audit[0].Detail != "deleted 3 component(s), detached from 5 notice(s)" {
			t.Errorf("audit of the detaching delete: %+v", a.Audit)
		}
		c.check(t, srv, "after deleting the subtree of 10",
			admRow{32, nil, 0}, admRow{20, nil, 0}, admRow{30, nil, 1}, admRow{31, 30, 0})
		for _, id := range []string{"10", "11", "12"} {
			srv.Refuse(tok, http.MethodGet, "/components/"+id, "", 404, "not_found")
		}
	})

	testserver.Step(t, "the notices that listed them keep existing, with their whole history", func(t *testing.T) {
		srv := srv.In(t)
		doc := testserver.Fixture(now)
		notices := fixUpdateIDs(doc)
		embedded := testserver.Obj{"id": 30, "state": m, "name": "Database", "description": "Primary database", "parent_id": nil,
			"created_at": "2026-01-01T00:00:00.000Z", "updated_at": "2026-01-01T01:00:00.000Z"}
		for _, w := range fixtureWant(now) {
			if w.id != 100 && w.id != 102 && w.id != 103 && w.id != 104 && w.id != 201 {
				continue
			}
			comps := []testserver.Obj{}
			if w.id == 102 { // listed 30 and 10
				comps = []testserver.Obj{embedded}
			}
			o := detailWant("a", w, notices, comps)
			got := testserver.Normalize(t, srv.Notice(w.id)).(map[string]any)
			checkOpenImpact(t, got, now)
			testserver.AssertJSON(t, fmt.Sprintf("notice %d after deleting its components", w.id), got, o)
		}
		n, err := adm.Notice(ctx, 102)
		testserver.NoErr(t, "GET /notices/102", err)
		if !slices.Equal(n.ComponentIDs, []int64{30}) {
			t.Errorf("notice 102 component_ids %v, want [30]", n.ComponentIDs)
		}
	})

	testserver.Step(t, "each write has one audit entry", func(t *testing.T) {
		if n := srv.In(t).AuditTotal(tok) - audit0; n != writes {
			t.Errorf("audit has %v new entries after %d writes", n, writes)
		}
	})
}

func TestAdminNotices(t *testing.T) {
	now := time.Now().UTC().Truncate(time.Second)
	srv := startServer(t, testserver.Fixture(now), options{})
	tok := newToken(t, srv.DB, "ops")
	adm, ctx := srv.Admin(tok), context.Background()
	m := maint("a")
	writes := 0
	audit0 := srv.AuditTotal(tok)
	emb := func(id int64, state string) testserver.Obj {
		names := map[int64][3]any{20: {"Dashboard", "Web dashboard", nil}, 10: {"API", "Public REST API", nil},
			12: {"API US", "API in the US", 10}, 30: {"Database", "Primary database", nil}}
		n := names[id]
		return testserver.Obj{"id": id, "state": state, "name": n[0], "description": n[1], "parent_id": n[2],
			"created_at": "2026-01-01T00:00:00.000Z", "updated_at": "2026-01-01T01:00:00.000Z"}
	}
	// states checks the public state of each component of want.
	states := func(t *testing.T, when string, want map[int64]string) {
		t.Helper()
		got := srv.In(t).ComponentStates()
		for id, w := range want {
			if got[id] != w {
				t.Errorf("component %d is %q %s, want %s", id, got[id], when, w)
			}
		}
	}
	// create publishes a notice with r and returns it with its created_at.
	create := func(t *testing.T, r statusd.AdminNoticeRequest) (*statusd.AdminNotice, time.Time) {
		t.Helper()
		t0 := time.Now()
		got, err := adm.CreateNotice(ctx, r)
		testserver.NoErr(t, "POST "+*r.Type, err)
		writes++
		testserver.Within(t, "created_at", got.CreatedAt.Time, t0, time.Now())
		return got, got.CreatedAt.Time
	}
	// The three notices the test creates, as the admin API must show them.
	var incident, planned, general testserver.Obj
	var created time.Time // when 304 was created
	begins := now.Add(72 * time.Hour)
	ends := begins.Add(2 * time.Hour)
	expires := now.Add(120 * time.Hour)

	testserver.Step(t, "an unplanned notice starts investigating and degrades its component", func(t *testing.T) {
		srv := srv.In(t)
		// Ids: notices after 303, updates after the fixture's 34.
		var got *statusd.AdminNotice
		got, created = create(t, statusd.AdminNoticeRequest{Type: testserver.Ptr("unplanned"), Subject: testserver.Ptr("Login failures"),
			Content: testserver.Ptr("We are investigating login failures."), ComponentIDs: &[]int64{12}, TagList: &[]string{"auth"}})
		c := testserver.TS(created)
		incident = testserver.Obj{"id": 304, "type": "unplanned", "timeline_state": "present", "state": "investigating",
			"subject": "Login failures", "url": "https://status.acme.test/notices/304",
			"began_at": c, "ended_at": nil, "created_at": c, "updated_at": c,
			"impact_time": testserver.Obj{"seconds": -1, "words": ""}, "tag_list": []string{"auth"},
			"links":         testserver.Obj{"self": "/api/notices/304"},
			"components":    []testserver.Obj{emb(12, "degraded")},
			"updates":       []testserver.Obj{{"id": 35, "state": "investigating", "content": "We are investigating login failures.", "created_at": c, "updated_at": c}},
			"component_ids": []int{12}, "impact_seconds": nil, "impact": "minor"}
		testserver.AssertJSON(t, "POST unplanned", admOpenImpact(t, got, created), incident)
		testserver.AssertJSON(t, "public 304", admOpenImpact(t, srv.Notice(304), created), admPublic(incident))
		states(t, "while incident 304 is investigating", map[int64]string{12: "degraded"})
	})

	testserver.Step(t, "a planned notice starts scheduled", func(t *testing.T) {
		// It lists 20, which maintenance 200 holds under maintenance.
		got, made := create(t, statusd.AdminNoticeRequest{Type: testserver.Ptr("planned"), Subject: testserver.Ptr("Cache upgrade"),
			Content: testserver.Ptr("We will upgrade the cache."), ComponentIDs: &[]int64{20},
			BeginsAt: statusd.Some(admRFC(begins)), EndsAt: statusd.Some(admRFC(ends)), Automate: testserver.Ptr(true)})
		c := testserver.TS(made)
		planned = testserver.Obj{"id": 305, "type": "planned", "timeline_state": "future", "state": "scheduled",
			"subject": "Cache upgrade", "url": "https://status.acme.test/notices/305",
			"began_at": nil, "ended_at": nil, "begins_at": testserver.TS(begins), "ends_at": testserver.TS(ends),
			"created_at": c, "updated_at": c, "tag_list": []string{}, "links": testserver.Obj{"self": "/api/notices/305"},
			"components":    []testserver.Obj{emb(20, m)},
			"updates":       []testserver.Obj{{"id": 36, "state": "scheduled", "content": "We will upgrade the cache.", "created_at": c, "updated_at": c}},
			"component_ids": []int{20}, "automate": true}
		testserver.AssertJSON(t, "POST planned", got, planned)
		testserver.AssertJSON(t, "public 305", srv.In(t).Notice(305), admPublic(planned))
	})

	testserver.Step(t, "a general notice has no state, in the notice as in its update", func(t *testing.T) {
		got, made := create(t, statusd.AdminNoticeRequest{Type: testserver.Ptr("general"), Subject: testserver.Ptr("New phone line"),
			Content: testserver.Ptr("Call us."), ExpiresAt: statusd.Some(admRFC(expires))})
		c := testserver.TS(made)
		general = testserver.Obj{"id": 306, "type": "general", "timeline_state": "present", "subject": "New phone line",
			"url": "https://status.acme.test/notices/306", "created_at": c, "updated_at": c, "tag_list": []string{},
			"links": testserver.Obj{"self": "/api/notices/306"}, "components": []testserver.Obj{},
			"updates":       []testserver.Obj{{"id": 37, "content": "Call us.", "created_at": c, "updated_at": c}},
			"component_ids": []int{}, "expires_at": testserver.TS(expires)}
		testserver.AssertJSON(t, "POST general", got, general)
		testserver.AssertJSON(t, "public 306", srv.In(t).Notice(306), admPublic(general))
	})

	testserver.Step(t, "on the wire, each type of notice has exactly its keys", func(t *testing.T) {
		// The keys of each type, null or absent (CONTRACT C6), as sent.
		srv := srv.In(t)
		for _, n := range []testserver.Obj{incident, planned, general} {
			path := fmt.Sprintf("/notices/%v", n["id"])
			got := testserver.Normalize(t, srv.AdminOK(http.MethodGet, path, tok, "", 200)).(map[string]any)
			if n["type"] == "unplanned" {
				got = admOpenImpact(t, got, created)
			}
			testserver.AssertJSON(t, "GET "+path, got, n)
		}
	})

	testserver.Step(t, "creations that are refused change nothing", func(t *testing.T) {
		srv := srv.In(t)
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
			srv.Refuse(tok, http.MethodPost, "/notices", c.body, c.status, c.code, c.in...)
		}
	})

	testserver.Step(t, "an edit of subject, tags and components changes the component states", func(t *testing.T) {
		srv := srv.In(t)
		// Embedded in position order (10 before 30); an incident that is
		// investigating degrades both, over 30's maintenance, and 12 is no
		// longer listed.
		t0 := time.Now()
		got, err := adm.UpdateNotice(ctx, 304, statusd.AdminNoticeRequest{Subject: testserver.Ptr("Login failures for US users"),
			TagList: &[]string{"auth", "us"}, ComponentIDs: &[]int64{30, 10}})
		testserver.NoErr(t, "PATCH 304", err)
		writes++
		testserver.Within(t, "updated_at", got.UpdatedAt.Time, t0, time.Now())
		incident["subject"], incident["tag_list"], incident["updated_at"] = "Login failures for US users", []string{"auth", "us"}, testserver.TS(got.UpdatedAt.Time)
		incident["component_ids"] = []int{30, 10}
		incident["components"] = []testserver.Obj{emb(10, "degraded"), emb(30, "degraded")}
		testserver.AssertJSON(t, "PATCH 304", admOpenImpact(t, got, created), incident)
		testserver.AssertJSON(t, "public 304 after PATCH", admOpenImpact(t, srv.Notice(304), created), admPublic(incident))
		states(t, "after the edit", map[int64]string{10: "degraded", 30: "degraded", 12: "operational"})
	})

	testserver.Step(t, "impact_seconds overrides the impact, and null gives it back", func(t *testing.T) {
		srv := srv.In(t)
		got, err := adm.UpdateNotice(ctx, 304, statusd.AdminNoticeRequest{ImpactSeconds: statusd.Some[int64](120)})
		testserver.NoErr(t, "PATCH 304 impact_seconds", err)
		writes++
		if v := got.ImpactSeconds.Value; v == nil || *v != 120 {
			t.Errorf("impact_seconds %v, want 120", testserver.Normalize(t, got.ImpactSeconds))
		}
		testserver.AssertJSON(t, "impact_time with override", srv.Notice(304).ImpactTime, testserver.Obj{"seconds": 120, "words": "2 minutes"})
		got, err = adm.UpdateNotice(ctx, 304, statusd.AdminNoticeRequest{ImpactSeconds: statusd.Null[int64]()})
		testserver.NoErr(t, "PATCH 304 impact_seconds null", err)
		writes++
		if !got.ImpactSeconds.Set || got.ImpactSeconds.Value != nil {
			t.Errorf("impact_seconds %v (present %v), want null", testserver.Normalize(t, got.ImpactSeconds), got.ImpactSeconds.Set)
		}
		admOpenImpact(t, srv.Notice(304), created)
	})

	testserver.Step(t, "the maintenance rescheduled, the general notice's expiry dropped", func(t *testing.T) {
		begins, ends = begins.Add(24*time.Hour), ends.Add(25*time.Hour)
		got, err := adm.UpdateNotice(ctx, 305, statusd.AdminNoticeRequest{BeginsAt: statusd.Some(admRFC(begins)), EndsAt: statusd.Some(admRFC(ends))})
		testserver.NoErr(t, "PATCH 305", err)
		writes++
		pub := srv.In(t).Notice(305)
		testserver.AssertJSON(t, "rescheduled: admin and public begins_at, ends_at",
			[]any{got.BeginsAt, got.EndsAt, pub.BeginsAt, pub.EndsAt}, []string{testserver.TS(begins), testserver.TS(ends), testserver.TS(begins), testserver.TS(ends)})
		gen, err := adm.UpdateNotice(ctx, 306, statusd.AdminNoticeRequest{ExpiresAt: statusd.Null[string]()})
		testserver.NoErr(t, "PATCH 306", err)
		writes++
		if !gen.ExpiresAt.Set || gen.ExpiresAt.Value != nil {
			t.Errorf("expires_at %v (present %v), want null", testserver.Normalize(t, gen.ExpiresAt), gen.ExpiresAt.Set)
		}
	})

	testserver.Step(t, "edits that are refused change nothing", func(t *testing.T) {
		srv := srv.In(t)
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
			srv.Refuse(tok, http.MethodPatch, c.path, c.body, c.status, c.code, c.in...)
		}
	})

	// The updates of 304, oldest first, as posted.
	type upd struct {
		state, content string
		at             time.Time
		id             int64
	}
	ups := []upd{{"investigating", "We are investigating login failures.", created, 35}}
	// post records the update that call posts on 304 (an update or a
	// reopen) and checks that its id comes after the last one's.
	post := func(t *testing.T, what string, call func() (*statusd.AdminNotice, error), state, content string) *statusd.AdminNotice {
		t.Helper()
		t0 := time.Now()
		got, err := call()
		testserver.NoErr(t, what, err)
		writes++
		if len(got.Updates) == 0 {
			t.Fatalf("%s: the answer has no updates", what)
		}
		last := got.Updates[len(got.Updates)-1]
		testserver.Within(t, what+": created_at", last.CreatedAt.Time, t0, time.Now())
		u := upd{state, content, last.CreatedAt.Time, last.ID}
		if u.id <= ups[len(ups)-1].id {
			t.Errorf("%s: update id %v after %v", what, u.id, ups[len(ups)-1].id)
		}
		ups = append(ups, u)
		return got
	}
	// update posts an update on 304 that moves it to state (none when
	// ""), after which it shows the state shows.
	update := func(t *testing.T, state, content, shows string) *statusd.AdminNotice {
		t.Helper()
		r := statusd.AdminUpdateRequest{Content: &content}
		if state != "" {
			r.State = &state
		}
		return post(t, "POST /notices/304/updates", func() (*statusd.AdminNotice, error) { return adm.PostUpdate(ctx, 304, r) }, shows, content)
	}
	// checkUpdates compares the updates of 304 with those posted.
	checkUpdates := func(t *testing.T, what string, got []statusd.UpdateResource) {
		t.Helper()
		var want []testserver.Obj
		for _, u := range ups {
			want = append(want, testserver.Obj{"id": u.id, "state": u.state, "content": u.content, "created_at": testserver.TS(u.at), "updated_at": testserver.TS(u.at)})
		}
		testserver.AssertJSON(t, what, got, want)
	}

	testserver.Step(t, "updates keep the state when they give none, and their ids increase", func(t *testing.T) {
		srv := srv.In(t)
		got := update(t, "", "Still looking.", "investigating")
		if testserver.Value(got.State) != "investigating" {
			t.Errorf("state %v after an update without state", testserver.Normalize(t, got.State))
		}
		update(t, "identified", "A bad certificate.", "identified")
		got = update(t, "resolved", "Fixed.", "resolved")
		pub := srv.Notice(304)
		checkUpdates(t, "public updates of 304", pub.Updates)
		checkUpdates(t, "admin updates of 304", got.Updates)
		testserver.AssertJSON(t, "resolved 304: state, timeline, began, ended",
			[]any{pub.State, pub.TimelineState, pub.BeganAt, pub.EndedAt}, []string{"resolved", "past_recent", testserver.TS(created), testserver.TS(ups[3].at)})
		// 30 is back under maintenance; 10 stays degraded, as its child 11
		// is (incident 100, CONTRACT C3).
		states(t, "after 304 resolved", map[int64]string{10: "degraded", 30: m})
	})

	testserver.Step(t, "updates that are refused change nothing", func(t *testing.T) {
		srv := srv.In(t)
		srv.Refuse(tok, http.MethodPost, "/notices/304/updates", `{"content": "Again.", "state": "investigating"}`, 422, "invalid_transition", "reopen")
		srv.Refuse(tok, http.MethodPost, "/notices/304/updates", `{"content": "Again.", "state": "identified"}`, 422, "invalid_transition", "reopen")
		srv.Refuse(tok, http.MethodPost, "/notices/304/updates", `{"state": "resolved"}`, 422, "invalid_field", "content")
		srv.Refuse(tok, http.MethodPost, "/notices/304/updates", `{"content": " "}`, 422, "invalid_field", "content")
		srv.Refuse(tok, http.MethodPost, "/notices/304/updates", `{"content": "x", "state": "underway"}`, 422, "invalid_transition", "underway")
		srv.Refuse(tok, http.MethodPost, "/notices/304/updates", `{"content": "x", "state": 3}`, 422, "invalid_field", "state")
		srv.Refuse(tok, http.MethodPost, "/notices/304/updates", `{"content": "x", "tags": []}`, 422, "invalid_field", "tags")
		srv.Refuse(tok, http.MethodPost, "/notices/202/updates", `{"content": "Again.", "state": "underway"}`, 422, "invalid_transition", "complete")
		srv.Refuse(tok, http.MethodPost, "/notices/201/updates", `{"content": "Done.", "state": "complete"}`, 422, "invalid_transition", "scheduled")
		srv.Refuse(tok, http.MethodPost, "/notices/300/updates", `{"content": "x", "state": "investigating"}`, 422, "invalid_transition", "state")
		srv.Refuse(tok, http.MethodPost, "/notices/999/updates", `{"content": "x"}`, 404, "not_found", "999")
	})

	testserver.Step(t, "a reopened incident is investigating and open again", func(t *testing.T) {
		srv := srv.In(t)
		got := post(t, "POST /notices/304/reopen", func() (*statusd.AdminNotice, error) {
			return adm.Reopen(ctx, 304, statusd.AdminUpdateRequest{Content: new("It is back.")})
		},
			"investigating", "It is back.")
		checkUpdates(t, "updates after reopen", got.Updates)
		pub := srv.Notice(304)
		checkUpdates(t, "public updates after reopen", pub.Updates)
		testserver.AssertJSON(t, "reopened 304: state, timeline, ended", []any{pub.State, pub.TimelineState, pub.EndedAt},
			[]any{"investigating", "present", nil})
		srv.Refuse(tok, http.MethodPost, "/notices/304/reopen", `{"content": "Twice."}`, 422, "invalid_transition", "investigating")
		srv.Refuse(tok, http.MethodPost, "/notices/101/reopen", `{"content": "x", "state": "identified"}`, 422, "invalid_field", "state")
		srv.Refuse(tok, http.MethodPost, "/notices/101/reopen", `{}`, 422, "invalid_field", "content")
		srv.Refuse(tok, http.MethodPost, "/notices/202/reopen", `{"content": "x"}`, 422, "invalid_transition", "planned")
		srv.Refuse(tok, http.MethodPost, "/notices/999/reopen", `{"content": "x"}`, 404, "not_found", "999")
	})

	testserver.Step(t, "an update of a general notice carries no state", func(t *testing.T) {
		_, err := adm.PostUpdate(ctx, 300, statusd.AdminUpdateRequest{Content: testserver.Ptr("More news.")})
		testserver.NoErr(t, "POST /notices/300/updates", err)
		writes++
		pub := srv.In(t).Notice(300)
		if len(pub.Updates) != 2 {
			t.Fatalf("notice 300 has %d updates, want 2", len(pub.Updates))
		}
		last := pub.Updates[1]
		if last.State != nil || last.Content != "More news." || last.ID <= ups[len(ups)-1].id {
			t.Errorf("general update %+v", testserver.Normalize(t, last))
		}
		if pub.State.Set {
			t.Errorf("general notice has a state: %v", testserver.Normalize(t, pub.State))
		}
	})

	testserver.Step(t, "a deleted notice is gone from both APIs", func(t *testing.T) {
		srv := srv.In(t)
		testserver.NoErr(t, "DELETE /notices/305", adm.DeleteNotice(ctx, 305))
		writes++
		testserver.AssertErrorBody(t, "public 305 after delete", srv.Do(http.MethodGet, "/api/v1/notices/305"), 404, "not_found")
		srv.Refuse(tok, http.MethodGet, "/notices/305", "", 404, "not_found", "305")
		srv.Refuse(tok, http.MethodDelete, "/notices/305", "", 404, "not_found", "305")
	})

	testserver.Step(t, "the admin list is newest first", func(t *testing.T) {
		// 15 + 3 - 1 notices.
		lst, err := adm.Notices(ctx, 0)
		testserver.NoErr(t, "GET /notices", err)
		testserver.AssertJSON(t, "admin list meta", lst.Meta, testserver.Obj{"count": 17, "total_count": 17, "next_page": nil})
		var first []int64
		for _, n := range lst.Notices[:min(3, len(lst.Notices))] {
			first = append(first, n.ID)
		}
		testserver.AssertJSON(t, "admin list order", first, []int{306, 304, 100})
		pub, err := srv.API.Notices(ctx, client.NoticeQuery{})
		testserver.NoErr(t, "GET /api/v1/notices", err)
		if n := pub.Meta.TotalCount; n != 17 {
			t.Errorf("public total_count %v, want 17", n)
		}
	})

	testserver.Step(t, "each write has one audit entry", func(t *testing.T) {
		if n := srv.In(t).AuditTotal(tok) - audit0; n != writes {
			t.Errorf("audit has %v new entries after %d writes", n, writes)
		}
	})
}

// TestAdminRefusals covers the refusals common to every endpoint:
// authentication, bodies, sizes, methods, paths.
func TestAdminRefusals(t *testing.T) {
	now := time.Now().UTC().Truncate(time.Second)
	srv := startServer(t, testserver.Fixture(now), options{})
	tok := newToken(t, srv.DB, "ops")

	testserver.Step(t, "a missing or wrong token gets the same 401 and writes nothing", func(t *testing.T) {
		srv := srv.In(t)
		noToken := srv.RefuseAs(tok, "", http.MethodPatch, "/page", `{"name": "Hacked"}`, 401, "unauthorized")
		wrong := srv.RefuseAs(tok, "sdt_wrong", http.MethodPatch, "/page", `{"name": "Hacked"}`, 401, "unauthorized")
		if string(noToken.Body) != string(wrong.Body) {
			t.Errorf("missing and wrong token answer differently:\n%s\n%s", noToken.Body, wrong.Body)
		}
		if noToken.Header.Get("WWW-Authenticate") == "" || wrong.Header.Get("WWW-Authenticate") == "" {
			t.Errorf("401 without WWW-Authenticate")
		}
		r := srv.Authed(http.MethodGet, testserver.AdminRoot+"/page", "", "")
		testserver.AssertError(t, "GET without token", r, 401, "unauthorized")
		if string(r.Body) != string(noToken.Body) {
			t.Errorf("GET and PATCH without token answer differently:\n%s\n%s", r.Body, noToken.Body)
		}
		srv.RefuseAs(tok, tok+"x", http.MethodPost, "/notices", `{"type": "general", "subject": "S", "content": "C"}`, 401, "unauthorized")
	})

	testserver.Step(t, "a body that is not one JSON value, or over 1 MiB, is refused", func(t *testing.T) {
		srv := srv.In(t)
		srv.Refuse(tok, http.MethodPatch, "/page", `not JSON`, 400, "invalid_body")
		srv.Refuse(tok, http.MethodPatch, "/page", `{"name": "A"} {"name": "B"}`, 400, "invalid_body")
		srv.Refuse(tok, http.MethodPatch, "/page", `"Acme"`, 400, "invalid_body")
		srv.Refuse(tok, http.MethodPatch, "/page", ``, 400, "invalid_body")
		srv.Refuse(tok, http.MethodPatch, "/page", `{"name": "A",}`, 400, "invalid_body")
		// Over 1 MiB, though valid JSON.
		big := `{"name": "` + strings.Repeat("a", 1<<20) + `"}`
		srv.Refuse(tok, http.MethodPatch, "/page", big, 413, "too_large")
		srv.Refuse(tok, http.MethodPost, "/notices", `{"type": "general", "subject": "S", "content": "`+strings.Repeat("b", 1<<20)+`"}`, 413, "too_large")
		// Just under 1 MiB is read (and refused for what it says, not its size).
		under := `{"name": "` + strings.Repeat("a", 1<<20-30) + `", "x": 1}`
		srv.Refuse(tok, http.MethodPatch, "/page", under, 422, "invalid_field", "x")
	})

	testserver.Step(t, "another method answers 405 with Allow", func(t *testing.T) {
		srv := srv.In(t)
		for _, c := range []struct{ method, path, allow string }{
			{http.MethodPut, "/page", "GET, PATCH"},
			{http.MethodDelete, "/page", "GET, PATCH"},
			{http.MethodPut, "/components/10", "GET, PATCH, DELETE"},
			{http.MethodDelete, "/notices", "GET, POST"},
			{http.MethodGet, "/notices/100/reopen", "POST"},
			{http.MethodPost, "/audit", "GET"},
		} {
			r := srv.Refuse(tok, c.method, c.path, "", 405, "method_not_allowed")
			if got := r.Header.Get("Allow"); got != c.allow {
				t.Errorf("%s %s: Allow %q, want %q", c.method, c.path, got, c.allow)
			}
		}
	})

	testserver.Step(t, "unknown paths and ids are not found; ids that are not integers are bad parameters", func(t *testing.T) {
		srv := srv.In(t)
		for _, p := range []string{"/nothing", "/components/999", "/notices/999", "/notices/99999999999999999999"} {
			srv.Refuse(tok, http.MethodGet, p, "", 404, "not_found")
		}
		// A path id that is not an integer is a bad parameter, as in the
		// public API (CONTRACT C2).
		srv.Refuse(tok, http.MethodGet, "/components/abc", "", 400, "invalid_parameter", "id")
		srv.Refuse(tok, http.MethodDelete, "/notices/1x", "", 400, "invalid_parameter", "id")
		srv.Refuse(tok, http.MethodPost, "/notices/1x/updates", `{"content": "x"}`, 400, "invalid_parameter", "id")
		r := srv.Authed(http.MethodGet, "/admin/api/v2/page", tok, "")
		testserver.AssertError(t, "GET /admin/api/v2/page", r, 404, "not_found")
	})

	testserver.Step(t, "the token still works after all this", func(t *testing.T) {
		_, err := srv.Admin(tok).Page(context.Background())
		testserver.NoErr(t, "GET /page", err)
	})
}

// TestAdminAuthRateLimit: ten wrong tokens in a row, then 429 with
// Retry-After.
func TestAdminAuthRateLimit(t *testing.T) {
	now := time.Now().UTC().Truncate(time.Second)
	srv := startServer(t, testserver.Fixture(now), options{})
	tok := newToken(t, srv.DB, "ops")
	_, err := srv.Admin(tok).Page(context.Background())
	testserver.NoErr(t, "GET /page", err)
	for i := 0; i < 10; i++ {
		r := srv.Authed(http.MethodGet, testserver.AdminRoot+"/page", fmt.Sprintf("sdt_wrong%d", i), "")
		testserver.AssertError(t, fmt.Sprintf("wrong token %d", i+1), r, 401, "unauthorized")
	}
	r := srv.Authed(http.MethodGet, testserver.AdminRoot+"/page", "sdt_wrong", "")
	testserver.AssertError(t, "11th wrong token", r, 429, "rate_limited")
	if ra := r.Header.Get("Retry-After"); !regexp.MustCompile(`^[1-9][0-9]*$`).MatchString(ra) {
		t.Errorf("Retry-After %q, want whole seconds >= 1", ra)
	}
	// Failed authentication is limited; the public API is not affected.
	srv.Status()
}

// TestAdminSeparateListener: with --admin-addr the admin API answers on its
// own listener only.
func TestAdminSeparateListener(t *testing.T) {
	now := time.Now().UTC().Truncate(time.Second)
	srv := startServer(t, testserver.Fixture(now), options{adminListener: true})
	adminURL := srv.AdminURL
	if adminURL == "" || adminURL == srv.URL {
		t.Fatalf("admin listener %q (public %s)\n%s", adminURL, srv.URL, srv.Logs)
	}
	tok := newToken(t, srv.DB, "ops")
	ctx := context.Background()

	t.Run("the admin listener serves the admin API", func(t *testing.T) {
		page, err := srv.Admin(tok).Page(ctx)
		if err != nil || page.Name != "Acme Status" {
			t.Fatalf("admin listener GET /page: %+v %v", page, err)
		}
		if _, err := srv.Admin(tok).UpdatePage(ctx, statusd.AdminPageRequest{Name: testserver.Ptr("Split Status")}); err != nil {
			t.Fatalf("admin listener PATCH /page: %v", err)
		}
	})
	t.Run("the public listener shows the write, but has no admin API", func(t *testing.T) {
		if st, err := srv.API.Status(ctx); err != nil || st.Name != "Split Status" {
			t.Errorf("public name %+v (%v) after the admin write", st, err)
		}
		before := export(t, srv.DB)
		r := testserver.Fetch(t, http.MethodGet, srv.URL+testserver.AdminRoot+"/page", "", testserver.Bearer(tok)...)
		if r.Status != 404 {
			t.Errorf("public listener GET /admin/api/v1/page: status %d, want 404\n%s", r.Status, r.Body)
		}
		r = testserver.Fetch(t, http.MethodPatch, srv.URL+testserver.AdminRoot+"/page", `{"name": "Via public"}`, testserver.Bearer(tok)...)
		if r.Status != 404 {
			t.Errorf("public listener PATCH /admin/api/v1/page: status %d, want 404\n%s", r.Status, r.Body)
		}
		if after := export(t, srv.DB); after != before {
			t.Errorf("a write through the public listener changed the page")
		}
	})
	t.Run("the admin listener does not serve the public API", func(t *testing.T) {
		r := testserver.Fetch(t, http.MethodGet, adminURL+"/api/v1/status", "")
		if r.Status != 404 {
			t.Errorf("admin listener GET /api/v1/status: status %d, want 404", r.Status)
		}
	})
	t.Run("errors are JSON under /admin/ and /api/", func(t *testing.T) {
		r := testserver.Fetch(t, http.MethodGet, srv.URL+testserver.AdminRoot+"/page", "", testserver.Bearer(tok)...)
		r2 := testserver.Fetch(t, http.MethodGet, adminURL+"/api/v1/status", "")
		testserver.AssertError(t, "public listener /admin/", r, 404, "not_found")
		testserver.AssertError(t, "admin listener /api/", r2, 404, "not_found")
	})
}

// TestAdminTooLargeTrailingSpace: a body over 1 MiB is 413 whatever it
// holds, here one small JSON object followed by more than 1 MiB of
// whitespace (still one JSON value).
func TestAdminTooLargeTrailingSpace(t *testing.T) {
	now := time.Now().UTC().Truncate(time.Second)
	srv := startServer(t, testserver.Fixture(now), options{})
	tok := newToken(t, srv.DB, "ops")
	body := `{"name": "Big"}` + strings.Repeat(" ", 1<<20)
	before := export(t, srv.DB)
	r := srv.Authed(http.MethodPatch, testserver.AdminRoot+"/page", tok, body)
	if after := export(t, srv.DB); after != before {
		t.Errorf("a refused request changed the page")
	}
	testserver.AssertError(t, "object and 1 MiB of spaces", r, 413, "too_large")
}
