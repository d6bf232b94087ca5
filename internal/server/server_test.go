package server

import (
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/statusd/statusd/internal/route"
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
