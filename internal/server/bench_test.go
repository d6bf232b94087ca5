package server

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/bench/large"
	"github.com/statusd/statusd/internal/api"
	"github.com/statusd/statusd/internal/httpjson"
	"github.com/statusd/statusd/internal/respcache"
	"github.com/statusd/statusd/internal/route"
	"github.com/statusd/statusd/internal/snapshot"
	"github.com/statusd/statusd/internal/sqlstore"
	"github.com/statusd/statusd/internal/telemetry"
)

var (
	benchOnce    sync.Once
	benchHandler http.Handler
	benchErr     error
)

// benchPublic is the public handler of New as statusd serve builds it for
// bench/run.sh (--rate-limit 0, --max-in-flight 512, the default cache
// directives, a text log at info), on a page of 1,000 components and 100,000
// notices in a real SQLite store.
func benchPublic(b *testing.B) http.Handler {
	benchOnce.Do(func() {
		ctx := context.Background()
		dir, err := os.MkdirTemp("", "statusd-server-bench-")
		if err != nil {
			benchErr = err
			return
		}
		defer os.RemoveAll(dir) // the snapshot holds the page; the store is not read again
		store, err := sqlstore.Open(ctx, filepath.Join(dir, "bench.db"))
		if err != nil {
			benchErr = err
			return
		}
		if benchErr = store.Import(ctx, large.Document(1000, 100_000, time.Now()), false); benchErr != nil {
			return
		}
		// statusd serve's logger: text, at info (the request log line is
		// at debug: the telemetry middleware asks the handler each time).
		log := slog.New(slog.NewTextHandler(io.Discard, nil))
		holder := snapshot.NewHolder(store, snapshot.Options{Variant: statusd.VariantA}, time.Now, log)
		if benchErr = holder.Refresh(ctx); benchErr != nil {
			return
		}
		gate := NewGate(512)
		benchHandler, _ = New(Config{Store: store, Snapshots: holder, Variant: statusd.VariantA, Gate: gate,
			Metrics: telemetry.New(telemetry.Config{Snapshots: holder, Shed: gate.Shed, Log: log}),
			Cache:   api.CacheControl{MaxAge: 5 * time.Second, StaleWhileRevalidate: 30 * time.Second, StaleIfError: 24 * time.Hour},
			Now:     time.Now, Log: log})
	})
	if benchErr != nil {
		b.Fatal(benchErr)
	}
	return benchHandler
}

// discard is a ResponseWriter that keeps nothing, so that the benchmark
// measures the handler, not a recorder.
type discard struct {
	h      http.Header
	status int
}

func (d *discard) Header() http.Header         { return d.h }
func (d *discard) Write(p []byte) (int, error) { return len(p), nil }
func (d *discard) WriteHeader(status int)      { d.status = status }

// BenchmarkNotModified is the request of bench/run.sh's If-None-Match
// rows, through the whole public handler: a GET, without Accept-Encoding,
// whose If-None-Match names the ETag of the answer statusd just gave, so
// that it is answered 304 from the cache.
func BenchmarkNotModified(b *testing.B) {
	h := benchPublic(b)
	now := time.Now().UTC()
	yesterday := now.AddDate(0, 0, -1).Format(statusd.DateLayout)
	for _, c := range []struct{ name, path string }{
		{"status", "/api/v1/status"},
		{"notices", "/api/v1/notices?page=3&filter[type_eq]=unplanned"},
		{"notice", "/api/v1/notices/500"},
		{"metrics", "/api/v1/components/1/metrics?timeframe_start=" +
			statusd.EarliestStart(now).Format(statusd.DateLayout) + "&timeframe_end=" + yesterday},
	} {
		b.Run(c.name, func(b *testing.B) {
			req := httptest.NewRequest(http.MethodGet, c.path, nil)
			req.Host = "127.0.0.1:8080"
			w := &discard{h: http.Header{}}
			h.ServeHTTP(w, req)
			if w.status != http.StatusOK || w.h.Get("ETag") == "" {
				b.Fatalf("%s: %d, ETag %q", c.path, w.status, w.h.Get("ETag"))
			}
			req.Header.Set("If-None-Match", w.h.Get("ETag"))
			w.h = http.Header{}
			h.ServeHTTP(w, req)
			if w.status != http.StatusNotModified {
				b.Fatalf("%s with If-None-Match: %d, want 304", c.path, w.status)
			}
			b.ReportAllocs()
			for b.Loop() {
				w.h = make(http.Header)
				h.ServeHTTP(w, req)
			}
		})
	}
}

