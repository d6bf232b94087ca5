package statusd

import (
	"strings"
	"unicode"
)

// MaxDerivedSubject is the most characters SubjectOf keeps.
const MaxDerivedSubject = 80

// SubjectOf derives a notice's subject from its message, for a person who
// gives none (the command line's --subject, the console's subject field
// left empty): the message up to its first '.', ';', '!', '?' or
// newline, trimmed, at most MaxDerivedSubject characters cut at a word
// boundary; the whole message so cut when it begins with punctuation.
func SubjectOf(msg string) string {
	s := msg
	if i := strings.IndexAny(s, ".;!?\n"); i >= 0 {
		s = s[:i]
	}
	if s = CutWords(strings.TrimSpace(s), MaxDerivedSubject); s == "" {
		s = CutWords(strings.TrimSpace(msg), MaxDerivedSubject) // the message began with punctuation
	}
	return s
}

// CutWords shortens s to at most n characters, at the last word boundary
// that fits when there is one.
func CutWords(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	cut := n
	if !unicode.IsSpace(r[n]) {
		for i := n - 1; i > 0; i-- {
			if unicode.IsSpace(r[i]) {
				cut = i
				break
			}
		}
	}
	return strings.TrimSpace(string(r[:cut]))
}
