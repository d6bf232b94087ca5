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
	// The page as it was when incident 41 was new: its first update only.
	then := fixture()
	then.Notices[0].Updates = then.Notices[0].Updates[:1]
	then.Notices[0].UpdatedAt = at(-30)
	incidentsThen := v2(t, &holder{snap: build(then, t0)}, "/api/v2/incidents.json")

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
		{"a new incident, sent after its next update", created, "notice.created", listed(t, incidentsThen["incidents"], "41"),
			map[string]any{"id": 41.0, "state": "investigating"}},
		{"a maintenance reminder", reminder, "maintenance.reminder", listed(t, maintenances["scheduled_maintenances"], "42"),
			map[string]any{"id": 42.0, "type": "planned", "state": "scheduled", "begins_at": "2026-03-01T13:00:00.000Z"}},
		{"a general notice has no incident", general, "notice.created", nil,
			map[string]any{"id": 43.0, "type": "general"}},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := claimed(int64(100+i), tc.event, sub)
			before := time.Now()
			a, ok := w.attempt(context.Background(), &c, later, &holding{})
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
			if id := r.Header.Get("webhook-id"); id != "msg"+strconv.Itoa(100+i) {
				t.Errorf("webhook-id %q, want the delivery's message id msg%d", id, 100+i)
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
			if a, _ := w.attempt(context.Background(), &c, later, &holding{}); a.Outcome != statusd.Delivered {
				t.Fatal(a)
			}
		}
		got := rcv.requests()
		for _, r := range got[len(got)-2:] {
			if r.Header.Get("webhook-id") != "msg200" || verifier.Verify(r.Body, r.Header) != nil {
				t.Errorf("webhook-id %q; verifies: %v", r.Header.Get("webhook-id"), verifier.Verify(r.Body, r.Header))
			}
		}
	})
	t.Run("a secret that cannot sign", func(t *testing.T) {
		bad := sub
		bad.Secret = "not-a-secret"
		c := claimed(300, updated, bad)
		n := len(rcv.requests())
		if a, _ := w.attempt(context.Background(), &c, later, &holding{}); a.Outcome != statusd.Failed || a.Error != errSecret.Error() {
			t.Errorf("attempt %+v, want failed: %v", a, errSecret)
		}
		if len(rcv.requests()) != n {
			t.Error("an unsigned request was sent")
		}
	})
}

// hookSub is a webhook subscriber of the whole page.
var hookSub = statusd.Subscriber{ID: 5, Channel: statusd.Webhook, Address: "https://hooks.test/", Secret: statusd.NewWebhookSecret(),
	Token: "tok", State: statusd.SubscriberActive}

// webhookBody renders event e for hookSub at t0, from the fixture's
// snapshot, and decodes the body into v.
func webhookBody(t *testing.T, e statusd.Event, v any) {
	t.Helper()
	w, h := newTestWorker(Config{})
	c := claimed(100, e, hookSub)
	m, err := w.compose(h.snap, e, t0)
	if err != nil {
		t.Fatal(err)
	}
	body, _, err := w.webhookRequest(m, &c, t0)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(body, v); err != nil {
		t.Fatal(err)
	}
}

// TestWebhookTellsItsOwnUpdate: a delivery made for an update, sent (or
// retried) after the next update was posted, tells its own update, in the
// incident and in the notice (CONTRACT C7: every message renders its
// event as it was when the write made it).
func TestWebhookTellsItsOwnUpdate(t *testing.T) {
	var got struct {
		Incident struct {
			Status          string `json:"status"`
			UpdatedAt       string `json:"updated_at"`
			IncidentUpdates []struct {
				ID, Status, Body string
			} `json:"incident_updates"`
		} `json:"incident"`
		Notice struct {
			State   string `json:"state"`
			Updates []struct {
				State, Content string
			} `json:"updates"`
		} `json:"notice"`
	}
	webhookBody(t, created, &got) // update 410; 411 came after
	const first = "We are looking into errors on <b>checkout</b> & login."
	in := got.Incident
	if in.Status != "investigating" || in.UpdatedAt != "2026-03-01T11:30:00.000Z" || len(in.IncidentUpdates) != 1 ||
		in.IncidentUpdates[0].ID != "410" || in.IncidentUpdates[0].Status != "investigating" || in.IncidentUpdates[0].Body != first {
		t.Errorf("incident %+v, want investigating, updated at 11:30, with update 410 only", in)
	}
	n := got.Notice
	if n.State != "investigating" || len(n.Updates) != 1 || n.Updates[0].Content != first {
		t.Errorf("notice %+v, want investigating with its first update only", n)
	}
}

