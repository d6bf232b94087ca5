package server_test

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
	"github.com/statusd/statusd/internal/testserver"
)

// subRefuse sends a request that must be refused with status and code,
// with a message containing each of inMsg, and checks that it wrote
// nothing: no subscriber, no audit entry.
func subRefuse(t *testing.T, srv *testserver.Server, tok, method, path, body string, status int, code string, inMsg ...string) {
	t.Helper()
	adm := srv.Admin(tok)
	count := func() int {
		r, err := adm.Subscribers(context.Background(), statusd.SubscriberFilter{}, 1)
		if err != nil {
			t.Fatal(err)
		}
		return r.Meta.TotalCount
	}
	subs, audit := count(), srv.AuditTotal(tok)
	what := fmt.Sprintf("%s %s %s", method, path, body)
	r := srv.Authed(method, testserver.AdminRoot+path, tok, body)
	testserver.AssertError(t, what, r, status, code)
	for _, s := range inMsg {
		if msg := testserver.ErrorMessage(r); !strings.Contains(msg, s) {
			t.Errorf("%s: message %q does not say %q", what, msg, s)
		}
	}
	if got := count(); got != subs {
		t.Errorf("%s: refused, yet the subscribers went from %d to %d", what, subs, got)
	}
	if got := srv.AuditTotal(tok); got != audit {
		t.Errorf("%s: refused, yet it wrote %v audit entries", what, got-audit)
	}
}

