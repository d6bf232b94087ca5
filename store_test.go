package statusd

import (
	"testing"
	"time"
)

func TestNewNamedTokenRole(t *testing.T) {
	now := time.Date(2026, 3, 1, 10, 0, 0, 123456789, time.UTC)
	for _, tc := range []struct {
		role Role
		want Role
		err  string
	}{
		{"", Owner, ""},
		{Owner, Owner, ""},
		{Publisher, Publisher, ""},
		{Viewer, Viewer, ""},
		{"admin", "", `invalid_field: role: "admin" is not a role (viewer, publisher, owner)`},
		{"Owner", "", `invalid_field: role: "Owner" is not a role (viewer, publisher, owner)`},
	} {
		_, tok, err := NewNamedToken("ci", tc.role, now)
		switch {
		case tc.err != "" && (err == nil || ErrorCode(err)+": "+ErrorMessage(err) != tc.err):
			t.Errorf("NewNamedToken role %q: %v, want %s", tc.role, err, tc.err)
		case tc.err == "" && (err != nil || tok.Role != tc.want):
			t.Errorf("NewNamedToken role %q: role %q, %v; want %q", tc.role, tok.Role, err, tc.want)
		}
	}
	// A blank name and a bad role are both named.
	if _, _, err := NewNamedToken(" ", "root", now); len(ProblemsOf(err)) != 2 {
		t.Errorf("blank name and bad role: %v, want two problems", err)
	}
}
