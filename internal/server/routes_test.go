package server

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/internal/app"
	"github.com/statusd/statusd/internal/route"
)

// TestAdminRoutePermissions: every admin route names the least role of
// CONTRACT C8, written out here by hand: a viewer reads everything; a
// publisher also writes notices and their updates, sends test messages and
// publishes, changes and discards drafts (C9); everything else is an
// owner's.
func TestAdminRoutePermissions(t *testing.T) {
	const v1a = "/admin/api/v1"
	publisher := map[string]bool{
		"POST " + v1a + "/notices":               true,
		"PATCH " + v1a + "/notices/{id}":         true,
		"DELETE " + v1a + "/notices/{id}":        true,
		"POST " + v1a + "/notices/{id}/updates":  true,
		"POST " + v1a + "/notices/{id}/reopen":   true,
		"POST " + v1a + "/subscribers/{id}/test": true,
		"PATCH " + v1a + "/drafts/{id}":          true,
		"POST " + v1a + "/drafts/{id}/publish":   true,
		"POST " + v1a + "/drafts/{id}/discard":   true,
	}
	routes := adminRoutes(nil)
	seen := map[string]bool{}
	for _, rt := range routes {
		want := statusd.Owner
		switch {
		case strings.HasPrefix(rt.pattern, "GET "):
			want = statusd.Viewer
		case publisher[rt.pattern]:
			want = statusd.Publisher
		}
		if rt.least != want {
			t.Errorf("%s needs %s, want %s", rt.pattern, rt.least, want)
		}
		seen[rt.pattern] = true
	}
	for p := range publisher {
		if !seen[p] {
			t.Errorf("no route %s", p)
		}
	}
	for _, p := range []string{"POST " + v1a + "/users", "DELETE " + v1a + "/users/{id}", "POST " + v1a + "/users/{id}/reset", "GET " + v1a + "/users"} {
		if !seen[p] {
			t.Errorf("no route %s", p)
		}
	}
}

// TestPermit: an actor below the route's role is answered 403 forbidden
// and the handler never runs; one at or above it gets through; a request
// without an actor gets nowhere.
func TestPermit(t *testing.T) {
	for _, tc := range []struct {
		actor  *statusd.Actor
		least  statusd.Role
		status int
	}{
		{&statusd.Actor{Name: "vic@example.com", Role: statusd.Viewer}, statusd.Owner, 403},
		{&statusd.Actor{Name: "vic@example.com", Role: statusd.Viewer}, statusd.Publisher, 403},
		{&statusd.Actor{Name: "vic@example.com", Role: statusd.Viewer}, statusd.Viewer, 204},
		{&statusd.Actor{Name: "pat@example.com", Role: statusd.Publisher}, statusd.Owner, 403},
		{&statusd.Actor{Name: "pat@example.com", Role: statusd.Publisher}, statusd.Publisher, 204},
		{&statusd.Actor{Name: "ci", Role: statusd.Owner}, statusd.Owner, 204},
		{nil, statusd.Viewer, 403},
	} {
		ran := false
		h := route.NewErrors(nil, nil).Serve(permit(tc.least, func(w http.ResponseWriter, r *http.Request) error {
			ran = true
			w.WriteHeader(http.StatusNoContent)
			return nil
		}))
		req := httptest.NewRequest(http.MethodDelete, "/admin/api/v1/components/1", nil)
		if tc.actor != nil {
			req = req.WithContext(statusd.WithActor(req.Context(), *tc.actor))
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != tc.status || ran != (tc.status == 204) {
			t.Errorf("%+v on a %s route: %d (handler ran: %v), want %d", tc.actor, tc.least, rec.Code, ran, tc.status)
		}
		if tc.status == 403 && !strings.Contains(rec.Body.String(), `"code":"forbidden"`) {
			t.Errorf("%+v: body %s, want the code forbidden", tc.actor, rec.Body)
		}
	}
}

// TestConsoleScreensMapToAdminRoutes: every screen of the console, the
// notices' and the owner's, does an action that an admin route does too
// (nothing can be done in the console that the API cannot do) and takes
// that action's least role; a POST screen acts as a write, a GET one reads
// or shows the form of the write it maps to. By CONTRACT C8 a screen that
// maps to a read is a viewer's, a notice's write a publisher's, as is
// sending a test message; the owner's other writes (components, the page,
// tokens, users, subscribers) are an owner's.
func TestConsoleScreensMapToAdminRoutes(t *testing.T) {
	least := map[app.Action]statusd.Role{}
	for _, rt := range adminRoutes(nil) {
		least[rt.action] = rt.least
	}
	for _, table := range []struct {
		name    string
		screens []consoleScreen
		writer  statusd.Role
		posts   int
	}{
		// Declare, schedule, announce, update, reopen, edit, delete; a
		// draft: publish, discard.
		{"notice", noticeScreens(nil), statusd.Publisher, 9},
		// Components: add, change, move, delete; the page; tokens: create,
		// revoke; users: add, reset, remove; subscribers: add,
		// reactivate the quarantined, change, activate, remove, test;
		// sources: add, change, rotate, remove.
		{"owner", ownerScreens(nil), statusd.Owner, 20},
	} {
		posts := 0
		for _, sc := range table.screens {
			role, ok := least[sc.action]
			if !ok {
				t.Errorf("%s: no admin route does %s", sc.pattern, sc.action)
				continue
			}
			if strings.HasPrefix(sc.pattern, "POST ") {
				posts++
				if sc.action == app.ActRead {
					t.Errorf("%s acts as %s, which writes nothing", sc.pattern, sc.action)
				}
			}
			want := table.writer
			switch {
			case sc.action == app.ActRead:
				want = statusd.Viewer
			case sc.pattern == "POST /manage/subscribers/{id}/test":
				want = statusd.Publisher // C8: a publisher also sends test messages
			}
			if role != want || app.Least(sc.action) != want {
				t.Errorf("%s needs %s (app.Least %s), want %s", sc.pattern, role, app.Least(sc.action), want)
			}
		}
		if posts != table.posts {
			t.Errorf("%d POST %s screens, want %d", posts, table.name, table.posts)
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("app.Least of no action did not panic")
		}
	}()
	app.Least("nothing")
}
