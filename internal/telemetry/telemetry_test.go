package telemetry

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/internal/snapshot"
	"github.com/statusd/statusd/internal/testenv"
)

// scrape serves the metrics and parses them as Prometheus would.
func scrape(t *testing.T, h http.Handler) map[string]*dto.MetricFamily {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	if rec.Code != 200 {
		t.Fatalf("/metrics: %d %s", rec.Code, rec.Body)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(rec.Body)
	if err != nil {
		t.Fatalf("parsing the exposition: %v", err)
	}
	return fams
}

// value returns the value of the series of family name with exactly the
// labels given (name=value pairs), and whether there is one.
func value(fams map[string]*dto.MetricFamily, name string, labels ...string) (float64, bool) {
	f := fams[name]
	if f == nil {
		return 0, false
	}
next:
	for _, m := range f.Metric {
		if len(m.Label) != len(labels)/2 {
			continue
		}
		for i := 0; i+1 < len(labels); i += 2 {
			found := false
			for _, l := range m.Label {
				if l.GetName() == labels[i] && l.GetValue() == labels[i+1] {
					found = true
				}
			}
			if !found {
				continue next
			}
		}
		switch {
		case m.Counter != nil:
			return m.Counter.GetValue(), true
		case m.Gauge != nil:
			return m.Gauge.GetValue(), true
		case m.Histogram != nil:
			return float64(m.Histogram.GetSampleCount()), true
		case m.Untyped != nil:
			return m.Untyped.GetValue(), true
		}
	}
	return 0, false
}

// TestNewRequestIDs: request ids made at once, from goroutines at once,
// are each given once, 32 hex digits of which the first 16 are the
// process's, each a header value of its own (an append copies it); and
// making one allocates almost nothing: two objects for a batch.
func TestNewRequestIDs(t *testing.T) {
	const goroutines, each = 8, 3 * idsPerBatch
	ids := make(chan string, goroutines*each)
	var wg sync.WaitGroup
	for range goroutines {
		wg.Go(func() {
			for range each {
				v := newRequestID()
				if len(v) != 1 || cap(v) != 1 {
					t.Errorf("header value %q of capacity %d", v, cap(v))
				}
				ids <- v[0]
			}
		})
	}
	wg.Wait()
	close(ids)
	seen := map[string]bool{}
	for id := range ids {
		if seen[id] || len(id) != 32 || !saneRequestID(id) || id[:16] != idPrefix {
			t.Errorf("id %q: given before %v, or not 32 hex digits after the prefix %s", id, seen[id], idPrefix)
		}
		seen[id] = true
	}
	if allocs := testing.AllocsPerRun(10*idsPerBatch, func() { newRequestID() }); allocs > 3.0/idsPerBatch {
		t.Errorf("%v allocations an id, want at most %v (a batch's two)", allocs, 3.0/idsPerBatch)
	}
}

func TestSaneRequestID(t *testing.T) {
	for _, tc := range []struct {
		id   string
		sane bool
	}{
		{"abc", true},
		{"A-b_c.9", true},
		{strings.Repeat("x", 64), true},
		{strings.Repeat("x", 65), false},
		{"", false},
		{"has space", false},
		{"new\nline", false},
		{"quote\"", false},
		{"ünïcode", false},
		{"semi;colon", false},
	} {
		if got := saneRequestID(tc.id); got != tc.sane {
			t.Errorf("saneRequestID(%q) = %v, want %v", tc.id, got, tc.sane)
		}
	}
	a, b := newRequestID()[0], newRequestID()[0]
	if !saneRequestID(a) || len(a) != 32 || a == b {
		t.Errorf("newRequestID gave %q and %q", a, b)
	}
}

// TestMiddleware sends requests through the middleware around a mux and
// checks the request id, the metrics by pattern and the log line.
func TestMiddleware(t *testing.T) {
	logs := &testenv.LogBuffer{}
	log := slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	m := New(Config{Log: log, Version: "1.2.3", Commit: "abc"})
	mux := http.NewServeMux()
	mux.HandleFunc("GET /things/{id}", func(w http.ResponseWriter, r *http.Request) {
		if w.Header().Get(RequestIDHeader) == "" {
			t.Error("no request id on the response when the handler runs")
		}
		w.Write([]byte("thing " + r.PathValue("id")))
	})
	mux.HandleFunc("/limited", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusTooManyRequests)
	})
	mux.HandleFunc("/silent", func(w http.ResponseWriter, r *http.Request) {})
	srv := httptest.NewServer(m.Middleware(mux))
	defer srv.Close()

	get := func(path string, header ...string) *http.Response {
		t.Helper()
		req, _ := http.NewRequest(http.MethodGet, srv.URL+path, nil)
		for i := 0; i+1 < len(header); i += 2 {
			req.Header.Set(header[i], header[i+1])
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		return res
	}
	const secret = "sdt_this-must-never-be-logged"
	res := get("/things/123?token=query-secret", "X-Request-Id", "client-id_1.2", "Authorization", "Bearer "+secret)
	if got := res.Header.Get(RequestIDHeader); got != "client-id_1.2" {
		t.Errorf("a sane X-Request-Id came back as %q", got)
	}
	hexID := regexp.MustCompile(`^[0-9a-f]{32}$`)
	for _, bad := range []string{"bad id", strings.Repeat("a", 65), "<script>"} {
		res := get("/things/456", "X-Request-Id", bad)
		if got := res.Header.Get(RequestIDHeader); !hexID.MatchString(got) {
			t.Errorf("X-Request-Id %q was answered with %q, want a new id", bad, got)
		}
	}
	res = get("/things/789")
	if got := res.Header.Get(RequestIDHeader); !hexID.MatchString(got) {
		t.Errorf("no X-Request-Id: answered with %q, want a new id", got)
	}
	get("/limited")
	get("/silent")
	get("/nowhere")
	res = get("/things/123", "X-Request-Id", "x")
	if res.StatusCode != 200 {
		t.Fatalf("GET /things/123: %d", res.StatusCode)
	}

	fams := scrape(t, m.Handler())
	for _, tc := range []struct {
		labels []string
		want   float64
	}{
		{[]string{"route", "GET /things/{id}", "method", "GET", "code", "200"}, 6},
		{[]string{"route", "/limited", "method", "GET", "code", "429"}, 1},
		{[]string{"route", "/silent", "method", "GET", "code", "200"}, 1},
		{[]string{"route", "unmatched", "method", "GET", "code", "404"}, 1},
	} {
		if got, ok := value(fams, "statusd_http_requests_total", tc.labels...); !ok || got != tc.want {
			t.Errorf("statusd_http_requests_total%v = %v (%v), want %v", tc.labels, got, ok, tc.want)
		}
	}
	if got, _ := value(fams, "statusd_http_request_duration_seconds", "route", "GET /things/{id}", "method", "GET"); got != 6 {
		t.Errorf("duration histogram count %v, want 6", got)
	}
	if got, _ := value(fams, "statusd_http_rate_limited_total"); got != 1 {
		t.Errorf("statusd_http_rate_limited_total = %v, want 1", got)
	}
	if got, _ := value(fams, "statusd_http_requests_in_flight"); got != 0 {
		t.Errorf("statusd_http_requests_in_flight = %v, want 0", got)
	}
	for _, mf := range fams["statusd_http_requests_total"].Metric {
		for _, l := range mf.Label {
			if l.GetName() == "route" && strings.ContainsAny(l.GetValue(), "0123456789") {
				t.Errorf("a raw path leaked into the route label: %q", l.GetValue())
			}
		}
	}
	if _, ok := value(fams, "statusd_build_info", "version", "1.2.3", "commit", "abc", "goversion", runtime.Version()); !ok {
		t.Errorf("statusd_build_info missing or mislabelled: %v", fams["statusd_build_info"])
	}
	for _, name := range []string{"go_goroutines", "process_cpu_seconds_total", "statusd_snapshot_rebuild_duration_seconds"} {
		if fams[name] == nil {
			t.Errorf("family %s missing", name)
		}
	}
	if fams["statusd_http_shed_total"] != nil || fams["statusd_component_state"] != nil {
		t.Errorf("families registered without their source")
	}

	out := logs.String()
	for _, leak := range []string{secret, "query-secret", "Authorization", "Bearer"} {
		if strings.Contains(out, leak) {
			t.Errorf("the log holds %q:\n%s", leak, out)
		}
	}
	want := `level=DEBUG msg=request method=GET route="GET /things/{id}" path=/things/123 status=200 bytes=9 `
	if !strings.Contains(out, want) || !strings.Contains(out, "request_id=client-id_1.2") {
		t.Errorf("the log has no line like %q with request_id=client-id_1.2:\n%s", want, out)
	}
	if n := strings.Count(out, "msg=request "); n != 9 {
		t.Errorf("%d request lines, want 9 (one per request):\n%s", n, out)
	}

	// Above debug, nothing is logged per request.
	quiet := &testenv.LogBuffer{}
	m2 := New(Config{Log: slog.New(slog.NewTextHandler(quiet, nil))})
	rec := httptest.NewRecorder()
	m2.Middleware(mux).ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/things/1", nil))
	if quiet.String() != "" {
		t.Errorf("logged at info level: %s", quiet)
	}
}

