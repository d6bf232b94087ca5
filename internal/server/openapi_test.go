package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/legacy"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/internal/openapi"
	"github.com/statusd/statusd/internal/testserver"
)

// These tests validate every public answer the real server gives against the
// OpenAPI document it serves at /api/v1/openapi.json (kin-openapi's
// openapi3filter, JSON Schema 2020-12), so that the document and the server
// cannot drift apart.

// oaSpec is a loaded OpenAPI document with a router over its paths.
type oaSpec struct {
	doc    *openapi3.T
	router routers.Router
}

// oaLoad fetches the document srv serves, checks that it is the one of the
// variant, and loads it.
func oaLoad(t *testing.T, srv *testserver.Server, variant statusd.Variant) *oaSpec {
	t.Helper()
	r := srv.In(t).Get("/api/v1/openapi.json", 200)
	if !bytes.Equal(r.Body, openapi.Document(variant)) {
		t.Fatalf("the served document is not Variant %s's", variant)
	}
	doc, err := openapi3.NewLoader().LoadFromData(r.Body)
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	if !doc.IsOpenAPI31OrLater() {
		t.Fatalf("openapi %q is not 3.1", doc.OpenAPI)
	}
	router, err := legacy.NewRouter(doc)
	if err != nil {
		t.Fatalf("router: %v", err)
	}
	return &oaSpec{doc: doc, router: router}
}

var oaOptions = &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true}

// oaValidate checks an exchange against the document: the request must match
// a described operation (and its parameters, when checkRequest), and the
// answer one of its responses, status, headers and body.
func (s *oaSpec) oaValidate(method, path string, status int, header http.Header, body []byte, checkRequest bool) error {
	req, err := http.NewRequest(method, "http://statusd.test"+path, nil)
	if err != nil {
		return err
	}
	route, params, err := s.router.FindRoute(req)
	if err != nil {
		return fmt.Errorf("%s %s is not described: %w", method, path, err)
	}
	in := &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route, Options: oaOptions}
	if checkRequest {
		if err := openapi3filter.ValidateRequest(context.Background(), in); err != nil {
			return fmt.Errorf("request %s %s: %w", method, path, err)
		}
	}
	return oaValidateResponse(in, status, header, body)
}

// oaValidateAs checks an answer against one of the document's reusable
// responses: for the answers no operation describes (a method other than
// GET, an unknown path).
func (s *oaSpec) oaValidateAs(name, method, path string, status int, header http.Header, body []byte) error {
	resp := s.doc.Components.Responses[name]
	if resp == nil {
		return fmt.Errorf("no response %s in the document", name)
	}
	req, err := http.NewRequest(method, "http://statusd.test"+path, nil)
	if err != nil {
		return err
	}
	route := &routers.Route{Spec: s.doc, Path: path, Method: method,
		Operation: &openapi3.Operation{Responses: openapi3.NewResponses(openapi3.WithStatus(status, resp))}}
	return oaValidateResponse(&openapi3filter.RequestValidationInput{Request: req, Route: route, Options: oaOptions}, status, header, body)
}

func oaValidateResponse(in *openapi3filter.RequestValidationInput, status int, header http.Header, body []byte) error {
	out := &openapi3filter.ResponseValidationInput{RequestValidationInput: in, Status: status, Header: header, Options: oaOptions}
	out.SetBodyBytes(body)
	if err := openapi3filter.ValidateResponse(context.Background(), out); err != nil {
		return fmt.Errorf("response %d to %s %s: %w\n%s", status, in.Request.Method, in.Request.URL.RequestURI(), err, body)
	}
	return nil
}

// oaCheck requests path from srv, fails unless the status is want, and
// validates the exchange; the request is validated too when it is expected
// to succeed.
func (s *oaSpec) oaCheck(t *testing.T, srv *testserver.Server, method, path string, want int) testserver.Response {
	t.Helper()
	r := srv.In(t).Do(method, path)
	if r.Status != want {
		t.Errorf("%s %s: status %d, want %d\n%s", method, path, r.Status, want, r.Body)
		return r
	}
	if err := s.oaValidate(method, path, r.Status, r.Header, r.Body, want < 300); err != nil {
		t.Error(err)
	}
	return r
}

