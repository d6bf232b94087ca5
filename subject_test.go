package statusd

import (
	"strings"
	"testing"
)

func TestSubjectOf(t *testing.T) {
	long := strings.Repeat("word ", 30)
	for _, tc := range []struct{ msg, want string }{
		{"Login fails. We are on it.", "Login fails"},
		{"  Errors on checkout; investigating", "Errors on checkout"},
		{"Down!", "Down"},
		{"Is it down? Maybe", "Is it down"},
		{"first line\nsecond line", "first line"},
		{"no punctuation at all", "no punctuation at all"},
		{long, strings.TrimSpace(strings.Repeat("word ", 16))}, // 16 words are 79 characters
		{strings.Repeat("x", 100), strings.Repeat("x", 80)},
		{strings.Repeat("ab ", 26) + "cd efgh", strings.TrimSpace(strings.Repeat("ab ", 26)) + " cd"}, // 78+2 = 80 exactly
		{"...", "..."},
	} {
		if got := SubjectOf(tc.msg); got != tc.want {
			t.Errorf("SubjectOf(%q) = %q, want %q", tc.msg, got, tc.want)
		}
		if n := len([]rune(SubjectOf(tc.msg))); n > 80 {
			t.Errorf("SubjectOf(%q) has %d characters", tc.msg, n)
		}
	}
}