// TestShedAndRebuild: the shed counter reads its function at scrape time;
// ObserveRebuild feeds the rebuild histogram.
func TestShedAndRebuild(t *testing.T) {
	shed := int64(3)
	m := New(Config{Shed: func() int64 { return shed }})
	m.ObserveRebuild(2 * time.Millisecond)
	m.ObserveRebuild(5 * time.Millisecond)
	shed = 7
	fams := scrape(t, m.Handler())
	if got, _ := value(fams, "statusd_http_shed_total"); got != 7 {
		t.Errorf("statusd_http_shed_total = %v, want 7", got)
	}
	h := fams["statusd_snapshot_rebuild_duration_seconds"].Metric[0].Histogram
	if h.GetSampleCount() != 2 || h.GetSampleSum() < 0.0069 || h.GetSampleSum() > 0.0071 {
		t.Errorf("rebuild histogram count %d sum %v, want 2 and 0.007", h.GetSampleCount(), h.GetSampleSum())
	}
}

// holder is a Snapshots that returns what it is given.
type holder struct{ snap *snapshot.Snapshot }

func (h *holder) Current() *snapshot.Snapshot { return h.snap }

func upd(state statusd.State, at time.Time) statusd.Update {
	return statusd.Update{ID: at.UnixMilli(), State: state, Content: "x", CreatedAt: at, UpdatedAt: at}
}

