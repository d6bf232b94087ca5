package api

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/internal/demo"
	"github.com/statusd/statusd/internal/httpjson"
	"github.com/statusd/statusd/internal/route"
	"github.com/statusd/statusd/internal/snapshot"
)

// FuzzQuery feeds arbitrary query strings to the query and filter parsers
// and to the whole API: no input may panic or answer 500, every error is a
// JSON invalid_parameter, and every answer is JSON.
func FuzzQuery(f *testing.F) {
	for _, seed := range []string{
		"",
		"page=2",
		"filter[type_eq]=unplanned&filter[timeline_state_eq]=present",
		"filter%5Btype_in%5D%5B%5D=general&filter[type_in][]=planned",
		"filter[timeline_state_in][]=past&page=3",
		"filter[metrics_component_id]=1&filter[impact_timeframe_overlaps][]=2026-01-01T00:00:00&filter[impact_timeframe_overlaps][]=2026-01-31T23:59:59",
		"filter[impact_timeframe_overlaps][]=2026-01-01T00:00:00.000Z&filter[impact_timeframe_overlaps][]=2026-01-01T00:00:00Z",
		"filter[parent_id_null]=true&filter[parent_id_eq]=1",
		"timeframe_start=2026-01-01&timeframe_end=2026-02-01&show_calculations=true",
		"page=99999999999999999999999&filter[foo]=bar",
		"%zz=1&=&&&page",
		"filter[type_eq]=&filter[type_eq]=general",
	} {
		f.Add(seed)
	}
	handler := fuzzServer(f)
	f.Fuzz(func(t *testing.T, raw string) {
		if _, _, err := parseNoticeQuery(raw); err != nil && statusd.ErrorCode(err) != statusd.EInvalidParameter {
			t.Fatalf("notice query %q: error %v is not invalid_parameter", raw, err)
		}
		if _, _, err := parseComponentQuery(raw); err != nil && statusd.ErrorCode(err) != statusd.EInvalidParameter {
			t.Fatalf("component query %q: error %v is not invalid_parameter", raw, err)
		}
		for _, path := range []string{"/api/v1/notices", "/api/v1/components", "/api/v1/components/1/metrics"} {
			req := httptest.NewRequest(http.MethodGet, "http://statusd.test"+path, nil)
			req.URL.RawQuery = raw
			rec := httptest.NewRecorder()
			handler.ServeHTTP(rec, req)
			if rec.Code >= 500 {
				t.Fatalf("%s?%s: status %d: %s", path, raw, rec.Code, rec.Body)
			}
			if !json.Valid(rec.Body.Bytes()) {
				t.Fatalf("%s?%s: answer is not JSON: %s", path, raw, rec.Body)
			}
		}
	})
}

// fuzzServer serves the demo page from a real SQLite store.
func fuzzServer(f *testing.F) http.Handler {
	return routes(demoServer())
}

// routes serves the API's routes, as internal/server registers them.
func routes(s *Server) *route.Mux {
	mux := route.NewMux(http.NewServeMux(), testErrors)
	read := func(path string, h Handler) { mux.Read(path, s.Read(h), httpjson.Preflight) }
	for _, root := range []string{statusd.APIRoot, "/v1"} {
		read(root, s.Index)
		read(root+"/status", s.Status)
		read(root+"/components", s.Components)
		read(root+"/components/{id}/metrics", s.Metrics)
		read(root+"/notices", s.Notices)
		read(root+"/notices/{id}", s.Notice)
	}
	read("/api/notices/{id}", s.Notice)
	read("/api/v1/openapi.json", s.OpenAPI)
	mux.Handle("/api/", NotFound)
	mux.Handle("/v1/", NotFound)
	return mux
}

// testErrors writes the errors of the tests' routes, as internal/server's
// writer does.
var testErrors = route.NewErrors(nil, nil)

// demoServer is the API over the snapshot of the demo page.
func demoServer() *Server {
	now := time.Now()
	snap := snapshot.Build(demo.Document(now), 1, now, snapshot.Options{Variant: statusd.VariantA})
	return New(Config{Snapshots: snapshot.Fixed{Snapshot: snap}, Variant: statusd.VariantA, Now: time.Now,
		Log: slog.New(slog.DiscardHandler)})
}
