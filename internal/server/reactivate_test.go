package server_test

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/internal/testenv"
	"github.com/statusd/statusd/internal/testserver"
)

// TestReactivateSendsWhatIsCurrent plays issue 34's item 18 through the
// real server and a real SMTP server: a mail server that refuses two
// mailboxes (550 5.1.1, the subscribers' own fault) quarantines them while
// a third address at the same domain is taken; a notice's updates and a
// new notice go out while they are quarantined; once the mailboxes work
// again, POST /subscribers/reactivate sets them active and sends each, for
// every notice, its newest update alone: not the opening that failed, not
// the update in between, and not a delivery that was dropped. The
// expected emails are worked out from the rules, by hand.
func TestReactivateSendsWhatIsCurrent(t *testing.T) {
	ctx := context.Background()
	var broken atomic.Bool
	broken.Store(true)
	const ann, bob, carl = "ann@example.com", "bob@example.com", "carl@example.com"
	smtpd := testenv.StartSMTP(t, testenv.SMTPOptions{RcptRule: func(to string) error {
		if broken.Load() && (to == ann || to == bob) {
			return testenv.SMTPReply(550, [3]int{5, 1, 1}, "<"+to+">: no such user")
		}
		return nil
	}})
	srv := startServer(t, webStateDoc(time.Now().UTC(), "operational"), options{smtp: smtpd})
	tok := newToken(t, srv.DB, "ops")
	adm := srv.Admin(tok)
	ids := map[string]int64{}
	for _, addr := range []string{carl, ann, bob} {
		s, err := adm.CreateSubscriber(ctx, statusd.AdminSubscriberRequest{Channel: new("email"), Address: new(addr), Confirmed: new(true)})
		if err != nil || s.State != "active" {
			t.Fatalf("add %s: %+v %v", addr, s, err)
		}
		ids[addr] = s.ID
	}
	// subjects are the subjects of the emails to addr, in order.
	subjects := func(t *testing.T, addr string) []string {
		var out []string
		for _, m := range smtpd.Messages() {
			if slices.Equal(m.To, []string{addr}) {
				out = append(out, testenv.ParseEmail(t, m.Data).Subject)
			}
		}
		return out
	}
	state := func(addr string) func() string {
		return func() string {
			s, err := adm.Subscriber(ctx, ids[addr])
			if err != nil {
				t.Fatal(err)
			}
			return s.State
		}
	}
	var dropped statusd.AdminDelivery // ann's

	testserver.Step(t, "a delivery with nothing to send is dropped", func(t *testing.T) {
		// An event of a notice that does not exist, made two minutes
		// ago: past the wait for the snapshot, the sender drops it.
		_, err := testserver.OpenStore(t, srv.DB).Subscribers().Emit(ctx, statusd.Event{Kind: statusd.NoticeUpdated, NoticeID: 999,
			UpdateID: 1, ComponentIDs: []int64{}, CreatedAt: time.Now().Add(-2 * time.Minute)})
		if err != nil {
			t.Fatal(err)
		}
		waitState(t, func() string {
			d, err := adm.Deliveries(ctx, statusd.DeliveryFilter{SubscriberID: ids[ann], State: statusd.DeliveryFailed}, 1)
			if err != nil || len(d.Deliveries) != 1 {
				return fmt.Sprint(d, err)
			}
			dropped = d.Deliveries[0]
			return "dropped"
		}, "dropped")
		if dropped.LastError == nil || !strings.HasPrefix(*dropped.LastError, "dropped: ") || dropped.Attempts != 0 {
			t.Fatalf("ann's delivery of notice 999: %+v, want dropped", dropped)
		}
	})

	var incident int64
	testserver.Step(t, "the refused mailboxes are quarantined by the incident's opening", func(t *testing.T) {
		n, err := adm.CreateNotice(ctx, statusd.AdminNoticeRequest{Type: new("unplanned"), Subject: new("Checkout down"),
			State: new("investigating"), Content: new("Payments fail."), ComponentIDs: &[]int64{2}})
		if err != nil {
			t.Fatal(err)
		}
		incident = n.ID
		waitState(t, state(ann), "quarantined")
		waitState(t, state(bob), "quarantined")
		smtpd.WaitMessages(t, 1)
		if got := subjects(t, carl); !slices.Equal(got, []string{"[Shop Status] Checkout down: Investigating"}) {
			t.Errorf("carl's emails: %q", got)
		}
	})

	testserver.Step(t, "while they are quarantined, two updates and a new notice reach carl alone", func(t *testing.T) {
		for _, u := range []struct{ state, content string }{{"identified", "Found it."}, {"recovering", "Fix deployed."}} {
			if _, err := adm.PostUpdate(ctx, incident, statusd.AdminUpdateRequest{State: new(u.state), Content: new(u.content)}); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := adm.CreateNotice(ctx, statusd.AdminNoticeRequest{Type: new("general"), Subject: new("New payment provider"),
			Content: new("We switched.")}); err != nil {
			t.Fatal(err)
		}
		smtpd.WaitMessages(t, 4)
		time.Sleep(time.Second)
		if got := len(smtpd.Messages()); got != 4 {
			t.Errorf("%d emails, want carl's 4", got)
		}
	})

	testserver.Step(t, "bad selections are refused and change nothing", func(t *testing.T) {
		subRefuse(t, srv, tok, "POST", "/subscribers/reactivate", `{"channel": "sms", "ids": [0]}`, 422, "invalid_field",
			`channel: "sms" is not email, webhook, slack, teams or discord`, "ids[0]: 0 is not a subscriber id")
		subRefuse(t, srv, tok, "POST", "/subscribers/reactivate", fmt.Sprintf(`{"ids": [%d, 99999, %d]}`, ids[ann], ids[carl]), 422, "invalid_field",
			"ids[1]: no subscriber has id 99999", fmt.Sprintf("ids[2]: subscriber %d is active, not quarantined", ids[carl]))
		subRefuse(t, srv, tok, "POST", "/subscribers/reactivate", `{"ids": []}`, 422, "invalid_field", "ids: lists no subscriber")
		subRefuse(t, srv, tok, "POST", "/subscribers/reactivate", `{"channel": "webhook", "ids": [`+fmt.Sprint(ids[bob])+`]}`, 422,
			"invalid_field", "is a email subscriber, not webhook")
		if s := state(ann)(); s != "quarantined" {
			t.Errorf("ann is %s after refusals, want quarantined", s)
		}
	})

	testserver.Step(t, "reactivation sends each the current update of each notice, once", func(t *testing.T) {
		broken.Store(false)
		r := srv.Authed("POST", testserver.AdminRoot+"/subscribers/reactivate", tok, `{"channel": "email"}`)
		// Each of ann and bob: the incident's newest update (recovering;
		// not the failed opening nor identified) and the new notice.
		// Nothing for notice 999, dropped.
		if r.Status != 200 || strings.TrimSpace(string(r.Body)) != `{"reactivated":2,"requeued":4}` {
			t.Fatalf("POST /subscribers/reactivate: %d %s", r.Status, r.Body)
		}
		smtpd.WaitMessages(t, 8)
		time.Sleep(1500 * time.Millisecond)
		if got := len(smtpd.Messages()); got != 8 {
			t.Errorf("%d emails, want 8: carl's 4 and 2 each to ann and bob", got)
		}
		for _, addr := range []string{ann, bob} {
			got := subjects(t, addr)
			slices.Sort(got)
			want := []string{"[Shop Status] Checkout down: Recovering", "[Shop Status] New payment provider: Announcement"}
			if !slices.Equal(got, want) {
				t.Errorf("%s's emails: %q, want %q", addr, got, want)
			}
			if s := state(addr)(); s != "active" {
				t.Errorf("%s is %s, want active", addr, s)
			}
		}
		d, err := adm.Deliveries(ctx, statusd.DeliveryFilter{SubscriberID: ids[ann]}, 1)
		testserver.NoErr(t, "Deliveries", err)
		for _, x := range d.Deliveries {
			if x.ID == dropped.ID && (x.State != "failed" || x.Attempts != 0 || *x.LastError != *dropped.LastError) {
				t.Errorf("the dropped delivery became %+v", x)
			}
		}
		audit, err := adm.Audit(ctx, 1)
		testserver.NoErr(t, "Audit", err)
		if a := audit.Audit[0]; a.Action != "subscriber.reactivate" || a.Actor != "ops" ||
			a.Detail != "quarantined email subscribers; 2 subscribers active again, 4 messages sent again" {
			t.Errorf("the audit entry: %+v", a)
		}
	})
}

// TestConsoleReactivate: the subscribers screen offers an owner, and only
// an owner, to reactivate every quarantined subscriber while there is one,
// from the same site only; the button does it and says what it did.
func TestConsoleReactivate(t *testing.T) {
	srv := startServer(t, consoleDoc(time.Now().UTC()), options{adminListener: true, allowPrivate: true})
	recv := testserver.StartReceiver(t)
	adm := srv.Admin(newToken(t, srv.DB, "alice"))
	ctx := context.Background()
	owner := signIn(t, srv, adm, "olga@example.com", "owner")
	publisher := signIn(t, srv, adm, "pat@example.com", "publisher")
	const subs, button = "/manage/subscribers", "Reactivate all quarantined"
	hook, err := adm.CreateSubscriber(ctx, statusd.AdminSubscriberRequest{Channel: new("webhook"), Address: new(recv.URL + "/hook")})
	testserver.NoErr(t, "CreateSubscriber", err)
	state := func() string {
		s, err := adm.Subscriber(ctx, hook.ID)
		testserver.NoErr(t, "Subscriber", err)
		return s.State
	}

	testserver.Step(t, "no button while nobody is quarantined", func(t *testing.T) {
		if p := owner.do("GET", subs, nil); strings.Contains(p.body, button) {
			t.Errorf("the button is shown with no one quarantined:\n%s", p.body)
		}
	})
	if _, err := testserver.OpenStore(t, srv.DB).Subscribers().Change(ctx, hook.ID, func(s *statusd.Subscriber) error {
		s.State = statusd.SubscriberQuarantined
		return nil
	}, nil); err != nil {
		t.Fatal(err)
	}

	testserver.Step(t, "a publisher neither sees it nor may do it", func(t *testing.T) {
		if p := publisher.do("GET", subs, nil); strings.Contains(p.body, button) {
			t.Errorf("a publisher is shown the button:\n%s", p.body)
		}
		publisher.do("POST", subs+"/reactivate", url.Values{}).want(t, "a publisher reactivates", 403, "")
		owner.do("POST", subs+"/reactivate", url.Values{}, "Sec-Fetch-Site", "cross-site").want(t, "a cross-site reactivation", 403, "")
		if s := state(); s != "quarantined" {
			t.Errorf("after the refusals the webhook is %s, want quarantined", s)
		}
	})

	testserver.Step(t, "an owner reactivates, and is told how many", func(t *testing.T) {
		p := owner.do("GET", subs, nil)
		if !strings.Contains(p.body, "1 subscribers are quarantined") || !strings.Contains(p.body, `action="/manage/subscribers/reactivate"`) ||
			!strings.Contains(p.body, button) {
			t.Fatalf("the owner is not offered the button:\n%s", p.body)
		}
		p = owner.do("POST", subs+"/reactivate", url.Values{})
		p.want(t, "reactivate", 200, "")
		if !strings.Contains(p.body, "1 quarantined subscribers are active again; 0 messages will be sent to them again") || strings.Contains(p.body, button) {
			t.Errorf("the outcome:\n%s", p.body)
		}
		if s := state(); s != "active" {
			t.Errorf("the webhook is %s, want active", s)
		}
	})
}
