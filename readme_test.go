package statusd

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestReadmeAnchors: every link of the README to a heading of a file in
// docs/ names a heading that the file has, by GitHub's slug of it (lower
// case, punctuation but '-' and '_' dropped, spaces as '-').
func TestReadmeAnchors(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	links := regexp.MustCompile(`\]\((docs/[A-Za-z0-9_.-]+\.md)#([^)]+)\)`).FindAllStringSubmatch(string(readme), -1)
	if len(links) == 0 {
		t.Fatal("no links to headings in docs/ found")
	}
	heading := regexp.MustCompile(`(?m)^#+ (.+)$`)
	for _, l := range links {
		doc, err := os.ReadFile(l[1])
		if err != nil {
			t.Errorf("%s#%s: %v", l[1], l[2], err)
			continue
		}
		found := false
		for _, h := range heading.FindAllStringSubmatch(string(doc), -1) {
			found = found || slug(h[1]) == l[2]
		}
		if !found {
			t.Errorf("README links to %s#%s, which has no such heading", l[1], l[2])
		}
	}
}

// slug is GitHub's anchor of a heading.
func slug(h string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(h) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
			b.WriteRune(r)
		}
	}
	return b.String()
}
