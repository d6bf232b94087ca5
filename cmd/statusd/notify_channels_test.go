package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/internal/testserver"
)

// chatAdd adds a subscriber with the CLI, as an operator does, and
// returns its id and the rest of what the CLI printed.
func chatAdd(t *testing.T, srv *testserver.Server, tok, channel, address string, extra ...string) (int64, string) {
	t.Helper()
	out := subCLIOK(t, srv, tok, append([]string{"subscriber", "add", "--channel", channel, "--address", address}, extra...)...)
	m := subMatch(t, "add "+channel, out, `^added `+channel+` subscriber (\d+) \(active\), following [^\n]+: `+regexp.QuoteMeta(address)+`\n((?s).*)$`)
	return subAtoi(t, m[0]), m[1]
}

// decodeBody decodes a request's JSON body, failing the test unless it is
// a JSON object.
func decodeBody(t *testing.T, what string, req testserver.Received) map[string]any {
	t.Helper()
	var body map[string]any
	if err := json.Unmarshal(req.Body, &body); err != nil {
		t.Fatalf("%s: the body is not a JSON object: %v\n%s", what, err, req.Body)
	}
	return body
}

// jsonStrings is every string value in a decoded JSON value, in any depth.
func jsonStrings(v any) []string {
	var out []string
	switch v := v.(type) {
	case string:
		out = append(out, v)
	case []any:
		for _, e := range v {
			out = append(out, jsonStrings(e)...)
		}
	case map[string]any:
		for _, e := range v {
			out = append(out, jsonStrings(e)...)
		}
	}
	return out
}

// shows fails unless one string value of body contains each of want: what
// a chat message must show (CONTRACT C7: subject, state, update text,
// components and link).
func shows(t *testing.T, what string, body any, want ...string) {
	t.Helper()
	all := jsonStrings(body)
	for _, w := range want {
		found := false
		for _, s := range all {
			found = found || strings.Contains(s, w)
		}
		if !found {
			t.Errorf("%s does not show %q: %v", what, w, all)
		}
	}
}

