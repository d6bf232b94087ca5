package testserver

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Receiver is a real HTTP server on 127.0.0.1 that takes webhooks (serve
// needs --allow-private-targets to send to it): it keeps every request
// and answers Status (204 unless set), after holding the request for
// Hold (none unless set), as a slow receiver does.
type Receiver struct {
	URL    string
	Status atomic.Int32
	Hold   atomic.Int64 // a time.Duration

	mu  sync.Mutex
	got []Received
}

// Received is a request as it arrived.
type Received struct {
	At     time.Time
	Path   string
	Header http.Header
	Body   []byte
}

// StartReceiver starts a receiver, stopped when the test ends.
func StartReceiver(t testing.TB) *Receiver {
	t.Helper()
	r := &Receiver{}
	r.Status.Store(http.StatusNoContent)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		r.got = append(r.got, Received{At: time.Now(), Path: req.URL.Path, Header: req.Header.Clone(), Body: body})
		r.mu.Unlock()
		time.Sleep(time.Duration(r.Hold.Load()))
		w.WriteHeader(int(r.Status.Load()))
	}))
	t.Cleanup(srv.Close)
	r.URL = srv.URL
	return r
}

// Requests returns what arrived, oldest first.
func (r *Receiver) Requests() []Received {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Received(nil), r.got...)
}

// Wait polls up to 10 s until at least n requests arrived, and returns
// them.
func (r *Receiver) Wait(t testing.TB, n int) []Received {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		got := r.Requests()
		if len(got) >= n {
			return got
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d requests arrived within 10 s, want %d", len(got), n)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// CheckSigned fails unless req is a signed webhook POST as Standard
// Webhooks sign them with secret (CONTRACT C7): webhook-id,
// webhook-timestamp within a minute of now, and webhook-signature
// v1,<base64 of HMAC-SHA256 over "<id>.<timestamp>.<body>">.
func CheckSigned(t testing.TB, what string, req Received, secret string) {
	t.Helper()
	id, ts, sig := req.Header.Get("webhook-id"), req.Header.Get("webhook-timestamp"), req.Header.Get("webhook-signature")
	if id == "" || ts == "" || req.Header.Get("Content-Type") != "application/json" {
		t.Errorf("%s: webhook-id %q, webhook-timestamp %q, Content-Type %q", what, id, ts, req.Header.Get("Content-Type"))
	}
	if sec, err := time.ParseDuration(ts + "s"); err != nil || time.Since(time.Unix(int64(sec.Seconds()), 0)).Abs() > time.Minute {
		t.Errorf("%s: webhook-timestamp %q is not now", what, ts)
	}
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
	if err != nil {
		t.Fatalf("%s: secret %q: %v", what, secret, err)
	}
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(id + "." + ts + "." + string(req.Body)))
	if want := "v1," + base64.StdEncoding.EncodeToString(mac.Sum(nil)); sig != want {
		t.Errorf("%s: webhook-signature %q, want %q", what, sig, want)
	}
}
