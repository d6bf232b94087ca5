package cli

import "testing"

func TestPrintable(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"API", "API"},
		{"Café ☕ 東京 \\n", "Café ☕ 東京 \\n"}, // printable text and a backslash stay
		{"a\x1b[2Kb", `a\x1b[2Kb`},
		{"line\nforged\r\tcell", `line\x0aforged\x0d\x09cell`},
		{"\x00\x7f", `\x00\x7f`},
		{"c1 \u0085 \u009b", `c1 \u0085 \u009b`},
		{"\u202eevil\u202c \u2066x\u2069 \u200f\u061c", `\u202eevil\u202c \u2066x\u2069 \u200f\u061c`},
		{"zero\u200bwidth\ufeff", `zero\u200bwidth\ufeff`},
		{"sep\u2028\u2029", `sep\u2028\u2029`},
		{"bad \xff\xc3 utf-8", `bad \xff\xc3 utf-8`},
	} {
		if got := printable(tc.in); got != tc.want {
			t.Errorf("printable(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
