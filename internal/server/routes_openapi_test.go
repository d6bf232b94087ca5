package server

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/statusd/statusd/internal/openapi"
)

// TestAdminRoutesDescribed: every route of the admin API is an operation
// of its OpenAPI document, and the document describes no other.
func TestAdminRoutesDescribed(t *testing.T) {
	var doc struct {
		Paths map[string]map[string]any `json:"paths"`
	}
	if err := json.Unmarshal(openapi.Admin(), &doc); err != nil {
		t.Fatal(err)
	}
	described := map[string]bool{}
	for path, ops := range doc.Paths {
		for method := range ops {
			described[strings.ToUpper(method)+" "+path] = true
		}
	}
	routes := adminRoutes(nil)
	for _, rt := range routes {
		if !described[rt.pattern] {
			t.Errorf("%s is not in the admin API's OpenAPI document", rt.pattern)
		}
	}
	if len(described) != len(routes) {
		t.Errorf("the document describes %d operations, the admin API has %d routes", len(described), len(routes))
	}
}
