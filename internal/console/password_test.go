package console

import (
	"strings"
	"testing"
)

// TestPassword: a hash is argon2id in PHC form, salted, and verifies its
// own password only; a malformed one verifies none.
func TestPassword(t *testing.T) {
	h1, h2 := hashPassword("correct horse battery"), hashPassword("correct horse battery")
	if !strings.HasPrefix(h1, "$argon2id$v=19$m=19456,t=2,p=1$") || h1 == h2 {
		t.Errorf("hashes %q and %q: want argon2id PHC strings with different salts", h1, h2)
	}
	if !verifyPassword(h1, "correct horse battery") || !verifyPassword(h2, "correct horse battery") {
		t.Error("a hash does not verify its password")
	}
	for _, wrong := range []string{"correct horse batterY", "", "correct horse battery "} {
		if verifyPassword(h1, wrong) {
			t.Errorf("%q verifies", wrong)
		}
	}
	for _, bad := range []string{"", "$argon2i$v=19$m=19456,t=2,p=1$c2FsdA$a2V5", strings.Replace(h1, "t=2", "t=99", 1), "$argon2id$v=19$m=19456,t=2,p=1$!!$!!"} {
		if verifyPassword(bad, "correct horse battery") {
			t.Errorf("the malformed hash %q verifies", bad)
		}
	}
}
