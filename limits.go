package statusd

import (
	"fmt"
	"unicode/utf8"
)

// The longest subject of a notice and content of an update, in characters
// (CONTRACT C6). Every write that takes them refuses longer ones with 422
// invalid_field, the import document too: a notice is rendered for every
// subscriber, so its size multiplies.
const (
	MaxSubject = 255
	MaxContent = 20_000
)

// TooLong returns the problem of a text of more than max characters ("at
// most 255 characters, not 1000"), or "" when it fits.
func TooLong(s string, max int) string {
	if len(s) <= max { // a character is at least one byte
		return ""
	}
	if n := utf8.RuneCountInString(s); n > max {
		return fmt.Sprintf("must be at most %d characters, not %d", max, n)
	}
	return ""
}