// TestPageCollector: every component has a series per state, 1 for the
// current one; the page state, notices and snapshot gauges follow the
// snapshot read at scrape time; nothing is emitted without a page.
func TestPageCollector(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	parent := int64(1)
	doc := &statusd.Document{
		Page: statusd.Page{Name: "P", URL: "https://p.test", CreatedAt: now.Add(-time.Hour), UpdatedAt: now.Add(-time.Hour)},
		Components: []statusd.Component{
			{ID: 1, Position: 1, Name: "API", CreatedAt: now, UpdatedAt: now},
			{ID: 2, ParentID: &parent, Position: 2, Name: "API \"EU\"", CreatedAt: now, UpdatedAt: now},
			{ID: 3, Position: 3, Name: "DB", CreatedAt: now, UpdatedAt: now},
		},
		Notices: []statusd.Notice{
			{ID: 10, Type: statusd.Unplanned, Subject: "Down", ComponentIDs: []int64{2}, CreatedAt: now.Add(-time.Hour), UpdatedAt: now.Add(-time.Hour),
				Updates: []statusd.Update{upd(statusd.Investigating, now.Add(-time.Hour))}},
			{ID: 11, Type: statusd.Planned, Subject: "Upgrade", ComponentIDs: []int64{3}, CreatedAt: now.Add(-2 * time.Hour), UpdatedAt: now.Add(-time.Minute),
				BeginsAt: new(now.Add(-time.Minute)), EndsAt: new(now.Add(time.Hour)),
				Updates: []statusd.Update{upd(statusd.Scheduled, now.Add(-2*time.Hour)), upd(statusd.Underway, now.Add(-time.Minute))}},
		},
	}
	h := &holder{}
	m := New(Config{Snapshots: h})
	fams := scrape(t, m.Handler())
	for _, name := range []string{"statusd_component_state", "statusd_page_state", "statusd_snapshot_version", "statusd_notices"} {
		if fams[name] != nil {
			t.Errorf("%s emitted while no page is published", name)
		}
	}
	h.snap = snapshot.Build(doc, 42, now, snapshot.Options{Variant: statusd.VariantB})
	fams = scrape(t, m.Handler())
	// 1 is degraded with its child 2 (CONTRACT C3).
	want := map[[2]string]float64{
		{"1", "operational"}: 0, {"1", "degraded"}: 1, {"1", "under_maintenance"}: 0,
		{"2", "operational"}: 0, {"2", "degraded"}: 1, {"2", "under_maintenance"}: 0,
		{"3", "operational"}: 0, {"3", "degraded"}: 0, {"3", "under_maintenance"}: 1,
	}
	names := map[string]string{"1": "API", "2": "API \"EU\"", "3": "DB"}
	for k, v := range want {
		if got, ok := value(fams, "statusd_component_state", "component_id", k[0], "name", names[k[0]], "state", k[1]); !ok || got != v {
			t.Errorf("statusd_component_state{component_id=%q,state=%q} = %v (%v), want %v", k[0], k[1], got, ok, v)
		}
	}
	if n := len(fams["statusd_component_state"].Metric); n != 9 {
		t.Errorf("%d component series, want 9", n)
	}
	if got, _ := value(fams, "statusd_page_state", "state", "degraded"); got != 1 {
		t.Errorf("page degraded = %v", got)
	}
	if got, _ := value(fams, "statusd_page_state", "state", "under_maintenance"); got != 0 {
		t.Errorf("page under_maintenance = %v", got)
	}
	if got, _ := value(fams, "statusd_snapshot_version"); got != 42 {
		t.Errorf("statusd_snapshot_version = %v", got)
	}
	if got, _ := value(fams, "statusd_snapshot_built_timestamp_seconds"); got != float64(now.Unix()) {
		t.Errorf("statusd_snapshot_built_timestamp_seconds = %v, want %d", got, now.Unix())
	}
	if got, _ := value(fams, "statusd_notices", "type", "unplanned", "timeline", "present"); got != 1 {
		t.Errorf("present unplanned notices = %v", got)
	}
	if got, _ := value(fams, "statusd_notices", "type", "planned", "timeline", "future"); got != 0 {
		t.Errorf("future planned notices = %v", got)
	}
	if n := len(fams["statusd_notices"].Metric); n != 12 {
		t.Errorf("%d notice series, want 12 (3 types x 4 timelines)", n)
	}
}

// TestSeries: the instruments of a route, method and status are made
// once, whoever asks first among goroutines at once, and found again
// without allocating; the series made before a new one are kept.
func TestSeries(t *testing.T) {
	m := New(Config{})
	var wg sync.WaitGroup
	got := make([]requestSeries, 8)
	for i := range got {
		wg.Go(func() {
			m.series("/api/v1/status", http.MethodGet, 200)
			got[i] = m.series("/api/v1/notices", http.MethodGet, 200+i%2)
		})
	}
	wg.Wait()
	for i := range got {
		if got[i] != got[i%2] {
			t.Errorf("goroutine %d got other instruments for the same series", i)
		}
	}
	if n := len(*m.seriesOf.Load()); n != 3 {
		t.Errorf("%d series kept, want 3", n)
	}
	if allocs := testing.AllocsPerRun(100, func() { m.series("/api/v1/status", http.MethodGet, 200) }); allocs != 0 {
		t.Errorf("a known series: %v allocations, want none", allocs)
	}
}