// TestNotifyChannels plays CONTRACT C7 item 2 through the real server and
// the CLI: an operator adds a Slack, a Teams, a Discord subscriber and a
// webhook, tests each, and each local receiver gets a message of its own
// format; a notice then reaches all four, and the receiver that answers
// 500 shows in the delivery log, from the CLI and the admin API.
func TestNotifyChannels(t *testing.T) {
	// --notify-retry-base 1h: the failed delivery is tried again after
	// the test, and its next attempt is known to within the jitter.
	srv := startServer(t, testserver.SubDoc(), "--allow-private-targets", "--notify-retry-base", "1h")
	tok := newToken(t, srv.DB, "ops")
	channels := []string{"slack", "teams", "discord", "webhook"}
	recv := map[string]*testserver.Receiver{}
	for _, ch := range channels {
		recv[ch] = testserver.StartReceiver(t)
	}
	ids := map[string]int64{}
	var secret string

	testserver.Step(t, "the operator adds a Slack, a Teams, a Discord subscriber and a webhook", func(t *testing.T) {
		for _, ch := range channels {
			var rest string
			ids[ch], rest = chatAdd(t, srv.In(t), tok, ch, recv[ch].URL+"/"+ch)
			if ch == "webhook" {
				secret = subMatch(t, "the webhook's secret", rest, `^secret: (whsec_\S+)\n`)[0]
			} else if rest != "" {
				t.Errorf("add %s printed more: %q", ch, rest)
			}
		}
	})

	testserver.Step(t, "a test message reaches each receiver in its own format", func(t *testing.T) {
		for _, ch := range channels {
			out := subCLIOK(t, srv.In(t), tok, "subscriber", "test", fmt.Sprint(ids[ch]))
			subMatch(t, "test "+ch, out, fmt.Sprintf(`^test message to subscriber %d: delivery \d+ delivered \(status 204\) at \S+Z\n$`, ids[ch]))
			got := recv[ch].Requests()
			if len(got) != 1 || got[0].Path != "/"+ch {
				t.Fatalf("the %s receiver got %d requests, want one to /%s", ch, len(got), ch)
			}
			body := decodeBody(t, "the "+ch+" test", got[0])
			switch ch {
			case "slack":
				if _, ok := body["text"].(string); !ok || len(body) != 2 || len(testserver.At(t, body, "blocks").([]any)) == 0 {
					t.Errorf("the Slack test is not text and blocks: %s", got[0].Body)
				}
			case "teams":
				checkTeams(t, body)
			case "discord":
				if _, ok := body["content"].(string); !ok || len(testserver.At(t, body, "embeds").([]any)) != 1 ||
					testserver.At(t, body, "embeds.0.url") != "https://status.sub.test/" {
					t.Errorf("the Discord test is not content and one embed linking to the page: %s", got[0].Body)
				}
			case "webhook":
				testserver.CheckSigned(t, "the webhook's test", got[0], secret)
				// A sample incident marked as a test (CONTRACT C7): id 0, a
				// subject that says so, the default impact (minor); the
				// page is the real one, with no incident: indicator none.
				const subject = "Test message from Sub Status (not an incident)"
				if body["event"] != "test" || testserver.At(t, body, "incident.id") != "0" || testserver.At(t, body, "incident.name") != subject ||
					testserver.At(t, body, "incident.status") != "investigating" || testserver.At(t, body, "incident.impact") != "minor" ||
					testserver.At(t, body, "notice.id") != float64(0) || testserver.At(t, body, "notice.subject") != subject ||
					testserver.At(t, body, "notice.type") != "unplanned" || testserver.At(t, body, "notice.state") != "investigating" ||
					testserver.At(t, body, "notice.updates.0.content") != "This is a test message from Sub Status: its notifications will come here." ||
					testserver.At(t, body, "page.status_indicator") != "none" {
					t.Errorf("the webhook's test: %s", got[0].Body)
				}
			}
			if ch != "webhook" {
				shows(t, "the "+ch+" test", body, "Sub Status")
			}
		}
	})

	var notice int64
	var posted time.Time
	testserver.Step(t, "an incident reaches each receiver, in its format", func(t *testing.T) {
		// Discord is down from now on: it answers 500.
		recv["discord"].Status.Store(http.StatusInternalServerError)
		out := subCLIOK(t, srv.In(t), tok, "incident", "open", "--component", "API", "--subject", "Checkout down", "-m", "Payments fail.")
		notice = subAtoi(t, subMatch(t, "incident open", out, `^opened incident (\d+) `)[0])
		n, err := srv.Admin(tok).Notice(context.Background(), notice)
		testserver.NoErr(t, "the incident", err)
		posted = n.Updates[0].CreatedAt.Time
		link := fmt.Sprintf("https://status.sub.test/notices/%d", notice)
		// CONTRACT C7's one line: [<page name>] <subject>: <state word>.
		const title = "[Sub Status] Checkout down: Investigating"
		for _, ch := range channels {
			// The webhook also gets API's component update: API (2, no
			// parent) goes from operational to degraded by an incident of
			// the default impact, minor; chat channels carry no
			// component updates (CONTRACT C7).
			n := 2
			if ch == "webhook" {
				n = 3
			}
			got := recv[ch].Wait(t, n)
			if len(got) != n {
				t.Fatalf("the %s receiver got %d requests, want the test, the incident (and for the webhook API's component update)", ch, len(got))
			}
			incident := got[1]
			if ch == "webhook" {
				// The incident and the component update arrive in any
				// order: each is known by its key.
				var update testserver.Received
				for _, r := range got[1:] {
					if _, ok := decodeBody(t, "a webhook", r)["component_update"]; ok {
						update = r
					} else {
						incident = r
					}
				}
				what := "the webhook's component update"
				if update.Body == nil || incident.Body == nil {
					t.Fatalf("the webhook's requests are not the incident and a component update")
				}
				testserver.CheckSigned(t, what, update, secret)
				body := decodeBody(t, what, update)
				if len(body) != 4 || body["meta"] == nil || testserver.At(t, body, "page.status_indicator") != "minor" ||
					testserver.At(t, body, "component_update.component_id") != "2" ||
					testserver.At(t, body, "component_update.old_status") != "operational" ||
					testserver.At(t, body, "component_update.new_status") != "degraded_performance" ||
					testserver.At(t, body, "component.id") != "2" || testserver.At(t, body, "component.name") != "API" ||
					testserver.At(t, body, "component.status") != "degraded_performance" {
					t.Errorf("%s: %s", what, update.Body)
				}
			}
			body := decodeBody(t, "the "+ch+" incident", incident)
			what := "the " + ch + " incident"
			switch ch {
			case "slack":
				if body["text"] != title || len(body) != 2 {
					t.Errorf("%s: text %q and %d keys, want %q and blocks", what, body["text"], len(body), title)
				}
				blocks := testserver.At(t, body, "blocks").([]any)
				if testserver.At(t, blocks, "0.type") != "header" || testserver.At(t, blocks, "0.text.text") != "Checkout down" {
					t.Errorf("%s: the first block is not the subject's header: %v", what, blocks[0])
				}
				for i, b := range blocks {
					if typ := testserver.At(t, b, "type"); typ != "header" && typ != "section" && typ != "context" {
						t.Errorf("%s: block %d is a %v", what, i, typ)
					}
				}
				shows(t, what, blocks, "Investigating", "Payments fail.", "API", "<"+link+"|")
			case "teams":
				card := checkTeams(t, body)
				shows(t, what, card, "Checkout down", "Investigating", "Payments fail.", "API")
				if acts := testserver.At(t, card, "actions").([]any); len(acts) != 1 || testserver.At(t, acts, "0.type") != "Action.OpenUrl" || testserver.At(t, acts, "0.url") != link {
					t.Errorf("%s: actions %v, want one that opens %s", what, acts, link)
				}
			case "discord":
				if body["content"] != title {
					t.Errorf("%s: content %q, want %q", what, body["content"], title)
				}
				embeds := testserver.At(t, body, "embeds").([]any)
				if len(embeds) != 1 {
					t.Fatalf("%s: %d embeds, want 1", what, len(embeds))
				}
				e := embeds[0].(map[string]any)
				if e["title"] != "Checkout down" || e["url"] != link || e["description"] != "Payments fail." || e["timestamp"] != testserver.TS(posted) {
					t.Errorf("%s: embed title %q url %q description %q timestamp %q; want the subject, %s, the update and %s",
						what, e["title"], e["url"], e["description"], e["timestamp"], link, testserver.TS(posted))
				}
				// Coloured by state: investigating is an outage, red.
				c, _ := e["color"].(float64)
				if r, g, b := int(c)>>16, int(c)>>8&0xff, int(c)&0xff; r < 0x80 || g >= r/2 || b >= r/2 {
					t.Errorf("%s: colour %06x is not red", what, int(c))
				}
				fields := map[string]string{}
				for _, f := range testserver.At(t, e, "fields").([]any) {
					fields[testserver.At(t, f, "value").(string)] = testserver.At(t, f, "name").(string)
				}
				if fields["Investigating"] == "" || fields["API"] == "" || len(fields) != 2 {
					t.Errorf("%s: fields %v, want the state and the components", what, fields)
				}
			case "webhook":
				testserver.CheckSigned(t, what, incident, secret)
				if body["event"] != "notice.created" || testserver.At(t, body, "notice.id") != float64(notice) || testserver.At(t, body, "notice.subject") != "Checkout down" ||
					testserver.At(t, body, "incident.name") != "Checkout down" || testserver.At(t, body, "incident.status") != "investigating" ||
					testserver.At(t, body, "incident.impact") != "minor" {
					t.Errorf("%s: %s", what, incident.Body)
				}
				if u, _ := testserver.At(t, body, "meta.unsubscribe").(string); !strings.HasPrefix(u, "https://status.sub.test/subscriptions/unsubscribe?token=") {
					t.Errorf("%s: meta.unsubscribe %q", what, u)
				}
			}
		}
	})

	testserver.Step(t, "the receiver answering 500 shows in the delivery log", func(t *testing.T) {
		adm := srv.Admin(tok)
		arrived := recv["discord"].Requests()[1].At
		id := ids["discord"]
		ds := testserver.SubSettled(t, adm, statusd.DeliveryFilter{SubscriberID: id}, func(ds []statusd.AdminDelivery) bool {
			return len(ds) == 2 && ds[0].Attempts == 1
		})
		// The admin API, newest first: the incident, failed once and
		// pending, then the test, delivered.
		r := srv.In(t).AdminOK(http.MethodGet, fmt.Sprintf("/deliveries?subscriber_id=%d", id), tok, "", 200)
		list := testserver.At(t, r, "deliveries").([]any)
		if len(list) != 2 {
			t.Fatalf("GET /deliveries?subscriber_id=%d: %d deliveries, want 2", id, len(list))
		}
		failed, test := list[0], list[1]
		if testserver.At(t, failed, "state") != "pending" || testserver.At(t, failed, "attempts") != float64(1) || testserver.At(t, failed, "last_status") != float64(500) ||
			testserver.At(t, failed, "last_error") != "HTTP 500" || testserver.At(t, failed, "delivered_at") != nil || testserver.At(t, failed, "event.kind") != "notice.created" ||
			testserver.At(t, failed, "event.notice_id") != float64(notice) || testserver.At(t, failed, "subscriber_id") != float64(id) {
			t.Errorf("the failed delivery: %v", failed)
		}
		// --notify-retry-base 1h: the first retry 1 h after the attempt,
		// plus up to 20% jitter. The attempt was made after the request
		// arrived and before the log said so.
		next := testserver.ParseTS(t, testserver.At(t, failed, "next_attempt_at"))
		testserver.Within(t, "next_attempt_at", next, arrived.Add(time.Hour), time.Now().Add(72*time.Minute))
		if testserver.At(t, test, "state") != "delivered" || testserver.At(t, test, "attempts") != float64(1) || testserver.At(t, test, "last_status") != float64(204) ||
			testserver.At(t, test, "event.kind") != "test" || testserver.At(t, test, "next_attempt_at") != nil {
			t.Errorf("the test's delivery: %v", test)
		}
		if ds[0].ID != int64(testserver.At(t, failed, "id").(float64)) {
			t.Errorf("the SDK and the raw answer differ: %+v, %v", ds[0], failed)
		}

		out := subCLIOK(t, srv.In(t), tok, "deliveries", "--subscriber", fmt.Sprint(id))
		lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		if len(lines) != 3 {
			t.Fatalf("statusd deliveries --subscriber %d: %d lines, want the header and 2:\n%s", id, len(lines), out)
		}
		m := subMatch(t, "the failed delivery's line", lines[1], fmt.Sprintf(`^%v\s+\S+Z\s+%d\s+notice\.created \(notice %d\)\s+pending\s+1\s+status 500: HTTP 500\s+(\S+)$`,
			testserver.At(t, failed, "id"), id, notice))
		if want := next.UTC().Format(time.RFC3339); m[0] != want {
			t.Errorf("the CLI's next attempt %s, want the API's %s", m[0], want)
		}
		subMatch(t, "the test's line", lines[2], fmt.Sprintf(`^%v\s+\S+Z\s+%d\s+test\s+delivered\s+1\s+status 204\s+\S+Z$`, testserver.At(t, test, "id"), id))
	})
}

