package server_test

import (
	"github.com/statusd/statusd/internal/testserver"
	"net/netip"

	"fmt"
	"testing"
	"time"

	"github.com/statusd/statusd/internal/testenv"
)

// TestNoSniffEverywhere checks that every kind of answer, on the public
// and on the admin listener, carries X-Content-Type-Options: nosniff, so
// that no browser reads a JSON or text answer as HTML or script.
func TestNoSniffEverywhere(t *testing.T) {
	now := time.Now().UTC().Truncate(time.Second)
	srv := startServer(t, testserver.Fixture(now), options{adminListener: true,
		rateLimit: 1, trusted: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}})
	adminURL := srv.AdminURL
	auth := "Bearer " + newToken(t, srv.DB, "nosniff")
	// Each request is its own client behind the trusted proxy, so that
	// only the two of "rate limited" share a bucket of one request.
	n := 0
	client := func() string { n++; return fmt.Sprintf("192.0.2.%d", n) }
	for _, tc := range []struct {
		name, method, url string
		status            int
		header            []string
	}{
		{"API JSON", "GET", srv.URL + "/api/v1/status", 200, nil},
		{"API alias", "GET", srv.URL + "/v1/components", 200, nil},
		{"API HEAD", "HEAD", srv.URL + "/api/v1/notices", 200, nil},
		{"API 404", "GET", srv.URL + "/api/v1/notices/999", 404, nil},
		{"API unknown path", "GET", srv.URL + "/api/v1/nothing", 404, nil},
		{"API 400", "GET", srv.URL + "/api/v1/notices?page=0", 400, nil},
		{"API 405", "POST", srv.URL + "/api/v1/status", 405, nil},
		{"API preflight", "OPTIONS", srv.URL + "/api/v1/status", 204,
			[]string{"Origin", "https://example.com", "Access-Control-Request-Method", "GET"}},
		{"rate limited (first)", "GET", srv.URL + "/api/v1/status", 200, []string{"X-Forwarded-For", "198.51.100.1"}},
		{"rate limited", "GET", srv.URL + "/api/v1/status", 429, []string{"X-Forwarded-For", "198.51.100.1"}},
		{"OpenAPI", "GET", srv.URL + "/api/v1/openapi.json", 200, nil},
		{"Statuspage v2", "GET", srv.URL + "/api/v2/summary.json", 200, nil},
		{"HTML page", "GET", srv.URL + "/", 200, nil},
		{"HTML 404", "GET", srv.URL + "/no/such/page", 404, nil},
		{"Atom feed", "GET", srv.URL + "/history.atom", 200, nil},
		{"RSS feed", "GET", srv.URL + "/history.rss", 200, nil},
		{"asset", "GET", srv.URL + "/assets/style.css", 200, nil},
		{"badge SVG", "GET", srv.URL + "/badge/status.svg", 200, nil},
		{"badge JSON", "GET", srv.URL + "/badge/status.json", 200, nil},
		{"healthz", "GET", srv.URL + "/healthz", 200, nil},
		{"readyz", "GET", srv.URL + "/readyz", 200, nil},
		{"admin on the public listener", "GET", srv.URL + "/admin/api/v1/page", 404, nil},
		{"admin 200", "GET", adminURL + testserver.AdminRoot + "/page", 200, []string{"Authorization", auth}},
		{"admin 401", "GET", adminURL + testserver.AdminRoot + "/page", 401, nil},
		{"admin 404", "GET", adminURL + testserver.AdminRoot + "/components/999", 404, []string{"Authorization", auth}},
		{"admin listener, other path", "GET", adminURL + "/", 404, nil},
		{"metrics", "GET", adminURL + "/metrics", 200, []string{"Authorization", auth}},
		{"metrics 401", "GET", adminURL + "/metrics", 401, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			header := tc.header
			if len(header) == 0 || header[0] != "X-Forwarded-For" {
				header = append([]string{"X-Forwarded-For", client()}, header...)
			}
			res, body := testenv.Fetch(t, tc.method, tc.url, header...)
			if res.StatusCode != tc.status {
				t.Fatalf("%s %s: status %d, want %d\n%s", tc.method, tc.url, res.StatusCode, tc.status, body)
			}
			if got := res.Header.Values("X-Content-Type-Options"); len(got) != 1 || got[0] != "nosniff" {
				t.Errorf("%s %s (%d): X-Content-Type-Options %q, want once nosniff", tc.method, tc.url, res.StatusCode, got)
			}
		})
	}
}
