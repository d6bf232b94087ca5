package notify

import (
	"strings"
	"testing"
	"time"

	"github.com/statusd/statusd"
)

// TestEmailRenderedOncePerEvent: what every subscriber's email of an
// event shares is rendered once; each further subscriber costs a copy of
// the parts with its own tokens in, a few allocations, not the templates'
// hundreds (some 500 for a notice of 20,000 characters); and each gets
// its own links, the confirmation link too.
func TestEmailRenderedOncePerEvent(t *testing.T) {
	w, h := newTestWorker(Config{Now: time.Now})
	m, err := w.compose(h.Current(), updated, t0)
	if err != nil {
		t.Fatal(err)
	}
	m.Text = strings.Repeat("<a & b> ", statusd.MaxContent/8)
	ann := statusd.Subscriber{ID: 1, Channel: statusd.Email, Address: "ann@example.test", State: statusd.SubscriberActive, Token: statusd.NewToken()}
	bob := statusd.Subscriber{ID: 2, Channel: statusd.Email, Address: "bob@example.test", State: statusd.SubscriberActive, Token: statusd.NewToken()}
	first, err := renderEmail(m, claim(ann))
	if err != nil {
		t.Fatal(err)
	}
	allocs := testing.AllocsPerRun(20, func() {
		if _, err := renderEmail(m, claim(bob)); err != nil {
			t.Fatal(err)
		}
	})
	if allocs > 40 {
		t.Errorf("an email for one more subscriber took %.0f allocations, want at most 40: the shared parts are rendered again", allocs)
	}
	e, err := renderEmail(m, claim(bob))
	if err != nil {
		t.Fatal(err)
	}
	if e.Text != strings.ReplaceAll(first.Text, ann.Token, bob.Token) || e.HTML != strings.ReplaceAll(first.HTML, ann.Token, bob.Token) ||
		!strings.Contains(e.Text, "/subscriptions/manage?token="+bob.Token) || strings.Contains(e.HTML, ann.Token) {
		t.Error("bob's email is not ann's with bob's links")
	}
	if !strings.Contains(e.HTML, "&lt;a &amp; b&gt;") {
		t.Error("the HTML part does not escape the update")
	}

	// A confirmation, to a pending address and to an active one.
	c, err := w.compose(h.Current(), statusd.Event{ID: 9, Kind: statusd.SubscriptionConfirm, SubscriberID: 3, CreatedAt: t0}, t0)
	if err != nil {
		t.Fatal(err)
	}
	eve := statusd.Subscriber{ID: 3, Channel: statusd.Email, Address: "eve@example.test", State: statusd.SubscriberPending,
		Token: statusd.NewToken(), ConfirmToken: statusd.NewToken()}
	pending, err := renderEmail(c, claim(eve))
	if err != nil {
		t.Fatal(err)
	}
	active, err := renderEmail(c, claim(bob))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(pending.Text, "/subscriptions/confirm?token="+eve.ConfirmToken) || !strings.Contains(pending.HTML, "/subscriptions/confirm?token="+eve.ConfirmToken) ||
		strings.Contains(active.Text, "/subscriptions/confirm") || !strings.Contains(active.Text, "/subscriptions/manage?token="+bob.Token) {
		t.Errorf("confirmation emails:\n%s\n---\n%s", pending.Text, active.Text)
	}
}

// claim is a claimed delivery to s, as renderEmail takes it.
func claim(s statusd.Subscriber) *statusd.Claimed { return &statusd.Claimed{Subscriber: s} }
