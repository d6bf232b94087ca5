package server

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestGate: with its one place held, the gate refuses the next request at
// once with ErrBusy (503 unavailable, Retry-After 1), counts it as shed,
// and lets the exempt paths through; once the place is given back, a
// request is let through again.
func TestGate(t *testing.T) {
	g := NewGate(1)
	entered, release := make(chan struct{}), make(chan struct{})
	served := 0
	h := g.Wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		served++
		if r.URL.Path == "/hold" {
			entered <- struct{}{}
			<-release
		}
	}), func(w http.ResponseWriter, r *http.Request, err error) {
		var retry interface{ RetryAfter() int }
		if !errors.Is(err, ErrBusy) || !errors.As(err, &retry) || retry.RetryAfter() != 1 {
			t.Errorf("refused with %v", err)
		}
		w.WriteHeader(http.StatusServiceUnavailable)
	})
	do := func(path string) int {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
		return rec.Code
	}

	done := make(chan struct{})
	go func() {
		defer close(done)
		do("/hold")
	}()
	<-entered
	if got := do("/api/v1/notices"); got != 503 {
		t.Errorf("with the place held: %d, want 503", got)
	}
	if got := do("/healthz"); got != 200 {
		t.Errorf("an exempt path with the place held: %d, want 200", got)
	}
	if g.Shed() != 1 || served != 2 {
		t.Errorf("shed %d, served %d; want 1 shed, 2 served (the held one and the exempt one)", g.Shed(), served)
	}
	close(release)
	<-done
	if got := do("/api/v1/notices"); got != 200 || g.Shed() != 1 {
		t.Errorf("with the place given back: %d, shed %d; want 200, 1", got, g.Shed())
	}
}

// TestGateUnbounded: a gate of no places refuses nothing, however many
// requests are in flight.
func TestGateUnbounded(t *testing.T) {
	g := NewGate(0)
	entered, release := make(chan struct{}), make(chan struct{})
	h := g.Wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/hold" {
			entered <- struct{}{}
			<-release
		}
	}), func(w http.ResponseWriter, r *http.Request, err error) { t.Errorf("refused %s", r.URL.Path) })
	done := make(chan struct{})
	for range 3 {
		go func() {
			h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/hold", nil))
			done <- struct{}{}
		}()
		<-entered
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/", nil))
	close(release)
	for range 3 {
		<-done
	}
	if rec.Code != 200 || g.Shed() != 0 {
		t.Errorf("with 3 requests in flight: %d, shed %d; want 200, 0", rec.Code, g.Shed())
	}
}
