package server

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/statusd/statusd"
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
