package server_test

// Black-box tests of what statusd tells its operators: the
// Prometheus metrics, the health probes and the request log. Helpers here
// start with tm.

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"

	"github.com/statusd/statusd/internal/testserver"
)

// tmExpect fails unless the series exists with the value.
func tmExpect(t *testing.T, fams map[string]*dto.MetricFamily, want float64, name string, labels ...string) {
	t.Helper()
	if got, ok := testserver.MetricValue(fams, name, labels...); !ok || got != want {
		t.Errorf("%s%v = %v (present %v), want %v", name, labels, got, ok, want)
	}
}

// tmComponentStates returns each component's current state (the state
// whose series is 1) from statusd_component_state.
func tmComponentStates(t *testing.T, fams map[string]*dto.MetricFamily) map[string]string {
	t.Helper()
	out := map[string]string{}
	f := fams["statusd_component_state"]
	if f == nil {
		t.Fatal("statusd_component_state missing")
	}
	for _, m := range f.Metric {
		labels := map[string]string{}
		for _, l := range m.Label {
			labels[l.GetName()] = l.GetValue()
		}
		if m.Gauge.GetValue() == 1 {
			if prev, dup := out[labels["component_id"]]; dup {
				t.Errorf("component %s is both %s and %s", labels["component_id"], prev, labels["state"])
			}
			out[labels["component_id"]] = labels["state"]
		}
	}
	return out
}

