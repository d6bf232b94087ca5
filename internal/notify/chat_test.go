package notify

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/statusd/statusd"
)

// send makes one attempt of event e to a subscriber of the channel at the
// receiver, and returns the body that arrived, decoded.
func sendChat(t *testing.T, w *Worker, rcv *receiver, ch statusd.Channel, e statusd.Event) map[string]any {
	t.Helper()
	c := claimed(1, e, statusd.Subscriber{ID: 5, Channel: ch, Address: rcv.URL + "/chat", Token: "tok", State: statusd.SubscriberActive})
	a, ok := w.attempt(context.Background(), &c, later, &holding{})
	if !ok || a.Outcome != statusd.Delivered {
		t.Fatalf("attempt %+v", a)
	}
	got := rcv.requests()
	r := got[len(got)-1]
	if r.Header.Get("Content-Type") != "application/json" || r.Header.Get("webhook-signature") != "" {
		t.Errorf("headers %v", r.Header)
	}
	var body map[string]any
	if err := json.Unmarshal(r.Body, &body); err != nil {
		t.Fatalf("%v\n%s", err, r.Body)
	}
	return body
}

// get walks a decoded JSON value along keys and indexes.
func get(v any, path ...any) any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, _ := v.(map[string]any)
			v = m[k]
		case int:
			l, _ := v.([]any)
			if k >= len(l) {
				return nil
			}
			v = l[k]
		}
	}
	return v
}

func TestChat(t *testing.T) {
	rcv := startReceiver(t, nil)
	w, _ := newTestWorker(Config{AllowPrivate: true})
	const link = "https://status.acme.test/notices/41"

	t.Run("Slack", func(t *testing.T) {
		b := sendChat(t, w, rcv, statusd.Slack, updated)
		want := map[string]any{
			"text":                     "[Acme Status] Elevated error rates: Identified",
			"blocks.0.type":            "header",
			"blocks.0.text.type":       "plain_text",
			"blocks.0.text.text":       "Elevated error rates",
			"blocks.1.fields.0.text":   "*State*\nIdentified",
			"blocks.1.fields.1.text":   "*Components*\nAPI, Web",
			"blocks.2.text.type":       "mrkdwn",
			"blocks.2.text.text":       "A bad deploy; rolling back.\nSecond line.",
			"blocks.3.type":            "context",
			"blocks.3.elements.0.text": "<" + link + "|View on Acme Status> · Posted 1 Mar 2026, 11:50 UTC",
			"blocks.3.elements.0.type": "mrkdwn",
			"blocks.1.type":            "section",
			"blocks.2.type":            "section",
			"blocks.1.fields.0.type":   "mrkdwn",
			"blocks.4":                 nil,
			"blocks.1.fields.2":        nil,
		}
		checkPaths(t, b, want)
		// Markup in the text is Slack's only when escaped.
		b = sendChat(t, w, rcv, statusd.Slack, created)
		if got := get(b, "blocks", 2, "text", "text"); got != "We are looking into errors on &lt;b&gt;checkout&lt;/b&gt; &amp; login." {
			t.Errorf("section text %q", got)
		}
	})
	t.Run("Teams", func(t *testing.T) {
		b := sendChat(t, w, rcv, statusd.Teams, updated)
		checkPaths(t, b, map[string]any{
			"type":                                  "message",
			"attachments.0.contentType":             "application/vnd.microsoft.card.adaptive",
			"attachments.0.content.type":            "AdaptiveCard",
			"attachments.0.content.version":         "1.4",
			"attachments.0.content.$schema":         "http://adaptivecards.io/schemas/adaptive-card.json",
			"attachments.0.content.body.0.text":     "Acme Status",
			"attachments.0.content.body.1.text":     "Elevated error rates",
			"attachments.0.content.body.1.color":    "Attention",
			"attachments.0.content.body.2.type":     "FactSet",
			"attachments.0.content.body.2.facts.0":  map[string]any{"title": "State", "value": "Identified"},
			"attachments.0.content.body.2.facts.1":  map[string]any{"title": "Components", "value": "API, Web"},
			"attachments.0.content.body.2.facts.2":  map[string]any{"title": "Posted", "value": "1 Mar 2026, 11:50 UTC"},
			"attachments.0.content.body.3.text":     "A bad deploy; rolling back.\nSecond line.",
			"attachments.0.content.body.3.wrap":     true,
			"attachments.0.content.actions.0.type":  "Action.OpenUrl",
			"attachments.0.content.actions.0.url":   link,
			"attachments.0.content.actions.0.title": "View on Acme Status",
			"attachments.1":                         nil,
			"attachments.0.content.msteams.width":   "Full",
			"attachments.0.content.body.2.facts.3":  nil,
			"attachments.0.content.body.4":          nil,
			"attachments.0.content.actions.1":       nil,
			"attachments.0.content.body.0.isSubtle": true,
			"attachments.0.content.body.1.weight":   "Bolder",
		})
		// A maintenance shows its window; its colour is the accent.
		b = sendChat(t, w, rcv, statusd.Teams, reminder)
		checkPaths(t, b, map[string]any{
			"attachments.0.content.body.1.color":   "Accent",
			"attachments.0.content.body.2.facts.1": map[string]any{"title": "Scheduled", "value": "1 Mar 2026, 13:00 UTC to 1 Mar 2026, 14:00 UTC"},
		})
	})
	t.Run("Discord", func(t *testing.T) {
		b := sendChat(t, w, rcv, statusd.Discord, updated)
		checkPaths(t, b, map[string]any{
			"content":                "[Acme Status] Elevated error rates: Identified",
			"embeds.0.title":         "Elevated error rates",
			"embeds.0.url":           link,
			"embeds.0.description":   "A bad deploy; rolling back.\nSecond line.",
			"embeds.0.color":         float64(0xDC2626), // investigating and identified are red
			"embeds.0.fields.0":      map[string]any{"name": "State", "value": "Identified", "inline": true},
			"embeds.0.fields.1":      map[string]any{"name": "Components", "value": "API, Web", "inline": true},
			"embeds.0.fields.2":      nil,
			"embeds.0.timestamp":     "2026-03-01T11:50:00.000Z",
			"embeds.1":               nil,
			"allowed_mentions.parse": []any{}, // "@everyone" in a text pings no one
		})
	})
}

