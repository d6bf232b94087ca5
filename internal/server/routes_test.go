package server

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/internal/route"
)

// TestAdminRoutePermissions: every admin route names the least role of
// CONTRACT C8, written out here by hand: a viewer reads everything; a
// publisher also writes notices and their updates and sends test messages;
// everything else is an owner's.
func TestAdminRoutePermissions(t *testing.T) {
	const v1a = "/admin/api/v1"
	publisher := map[string]bool{
		"POST " + v1a + "/notices":               true,
		"PATCH " + v1a + "/notices/{id}":         true,
		"DELETE " + v1a + "/notices/{id}":        true,
		"POST " + v1a + "/notices/{id}/updates":  true,
		"POST " + v1a + "/notices/{id}/reopen":   true,
		"POST " + v1a + "/subscribers/{id}/test": true,
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

// TestNoticeScreensMapToAdminRoutes: every notice screen of the console
// names an admin route, and takes its least role from it: a POST does
// what that route does, a GET shows its form or reads what it reads.
func TestNoticeScreensMapToAdminRoutes(t *testing.T) {
	routes := map[string]statusd.Role{}
	for _, rt := range adminRoutes(nil) {
		routes[rt.pattern] = rt.least
	}
	posts := 0
	for _, sc := range noticeScreens(nil) {
		least, ok := routes[sc.api]
		if !ok {
			t.Errorf("%s %s: %q is not an admin route", sc.method, sc.path, sc.api)
			continue
		}
		if got := leastOf(sc.api); got != least {
			t.Errorf("leastOf(%q) = %s, want %s", sc.api, got, least)
		}
		if sc.method == http.MethodPost {
			posts++
			if !strings.HasPrefix(sc.api, "POST ") && !strings.HasPrefix(sc.api, "PATCH ") && !strings.HasPrefix(sc.api, "DELETE ") {
				t.Errorf("POST %s acts as %q, which writes nothing", sc.path, sc.api)
			}
		}
	}
	// Declare, schedule, announce, update, reopen, edit, delete.
	if posts != 7 {
		t.Errorf("%d POST screens, want 7", posts)
	}
	defer func() {
		if recover() == nil {
			t.Error("leastOf of a pattern that is no admin route did not panic")
		}
	}()
	leastOf("POST /admin/api/v1/nothing")
}
