package notify

import (
	"context"
	"net/mail"
	"strings"
	"testing"
	"time"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/internal/testenv"
)

func TestEmailContent(t *testing.T) {
	srv := testenv.StartSMTP(t, testenv.SMTPOptions{})
	mailer := mustMailer(t, MailConfig{URL: "smtp://" + srv.Addr, From: "Acme Status <status@acme.test>"})
	w, _ := newTestWorker(Config{Mailer: mailer})
	active := statusd.Subscriber{ID: 5, Channel: statusd.Email, Address: "ann@example.test", State: statusd.SubscriberActive, Token: "tok"}
	pending := active
	pending.State, pending.ConfirmToken = statusd.SubscriberPending, "ctok"

	const (
		manage      = "https://status.acme.test/subscriptions/manage?token=tok"
		unsubscribe = "<https://status.acme.test/subscriptions/unsubscribe?token=tok>"
		first41     = "<thread41.s5@status.acme.test>"
	)
	tests := []struct {
		name       string
		event      statusd.Event
		sub        statusd.Subscriber
		subject    string
		messageID  string
		inReplyTo  string // and References; empty: neither
		unsubLinks bool
		text       []string // in the text part
		html       []string // in the HTML part
	}{
		{"a new incident is the notice's first message", created, active,
			"[Acme Status] Elevated error rates: Investigating", first41, "", true,
			[]string{"Elevated error rates\nInvestigating (Incident)", "We are looking into errors on <b>checkout</b> & login.",
				"Affected: API, Web", "Posted: 1 Mar 2026, 11:30 UTC", "Began: 1 Mar 2026, 11:30 UTC",
				"View this incident:\nhttps://status.acme.test/notices/41", manage},
			[]string{"We are looking into errors on &lt;b&gt;checkout&lt;/b&gt; &amp; login.", "API, Web", "1 Mar 2026, 11:30 UTC",
				`href="https://status.acme.test/notices/41"`, `href="` + manage + `"`, "background:#dc2626"}},
		{"a later update threads under the first", updated, active,
			"[Acme Status] Elevated error rates: Identified", "<msg101@status.acme.test>", first41, true,
			[]string{"A bad deploy; rolling back.\nSecond line.", "Posted: 1 Mar 2026, 11:50 UTC"},
			[]string{"A bad deploy; rolling back.\nSecond line.", ">Identified<"}},
		{"a maintenance reminder", reminder, active,
			"[Acme Status] Database upgrade: Begins 1 Mar 2026, 13:00 UTC", "<msg102@status.acme.test>", "<thread42.s5@status.acme.test>", true,
			[]string{"Reminder: this maintenance begins at 1 Mar 2026, 13:00 UTC.", "The database moves to a new version.",
				"Affected: API", "Scheduled: 1 Mar 2026, 13:00 UTC to 1 Mar 2026, 14:00 UTC", "View this maintenance:"},
			[]string{"this maintenance begins at 1 Mar 2026, 13:00 UTC", "background:#2563eb"}},
		{"a general notice says its type for a state", general, active,
			"[Acme Status] New region: Announcement", "<thread43.s5@status.acme.test>", "", true,
			[]string{"Europe is open.", "View this announcement:\nhttps://status.acme.test/notices/43"},
			[]string{"Europe is open."}},
		{"a test message", test, active,
			"[Acme Status] Test message", "<msg104@status.acme.test>", "", true,
			[]string{"This is a test message from Acme Status", manage},
			[]string{"This is a test message from Acme Status"}},
		{"a pending subscriber confirms", confirm, pending,
			"[Acme Status] Confirm your subscription", "<msg105@status.acme.test>", "", false,
			[]string{"https://status.acme.test/subscriptions/confirm?token=ctok", "48 hours", "ignore this"},
			[]string{`href="https://status.acme.test/subscriptions/confirm?token=ctok"`, "48 hours"}},
		{"an active subscriber asking again gets its manage link", confirm, active,
			"[Acme Status] Your subscription", "<msg106@status.acme.test>", "", false,
			[]string{"subscribed already", manage},
			[]string{`href="` + manage + `"`}},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := claimed(int64(100+i), tc.event, tc.sub)
			a, ok := w.attempt(context.Background(), &c, later, &holding{})
			if !ok || a.Outcome != statusd.Delivered || a.Status != 250 {
				t.Fatalf("attempt %+v (ok %v), want delivered", a, ok)
			}
			got := srv.Messages()
			if len(got) != i+1 {
				t.Fatalf("%d messages arrived, want %d", len(got), i+1)
			}
			m := got[i]
			if m.From != "status@acme.test" || len(m.To) != 1 || m.To[0] != "ann@example.test" {
				t.Errorf("envelope from %q to %q", m.From, m.To)
			}
			e := testenv.ParseEmail(t, m.Data)
			if e.Subject != tc.subject {
				t.Errorf("Subject %q, want %q", e.Subject, tc.subject)
			}
			if from, err := mail.ParseAddress(e.Header.Get("From")); err != nil || from.Name != "Acme Status" || from.Address != "status@acme.test" {
				t.Errorf("From %q", e.Header.Get("From"))
			}
			if to := e.Header.Get("To"); to != "<ann@example.test>" && to != "ann@example.test" {
				t.Errorf("To %q", to)
			}
			if d, err := e.Header.Date(); err != nil || !d.Equal(t0) {
				t.Errorf("Date %v (%v), want %v", d, err, t0)
			}
			if got := e.Header.Get("Message-ID"); got != tc.messageID {
				t.Errorf("Message-ID %q, want %q", got, tc.messageID)
			}
			if got, ref := e.Header.Get("In-Reply-To"), e.Header.Get("References"); got != tc.inReplyTo || ref != tc.inReplyTo {
				t.Errorf("In-Reply-To %q, References %q, want %q", got, ref, tc.inReplyTo)
			}
			lu, lup := e.Header.Get("List-Unsubscribe"), e.Header.Get("List-Unsubscribe-Post")
			if tc.unsubLinks && (lu != unsubscribe || lup != "List-Unsubscribe=One-Click") {
				t.Errorf("List-Unsubscribe %q, List-Unsubscribe-Post %q", lu, lup)
			}
			if !tc.unsubLinks && (lu != "" || lup != "") {
				t.Errorf("a confirmation has List-Unsubscribe %q %q", lu, lup)
			}
			if e.Header.Get("Auto-Submitted") != "auto-generated" {
				t.Errorf("Auto-Submitted %q", e.Header.Get("Auto-Submitted"))
			}
			mustContain(t, "text part", e.Text, tc.text...)
			mustContain(t, "HTML part", e.HTML, tc.html...)
			if strings.Contains(e.HTML, "<b>checkout") || strings.Contains(e.HTML, "ZgotmplZ") {
				t.Errorf("the HTML part is not escaped properly:\n%s", e.HTML)
			}
		})
	}
}

