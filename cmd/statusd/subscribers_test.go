package main

// The admin API of subscriptions (CONTRACT C7): subscribers, the delivery
// log, and the events of notice writes, through the real server and the
// Go SDK. Events become deliveries when the sender expands them; the tests
// expand them through a store of their own on the server's database
// (subExpand), as the sender would.

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/client"
	"github.com/statusd/statusd/internal/sqlstore"
)

// subDoc is the page of the subscription tests: Website 1, API 2 and
// Database 3 at the top level, Replica 4 under Database.
func subDoc() *statusd.Document {
	comp := func(id int64, parent *int64, pos int, name string) statusd.Component {
		return statusd.Component{ID: id, ParentID: parent, Position: pos, Name: name, CreatedAt: pageCreated, UpdatedAt: pageCreated}
	}
	return &statusd.Document{
		Page: statusd.Page{Name: "Sub Status", URL: "https://status.sub.test", CreatedAt: pageCreated, UpdatedAt: pageCreated},
		Components: []statusd.Component{
			comp(1, nil, 1, "Website"), comp(2, nil, 2, "API"), comp(3, nil, 3, "Database"), comp(4, ptr(int64(3)), 4, "Replica"),
		},
	}
}

// subStore opens a store of the test's own on the server's database.
func subStore(t *testing.T, db string) *sqlstore.Store {
	t.Helper()
	st, err := sqlstore.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// subExpand turns every stored event into its deliveries, as the sender
// does first.
func subExpand(t *testing.T, st *sqlstore.Store) {
	t.Helper()
	for range 100 {
		n, err := st.Subscribers().Expand(context.Background(), time.Now(), 100)
		if err != nil {
			t.Fatalf("expand: %v", err)
		}
		if n == 0 {
			return
		}
	}
	t.Fatal("the events never ran out")
}

// subDeliveries is every page of the delivery log the filter chooses,
// checked to be newest first.
func subDeliveries(t *testing.T, adm *client.Admin, f statusd.DeliveryFilter) []statusd.AdminDelivery {
	t.Helper()
	var all []statusd.AdminDelivery
	for page := 1; ; page++ {
		r, err := adm.Deliveries(context.Background(), f, page)
		if err != nil {
			t.Fatalf("deliveries page %d: %v", page, err)
		}
		all = append(all, r.Deliveries...)
		if r.Meta.NextPage == nil {
			break
		}
	}
	for i := 1; i < len(all); i++ {
		if all[i].ID >= all[i-1].ID {
			t.Fatalf("the delivery log is not newest first: %d after %d", all[i].ID, all[i-1].ID)
		}
	}
	return all
}

// subSettled polls the deliveries of f up to 10 s, until done says the
// worker left them as the test expects, and returns them.
func subSettled(t *testing.T, adm *client.Admin, f statusd.DeliveryFilter, done func([]statusd.AdminDelivery) bool) []statusd.AdminDelivery {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		all := subDeliveries(t, adm, f)
		if done(all) {
			return all
		}
		if time.Now().After(deadline) {
			t.Fatalf("the deliveries of %+v did not settle within 10 s: %+v", f, all)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// subSent is what the delivery log holds for a notice: "kind update_id
// subscriber_id" lines, sorted.
func subSent(list []statusd.AdminDelivery, noticeID int64) []string {
	out := []string{}
	for _, d := range list {
		if d.Event.NoticeID != nil && *d.Event.NoticeID == noticeID {
			u := int64(0)
			if d.Event.UpdateID != nil {
				u = *d.Event.UpdateID
			}
			out = append(out, fmt.Sprintf("%s %d %d", d.Event.Kind, u, d.SubscriberID))
		}
	}
	slices.Sort(out)
	return out
}

// subLines builds the subSent lines of one event sent to subscribers.
func subLines(kind statusd.EventKind, updateID int64, subscribers ...int64) []string {
	out := []string{}
	for _, s := range subscribers {
		out = append(out, fmt.Sprintf("%s %d %d", kind, updateID, s))
	}
	return out
}

// subRefuse sends a request that must be refused with status and code,
// with a message containing each of inMsg, and checks that it wrote
// nothing: no subscriber, no audit entry.
func subRefuse(t *testing.T, srv *testServer, tok, method, path, body string, status int, code string, inMsg ...string) {
	t.Helper()
	adm := srv.Admin(tok)
	count := func() int {
		r, err := adm.Subscribers(context.Background(), statusd.SubscriberFilter{}, 1)
		if err != nil {
			t.Fatal(err)
		}
		return r.Meta.TotalCount
	}
	subs, audit := count(), srv.auditTotal(tok)
	what := fmt.Sprintf("%s %s %s", method, path, body)
	r := srv.admin(method, admPrefix+path, tok, body)
	assertError(t, what, r, status, code)
	for _, s := range inMsg {
		if msg := errorMessage(r); !strings.Contains(msg, s) {
			t.Errorf("%s: message %q does not say %q", what, msg, s)
		}
	}
	if got := count(); got != subs {
		t.Errorf("%s: refused, yet the subscribers went from %d to %d", what, subs, got)
	}
	if got := srv.auditTotal(tok); got != audit {
		t.Errorf("%s: refused, yet it wrote %v audit entries", what, got-audit)
	}
}

// secretPattern is a webhook secret: whsec_ and the base64 of 32 bytes.
var secretPattern = regexp.MustCompile(`^whsec_[A-Za-z0-9+/]{43}=$`)

func TestAdminSubscribers(t *testing.T) {
	ctx := context.Background()
	srv := startServer(t, subDoc(), "--notify-retry-base", "1h")
	tok := newToken(t, srv.DB, "ops")
	adm := srv.Admin(tok)
	st := subStore(t, srv.DB)
	ids := map[string]int64{}        // the subscribers made, by name
	addresses := map[string]string{} // and their addresses
	create := func(t *testing.T, name, body string) map[string]any {
		t.Helper()
		m := srv.in(t).adminOK(http.MethodPost, "/subscribers", tok, body, 201)
		ids[name] = int64(at(t, m, "id").(float64))
		addresses[name] = at(t, m, "address").(string)
		return m
	}

	step(t, "every channel is added; a webhook's secret is shown once; an unconfirmed address is asked to confirm", func(t *testing.T) {
		srv := srv.in(t)
		before := time.Now().Add(-time.Second)
		for _, c := range []struct {
			name, body, channel, address, state string
			components                          []int64
		}{
			{"ann", `{"channel": "email", "address": "ann@example.com", "component_ids": [2], "confirmed": true}`, "email", "ann@example.com", "active", []int64{2}},
			{"bob", `{"channel": "email", "address": "bob@example.com"}`, "email", "bob@example.com", "pending", []int64{}},
			{"hook", `{"channel": "webhook", "address": "https://hooks.example.com/statusd", "component_ids": [3]}`, "webhook", "https://hooks.example.com/statusd", "active", []int64{3}},
			{"slack", `{"channel": "slack", "address": "https://hooks.slack.com/services/T0/B0/xyz", "component_ids": []}`, "slack", "https://hooks.slack.com/services/T0/B0/xyz", "active", []int64{}},
			{"teams", `{"channel": "teams", "address": "https://example.webhook.office.com/webhookb2/abc", "component_ids": [4], "confirmed": false}`, "teams", "https://example.webhook.office.com/webhookb2/abc", "active", []int64{4}},
			{"discord", `{"channel": "discord", "address": "https://discord.com/api/webhooks/1/abc", "component_ids": [1]}`, "discord", "https://discord.com/api/webhooks/1/abc", "active", []int64{1}},
		} {
			m := create(t, c.name, c.body)
			created := at(t, m, "created_at")
			within(t, c.name+" created_at", parseTS(t, created), before, time.Now())
			want := obj{"id": ids[c.name], "channel": c.channel, "address": c.address, "component_ids": c.components,
				"state": c.state, "created_at": created, "updated_at": at(t, m, "updated_at")}
			if c.channel == "webhook" {
				// The secret, this once.
				secret, _ := m["secret"].(string)
				if !secretPattern.MatchString(secret) {
					t.Errorf("webhook secret %q, want whsec_ and the base64 of 32 bytes", secret)
				}
				want["secret"] = secret
			}
			assertJSON(t, c.name+" created", m, want)
			delete(want, "secret")
			assertJSON(t, c.name+" read", srv.adminOK(http.MethodGet, fmt.Sprintf("/subscribers/%d", ids[c.name]), tok, "", 200), want)
		}
		// The unconfirmed address, and only it, is asked to confirm.
		subExpand(t, st)
		var kinds []string
		for _, d := range subDeliveries(t, adm, statusd.DeliveryFilter{}) {
			kinds = append(kinds, fmt.Sprintf("%s %d %v %v", d.Event.Kind, d.SubscriberID, d.Event.NoticeID, d.Event.UpdateID))
		}
		assertJSON(t, "the deliveries after the creations", kinds, []string{fmt.Sprintf("subscription.confirm %d <nil> <nil>", ids["bob"])})
	})

	step(t, "bad subscribers are refused and write nothing", func(t *testing.T) {
		srv := srv.in(t)
		const invalid = "invalid_field"
		for _, c := range []struct {
			body string
			says []string
		}{
			{`{"channel": "webhook", "address": "http://hooks.example.com/x"}`, []string{"address", "https"}},
			{`{"channel": "slack", "address": "https://127.0.0.1/hook"}`, []string{"address", "127.0.0.1", "private"}},
			{`{"channel": "webhook", "address": "https://10.1.2.3:8443/hook"}`, []string{"10.1.2.3", "private"}},
			{`{"channel": "discord", "address": "https://[::1]/hook"}`, []string{"::1", "private"}},
			{`{"channel": "teams", "address": "https://localhost/hook"}`, []string{"localhost", "private"}},
			{`{"channel": "webhook", "address": "https://169.254.169.254/latest"}`, []string{"169.254.169.254"}},
			{`{"channel": "webhook", "address": "hooks.example.com/x"}`, []string{"address", "absolute URL"}},
			{`{"channel": "webhook", "address": "https://user:pw@hooks.example.com/x"}`, []string{"address", "credentials"}},
			{`{"channel": "email", "address": "not an address"}`, []string{"address", "not an email address"}},
			{`{"channel": "email", "address": "Ann <ann2@example.com>"}`, []string{"address", "not an email address"}},
			{`{"channel": "email", "address": "https://hooks.example.com/x"}`, []string{"address"}},
			{`{"channel": "sms", "address": "+15550100"}`, []string{"channel", `"sms"`, "email, webhook, slack, teams or discord"}},
			{`{"address": "cy@example.com"}`, []string{"channel", "is required"}},
			{`{"channel": "email"}`, []string{"address", "is required"}},
			{`{"channel": "email", "address": "cy@example.com", "component_ids": [2, 99, 98]}`, []string{"component_ids[1]", "99", "component_ids[2]", "98"}},
			{`{"channel": "email", "address": "cy@example.com", "component_ids": [2, 2]}`, []string{"component_ids[1]", "listed twice"}},
			{`{"channel": "email", "address": "cy@example.com", "state": "active"}`, []string{"state"}},
			{`{"channel": "email", "address": "cy@example.com", "secret": "whsec_x"}`, []string{"secret", "unknown field"}},
			{`{"channel": "email", "address": "cy@example.com", "confirmed": "yes"}`, []string{"confirmed", "true or false"}},
		} {
			subRefuse(t, srv, tok, http.MethodPost, "/subscribers", c.body, 422, invalid, c.says...)
		}
		subRefuse(t, srv, tok, http.MethodPost, "/subscribers", `[]`, 400, "invalid_body")
		// The same channel and address twice: 409, for any state.
		subRefuse(t, srv, tok, http.MethodPost, "/subscribers", `{"channel": "webhook", "address": "https://hooks.example.com/statusd"}`, 409, "conflict")
		subRefuse(t, srv, tok, http.MethodPost, "/subscribers", `{"channel": "email", "address": "bob@example.com", "confirmed": true}`, 409, "conflict")
		// The same address on another channel is another subscriber.
		create(t, "ann-slackless", `{"channel": "webhook", "address": "https://hooks.slack.com/services/T0/B0/xyz"}`)
		srv.adminOK(http.MethodDelete, fmt.Sprintf("/subscribers/%d", ids["ann-slackless"]), tok, "", 204)
		delete(ids, "ann-slackless")
	})

	step(t, "PATCH changes the components, and sets a subscriber active again when it may be", func(t *testing.T) {
		srv := srv.in(t)
		path := func(name string) string { return fmt.Sprintf("/subscribers/%d", ids[name]) }
		m := srv.adminOK(http.MethodPatch, path("discord"), tok, `{"component_ids": [4, 2]}`, 200)
		assertJSON(t, "after PATCH component_ids", []any{m["component_ids"], m["state"]}, []any{[]int64{4, 2}, "active"})
		m = srv.adminOK(http.MethodPatch, path("discord"), tok, `{"component_ids": [1], "state": "active"}`, 200)
		assertJSON(t, "after PATCH back", []any{m["component_ids"], m["state"]}, []any{[]int64{1}, "active"})
		subRefuse(t, srv, tok, http.MethodPatch, path("discord"), `{"state": "quarantined"}`, 422, "invalid_field", "state", "only active")
		subRefuse(t, srv, tok, http.MethodPatch, path("discord"), `{"state": "unsubscribed"}`, 422, "invalid_field", "state")
		subRefuse(t, srv, tok, http.MethodPatch, path("discord"), `{"address": "https://discord.com/api/webhooks/2/x"}`, 422, "invalid_field", "address", "cannot be changed")
		subRefuse(t, srv, tok, http.MethodPatch, path("discord"), `{"channel": "slack"}`, 422, "invalid_field", "channel")
		subRefuse(t, srv, tok, http.MethodPatch, path("discord"), `{"component_ids": [5]}`, 422, "invalid_field", "5")
		subRefuse(t, srv, tok, http.MethodPatch, "/subscribers/999", `{"component_ids": []}`, 404, "not_found")
		subRefuse(t, srv, tok, http.MethodPatch, "/subscribers/x", `{"component_ids": []}`, 400, "invalid_parameter")
		// A pending address becomes active only by confirming.
		subRefuse(t, srv, tok, http.MethodPatch, path("bob"), `{"state": "active"}`, 422, "invalid_transition", "pending", "confirmed: true")

		// Quarantined (after failing), and unsubscribed (by a 410 or by
		// its owner): set so through the store, as the sender would.
		set := func(name string, state statusd.SubscriberState) {
			t.Helper()
			_, err := st.Subscribers().Change(ctx, ids[name], func(s *statusd.Subscriber) error {
				s.State, s.Failures, s.FailingSince = state, 12, new(time.Now().Add(-2*time.Hour))
				return nil
			}, nil)
			if err != nil {
				t.Fatal(err)
			}
		}
		set("hook", statusd.SubscriberQuarantined)
		set("teams", statusd.SubscriberUnsubscribed)
		set("ann", statusd.SubscriberUnsubscribed)
		for _, name := range []string{"hook", "teams"} {
			if m := srv.adminOK(http.MethodPatch, path(name), tok, `{"state": "active"}`, 200); m["state"] != "active" {
				t.Errorf("%s set active: %v", name, m)
			}
			s, err := st.Subscribers().Get(ctx, ids[name])
			if err != nil || s.Failures != 0 || s.FailingSince != nil {
				t.Errorf("%s set active keeps its failures: %+v %v", name, s, err)
			}
		}
		subRefuse(t, srv, tok, http.MethodPatch, path("ann"), `{"state": "active"}`, 422, "invalid_transition", "unsubscribed")
		// Its components still change.
		if m := srv.adminOK(http.MethodPatch, path("ann"), tok, `{"component_ids": []}`, 200); m["state"] != "unsubscribed" {
			t.Errorf("ann after PATCH component_ids: %v", m)
		}
		set("ann", statusd.SubscriberActive)
		srv.adminOK(http.MethodPatch, path("ann"), tok, `{"component_ids": [2]}`, 200)
	})

	step(t, "notice writes are sent to their followers, unless notify is false", func(t *testing.T) {
		srv := srv.in(t)
		subExpand(t, st)
		post := func(path, body string) map[string]any {
			t.Helper()
			return srv.adminOK(http.MethodPost, path, tok, body, 201)
		}
		lastUpdate := func(n map[string]any) int64 {
			t.Helper()
			u := at(t, n, "updates").([]any)
			return int64(at(t, u[len(u)-1], "id").(float64))
		}
		quiet := post("/notices", `{"type": "unplanned", "subject": "Quiet", "content": "Shh.", "component_ids": [2], "notify": false}`)
		loud := post("/notices", `{"type": "unplanned", "subject": "Loud", "content": "Errors.", "component_ids": [2], "notify": true}`)
		q, l := int64(at(t, quiet, "id").(float64)), int64(at(t, loud, "id").(float64))
		created := lastUpdate(loud)
		lp := fmt.Sprintf("/notices/%d", l)
		post(lp+"/updates", `{"content": "Found it.", "state": "identified", "notify": false}`)
		u2 := lastUpdate(post(lp+"/updates", `{"content": "Fixed.", "state": "resolved"}`))
		post(lp+"/reopen", `{"content": "Back.", "notify": false}`)
		post(lp+"/updates", `{"content": "Fixed again.", "state": "resolved", "notify": false}`)
		u5 := lastUpdate(post(lp+"/reopen", `{"content": "Back again."}`))
		// Edits and deletions send nothing; an edit says so when asked to.
		subRefuse(t, srv, tok, http.MethodPatch, lp, `{"subject": "Louder", "notify": true}`, 422, "invalid_field", "notify")
		srv.adminOK(http.MethodPatch, lp, tok, `{"subject": "Louder", "component_ids": [2, 4]}`, 200)
		srv.adminOK(http.MethodDelete, fmt.Sprintf("/notices/%d", q), tok, "", 204)
		// The tree: a notice on Replica 4 is for Replica's and Database's
		// followers; one without components for every active subscriber.
		replica := post("/notices", `{"type": "planned", "subject": "Replica upgrade", "content": "Soon.", "component_ids": [4],
			"begins_at": "2030-01-01T00:00:00Z", "ends_at": "2030-01-01T01:00:00Z"}`)
		hello := post("/notices", `{"type": "general", "subject": "Hello", "content": "Hi."}`)
		subExpand(t, st)

		// ann follows API 2; bob is pending; hook Database 3; slack the
		// whole page; teams Replica 4; discord Website 1.
		all := subDeliveries(t, adm, statusd.DeliveryFilter{})
		ann, hook, slack, teams, discord := ids["ann"], ids["hook"], ids["slack"], ids["teams"], ids["discord"]
		assertJSON(t, "sent for notify: false", subSent(all, q), []string{})
		assertJSON(t, "sent for the loud incident", subSent(all, l), subSorted(subLines(statusd.NoticeCreated, created, ann, slack),
			subLines(statusd.NoticeUpdated, u2, ann, slack), subLines(statusd.NoticeUpdated, u5, ann, slack)))
		assertJSON(t, "sent for the maintenance on Replica", subSent(all, int64(at(t, replica, "id").(float64))),
			subSorted(subLines(statusd.NoticeCreated, lastUpdate(replica), hook, slack, teams)))
		assertJSON(t, "sent for the announcement", subSent(all, int64(at(t, hello, "id").(float64))),
			subSorted(subLines(statusd.NoticeCreated, lastUpdate(hello), ann, hook, slack, teams, discord)))

		// A delivery as the log shows it, and the filters. ann is an
		// email subscriber and this server has no --smtp-url: the
		// worker drops each of ann's 4 (failed, no attempt counted).
		subSettled(t, adm, statusd.DeliveryFilter{SubscriberID: ann}, func(ds []statusd.AdminDelivery) bool {
			return len(ds) == 4 && !slices.ContainsFunc(ds, func(d statusd.AdminDelivery) bool { return d.State != string(statusd.DeliveryFailed) })
		})
		r := srv.adminOK(http.MethodGet, fmt.Sprintf("/deliveries?subscriber_id=%d&state=failed", ann), tok, "", 200)
		list := at(t, r, "deliveries").([]any)
		if len(list) != 4 || at(t, r, "meta.total_count") != 4.0 || at(t, r, "meta.next_page") != nil {
			t.Fatalf("ann's failed deliveries: %v", r)
		}
		d := list[0].(map[string]any)
		assertJSON(t, "ann's newest delivery", d, obj{"id": d["id"], "subscriber_id": ann, "state": "failed",
			"event":    obj{"id": at(t, d, "event.id"), "kind": "notice.created", "notice_id": at(t, hello, "id"), "update_id": lastUpdate(hello)},
			"attempts": 0, "last_status": nil, "last_error": "dropped: email is off: statusd runs without an SMTP server (--smtp-url)",
			"next_attempt_at": nil, "delivered_at": nil,
			"created_at": d["created_at"]})
		// Failed: ann's 4 and pending bob's confirmation, dropped alike.
		for state, want := range map[string]int{"delivered": 0, "failed": 5} {
			if r, err := adm.Deliveries(ctx, statusd.DeliveryFilter{State: statusd.DeliveryState(state)}, 1); err != nil || r.Meta.TotalCount != want {
				t.Errorf("%s deliveries: %v %v, want %d", state, r, err, want)
			}
		}
		for _, q := range []string{"?state=sent", "?subscriber_id=abc", "?subscriber_id=0", "?subscriber_id=-1", "?page=0", "?page=x"} {
			assertError(t, "GET /deliveries"+q, srv.admin(http.MethodGet, admPrefix+"/deliveries"+q, tok, ""), 400, "invalid_parameter")
		}
		if r, err := adm.Deliveries(ctx, statusd.DeliveryFilter{SubscriberID: 999}, 1); err != nil || r.Meta.TotalCount != 0 || len(r.Deliveries) != 0 {
			t.Errorf("deliveries of no subscriber: %v %v", r, err)
		}
	})

	step(t, "a test message is sent now, and answers its delivery", func(t *testing.T) {
		// To a receiver on 127.0.0.1: a server of its own, with
		// --allow-private-targets (this one refuses such addresses).
		local := startServer(t, subDoc(), "--allow-private-targets").in(t)
		ltok := newToken(t, local.DB, "ops")
		recv := startReceiver(t)
		m := local.adminOK(http.MethodPost, "/subscribers", ltok, `{"channel": "webhook", "address": "`+recv.URL+`/test"}`, 201)
		id := int64(at(t, m, "id").(float64))
		before := time.Now().Add(-time.Second)
		d := local.adminOK(http.MethodPost, fmt.Sprintf("/subscribers/%d/test", id), ltok, "", 201)
		delivered := at(t, d, "delivered_at")
		within(t, "the test's delivered_at", parseTS(t, delivered), before, time.Now())
		assertJSON(t, "the test's delivery", d, obj{"id": d["id"], "subscriber_id": id, "state": "delivered",
			"event":    obj{"id": at(t, d, "event.id"), "kind": "test", "notice_id": nil, "update_id": nil},
			"attempts": 1, "last_status": 204, "last_error": nil, "next_attempt_at": nil, "delivered_at": delivered,
			"created_at": d["created_at"]})
		got := recv.requests()
		if len(got) != 1 || got[0].Path != "/test" {
			t.Fatalf("the receiver got %d requests, want one POST to /test: %+v", len(got), got)
		}
		checkSigned(t, "the test message", got[0], at(t, m, "secret").(string))
		_, err := adm.TestSubscriber(ctx, 999)
		if !errors.Is(err, client.ErrNotFound) {
			t.Errorf("test of no subscriber: %v, want not_found", err)
		}
	})

	step(t, "a removed subscriber is gone with its deliveries", func(t *testing.T) {
		slack := ids["slack"]
		// Those of the loud incident (3), the maintenance and the
		// announcement.
		if n := len(subDeliveries(t, adm, statusd.DeliveryFilter{SubscriberID: slack})); n != 5 {
			t.Fatalf("slack has %d deliveries, want 5", n)
		}
		if err := adm.DeleteSubscriber(ctx, slack); err != nil {
			t.Fatal(err)
		}
		if _, err := adm.Subscriber(ctx, slack); !errors.Is(err, client.ErrNotFound) {
			t.Errorf("GET after DELETE: %v, want not_found", err)
		}
		if n := len(subDeliveries(t, adm, statusd.DeliveryFilter{SubscriberID: slack})); n != 0 {
			t.Errorf("%d deliveries left after DELETE, want none", n)
		}
		if err := adm.DeleteSubscriber(ctx, slack); !errors.Is(err, client.ErrNotFound) {
			t.Errorf("DELETE twice: %v, want not_found", err)
		}
		// Deleted, the address may subscribe again, as a new subscriber.
		m := create(t, "slack", `{"channel": "slack", "address": "https://hooks.slack.com/services/T0/B0/xyz"}`)
		if id := int64(at(t, m, "id").(float64)); id == slack {
			t.Errorf("the new subscriber has the deleted one's id %d", id)
		}
	})

	step(t, "the list filters by channel and state, 25 a page", func(t *testing.T) {
		srv := srv.in(t)
		for i := range 24 {
			create(t, fmt.Sprintf("page%d", i), fmt.Sprintf(`{"channel": "webhook", "address": "https://hooks.example.com/page/%d"}`, i))
		}
		// ann bob hook teams discord slack, and 24 webhooks: 30; 25 webhooks.
		all, err := adm.Subscribers(ctx, statusd.SubscriberFilter{}, 1)
		if err != nil {
			t.Fatal(err)
		}
		if all.Meta.Count != 25 || all.Meta.TotalCount != 30 || all.Meta.NextPage == nil || *all.Meta.NextPage != "/admin/api/v1/subscribers?page=2" {
			t.Fatalf("page 1 meta %+v", all.Meta)
		}
		for i := 1; i < len(all.Subscribers); i++ {
			if all.Subscribers[i].ID <= all.Subscribers[i-1].ID {
				t.Fatalf("the subscribers are not by id: %d after %d", all.Subscribers[i].ID, all.Subscribers[i-1].ID)
			}
		}
		r := srv.adminOK(http.MethodGet, "/subscribers?page=2", tok, "", 200)
		assertJSON(t, "page 2 meta", r["meta"], obj{"count": 5, "total_count": 30, "next_page": nil})
		if r := srv.adminOK(http.MethodGet, "/subscribers?page=3", tok, "", 200); len(at(t, r, "subscribers").([]any)) != 0 {
			t.Errorf("page 3: %v", r)
		}
		hooks := srv.adminOK(http.MethodGet, "/subscribers?channel=webhook", tok, "", 200)
		assertJSON(t, "webhooks meta", hooks["meta"], obj{"count": 25, "total_count": 25, "next_page": nil})
		for _, s := range at(t, hooks, "subscribers").([]any) {
			if at(t, s, "channel") != "webhook" || s.(map[string]any)["secret"] != nil {
				t.Errorf("in the webhook list: %v", s)
			}
		}
		active := srv.adminOK(http.MethodGet, "/subscribers?channel=webhook&state=active&page=1", tok, "", 200)
		assertJSON(t, "active webhooks meta", active["meta"], obj{"count": 25, "total_count": 25, "next_page": nil})
		for i := range 2 {
			create(t, fmt.Sprintf("more%d", i), fmt.Sprintf(`{"channel": "webhook", "address": "https://hooks.example.com/more/%d"}`, i))
		}
		active = srv.adminOK(http.MethodGet, "/subscribers?state=active&channel=webhook", tok, "", 200)
		assertJSON(t, "27 active webhooks meta", active["meta"], obj{"count": 25, "total_count": 27,
			"next_page": "/admin/api/v1/subscribers?channel=webhook&page=2&state=active"})
		pending, err := adm.Subscribers(ctx, statusd.SubscriberFilter{State: statusd.SubscriberPending}, 0)
		if err != nil || len(pending.Subscribers) != 1 || pending.Subscribers[0].ID != ids["bob"] {
			t.Errorf("pending subscribers: %+v %v, want bob alone", pending, err)
		}
		for _, q := range []string{"?channel=sms", "?state=gone", "?page=0", "?page=-1", "?channel=Email"} {
			assertError(t, "GET /subscribers"+q, srv.admin(http.MethodGet, admPrefix+"/subscribers"+q, tok, ""), 400, "invalid_parameter")
		}
	})

	step(t, "other methods are 405, no token 401", func(t *testing.T) {
		srv := srv.in(t)
		for _, c := range []struct{ method, path, allow string }{
			{http.MethodPut, "/subscribers", "GET, POST"},
			{http.MethodPost, "/subscribers/1", "GET, PATCH, DELETE"},
			{http.MethodGet, "/subscribers/1/test", "POST"},
			{http.MethodPost, "/deliveries", "GET"},
		} {
			r := srv.admin(c.method, admPrefix+c.path, tok, "")
			assertError(t, c.method+" "+c.path, r, 405, "method_not_allowed")
			if got := r.Header.Get("Allow"); got != c.allow {
				t.Errorf("%s %s: Allow %q, want %q", c.method, c.path, got, c.allow)
			}
		}
		assertError(t, "subscribers without a token", srv.admin(http.MethodGet, admPrefix+"/subscribers", "", ""), 401, "unauthorized")
		assertError(t, "deliveries without a token", srv.admin(http.MethodGet, admPrefix+"/deliveries", "", ""), 401, "unauthorized")
	})

	step(t, "the audit log names the actor and the subscriber, never the address", func(t *testing.T) {
		var entries []statusd.AdminAuditEntry
		for page := 1; ; page++ {
			a, err := adm.Audit(ctx, page)
			if err != nil {
				t.Fatal(err)
			}
			entries = append(entries, a.Audit...)
			if a.Meta.NextPage == nil {
				break
			}
		}
		counts := map[string]int{}
		for _, e := range entries {
			for _, addr := range addresses {
				if strings.Contains(e.Detail, addr) || strings.Contains(e.Target, addr) {
					t.Errorf("the audit entry %+v names the address %s", e, addr)
				}
			}
			if strings.Contains(e.Detail, "example.com") || strings.Contains(e.Detail, "@") {
				t.Errorf("the audit entry %+v names an address", e)
			}
			if !strings.HasPrefix(e.Action, "subscriber.") {
				continue
			}
			counts[e.Action]++
			if e.Actor != "ops" || !regexp.MustCompile(`^subscriber [1-9][0-9]*$`).MatchString(e.Target) {
				t.Errorf("audit entry %+v, want actor ops and the subscriber as target", e)
			}
		}
		// 6 + 1 (another channel) + 1 (again after the delete) + 24 + 2
		// created; 2 deleted; discord, hook, teams and ann changed, 6
		// times in all; no test was sent.
		assertJSON(t, "subscriber actions in the audit log", counts, obj{"subscriber.create": 34, "subscriber.delete": 2, "subscriber.update": 6})
		want := fmt.Sprintf("subscriber %d", ids["bob"])
		for _, e := range entries {
			if e.Action == "subscriber.create" && e.Target == want {
				if e.Detail != "email subscriber, pending, following the whole page; confirmation sent" {
					t.Errorf("bob's creation detail %q", e.Detail)
				}
				return
			}
		}
		t.Errorf("no subscriber.create entry for %s", want)
	})
}