func TestAdminSubscribers(t *testing.T) {
	ctx := context.Background()
	srv := startServer(t, testserver.SubDoc(), options{retryBase: time.Hour})
	tok := newToken(t, srv.DB, "ops")
	adm := srv.Admin(tok)
	st := testserver.OpenStore(t, srv.DB)
	ids := map[string]int64{}        // the subscribers made, by name
	addresses := map[string]string{} // and their addresses
	create := func(t *testing.T, name, body string) map[string]any {
		t.Helper()
		m := srv.In(t).AdminOK(http.MethodPost, "/subscribers", tok, body, 201)
		ids[name] = int64(testserver.At(t, m, "id").(float64))
		addresses[name] = testserver.At(t, m, "address").(string)
		return m
	}

	testserver.Step(t, "every channel is added; a webhook's secret is shown once; an unconfirmed address is asked to confirm", func(t *testing.T) {
		srv := srv.In(t)
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
			created := testserver.At(t, m, "created_at")
			testserver.Within(t, c.name+" created_at", testserver.ParseTS(t, created), before, time.Now())
			want := testserver.Obj{"id": ids[c.name], "channel": c.channel, "address": c.address, "component_ids": c.components,
				"state": c.state, "created_at": created, "updated_at": testserver.At(t, m, "updated_at")}
			if c.channel == "webhook" {
				// The secret, this once.
				secret, _ := m["secret"].(string)
				if !testserver.SecretPattern.MatchString(secret) {
					t.Errorf("webhook secret %q, want whsec_ and the base64 of 32 bytes", secret)
				}
				want["secret"] = secret
			}
			testserver.AssertJSON(t, c.name+" created", m, want)
			delete(want, "secret")
			testserver.AssertJSON(t, c.name+" read", srv.AdminOK(http.MethodGet, fmt.Sprintf("/subscribers/%d", ids[c.name]), tok, "", 200), want)
		}
		// The unconfirmed address, and only it, is asked to confirm.
		testserver.SubExpand(t, st)
		var kinds []string
		for _, d := range testserver.SubDeliveries(t, adm, statusd.DeliveryFilter{}) {
			kinds = append(kinds, fmt.Sprintf("%s %d %v %v", d.Event.Kind, d.SubscriberID, d.Event.NoticeID, d.Event.UpdateID))
		}
		testserver.AssertJSON(t, "the deliveries after the creations", kinds, []string{fmt.Sprintf("subscription.confirm %d <nil> <nil>", ids["bob"])})
	})

	testserver.Step(t, "bad subscribers are refused and write nothing", func(t *testing.T) {
		srv := srv.In(t)
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
		srv.AdminOK(http.MethodDelete, fmt.Sprintf("/subscribers/%d", ids["ann-slackless"]), tok, "", 204)
		delete(ids, "ann-slackless")
	})

	testserver.Step(t, "PATCH changes the components, and sets a subscriber active again when it may be", func(t *testing.T) {
		srv := srv.In(t)
		path := func(name string) string { return fmt.Sprintf("/subscribers/%d", ids[name]) }
		m := srv.AdminOK(http.MethodPatch, path("discord"), tok, `{"component_ids": [4, 2]}`, 200)
		testserver.AssertJSON(t, "after PATCH component_ids", []any{m["component_ids"], m["state"]}, []any{[]int64{4, 2}, "active"})
		m = srv.AdminOK(http.MethodPatch, path("discord"), tok, `{"component_ids": [1], "state": "active"}`, 200)
		testserver.AssertJSON(t, "after PATCH back", []any{m["component_ids"], m["state"]}, []any{[]int64{1}, "active"})
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
			if m := srv.AdminOK(http.MethodPatch, path(name), tok, `{"state": "active"}`, 200); m["state"] != "active" {
				t.Errorf("%s set active: %v", name, m)
			}
			s, err := st.Subscribers().Get(ctx, ids[name])
			if err != nil || s.Failures != 0 || s.FailingSince != nil {
				t.Errorf("%s set active keeps its failures: %+v %v", name, s, err)
			}
		}
		subRefuse(t, srv, tok, http.MethodPatch, path("ann"), `{"state": "active"}`, 422, "invalid_transition", "unsubscribed")
		// Its components still change.
		if m := srv.AdminOK(http.MethodPatch, path("ann"), tok, `{"component_ids": []}`, 200); m["state"] != "unsubscribed" {
			t.Errorf("ann after PATCH component_ids: %v", m)
		}
		set("ann", statusd.SubscriberActive)
		srv.AdminOK(http.MethodPatch, path("ann"), tok, `{"component_ids": [2]}`, 200)
	})

	testserver.Step(t, "notice writes are sent to their followers, unless notify is false", func(t *testing.T) {
		srv := srv.In(t)
		testserver.SubExpand(t, st)
		post := func(path, body string) map[string]any {
			t.Helper()
			return srv.AdminOK(http.MethodPost, path, tok, body, 201)
		}
		lastUpdate := func(n map[string]any) int64 {
			t.Helper()
			u := testserver.At(t, n, "updates").([]any)
			return int64(testserver.At(t, u[len(u)-1], "id").(float64))
		}
		quiet := post("/notices", `{"type": "unplanned", "subject": "Quiet", "content": "Shh.", "component_ids": [2], "notify": false}`)
		loud := post("/notices", `{"type": "unplanned", "subject": "Loud", "content": "Errors.", "component_ids": [2], "notify": true}`)
		q, l := int64(testserver.At(t, quiet, "id").(float64)), int64(testserver.At(t, loud, "id").(float64))
		created := lastUpdate(loud)
		lp := fmt.Sprintf("/notices/%d", l)
		post(lp+"/updates", `{"content": "Found it.", "state": "identified", "notify": false}`)
		u2 := lastUpdate(post(lp+"/updates", `{"content": "Fixed.", "state": "resolved"}`))
		post(lp+"/reopen", `{"content": "Back.", "notify": false}`)
		post(lp+"/updates", `{"content": "Fixed again.", "state": "resolved", "notify": false}`)
		u5 := lastUpdate(post(lp+"/reopen", `{"content": "Back again."}`))
		// Edits and deletions send nothing; an edit says so when asked to.
		subRefuse(t, srv, tok, http.MethodPatch, lp, `{"subject": "Louder", "notify": true}`, 422, "invalid_field", "notify")
		srv.AdminOK(http.MethodPatch, lp, tok, `{"subject": "Louder", "component_ids": [2, 4]}`, 200)
		srv.AdminOK(http.MethodDelete, fmt.Sprintf("/notices/%d", q), tok, "", 204)
		// The tree: a notice on Replica 4 is for Replica's and Database's
		// followers; one without components for every active subscriber.
		replica := post("/notices", `{"type": "planned", "subject": "Replica upgrade", "content": "Soon.", "component_ids": [4],
			"begins_at": "2030-01-01T00:00:00Z", "ends_at": "2030-01-01T01:00:00Z"}`)
		hello := post("/notices", `{"type": "general", "subject": "Hello", "content": "Hi."}`)
		testserver.SubExpand(t, st)

		// ann follows API 2; bob is pending; hook Database 3; slack the
		// whole page; teams Replica 4; discord Website 1.
		all := testserver.SubDeliveries(t, adm, statusd.DeliveryFilter{})
		ann, hook, slack, teams, discord := ids["ann"], ids["hook"], ids["slack"], ids["teams"], ids["discord"]
		testserver.AssertJSON(t, "sent for notify: false", testserver.SubSent(all, q), []string{})
		testserver.AssertJSON(t, "sent for the loud incident", testserver.SubSent(all, l), testserver.SubSorted(testserver.SubLines(statusd.NoticeCreated, created, ann, slack),
			testserver.SubLines(statusd.NoticeUpdated, u2, ann, slack), testserver.SubLines(statusd.NoticeUpdated, u5, ann, slack)))
		testserver.AssertJSON(t, "sent for the maintenance on Replica", testserver.SubSent(all, int64(testserver.At(t, replica, "id").(float64))),
			testserver.SubSorted(testserver.SubLines(statusd.NoticeCreated, lastUpdate(replica), hook, slack, teams)))
		testserver.AssertJSON(t, "sent for the announcement", testserver.SubSent(all, int64(testserver.At(t, hello, "id").(float64))),
			testserver.SubSorted(testserver.SubLines(statusd.NoticeCreated, lastUpdate(hello), ann, hook, slack, teams, discord)))

		// A delivery as the log shows it, and the filters. ann is an
		// email subscriber and this server has no --smtp-url: the
		// worker drops each of ann's 4 (failed, no attempt counted).
		testserver.SubSettled(t, adm, statusd.DeliveryFilter{SubscriberID: ann}, func(ds []statusd.AdminDelivery) bool {
			return len(ds) == 4 && !slices.ContainsFunc(ds, func(d statusd.AdminDelivery) bool { return d.State != string(statusd.DeliveryFailed) })
		})
		r := srv.AdminOK(http.MethodGet, fmt.Sprintf("/deliveries?subscriber_id=%d&state=failed", ann), tok, "", 200)
		list := testserver.At(t, r, "deliveries").([]any)
		if len(list) != 4 || testserver.At(t, r, "meta.total_count") != 4.0 || testserver.At(t, r, "meta.next_page") != nil {
			t.Fatalf("ann's failed deliveries: %v", r)
		}
		d := list[0].(map[string]any)
		testserver.AssertJSON(t, "ann's newest delivery", d, testserver.Obj{"id": d["id"], "subscriber_id": ann, "state": "failed",
			"event":    testserver.Obj{"id": testserver.At(t, d, "event.id"), "kind": "notice.created", "notice_id": testserver.At(t, hello, "id"), "update_id": lastUpdate(hello)},
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
			testserver.AssertError(t, "GET /deliveries"+q, srv.Authed(http.MethodGet, testserver.AdminRoot+"/deliveries"+q, tok, ""), 400, "invalid_parameter")
		}
		if r, err := adm.Deliveries(ctx, statusd.DeliveryFilter{SubscriberID: 999}, 1); err != nil || r.Meta.TotalCount != 0 || len(r.Deliveries) != 0 {
			t.Errorf("deliveries of no subscriber: %v %v", r, err)
		}
	})

	testserver.Step(t, "a test message is sent now, and answers its delivery", func(t *testing.T) {
		// To a receiver on 127.0.0.1: a server of its own, with
		// --allow-private-targets (this one refuses such addresses).
		local := startServer(t, testserver.SubDoc(), options{allowPrivate: true}).In(t)
		ltok := newToken(t, local.DB, "ops")
		recv := testserver.StartReceiver(t)
		m := local.AdminOK(http.MethodPost, "/subscribers", ltok, `{"channel": "webhook", "address": "`+recv.URL+`/test"}`, 201)
		id := int64(testserver.At(t, m, "id").(float64))
		before := time.Now().Add(-time.Second)
		d := local.AdminOK(http.MethodPost, fmt.Sprintf("/subscribers/%d/test", id), ltok, "", 201)
		delivered := testserver.At(t, d, "delivered_at")
		testserver.Within(t, "the test's delivered_at", testserver.ParseTS(t, delivered), before, time.Now())
		testserver.AssertJSON(t, "the test's delivery", d, testserver.Obj{"id": d["id"], "subscriber_id": id, "state": "delivered",
			"event":    testserver.Obj{"id": testserver.At(t, d, "event.id"), "kind": "test", "notice_id": nil, "update_id": nil},
			"attempts": 1, "last_status": 204, "last_error": nil, "next_attempt_at": nil, "delivered_at": delivered,
			"created_at": d["created_at"]})
		got := recv.Requests()
		if len(got) != 1 || got[0].Path != "/test" {
			t.Fatalf("the receiver got %d requests, want one POST to /test: %+v", len(got), got)
		}
		testserver.CheckSigned(t, "the test message", got[0], testserver.At(t, m, "secret").(string))
		_, err := adm.TestSubscriber(ctx, 999)
		if !errors.Is(err, client.ErrNotFound) {
			t.Errorf("test of no subscriber: %v, want not_found", err)
		}
	})

	testserver.Step(t, "a removed subscriber is gone with its deliveries", func(t *testing.T) {
		slack := ids["slack"]
		// Those of the loud incident (3), the maintenance and the
		// announcement.
		if n := len(testserver.SubDeliveries(t, adm, statusd.DeliveryFilter{SubscriberID: slack})); n != 5 {
			t.Fatalf("slack has %d deliveries, want 5", n)
		}
		if err := adm.DeleteSubscriber(ctx, slack); err != nil {
			t.Fatal(err)
		}
		if _, err := adm.Subscriber(ctx, slack); !errors.Is(err, client.ErrNotFound) {
			t.Errorf("GET after DELETE: %v, want not_found", err)
		}
		if n := len(testserver.SubDeliveries(t, adm, statusd.DeliveryFilter{SubscriberID: slack})); n != 0 {
			t.Errorf("%d deliveries left after DELETE, want none", n)
		}
		if err := adm.DeleteSubscriber(ctx, slack); !errors.Is(err, client.ErrNotFound) {
			t.Errorf("DELETE twice: %v, want not_found", err)
		}
		// Deleted, the address may subscribe again, as a new subscriber.
		m := create(t, "slack", `{"channel": "slack", "address": "https://hooks.slack.com/services/T0/B0/xyz"}`)
		if id := int64(testserver.At(t, m, "id").(float64)); id == slack {
			t.Errorf("the new subscriber has the deleted one's id %d", id)
		}
	})

	testserver.Step(t, "the list filters by channel and state, 25 a page", func(t *testing.T) {
		srv := srv.In(t)
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
		r := srv.AdminOK(http.MethodGet, "/subscribers?page=2", tok, "", 200)
		testserver.AssertJSON(t, "page 2 meta", r["meta"], testserver.Obj{"count": 5, "total_count": 30, "next_page": nil})
		if r := srv.AdminOK(http.MethodGet, "/subscribers?page=3", tok, "", 200); len(testserver.At(t, r, "subscribers").([]any)) != 0 {
			t.Errorf("page 3: %v", r)
		}
		hooks := srv.AdminOK(http.MethodGet, "/subscribers?channel=webhook", tok, "", 200)
		testserver.AssertJSON(t, "webhooks meta", hooks["meta"], testserver.Obj{"count": 25, "total_count": 25, "next_page": nil})
		for _, s := range testserver.At(t, hooks, "subscribers").([]any) {
			if testserver.At(t, s, "channel") != "webhook" || s.(map[string]any)["secret"] != nil {
				t.Errorf("in the webhook list: %v", s)
			}
		}
		active := srv.AdminOK(http.MethodGet, "/subscribers?channel=webhook&state=active&page=1", tok, "", 200)
		testserver.AssertJSON(t, "active webhooks meta", active["meta"], testserver.Obj{"count": 25, "total_count": 25, "next_page": nil})
		for i := range 2 {
			create(t, fmt.Sprintf("more%d", i), fmt.Sprintf(`{"channel": "webhook", "address": "https://hooks.example.com/more/%d"}`, i))
		}
		active = srv.AdminOK(http.MethodGet, "/subscribers?state=active&channel=webhook", tok, "", 200)
		testserver.AssertJSON(t, "27 active webhooks meta", active["meta"], testserver.Obj{"count": 25, "total_count": 27,
			"next_page": "/admin/api/v1/subscribers?channel=webhook&page=2&state=active"})
		pending, err := adm.Subscribers(ctx, statusd.SubscriberFilter{State: statusd.SubscriberPending}, 0)
		if err != nil || len(pending.Subscribers) != 1 || pending.Subscribers[0].ID != ids["bob"] {
			t.Errorf("pending subscribers: %+v %v, want bob alone", pending, err)
		}
		for _, q := range []string{"?channel=sms", "?state=gone", "?page=0", "?page=-1", "?channel=Email"} {
			testserver.AssertError(t, "GET /subscribers"+q, srv.Authed(http.MethodGet, testserver.AdminRoot+"/subscribers"+q, tok, ""), 400, "invalid_parameter")
		}
	})

	testserver.Step(t, "other methods are 405, no token 401", func(t *testing.T) {
		srv := srv.In(t)
		for _, c := range []struct{ method, path, allow string }{
			{http.MethodPut, "/subscribers", "GET, POST"},
			{http.MethodPost, "/subscribers/1", "GET, PATCH, DELETE"},
			{http.MethodGet, "/subscribers/1/test", "POST"},
			{http.MethodPost, "/deliveries", "GET"},
		} {
			r := srv.Authed(c.method, testserver.AdminRoot+c.path, tok, "")
			testserver.AssertError(t, c.method+" "+c.path, r, 405, "method_not_allowed")
			if got := r.Header.Get("Allow"); got != c.allow {
				t.Errorf("%s %s: Allow %q, want %q", c.method, c.path, got, c.allow)
			}
		}
		testserver.AssertError(t, "subscribers without a token", srv.Authed(http.MethodGet, testserver.AdminRoot+"/subscribers", "", ""), 401, "unauthorized")
		testserver.AssertError(t, "deliveries without a token", srv.Authed(http.MethodGet, testserver.AdminRoot+"/deliveries", "", ""), 401, "unauthorized")
	})

	testserver.Step(t, "the audit log names the actor and the subscriber, never the address", func(t *testing.T) {
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
		testserver.AssertJSON(t, "subscriber actions in the audit log", counts, testserver.Obj{"subscriber.create": 34, "subscriber.delete": 2, "subscriber.update": 6})
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
