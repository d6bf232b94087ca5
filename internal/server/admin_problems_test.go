package server_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/statusd/statusd/internal/testserver"
)

// TestAdminBodyNamesEveryProblem: a body with several bad fields is
// refused with 422 naming each by its JSON path, whether the fields do
// not decode (a wrong type, an unknown key) or break a rule; nothing
// changes.
func TestAdminBodyNamesEveryProblem(t *testing.T) {
	srv := startServer(t, testserver.Fixture(time.Now().UTC().Truncate(time.Second)), options{})
	tok := newToken(t, srv.DB, "ops")
	for _, c := range []struct {
		body string
		want []string
	}{
		{`{"type": "unplanned", "subject": 5, "content": true, "colour": "red"}`,
			[]string{"subject: must be a string, not number", "content: must be a string, not bool", "colour: unknown field"}},
		{`{"type": "unplanned", "subject": "Down", "content": "Down.", "component_ids": [999], "begins_at": "2026-01-01T00:00:00Z", "expires_at": null}`,
			[]string{"component_ids", "begins_at: only planned notices", "expires_at: only general notices"}},
		{`{"type": "unplanned", "subject": " ", "state": "scheduled", "component_ids": [999]}`,
			[]string{"subject: must not be empty", "content: is required", "state", "component_ids"}},
	} {
		r := srv.Refuse(tok, http.MethodPost, "/notices", c.body, 422, "invalid_field", c.want...)
		if n := strings.Count(testserver.ErrorMessage(r), "; ") + 1; n != len(c.want) {
			t.Errorf("%s: %d problems named in %q, want %d", c.body, n, testserver.ErrorMessage(r), len(c.want))
		}
	}
}
