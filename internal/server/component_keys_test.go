package server_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/statusd/statusd/internal/testserver"
)

// TestComponentKeysNeverPublic: a component's key (CONTRACT C9) is the
// operators' and the alerts': no public answer carries it, neither the v1
// API, nor Statuspage's v2, nor the HTML page, the feeds or the badges
// (SPEC fidelity, C1). The admin API shows it, so the keys are there to
// leak.
func TestComponentKeysNeverPublic(t *testing.T) {
	now := time.Now().UTC().Truncate(time.Second)
	doc := testserver.Fixture(now)
	for i := range doc.Components {
		doc.Components[i].Key = fmt.Sprintf("leak-%d", doc.Components[i].ID)
	}
	srv := startServer(t, doc, options{})
	tok := newToken(t, srv.DB, "ops")
	if r := srv.Authed(http.MethodGet, testserver.AdminRoot+"/components", tok, ""); r.Status != 200 || !strings.Contains(string(r.Body), `"key":"leak-10"`) {
		t.Fatalf("GET /admin/api/v1/components: %d, want component 10's key leak-10 in\n%s", r.Status, r.Body)
	}
	for _, path := range []string{
		"/api/v1", "/api/v1/status", "/api/v1/components", "/api/v1/components?filter[parent_id_eq]=10",
		"/api/v1/components/10/metrics", "/api/v1/notices", "/api/v1/notices/100", "/api/v1/notices/200",
		"/v1/components", "/v1/notices/102",
		"/api/v2/summary.json", "/api/v2/status.json", "/api/v2/components.json", "/api/v2/incidents.json",
		"/api/v2/incidents/unresolved.json", "/api/v2/incidents/100.json", "/api/v2/scheduled-maintenances.json",
		"/api/v2/scheduled-maintenances/active.json", "/api/v2/scheduled-maintenances/200.json",
		"/", "/notices/100", "/notices/200", "/history", "/history.atom", "/history.rss", "/components/10/metrics",
		"/badge/status.json", "/badge/components/10.json", "/badge/components/11.svg",
	} {
		if body := string(srv.Get(path, 200).Body); strings.Contains(body, "leak-") {
			i := strings.Index(body, "leak-")
			t.Errorf("GET %s shows a component's key: …%s…", path, body[max(0, i-80):min(len(body), i+20)])
		}
	}
}
