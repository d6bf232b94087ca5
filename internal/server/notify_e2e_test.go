package server_test

import (
	"context"
	"encoding/json"
	"fmt"
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
	// What the incident's opening sends a webhook of the whole page
	// (hookLines).
	opening := []string{
		"component_update 1 operational degraded_performance",
		"component_update 2 operational degraded_performance",
		"notice.created investigating Checkout down",
	}
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

		// The write makes three events for a webhook of the whole page:
		// the notice's, and the component updates of Checkout (2), now
		// degraded by an incident of the default impact, minor, and of
		// its parent Website (1), degraded through it (CONTRACT C3, C7).
		got := hook.Wait(t, 3)
		for i, r := range got {
			testserver.CheckSigned(t, fmt.Sprintf("the incident's webhook %d", i+1), r, hookSecret)
		}
		testserver.AssertJSON(t, "the incident's webhooks", hookLines(t, got), opening)
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
		// Nothing at all: notify false stores no event, not even a
		// component's (and identified leaves Checkout degraded anyway).
		quiet(t, "after notify false", 2, hook, 3)
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
		// Recovering ends the only current incident: Checkout and,
		// through it, Website are operational again, each a component
		// update besides the notice's.
		got := hook.Wait(t, 6)[3:]
		testserver.AssertJSON(t, "the update's webhooks", hookLines(t, got), []string{
			"component_update 1 degraded_performance operational",
			"component_update 2 degraded_performance operational",
			"notice.updated recovering Checkout down",
		})
		testserver.CheckSigned(t, "the update's webhook", hookFind(t, got, "notice.updated recovering Checkout down"), hookSecret)
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
		// The update was sent: to the webhook only. Checkout was
		// operational already (recovering): no component update.
		got := hook.Wait(t, 7)
		if line := hookLine(t, got[6]); line != "notice.updated resolved Checkout down" {
			t.Errorf("the resolution's webhook is %q", line)
		}
		quiet(t, "after the unsubscription", 3, hook, 7)
		// The receiver answering 410 got the three deliveries of the
		// opening, claimed and sent together before its first 410 was
		// recorded, and nothing since.
		testserver.AssertJSON(t, "the unsubscribed webhook's POSTs", hookLines(t, gone.Requests()), opening)
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

// hookLine is a webhook request in one line: "<event> <notice's state>
// <notice's subject>" for a notice's event, "component_update <component
// id> <old status> <new status>" for a component's (Statuspage's
// component webhook, CONTRACT C7); it fails the test for a body that is
// neither.
func hookLine(t *testing.T, r testserver.Received) string {
	t.Helper()
	var body struct {
		Event  string `json:"event"`
		Notice struct {
			State   string `json:"state"`
			Subject string `json:"subject"`
		} `json:"notice"`
		ComponentUpdate *struct {
			ComponentID string `json:"component_id"`
			OldStatus   string `json:"old_status"`
			NewStatus   string `json:"new_status"`
		} `json:"component_update"`
	}
	if err := json.Unmarshal(r.Body, &body); err != nil {
		t.Fatalf("a webhook body: %v\n%s", err, r.Body)
	}
	switch {
	case body.ComponentUpdate != nil && body.Event == "":
		u := body.ComponentUpdate
		return "component_update " + u.ComponentID + " " + u.OldStatus + " " + u.NewStatus
	case body.Event != "" && body.ComponentUpdate == nil:
		return body.Event + " " + body.Notice.State + " " + body.Notice.Subject
	}
	t.Fatalf("a webhook body is neither a notice's event nor a component update:\n%s", r.Body)
	return ""
}

// hookLines is the hookLine of each request, sorted: the requests of
// one write arrive in any order.
func hookLines(t *testing.T, rs []testserver.Received) []string {
	t.Helper()
	out := []string{}
	for _, r := range rs {
		out = append(out, hookLine(t, r))
	}
	slices.Sort(out)
	return out
}

// hookFind is the request of rs whose hookLine is line.
func hookFind(t *testing.T, rs []testserver.Received, line string) testserver.Received {
	t.Helper()
	for _, r := range rs {
		if hookLine(t, r) == line {
			return r
		}
	}
	t.Fatalf("no webhook request is %q", line)
	return testserver.Received{}
}
