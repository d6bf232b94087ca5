package server

import (
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/internal/telemetry"
)

// TestPressure counts the requests of New's public listener, on a real
// HTTP server (those answered from the API's cache too, not the admin
// listener's), and reads Busy on a made-up clock: busy is more than 2,000
// requests a second over 200 ms or more, that is more than 400 in 200 ms.
func TestPressure(t *testing.T) {
	store, holder := demoPage(t)
	t0 := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	now := t0
	p := NewPressure(func() time.Time { return now })
	pub, adm := New(Config{Store: store, Snapshots: holder, Variant: statusd.VariantA, Gate: NewGate(0), Pressure: p,
		Metrics: telemetry.New(telemetry.Config{Snapshots: holder}), AdminListener: true,
		Now: time.Now, Log: slog.New(slog.DiscardHandler)})
	public, admin := httptest.NewServer(pub), httptest.NewServer(adm)
	t.Cleanup(public.Close)
	t.Cleanup(admin.Close)
	getFrom := func(srv *httptest.Server, n int) {
		t.Helper()
		for range n {
			resp, err := srv.Client().Get(srv.URL + "/api/v1/status")
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
		}
	}
	get := func(n int) { t.Helper(); getFrom(public, n) }
	check := func(what string, ms int, want bool) {
		t.Helper()
		now = t0.Add(time.Duration(ms) * time.Millisecond)
		if got := p.Busy(); got != want {
			t.Errorf("%s (at %d ms): Busy = %v, want %v", what, ms, got, want)
		}
	}
	get(401)
	check("401 requests, too soon to measure", 100, false)
	check("401 requests in 200 ms", 200, true)
	get(400)
	getFrom(admin, 50)
	check("400 requests in 200 ms, and 50 to the admin listener", 400, false)
	get(2000)
	check("2,000 more requests, 50 ms later: the last measure stands", 450, false)
	get(1)
	check("2,001 requests in 1 s", 1400, true)
	check("none in 1 s", 2400, false)

	if h := (*Pressure)(nil).Wrap(http.NotFoundHandler()); h == nil {
		t.Error("a nil Pressure's Wrap returned nil, want the handler")
	}
}
