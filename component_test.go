package statusd

import (
	"strings"
	"testing"
)

func TestCheckComponentKey(t *testing.T) {
	for _, tc := range []struct {
		key string
		ok  bool
	}{
		{"", true}, // none
		{"api", true},
		{"a", true},
		{"api-eu_1", true},
		{"9lives", true},
		{"0-x", true},
		{"1_2-3z", true},
		{strings.Repeat("k", 64), true},
		{strings.Repeat("k", 65), false}, // too long
		{"1", false},                     // digits only: an id
		{"0042", false},
		{"1-2", false}, // no letter
		{"-api", false},
		{"_api", false},
		{"API", false},
		{"api.eu", false},
		{"api eu", false},
		{"api/eu", false},
		{"é", false},
		{"api\n", false},
	} {
		if msg := CheckComponentKey(tc.key); (msg == "") != tc.ok {
			t.Errorf("CheckComponentKey(%q) = %q, want ok %t", tc.key, msg, tc.ok)
		}
	}
}

func TestComponentKeyProblem(t *testing.T) {
	comps := []Component{{ID: 1, Key: "api"}, {ID: 2}, {ID: 3, Key: "db"}}
	for _, tc := range []struct {
		id         int64
		key, wants string
	}{
		{2, "", ""},
		{2, "cdn", ""},
		{1, "api", ""}, // its own
		{4, "api", `"api" is the key of component 1; keys are unique`},
		{3, "api", `"api" is the key of component 1; keys are unique`},
		{2, "Api", `"Api" is not a key`},
	} {
		if got := ComponentKeyProblem(comps, tc.id, tc.key); !strings.HasPrefix(got, tc.wants) || (tc.wants == "") != (got == "") {
			t.Errorf("ComponentKeyProblem(%d, %q) = %q, want %q", tc.id, tc.key, got, tc.wants)
		}
	}
}

func TestComponentRef(t *testing.T) {
	// 12's key is "7", which no valid key is; a ref of digits is an id
	// all the same.
	comps := []Component{{ID: 7, Key: "api"}, {ID: 12, Key: "7"}, {ID: 30, Key: "db-1"}, {ID: 31}}
	for _, tc := range []struct {
		ref string
		id  int64
		ok  bool
	}{
		{"api", 7, true},
		{"db-1", 30, true},
		{"7", 7, true},
		{"31", 31, true},
		{"031", 31, true},
		{"12", 12, true},
		{"99", 0, false},
		{"", 0, false},
		{"API", 0, false},
		{" api", 0, false},
		{"+7", 0, false},
		{"-7", 0, false},
		{"99999999999999999999", 0, false},
	} {
		if id, ok := ComponentRef(comps, tc.ref); id != tc.id || ok != tc.ok {
			t.Errorf("ComponentRef(%q) = %d, %t; want %d, %t", tc.ref, id, ok, tc.id, tc.ok)
		}
	}
}
