package server

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/internal/api"
	"github.com/statusd/statusd/internal/demo"
	"github.com/statusd/statusd/internal/route"
	"github.com/statusd/statusd/internal/snapshot"
	"github.com/statusd/statusd/internal/sqlstore"
	"github.com/statusd/statusd/internal/telemetry"
	"github.com/statusd/statusd/internal/web"
)

// TestWriteError: the gate's refusal is answered in the shape of its path,
// JSON under /api/, /v1/ and /admin/ (and for the machines' /metrics and
// probes), the status page's HTML error page elsewhere, never text/plain;
// 503 with Retry-After either way.
func TestWriteError(t *testing.T) {
	log := slog.New(slog.DiscardHandler)
	errs := route.NewErrors(log, web.New(web.Config{Log: log}).ErrorPage)
	for _, c := range []struct{ path, contentType, body string }{
		{"/api/v1/notices", "application/json; charset=utf-8",
			`{"error":{"status":503,"code":"unavailable","message":"the server is at capacity; retry in a second"}}`},
		{"/v1/status", "application/json; charset=utf-8", `"code":"unavailable"`},
		{"/v1", "application/json; charset=utf-8", `"code":"unavailable"`},
		{"/admin/api/v1/page", "application/json; charset=utf-8", `"code":"unavailable"`},
		{"/metrics", "application/json; charset=utf-8", `"code":"unavailable"`},
		{"/", "text/html; charset=utf-8", "The status page is very busy right now. Please try again in a second."},
		{"/history", "text/html; charset=utf-8", "<!DOCTYPE html>"},
		{"/badge/status.svg", "text/html; charset=utf-8", "very busy"},
	} {
		rec := httptest.NewRecorder()
		errs.Write(rec, httptest.NewRequest(http.MethodGet, c.path, nil), ErrBusy)
		if rec.Code != 503 || rec.Header().Get("Retry-After") != "1" || rec.Header().Get("Content-Type") != c.contentType ||
			!strings.Contains(rec.Body.String(), c.body) {
			t.Errorf("%s: %d, Retry-After %q, %q, %.200s; want 503, 1, %q with %q", c.path, rec.Code,
				rec.Header().Get("Retry-After"), rec.Header().Get("Content-Type"), rec.Body, c.contentType, c.body)
		}
	}
}

// TestMethods: every route of New answers another method 405 with Allow in
// the shape of its path, JSON or HTML, never the ServeMux's text/plain,
// the probes and /metrics included, on both listeners.
func TestMethods(t *testing.T) {
	store, holder := demoPage(t)
	log := slog.New(slog.DiscardHandler)
	const jsonType, htmlType = "application/json; charset=utf-8", "text/html; charset=utf-8"
	for _, adminListener := range []bool{false, true} {
		pub, adm := New(Config{Store: store, Snapshots: holder, Variant: statusd.VariantA, Gate: NewGate(0),
			Metrics: telemetry.New(telemetry.Config{Snapshots: holder}), MetricsPublic: true, AdminListener: adminListener,
			Now: time.Now, Log: log})
		if adm == nil {
			adm = pub
		}
		for _, c := range []struct {
			h                   http.Handler
			method, path, allow string
			contentType         string
		}{
			{pub, "POST", "/api/v1/status", "GET, HEAD, OPTIONS", jsonType},
			{pub, "DELETE", "/v1/notices/1", "GET, HEAD, OPTIONS", jsonType},
			{pub, "PUT", "/api/v2/summary.json", "GET, HEAD, OPTIONS", jsonType},
			{pub, "POST", "/", "GET, HEAD", htmlType},
			{pub, "POST", "/history.atom", "GET, HEAD", htmlType},
			{pub, "DELETE", "/assets/app.js", "GET, HEAD", htmlType},
			{pub, "POST", "/badge/status.svg", "GET, HEAD", htmlType},
			{pub, "POST", "/healthz", "GET, HEAD", jsonType},
			{adm, "PUT", "/readyz", "GET, HEAD", jsonType},
			{adm, "POST", "/metrics", "GET, HEAD", jsonType},
		} {
			rec := httptest.NewRecorder()
			c.h.ServeHTTP(rec, httptest.NewRequest(c.method, c.path, nil))
			if rec.Code != 405 || rec.Header().Get("Allow") != c.allow || rec.Header().Get("Content-Type") != c.contentType {
				t.Errorf("admin listener %v, %s %s: %d, Allow %q, %q; want 405, %q, %q", adminListener, c.method, c.path,
					rec.Code, rec.Header().Get("Allow"), rec.Header().Get("Content-Type"), c.allow, c.contentType)
			}
		}
	}
}