// oaDoc is the fixture with enough components and notices for a second page
// of each collection.
func oaDoc(now time.Time) *statusd.Document {
	doc := testserver.Fixture(now)
	for i := range 22 {
		doc.Components = append(doc.Components, statusd.Component{ID: int64(40 + i), ParentID: testserver.Ptr(int64(20)),
			Position: len(doc.Components) + 1, Name: fmt.Sprintf("Edge %d", i), Description: "An edge location",
			CreatedAt: testserver.PageCreated, UpdatedAt: testserver.PageCreated})
	}
	for i := range 22 {
		at := now.Add(-time.Duration(100+i) * 24 * time.Hour)
		n := statusd.Notice{ID: int64(400 + i), Subject: fmt.Sprintf("Old notice %d", i), TagList: []string{},
			ComponentIDs: []int64{}, CreatedAt: at, UpdatedAt: at.Add(time.Hour)}
		if i%2 == 0 {
			n.Type = statusd.Unplanned
			n.ComponentIDs = []int64{int64(40 + i)}
			n.Updates = []statusd.Update{testserver.Upd(statusd.Investigating, at, "Down."), testserver.Upd(statusd.Resolved, at.Add(time.Hour), "Up.")}
		} else {
			n.Type = statusd.General
			n.ExpiresAt = testserver.Ptr(at.Add(24 * time.Hour))
			n.Updates = []statusd.Update{testserver.Upd("", at, "News."), testserver.Upd("", at.Add(time.Hour), "More news.")}
		}
		doc.Notices = append(doc.Notices, n)
	}
	return doc
}

// oaServer serves oaDoc in the variant and loads its document.
func oaServer(t *testing.T, variant statusd.Variant, o options) (*testserver.Server, *oaSpec, time.Time) {
	t.Helper()
	o.variant = variant
	now := time.Now().UTC().Truncate(time.Second)
	srv := startServer(t, oaDoc(now), o)
	return srv, oaLoad(t, srv, variant), now
}

var oaVariants = []statusd.Variant{statusd.VariantA, statusd.VariantB}

