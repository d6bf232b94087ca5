package notify

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/internal/testenv"
)

func TestPostOutcomes(t *testing.T) {
	redirected := startReceiver(t, nil)
	tests := []struct {
		name       string
		answer     http.HandlerFunc
		outcome    statusd.Outcome
		status     int
		retryAfter time.Duration
		err        string // the start of the error text
	}{
		{"200", nil, statusd.Delivered, 200, 0, ""},
		{"204", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(204) }, statusd.Delivered, 204, 0, ""},
		{"410 unsubscribes", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(410) }, statusd.Gone, 410, 0, "HTTP 410"},
		{"429 with seconds", func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Retry-After", "120")
			w.WriteHeader(429)
		}, statusd.Failed, 429, 120 * time.Second, "HTTP 429"},
		{"503 with a date", func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Retry-After", t0.Add(time.Hour).Format(http.TimeFormat))
			w.WriteHeader(503)
		}, statusd.Failed, 503, time.Hour, "HTTP 503"},
		{"500 ignores Retry-After", func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Retry-After", "120")
			w.WriteHeader(500)
			w.Write([]byte(strings.Repeat("x", 1<<20)))
		}, statusd.Failed, 500, 0, "HTTP 500: xxx"},
		{"a redirect is not followed", func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, redirected.URL, http.StatusFound)
		}, statusd.Failed, 302, 0, "HTTP 302 (redirects are not followed)"},
		{"too slow", func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-r.Context().Done():
			case <-time.After(5 * time.Second):
			}
		}, statusd.Failed, 0, 0, "no answer within 300ms"},
	}
	p := newPoster(true, nil, func() time.Time { return t0 })
	p.timeout = 300 * time.Millisecond
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rcv := startReceiver(t, tc.answer)
			a := p.post(context.Background(), rcv.URL, []byte(`{}`), nil)
			if a.Outcome != tc.outcome || a.Status != tc.status || a.RetryAfter != tc.retryAfter || !strings.HasPrefix(a.Error, tc.err) {
				t.Errorf("attempt %+v, want outcome %d, status %d, retry after %v, error %q…", a, tc.outcome, tc.status, tc.retryAfter, tc.err)
			}
			if len(a.Error) > maxErrorText {
				t.Errorf("the error text keeps %d bytes", len(a.Error))
			}
			if (tc.err == "") != (a.Error == "") {
				t.Errorf("error %q", a.Error)
			}
		})
	}
	if n := len(redirected.requests()); n != 0 {
		t.Errorf("the redirect was followed %d times", n)
	}
	t.Run("nothing listens", func(t *testing.T) {
		a := p.post(context.Background(), "http://"+freeAddr(t)+"/", []byte(`{}`), nil)
		if a.Outcome != statusd.Failed || a.Error != "dial: connect: connection refused" {
			t.Errorf("attempt %+v", a)
		}
	})
	t.Run("not an http URL", func(t *testing.T) {
		if a := p.post(context.Background(), "ftp://example.test/", nil, nil); a.Outcome != statusd.Failed || !strings.Contains(a.Error, "http") {
			t.Errorf("attempt %+v", a)
		}
	})
}

// TestPrivateTargets: without --allow-private-targets, a receiver on
// 127.0.0.1 is refused at connect, named literally or by a name that
// resolves to it; with it, it gets the delivery.
func TestPrivateTargets(t *testing.T) {
	rcv := startReceiver(t, nil)
	byName := strings.Replace(rcv.URL, "127.0.0.1", "localhost", 1)
	refuse := newPoster(false, nil, time.Now)
	allow := newPoster(true, nil, time.Now)
	tests := []struct {
		name   string
		p      *poster
		target string
		want   statusd.Outcome
	}{
		{"an address, refused", refuse, rcv.URL, statusd.Failed},
		{"a name that resolves to it, refused", refuse, byName, statusd.Failed},
		{"allowed", allow, rcv.URL, statusd.Delivered},
		{"allowed by name", allow, byName, statusd.Delivered},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := len(rcv.requests())
			a := tc.p.post(context.Background(), tc.target, []byte(`{}`), nil)
			if a.Outcome != tc.want {
				t.Fatalf("attempt %+v", a)
			}
			arrived := len(rcv.requests()) - before
			if tc.want == statusd.Failed {
				if arrived != 0 {
					t.Errorf("%d requests arrived", arrived)
				}
				if !strings.HasPrefix(a.Error, "refused to connect to ") || !strings.Contains(a.Error, "not a public address") ||
					!strings.Contains(a.Error, "--allow-private-targets") || strings.Contains(a.Error, "localhost") {
					t.Errorf("error %q: want why, without the URL", a.Error)
				}
			} else if arrived != 1 {
				t.Errorf("%d requests arrived, want 1", arrived)
			}
		})
	}
	if tr := refuse.client.Transport.(*http.Transport); tr.Proxy != nil {
		t.Error("a proxy from the environment would connect unchecked")
	}
}

