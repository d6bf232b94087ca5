package route

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/statusd/statusd"
)

// TestErrors: the one writer answers in the shape of the path, with the
// code's status; an internal error is logged once and answered with a
// generic message; Retry-After when the error says when to retry; never
// cacheable.
func TestErrors(t *testing.T) {
	var logs bytes.Buffer
	page := func(w http.ResponseWriter, r *http.Request, err error) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.WriteHeader(statusd.ErrorStatus(statusd.ErrorCode(err)))
		fmt.Fprintf(w, "<p>%s</p>", statusd.ErrorMessage(err))
	}
	errs := NewErrors(slog.New(slog.NewTextHandler(&logs, nil)), page)
	secret := errors.New("disk full at /var/lib/secret")
	for _, c := range []struct {
		name, path  string
		err         error
		status      int
		contentType string
		body        string
		retry       string
	}{
		{"JSON, bad parameter", "/api/v1/notices", statusd.Errorf(statusd.EInvalidParameter, "page: 0"), 400, "application/json; charset=utf-8",
			`{"error":{"status":400,"code":"invalid_parameter","message":"page: 0"}}`, ""},
		{"JSON alias root", "/v1", statusd.Errorf(statusd.ENotFound, "x"), 404, "application/json; charset=utf-8", `"code":"not_found"`, ""},
		{"JSON admin, internal", "/admin/api/v1/page", fmt.Errorf("writing: %w", secret), 500, "application/json; charset=utf-8",
			`{"error":{"status":500,"code":"internal","message":"internal error"}}`, ""},
		{"JSON probe, rate limit", "/readyz", Retry(statusd.Errorf(statusd.ERateLimited, "slow down"), 7), 429, "application/json; charset=utf-8",
			`"code":"rate_limited"`, "7"},
		{"HTML page", "/history", statusd.Errorf(statusd.ENotFound, "no such page"), 404, "text/html; charset=utf-8", "<p>no such page</p>", ""},
		{"HTML badge, busy", "/badge/status.svg", Retry(statusd.Errorf(statusd.EUnavailable, "busy"), 1), 503, "text/html; charset=utf-8", "<p>busy</p>", "1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			logs.Reset()
			rec := httptest.NewRecorder()
			errs.Write(rec, httptest.NewRequest(http.MethodGet, c.path, nil), c.err)
			h := rec.Header()
			if rec.Code != c.status || h.Get("Content-Type") != c.contentType || !strings.Contains(rec.Body.String(), c.body) ||
				h.Get("Retry-After") != c.retry || h.Get("Cache-Control") != "no-store" {
				t.Errorf("%d %v %s; want %d, %s, %q, Retry-After %q", rec.Code, h, rec.Body, c.status, c.contentType, c.body, c.retry)
			}
			internal := c.status == 500
			if n := strings.Count(logs.String(), "request failed"); n != map[bool]int{true: 1, false: 0}[internal] {
				t.Errorf("%d log lines:\n%s", n, logs.String())
			}
			if strings.Contains(rec.Body.String(), "secret") {
				t.Errorf("the answer discloses the error: %s", rec.Body)
			}
		})
	}
	// Without a page renderer, every path's errors are JSON.
	rec := httptest.NewRecorder()
	NewErrors(nil, nil).Write(rec, httptest.NewRequest(http.MethodGet, "/history", nil), statusd.Errorf(statusd.ENotFound, "x"))
	if rec.Code != 404 || rec.Header().Get("Content-Type") != "application/json; charset=utf-8" {
		t.Errorf("no renderer: %d %v", rec.Code, rec.Header())
	}
}

// TestRecover: a panic is an internal error answered in the shape of the
// path and logged once; http.ErrAbortHandler still aborts.
func TestRecover(t *testing.T) {
	var logs bytes.Buffer
	errs := NewErrors(slog.New(slog.NewTextHandler(&logs, nil)), nil)
	rec := httptest.NewRecorder()
	errs.Recover(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { panic("a bug") })).
		ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/api/v1/status", nil))
	if rec.Code != 500 || !strings.Contains(rec.Body.String(), `"message":"internal error"`) ||
		strings.Count(logs.String(), "panic: a bug") != 1 {
		t.Errorf("%d %s; log:\n%s", rec.Code, rec.Body, logs.String())
	}
	defer func() {
		if v := recover(); v != http.ErrAbortHandler {
			t.Errorf("recovered %v, want http.ErrAbortHandler", v)
		}
	}()
	errs.Recover(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { panic(http.ErrAbortHandler) })).
		ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/", nil))
}