// demoPage opens a fresh SQLite store holding the demo page, and a holder
// of its snapshot.
func demoPage(t testing.TB) (*sqlstore.Store, *snapshot.Holder) {
	ctx := context.Background()
	store, err := sqlstore.Open(ctx, filepath.Join(t.TempDir(), "s.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	if err := store.Import(ctx, demo.Document(time.Now()), false); err != nil {
		t.Fatal(err)
	}
	holder := snapshot.NewHolder(store, snapshot.Options{Variant: statusd.VariantA}, time.Now, slog.New(slog.DiscardHandler))
	if err := holder.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	return store, holder
}

// TestCachedHeaders: the headers of an API answer through New's public
// handler, on a real HTTP server, the first time (routed) and from the
// cache (served by the front, before routing): a 200 with the body's
// headers, and a 304 to its ETag with the same headers but those of the
// body (the 304 the benchmark's If-None-Match rows ask for). The request
// id differs from answer to answer; Date is net/http's.
func TestCachedHeaders(t *testing.T) {
	store, holder := demoPage(t)
	log := slog.New(slog.DiscardHandler)
	gate := NewGate(512)
	pub, _ := New(Config{Store: store, Snapshots: holder, Variant: statusd.VariantA, Gate: gate,
		Metrics: telemetry.New(telemetry.Config{Snapshots: holder, Shed: gate.Shed}),
		Cache:   api.CacheControl{MaxAge: 5 * time.Second, StaleWhileRevalidate: 30 * time.Second, StaleIfError: 24 * time.Hour},
		Now:     time.Now, Log: log})
	srv := httptest.NewServer(pub)
	t.Cleanup(srv.Close)
	client := &http.Client{Transport: &http.Transport{DisableCompression: true}}
	get := func(inm string) (*http.Response, []byte) {
		req, _ := http.NewRequest(http.MethodGet, srv.URL+"/api/v1/status", nil)
		if inm != "" {
			req.Header.Set("If-None-Match", inm)
		}
		res, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		body, _ := io.ReadAll(res.Body)
		return res, body
	}
	requestID := regexp.MustCompile(`^[0-9a-f]{32}$`)
	common := func(res *http.Response) http.Header {
		h := res.Header.Clone()
		if !requestID.MatchString(h.Get("X-Request-Id")) {
			t.Errorf("%d: X-Request-Id %q, want 32 hex digits", res.StatusCode, h.Get("X-Request-Id"))
		}
		if _, err := http.ParseTime(h.Get("Date")); err != nil {
			t.Errorf("%d: Date %q: %v", res.StatusCode, h.Get("Date"), err)
		}
		h.Del("X-Request-Id")
		h.Del("Date")
		return h
	}
	first, body := get("")
	etag := first.Header.Get("Etag")
	if !regexp.MustCompile(`^"[0-9a-f]{16}"$`).MatchString(etag) {
		t.Fatalf("ETag %q, want a strong tag of 16 hex digits", etag)
	}
	want := http.Header{
		"Access-Control-Allow-Origin":   {"*"},
		"Access-Control-Expose-Headers": {"ETag, RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, Retry-After, X-Ignored-Filters, X-Request-Id"},
		"Cache-Control":                 {"public, max-age=5, stale-while-revalidate=30, stale-if-error=86400"},
		"Etag":                          {etag},
		"Vary":                          {"Accept-Encoding"},
		"X-Content-Type-Options":        {"nosniff"},
	}
	want200 := want.Clone()
	want200["Content-Type"] = []string{"application/json; charset=utf-8"}
	want200["Content-Length"] = []string{strconv.Itoa(len(body))}
	for i, c := range []struct {
		inm  string
		code int
		want http.Header
	}{
		{"", 200, want200}, // from the cache now
		{etag, 304, want},  // from the cache
		{`"other"`, 200, want200},
	} {
		res, b := get(c.inm)
		if got := common(res); res.StatusCode != c.code || !reflect.DeepEqual(got, c.want) {
			t.Errorf("request %d (If-None-Match %q): %d, headers\n%v\nwant %d,\n%v", i+2, c.inm, res.StatusCode, got, c.code, c.want)
		}
		if c.code == 200 && string(b) != string(body) || c.code == 304 && len(b) != 0 {
			t.Errorf("request %d: body %q", i+2, b)
		}
	}
	if got := common(first); first.StatusCode != 200 || !reflect.DeepEqual(got, want200) {
		t.Errorf("first request: %d, headers\n%v\nwant 200,\n%v", first.StatusCode, got, want200)
	}
}
