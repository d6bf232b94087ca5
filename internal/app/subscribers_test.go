package app

import (
	"context"
	"testing"

	"github.com/statusd/statusd"
)

// TestChatAddressMasked: below owner, a chat subscriber's address (its
// webhook URL, a credential) reads as its host and last 4 characters,
// one by one as in pages; an owner reads it whole, and a plain webhook's
// address is read whole by all.
func TestChatAddressMasked(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	owner := statusd.Actor{Name: "ci", Role: statusd.Owner, Kind: statusd.ByToken}
	sub, err := f.app.AddSubscriber(ctx, owner, statusd.AdminSubscriberRequest{Channel: text("discord"),
		Address: text("https://discord.com/api/webhooks/123/tokenWXYZ")})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		role          statusd.Role
		chat, webhook string
	}{
		{statusd.Owner, "https://discord.com/api/webhooks/123/tokenWXYZ", "https://hooks.example.com/x"},
		{statusd.Publisher, "https://discord.com/…WXYZ", "https://hooks.example.com/x"},
		{statusd.Viewer, "https://discord.com/…WXYZ", "https://hooks.example.com/x"},
	} {
		actor := statusd.Actor{Name: "someone@example.com", Role: tc.role, Kind: statusd.ByPerson}
		one, err := f.app.Subscriber(ctx, actor, sub.ID)
		if err != nil || one.Address != tc.chat {
			t.Errorf("%s: Subscriber = %v, %v; want the address %q", tc.role, one, err, tc.chat)
		}
		list, _, err := f.app.SubscribersPage(ctx, actor, statusd.SubscriberFilter{}, 1)
		if err != nil || len(list) != 2 || list[0].Address != tc.webhook || list[1].Address != tc.chat {
			t.Errorf("%s: SubscribersPage = %+v, %v; want %q then %q", tc.role, list, err, tc.webhook, tc.chat)
		}
	}
	for in, want := range map[string]string{
		"https://hooks.slack.com/services/T0/B0/abcdefgh1234": "https://hooks.slack.com/…1234",
		"https://x.test/short":                                "https://x.test/…",
		"no scheme/at/all/here":                               "no scheme/…here",
	} {
		if got := maskURL(in); got != want {
			t.Errorf("maskURL(%q) = %q, want %q", in, got, want)
		}
	}
}