// TestMux: method patterns, GET answering HEAD, a 405 with Allow for any
// other method in the shape of the path (never the ServeMux's
// text/plain), the wrapper on the routes and their 405, and the route
// names: a Read route by its path, any other by its pattern.
func TestMux(t *testing.T) {
	page := func(w http.ResponseWriter, r *http.Request, err error) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.WriteHeader(statusd.ErrorStatus(statusd.ErrorCode(err)))
	}
	m := NewMux(http.NewServeMux(), NewErrors(nil, page))
	ok := func(w http.ResponseWriter, r *http.Request) error { w.Write([]byte("ok")); return nil }
	tagged := m.With(func(h Handler) Handler {
		return func(w http.ResponseWriter, r *http.Request) error {
			w.Header().Set("X-Wrapped", "yes")
			return h(w, r)
		}
	})
	tagged.Read("/api/things/{id}", ok, func(w http.ResponseWriter, r *http.Request) error {
		w.WriteHeader(http.StatusNoContent)
		return nil
	})
	m.Read("/page", ok, nil)
	m.Handle("GET /admin/x", ok)
	m.Handle("PATCH /admin/x", ok)
	m.Handle("/", func(w http.ResponseWriter, r *http.Request) error { return statusd.Errorf(statusd.ENotFound, "none") })
	for _, c := range []struct {
		method, path string
		status       int
		allow        string
		contentType  string
		wrapped      bool
		pattern      string
	}{
		{"GET", "/api/things/1", 200, "", "", true, "/api/things/{id}"},
		{"HEAD", "/api/things/1", 200, "", "", true, "/api/things/{id}"},
		{"OPTIONS", "/api/things/1", 204, "", "", true, "/api/things/{id}"},
		{"POST", "/api/things/1", 405, "GET, HEAD, OPTIONS", "application/json; charset=utf-8", true, "/api/things/{id}"},
		{"GET", "/page", 200, "", "", false, "/page"},
		{"DELETE", "/page", 405, "GET, HEAD", "text/html; charset=utf-8", false, "/page"},
		{"GET", "/admin/x", 200, "", "", false, "GET /admin/x"},
		{"PATCH", "/admin/x", 200, "", "", false, "PATCH /admin/x"},
		{"PUT", "/admin/x", 405, "GET, PATCH", "application/json; charset=utf-8", false, "/admin/x"},
		{"POST", "/elsewhere", 404, "", "text/html; charset=utf-8", false, "/"},
	} {
		req := httptest.NewRequest(c.method, c.path, nil)
		rec := httptest.NewRecorder()
		m.ServeHTTP(rec, req)
		h := rec.Header()
		if rec.Code != c.status || h.Get("Allow") != c.allow || (c.contentType != "" && h.Get("Content-Type") != c.contentType) ||
			(h.Get("X-Wrapped") == "yes") != c.wrapped || req.Pattern != c.pattern {
			t.Errorf("%s %s: %d, Allow %q, %q, wrapped %q, pattern %q; want %d, %q, %q, %v, %q", c.method, c.path, rec.Code,
				h.Get("Allow"), h.Get("Content-Type"), h.Get("X-Wrapped"), req.Pattern, c.status, c.allow, c.contentType, c.wrapped, c.pattern)
		}
	}
}

// TestBearerToken: the token of Authorization: Bearer, the scheme in any
// letter case; none for another scheme or no header.
func TestBearerToken(t *testing.T) {
	for header, want := range map[string]string{
		"Bearer sgn_abc": "sgn_abc", "bearer  sdt_x ": "sdt_x", "BEARER t": "t",
		"Basic dXNlcg==": "", "Bearer": "", "": "",
	} {
		r := httptest.NewRequest(http.MethodPost, "/hooks/v1/1", nil)
		if header != "" {
			r.Header.Set("Authorization", header)
		}
		if got := BearerToken(r); got != want {
			t.Errorf("Authorization %q: %q, want %q", header, got, want)
		}
	}
}

// TestIsAPI: the paths of the JSON APIs, where CORS and the rate limit
// apply, and no other.
func TestIsAPI(t *testing.T) {
	for path, want := range map[string]bool{
		"/api/v1/status": true, "/v1": true, "/v1/notices": true, "/api/v2/summary.json": true, "/api/nope": true,
		"/": false, "/api": false, "/v1x": false, "/history": false, "/badge/status.svg": false, "/admin/api/v1/page": false,
	} {
		if IsAPI(path) != want {
			t.Errorf("IsAPI(%q) = %v, want %v", path, !want, want)
		}
	}
}
