package server_test

import (
	"github.com/statusd/statusd/internal/testserver"
	"net/netip"

	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestBadParameters checks that every malformed parameter of CONTRACT C2
// answers 400 invalid_parameter naming the parameter, and changes nothing.
func TestBadParameters(t *testing.T) {
	srv, _ := fixtureServer(t, "a", options{})
	// (A list without the open incident, whose impact grows every second.)
	before := srv.Get("/api/v1/notices?filter[timeline_state_eq]=past", 200).Body
	cases := []struct{ path, names string }{
		{"/api/v1/notices?page=0", "page"},
		{"/api/v1/notices?page=-1", "page"},
		{"/api/v1/notices?page=abc", "page"},
		{"/api/v1/notices?page=", "page"},
		{"/api/v1/notices?page=1.5", "page"},
		{"/api/v1/notices?page=%2B2", "page"},
		{"/api/v1/components?page=x", "page"},
		{"/api/v1/notices?filter[type_eq]=incident", "filter[type_eq]"},
		{"/api/v1/notices?filter[type_eq]=Unplanned", "filter[type_eq]"},
		{"/api/v1/notices?filter[type_in][]=general&filter[type_in][]=bogus", "filter[type_in][]"},
		{"/api/v1/notices?filter[timeline_state_eq]=recent", "filter[timeline_state_eq]"},
		{"/api/v1/notices?filter[timeline_state_in][]=nope", "filter[timeline_state_in][]"},
		{"/api/v1/notices?filter[metrics_component_id]=abc", "filter[metrics_component_id]"},
		{"/api/v1/notices?filter[metrics_component_id]=1.0", "filter[metrics_component_id]"},
		{"/api/v1/notices?filter[metrics_component_id]=99999999999999999999", "filter[metrics_component_id]"},
		{"/api/v1/notices?filter[impact_timeframe_overlaps][]=2026-01-01T00:00:00", "filter[impact_timeframe_overlaps][]"},
		{"/api/v1/notices?filter[impact_timeframe_overlaps][]=2026-01-01&filter[impact_timeframe_overlaps][]=2026-01-02", "filter[impact_timeframe_overlaps][]"},
		{"/api/v1/notices?filter[impact_timeframe_overlaps][]=2026-01-02T00:00:00&filter[impact_timeframe_overlaps][]=2026-01-01T00:00:00", "filter[impact_timeframe_overlaps][]"},
		{"/api/v1/notices?filter[impact_timeframe_overlaps][]=2026-13-01T00:00:00&filter[impact_timeframe_overlaps][]=2026-12-01T00:00:00", "filter[impact_timeframe_overlaps][]"},
		{"/api/v1/notices?filter[impact_timeframe_overlaps][]=2026-01-01T00:00:00%2B01:00&filter[impact_timeframe_overlaps][]=2026-01-02T00:00:00", "filter[impact_timeframe_overlaps][]"},
		{"/api/v1/notices?filter[impact_timeframe_overlaps][]=a&filter[impact_timeframe_overlaps][]=b&filter[impact_timeframe_overlaps][]=c", "filter[impact_timeframe_overlaps][]"},
		{"/api/v1/components?filter[parent_id_eq]=x", "filter[parent_id_eq]"},
		{"/api/v1/components?filter[parent_id_null]=maybe", "filter[parent_id_null]"},
		{"/api/v1/notices?%ZZ=1", "query string"},
		{"/api/v1/notices?filter[type_eq]=%ZZ", "filter[type_eq]"},
		{"/api/v1/notices/abc", "id"},
		{"/api/notices/1x", "id"},
		{"/api/v1/components/abc/metrics", "id"},
	}
	for _, c := range cases {
		r := srv.Do(http.MethodGet, c.path)
		testserver.AssertErrorBody(t, c.path, r, 400, "invalid_parameter")
		if msg, _ := testserver.At(t, r.JSON, "error.message").(string); !strings.Contains(msg, c.names) {
			t.Errorf("%s: message %q does not name %s", c.path, msg, c.names)
		}
		if r.Header.Get("Cache-Control") != "no-store" {
			t.Errorf("%s: errors must not be cacheable", c.path)
		}
	}
	if after := srv.Get("/api/v1/notices?filter[timeline_state_eq]=past", 200).Body; string(after) != string(before) {
		t.Errorf("a refused request changed the notices list")
	}
}

func TestNotFound(t *testing.T) {
	srv, _ := fixtureServer(t, "a", options{})
	for _, path := range []string{"/api/v1/notices/999", "/v1/notices/0", "/api/notices/-5",
		"/api/v1/notices/99999999999999999999999", "/api/v1/components/999/metrics"} {
		r := srv.Do(http.MethodGet, path)
		testserver.AssertErrorBody(t, path, r, 404, "not_found")
	}
	r := srv.Do(http.MethodGet, "/api/v1/notices/999")
	if got := testserver.At(t, r.JSON, "error.message"); got != "notice 999 not found" {
		t.Errorf("message %q", got)
	}
	// Component 20 exists with Metrics off.
	testserver.AssertErrorBody(t, "metrics off", srv.Do(http.MethodGet, "/api/v1/components/20/metrics"), 404, "metrics_disabled")
	// HTML outside the API.
	r = srv.Do(http.MethodGet, "/no/such/page")
	if r.Status != 404 || !strings.HasPrefix(r.Header.Get("Content-Type"), "text/html") {
		t.Errorf("/no/such/page: %d %s", r.Status, r.Header.Get("Content-Type"))
	}
}

// TestVariantBMetrics checks that Variant B has no metrics endpoint at all.
func TestVariantBMetrics(t *testing.T) {
	srv, _ := fixtureServer(t, "b", options{})
	for _, path := range []string{"/api/v1/components/10/metrics", "/v1/components/10/metrics", "/api/v1/components/20/metrics"} {
		testserver.AssertErrorBody(t, path, srv.Do(http.MethodGet, path), 404, "not_found")
	}
}

// TestRateLimit checks the §8 limit of CONTRACT C2: 10 requests a second
// per client, burst 10, then 429 with Retry-After, and the RateLimit-*
// headers on every answer.
func TestRateLimit(t *testing.T) {
	srv, _ := fixtureServer(t, "a", options{rateLimit: 10})
	start := time.Now()
	var last testserver.Response
	for i := 0; i < 10; i++ {
		last = srv.Do(http.MethodGet, "/api/v1/status")
		if last.Status != 200 {
			t.Fatalf("request %d: status %d", i+1, last.Status)
		}
		if got := last.Header.Get("RateLimit-Limit"); got != "10" {
			t.Errorf("RateLimit-Limit %q", got)
		}
	}
	elapsed := time.Since(start)
	// After 10 quick requests the bucket is (nearly) empty; it refills at 10
	// a second, so it holds at most elapsed*10 tokens.
	remaining, _ := strconv.Atoi(last.Header.Get("RateLimit-Remaining"))
	if maxLeft := int(elapsed.Seconds() * 10); remaining > maxLeft {
		t.Errorf("RateLimit-Remaining %d after 10 requests in %v", remaining, elapsed)
	}
	if reset, _ := strconv.Atoi(last.Header.Get("RateLimit-Reset")); reset < 1 || reset > 1 {
		t.Errorf("RateLimit-Reset %q, want 1 (second until the bucket is full)", last.Header.Get("RateLimit-Reset"))
	}
	var limited testserver.Response
	for i := 0; i < 5; i++ { // the bucket refills while we ask; a few more requests empty it
		if limited = srv.Do(http.MethodGet, "/api/v1/notices/100"); limited.Status == 429 {
			break
		}
	}
	testserver.AssertErrorBody(t, "over the limit", limited, 429, "rate_limited")
	if got := limited.Header.Get("Retry-After"); got != "1" {
		t.Errorf("Retry-After %q, want 1", got)
	}
	if got := limited.Header.Get("RateLimit-Remaining"); got != "0" {
		t.Errorf("RateLimit-Remaining %q on a 429", got)
	}
	// Errors and aliases count too, the HTML page does not.
	if r := srv.Do(http.MethodGet, "/"); r.Status != 200 {
		t.Errorf("HTML page answered %d while the API is limited", r.Status)
	}
	time.Sleep(1100 * time.Millisecond)
	if r := srv.Do(http.MethodGet, "/v1/status"); r.Status != 200 {
		t.Errorf("after waiting Retry-After: status %d", r.Status)
	}
}

// TestRateLimitOff checks that --rate-limit 0 drops the limit and its
// headers.
func TestRateLimitOff(t *testing.T) {
	srv, _ := fixtureServer(t, "a", options{}) // the harness turns the rate limit off
	for i := 0; i < 30; i++ {
		r := srv.Get("/api/v1/status", 200)
		if _, ok := r.Header["Ratelimit-Limit"]; ok {
			t.Fatal("RateLimit-Limit present with the limit off")
		}
	}
}

// TestRateLimitTrustedProxy checks that X-Forwarded-For counts only from a
// trusted proxy.
func TestRateLimitTrustedProxy(t *testing.T) {
	// 127.0.0.1 is trusted: clients are told apart by X-Forwarded-For.
	srv, _ := fixtureServer(t, "a", options{rateLimit: 2, trusted: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}})
	for _, client := range []string{"203.0.113.1", "203.0.113.2"} {
		for i := 0; i < 2; i++ {
			if r := srv.Do(http.MethodGet, "/api/v1/status", "X-Forwarded-For", "198.51.100.9, "+client); r.Status != 200 {
				t.Fatalf("%s request %d: %d", client, i+1, r.Status)
			}
		}
	}
	if r := srv.Do(http.MethodGet, "/api/v1/status", "X-Forwarded-For", "203.0.113.1"); r.Status != 429 {
		t.Errorf("third request of 203.0.113.1: %d, want 429", r.Status)
	}
	// A hop written with its port (ip:port, [v6]:port) is the same client
	// whatever the port, as proxies that append the peer's port write it.
	for _, hops := range [][]string{
		{"203.0.113.5:1111", "203.0.113.5:2222", "203.0.113.5"},
		{"[2001:db8::5]:1111", "[2001:db8::5]:2222", "2001:db8::5"},
	} {
		for i, hop := range hops {
			r := srv.Do(http.MethodGet, "/api/v1/status", "X-Forwarded-For", hop)
			if want := map[bool]int{true: 200, false: 429}[i < 2]; r.Status != want {
				t.Errorf("X-Forwarded-For %s (request %d of its client): %d, want %d", hop, i+1, r.Status, want)
			}
		}
	}
	// Untrusted peer: X-Forwarded-For is ignored, so forging it does not help.
	srv2, _ := fixtureServer(t, "a", options{rateLimit: 2})
	for i, xff := range []string{"1.1.1.1", "2.2.2.2", "3.3.3.3"} {
		r := srv2.Do(http.MethodGet, "/api/v1/status", "X-Forwarded-For", xff)
		if want := map[bool]int{true: 200, false: 429}[i < 2]; r.Status != want {
			t.Errorf("forged request %d: %d, want %d", i+1, r.Status, want)
		}
	}
}

