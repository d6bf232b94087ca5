package telemetry

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// discard is a ResponseWriter that keeps nothing.
type discard struct{ h http.Header }

func (d *discard) Header() http.Header         { return d.h }
func (d *discard) Write(p []byte) (int, error) { return len(p), nil }
func (d *discard) WriteHeader(int)             {}

// BenchmarkMiddleware is what the middleware adds to every request (id,
// metrics by route, the debug log check), around a mux route.
func BenchmarkMiddleware(b *testing.B) {
	m := New(Config{})
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/v1/status", func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("{}")) })
	h := m.Middleware(mux)
	req := httptest.NewRequest(http.MethodGet, "/api/v1/status", nil)
	w := &discard{h: http.Header{}}
	b.ReportAllocs()
	for b.Loop() {
		clear(w.h)
		h.ServeHTTP(w, req)
	}
}
