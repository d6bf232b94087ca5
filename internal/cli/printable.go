package cli

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// printable returns s fit for a terminal, for every human-readable output
// of the CLI: control characters (C0 and DEL as \x1b, C1 as \u009b), format
// characters that reorder or hide text (bidi controls such as \u202e and
// \u2066, zero-width characters), line and paragraph separators, and bytes
// that are not UTF-8 (\xff) are written as Go escapes, so that text from
// the database or a server can neither move the cursor, recolour, erase or
// reorder what the CLI prints, nor forge a line or a column. The rest,
// backslashes included, is left as it is. --json output is never passed
// through it.
func printable(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1, r < utf8.RuneSelf && unicode.IsControl(r):
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case unicode.IsControl(r), unicode.In(r, unicode.Cf, unicode.Zl, unicode.Zp):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}
