package server

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/internal/sqlstore"
	"github.com/statusd/statusd/internal/telemetry"
)

// FuzzSubscribeForm sends random bodies to POST /subscribe of the whole
// assembly, with email subscription on, over a real SQLite store, from
// random clients. Whatever the body: never a 500 nor a panic, always an
// HTML page; 200 only for a form whose address is an email address (and
// then exactly one confirmation event is stored); any other answer (422,
// 413, 400, 429) changes nothing: the subscribers are as they were and no
// event was stored.
func FuzzSubscribeForm(f *testing.F) {
	store, holder := demoPage(f)
	pub, _ := New(Config{Store: store, Snapshots: holder, Variant: statusd.VariantA, Gate: NewGate(0),
		Metrics: telemetry.New(telemetry.Config{Snapshots: holder}), EmailSubscriptions: true,
		Now: time.Now, Log: slog.New(slog.DiscardHandler)})
	subs := store.Subscribers()
	ctx := context.Background()
	comp := holder.Current().AllComponents[0].ID
	for _, seed := range []string{
		"email=ann%40example.com",
		fmt.Sprintf("email=ann%%40example.com&component_ids=%d&component_ids=%d", comp, comp),
		"email=+bob%40example.com+&component_ids=999999",
		"email=ann",
		"email=Ann+%3Cann%40example.com%3E",
		"component_ids=x",
		"email=%zz",
		"email=a%40b.c;component_ids=1",
		"email=%E2%80%AEann%40example.com",
		"",
		strings.Repeat("x", 70<<10),
	} {
		f.Add(seed, uint8(1))
	}
	listing := func(t *testing.T) string {
		list, total, err := subs.List(ctx, statusd.SubscriberFilter{}, 1, 1000)
		if err != nil {
			t.Fatal(err)
		}
		return fmt.Sprint(total, list)
	}
	f.Fuzz(func(t *testing.T, body string, client uint8) {
		before := listing(t)
		req := httptest.NewRequest(http.MethodPost, "/subscribe", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.RemoteAddr = fmt.Sprintf("192.0.2.%d:4711", client)
		rec := httptest.NewRecorder()
		pub.ServeHTTP(rec, req)
		events, err := subs.Expand(ctx, time.Now(), 100)
		if err != nil {
			t.Fatal(err)
		}
		if ct := rec.Header().Get("Content-Type"); ct != "text/html; charset=utf-8" {
			t.Errorf("%q: Content-Type %q", body, ct)
		}
		switch rec.Code {
		case http.StatusOK:
			form, err := url.ParseQuery(body)
			if err != nil || statusd.CheckEmail(strings.TrimSpace(form.Get("email"))) != nil {
				t.Errorf("%q: 200 for a form without an email address", body)
			}
			if events != 1 {
				t.Errorf("%q: 200 and %d events stored, want 1", body, events)
			}
		case http.StatusUnprocessableEntity, http.StatusRequestEntityTooLarge, http.StatusBadRequest, http.StatusTooManyRequests:
			if events != 0 || listing(t) != before {
				t.Errorf("%q: %d, and the store changed (%d events)", body, rec.Code, events)
			}
		default:
			t.Fatalf("%q: status %d\n%s", body, rec.Code, rec.Body)
		}
	})
}

// failingRequests is a store whose subscription requests fail with an
// error that names the address, as a database error may.
type failingRequests struct {
	*sqlstore.Store
}

func (s failingRequests) Subscribers() statusd.SubscriberStore {
	return failingRequest{s.Store.Subscribers()}
}

type failingRequest struct{ statusd.SubscriberStore }

func (failingRequest) Request(_ context.Context, email string, _ []int64, _ time.Time) error {
	return fmt.Errorf("inserting subscriber %s: disk I/O error", email)
}

// TestSubscribeErrorLog: a subscription request that fails inside the
// store is a 500 page, logged at error level without the address.
func TestSubscribeErrorLog(t *testing.T) {
	store, holder := demoPage(t)
	var logs bytes.Buffer
	pub, _ := New(Config{Store: failingRequests{store}, Snapshots: holder, Variant: statusd.VariantA, Gate: NewGate(0),
		Metrics: telemetry.New(telemetry.Config{Snapshots: holder}), EmailSubscriptions: true,
		Now: time.Now, Log: slog.New(slog.NewTextHandler(&logs, nil))})
	req := httptest.NewRequest(http.MethodPost, "/subscribe", strings.NewReader("email=ann%40example.com"))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	rec := httptest.NewRecorder()
	pub.ServeHTTP(rec, req)
	if rec.Code != 500 || !strings.Contains(rec.Body.String(), "Something went wrong") {
		t.Errorf("%d, want the 500 page:\n%s", rec.Code, rec.Body)
	}
	if out := logs.String(); strings.Contains(out, "ann@example.com") || !strings.Contains(out, "inserting subscriber <address>: disk I/O error") {
		t.Errorf("the log names the address, or lacks the error:\n%s", out)
	}
}
