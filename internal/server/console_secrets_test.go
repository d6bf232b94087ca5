package server_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/internal/testserver"
)

// TestConsoleChatURLsMasked: a Slack or Discord webhook URL is a
// credential: an owner reads it whole, a publisher and a viewer read its
// host and last 4 characters; a plain webhook's URL and an email are
// read whole by all.
func TestConsoleChatURLsMasked(t *testing.T) {
	srv := startServer(t, consoleDoc(time.Now().UTC()), options{adminListener: true})
	adm := srv.Admin(newToken(t, srv.DB, "alice"))
	ctx := context.Background()
	const slack = "https://hooks.slack.com/services/T0/B0/abcdefgh1234"
	const discord = "https://discord.com/api/webhooks/123/tokenWXYZ"
	for channel, address := range map[string]string{"slack": slack, "discord": discord, "webhook": "https://hooks.acme.test/statusd"} {
		_, err := adm.CreateSubscriber(ctx, statusd.AdminSubscriberRequest{Channel: new(channel), Address: new(address)})
		testserver.NoErr(t, "CreateSubscriber "+channel, err)
	}
	owner := signedIn(t, srv, adm, "olga@example.com", "owner")
	pat := signedIn(t, srv, adm, "pat@example.com", "publisher")
	vic := signedIn(t, srv, adm, "vic@example.com", "viewer")

	p := owner.do("GET", "/manage/subscribers", nil)
	p.want(t, "the owner's subscribers", 200, "")
	p.has(t, "the owner's subscribers", slack, discord, "https://hooks.acme.test/statusd")
	for who, b := range map[string]*browser{"the publisher": pat, "the viewer": vic} {
		p := b.do("GET", "/manage/subscribers", nil)
		p.want(t, who, 200, "")
		p.has(t, who, "https://hooks.slack.com/…1234", "https://discord.com/…WXYZ", "https://hooks.acme.test/statusd")
		for _, secret := range []string{"abcdefgh", "tokenW", "services/T0"} {
			if strings.Contains(p.body, secret) {
				t.Errorf("%s reads %q:\n%s", who, secret, p.body)
			}
		}
	}
}