// TestConfirmWithoutToken: a pending subscriber without a confirmation
// token gets nothing (its email would have no link to confirm with).
func TestConfirmWithoutToken(t *testing.T) {
	srv := testenv.StartSMTP(t, testenv.SMTPOptions{})
	mailer := mustMailer(t, MailConfig{URL: "smtp://" + srv.Addr, From: "status@acme.test"})
	w, _ := newTestWorker(Config{Mailer: mailer})
	c := claimed(1, confirm, statusd.Subscriber{ID: 5, Channel: statusd.Email, Address: "ann@example.test", State: statusd.SubscriberPending, Token: "tok"})
	if a, _ := w.attempt(context.Background(), &c, later, &holding{}); a.Outcome != statusd.Dropped || !strings.Contains(a.Error, "confirmation token") {
		t.Errorf("attempt %+v, want dropped", a)
	}
	if n := len(srv.Messages()); n != 0 {
		t.Errorf("%d messages sent", n)
	}
}

// TestNothingToSend: a delivery with nothing to send is dropped, not
// failed: email while email is off, a confirmation to a webhook, a deleted
// notice once the snapshot has caught up, a reminder of a time the
// maintenance no longer has.
func TestNothingToSend(t *testing.T) {
	w, _ := newTestWorker(Config{Now: func() time.Time { return t0.Add(2 * catchUp) }})
	ann := statusd.Subscriber{ID: 5, Channel: statusd.Email, Address: "ann@example.test", State: statusd.SubscriberActive, Token: "tok"}
	hook := statusd.Subscriber{ID: 5, Channel: statusd.Webhook, Address: "https://hooks.example.test/x", State: statusd.SubscriberActive, Token: "tok"}
	deleted := statusd.Event{ID: 20, Kind: statusd.NoticeUpdated, NoticeID: 9999, UpdateID: 1, CreatedAt: t0}
	moved := reminder
	moved.ID, moved.Key = 21, statusd.ReminderKey(42, at(30))
	for _, tc := range []struct {
		name string
		c    statusd.Claimed
		why  string
	}{
		{"email is off", claimed(1, updated, ann), "email is off"},
		{"a confirmation to a webhook", claimed(2, confirm, hook), "only email subscriptions are confirmed"},
		{"a deleted notice", claimed(3, deleted, hook), "the notice was deleted"},
		{"a moved maintenance", claimed(4, moved, hook), "the maintenance was rescheduled"},
	} {
		if a, ok := w.attempt(context.Background(), &tc.c, later, &holding{}); !ok || a.Outcome != statusd.Dropped || !strings.HasPrefix(a.Error, tc.why) {
			t.Errorf("%s: attempt %+v (made %v), want dropped: %s", tc.name, a, ok, tc.why)
		}
	}
}

