package api

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/bench/large"
	"github.com/statusd/statusd/internal/respcache"
	"github.com/statusd/statusd/internal/route"
	"github.com/statusd/statusd/internal/snapshot"
	"github.com/statusd/statusd/internal/sqlstore"
)

var (
	benchOnce    sync.Once
	benchDir     string
	benchAPI     *Server
	benchHandler http.Handler // benchRoutes behind Front, as statusd serves them
	benchRoutes  *route.Mux
	benchErr     error
)

// TestMain removes the benchmarks' database when the tests are done.
func TestMain(m *testing.M) {
	code := m.Run()
	if benchDir != "" {
		os.RemoveAll(benchDir)
	}
	os.Exit(code)
}

// benchServer serves a page of 1,000 components and 100,000 notices from a
// real SQLite store, with the rate limit off, as in production.
func benchServer(b *testing.B) http.Handler {
	benchOnce.Do(func() {
		ctx := context.Background()
		benchDir, benchErr = os.MkdirTemp("", "statusd-bench-")
		if benchErr != nil {
			return
		}
		store, err := sqlstore.Open(ctx, filepath.Join(benchDir, "bench.db"))
		if err != nil {
			benchErr = err
			return
		}
		if benchErr = store.Import(ctx, large.Document(1000, 100_000, time.Now()), false); benchErr != nil {
			return
		}
		log := slog.New(slog.NewTextHandler(io.Discard, nil))
		holder := snapshot.NewHolder(store, snapshot.Options{Variant: statusd.VariantA}, time.Now, log)
		if benchErr = holder.Refresh(ctx); benchErr != nil {
			return
		}
		benchAPI = New(Config{Snapshots: holder, Variant: statusd.VariantA, Now: time.Now, Log: log,
			Cache: CacheControl{MaxAge: 5 * time.Second}})
		benchRoutes = routes(benchAPI)
		benchHandler = benchAPI.Front(benchRoutes, testErrors.Write)
	})
	if benchErr != nil {
		b.Fatal(benchErr)
	}
	return benchHandler
}

// discard is a ResponseWriter that keeps nothing, so that the benchmark
// measures the handler, not a recorder.
type discard struct{ h http.Header }

func (d *discard) Header() http.Header         { return d.h }
func (d *discard) Write(p []byte) (int, error) { return len(p), nil }
func (d *discard) WriteHeader(int)             {}

// benchRequests are the hot paths, answered from the cache once warm.
var benchRequests = []struct{ name, path, header, value string }{
	{"Status", "/api/v1/status", "", ""},
	{"Components", "/api/v1/components?page=2", "", ""},
	{"ComponentsFiltered", "/api/v1/components?filter[parent_id_eq]=1&page=3", "", ""},
	{"Notices", "/api/v1/notices?page=3", "", ""},
	{"NoticesFiltered", "/api/v1/notices?page=3&filter[type_eq]=unplanned&filter[timeline_state_eq]=past_distant", "", ""},
	{"NoticeDetail", "/api/v1/notices/500", "", ""},
	{"Metrics12Months", "/api/v1/components/1/metrics?show_calculations=true&timeframe_start=" +
		statusd.EarliestStart(time.Now()).Format(statusd.DateLayout), "", ""},
	{"StatusGzip", "/api/v1/status", "Accept-Encoding", "gzip"},
	{"NoticesZstd", "/api/v1/notices?page=3", "Accept-Encoding", "zstd"},
	{"Status304", "/api/v1/status", "If-None-Match", ""},
}

// BenchmarkRequest is one request through the whole public handler (query
// parsing, cache lookup, headers), with allocations per request.
func BenchmarkRequest(b *testing.B) { runRequests(b, benchServer(b)) }

// BenchmarkRequestRouted is BenchmarkRequest without Front, the cache
// lookup before routing: every request is routed, parsed and looked up by
// its normalised key. Against BenchmarkRequest, it is what Front saves.
func BenchmarkRequestRouted(b *testing.B) {
	benchServer(b)
	runRequests(b, benchRoutes)
}

