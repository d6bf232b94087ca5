package server_test

// Black-box tests of the Statuspage v2 files of one notice each and of the
// impact of notices (CONTRACT C6). Helpers here start with ti.

import (
	"fmt"
	"net/http"
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
