package main

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

// receiver is a real HTTP server on 127.0.0.1 that takes webhooks (serve
// needs --allow-private-targets to send to it): it keeps every request
// and answers status (204 unless set), after holding the request for
// hold (none unless set), as a slow receiver does.
type receiver struct {
	URL    string
	status atomic.Int32
	hold   atomic.Int64 // a time.Duration

	mu  sync.Mutex
	got []received
}

// received is a request as it arrived.
type received struct {
	At     time.Time
	Path   string
	Header http.Header
	Body   []byte
}

// startReceiver starts a receiver, stopped when the test ends.
func startReceiver(t testing.TB) *receiver {
	t.Helper()
	r := &receiver{}
	r.status.Store(http.StatusNoContent)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		r.got = append(r.got, received{At: time.Now(), Path: req.URL.Path, Header: req.Header.Clone(), Body: body})
		r.mu.Unlock()
		time.Sleep(time.Duration(r.hold.Load()))
		w.WriteHeader(int(r.status.Load()))
	}))
	t.Cleanup(srv.Close)
	r.URL = srv.URL
	return r
}

// requests returns what arrived, oldest first.
func (r *receiver) requests() []received {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]received(nil), r.got...)
}

// wait polls up to 10 s until at least n requests arrived, and returns
// them.
func (r *receiver) wait(t testing.TB, n int) []received {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		got := r.requests()
		if len(got) >= n {
			return got
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d requests arrived within 10 s, want %d", len(got), n)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// checkSigned fails unless req is a signed webhook POST as Standard
// Webhooks sign them with secret (CONTRACT C7): webhook-id,
// webhook-timestamp within a minute of now, and webhook-signature
// v1,<base64 of HMAC-SHA256 over "<id>.<timestamp>.<body>">.
func checkSigned(t testing.TB, what string, req received, secret string) {
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