// TestPathIDs sends the same path ids to the public and the admin API, on
// every route that takes one, and expects the same answer from both: 400
// invalid_parameter naming id for anything but an integer written in
// decimal digits (a leading minus allowed), 404 not_found for an integer
// that no record can have (zero, negative, past int64) or that none has.
// N stands for the id of a record that exists (notice 100, component 10):
// wrapped in anything else it names nothing. The HTML pages and the badges
// answer 404 for all of these, as for any id that names nothing. An empty
// id is no id: the path is another, unknown one, 404 on both. Nothing is
// changed.
func TestPathIDs(t *testing.T) {
	srv, _ := fixtureServer(t, "a", options{})
	tok := newToken(t, srv.DB, "ops")
	before, audit := export(t, srv.DB), srv.AuditTotal(tok)
	cases := []struct {
		id     string // as written in the path
		status int
	}{
		{"-", 400}, {"+N", 400}, {"%2BN", 400}, {"+-N", 400}, {"--N", 400}, {"%20N", 400}, {"N%20", 400},
		{"Na", 400}, {"0xN", 400}, {"N.0", 400}, {"Ne0", 400}, {"%EF%BC%91", 400}, // a fullwidth 1
		{"0", 404}, {"-0", 404}, {"-N", 404}, {"999", 404}, {"9223372036854775808", 404},
		{"99999999999999999999", 404}, {"-9223372036854775809", 404},
	}
	type route struct{ method, path, n, body string }
	public := []route{
		{"GET", "/api/v1/notices/%s", "100", ""}, {"GET", "/v1/notices/%s", "100", ""}, {"GET", "/api/notices/%s", "100", ""},
		{"GET", "/api/v1/components/%s/metrics", "10", ""}, {"GET", "/v1/components/%s/metrics", "10", ""},
	}
	admin := []route{
		{"GET", "/components/%s", "10", ""}, {"PATCH", "/components/%s", "10", `{"name":"x"}`},
		{"DELETE", "/components/%s", "10", ""}, {"GET", "/notices/%s", "100", ""},
		{"PATCH", "/notices/%s", "100", `{"subject":"x"}`}, {"DELETE", "/notices/%s", "100", ""},
		{"POST", "/notices/%s/updates", "100", `{"content":"x"}`}, {"POST", "/notices/%s/reopen", "100", `{"content":"x"}`},
	}
	pages := []route{
		{"GET", "/notices/%s", "100", ""}, {"GET", "/components/%s/metrics", "10", ""},
		{"GET", "/badge/components/%s.json", "10", ""}, {"GET", "/badge/components/%s.svg", "10", ""},
	}
	path := func(rt route, id string) string {
		return fmt.Sprintf(rt.path, strings.ReplaceAll(id, "N", rt.n))
	}
	code := map[int]string{400: "invalid_parameter", 404: "not_found"}
	for _, c := range cases {
		check := func(what string, r testserver.Response) {
			t.Helper()
			testserver.AssertError(t, what, r, c.status, code[c.status])
			if msg := testserver.ErrorMessage(r); c.status == 400 && !strings.HasPrefix(msg, "id: ") {
				t.Errorf("%s: message %q does not name id", what, msg)
			}
		}
		for _, rt := range public {
			p := path(rt, c.id)
			check(rt.method+" "+p, srv.Do(rt.method, p))
		}
		for _, rt := range admin {
			p := testserver.AdminRoot + path(rt, c.id)
			check(rt.method+" "+p, srv.Authed(rt.method, p, tok, rt.body))
		}
		for _, rt := range pages {
			p := path(rt, c.id)
			if r := srv.Do(rt.method, p); r.Status != 404 {
				t.Errorf("%s %s: status %d, want 404", rt.method, p, r.Status)
			}
		}
	}
	for _, p := range []string{"/api/v1/notices/", "/v1/notices/", "/api/notices/", "/api/v1/components//metrics"} {
		testserver.AssertErrorBody(t, "GET "+p, srv.Do("GET", p), 404, "not_found")
	}
	for _, p := range []string{"/components/", "/notices/"} {
		testserver.AssertError(t, "GET "+testserver.AdminRoot+p, srv.Authed("GET", testserver.AdminRoot+p, tok, ""), 404, "not_found")
	}
	if after := export(t, srv.DB); after != before {
		t.Errorf("requests with bad ids changed the page")
	}
	if got := srv.AuditTotal(tok); got != audit {
		t.Errorf("requests with bad ids wrote %v audit entries", got-audit)
	}
}
