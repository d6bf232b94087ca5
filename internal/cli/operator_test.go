package cli

import (
	"strings"
	"testing"
	"time"
)

func TestOperatorSubject(t *testing.T) {
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
		if got := opSubject(tc.msg); got != tc.want {
			t.Errorf("opSubject(%q) = %q, want %q", tc.msg, got, tc.want)
		}
		if n := len([]rune(opSubject(tc.msg))); n > 80 {
			t.Errorf("opSubject(%q) has %d characters", tc.msg, n)
		}
	}
	for _, tc := range []struct {
		in   string
		want time.Duration
	}{{"+90s", 90 * time.Second}, {"+2h", 2 * time.Hour}, {"1d12h", 36 * time.Hour}, {"+7d", 7 * 24 * time.Hour}} {
		got, err := opDuration(strings.TrimPrefix(tc.in, "+"))
		if err != nil || got != tc.want {
			t.Errorf("opDuration(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
}
