package server_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/internal/testenv"
	"github.com/statusd/statusd/internal/testserver"
)

// TestNotifyEndToEnd plays CONTRACT C7 through the real server, a real
// SMTP server and webhook receivers on 127.0.0.1: a visitor subscribes
// and confirms by the email's link (item 1), an operator's incident and
// updates reach the email and the webhook subscribers, threaded, signed,
// and not when notify is false (items 3 and 5), one-click unsubscription
// stops the emails, and a receiver answering 410 is unsubscribed.
func TestNotifyEndToEnd(t *testing.T) {
	ctx := context.Background()
	site := startSubscriptions(t, options{allowPrivate: true})
	tok := newToken(t, site.DB, "ops")
	adm := site.Admin(tok)
	const addr = "visitor@example.com"
	const pageURL = "https://status.shop.test"
	// local turns a link of an email (on the page's URL) into one on
	// the test server.
	local := func(t *testing.T, link string) string {
		t.Helper()
		if !strings.HasPrefix(link, pageURL+"/") {
			t.Fatalf("link %q is not on the page's URL %s", link, pageURL)
		}
		return strings.TrimPrefix(link, pageURL)
	}
	// email waits for the n-th email (from 1) and reads it.
	email := func(t *testing.T, n int) testenv.Email {
		t.Helper()
		msgs := site.smtp.WaitMessages(t, n)
		if len(msgs) != n {
			t.Fatalf("%d emails arrived, want %d", len(msgs), n)
		}
		if !slices.Equal(msgs[n-1].To, []string{addr}) {
			t.Errorf("email %d went to %v, want %s", n, msgs[n-1].To, addr)
		}
		return testenv.ParseEmail(t, msgs[n-1].Data)
	}
	// quiet checks that nothing more arrives within 1.5 s.
	quiet := func(t *testing.T, what string, emails int, recv *testserver.Receiver, posts int) {
		t.Helper()
		time.Sleep(1500 * time.Millisecond)
		if n, m := len(site.smtp.Messages()), len(recv.Requests()); n != emails || m != posts {
			t.Errorf("%s: %d emails and %d webhook POSTs, want %d and %d", what, n, m, emails, posts)
		}
	}
	var subID int64
	var first testenv.Email // the incident's first notification

	testserver.Step(t, "a visitor subscribes and confirms by the email's link", func(t *testing.T) {
		s := site.In(t)
		subSees(t, subPage(t, "POST /subscribe", s.post("/subscribe", url.Values{"email": {addr}, "component_ids": {"2"}}), 200, true),
			"Check your inbox")
		m := regexp.MustCompile(`https://status\.shop\.test/subscriptions/confirm\?token=[A-Za-z0-9_-]+`).FindString(email(t, 1).Text)
		if m == "" {
			t.Fatalf("the confirmation email has no confirm link")
		}
		link := local(t, m)
		p := subPage(t, "GET the confirm link", s.Do(http.MethodGet, link), 200, true)
		form := subForm(t, p, "/subscriptions/confirm")
		list, err := adm.Subscribers(ctx, statusd.SubscriberFilter{Channel: statusd.Email}, 1)
		if err != nil || len(list.Subscribers) != 1 || list.Subscribers[0].State != "pending" {
			t.Fatalf("after GET of the link: %+v %v; want one pending subscriber", list, err)
		}
		subID = list.Subscribers[0].ID
		subSees(t, subPage(t, "POST confirm", s.post("/subscriptions/confirm", form), 200, true), "You are subscribed")
		if sub, err := adm.Subscriber(ctx, subID); err != nil || sub.State != "active" || !slices.Equal(sub.ComponentIDs, []int64{2}) {
			t.Fatalf("after POST confirm: %+v %v; want active on [2]", sub, err)
		}
	})

	hook, gone := testserver.StartReceiver(t), testserver.StartReceiver(t)
	gone.Status.Store(http.StatusGone)
	var hookSecret string
	var goneID, incident int64

	testserver.Step(t, "an incident reaches the email and the webhooks; a 410 unsubscribes", func(t *testing.T) {
		for _, r := range []*testserver.Receiver{hook, gone} {
			s, err := adm.CreateSubscriber(ctx, statusd.AdminSubscriberRequest{Channel: new("webhook"), Address: new(r.URL + "/hook")})
			if err != nil || s.State != "active" {
				t.Fatalf("create the webhook of %s: %+v %v", r.URL, s, err)
			}
			if r == hook {
				hookSecret = s.Secret
			} else {
				goneID = s.ID
			}
		}
		n, err := adm.CreateNotice(ctx, statusd.AdminNoticeRequest{Type: new("unplanned"), Subject: new("Checkout down"),
			State: new("investigating"), Content: new("Payments fail."), ComponentIDs: &[]int64{2}})
		if err != nil {
			t.Fatal(err)
		}
		incident = n.ID

		first = email(t, 2)
		if first.Subject != "[Shop Status] Checkout down: Investigating" {
			t.Errorf("subject %q", first.Subject)
		}
		unsub := regexp.MustCompile(`^<(https://status\.shop\.test/subscriptions/unsubscribe\?token=[A-Za-z0-9_-]+)>$`).FindStringSubmatch(first.Header.Get("List-Unsubscribe"))
		if unsub == nil || first.Header.Get("List-Unsubscribe-Post") != "List-Unsubscribe=One-Click" {
			t.Errorf("List-Unsubscribe %q, List-Unsubscribe-Post %q", first.Header.Get("List-Unsubscribe"), first.Header.Get("List-Unsubscribe-Post"))
		}
		for _, part := range []string{first.Text, first.HTML} {
			if !strings.Contains(part, "https://status.shop.test/subscriptions/manage?token=") || !strings.Contains(part, "Payments fail.") {
				t.Errorf("a part lacks the manage link or the update:\n%s", part)
			}
		}
		if first.Header.Get("Message-ID") == "" {
			t.Error("no Message-ID")
		}

		got := hook.Wait(t, 1)
		testserver.CheckSigned(t, "the incident's webhook", got[0], hookSecret)
		var body struct {
			Event  string `json:"event"`
			Notice struct {
				Subject string `json:"subject"`
			} `json:"notice"`
		}
		if err := json.Unmarshal(got[0].Body, &body); err != nil || body.Event != "notice.created" || body.Notice.Subject != "Checkout down" {
			t.Errorf("webhook body: %v %+v\n%s", err, body, got[0].Body)
		}
		gone.Wait(t, 1)
		waitState(t, func() string {
			s, err := adm.Subscriber(ctx, goneID)
			if err != nil {
				t.Fatal(err)
			}
			return s.State
		}, "unsubscribed")
	})

	testserver.Step(t, "an update with notify false sends nothing", func(t *testing.T) {
		if _, err := adm.PostUpdate(ctx, incident, statusd.AdminUpdateRequest{State: new("identified"), Content: new("Found it."),
			Notify: new(false)}); err != nil {
			t.Fatal(err)
		}
		quiet(t, "after notify false", 2, hook, 1)
	})

	testserver.Step(t, "an update sends the second email, a reply to the first", func(t *testing.T) {
		if _, err := adm.PostUpdate(ctx, incident, statusd.AdminUpdateRequest{State: new("recovering"), Content: new("Fix deployed.")}); err != nil {
			t.Fatal(err)
		}
		second := email(t, 3)
		if second.Subject != "[Shop Status] Checkout down: Recovering" {
			t.Errorf("subject %q", second.Subject)
		}
		if id := first.Header.Get("Message-ID"); second.Header.Get("In-Reply-To") != id || second.Header.Get("Message-ID") == id {
			t.Errorf("In-Reply-To %q, Message-ID %q; want In-Reply-To the first's Message-ID %q", second.Header.Get("In-Reply-To"),
				second.Header.Get("Message-ID"), id)
		}
		testserver.CheckSigned(t, "the update's webhook", hook.Wait(t, 2)[1], hookSecret)
	})

	testserver.Step(t, "one-click unsubscription stops the emails", func(t *testing.T) {
		link := local(t, strings.Trim(first.Header.Get("List-Unsubscribe"), "<>"))
		r := testserver.Fetch(t, http.MethodPost, site.URL+link, "List-Unsubscribe=One-Click", "Content-Type", "application/x-www-form-urlencoded")
		if r.Status != 200 {
			t.Fatalf("one-click POST: %d\n%s", r.Status, r.Body)
		}
		if s, err := adm.Subscriber(ctx, subID); err != nil || s.State != "unsubscribed" {
			t.Fatalf("after one-click: %+v %v", s, err)
		}
		if _, err := adm.PostUpdate(ctx, incident, statusd.AdminUpdateRequest{State: new("resolved"), Content: new("Fixed.")}); err != nil {
			t.Fatal(err)
		}
		hook.Wait(t, 3) // the update was sent: to the webhook only
		quiet(t, "after the unsubscription", 3, hook, 3)
		if n := len(gone.Requests()); n != 1 {
			t.Errorf("the unsubscribed webhook got %d POSTs, want 1", n)
		}
	})
}

// waitState polls state up to 10 s until it is want.
func waitState(t *testing.T, state func() string, want string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		got := state()
		if got == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("state %q after 10 s, want %q", got, want)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