// TestMailerTLSAndAuth: STARTTLS when offered, with AUTH PLAIN from the
// URL's userinfo; implicit TLS for smtps; many messages on one connection.
func TestMailerTLSAndAuth(t *testing.T) {
	serverTLS, clientTLS := selfSigned(t)
	tests := []struct {
		name       string
		opts       testenv.SMTPOptions
		url        func(addr string) string
		wantTLS    bool
		wantAuthed int
	}{
		{"STARTTLS and AUTH PLAIN", testenv.SMTPOptions{StartTLS: serverTLS, User: "alice", Pass: "s3cret!"},
			func(a string) string { return "smtp://alice:s3cret%21@" + a }, true, 1},
		{"implicit TLS", testenv.SMTPOptions{Implicit: serverTLS},
			func(a string) string { return "smtps://" + a }, true, 0},
		{"implicit TLS and AUTH PLAIN", testenv.SMTPOptions{Implicit: serverTLS, User: "bob", Pass: "pw"},
			func(a string) string { return "smtps://bob:pw@" + a }, true, 1},
		{"plain, no TLS offered", testenv.SMTPOptions{},
			func(a string) string { return "smtp://" + a }, false, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := testenv.StartSMTP(t, tc.opts)
			// The certificate names localhost.
			addr := strings.Replace(srv.Addr, "127.0.0.1", "localhost", 1)
			m := mustMailer(t, MailConfig{URL: tc.url(addr), From: "status@acme.test", TLSConfig: clientTLS})
			for i := range 3 {
				if a := sendTest(t, m, "ann@example.test"); a.Outcome != statusd.Delivered {
					t.Fatalf("message %d: %+v", i, a)
				}
			}
			sessions, authed, overTLS := srv.Counts()
			if sessions != 1 || authed != tc.wantAuthed {
				t.Errorf("%d connections, %d authenticated; want 1 connection for 3 messages, %d authenticated", sessions, authed, tc.wantAuthed)
			}
			if want := map[bool]int{true: 3, false: 0}[tc.wantTLS]; overTLS != want {
				t.Errorf("%d messages over TLS, want %d", overTLS, want)
			}
			if n := len(srv.Messages()); n != 3 {
				t.Errorf("%d messages arrived, want 3", n)
			}
		})
	}
}

// sendTest sends a test message to addr.
func sendTest(t *testing.T, m *Mailer, addr string) statusd.Attempt {
	t.Helper()
	w, _ := newTestWorker(Config{Mailer: m})
	c := claimed(1, test, statusd.Subscriber{ID: 5, Channel: statusd.Email, Address: addr, State: statusd.SubscriberActive, Token: "tok"})
	a, ok := w.attempt(context.Background(), &c, later, &holding{})
	if !ok {
		t.Fatal("the attempt was not made")
	}
	return a
}