// TestOpenAPIResponses validates a broad set of public answers, successes
// and errors, of both variants against the document.
func TestOpenAPIResponses(t *testing.T) {
	for _, variant := range oaVariants {
		t.Run(string(variant), func(t *testing.T) {
			srv, spec, now := oaServer(t, variant, options{})
			ok := []string{
				"/api/v1/status", "/v1/status", "/api/v1/openapi.json",
				"/api/v1/components", "/v1/components", "/api/v1/components?page=2", "/api/v1/components?page=3",
				"/api/v1/components?filter[parent_id_null]=true", "/api/v1/components?filter[parent_id_null]=false",
				"/api/v1/components?filter[parent_id_eq]=10", "/api/v1/components?filter[parent_id_eq]=20&page=1",
				"/api/v1/components?filter%5Bparent_id_eq%5D=30", "/api/v1/components?filter[parent_id_eq]=999",
				"/api/v1/components?filter[name_cont]=API&per_page=100",
				"/api/v1/notices", "/v1/notices", "/api/v1/notices?page=2", "/api/v1/notices?page=9",
				"/api/v1/notices?filter[type_eq]=general", "/api/v1/notices?filter[type_eq]=planned",
				"/api/v1/notices?filter[type_eq]=unplanned",
				"/api/v1/notices?filter[timeline_state_eq]=future", "/api/v1/notices?filter[timeline_state_eq]=present",
				"/api/v1/notices?filter[timeline_state_eq]=past_recent", "/api/v1/notices?filter[timeline_state_eq]=past_distant",
				"/api/v1/notices?filter[timeline_state_eq]=past",
				"/api/v1/notices?filter[timeline_state_eq]=present&filter[type_eq]=unplanned",
				"/api/v1/notices?filter[type_in][]=planned&filter[type_in][]=general",
				"/api/v1/notices?filter[timeline_state_in][]=future&filter[timeline_state_in][]=past_recent",
				"/api/v1/notices?filter[metrics_component_id]=10", "/api/v1/notices?filter[metrics_component_id]=20&page=1",
				"/api/v1/notices?filter[impact_timeframe_overlaps][]=" + now.AddDate(0, 0, -45).Format("2006-01-02T15:04:05") +
					"&filter[impact_timeframe_overlaps][]=" + now.Format("2006-01-02T15:04:05"),
				"/api/v1/notices?filter[metrics_component_id]=30&filter[impact_timeframe_overlaps][]=" +
					now.AddDate(0, -6, 0).Format("2006-01-02T15:04:05.000Z") + "&filter[impact_timeframe_overlaps][]=" +
					now.Format("2006-01-02T15:04:05Z"),
				"/api/v1/notices?filter[type_eq]=&filter[bogus]=1",
				"/v1/notices/100", "/api/notices/300",
			}
			for _, w := range fixtureWant(now) {
				ok = append(ok, fmt.Sprintf("/api/v1/notices/%d", w.id))
			}
			ok = append(ok, "/api/v1/notices/400", "/api/v1/notices/401")
			badRequest := []string{
				"/api/v1/components?page=0", "/api/v1/components?page=x", "/api/v1/components?filter[parent_id_eq]=x",
				"/api/v1/components?filter[parent_id_null]=maybe",
				"/api/v1/notices?filter[type_eq]=bogus", "/api/v1/notices?filter[timeline_state_eq]=soon",
				"/api/v1/notices?filter[type_in][]=planned&filter[type_in][]=nope",
				"/api/v1/notices?filter[metrics_component_id]=ten",
				"/api/v1/notices?filter[impact_timeframe_overlaps][]=2026-01-01T00:00:00",
				"/api/v1/notices?filter[impact_timeframe_overlaps][]=yesterday&filter[impact_timeframe_overlaps][]=today",
				"/api/v1/notices/abc", "/api/notices/1.5",
			}
			notFound := []string{"/api/v1/notices/999", "/v1/notices/999", "/api/notices/999", "/api/v1/notices/99999999999999999999"}
			if variant.HasMetrics() {
				today := now.Format(statusd.DateLayout)
				ok = append(ok,
					"/api/v1/components/10/metrics", "/v1/components/10/metrics",
					"/api/v1/components/10/metrics?show_calculations=true", "/api/v1/components/11/metrics?show_calculations=false",
					"/api/v1/components/30/metrics?show_calculations=true&timeframe_start="+now.AddDate(0, -11, 0).Format(statusd.DateLayout)+
						"&timeframe_end="+today,
					"/api/v1/components/30/metrics?timeframe_start="+today+"&timeframe_end="+now.AddDate(0, 0, 3).Format(statusd.DateLayout),
				)
				badRequest = append(badRequest,
					"/api/v1/components/10/metrics?timeframe_start=2026-13-01",
					"/api/v1/components/10/metrics?timeframe_start="+now.AddDate(-2, 0, 0).Format(statusd.DateLayout),
					"/api/v1/components/10/metrics?show_calculations=maybe",
					"/api/v1/components/x/metrics")
				notFound = append(notFound, "/api/v1/components/999/metrics", "/api/v1/components/12/metrics")
			}
			for _, path := range ok {
				spec.oaCheck(t, srv, http.MethodGet, path, 200)
			}
			for _, path := range badRequest {
				spec.oaCheck(t, srv, http.MethodGet, path, 400)
			}
			for _, path := range notFound {
				spec.oaCheck(t, srv, http.MethodGet, path, 404)
			}

			// Paths that no operation describes answer the reusable 404.
			unknown := []string{"/api/v1/nope", "/v1/notices/1/updates", "/api/v2/status"}
			if !variant.HasMetrics() {
				unknown = append(unknown, "/api/v1/components/10/metrics", "/v1/components/10/metrics")
			}
			for _, path := range unknown {
				if err := spec.oaValidate(http.MethodGet, path, 404, nil, nil, false); err == nil {
					t.Errorf("%s is described", path)
				}
				r := srv.Do(http.MethodGet, path)
				if err := spec.oaValidateAs("NotFound", http.MethodGet, path, r.Status, r.Header, r.Body); err != nil {
					t.Error(err)
				}
			}
			// Other methods answer the reusable 405.
			for _, method := range []string{http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete} {
				for _, path := range []string{"/api/v1/status", "/api/v1/notices/100", "/v1/components", "/api/v1/openapi.json"} {
					r := srv.Do(method, path)
					if err := spec.oaValidateAs("MethodNotAllowed", method, path, r.Status, r.Header, r.Body); err != nil {
						t.Error(err)
					}
				}
			}
		})
	}
}

