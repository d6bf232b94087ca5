package statusd

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// componentKey is the form of a component's key (CONTRACT C9); a key also
// has at least one letter, so that a decimal value is always an id.
var componentKey = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,63}$`)

// CheckComponentKey returns what is wrong with key as a component's key,
// or "" when it may be one (CONTRACT C9): 1 to 64 lower-case letters,
// digits, '-' and '_', the first a letter or a digit, and at least one
// letter. The empty key is none, and fine.
func CheckComponentKey(key string) string {
	if key == "" || componentKey.MatchString(key) && strings.ContainsAny(key, "abcdefghijklmnopqrstuvwxyz") {
		return ""
	}
	return fmt.Sprintf("%q is not a key: use 1 to 64 lower-case letters (at least one), digits, '-' and '_', starting with a letter or a digit", key)
}

// ComponentKeyProblem returns what is wrong with key as the key of the
// component id on a page of comps (which may hold that component, with its
// old key, or not): not a key (CheckComponentKey), or the key of another
// component; "" when nothing is.
func ComponentKeyProblem(comps []Component, id int64, key string) string {
	if msg := CheckComponentKey(key); msg != "" || key == "" {
		return msg
	}
	for _, c := range comps {
		if c.Key == key && c.ID != id {
			return keyTaken(key, c.ID)
		}
	}
	return ""
}

// keyTaken is the problem of a key held by the component id.
func keyTaken(key string, id int64) string {
	return fmt.Sprintf("%q is the key of component %d; keys are unique", key, id)
}

// ComponentRef resolves ref, a component's key or its decimal id, among
// comps: the component's id, and whether one has it. A ref of digits only
// is an id (a key has a letter); anything else is compared with the keys
// exactly.
func ComponentRef(comps []Component, ref string) (id int64, ok bool) {
	if ref == "" {
		return 0, false
	}
	digits := true
	for i := 0; i < len(ref); i++ {
		digits = digits && ref[i] >= '0' && ref[i] <= '9'
	}
	n, err := strconv.ParseInt(ref, 10, 64)
	for _, c := range comps {
		if digits && err == nil && c.ID == n || !digits && c.Key == ref {
			return c.ID, true
		}
	}
	return 0, false
}