// TestPrometheusMetrics: after some requests, /metrics (behind an admin
// token) has every family with sane values, by route pattern and never by
// raw path, and the component state gauges change with an admin write.
func TestPrometheusMetrics(t *testing.T) {
	now := time.Now().UTC().Truncate(time.Second)
	start := time.Now()
	srv := startServer(t, testserver.Fixture(now), options{})

	r := testserver.Fetch(t, http.MethodGet, srv.URL+"/metrics", "")
	if r.Status != 401 || testserver.At(t, r.JSON, "error.code") != "unauthorized" || r.Header.Get("WWW-Authenticate") == "" {
		t.Fatalf("/metrics without a token: %d %s", r.Status, r.Body)
	}
	if r := testserver.Fetch(t, http.MethodGet, srv.URL+"/metrics", "", "Authorization", "Bearer sdt_wrong"); r.Status != 401 {
		t.Errorf("/metrics with a wrong token: %d", r.Status)
	}
	tok := newToken(t, srv.DB, "prometheus")

	for i := 0; i < 3; i++ {
		srv.Get("/api/v1/status", 200)
	}
	srv.Get("/api/v1/notices/100", 200)
	srv.Get("/api/notices/100", 200)
	srv.Get("/api/v1/notices/100000", 404)
	srv.Get("/api/v2/summary.json", 200)
	srv.Get("/healthz", 200)

	fams := testserver.Scrape(t, srv.URL, tok)
	tmExpect(t, fams, 3, "statusd_http_requests_total", "route", "/api/v1/status", "method", "GET", "code", "200")
	tmExpect(t, fams, 1, "statusd_http_requests_total", "route", "/api/v1/notices/{id}", "method", "GET", "code", "200")
	tmExpect(t, fams, 1, "statusd_http_requests_total", "route", "/api/notices/{id}", "method", "GET", "code", "200")
	tmExpect(t, fams, 1, "statusd_http_requests_total", "route", "/api/v1/notices/{id}", "method", "GET", "code", "404")
	tmExpect(t, fams, 1, "statusd_http_requests_total", "route", "/api/v2/summary.json", "method", "GET", "code", "200")
	tmExpect(t, fams, 1, "statusd_http_requests_total", "route", "/healthz", "method", "GET", "code", "200")
	if got, _ := testserver.MetricValue(fams, "statusd_http_requests_total", "route", "/metrics", "method", "GET", "code", "401"); got < 2 {
		t.Errorf("refused scrapes counted %v, want 2", got)
	}
	tmExpect(t, fams, 3, "statusd_http_request_duration_seconds", "route", "/api/v1/status", "method", "GET")
	for _, m := range fams["statusd_http_request_duration_seconds"].Metric {
		if h := m.Histogram; h.GetSampleSum() <= 0 || h.GetSampleSum() > 10*float64(h.GetSampleCount()) {
			t.Errorf("duration sum %v for %d requests", h.GetSampleSum(), h.GetSampleCount())
		}
	}
	for _, m := range fams["statusd_http_requests_total"].Metric {
		for _, l := range m.Label {
			if l.GetName() == "route" && strings.Contains(l.GetValue(), "100") {
				t.Errorf("a raw path as a route label: %q", l.GetValue())
			}
		}
	}
	tmExpect(t, fams, 0, "statusd_http_rate_limited_total")
	tmExpect(t, fams, 0, "statusd_http_shed_total")
	if v, _ := testserver.MetricValue(fams, "statusd_http_requests_in_flight"); v != 1 { // the scrape itself
		t.Errorf("statusd_http_requests_in_flight = %v during a scrape, want 1", v)
	}
	version, ok := testserver.MetricValue(fams, "statusd_snapshot_version")
	if !ok || version < 1 {
		t.Errorf("statusd_snapshot_version = %v (%v)", version, ok)
	}
	if built, _ := testserver.MetricValue(fams, "statusd_snapshot_built_timestamp_seconds"); built < float64(start.Unix()-1) || built > float64(time.Now().Unix()+1) {
		t.Errorf("statusd_snapshot_built_timestamp_seconds = %v, not between %d and now", built, start.Unix())
	}
	if n, _ := testserver.MetricValue(fams, "statusd_snapshot_rebuild_duration_seconds"); n < 1 {
		t.Errorf("no rebuild observed")
	}
	if f := fams["statusd_build_info"]; f == nil || f.Metric[0].Gauge.GetValue() != 1 {
		t.Errorf("statusd_build_info: %v", f)
	}
	for _, name := range []string{"go_goroutines", "process_resident_memory_bytes"} {
		if fams[name] == nil {
			t.Errorf("%s missing", name)
		}
	}
	// By hand from the fixture: incident 100 (identified) lists 11;
	// maintenance 200 (underway) lists 30 and 20; 10 is degraded with its
	// child 11 (CONTRACT C3); the rest is operational.
	want := map[string]string{"20": "under_maintenance", "10": "degraded", "12": "operational", "11": "degraded",
		"30": "under_maintenance", "31": "operational"}
	if got := tmComponentStates(t, fams); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("component states %v, want %v", got, want)
	}
	if n := len(fams["statusd_component_state"].Metric); n != 18 {
		t.Errorf("%d component series, want 6 components x 3 states", n)
	}
	tmExpect(t, fams, 1, "statusd_component_state", "component_id", "11", "name", "API EU", "state", "degraded")
	tmExpect(t, fams, 1, "statusd_page_state", "state", "degraded")
	tmExpect(t, fams, 2, "statusd_notices", "type", "unplanned", "timeline", "present")
	tmExpect(t, fams, 1, "statusd_notices", "type", "planned", "timeline", "future")

	// Resolving incident 100 through the admin API: API EU is operational
	// at the next scrape, and the page is under maintenance.
	if r := srv.Authed(http.MethodPost, testserver.AdminRoot+"/notices/100/updates", tok, `{"state": "resolved", "content": "Fixed."}`); r.Status != 201 {
		t.Fatalf("resolving incident 100: %d %s", r.Status, r.Body)
	}
	fams = testserver.Scrape(t, srv.URL, tok)
	want["11"], want["10"] = "operational", "operational"
	if got := tmComponentStates(t, fams); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("after the write: component states %v, want %v", got, want)
	}
	tmExpect(t, fams, 0, "statusd_component_state", "component_id", "11", "name", "API EU", "state", "degraded")
	tmExpect(t, fams, 1, "statusd_page_state", "state", "under_maintenance")
	if v, _ := testserver.MetricValue(fams, "statusd_snapshot_version"); v <= version {
		t.Errorf("statusd_snapshot_version %v after a write, was %v", v, version)
	}
	tmExpect(t, fams, 1, "statusd_http_requests_total", "route", "POST /admin/api/v1/notices/{id}/updates", "method", "POST", "code", "201")
}

