package statusd

import (
	"strings"
	"testing"
)

// TestDocumentTextLimits: the import document takes subjects of at most
// 255 characters and contents of at most 20,000 (characters, not bytes),
// naming each longer one by its path.
func TestDocumentTextLimits(t *testing.T) {
	fits := c5Mutate(t, func(d c5obj) {
		c5Notice(d, 0)["subject"] = strings.Repeat("é", 255) // 510 bytes
		c5Update(d, 0, 1)["content"] = strings.Repeat("€", 20_000)
	})
	if _, err := c5Decode(fits); err != nil {
		t.Errorf("a subject of 255 and a content of 20,000 characters: %.300v", err)
	}
	over := c5Mutate(t, func(d c5obj) {
		c5Notice(d, 1)["subject"] = strings.Repeat("s", 256)
		c5Update(d, 2, 0)["content"] = strings.Repeat("c", 20_001)
	})
	got := c5Problems(t, over)
	c5CheckProblems(t, got,
		c5Want{"notices[1].subject", "must be at most 255 characters, not 256"},
		c5Want{"notices[2].updates[0].content", "must be at most 20000 characters, not 20001"})
	if len(got) != 2 {
		t.Errorf("%d problems, want 2: %v", len(got), got)
	}
}