func TestMailerFailures(t *testing.T) {
	serverTLS, clientTLS := selfSigned(t)
	t.Run("wrong password", func(t *testing.T) {
		srv := testenv.StartSMTP(t, testenv.SMTPOptions{StartTLS: serverTLS, User: "alice", Pass: "right"})
		m := mustMailer(t, MailConfig{URL: "smtp://alice:wrong@localhost:" + port(srv.Addr), From: "status@acme.test", TLSConfig: clientTLS})
		a := sendTest(t, m, "ann@example.test")
		if a.Outcome != statusd.Deferred || !strings.Contains(a.Error, "535") || strings.Contains(a.Error, "wrong") {
			t.Errorf("attempt %+v, want deferred (the relay's trouble) with 535 and no password", a)
		}
	})
	t.Run("no password in the clear", func(t *testing.T) {
		// A server that offers no TLS: the password is not sent.
		srv := testenv.StartSMTP(t, testenv.SMTPOptions{User: "alice", Pass: "right"})
		m := mustMailer(t, MailConfig{URL: "smtp://alice:right@" + srv.Addr, From: "status@acme.test"})
		if a := sendTest(t, m, "ann@example.test"); a.Outcome != statusd.Deferred || !strings.Contains(a.Error, "AUTH") {
			t.Errorf("attempt %+v, want deferred for want of AUTH", a)
		}
		if _, authed, _ := srv.Counts(); authed != 0 || len(srv.Messages()) != 0 {
			t.Errorf("authenticated %d times, %d messages", authed, len(srv.Messages()))
		}
	})
	t.Run("the server is down", func(t *testing.T) {
		closed := freeAddr(t)
		m2 := mustMailer(t, MailConfig{URL: "smtp://" + closed, From: "status@acme.test"})
		if a := sendTest(t, m2, "ann@example.test"); a.Outcome != statusd.Deferred || !strings.Contains(a.Error, "connection refused") || a.Status != 0 {
			t.Errorf("attempt %+v, want deferred: connection refused", a)
		}
	})
	t.Run("a certificate statusd does not trust", func(t *testing.T) {
		srv := testenv.StartSMTP(t, testenv.SMTPOptions{Implicit: serverTLS})
		m := mustMailer(t, MailConfig{URL: "smtps://localhost:" + port(srv.Addr), From: "status@acme.test"})
		if a := sendTest(t, m, "ann@example.test"); a.Outcome != statusd.Deferred || !strings.Contains(a.Error, "certificate") {
			t.Errorf("attempt %+v, want deferred: the certificate", a)
		}
	})
	t.Run("permanent and temporary refusals, and a server that closes", func(t *testing.T) {
		srv := testenv.StartSMTP(t, testenv.SMTPOptions{
			Reject:    map[string]int{"gone@example.test": 550, "full@example.test": 452},
			DataReply: map[string]int{"close-me@example.test": 421, "later@example.test": 451, "spam@example.test": 554},
		})
		m := mustMailer(t, MailConfig{URL: "smtp://" + srv.Addr, From: "status@acme.test", Conns: 1})
		steps := []struct {
			to       string
			outcome  statusd.Outcome
			status   int
			sessions int // connections made so far
		}{
			{"ann@example.test", statusd.Delivered, 250, 1},
			{"gone@example.test", statusd.Rejected, 550, 1},  // the address, for good: quarantined
			{"full@example.test", statusd.Failed, 452, 1},    // try again later
			{"ann@example.test", statusd.Delivered, 250, 1},  // the same connection goes on
			{"later@example.test", statusd.Deferred, 451, 1}, // DATA 4xx: the relay's trouble
			{"spam@example.test", statusd.Deferred, 554, 1},  // the message refused: the same for all
			{"close-me@example.test", statusd.Deferred, 421, 1},
			{"ann@example.test", statusd.Delivered, 250, 2}, // a new connection after 421
		}
		for i, s := range steps {
			a := sendTest(t, m, s.to)
			sessions, _, _ := srv.Counts()
			if a.Outcome != s.outcome || a.Status != s.status || sessions != s.sessions {
				t.Errorf("step %d (%s): outcome %d status %d after %d connections (%q); want %d %d after %d",
					i, s.to, a.Outcome, a.Status, sessions, a.Error, s.outcome, s.status, s.sessions)
			}
			if a.Outcome != statusd.Delivered && (a.Error == "" || strings.Contains(a.Error, "affected recipient")) {
				t.Errorf("step %d: error %q", i, a.Error)
			}
		}
		if n := len(srv.Messages()); n != 3 {
			t.Errorf("%d messages arrived, want 3", n)
		}
	})
}