// checkPaths checks values at dotted paths ("blocks.0.text").
func checkPaths(t *testing.T, body map[string]any, want map[string]any) {
	t.Helper()
	for path, w := range want {
		var p []any
		for _, k := range strings.Split(path, ".") {
			if n, err := strconv.Atoi(k); err == nil {
				p = append(p, n)
			} else {
				p = append(p, k)
			}
		}
		got := get(body, p...)
		gb, _ := json.Marshal(got)
		wb, _ := json.Marshal(w)
		if string(gb) != string(wb) {
			t.Errorf("%s = %s, want %s", path, gb, wb)
		}
	}
}

// TestChatLimits: texts past the receivers' limits are cut within them,
// on a rune, with "…".
func TestChatLimits(t *testing.T) {
	doc := fixture()
	doc.Notices[0].Subject = strings.Repeat("é", 4100)
	doc.Notices[0].Updates[1].Content = "@everyone " + strings.Repeat("🙂", 9000) + strings.Repeat("<&>", 2000)
	for i := range 100 {
		doc.Components = append(doc.Components, statusd.Component{ID: int64(100 + i), Position: 4 + i, Name: strings.Repeat("ü", 19) + "🚀",
			CreatedAt: t0, UpdatedAt: t0})
	}
	h := &holder{snap: build(doc, t0)}
	w, _ := newTestWorker(Config{Snapshots: h, AllowPrivate: true})
	e := updated
	for i := range 100 {
		e.ComponentIDs = append(e.ComponentIDs, int64(100+i))
	}
	rcv := startReceiver(t, nil)

	// units counts UTF-16 code units, as the stricter receivers do.
	units := func(s string) int { return len(utf16.Encode([]rune(s))) }
	check := func(t *testing.T, what string, v any, max int) {
		t.Helper()
		s, _ := v.(string)
		if s == "" || !utf8.ValidString(s) || units(s) > max || !strings.HasSuffix(s, "…") {
			t.Errorf("%s: %d units (max %d), valid %v, cut %v", what, units(s), max, utf8.ValidString(s), strings.HasSuffix(s, "…"))
		}
	}
	t.Run("Discord", func(t *testing.T) {
		b := sendChat(t, w, rcv, statusd.Discord, e)
		check(t, "title", get(b, "embeds", 0, "title"), 256)
		check(t, "content", get(b, "content"), 2000)
		check(t, "components", get(b, "embeds", 0, "fields", 1, "value"), 1024)
		check(t, "description", get(b, "embeds", 0, "description"), 4096)
		total := 0
		for _, k := range []any{"title", "description"} {
			total += units(get(b, "embeds", 0, k).(string))
		}
		for _, f := range get(b, "embeds", 0, "fields").([]any) {
			total += units(f.(map[string]any)["name"].(string)) + units(f.(map[string]any)["value"].(string))
		}
		if total > 6000 {
			t.Errorf("the embed holds %d characters, more than 6000", total)
		}
	})
	t.Run("Slack", func(t *testing.T) {
		b := sendChat(t, w, rcv, statusd.Slack, e)
		check(t, "header", get(b, "blocks", 0, "text", "text"), 150)
		check(t, "text", get(b, "text"), 4000)
		check(t, "components", get(b, "blocks", 1, "fields", 1, "text"), 2000)
		s := get(b, "blocks", 2, "text", "text").(string)
		check(t, "section", s, 3000)
		// Cut between escapes, never inside one.
		if i := strings.LastIndex(s, "&"); i >= 0 && !strings.HasPrefix(s[i:], "&amp;") && !strings.HasPrefix(s[i:], "&lt;") && !strings.HasPrefix(s[i:], "&gt;") {
			t.Errorf("an escape is cut: %q", s[len(s)-20:])
		}
	})
	t.Run("Teams", func(t *testing.T) {
		b := sendChat(t, w, rcv, statusd.Teams, e)
		check(t, "text", get(b, "attachments", 0, "content", "body", 3, "text"), 20000)
	})
}

func TestClip(t *testing.T) {
	tests := []struct {
		name string
		s    string
		max  int
		esc  func(rune) string
		want string
	}{
		{"fits", "abc", 3, nil, "abc"},
		{"cut", "abcdef", 4, nil, "abc…"},
		{"an emoji takes two units", "a🙂b", 4, nil, "a🙂b"},
		{"no half emoji", "a🙂b", 3, nil, "a…"},
		{"accents take one", "ééé", 2, nil, "é…"},
		{"an escape fits whole", "a<b", 6, slackEscape, "a&lt;b"},
		{"or not at all", "a<b", 5, slackEscape, "a…"},
		{"no room", "abc", 0, nil, ""},
		{"room for the mark only", "ab", 1, nil, "…"},
		{"empty", "", 10, nil, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := clip(tc.s, tc.max, tc.esc); got != tc.want {
				t.Errorf("clip(%q, %d) = %q, want %q", tc.s, tc.max, got, tc.want)
			}
		})
	}
}
