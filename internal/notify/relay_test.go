package notify

import (
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/internal/testenv"
)

// TestRelayRefusesRecipients: a relay that refuses every recipient at
// RCPT TO alike, as Postfix does when statusd's address or login is no
// longer accepted (554 5.7.1 Relay access denied) or when its disk is
// full (452 4.3.1, 451 4.3.0), blames no subscriber: 40 email subscribers
// at 8 domains hear of an update; each delivery is attempted and left
// pending, no subscriber is quarantined or counts a failure, the mailer's
// Trouble and the log name the relay. Once the relay takes mail again,
// every message goes out, and the trouble ends. (Before the relay's
// refusals were told from a mailbox's, the 554 quarantined all 40 at
// once, and the 4xx counted a failure against each.)
func TestRelayRefusesRecipients(t *testing.T) {
	for _, c := range []struct {
		name     string
		code     int
		enhanced [3]int
		text     string
	}{
		{"relay access denied", 554, [3]int{5, 7, 1}, "Relay access denied"},
		{"disk full", 452, [3]int{4, 3, 1}, "Insufficient system storage"},
		{"temporary failure", 451, [3]int{4, 3, 0}, "Temporary lookup failure"},
	} {
		t.Run(c.name, func(t *testing.T) {
			const n, domains = 40, 8
			var broken atomic.Bool
			broken.Store(true)
			smtpd := testenv.StartSMTP(t, testenv.SMTPOptions{RcptRule: func(to string) error {
				if broken.Load() {
					return testenv.SMTPReply(c.code, c.enhanced, "<"+to+">: "+c.text)
				}
				return nil
			}})
			var subs []statusd.Subscriber
			for i := range n {
				subs = append(subs, statusd.Subscriber{Channel: statusd.Email, Address: fmt.Sprintf("user%d@domain%d.test", i, i%domains)})
			}
			mailer := mustMailer(t, MailConfig{URL: "smtp://" + smtpd.Addr, From: "status@acme.test", Rate: 100})
			mailer.relay.pause = 300 * time.Millisecond
			logs := &testenv.LogBuffer{}
			_, ss := startFanOut(t, Config{Mailer: mailer, RetryBase: 200 * time.Millisecond, Log: infoLogger(logs)}, subs)

			waitFor(t, "every delivery attempted", func() bool {
				ds, total, err := ss.Deliveries(t.Context(), statusd.DeliveryFilter{}, 1, 100)
				if err != nil {
					t.Fatal(err)
				}
				for _, d := range ds {
					if d.Attempts == 0 {
						return false
					}
				}
				return total == n
			})
			list, _, err := ss.List(t.Context(), statusd.SubscriberFilter{}, 1, 100)
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range list {
				if s.State != statusd.SubscriberActive || s.Failures != 0 {
					t.Errorf("subscriber %d is %s with %d failures; want active with none", s.ID, s.State, s.Failures)
				}
			}
			if tr := mailer.Trouble(); !strings.Contains(tr, smtpd.Addr) || !strings.Contains(tr, c.text) {
				t.Errorf("Trouble() = %q, want the relay %s and %q named", tr, smtpd.Addr, c.text)
			}
			mustContain(t, "the log", logs.String(), "the mail relay is in trouble", "relay="+smtpd.Addr)

			broken.Store(false)
			smtpd.WaitMessages(t, n)
			waitFor(t, "the trouble's end", func() bool { return mailer.Trouble() == "" })
			waitFor(t, "the relay's recovery logged", func() bool { return strings.Contains(logs.String(), "the mail relay takes email again") })
		})
	}
}

// waitFor polls cond every 20 ms for up to 15 s, and fails the test when
// it does not hold by then.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("no %s within 15 s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestRelayVerdict: whose fault a refused recipient is, on the relay's
// answers before it (taken: a recipient at the domain taken; otherwise
// a refusal there, with the reply given).
func TestRelayVerdict(t *testing.T) {
	const denied, unknown = "554 <> Relay access denied", "550 <> User unknown"
	type answer struct{ domain, reply string } // reply "" : taken
	for _, tc := range []struct {
		name   string
		before []answer
		refuse answer
		want   verdict
	}{
		{"nothing known yet", nil, answer{"a.test", unknown}, undecided},
		{"taken at its domain", []answer{{"a.test", ""}}, answer{"a.test", unknown}, mailbox},
		{"taken at three other domains", []answer{{"b.test", ""}, {"c.test", ""}, {"d.test", ""}}, answer{"a.test", unknown}, mailbox},
		{"taken at two other domains", []answer{{"b.test", ""}, {"c.test", ""}}, answer{"a.test", unknown}, undecided},
		{"three domains refused alike", []answer{{"b.test", denied}, {"c.test", denied}}, answer{"a.test", denied}, relayFault},
		{"three domains refused, not alike", []answer{{"b.test", unknown}, {"c.test", unknown}, {"d.test", ""}, {"e.test", ""}, {"f.test", ""}}, answer{"a.test", denied}, mailbox},
		{"a domain that takes others does not count", []answer{{"b.test", denied}, {"b.test", ""}, {"c.test", denied}}, answer{"a.test", denied}, undecided},
		{"taken before the relay refused alike elsewhere", []answer{{"a.test", ""}, {"b.test", denied}}, answer{"a.test", denied}, undecided},
		{"a relay that refuses only some domains", []answer{{"own.test", ""}, {"b.test", denied}, {"own.test", ""}, {"c.test", denied}}, answer{"a.test", denied}, relayFault},
	} {
		t.Run(tc.name, func(t *testing.T) {
			now := t0
			r := newRelayWatch("relay:25", func() time.Time { return now })
			for _, a := range tc.before {
				now = now.Add(time.Second)
				if a.reply == "" {
					r.accept(a.domain)
				} else {
					r.refuse(a.domain, a.reply)
				}
			}
			now = now.Add(time.Second)
			r.refuse(tc.refuse.domain, tc.refuse.reply)
			if got := r.verdict(tc.refuse.domain, tc.refuse.reply); got != tc.want {
				t.Errorf("verdict %d, want %d", got, tc.want)
			}
		})
	}
}