// TestMailerIdle: a connection idle for longer than mailIdle is made
// again before it is used.
func TestMailerIdle(t *testing.T) {
	srv := testenv.StartSMTP(t, testenv.SMTPOptions{})
	now := t0
	m := mustMailer(t, MailConfig{URL: "smtp://" + srv.Addr, From: "status@acme.test", Conns: 1, Now: func() time.Time { return now }})
	for i, advance := range []time.Duration{0, mailIdle - time.Second, mailIdle + time.Second} {
		now = now.Add(advance)
		if a := sendTest(t, m, "ann@example.test"); a.Outcome != statusd.Delivered {
			t.Fatalf("message %d: %+v", i, a)
		}
	}
	if sessions, _, _ := srv.Counts(); sessions != 2 {
		t.Errorf("%d connections, want 2 (the third message came after the connection idled)", sessions)
	}
}

// TestMailerClosedWhileIdle: a server that times idle connections out
// well within mailIdle (here after 200 ms) has closed the kept connection
// by the next message, which goes on a new one, at its first attempt.
func TestMailerClosedWhileIdle(t *testing.T) {
	srv := testenv.StartSMTP(t, testenv.SMTPOptions{IdleTimeout: 200 * time.Millisecond})
	m := mustMailer(t, MailConfig{URL: "smtp://" + srv.Addr, From: "status@acme.test", Conns: 1})
	for i := range 2 {
		if i > 0 {
			time.Sleep(500 * time.Millisecond) // the server closes the connection
		}
		if a := sendTest(t, m, "ann@example.test"); a.Outcome != statusd.Delivered {
			t.Fatalf("message %d: %+v, want delivered", i, a)
		}
	}
	if sessions, _, _ := srv.Counts(); sessions != 2 || len(srv.Messages()) != 2 {
		t.Errorf("%d connections, %d messages; want 2 and 2", sessions, len(srv.Messages()))
	}
}

// TestMailerRate: at 50 messages a second on one connection, 11 messages
// take at least 10 intervals of 20 ms.
func TestMailerRate(t *testing.T) {
	srv := testenv.StartSMTP(t, testenv.SMTPOptions{})
	m := mustMailer(t, MailConfig{URL: "smtp://" + srv.Addr, From: "status@acme.test", Rate: 50, Conns: 1})
	start := time.Now()
	for range 11 {
		if a := sendTest(t, m, "ann@example.test"); a.Outcome != statusd.Delivered {
			t.Fatal(a)
		}
	}
	if took := time.Since(start); took < 190*time.Millisecond {
		t.Errorf("11 messages at 50/s took %v, want at least 200 ms", took)
	}
}

func TestNewMailerErrors(t *testing.T) {
	tests := []struct {
		name, url, from, want string
	}{
		{"another scheme", "http://mail.example.test", "a@b.test", "must be smtp://"},
		{"no host", "smtp://", "a@b.test", "must be smtp://"},
		{"a path", "smtp://mail.example.test/x", "a@b.test", "must be smtp://"},
		{"a bad port", "smtp://mail.example.test:99999", "a@b.test", "port"},
		{"no sender", "smtp://mail.example.test", "", "sender"},
		{"a bad sender", "smtp://mail.example.test", "Status <nope>", "sender"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := NewMailer(MailConfig{URL: tc.url, From: tc.from})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("NewMailer(%q, %q) = %v, want an error about %q", tc.url, tc.from, err, tc.want)
			}
		})
	}
	_, err := NewMailer(MailConfig{URL: "smtp://u:hunter2@mail.example.test/x", From: "a@b.test"})
	if err == nil || strings.Contains(err.Error(), "hunter2") {
		t.Errorf("the error shows the password: %v", err)
	}
}
