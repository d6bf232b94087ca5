package api

import (
	"log/slog"
	"net/http"
	"net/http/httptest"
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
)

var (
	benchOnce   sync.Once
	benchAPI    *Server
	benchRoutes *route.Mux
)

// benchServer serves a page of 1,000 components and 100,000 notices from
// its snapshot, through the API's routes (what the assembly serves when
// an answer is not cached yet, or not aliased: see internal/server's
// BenchmarkRequest for the whole chain).
func benchServer(b *testing.B) http.Handler {
	benchOnce.Do(func() {
		now := time.Now()
		snap := snapshot.Build(large.Document(1000, 100_000, now), 1, now, snapshot.Options{Variant: statusd.VariantA})
		benchAPI = New(Config{Snapshots: snapshot.Fixed{Snapshot: snap}, Variant: statusd.VariantA, Now: time.Now,
			Log: slog.New(slog.DiscardHandler), Cache: CacheControl{MaxAge: 5 * time.Second}})
		benchRoutes = routes(benchAPI)
	})
	return benchRoutes
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

// BenchmarkRequest is one request through the API's routes (routing,
// query parsing, the cache by the answer's key, headers), with
// allocations per request.
func BenchmarkRequest(b *testing.B) { runRequests(b, benchServer(b)) }

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