// TestPrometheusListeners: /metrics is on the admin listener when there is
// one, and needs no token with --metrics-public.
func TestPrometheusListeners(t *testing.T) {
	now := time.Now().UTC().Truncate(time.Second)
	t.Run("admin listener", func(t *testing.T) {
		srv := startServer(t, testserver.Fixture(now), options{adminListener: true})
		adminURL := srv.AdminURL
		tok := newToken(t, srv.DB, "prometheus")
		if r := testserver.Fetch(t, http.MethodGet, srv.URL+"/metrics", "", "Authorization", "Bearer "+tok); r.Status != 404 {
			t.Errorf("public listener /metrics: %d", r.Status)
		}
		if r := testserver.Fetch(t, http.MethodGet, adminURL+"/metrics", ""); r.Status != 401 {
			t.Errorf("admin listener /metrics without a token: %d", r.Status)
		}
		srv.Get("/api/v1/status", 200)
		fams := testserver.Scrape(t, adminURL, tok)
		tmExpect(t, fams, 1, "statusd_http_requests_total", "route", "/api/v1/status", "method", "GET", "code", "200")
		for _, path := range []string{"/healthz", "/readyz"} {
			if r := testserver.Fetch(t, http.MethodGet, adminURL+path, ""); r.Status != 200 {
				t.Errorf("admin listener %s: %d", path, r.Status)
			}
		}
	})
	t.Run("public", func(t *testing.T) {
		srv := startServer(t, testserver.Fixture(now), options{metricsPublic: true})
		fams := testserver.Scrape(t, srv.URL, "")
		tmExpect(t, fams, 1, "statusd_page_state", "state", "degraded")
	})
	t.Run("public on the admin listener", func(t *testing.T) {
		srv := startServer(t, testserver.Fixture(now), options{metricsPublic: true, adminListener: true})
		testserver.Scrape(t, srv.AdminURL, "")
		if r := testserver.Fetch(t, http.MethodGet, srv.URL+"/metrics", ""); r.Status != 404 {
			t.Errorf("public listener /metrics: %d", r.Status)
		}
	})
}

// TestPrometheusRateLimited: 429s are counted; the v2 endpoints share the
// v1 limit; the probes are never limited.
func TestPrometheusRateLimited(t *testing.T) {
	now := time.Now().UTC().Truncate(time.Second)
	srv := startServer(t, testserver.Fixture(now), options{rateLimit: 1, metricsPublic: true})
	limited := 0
	for _, path := range []string{"/api/v1/status", "/api/v1/status", "/api/v2/status.json", "/api/v2/summary.json"} {
		switch r := testserver.Fetch(t, http.MethodGet, srv.URL+path, ""); r.Status {
		case 429:
			limited++
			if r.Header.Get("Retry-After") == "" || testserver.At(t, r.JSON, "error.code") != "rate_limited" {
				t.Errorf("%s: 429 without Retry-After or JSON: %v %s", path, r.Header, r.Body)
			}
		case 200:
			if r.Header.Get("RateLimit-Limit") != "1" {
				t.Errorf("%s: RateLimit-Limit %q", path, r.Header.Get("RateLimit-Limit"))
			}
		default:
			t.Errorf("%s: %d", path, r.Status)
		}
	}
	if limited < 2 {
		t.Errorf("only %d of 4 requests in a row were limited at 1 a second", limited)
	}
	for i := 0; i < 20; i++ {
		for _, path := range []string{"/healthz", "/readyz"} {
			if r := testserver.Fetch(t, http.MethodGet, srv.URL+path, ""); r.Status != 200 {
				t.Fatalf("%s was refused: %d", path, r.Status)
			}
		}
	}
	fams := testserver.Scrape(t, srv.URL, "")
	tmExpect(t, fams, float64(limited), "statusd_http_rate_limited_total")
}