// oaEmitted returns the relative paths a JSON answer carries in href,
// next_page and links.
func oaEmitted(v any) []string {
	var out []string
	var walk func(key string, v any)
	walk = func(key string, v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				walk(k, e)
			}
		case []any:
			for _, e := range x {
				walk(key, e)
			}
		case string:
			if (key == "href" || key == "next_page" || key == "self") && strings.HasPrefix(x, "/") {
				out = append(out, x)
			}
		}
	}
	walk("", v)
	return out
}

// TestOpenAPIEmittedPaths follows every path the server emits, from the
// status, the collections and the metrics, and checks that each is described
// (with its query parameters) and answers as the document says.
func TestOpenAPIEmittedPaths(t *testing.T) {
	for _, variant := range oaVariants {
		t.Run(string(variant), func(t *testing.T) {
			srv, spec, _ := oaServer(t, variant, options{})
			queue := []string{"/api/v1/status", "/api/v1/components", "/api/v1/notices",
				"/api/v1/notices?filter[timeline_state_eq]=past&filter[type_in][]=general&filter[type_in][]=unplanned"}
			if variant.HasMetrics() {
				queue = append(queue, "/api/v1/components/10/metrics?show_calculations=true",
					"/api/v1/components/30/metrics?show_calculations=true")
			}
			seen := map[string]bool{}
			var emitted []string
			for len(queue) > 0 && len(seen) < 500 {
				path := queue[0]
				queue = queue[1:]
				if seen[path] {
					continue
				}
				seen[path] = true
				r := spec.oaCheck(t, srv, http.MethodGet, path, 200)
				for _, p := range oaEmitted(r.JSON) {
					if strings.ContainsAny(p, "[]") {
						t.Errorf("%s emits %s, with raw brackets", path, p)
					}
					emitted = append(emitted, p)
					queue = append(queue, p)
				}
			}
			// The crawl met every kind of emitted path, brackets
			// percent-encoded (CONTRACT C1).
			for _, prefix := range []string{"/v1/components", "/v1/notices", "/api/v1/components?filter%5Bparent_id_eq%5D=",
				"/api/notices/", "/api/v1/components?page=2", "/api/v1/notices?page=2",
				"/api/v1/notices?filter%5Btype_in%5D%5B%5D=general&filter%5Btype_in%5D%5B%5D=unplanned&filter%5Btimeline_state_eq%5D=past&page=2"} {
				if !slices.ContainsFunc(emitted, func(p string) bool { return strings.HasPrefix(p, prefix) }) {
					t.Errorf("no emitted path starts with %s", prefix)
				}
			}
			if variant.HasMetrics() && !slices.ContainsFunc(emitted, func(p string) bool {
				return strings.Contains(p, "filter%5Bimpact_timeframe_overlaps%5D%5B%5D=")
			}) {
				t.Error("no metrics notices href was followed")
			}
			t.Logf("followed %d paths", len(seen))
		})
	}
}

// oaMutate decodes body, changes it and encodes it again.
func oaMutate(t *testing.T, body []byte, change func(v map[string]any)) []byte {
	t.Helper()
	var v map[string]any
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatal(err)
	}
	change(v)
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// oaFind returns the first object of list whose key has the value.
func oaFind(t *testing.T, list any, key string, value any) map[string]any {
	t.Helper()
	for _, e := range list.([]any) {
		if m := e.(map[string]any); m[key] == value {
			return m
		}
	}
	t.Fatalf("no element with %s = %v", key, value)
	return nil
}

