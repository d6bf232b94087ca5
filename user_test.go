package statusd

import (
	"context"
	"testing"
)

// TestRoleAllows: each role may do what the roles before it may, and
// nothing else; a role that is not one may do nothing.
func TestRoleAllows(t *testing.T) {
	for _, tc := range []struct {
		r, least Role
		want     bool
	}{
		{Viewer, Viewer, true}, {Viewer, Publisher, false}, {Viewer, Owner, false},
		{Publisher, Viewer, true}, {Publisher, Publisher, true}, {Publisher, Owner, false},
		{Owner, Viewer, true}, {Owner, Publisher, true}, {Owner, Owner, true},
		{"", Viewer, false}, {"admin", Viewer, false},
	} {
		if got := tc.r.Allows(tc.least); got != tc.want {
			t.Errorf("%q.Allows(%q) = %v, want %v", tc.r, tc.least, got, tc.want)
		}
	}
	if got := ActorOf(context.Background()); got.Role.Allows(Viewer) {
		t.Errorf("a request without an actor may read: %+v", got)
	}
}

func TestCheckPasswordAndEmail(t *testing.T) {
	if CheckPassword("eleven char") == nil || CheckPassword("twelve chars") != nil || CheckPassword("éééééééééééé") != nil {
		t.Error("want 12 characters (not bytes) at least")
	}
	if got, err := NormalizeEmail(" Ann@Example.COM "); got != "ann@example.com" || err != nil {
		t.Errorf("NormalizeEmail: %q, %v", got, err)
	}
	if _, err := NormalizeEmail("Ann <ann@example.com>"); ErrorCode(err) != EInvalidField {
		t.Errorf("a display name: %v, want invalid_field", err)
	}
}