// checkTeams checks a Microsoft Teams Workflows message: type message
// with one Adaptive Card attachment; it returns the card.
func checkTeams(t *testing.T, body map[string]any) map[string]any {
	t.Helper()
	atts, _ := body["attachments"].([]any)
	if body["type"] != "message" || len(atts) != 1 {
		t.Fatalf("the Teams message: type %v and %d attachments, want message and 1", body["type"], len(atts))
	}
	card, _ := testserver.At(t, atts[0], "content").(map[string]any)
	if testserver.At(t, atts[0], "contentType") != "application/vnd.microsoft.card.adaptive" || card["type"] != "AdaptiveCard" {
		t.Fatalf("the Teams attachment is not an Adaptive Card: %v", atts[0])
	}
	return card
}

// TestNotifyMaintenance plays CONTRACT C7 item 4 through the real server:
// an automated maintenance scheduled to begin in 5 s, with
// --maintenance-reminder 3s, sends its subscribers (one following the
// parent of its component) the scheduling, the reminder once, 3 s before
// it begins, and the automated start and end as updates; a subscriber
// to another component gets nothing.
func TestNotifyMaintenance(t *testing.T) {
	const lead = 3 * time.Second
	srv := startServer(t, testserver.SubDoc(), "--allow-private-targets", "--maintenance-reminder", lead.String())
	tok := newToken(t, srv.DB, "ops")
	hook, other := testserver.StartReceiver(t), testserver.StartReceiver(t)
	_, rest := chatAdd(t, srv, tok, "webhook", hook.URL+"/db", "--component", "Database")
	secret := subMatch(t, "the webhook's secret", rest, `^secret: (whsec_\S+)\n`)[0]
	chatAdd(t, srv, tok, "webhook", other.URL+"/web", "--component", "Website")

	out := subCLIOK(t, srv, tok, "maintenance", "schedule", "--subject", "Replica upgrade", "--begins", "+5s", "--ends", "+8s",
		"--automate", "--component", "Replica", "-m", "The replica restarts.")
	id := subAtoi(t, subMatch(t, "schedule", out, `^scheduled maintenance (\d+) "Replica upgrade" \(scheduled, automated\) from `)[0])
	n, err := srv.Admin(tok).Notice(context.Background(), id)
	testserver.NoErr(t, "the maintenance", err)
	begins, ends := n.BeginsAt.Time, n.EndsAt.Time

	// Each notice event: its kind, the Statuspage status of the
	// maintenance, and the earliest it may arrive (CONTRACT C7).
	want := []struct {
		event, status string
		from          time.Time
	}{
		{"notice.created", "scheduled", n.CreatedAt.Time},
		{"maintenance.reminder", "scheduled", begins.Add(-lead)},
		{"notice.updated", "in_progress", begins},
		{"notice.updated", "completed", ends},
	}
	// Each component update (CONTRACT C3, C7): the start puts Replica (4)
	// under maintenance, and Database (3), its parent, with it; the end
	// brings both back. The webhook follows Database: it hears of
	// Database's own and, as Replica's ancestor, of Replica's. Each
	// arrives within the window of the notice event of the same moment.
	wantUpdates := []struct {
		component, old, new string
		from                time.Time
	}{
		{"4", "operational", "under_maintenance", begins},
		{"3", "operational", "under_maintenance", begins},
		{"4", "under_maintenance", "operational", ends},
		{"3", "under_maintenance", "operational", ends},
	}
	total := len(want) + len(wantUpdates)
	var got []testserver.Received
	testserver.Step(t, "the scheduling, the reminder, the start and the end arrive, in time", func(t *testing.T) {
		deadline := time.Now().Add(time.Until(ends) + 10*time.Second)
		for got = hook.Requests(); len(got) < total && time.Now().Before(deadline); got = hook.Requests() {
			time.Sleep(50 * time.Millisecond)
		}
		if len(got) != total {
			t.Fatalf("%d webhooks arrived by %s, want %d", len(got), testserver.TS(deadline), total)
		}
		ids := map[string]bool{}
		// The notice events, in their order, and the component updates,
		// by what they tell: those of one moment arrive in any order.
		var notices []testserver.Received
		updates := map[string][]testserver.Received{}
		for _, r := range got {
			ids[r.Header.Get("webhook-id")] = true
			body := decodeBody(t, "a webhook", r)
			if _, ok := body["component_update"]; !ok {
				notices = append(notices, r)
				continue
			}
			key := fmt.Sprint(testserver.At(t, body, "component_update.component_id"), " ", testserver.At(t, body, "component_update.old_status"),
				" ", testserver.At(t, body, "component_update.new_status"))
			updates[key] = append(updates[key], r)
		}
		if len(notices) != len(want) {
			t.Fatalf("%d notice events and %d component updates arrived, want %d and %d", len(notices), total-len(notices), len(want), len(wantUpdates))
		}
		for _, w := range wantUpdates {
			key := w.component + " " + w.old + " " + w.new
			what := "the component update " + key
			rs := updates[key]
			delete(updates, key)
			if len(rs) != 1 {
				t.Errorf("%s: %d arrived, want 1", what, len(rs))
				continue
			}
			testserver.CheckSigned(t, what, rs[0], secret)
			body := decodeBody(t, what, rs[0])
			if testserver.At(t, body, "component.id") != w.component || testserver.At(t, body, "component.status") != w.new {
				t.Errorf("%s: component %v", what, body["component"])
			}
			testserver.Within(t, what+" arrived", rs[0].At, w.from, w.from.Add(3*time.Second))
		}
		for key, rs := range updates {
			t.Errorf("%d component updates %s arrived, want none", len(rs), key)
		}
		for i, w := range want {
			what := fmt.Sprintf("webhook %d (%s)", i+1, w.event)
			testserver.CheckSigned(t, what, notices[i], secret)
			body := decodeBody(t, what, notices[i])
			if body["event"] != w.event || testserver.At(t, body, "incident.status") != w.status || testserver.At(t, body, "notice.id") != float64(id) {
				t.Errorf("%s: event %v, incident.status %v, notice.id %v; want %s, %s, %d", what, body["event"],
					testserver.At(t, body, "incident.status"), testserver.At(t, body, "notice.id"), w.event, w.status, id)
			}
			// Automation looks every 200 ms: each arrives soon after it
			// is due.
			testserver.Within(t, what+" arrived", notices[i].At, w.from, w.from.Add(3*time.Second))
			t.Logf("%s arrived %v after it was due", what, notices[i].At.Sub(w.from).Round(time.Millisecond))
		}
		if len(ids) != total {
			t.Errorf("%d webhook-ids for %d events", len(ids), total)
		}
	})

	testserver.Step(t, "nothing more comes after the next ticks, and nothing to another component", func(t *testing.T) {
		time.Sleep(time.Second) // five ticks of the automation
		if n := len(hook.Requests()); n != total {
			t.Errorf("%d webhooks after the end, want %d: the reminder once", n, total)
		}
		if n := len(other.Requests()); n != 0 {
			t.Errorf("the subscriber of Website got %d webhooks, want none", n)
		}
	})
}