// TestOpenAPIRejectsWrongBodies checks that the document is strict: real
// answers, each broken in one way, fail validation.
func TestOpenAPIRejectsWrongBodies(t *testing.T) {
	for _, variant := range oaVariants {
		t.Run(string(variant), func(t *testing.T) {
			srv, spec, _ := oaServer(t, variant, options{})
			otherMaint := "under-maintenance"
			if variant == statusd.VariantB {
				otherMaint = "under_maintenance"
			}
			notice := func(v map[string]any, id float64) map[string]any { return oaFind(t, v["notices"], "id", id) }
			cases := []struct {
				name, path string
				change     func(v map[string]any)
			}{
				{"page without name", "/api/v1/status", func(v map[string]any) { delete(v["page"].(map[string]any), "name") }},
				{"the other variant's maintenance", "/api/v1/status", func(v map[string]any) { v["page"].(map[string]any)["state"] = otherMaint }},
				{"an unknown key", "/api/v1/status", func(v map[string]any) { v["page"].(map[string]any)["colour"] = "green" }},
				{"a timestamp without milliseconds", "/api/v1/status", func(v map[string]any) {
					v["page"].(map[string]any)["created_at"] = "2026-01-01T00:00:00Z"
				}},
				{"a count as a string", "/api/v1/status", func(v map[string]any) {
					v["page"].(map[string]any)["links"].(map[string]any)["notices"].(map[string]any)["count"] = "15"
				}},
				{"parent_id as a string", "/api/v1/components", func(v map[string]any) {
					oaFind(t, v["components"], "id", 12.0)["parent_id"] = "10"
				}},
				{"component without links", "/api/v1/components", func(v map[string]any) {
					delete(oaFind(t, v["components"], "id", 12.0), "links")
				}},
				{"metrics_summary where it does not belong", "/api/v1/components", func(v map[string]any) {
					c := oaFind(t, v["components"], "id", 20.0)
					if variant.HasMetrics() {
						delete(c, "metrics_summary") // required in A
					} else {
						c["metrics_summary"] = nil // absent in B
					}
				}},
				{"next_page on /v1", "/api/v1/notices", func(v map[string]any) {
					v["meta"].(map[string]any)["next_page"] = "/v1/notices?page=2"
				}},
				{"meta without total_count", "/api/v1/notices", func(v map[string]any) { delete(v["meta"].(map[string]any), "total_count") }},
				{"state on a general notice", "/api/v1/notices", func(v map[string]any) { notice(v, 300)["state"] = "resolved" }},
				{"began_at on a general notice", "/api/v1/notices", func(v map[string]any) { notice(v, 300)["began_at"] = nil }},
				{"state in a general notice's latest_update", "/api/v1/notices", func(v map[string]any) {
					notice(v, 300)["latest_update"].(map[string]any)["state"] = "resolved"
				}},
				{"planned notice without begins_at", "/api/v1/notices", func(v map[string]any) { delete(notice(v, 201), "begins_at") }},
				{"begins_at on an unplanned notice", "/api/v1/notices", func(v map[string]any) {
					notice(v, 101)["begins_at"] = "2026-01-01T00:00:00.000Z"
				}},
				{"a planned state on an unplanned notice", "/api/v1/notices", func(v map[string]any) { notice(v, 101)["state"] = "complete" }},
				{"impact_time where it does not belong", "/api/v1/notices", func(v map[string]any) {
					n := notice(v, 101)
					if variant.HasMetrics() {
						delete(n, "impact_time")
					} else {
						n["impact_time"] = map[string]any{"seconds": 1800, "words": "30 minutes"}
					}
				}},
				{"notice without latest_update", "/api/v1/notices", func(v map[string]any) { delete(notice(v, 105), "latest_update") }},
				{"links.self with a version", "/api/v1/notices", func(v map[string]any) {
					notice(v, 105)["links"].(map[string]any)["self"] = "/api/v1/notices/105"
				}},
				{"an embedded component with links", "/api/v1/notices/200", func(v map[string]any) {
					v["notice"].(map[string]any)["components"].([]any)[0].(map[string]any)["links"] = map[string]any{}
				}},
				{"a detail with latest_update", "/api/v1/notices/200", func(v map[string]any) {
					v["notice"].(map[string]any)["latest_update"] = map[string]any{}
				}},
				{"an update without content", "/api/v1/notices/200", func(v map[string]any) {
					delete(v["notice"].(map[string]any)["updates"].([]any)[0].(map[string]any), "content")
				}},
				{"an error without code", "/api/v1/notices/999", func(v map[string]any) { delete(v["error"].(map[string]any), "code") }},
				{"an error with another status's code", "/api/v1/notices/999", func(v map[string]any) {
					v["error"].(map[string]any)["code"] = "invalid_parameter"
				}},
				{"a 400 with the status 404", "/api/v1/notices/abc", func(v map[string]any) { v["error"].(map[string]any)["status"] = 404 }},
			}
			if variant.HasMetrics() {
				cases = append(cases,
					struct {
						name, path string
						change     func(v map[string]any)
					}{"metrics with an integer component id", "/api/v1/components/10/metrics", func(v map[string]any) {
						v["component"].(map[string]any)["id"] = 10
					}},
					struct {
						name, path string
						change     func(v map[string]any)
					}{"calculation data without calculations", "/api/v1/components/10/metrics", func(v map[string]any) {
						v["calculation_data_in_timeframe"] = map[string]any{}
					}},
					struct {
						name, path string
						change     func(v map[string]any)
					}{"calculations without their data", "/api/v1/components/10/metrics?show_calculations=true", func(v map[string]any) {
						delete(v, "calculation_data_in_timeframe")
					}},
					struct {
						name, path string
						change     func(v map[string]any)
					}{"an uptime over 100", "/api/v1/components/10/metrics", func(v map[string]any) {
						v["percentage_uptime"].(map[string]any)["percent"] = 101
					}},
				)
			}
			for _, c := range cases {
				r := srv.Do(http.MethodGet, c.path)
				if err := spec.oaValidate(http.MethodGet, c.path, r.Status, r.Header, r.Body, false); err != nil {
					t.Errorf("%s: the unbroken answer fails: %v", c.name, err)
					continue
				}
				broken := oaMutate(t, r.Body, c.change)
				if err := spec.oaValidate(http.MethodGet, c.path, r.Status, r.Header, broken, false); err == nil {
					t.Errorf("%s: accepted %s", c.name, broken)
				}
			}
			// An undocumented status, and a wrong content type, fail too.
			r := srv.Do(http.MethodGet, "/api/v1/status")
			if err := spec.oaValidate(http.MethodGet, "/api/v1/status", 418, r.Header, r.Body, false); err == nil {
				t.Error("status 418 accepted")
			}
			h := r.Header.Clone()
			h.Set("Content-Type", "text/html")
			if err := spec.oaValidate(http.MethodGet, "/api/v1/status", 200, h, r.Body, false); err == nil {
				t.Error("an HTML answer accepted")
			}
			// A request with a bad parameter value does not match the document.
			if err := spec.oaValidate(http.MethodGet, "/api/v1/notices?filter[type_eq]=bogus", 200, r.Header, r.Body, true); err == nil {
				t.Error("filter[type_eq]=bogus matches the document")
			}
		})
	}
}

