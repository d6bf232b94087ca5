package notify

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strconv"
	"sync"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/internal/statuspage"
)

// receiver is a real HTTP receiver that keeps the requests it gets and
// answers with its handler (200 when nil).
type receiver struct {
	*httptest.Server
	mu     sync.Mutex
	got    []request
	answer http.HandlerFunc
}

type request struct {
	Method string
	Header http.Header
	Body   []byte
}

func startReceiver(t testing.TB, answer http.HandlerFunc) *receiver {
	t.Helper()
	r := &receiver{answer: answer}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		r.got = append(r.got, request{req.Method, req.Header.Clone(), body})
		r.mu.Unlock()
		if r.answer != nil {
			r.answer(w, req)
		}
	}))
	t.Cleanup(r.Close)
	return r
}

func (r *receiver) requests() []request {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]request(nil), r.got...)
}

// v2 fetches path from the real Statuspage endpoints over the snapshot.
func v2(t *testing.T, h *holder, path string) map[string]any {
	t.Helper()
	srv := statuspage.New(statuspage.Config{Snapshots: h})
	rec := httptest.NewRecorder()
	if err := srv.Serve(path)(rec, httptest.NewRequest(http.MethodGet, path, nil)); err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil {
		t.Fatalf("%s: %v\n%s", path, err, rec.Body.String())
	}
	return out
}

// listed returns the element of list whose id is id.
func listed(t *testing.T, list any, id string) any {
	t.Helper()
	for _, x := range list.([]any) {
		if x.(map[string]any)["id"] == id {
			return x
		}
	}
	t.Fatalf("%s is not listed", id)
	return nil
}

func TestWebhook(t *testing.T) {
	rcv := startReceiver(t, nil)
	h := &holder{snap: build(fixture(), t0)}
	// The real clock: receivers refuse signatures more than 5 minutes off.
	w, _ := newTestWorker(Config{Snapshots: h, AllowPrivate: true, Now: time.Now})
	secret := statusd.NewWebhookSecret()
	sub := statusd.Subscriber{ID: 5, Channel: statusd.Webhook, Address: rcv.URL + "/hook", Secret: secret, Token: "tok", State: statusd.SubscriberActive}
	verifier, err := standardwebhooks.NewWebhook(secret)
	if err != nil {
		t.Fatal(err)
	}
	incidents := v2(t, h, "/api/v2/incidents.json")
	maintenances := v2(t, h, "/api/v2/scheduled-maintenances.json")

	tests := []struct {
		name     string
		event    statusd.Event
		kind     string
		incident any // as /api/v2 lists it; nil: null
		notice   map[string]any
	}{
		{"an update of an incident", updated, "notice.updated", listed(t, incidents["incidents"], "41"),
			map[string]any{"id": 41.0, "type": "unplanned", "state": "identified", "subject": "Elevated error rates",
				"url": "https://status.acme.test/notices/41"}},
		{"a new incident", created, "notice.created", listed(t, incidents["incidents"], "41"),
			map[string]any{"id": 41.0, "state": "identified"}},
		{"a maintenance reminder", reminder, "maintenance.reminder", listed(t, maintenances["scheduled_maintenances"], "42"),
			map[string]any{"id": 42.0, "type": "planned", "state": "scheduled", "begins_at": "2026-03-01T13:00:00.000Z"}},
		{"a general notice has no incident", general, "notice.created", nil,
			map[string]any{"id": 43.0, "type": "general"}},
		{"a test", test, "test", nil, nil},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := claimed(int64(100+i), tc.event, sub)
			before := time.Now()
			a, ok := w.attempt(context.Background(), &c, later)
			if !ok || a.Outcome != statusd.Delivered || a.Status != 200 {
				t.Fatalf("attempt %+v", a)
			}
			got := rcv.requests()
			r := got[len(got)-1]
			if r.Method != http.MethodPost || r.Header.Get("Content-Type") != "application/json" {
				t.Errorf("%s with Content-Type %q", r.Method, r.Header.Get("Content-Type"))
			}
			// The reference implementation of Standard Webhooks checks
			// the signature, and the timestamp against its own clock.
			if err := verifier.Verify(r.Body, r.Header); err != nil {
				t.Errorf("the signature does not verify: %v (headers %v)", err, r.Header)
			}
			tampered := append([]byte(nil), r.Body...)
			tampered[len(tampered)-2] ^= 1
			if verifier.Verify(tampered, r.Header) == nil {
				t.Error("a changed body verifies")
			}
			if id := r.Header.Get("webhook-id"); id != strconv.Itoa(100+i) {
				t.Errorf("webhook-id %q, want the delivery's id %d", id, 100+i)
			}
			var body map[string]any
			if err := json.Unmarshal(r.Body, &body); err != nil {
				t.Fatal(err)
			}
			if len(body) != 5 {
				t.Errorf("keys %v, want meta, page, incident, event, notice", reflect.ValueOf(body).MapKeys())
			}
			meta := body["meta"].(map[string]any)
			if meta["unsubscribe"] != "https://status.acme.test/subscriptions/unsubscribe?token=tok" || meta["documentation"] != DefaultDocumentation {
				t.Errorf("meta %v", meta)
			}
			gen, err := time.Parse(statusd.TimeLayout, meta["generated_at"].(string))
			if err != nil || gen.Before(before.Truncate(time.Millisecond)) || gen.After(time.Now()) {
				t.Errorf("generated_at %v (%v), want the attempt's time", meta["generated_at"], err)
			}
			// Incident 41 makes the page degraded, and names no impact:
			// the indicator is minor, the default.
			page := body["page"].(map[string]any)
			if page["id"] != incidents["page"].(map[string]any)["id"] || page["status_indicator"] != "minor" ||
				page["status_description"] != statusd.DefaultDegradedText {
				t.Errorf("page %v", page)
			}
			if body["event"] != tc.kind {
				t.Errorf("event %v, want %s", body["event"], tc.kind)
			}
			if !reflect.DeepEqual(body["incident"], tc.incident) {
				t.Errorf("incident\n%v\nwant, as /api/v2 lists it,\n%v", body["incident"], tc.incident)
			}
			if tc.notice == nil {
				if body["notice"] != nil {
					t.Errorf("notice %v, want null", body["notice"])
				}
				return
			}
			n := body["notice"].(map[string]any)
			for k, v := range tc.notice {
				if n[k] != v {
					t.Errorf("notice.%s = %v, want %v", k, n[k], v)
				}
			}
		})
	}

	t.Run("a retry keeps the webhook-id and signs again", func(t *testing.T) {
		c := claimed(200, updated, sub)
		for range 2 {
			if a, _ := w.attempt(context.Background(), &c, later); a.Outcome != statusd.Delivered {
				t.Fatal(a)
			}
		}
		got := rcv.requests()
		for _, r := range got[len(got)-2:] {
			if r.Header.Get("webhook-id") != "200" || verifier.Verify(r.Body, r.Header) != nil {
				t.Errorf("webhook-id %q; verifies: %v", r.Header.Get("webhook-id"), verifier.Verify(r.Body, r.Header))
			}
		}
	})
	t.Run("a secret that cannot sign", func(t *testing.T) {
		bad := sub
		bad.Secret = "not-a-secret"
		c := claimed(300, updated, bad)
		n := len(rcv.requests())
		if a, _ := w.attempt(context.Background(), &c, later); a.Outcome != statusd.Failed || a.Error != errSecret.Error() {
			t.Errorf("attempt %+v, want failed: %v", a, errSecret)
		}
		if len(rcv.requests()) != n {
			t.Error("an unsigned request was sent")
		}
	})
}
