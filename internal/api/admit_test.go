package api

import (
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/statusd/statusd/internal/shed"
	"github.com/statusd/statusd/internal/testenv"
)

// TestAdmitRefused: a computation refused for load (shed.ErrBusy) is a 503
// JSON error with Retry-After, never cached: once computations are
// admitted again, the same request is answered. A cached answer asks
// nothing of the gate.
func TestAdmitRefused(t *testing.T) {
	var refuse atomic.Bool
	var asked atomic.Int64
	s := demoServer(t, func(c *Config) {
		c.Admit = func(compute func()) error {
			asked.Add(1)
			if refuse.Load() {
				return shed.ErrBusy
			}
			compute()
			return nil
		}
	})
	mux := http.NewServeMux()
	s.Register(mux)
	srv := httptest.NewServer(mux)
	defer srv.Close()
	get := func(path string) (*http.Response, string) {
		return testenv.Fetch(t, http.MethodGet, srv.URL+path)
	}

	refuse.Store(true)
	res, body := get("/api/v1/notices?page=1")
	const want = `{"error":{"status":503,"code":"unavailable","message":"the server is at capacity; retry in a second"}}`
	if res.StatusCode != 503 || body != want {
		t.Fatalf("refused: %d %s, want 503 %s", res.StatusCode, body, want)
	}
	for k, v := range map[string]string{"Retry-After": "1", "Cache-Control": "no-store", "Content-Type": "application/json; charset=utf-8"} {
		if got := res.Header.Get(k); got != v {
			t.Errorf("%s: %q, want %q", k, got, v)
		}
	}

	// The demo page's list changes with the clock (timeDependent), so
	// its answer is kept to the end of the second it was computed in: the
	// cached answer is asked for within that second, again when the two
	// requests straddled two seconds.
	for attempt := 1; ; attempt++ {
		start := time.Now()
		refuse.Store(false)
		if res, _ := get("/api/v1/notices?page=1"); res.StatusCode != 200 || res.Header.Get("Retry-After") != "" {
			t.Fatalf("admitted: %d, Retry-After %q", res.StatusCode, res.Header.Get("Retry-After"))
		}
		before := asked.Load()
		refuse.Store(true)
		res, _ := get("/api/v1/notices?page=1")
		if !time.Now().Truncate(time.Second).Equal(start.Truncate(time.Second)) && attempt < 5 {
			continue
		}
		if res.StatusCode != 200 {
			t.Fatalf("cached answer: %d", res.StatusCode)
		}
		if asked.Load() != before {
			t.Error("a cached answer asked the gate")
		}
		return
	}
}