// TestHealthProbes: /healthz and /readyz with and without a page, and
// never refused by load shedding, which the shed counter counts.
func TestHealthProbes(t *testing.T) {
	now := time.Now().UTC().Truncate(time.Second)
	srv := startServer(t, testserver.Fixture(now), options{})
	for _, path := range []string{"/healthz", "/readyz"} {
		r := srv.Get(path, 200)
		testserver.AssertJSON(t, path, r.JSON, testserver.Obj{"status": "ok"})
		if r.Header.Get("Cache-Control") != "no-store" || r.Header.Get("X-Request-Id") == "" {
			t.Errorf("%s headers %v", path, r.Header)
		}
	}
	empty := startServer(t, nil, options{})
	empty.Get("/healthz", 200)
	r := empty.Get("/readyz", 503)
	testserver.AssertJSON(t, "/readyz without a page", r.JSON, testserver.Obj{"status": "degraded", "reasons": []any{"no page has been published yet: nothing to serve"}})

	// One request at a time, and one request holds it: notice 100 answers
	// 16 MiB (840 more updates of the longest content), which a client that reads only its first line keeps the
	// handler writing (Linux caps a socket's send buffer at 4 MiB by
	// default). While it does, every other API request of a crowd is shed,
	// and every probe is served; the shed counter and the request counter
	// count exactly the refusals.
	doc := testserver.Fixture(now)
	n := &doc.Notices[0]
	last := n.Updates[len(n.Updates)-1]
	for range 840 {
		n.Updates = append(n.Updates, testserver.Upd(last.State, last.CreatedAt, strings.Repeat("x", 20_000)))
	}
	busy := startServer(t, doc, options{maxInFlight: 1, metricsPublic: true})
	hold := tmHold(t, busy.URL, "/api/v1/notices/100")
	// A client of its own, whose idle connections are closed at the end:
	// a connection dialed but never used would hold the server's shutdown
	// for 5 seconds.
	client := &http.Client{Transport: &http.Transport{}}
	defer client.CloseIdleConnections()
	const workers, each = 8, 10
	var shed, other, probeFailures atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < each; i++ {
				res, err := client.Get(busy.URL + "/api/v1/notices?page=1")
				if err != nil {
					other.Add(1)
					continue
				}
				io.Copy(io.Discard, res.Body)
				res.Body.Close()
				if res.StatusCode == 503 {
					shed.Add(1)
				} else {
					other.Add(1)
				}
			}
		}()
	}
	for i := 0; i < 20; i++ {
		for _, path := range []string{"/healthz", "/readyz"} {
			res, err := client.Get(busy.URL + path)
			if err != nil {
				probeFailures.Add(1)
				continue
			}
			io.Copy(io.Discard, res.Body)
			res.Body.Close()
			if res.StatusCode != 200 {
				probeFailures.Add(1)
			}
		}
	}
	wg.Wait()
	client.CloseIdleConnections()
	if probeFailures.Load() > 0 {
		t.Errorf("%d probes failed under load", probeFailures.Load())
	}
	if shed.Load() != workers*each {
		t.Errorf("with the only place held, %d API requests were shed and %d were not; want all %d shed",
			shed.Load(), other.Load(), workers*each)
	}
	fams := testserver.Scrape(t, busy.URL, "")
	tmExpect(t, fams, workers*each, "statusd_http_shed_total")
	tmExpect(t, fams, workers*each, "statusd_http_requests_total", "route", "unmatched", "method", "GET", "code", "503")
	// Once the held request is let go, the place is free again.
	hold.Close()
	for deadline := time.Now().Add(5 * time.Second); busy.Do(http.MethodGet, "/api/v1/notices?page=1").Status != 200; {
		if time.Now().After(deadline) {
			t.Fatalf("the API still sheds 5 s after the held request was let go")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// tmHold sends GET path on a connection of its own, which reads the status
// line of the answer and nothing more: an answer larger than the socket
// buffers then keeps its handler in flight, blocked writing, until the
// connection is closed (at the latest when the test ends).
func tmHold(t *testing.T, base, path string) net.Conn {
	t.Helper()
	conn, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	if err := conn.(*net.TCPConn).SetReadBuffer(4 << 10); err != nil {
		t.Fatal(err)
	}
	conn.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := fmt.Fprintf(conn, "GET %s HTTP/1.1\r\nHost: statusd\r\n\r\n", path); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(conn).ReadString('\n')
	if err != nil || line != "HTTP/1.1 200 OK\r\n" {
		t.Fatalf("GET %s: %q %v, want a 200 under way", path, line, err)
	}
	return conn
}

// TestRequestLog: a sane X-Request-Id is echoed and logged, another is
// replaced; one debug line per request names the route pattern; tokens
// never reach the log.
func TestRequestLog(t *testing.T) {
	now := time.Now().UTC().Truncate(time.Second)
	srv := startServer(t, testserver.Fixture(now), options{debug: true})
	tok := newToken(t, srv.DB, "ops")
	const fake = "sdt_tm_not_a_real_token_but_secret"
	r := testserver.Fetch(t, http.MethodGet, srv.URL+"/api/v1/notices/100?token=in-the-query", "", "X-Request-Id", "tm-req-1", "Authorization", "Bearer "+fake)
	if r.Status != 200 || r.Header.Get("X-Request-Id") != "tm-req-1" {
		t.Fatalf("%d, X-Request-Id %q", r.Status, r.Header.Get("X-Request-Id"))
	}
	hexID := regexp.MustCompile(`^[0-9a-f]{32}$`)
	for _, bad := range []string{"has space", "x\"y", strings.Repeat("z", 65)} {
		if got := testserver.Fetch(t, http.MethodGet, srv.URL+"/api/v1/status", "", "X-Request-Id", bad).Header.Get("X-Request-Id"); !hexID.MatchString(got) {
			t.Errorf("X-Request-Id %q answered with %q", bad, got)
		}
	}
	if got := testserver.Fetch(t, http.MethodGet, srv.URL+"/", "").Header.Get("X-Request-Id"); !hexID.MatchString(got) {
		t.Errorf("no X-Request-Id: answered with %q", got)
	}
	if r := srv.Authed(http.MethodGet, testserver.AdminRoot+"/page", tok, ""); r.Status != 200 {
		t.Fatalf("admin GET /page: %d", r.Status)
	}
	testserver.Fetch(t, http.MethodGet, srv.URL+"/admin/api/v1/page", "", "Authorization", "Bearer "+tok, "X-Request-Id", "tm-admin-2")
	testserver.WaitLog(t, srv.Logs,
		`msg=request method=GET route=/api/v1/notices/{id} path=/api/v1/notices/100 status=200 `,
		`request_id=tm-req-1`,
		`route="GET /admin/api/v1/page" path=/admin/api/v1/page status=200 `,
		`request_id=tm-admin-2`)
	out := srv.Logs.String()
	for _, leak := range []string{tok, fake, "in-the-query", "Bearer", "Authorization"} {
		if strings.Contains(out, leak) {
			t.Errorf("the log holds %q", leak)
		}
	}
	line := regexp.MustCompile(`(?m)^.*request_id=tm-req-1.*$`).FindString(out)
	for _, key := range []string{"level=DEBUG", "method=GET", "route=", "status=200", "took=", "bytes="} {
		if !strings.Contains(line, key) {
			t.Errorf("the request line lacks %s: %s", key, line)
		}
	}
}
