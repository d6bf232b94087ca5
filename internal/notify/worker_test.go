package notify

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/internal/snapshot"
	"github.com/statusd/statusd/internal/sqlstore"
	"github.com/statusd/statusd/internal/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// TestWorker runs the worker against the real store, real receivers and
// the real SMTP server: from a page write to what arrives, and what the
// store records.
func TestWorker(t *testing.T) {
	t.Run("sqlite", func(t *testing.T) { testWorker(t, filepath.Join(t.TempDir(), "notify.db")) })
	t.Run("postgres", func(t *testing.T) { testWorker(t, testenv.Postgres(t)) })
}

// shifted is the fixture with every time moved by d, and a top-level
// component "Billing" (4) that no notice lists.
func shifted(d time.Duration) *statusd.Document {
	doc := fixture()
	move := func(t *time.Time) { *t = t.Add(d) }
	moveOpt := func(t *time.Time) {
		if t != nil {
			move(t)
		}
	}
	move(&doc.Page.CreatedAt)
	move(&doc.Page.UpdatedAt)
	for i := range doc.Components {
		move(&doc.Components[i].CreatedAt)
		move(&doc.Components[i].UpdatedAt)
	}
	doc.Components = append(doc.Components, statusd.Component{ID: 4, Position: 4, Name: "Billing",
		CreatedAt: doc.Page.CreatedAt, UpdatedAt: doc.Page.CreatedAt})
	for i := range doc.Notices {
		n := &doc.Notices[i]
		move(&n.CreatedAt)
		move(&n.UpdatedAt)
		if n.BeginsAt != nil {
			b, e := n.BeginsAt.Add(d), n.EndsAt.Add(d)
			n.BeginsAt, n.EndsAt = &b, &e
		}
		moveOpt(n.ExpiresAt)
		for j := range n.Updates {
			move(&n.Updates[j].CreatedAt)
			move(&n.Updates[j].UpdatedAt)
		}
	}
	return doc
}