// TestWebhookTestMessage: a test message carries a realistic incident,
// which receivers of Statuspage's webhooks require (Zulip answers 400 to
// a null one), whose subject says it is a test, and event "test".
func TestWebhookTestMessage(t *testing.T) {
	var got map[string]any
	webhookBody(t, test, &got)
	const (
		subject = "Test message from Acme Status (not an incident)"
		text    = "This is a test message from Acme Status: its notifications will come here."
		noon    = "2026-03-01T12:00:00.000Z"
	)
	pageID := statuspage.PageID("https://status.acme.test/")
	wantIncident := map[string]any{
		"id": "0", "name": subject, "status": "investigating", "impact": "minor",
		"created_at": noon, "updated_at": noon, "started_at": noon, "monitoring_at": nil, "resolved_at": nil,
		"shortlink": "https://status.acme.test/notices/0", "page_id": pageID, "components": []any{},
		"incident_updates": []any{map[string]any{
			"id": "0", "status": "investigating", "body": text, "incident_id": "0",
			"created_at": noon, "updated_at": noon, "display_at": noon,
			"affected_components": nil, "deliver_notifications": true, "custom_tweet": nil, "tweet_id": nil,
		}},
	}
	if got["event"] != "test" {
		t.Errorf("event %v, want test", got["event"])
	}
	if !reflect.DeepEqual(got["incident"], wantIncident) {
		t.Errorf("incident\n%v\nwant\n%v", got["incident"], wantIncident)
	}
	n, _ := got["notice"].(map[string]any)
	if n == nil || n["subject"] != subject || n["type"] != "unplanned" || n["state"] != "investigating" {
		t.Errorf("notice %v, want the sample incident, unplanned and investigating", got["notice"])
	}
	// The page is the real one: incident 41 makes it degraded, and names
	// no impact: the indicator is minor, the default. The sample incident
	// names none either: its impact is minor.
	if p := got["page"].(map[string]any); p["id"] != pageID || p["status_indicator"] != "minor" {
		t.Errorf("page %v", p)
	}
}

// TestWebhookComponentUpdate: a component's update goes to a webhook in
// Statuspage's component shape, {meta, page, component_update, component},
// the component in its new state; other channels drop it.
func TestWebhookComponentUpdate(t *testing.T) {
	e := statusd.Event{ID: 13, Kind: statusd.ComponentUpdated, ComponentIDs: []int64{2}, OldState: statusd.PageOperational,
		NewState: statusd.PageDegraded, Thread: "cu13", CreatedAt: t0}
	var got map[string]any
	webhookBody(t, e, &got)
	if len(got) != 4 || got["meta"] == nil || got["page"] == nil {
		t.Errorf("keys %v, want meta, page, component_update, component", reflect.ValueOf(got).MapKeys())
	}
	// API is degraded by incident 41 alone, which names no impact (minor):
	// Statuspage's degraded_performance.
	wantUpdate := map[string]any{"created_at": "2026-03-01T12:00:00.000Z", "new_status": "degraded_performance",
		"old_status": "operational", "id": "cu13", "component_id": "2"}
	if !reflect.DeepEqual(got["component_update"], wantUpdate) {
		t.Errorf("component_update %v, want %v", got["component_update"], wantUpdate)
	}
	created := "2026-02-28T19:20:00.000Z" // t0 less 1,000 minutes
	wantComponent := map[string]any{"id": "2", "name": "API", "status": "degraded_performance", "created_at": created,
		"updated_at": created, "position": 2.0, "description": nil, "showcase": false, "start_date": "2026-02-28",
		"group_id": "1", "page_id": statuspage.PageID("https://status.acme.test/"), "group": false, "only_show_if_degraded": false}
	if !reflect.DeepEqual(got["component"], wantComponent) {
		t.Errorf("component\n%v\nwant\n%v", got["component"], wantComponent)
	}

	// An update of impact, as the write left it, whatever the component's
	// impact is now (minor): from major (partial_outage) to critical
	// (major_outage), the component shown so too.
	recorded := e
	recorded.OldState, recorded.OldSeverity, recorded.NewSeverity = statusd.PageDegraded, statusd.SeverityMajor, statusd.SeverityCritical
	var impact map[string]any
	webhookBody(t, recorded, &impact)
	update, component := impact["component_update"].(map[string]any), impact["component"].(map[string]any)
	if update["old_status"] != "partial_outage" || update["new_status"] != "major_outage" || component["status"] != "major_outage" {
		t.Errorf("an update of impact: %v to %v, the component %v; want partial_outage to major_outage, major_outage",
			update["old_status"], update["new_status"], component["status"])
	}

	w, _ := newTestWorker(Config{})
	slack := claimed(101, e, statusd.Subscriber{ID: 6, Channel: statusd.Slack, Address: "https://hooks.test/slack", State: statusd.SubscriberActive})
	if a, ok := w.attempt(context.Background(), &slack, later, &holding{}); !ok || a.Outcome != statusd.Dropped {
		t.Errorf("a component update to Slack: %+v, want dropped", a)
	}
}