func TestRetryAfter(t *testing.T) {
	tests := []struct {
		name, v string
		want    time.Duration
	}{
		{"seconds", "120", 120 * time.Second},
		{"none", "", 0},
		{"zero", "0", 0},
		{"negative", "-5", 0},
		{"not a number or date", "soon", 0},
		{"a date", t0.Add(90 * time.Second).Format(http.TimeFormat), 90 * time.Second},
		{"a past date", t0.Add(-time.Minute).Format(http.TimeFormat), 0},
		{"more than a day is a day", "999999999", statusd.RetryFor},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := retryAfter(tc.v, t0); got != tc.want {
				t.Errorf("retryAfter(%q) = %v, want %v", tc.v, got, tc.want)
			}
		})
	}
}

// TestNoAttemptAfterStartBy: a delivery whose turn does not come before
// its startBy is not attempted (ok false: left to the lease, counted
// nothing), whether it waits for an HTTP slot, for the mail server's
// connection, or for the snapshot.
func TestNoAttemptAfterStartBy(t *testing.T) {
	rcv := startReceiver(t, nil)
	smtpd := testenv.StartSMTP(t, testenv.SMTPOptions{})
	mailer := mustMailer(t, MailConfig{URL: "smtp://" + smtpd.Addr, From: "status@acme.test", Conns: 1})
	w, _ := newTestWorker(Config{Mailer: mailer, AllowPrivate: true})
	hook := statusd.Subscriber{ID: 5, Channel: statusd.Webhook, Address: rcv.URL, Secret: statusd.NewWebhookSecret(), Token: "tok"}
	mail := statusd.Subscriber{ID: 6, Channel: statusd.Email, Address: "ann@example.test", Token: "tok"}
	young := statusd.Event{ID: 20, Kind: statusd.NoticeCreated, NoticeID: 77, UpdateID: 770, CreatedAt: t0}

	// Every HTTP slot and the one connection busy.
	for range maxHTTP {
		w.http <- struct{}{}
	}
	mailer.busy <- struct{}{}
	defer func() { <-mailer.busy }() // before Close, which waits for it
	tests := []struct {
		name string
		c    statusd.Claimed
	}{
		{"waiting for an HTTP slot", claimed(1, updated, hook)},
		{"waiting for the connection", claimed(2, updated, mail)},
		{"waiting for the snapshot", claimed(3, young, hook)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			a, ok := w.attempt(context.Background(), &tc.c, start.Add(200*time.Millisecond), &holding{})
			if ok || a != (statusd.Attempt{}) {
				t.Errorf("attempt %+v, ok %v: want none", a, ok)
			}
			if took := time.Since(start); took < 200*time.Millisecond || took > 2*time.Second {
				t.Errorf("gave up after %v, want at the start-by 200 ms later", took)
			}
			if a, ok := w.attempt(context.Background(), &tc.c, start, &holding{}); ok {
				t.Errorf("with a start-by past: attempt %+v", a)
			}
		})
	}
	if len(rcv.requests()) != 0 || len(smtpd.Messages()) != 0 {
		t.Errorf("sent: %d requests, %d emails", len(rcv.requests()), len(smtpd.Messages()))
	}
}