func testWorker(t *testing.T, target string) {
	ctx := context.Background()
	store, err := sqlstore.Open(ctx, target)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	now := time.Now().UTC().Truncate(time.Millisecond)
	if err := store.Import(ctx, shifted(now.Sub(t0)), false); err != nil {
		t.Fatal(err)
	}
	h := snapshot.NewHolder(store, snapshot.Options{Variant: statusd.VariantA}, time.Now, slog.New(slog.DiscardHandler))
	if err := h.Refresh(ctx); err != nil {
		t.Fatal(err)
	}

	// The receivers.
	hooks := startReceiver(t, nil)
	slackR, teamsR, discordR := startReceiver(t, nil), startReceiver(t, nil), startReceiver(t, nil)
	gone := startReceiver(t, func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusGone) })
	busy := startReceiver(t, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Retry-After", "120")
		w.WriteHeader(http.StatusServiceUnavailable)
	})
	smtpd := testenv.StartSMTP(t, testenv.SMTPOptions{Reject: map[string]int{"bounce@example.test": 550}})
	mailer := mustMailer(t, MailConfig{URL: "smtp://" + smtpd.Addr, From: "Acme Status <status@acme.test>"})

	// The subscribers.
	ss := store.Subscribers()
	subs := map[string]*statusd.Subscriber{}
	add := func(name string, ch statusd.Channel, addr string, state statusd.SubscriberState, components ...int64) {
		s := &statusd.Subscriber{Channel: ch, Address: addr, ComponentIDs: components, State: state, Token: statusd.NewToken(),
			CreatedAt: now, UpdatedAt: now}
		if ch == statusd.Webhook {
			s.Secret = statusd.NewWebhookSecret()
		}
		if state == statusd.SubscriberPending {
			exp := now.Add(statusd.ConfirmationValidity)
			s.ConfirmToken, s.ConfirmExpiresAt = statusd.NewToken(), &exp
		}
		if err := ss.Add(ctx, s, statusd.AuditEntry{At: now, Actor: "test", Action: "subscriber.create"}); err != nil {
			t.Fatalf("add %s: %v", name, err)
		}
		subs[name] = s
	}
	add("ann", statusd.Email, "ann@example.test", statusd.SubscriberActive)
	add("bounce", statusd.Email, "bounce@example.test", statusd.SubscriberActive)
	add("pending", statusd.Email, "pending@example.test", statusd.SubscriberPending)
	add("hook", statusd.Webhook, hooks.URL+"/all", statusd.SubscriberActive)
	add("web", statusd.Webhook, hooks.URL+"/web", statusd.SubscriberActive, 3)
	add("billing", statusd.Webhook, hooks.URL+"/billing", statusd.SubscriberActive, 4)
	add("slack", statusd.Slack, slackR.URL, statusd.SubscriberActive)
	add("teams", statusd.Teams, teamsR.URL, statusd.SubscriberActive)
	add("discord", statusd.Discord, discordR.URL, statusd.SubscriberActive)
	add("gone", statusd.Webhook, gone.URL, statusd.SubscriberActive)
	add("busy", statusd.Webhook, busy.URL+"/busy", statusd.SubscriberActive)

	// The worker: it polls once an hour, so that only Wake sends soon.
	logs := &testenv.LogBuffer{}
	w := New(Config{Store: ss, Snapshots: h, Mailer: mailer, AllowPrivate: true,
		Poll: time.Hour, Log: infoLogger(logs)})
	runCtx, stop := context.WithCancel(ctx)
	stopped := make(chan struct{})
	go func() {
		w.Run(runCtx)
		close(stopped)
	}()

	// A new incident on Web, written with its event; the worker is woken
	// before the snapshot has the notice, which it waits for without
	// counting an attempt.
	noticeID, written := putNotice(t, store, func(id, uid int64) (statusd.Notice, []statusd.Event) {
		return statusd.Notice{ID: id, Type: statusd.Unplanned, Subject: "Checkout fails", ComponentIDs: []int64{3},
				CreatedAt: now, UpdatedAt: now, Updates: []statusd.Update{{ID: uid, State: statusd.Investigating, Content: "We are on it.", CreatedAt: now, UpdatedAt: now}}},
			[]statusd.Event{{Kind: statusd.NoticeCreated, NoticeID: id, UpdateID: uid, ComponentIDs: []int64{3}, CreatedAt: now}}
	})
	start := time.Now()
	w.Wake()
	time.Sleep(300 * time.Millisecond)
	if err := h.Apply(ctx, written); err != nil {
		t.Fatal(err)
	}
	// Every subscriber that wants it, and only those: not the pending one,
	// nor the one that follows Billing.
	want := []string{"ann", "bounce", "hook", "web", "slack", "teams", "discord", "gone", "busy"}
	byName := waitAttempted(t, ss, subs, func(e statusd.Event) bool { return e.NoticeID == noticeID }, len(want))
	took := time.Since(start)
	t.Logf("9 deliveries attempted %v after the write", took)
	if took > 5*time.Second {
		t.Errorf("the deliveries took %v, want them at once (woken, not polled)", took)
	}
	for _, name := range want {
		d := byName[name]
		if d == nil {
			t.Errorf("%s got no delivery", name)
			continue
		}
		if d.Attempts != 1 {
			t.Errorf("%s: %d attempts, want 1 (waiting for the snapshot counts none)", name, d.Attempts)
		}
	}
	for _, name := range []string{"pending", "billing"} {
		if byName[name] != nil {
			t.Errorf("%s got a delivery: %+v", name, byName[name])
		}
	}
	expect := func(name string, state statusd.DeliveryState, status int) {
		t.Helper()
		if d := byName[name]; d != nil && (d.State != state || d.LastStatus != status) {
			t.Errorf("%s: %s %d (%q), want %s %d", name, d.State, d.LastStatus, d.LastError, state, status)
		}
	}
	for _, name := range []string{"hook", "web", "slack", "teams", "discord"} {
		expect(name, statusd.DeliveryDelivered, 200)
	}
	expect("ann", statusd.DeliveryDelivered, 250)
	expect("bounce", statusd.DeliveryFailed, 550)
	expect("gone", statusd.DeliveryFailed, 410)
	expect("busy", statusd.DeliveryPending, 503)
	if d := byName["busy"]; d != nil && (d.NextAttemptAt == nil || d.NextAttemptAt.Before(now.Add(120*time.Second))) {
		t.Errorf("busy: next attempt %v, want after Retry-After (120 s)", d.NextAttemptAt)
	}
	for name, state := range map[string]statusd.SubscriberState{"bounce": statusd.SubscriberQuarantined,
		"gone": statusd.SubscriberUnsubscribed, "ann": statusd.SubscriberActive} {
		if s, err := ss.Get(ctx, subs[name].ID); err != nil || s.State != state {
			t.Errorf("%s is %v (%v), want %s", name, s.State, err, state)
		}
	}

	// What arrived.
	mails := smtpd.Messages()
	if len(mails) != 1 || mails[0].To[0] != "ann@example.test" {
		t.Fatalf("mail arrived: %+v", mails)
	}
	if e := testenv.ParseEmail(t, mails[0].Data); e.Subject != "[Acme Status] Checkout fails: Investigating" {
		t.Errorf("subject %q", e.Subject)
	}
	paths := map[string]bool{}
	for _, r := range hooks.requests() {
		paths[r.Header.Get("webhook-id")] = true
		var body struct{ Event string }
		json.Unmarshal(r.Body, &body)
		name := "hook"
		if r.Header.Get("webhook-id") == idOf(byName["web"]) {
			name = "web"
		}
		v, _ := standardwebhooks.NewWebhook(subs[name].Secret)
		if err := v.Verify(r.Body, r.Header); err != nil || body.Event != "notice.created" {
			t.Errorf("%s: event %q, signature: %v", name, body.Event, err)
		}
	}
	if len(paths) != 2 || !paths[idOf(byName["hook"])] || !paths[idOf(byName["web"])] {
		t.Errorf("the webhooks got deliveries %v, want %s and %s", paths, idOf(byName["hook"]), idOf(byName["web"]))
	}
	for name, r := range map[string]*receiver{"slack": slackR, "teams": teamsR, "discord": discordR} {
		if got := r.requests(); len(got) != 1 || !strings.Contains(string(got[0].Body), "Checkout fails") {
			t.Errorf("%s got %d requests", name, len(got))
		}
	}

	// The logs name subscribers by id, never by address.
	log := logs.String()
	mustContain(t, "log", log, "subscriber="+strconv.FormatInt(subs["gone"].ID, 10), "410", "quarantined")
	for name, s := range subs {
		hide := []string{s.Address}
		if u, err := url.Parse(s.Address); err == nil && u.Host != "" {
			hide = append(hide, u.Host)
		}
		for _, a := range hide {
			if strings.Contains(log, a) {
				t.Errorf("the log shows %s's address %q:\n%s", name, a, log)
			}
		}
	}

	t.Run("an operator's test", func(t *testing.T) {
		before := len(hooks.requests())
		d, err := w.Test(ctx, subs["hook"].ID)
		if err != nil || d.State != statusd.DeliveryDelivered || d.Attempts != 1 || d.Event.Kind != statusd.TestMessage {
			t.Fatalf("Test: %+v (%v), want a test delivered", d, err)
		}
		got := hooks.requests()
		if len(got) != before+1 || got[before].Header.Get("webhook-id") != idOf(d) || !strings.Contains(string(got[before].Body), `"event":"test"`) {
			t.Errorf("the receiver got %d requests; the last %v", len(got)-before, got[len(got)-1].Header)
		}
		// A quarantined subscriber is sent tests (that is what they are
		// for); this one's address is still refused.
		if d, err := w.Test(ctx, subs["bounce"].ID); err != nil || d.Attempts != 1 || d.LastStatus != 550 {
			t.Errorf("Test of a quarantined subscriber: %+v (%v)", d, err)
		}
		var se *statusd.Error
		if _, err := w.Test(ctx, subs["gone"].ID); !errors.As(err, &se) || se.Code != statusd.EConflict || !strings.Contains(se.Message, "unsubscribed") {
			t.Errorf("Test of an unsubscribed subscriber: %v, want a conflict", err)
		}
	})

	t.Run("a deleted notice", func(t *testing.T) {
		old := time.Now().Add(-2 * catchUp)
		if _, err := ss.Emit(ctx, statusd.Event{Kind: statusd.NoticeUpdated, NoticeID: 9999, UpdateID: 1, ComponentIDs: []int64{4}, CreatedAt: old}); err != nil {
			t.Fatal(err)
		}
		w.Wake()
		// Billing's subscriber, and the six that follow the whole page.
		got := waitAttempted(t, ss, subs, func(e statusd.Event) bool { return e.NoticeID == 9999 }, 7)
		// Dropped: failed, with no attempt counted against anyone.
		if d := got["billing"]; d == nil || d.State != statusd.DeliveryFailed || d.LastError != "dropped: the notice was deleted" || d.Attempts != 0 {
			t.Errorf("delivery %+v, want failed, dropped, no attempt", d)
		}
		if s, err := ss.Get(ctx, subs["billing"].ID); err != nil || s.Failures != 0 || s.State != statusd.SubscriberActive {
			t.Errorf("billing after the drop: %+v (%v), want active, no failures", s, err)
		}
	})

	t.Run("a sender that died leaves its delivery to another after the lease", func(t *testing.T) {
		before := len(hooks.requests())
		if _, err := ss.Emit(ctx, statusd.Event{Kind: statusd.TestMessage, SubscriberID: subs["web"].ID, CreatedAt: time.Now()}); err != nil {
			t.Fatal(err)
		}
		// The dead sender: expanded and claimed for a second, never recorded.
		if _, err := ss.Expand(ctx, time.Now(), batch); err != nil {
			t.Fatal(err)
		}
		if c, err := ss.Claim(ctx, time.Now(), time.Second, batch, nil); err != nil || len(c) != 1 {
			t.Fatalf("claimed %v (%v)", c, err)
		}
		w.Wake()
		time.Sleep(300 * time.Millisecond)
		if n := len(hooks.requests()) - before; n != 0 {
			t.Fatalf("sent during the lease: %d", n)
		}
		deadline := time.Now().Add(10 * time.Second)
		for len(hooks.requests()) == before && time.Now().Before(deadline) {
			w.Wake() // the test plays the poll
			time.Sleep(100 * time.Millisecond)
		}
		if n := len(hooks.requests()) - before; n != 1 {
			t.Errorf("%d requests after the lease, want 1", n)
		}
	})

	t.Run("a maintenance reminder, and one that no longer holds", func(t *testing.T) {
		begins, ends := time.Now().Add(20*time.Minute).Truncate(time.Millisecond), time.Now().Add(time.Hour).Truncate(time.Millisecond)
		created := now.Add(-2 * time.Hour)
		id, written := putNotice(t, store, func(id, uid int64) (statusd.Notice, []statusd.Event) {
			return statusd.Notice{ID: id, Type: statusd.Planned, Subject: "Billing move", ComponentIDs: []int64{2},
				BeginsAt: &begins, EndsAt: &ends, CreatedAt: created, UpdatedAt: created,
				Updates: []statusd.Update{{ID: uid, State: statusd.Scheduled, Content: "Moving.", CreatedAt: created, UpdatedAt: created}}}, nil
		})
		if err := h.Apply(ctx, written); err != nil {
			t.Fatal(err)
		}
		// As automation stores them: the reminder of begins_at, and one of
		// the time it had before it moved.
		moved := begins.Add(-time.Hour)
		for _, b := range []time.Time{begins, moved} {
			if _, err := ss.Emit(ctx, statusd.Event{Kind: statusd.MaintenanceReminder, NoticeID: id, ComponentIDs: []int64{2},
				Key: statusd.ReminderKey(id, b), CreatedAt: time.Now()}); err != nil {
				t.Fatal(err)
			}
		}
		w.Wake()
		// Component 2 (API): those that follow the whole page and may
		// hear it (not the quarantined, not the unsubscribed).
		names := []string{"ann", "hook", "slack", "teams", "discord", "busy"}
		for _, b := range []time.Time{begins, moved} {
			key := statusd.ReminderKey(id, b)
			got := waitAttempted(t, ss, subs, func(e statusd.Event) bool { return e.Key == key }, len(names))
			for _, name := range names {
				d := got[name]
				switch {
				case d == nil:
					t.Errorf("%s got no reminder", name)
				case b.Equal(moved) && (d.Attempts != 0 || d.LastError != "dropped: the maintenance was rescheduled, begun or cancelled since the reminder was due"):
					t.Errorf("%s: the reminder of the old time: %+v", name, d)
				case b.Equal(begins) && name != "busy" && d.State != statusd.DeliveryDelivered:
					t.Errorf("%s: the reminder: %+v", name, d)
				}
			}
		}
		mails := smtpd.Messages()
		if len(mails) != 2 {
			t.Fatalf("%d emails, want the incident's and one reminder", len(mails))
		}
		if e := testenv.ParseEmail(t, mails[1].Data); e.Subject != "[Acme Status] Billing move: Begins "+when(begins) {
			t.Errorf("reminder subject %q", e.Subject)
		}
	})

	stop()
	select {
	case <-stopped:
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not return after its context ended")
	}
}

