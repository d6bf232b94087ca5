package statusd

import (
	"reflect"
	"strings"
	"testing"
)

// c5Subscribers are three valid subscribers of c5BaseDoc's components:
// an email address on API EU (2), a webhook with its secret, and a Slack
// channel without state or components (active, the whole page).
func c5Subscribers() []any {
	return []any{
		c5obj{"id": 1, "channel": "email", "address": "ops@example.com", "component_ids": []any{2},
			"state": "pending", "created_at": "2026-01-05T00:00:00.000Z"},
		c5obj{"id": 4, "channel": "webhook", "address": "https://hooks.example.com/statusd", "component_ids": []any{},
			"state": "quarantined", "secret": "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "created_at": "2026-01-06T00:00:00.000Z"},
		c5obj{"id": 2, "channel": "slack", "address": "https://hooks.slack.com/services/T0/B0/x",
			"created_at": "2026-01-07T00:00:00.000Z"},
	}
}

func c5Subscriber(d c5obj, i int) c5obj { return d["subscribers"].([]any)[i].(c5obj) }

func TestDecodeDocumentSubscribers(t *testing.T) {
	doc := c5MustDecode(t, c5Mutate(t, func(d c5obj) { d["subscribers"] = c5Subscribers() }))
	want := []Subscriber{
		{ID: 1, Channel: Email, Address: "ops@example.com", ComponentIDs: []int64{2}, State: SubscriberPending,
			CreatedAt: c5Time("2026-01-05T00:00:00Z"), UpdatedAt: c5Time("2026-01-05T00:00:00Z")},
		{ID: 4, Channel: Webhook, Address: "https://hooks.example.com/statusd", ComponentIDs: []int64{}, State: SubscriberQuarantined,
			Secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", CreatedAt: c5Time("2026-01-06T00:00:00Z"), UpdatedAt: c5Time("2026-01-06T00:00:00Z")},
		{ID: 2, Channel: Slack, Address: "https://hooks.slack.com/services/T0/B0/x", ComponentIDs: []int64{}, State: SubscriberActive,
			CreatedAt: c5Time("2026-01-07T00:00:00Z"), UpdatedAt: c5Time("2026-01-07T00:00:00Z")},
	}
	if !reflect.DeepEqual(doc.Subscribers, want) {
		t.Errorf("subscribers:\ngot  %+v\nwant %+v", doc.Subscribers, want)
	}
	back, enc := c5RoundTrip(t, doc)
	if !reflect.DeepEqual(back, doc) {
		t.Errorf("round trip differs:\ngot  %+v\nwant %+v\nencoded:\n%s", back.Subscribers, doc.Subscribers, enc)
	}
	if !strings.Contains(enc, `"secret": "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"`) || strings.Count(enc, `"secret"`) != 1 {
		t.Errorf("the encoding carries the webhook's secret, and no other:\n%s", enc)
	}

	// Absent or null: nil (the store's subscribers are kept). Empty: an
	// empty list (they are removed), which encodes as one.
	for name, edit := range map[string]func(c5obj){
		"absent": func(c5obj) {},
		"null":   func(d c5obj) { d["subscribers"] = nil },
	} {
		if doc := c5MustDecode(t, c5Mutate(t, edit)); doc.Subscribers != nil {
			t.Errorf("subscribers %s: %+v, want nil", name, doc.Subscribers)
		}
	}
	empty := c5MustDecode(t, c5Mutate(t, func(d c5obj) { d["subscribers"] = []any{} }))
	if empty.Subscribers == nil || len(empty.Subscribers) != 0 {
		t.Errorf("subscribers []: %#v, want an empty list", empty.Subscribers)
	}
	if back, enc := c5RoundTrip(t, empty); back.Subscribers == nil || !strings.Contains(enc, `"subscribers": []`) {
		t.Errorf("an empty list does not encode as one:\n%s", enc)
	}
	if _, enc := c5RoundTrip(t, c5MustDecode(t, c5BaseDoc)); strings.Contains(enc, "subscribers") {
		t.Errorf("a document without subscribers encodes them:\n%s", enc)
	}
}

func TestDecodeDocumentSubscriberRules(t *testing.T) {
	cases := []struct {
		name string
		edit func(d c5obj)
		want c5Want
	}{
		{"not an array", func(d c5obj) { d["subscribers"] = c5obj{} }, c5Want{"subscribers", "must be an array"}},
		{"not an object", func(d c5obj) { d["subscribers"].([]any)[1] = "ops@example.com" }, c5Want{"subscribers[1]", "must be an object"}},
		{"unknown key", func(d c5obj) { c5Subscriber(d, 0)["token"] = "x" }, c5Want{"subscribers[0].token", "unknown key"}},
		{"id missing", func(d c5obj) { delete(c5Subscriber(d, 2), "id") }, c5Want{"subscribers[2].id", "is required"}},
		{"id zero", func(d c5obj) { c5Subscriber(d, 0)["id"] = 0 }, c5Want{"subscribers[0].id", "must be a positive integer"}},
		{"id twice", func(d c5obj) { c5Subscriber(d, 2)["id"] = 1 }, c5Want{"subscribers[2].id", "1 is used by another subscriber"}},
		{"channel missing", func(d c5obj) { delete(c5Subscriber(d, 0), "channel") }, c5Want{"subscribers[0].channel", "is required"}},
		{"channel unknown", func(d c5obj) { c5Subscriber(d, 0)["channel"] = "sms" }, c5Want{"subscribers[0].channel", `"sms" is not a channel`}},
		{"address missing", func(d c5obj) { delete(c5Subscriber(d, 1), "address") }, c5Want{"subscribers[1].address", "is required"}},
		{"email address invalid", func(d c5obj) { c5Subscriber(d, 0)["address"] = "Ops <ops@example.com>" },
			c5Want{"subscribers[0].address", "is not an email address"}},
		{"webhook address not a URL", func(d c5obj) { c5Subscriber(d, 1)["address"] = "hooks.example.com/x" },
			c5Want{"subscribers[1].address", "not an absolute URL"}},
		{"webhook address not http", func(d c5obj) { c5Subscriber(d, 2)["address"] = "ftp://hooks.example.com/x" },
			c5Want{"subscribers[2].address", "must be https"}},
		{"address twice on a channel", func(d c5obj) {
			c5Subscriber(d, 2)["channel"] = "webhook"
			c5Subscriber(d, 2)["address"] = "https://hooks.example.com/statusd"
		}, c5Want{"subscribers[2].address", "another webhook subscriber has the address https://hooks.example.com/statusd"}},
		{"component missing", func(d c5obj) { c5Subscriber(d, 0)["component_ids"] = []any{2, 99} },
			c5Want{"subscribers[0].component_ids[1]", "no component has id 99"}},
		{"component twice", func(d c5obj) { c5Subscriber(d, 0)["component_ids"] = []any{2, 2} },
			c5Want{"subscribers[0].component_ids[1]", "component 2 is listed twice"}},
		{"component not an integer", func(d c5obj) { c5Subscriber(d, 0)["component_ids"] = []any{"2"} },
			c5Want{"subscribers[0].component_ids[0]", "must be an integer"}},
		{"state unknown", func(d c5obj) { c5Subscriber(d, 0)["state"] = "confirmed" },
			c5Want{"subscribers[0].state", `"confirmed" is not a subscriber state`}},
		{"secret on email", func(d c5obj) { c5Subscriber(d, 0)["secret"] = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw" },
			c5Want{"subscribers[0].secret", "only webhook subscribers have a secret"}},
		{"secret malformed", func(d c5obj) { c5Subscriber(d, 1)["secret"] = "hunter2" },
			c5Want{"subscribers[1].secret", "must be whsec_"}},
		{"secret empty key", func(d c5obj) { c5Subscriber(d, 1)["secret"] = "whsec_" },
			c5Want{"subscribers[1].secret", "must be whsec_"}},
		{"created_at missing", func(d c5obj) { delete(c5Subscriber(d, 2), "created_at") },
			c5Want{"subscribers[2].created_at", "is required"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			doc := c5Mutate(t, func(d c5obj) {
				d["subscribers"] = c5Subscribers()
				c.edit(d)
			})
			got := c5Problems(t, doc)
			c5CheckProblems(t, got, c.want)
			if len(got) != 1 {
				t.Errorf("%d problems, want only the one:\n%s", len(got), (&ValidationError{got}).Error())
			}
		})
	}
	// Import is an operator's act: private targets, and http, are allowed.
	doc := c5MustDecode(t, c5Mutate(t, func(d c5obj) {
		d["subscribers"] = c5Subscribers()
		c5Subscriber(d, 1)["address"] = "http://10.0.0.7:8080/hook"
	}))
	if got := doc.Subscribers[1].Address; got != "http://10.0.0.7:8080/hook" {
		t.Errorf("private webhook address %q", got)
	}
}
