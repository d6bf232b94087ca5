package statusd

import (
	"context"
	"strings"
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

// TestPassword: a hash is argon2id in PHC form, salted, and verifies its
// own password only; a malformed one verifies none.
func TestPassword(t *testing.T) {
	h1, h2 := HashPassword("correct horse battery"), HashPassword("correct horse battery")
	if !strings.HasPrefix(h1, "$argon2id$v=19$m=19456,t=2,p=1$") || h1 == h2 {
		t.Errorf("hashes %q and %q: want argon2id PHC strings with different salts", h1, h2)
	}
	if !VerifyPassword(h1, "correct horse battery") || !VerifyPassword(h2, "correct horse battery") {
		t.Error("a hash does not verify its password")
	}
	for _, wrong := range []string{"correct horse batterY", "", "correct horse battery "} {
		if VerifyPassword(h1, wrong) {
			t.Errorf("%q verifies", wrong)
		}
	}
	for _, bad := range []string{"", "$argon2i$v=19$m=19456,t=2,p=1$c2FsdA$a2V5", strings.Replace(h1, "t=2", "t=99", 1), "$argon2id$v=19$m=19456,t=2,p=1$!!$!!"} {
		if VerifyPassword(bad, "correct horse battery") {
			t.Errorf("the malformed hash %q verifies", bad)
		}
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
