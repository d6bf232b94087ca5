package notify

import (
	"os"
	"strings"
	"testing"
	"unicode"
)

// TestDocumentationAnchor: the "documentation" link of webhook bodies
// points at a heading README.md has, by the anchor GitHub gives it.
func TestDocumentationAnchor(t *testing.T) {
	page, fragment, ok := strings.Cut(DefaultDocumentation, "#")
	if !ok || page != "https://github.com/statusd/statusd" {
		t.Fatalf("%s is not a heading of the repository's README", DefaultDocumentation)
	}
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	var anchors []string
	fenced := false
	for line := range strings.Lines(string(readme)) {
		if strings.HasPrefix(line, "```") {
			fenced = !fenced
		}
		if fenced || !strings.HasPrefix(line, "#") {
			continue
		}
		if heading, ok := strings.CutPrefix(strings.TrimLeft(line, "#"), " "); ok {
			anchors = append(anchors, anchor(heading))
		}
	}
	for _, a := range anchors {
		if a == fragment {
			return
		}
	}
	t.Errorf("README.md has no heading with the anchor #%s; it has %v", fragment, anchors)
}

// anchor is GitHub's anchor of a heading: lower case, spaces as hyphens,
// other punctuation dropped.
func anchor(heading string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r == ' ':
			return '-'
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			return unicode.ToLower(r)
		}
		return -1
	}, strings.TrimSpace(heading))
}