// BenchmarkRequest is a cached GET through the whole public handler, as
// bench/run.sh's wrk rows ask it: middleware, cache lookup, headers. Its
// allocations per request are what the collector sees of a cached answer.
func BenchmarkRequest(b *testing.B) {
	h := benchPublic(b)
	for _, c := range []struct{ name, path, header, value string }{
		{"status", "/api/v1/status", "", ""},
		{"status-gzip", "/api/v1/status", "Accept-Encoding", "gzip"},
		{"notices", "/api/v1/notices?page=3&filter[type_eq]=unplanned", "", ""},
		{"summary-v2", "/api/v2/summary.json", "", ""},
		{"status-304", "/api/v1/status", "If-None-Match", ""},
	} {
		b.Run(c.name, func(b *testing.B) {
			req := httptest.NewRequest(http.MethodGet, c.path, nil)
			req.Host = "127.0.0.1:8080"
			w := &discard{h: http.Header{}}
			h.ServeHTTP(w, req)
			if w.status != http.StatusOK {
				b.Fatalf("%s: %d", c.path, w.status)
			}
			switch {
			case c.header == "If-None-Match":
				req.Header.Set(c.header, w.h.Get("ETag"))
			case c.header != "":
				req.Header.Set(c.header, c.value)
			}
			b.ReportAllocs()
			for b.Loop() {
				w.h = make(http.Header)
				h.ServeHTTP(w, req)
			}
		})
	}
}

// BenchmarkFront is what serving a cached answer before routing saves: a
// cached GET through front and the routes of the v1 API's status and
// notices list, on a page of 1,000 components and 100,000 notices, with
// the front's lookup (hit) and with a front whose cache is not the
// handlers' (routed: every request misses there, is routed, its query
// parsed, and found in the cache by its key).
func BenchmarkFront(b *testing.B) {
	now := time.Now()
	snaps := snapshot.Fixed{Snapshot: snapshot.Build(large.Document(1000, 100_000, now), 1, now, snapshot.Options{Variant: statusd.VariantA})}
	var answers respcache.PerSource
	a := api.New(api.Config{Snapshots: snaps, Variant: statusd.VariantA, Answers: &answers, Now: time.Now,
		Cache: api.CacheControl{MaxAge: 5 * time.Second}})
	mux := route.NewMux(http.NewServeMux(), route.NewErrors(nil, nil))
	mux.Read("/api/v1/status", a.Read(a.Status), httpjson.Preflight)
	mux.Read("/api/v1/notices", a.Read(a.Notices), httpjson.Preflight)
	for _, c := range []struct {
		name    string
		answers *respcache.PerSource
	}{{"hit", &answers}, {"routed", new(respcache.PerSource)}} {
		f := &front{snaps: snaps, answers: c.answers, now: time.Now, mux: mux}
		h := f.wrap(mux, mux.Errors().Write)
		for _, path := range []string{"/api/v1/status", "/api/v1/notices?page=3&filter[type_eq]=unplanned"} {
			name, _, _ := strings.Cut(strings.TrimPrefix(path, "/api/v1/"), "?")
			b.Run(c.name+"/"+name, func(b *testing.B) {
				req := httptest.NewRequest(http.MethodGet, path, nil)
				w := &discard{h: http.Header{}}
				h.ServeHTTP(w, req)
				if w.status != http.StatusOK {
					b.Fatalf("%s: %d", path, w.status)
				}
				b.ReportAllocs()
				for b.Loop() {
					w.h = make(http.Header)
					h.ServeHTTP(w, req)
				}
			})
		}
	}
}