// runRequests runs each of benchRequests through h, warm.
func runRequests(b *testing.B, h http.Handler) {
	for _, br := range benchRequests {
		b.Run(br.name, func(b *testing.B) {
			req := httptest.NewRequest(http.MethodGet, "http://statusd.test"+br.path, nil)
			if br.header == "If-None-Match" {
				w := &discard{h: http.Header{}}
				h.ServeHTTP(w, req)
				req.Header.Set("If-None-Match", w.h.Get("ETag"))
			} else if br.header != "" {
				req.Header.Set(br.header, br.value)
			}
			w := &discard{h: http.Header{}}
			h.ServeHTTP(w, req) // warm the cache
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				w.h = http.Header{}
				h.ServeHTTP(w, req)
			}
		})
	}
}

// BenchmarkRequestUncached is the same answers computed from the snapshot
// without the cache: what the first request after a write costs.
func BenchmarkRequestUncached(b *testing.B) {
	benchServer(b)
	snap := benchAPI.snaps.Current()
	now := time.Now()
	tf, _ := statusd.ParseTimeframe(statusd.EarliestStart(now).Format(statusd.DateLayout), "", now)
	cases := []struct {
		name string
		fn   func()
	}{
		{"Notices", func() { snap.Notices(snapshot.NoticeFilter{}, 3, now) }},
		// The page made into its JSON, as the first request for it pays
		// (less the reuse of rooms and buffers that BenchmarkPagesFlood
		// measures through the handler).
		{"NoticesJSON", func() {
			list, total := snap.Notices(snapshot.NoticeFilter{}, 3, now)
			snapshot.AppendNoticesJSON(nil, statusd.NoticesResponse{Notices: list, Meta: statusd.Meta{Count: len(list), TotalCount: total}})
		}},
		{"NoticesFiltered", func() {
			snap.Notices(snapshot.NoticeFilter{Types: [][]statusd.NoticeType{{statusd.Unplanned}}}, 3, now)
		}},
		{"Components", func() { snap.Components(snapshot.ComponentFilter{}, 2, now) }},
		{"ComponentsFiltered", func() {
			parent := int64(1)
			snap.Components(snapshot.ComponentFilter{ParentIDEq: &parent}, 1, now)
		}},
		{"NoticeDetail", func() { snap.NoticeDetail(snap.Notice(500), now) }},
		{"Metrics12Months", func() { snap.MetricsResponse(snap.Component(1), tf, now, true) }},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				c.fn()
			}
		})
	}
}

// BenchmarkCollect is one whole garbage collection with benchServer's
// snapshot of 100,000 notices live: the marking every collection repeats
// for the snapshot, which on a busy core is time taken from requests. Run
// it with -cpu 1 for the one-core case.
func BenchmarkCollect(b *testing.B) {
	benchServer(b)
	runtime.GC()
	for b.Loop() {
		runtime.GC()
	}
	runtime.KeepAlive(benchAPI.snaps.Current())
}

// BenchmarkPagesFlood is a page of the notices list under a flood of pages
// the cache cannot hold, as in the harness's overload: with the cache full
// (of pages past the last), each request computes its page, serves it and
// keeps nothing. Allocations per request are what the collector sees.
func BenchmarkPagesFlood(b *testing.B) {
	h := benchServer(b)
	w := &discard{h: http.Header{}}
	for p := 100_001; p <= 100_000+respcache.MaxEntries; p++ {
		w.h = http.Header{}
		h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "http://statusd.test/api/v1/notices?page="+strconv.Itoa(p), nil))
	}
	pages := make([]*http.Request, 4000) // the 100,000 notices
	for i := range pages {
		pages[i] = httptest.NewRequest(http.MethodGet, "http://statusd.test/api/v1/notices?page="+strconv.Itoa(i+1), nil)
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		w.h = http.Header{}
		h.ServeHTTP(w, pages[i%len(pages)])
		i++
	}
}