// TestOpenAPIRateLimitAndUnavailable validates the RateLimit-* headers, the
// 429 with Retry-After and the 503 before a page is published.
func TestOpenAPIRateLimitAndUnavailable(t *testing.T) {
	srv, spec, _ := oaServer(t, statusd.VariantA, options{rateLimit: 2})
	var limited testserver.Response
	for i := 0; i < 30 && limited.Status == 0; i++ {
		path := "/api/v1/notices/100"
		r := srv.Do(http.MethodGet, path)
		if r.Status == 200 && r.Header.Get("RateLimit-Limit") == "" {
			t.Error("no RateLimit-Limit on a limited server")
		}
		if err := spec.oaValidate(http.MethodGet, path, r.Status, r.Header, r.Body, true); err != nil {
			t.Error(err)
		}
		if r.Status == 429 {
			limited = r
		}
	}
	if limited.Status != 429 {
		t.Fatal("never limited")
	}
	h := limited.Header.Clone()
	h.Del("Retry-After")
	if err := spec.oaValidate(http.MethodGet, "/api/v1/notices/100", 429, h, limited.Body, false); err == nil {
		t.Error("a 429 without Retry-After accepted")
	}

	empty := startServer(t, nil, options{})
	for _, path := range []string{"/api/v1/status", "/api/v1/notices?page=2", "/api/notices/1", "/api/v1/openapi.json"} {
		r := empty.Do(http.MethodGet, path)
		if r.Status != 503 {
			t.Errorf("%s before an import: %d", path, r.Status)
		}
		if err := spec.oaValidate(http.MethodGet, path, r.Status, r.Header, r.Body, true); err != nil {
			t.Error(err)
		}
	}
}

// TestOpenAPIQueryEncodings checks that the bracketed parameter names of the
// document match requests whose brackets are percent-encoded, as clients
// built from the document send them.
func TestOpenAPIQueryEncodings(t *testing.T) {
	srv, spec, _ := oaServer(t, statusd.VariantA, options{})
	q := url.Values{}
	q.Add("filter[type_in][]", "unplanned")
	q.Add("filter[type_in][]", "planned")
	q.Set("filter[timeline_state_eq]", "past")
	q.Set("page", "1")
	r := spec.oaCheck(t, srv, http.MethodGet, "/api/v1/notices?"+q.Encode(), 200)
	if n := len(testserver.At(t, r.JSON, "notices").([]any)); n == 0 {
		t.Error("no notices")
	}
}
