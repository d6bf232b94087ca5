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

// TestInvisibleAddresses: an address with a control character or a mark
// that reorders text is refused, an email address as a URL, by every
// entry point's check (the import document checks with them too).
func TestInvisibleAddresses(t *testing.T) {
	for _, c := range []struct {
		channel Channel
		addr    string
	}{
		{Email, "ann\u202e@example.com"},
		{Email, "ann@exa\u2066mple.com"},
		{Webhook, "https://hooks.example.com/\u202egpj.exe"},
		{Slack, "https://hooks.slack.com/services/\u200f/x"},
		{Discord, "https://discord.com/api/webhooks/1/a\u0085b"},
		{Teams, "https://example.webhook.office.com/\u061c"},
	} {
		err := checkAddress(c.channel, c.addr)
		if ErrorCode(err) != EInvalidField || !strings.Contains(ErrorMessage(err), "invisible character") {
			t.Errorf("%s %q: %v, want invalid_field naming the invisible character", c.channel, c.addr, err)
		}
	}
	if err := checkAddress(Webhook, "https://hooks.example.com/ok"); err != nil {
		t.Errorf("a plain URL: %v", err)
	}
}