// putNotice writes the notice that mk makes from its new id and its
// update's, with mk's events, in one write.
func putNotice(t *testing.T, store statusd.Store, mk func(id, uid int64) (statusd.Notice, []statusd.Event)) (int64, statusd.Written) {
	t.Helper()
	var id int64
	written, err := store.Write(context.Background(), func(tx statusd.Tx) error {
		var err error
		if id, err = tx.NextID("notices"); err != nil {
			return err
		}
		uid, err := tx.NextID("updates")
		if err != nil {
			return err
		}
		n, events := mk(id, uid)
		if err := tx.PutNotice(&n); err != nil {
			return err
		}
		for _, e := range events {
			if err := tx.Emit(e); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return id, written
}

// idOf is a delivery's webhook-id: its message id.
func idOf(d *statusd.Delivery) string {
	if d == nil {
		return ""
	}
	return d.MessageID
}

// waitAttempted waits until n deliveries of the events that match have
// had an attempt or ended (a dropped one has none), and returns them by
// subscriber name.
func waitAttempted(t *testing.T, ss statusd.SubscriberStore, subs map[string]*statusd.Subscriber, match func(statusd.Event) bool, n int) map[string]*statusd.Delivery {
	t.Helper()
	names := map[int64]string{}
	for name, s := range subs {
		names[s.ID] = name
	}
	deadline := time.Now().Add(15 * time.Second)
	for {
		list, _, err := ss.Deliveries(context.Background(), statusd.DeliveryFilter{}, 1, 1000)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]*statusd.Delivery{}
		attempted := 0
		for i := range list {
			d := &list[i]
			if !match(d.Event) {
				continue
			}
			if out[names[d.SubscriberID]] != nil {
				t.Fatalf("%s has two deliveries: %+v and %+v", names[d.SubscriberID], out[names[d.SubscriberID]], d)
			}
			out[names[d.SubscriberID]] = d
			if d.Attempts > 0 || d.State != statusd.DeliveryPending {
				attempted++
			}
		}
		if attempted >= n && len(out) == attempted {
			return out
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d deliveries attempted: %v", attempted, n, out)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestPrune: when Run starts, the worker keeping deliveries 7 days
// (--notify-keep) prunes the delivery made 8 days ago; the one made 6
// days ago stays. (What Prune removes, events
// included, is the conformance suite's: PruneEndedDeliveriesAndTheirEvents.)
func TestPrune(t *testing.T) {
	ctx := context.Background()
	store, err := sqlstore.Open(ctx, filepath.Join(t.TempDir(), "prune.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	ss := store.Subscribers()
	now := time.Now().UTC().Truncate(time.Millisecond)
	sub := &statusd.Subscriber{Channel: statusd.Webhook, Address: "https://hooks.example.test/a", ComponentIDs: []int64{},
		State: statusd.SubscriberActive, CreatedAt: now, UpdatedAt: now}
	if err := ss.Add(ctx, sub, statusd.AuditEntry{At: now, Actor: "test", Action: "subscriber.create"}); err != nil {
		t.Fatal(err)
	}
	// One delivery made and delivered at each age.
	day := 24 * time.Hour
	for _, age := range []time.Duration{8 * day, 6 * day} {
		at := now.Add(-age)
		if _, err := ss.Emit(ctx, statusd.Event{Kind: statusd.NoticeCreated, NoticeID: 41, UpdateID: 410, ComponentIDs: []int64{}, CreatedAt: at}); err != nil {
			t.Fatal(err)
		}
		if _, err := ss.Expand(ctx, at, batch); err != nil {
			t.Fatal(err)
		}
		c, err := ss.Claim(ctx, at, time.Minute, batch, nil)
		if err != nil || len(c) != 1 {
			t.Fatalf("claimed %v (%v)", c, err)
		}
		if _, err := ss.Record(ctx, c[0].Delivery.ID, statusd.Attempt{At: at, Outcome: statusd.Delivered, Status: 200}, time.Second); err != nil {
			t.Fatal(err)
		}
	}
	kept, _, err := ss.Deliveries(ctx, statusd.DeliveryFilter{}, 1, 1) // the newest: 6 days old
	if err != nil || len(kept) != 1 {
		t.Fatal(kept, err)
	}
	w, _ := newTestWorker(Config{Store: ss, Now: time.Now, Poll: time.Hour, Keep: 7 * day})
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		w.Run(runCtx)
		close(done)
	}()
	defer func() {
		stop()
		<-done
	}()
	deadline := time.Now().Add(10 * time.Second)
	for {
		left, total, err := ss.Deliveries(ctx, statusd.DeliveryFilter{}, 1, 10)
		if err != nil {
			t.Fatal(err)
		}
		if total == 1 {
			if left[0].ID != kept[0].ID {
				t.Errorf("the delivery left is %+v, want the one made 6 days ago %+v", left[0], kept[0])
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d deliveries left after 10 s, want 1", total)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestLanes: emails waiting for the mail rate do not hold webhooks up.
// 300 email subscribers, made before 5 webhook subscribers (so that their
// deliveries come first in the outbox's order), hear of one update with
// the mailer at 20 emails a second. Sent in one queue, the webhooks would
// wait behind the 128 emails claimed first, about 6 s at that rate (more
// while further emails are claimed ahead of them); in their own lane they
// arrive at once, while most emails are still to go.
func TestLanes(t *testing.T) {
	const emails, hooks, rate = 300, 5, 20
	var received atomic.Int64
	rcv := startReceiver(t, func(w http.ResponseWriter, _ *http.Request) { received.Add(1) })
	smtpd := testenv.StartSMTP(t, testenv.SMTPOptions{})
	var subs []statusd.Subscriber
	for i := range emails + hooks {
		s := statusd.Subscriber{Channel: statusd.Email, Address: fmt.Sprintf("user%d@example.test", i)}
		if i >= emails {
			s.Channel, s.Address, s.Secret = statusd.Webhook, fmt.Sprintf("%s/%d", rcv.URL, i), statusd.NewWebhookSecret()
		}
		subs = append(subs, s)
	}
	mailer := mustMailer(t, MailConfig{URL: "smtp://" + smtpd.Addr, From: "status@acme.test", Rate: rate})
	start, _ := startFanOut(t, Config{Mailer: mailer}, subs)
	for received.Load() < hooks && time.Since(start) < 30*time.Second {
		time.Sleep(10 * time.Millisecond)
	}
	took, mailed := time.Since(start), len(smtpd.Messages())
	if received.Load() < hooks {
		t.Fatalf("%d of %d webhooks arrived in 30 s", received.Load(), hooks)
	}
	// At 20 a second (a burst of the mailer's 4 connections first), 2 s
	// let at most about 44 emails go: the webhooks went before the
	// emails queued ahead of them.
	if took > 2*time.Second || mailed >= 128 {
		t.Errorf("the %d webhooks took %v, with %d of %d emails sent by then; want them within 2 s, not behind the emails",
			hooks, took.Round(time.Millisecond), mailed, emails)
	}
}

// TestDryLaneWaits: a lane that found nothing due does not read the
// outbox again on every round the other lane's claims make, only when
// events may have come (a wake, the poll). 1,000 webhook subscribers hear
// of one update, with a mailer (so an email lane) and a poll of a minute:
// the HTTP lane claims at most 100 at a time, at least 10 times; the
// email lane claims when the worker starts and when it is woken, and
// finds nothing either time. Claiming in every round, it would claim as
// often as the HTTP lane.
func TestDryLaneWaits(t *testing.T) {
	const hooks = 1000
	var received atomic.Int64
	rcv := startReceiver(t, func(w http.ResponseWriter, _ *http.Request) { received.Add(1) })
	smtpd := testenv.StartSMTP(t, testenv.SMTPOptions{})
	var subs []statusd.Subscriber
	for i := range hooks {
		subs = append(subs, statusd.Subscriber{Channel: statusd.Webhook, Address: fmt.Sprintf("%s/%d", rcv.URL, i), Secret: statusd.NewWebhookSecret()})
	}
	claims := &claimCounter{}
	mailer := mustMailer(t, MailConfig{URL: "smtp://" + smtpd.Addr, From: "status@acme.test"})
	start, _ := startFanOut(t, Config{Mailer: mailer, Store: claims, Poll: time.Minute}, subs)
	for received.Load() < hooks && time.Since(start) < 30*time.Second {
		time.Sleep(10 * time.Millisecond)
	}
	if received.Load() < hooks {
		t.Fatalf("%d of %d webhooks arrived in 30 s", received.Load(), hooks)
	}
	email, http := claims.email.Load(), claims.http.Load()
	if http < hooks/batch || email > 2 {
		t.Errorf("the email lane claimed %d times, the HTTP lane %d; want at most 2 (start, wake), and at least %d", email, http, hooks/batch)
	}
}

// claimCounter counts each lane's claims from the store startFanOut
// makes (its Config.Store).
type claimCounter struct {
	statusd.SubscriberStore
	email, http atomic.Int64
}

func (c *claimCounter) Claim(ctx context.Context, now time.Time, lease time.Duration, limit int, channels []statusd.Channel) ([]statusd.Claimed, error) {
	if slices.Contains(channels, statusd.Email) {
		c.email.Add(1)
	} else {
		c.http.Add(1)
	}
	return c.SubscriberStore.Claim(ctx, now, lease, limit, channels)
}

// startFanOut stores the subscribers (active, numbered from 1), runs a
// worker of cfg (with a store and snapshots of its own, a poll of 100 ms
// unless cfg has one, and private targets allowed; a *claimCounter in
// cfg.Store counts the claims from that store) until the test ends, and stores an update of
// notice 41, which every subscriber hears of. It returns when it woke the
// worker, and the worker's store.
func startFanOut(t *testing.T, cfg Config, subs []statusd.Subscriber) (woken time.Time, ss statusd.SubscriberStore) {
	t.Helper()
	ctx := context.Background()
	store, err := sqlstore.Open(ctx, filepath.Join(t.TempDir(), "fanout.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	now := time.Now().UTC().Truncate(time.Millisecond)
	doc := shifted(now.Sub(t0))
	for i, s := range subs {
		s.ID, s.State, s.Token, s.CreatedAt, s.UpdatedAt = int64(i+1), statusd.SubscriberActive, statusd.NewToken(), now, now
		doc.Subscribers = append(doc.Subscribers, s)
	}
	if err := store.Import(ctx, doc, false); err != nil {
		t.Fatal(err)
	}
	h := snapshot.NewHolder(store, snapshot.Options{Variant: statusd.VariantA}, time.Now, slog.New(slog.DiscardHandler))
	if err := h.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	if c, ok := cfg.Store.(*claimCounter); ok {
		c.SubscriberStore = store.Subscribers()
	} else {
		cfg.Store = store.Subscribers()
	}
	if cfg.Poll == 0 {
		cfg.Poll = 100 * time.Millisecond
	}
	cfg.Snapshots, cfg.AllowPrivate = h, true
	w := New(cfg)
	runCtx, stop := context.WithCancel(ctx)
	ran := make(chan struct{})
	t.Cleanup(func() { stop(); <-ran })
	go func() { w.Run(runCtx); close(ran) }()

	updateIncident(t, store, h)
	woken = time.Now()
	w.Wake()
	return woken, cfg.Store
}

// updateIncident writes an update of incident 41 with its event, as a
// publisher's write does, and applies it to h's snapshot, so that the
// worker finds the notice when it renders the deliveries.
func updateIncident(tb testing.TB, store statusd.Store, h *snapshot.Holder) {
	tb.Helper()
	ctx := context.Background()
	at := time.Now().UTC().Truncate(time.Millisecond)
	written, err := store.Write(ctx, func(tx statusd.Tx) error {
		n, err := tx.Notice(41)
		if err != nil {
			return err
		}
		uid, err := tx.NextID("updates")
		if err != nil {
			return err
		}
		n.Updates = append(n.Updates, statusd.Update{ID: uid, State: statusd.Recovering, Content: "Better.", CreatedAt: at, UpdatedAt: at})
		n.UpdatedAt = at
		if err := tx.PutNotice(n); err != nil {
			return err
		}
		return tx.Emit(statusd.Event{Kind: statusd.NoticeUpdated, NoticeID: 41, UpdateID: uid, ComponentIDs: n.ComponentIDs, CreatedAt: at})
	})
	if err != nil {
		tb.Fatal(err)
	}
	if err := h.Apply(ctx, written); err != nil {
		tb.Fatal(err)
	}
}
