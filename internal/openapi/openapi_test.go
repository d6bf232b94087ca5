package openapi

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/statusd/statusd"
)

func load(t *testing.T, v statusd.Variant) *openapi3.T {
	t.Helper()
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(Document(v))
	if err != nil {
		t.Fatalf("variant %s: load: %v", v, err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		t.Fatalf("variant %s: invalid document: %v", v, err)
	}
	return doc
}

// TestDocumentIsValid loads both documents with kin-openapi and checks that
// they are valid OpenAPI 3.1.
func TestDocumentIsValid(t *testing.T) {
	for _, v := range []statusd.Variant{statusd.VariantA, statusd.VariantB} {
		doc := load(t, v)
		if doc.OpenAPI != "3.1.0" || !doc.IsOpenAPI31OrLater() {
			t.Errorf("variant %s: openapi %q", v, doc.OpenAPI)
		}
	}
}

// TestVariants checks what differs between the two documents (SPEC §9).
func TestVariants(t *testing.T) {
	a, b := string(Document(statusd.VariantA)), string(Document(statusd.VariantB))
	for _, word := range []string{"/components/{component_id}/metrics", `"metrics_summary"`, `"impact_time"`, `"under_maintenance"`, "MetricsResponse"} {
		if !strings.Contains(a, word) {
			t.Errorf("variant a lacks %s", word)
		}
		if strings.Contains(b, word) {
			t.Errorf("variant b has %s", word)
		}
	}
	if strings.Contains(a, `"under-maintenance"`) || !strings.Contains(b, `"under-maintenance"`) {
		t.Error("the maintenance spelling is not the variant's")
	}
	if string(Document("")) != a {
		t.Error("an unknown variant does not get Variant A's document")
	}
}

// TestPaths checks that every path of SPEC §4 and its aliases (CONTRACT C1),
// and the index that page.links.self names, is described, with the
// parameters of the SPEC.
func TestPaths(t *testing.T) {
	want := map[statusd.Variant][]string{
		statusd.VariantA: {"/api/v1", "/v1", "/api/v1/status", "/v1/status", "/api/v1/components", "/v1/components",
			"/api/v1/components/{component_id}/metrics", "/v1/components/{component_id}/metrics",
			"/api/v1/notices", "/v1/notices", "/api/v1/notices/{id}", "/v1/notices/{id}", "/api/notices/{id}",
			"/api/v1/openapi.json"},
		statusd.VariantB: {"/api/v1", "/v1", "/api/v1/status", "/v1/status", "/api/v1/components", "/v1/components",
			"/api/v1/notices", "/v1/notices", "/api/v1/notices/{id}", "/v1/notices/{id}", "/api/notices/{id}",
			"/api/v1/openapi.json"},
	}
	for v, paths := range want {
		doc := load(t, v)
		if got := doc.Paths.Len(); got != len(paths) {
			t.Errorf("variant %s: %d paths, want %d", v, got, len(paths))
		}
		for _, p := range paths {
			item := doc.Paths.Value(p)
			if item == nil || item.Get == nil {
				t.Errorf("variant %s: no GET %s", v, p)
			}
		}
		params := func(path string) []string {
			var names []string
			for _, p := range doc.Paths.Value(path).Get.Parameters {
				names = append(names, p.Value.Name)
			}
			return names
		}
		for path, names := range map[string][]string{
			"/api/v1/components": {"filter[parent_id_null]", "filter[parent_id_eq]", "page"},
			"/api/v1/notices": {"filter[type_eq]", "filter[type_in][]", "filter[timeline_state_eq]", "filter[timeline_state_in][]",
				"filter[metrics_component_id]", "filter[impact_timeframe_overlaps][]", "page"},
		} {
			got := strings.Join(params(path), " ")
			for _, n := range names {
				if !strings.Contains(got, n) {
					t.Errorf("variant %s: %s lacks parameter %s (has %s)", v, path, n, got)
				}
			}
		}
		if v == statusd.VariantA {
			got := strings.Join(params("/api/v1/components/{component_id}/metrics"), " ")
			for _, n := range []string{"component_id", "timeframe_start", "timeframe_end", "show_calculations"} {
				if !strings.Contains(got, n) {
					t.Errorf("metrics lacks parameter %s", n)
				}
			}
		}
	}
}

// TestSchemasReject checks that the schemas are strict: a body missing a
// required key, carrying an unknown one, or breaking a presence rule fails.
func TestSchemasReject(t *testing.T) {
	docA, docB := load(t, statusd.VariantA), load(t, statusd.VariantB)
	general := `{"id": 3, "type": "general", "timeline_state": "present", "subject": "s", "url": "u",
		"created_at": "2026-01-01T00:00:00.000Z", "updated_at": "2026-01-01T00:00:00.000Z", "tag_list": [],
		"links": {"self": "/api/notices/3"},
		"latest_update": {"content": "c", "created_at": "2026-01-01T00:00:00.000Z", "updated_at": "2026-01-01T00:00:00.000Z"}}`
	check := func(doc *openapi3.T, name, body string, ok bool) {
		t.Helper()
		var v any
		if err := json.Unmarshal([]byte(body), &v); err != nil {
			t.Fatal(err)
		}
		err := doc.Components.Schemas[name].Value.VisitJSON(v, openapi3.EnableJSONSchema2020())
		if ok && err != nil {
			t.Errorf("%s rejected %s: %v", name, body, err)
		}
		if !ok && err == nil {
			t.Errorf("%s accepted %s", name, body)
		}
	}
	check(docA, "NoticeListEntry", general, true)
	check(docB, "NoticeListEntry", general, true)
	check(docA, "NoticeListEntry", strings.Replace(general, `"subject": "s",`, "", 1), false)
	check(docA, "NoticeListEntry", strings.Replace(general, `"subject": "s",`, `"subject": "s", "state": "resolved",`, 1), false)
	check(docA, "NoticeListEntry", strings.Replace(general, `"subject": "s",`, `"subject": "s", "began_at": null,`, 1), false)
	check(docA, "NoticeListEntry", strings.Replace(general, `"/api/notices/3"`, `"/api/v1/notices/3"`, 1), false)
	check(docA, "NoticeListEntry", strings.Replace(general, `"2026-01-01T00:00:00.000Z"`, `"2026-01-01T00:00:00Z"`, 1), false)
	check(docA, "NoticeListEntry", strings.Replace(general, `"type": "general"`, `"type": "unplanned"`, 1), false)
	check(docA, "State", `"under_maintenance"`, true)
	check(docB, "State", `"under_maintenance"`, false)
	check(docB, "State", `"under-maintenance"`, true)
	check(docA, "Error", `{"error": {"status": 404, "code": "not_found", "message": "m"}}`, true)
	check(docA, "Error", `{"error": {"status": 404, "message": "m"}}`, false)
	check(docA, "PaginationMeta", `{"count": 0, "total_count": 0, "next_page": null}`, true)
	check(docA, "PaginationMeta", `{"count": 0, "total_count": 0, "next_page": "/v1/notices?page=2"}`, false)
	check(docA, "PaginationMeta", `{"count": 0, "total_count": 0}`, false)
}

func TestDocumentIsACopy(t *testing.T) {
	d := Document(statusd.VariantA)
	d[0] = 'x'
	if bytes.Equal(d, Document(statusd.VariantA)) {
		t.Error("Document returned the shared bytes")
	}
}
