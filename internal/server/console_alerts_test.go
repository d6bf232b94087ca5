package server_test

// The console's screens of CONTRACT C9, through the real server: alerts
// posted to a source's hook make drafts that home lists for every role;
// publishers review, publish and discard them; a notice's page shows its
// signals and the proposal to post recovering; owners manage the sources
// and get what their senders need; a late heartbeat says so on home.
// Every helper here starts with ca.

import (
	"fmt"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/client"
	"github.com/statusd/statusd/internal/testserver"
)

// caDoc is consoleDoc with keys on its components: API (1) api, API EU
// (2) api-eu, Website (3) website. Incident 10 is open on API EU.
func caDoc(now time.Time) *statusd.Document {
	doc := consoleDoc(now)
	keys := map[int64]string{1: "api", 2: "api-eu", 3: "website"}
	for i := range doc.Components {
		doc.Components[i].Key = keys[doc.Components[i].ID]
	}
	return doc
}

// caStart serves caDoc, timed around now, on a server with an admin
// listener (and o's other options), and returns it, an owner's token of
// the admin API and its client.
func caStart(t *testing.T, now time.Time, o options) (*testserver.Server, string, *client.Admin) {
	t.Helper()
	o.adminListener = true
	srv := startServer(t, caDoc(now), o)
	tok := newToken(t, srv.DB, "alice")
	return srv, tok, srv.Admin(tok)
}

// caAdmin sends a request to the admin API on the server's admin
// listener and fails unless it answers status.
func caAdmin(t *testing.T, srv *testserver.Server, tok, method, path, body string, status int) testserver.Response {
	t.Helper()
	r := testserver.Fetch(t, method, srv.AdminURL+testserver.AdminRoot+path, body, testserver.Bearer(tok)...)
	if r.Status != status {
		t.Fatalf("%s %s %s: %d, want %d\n%s", method, path, body, r.Status, status, r.Body)
	}
	return r
}

// caSource makes a source through the admin API.
func caSource(t *testing.T, srv *testserver.Server, tok, body string) statusd.AdminSource {
	t.Helper()
	return sgDecode[statusd.AdminSource](t, caAdmin(t, srv, tok, http.MethodPost, "/sources", body, http.StatusCreated))
}

// caHook posts body to the source's hook on the admin listener with
// token, which must take it (202), and returns the action of each alert.
func caHook(t *testing.T, srv *testserver.Server, src statusd.AdminSource, token, body string) []string {
	t.Helper()
	r := testserver.Fetch(t, http.MethodPost, srv.AdminURL+src.HookPath, body, testserver.Bearer(token)...)
	if r.Status != http.StatusAccepted {
		t.Fatalf("POST %s: %d, want 202\n%s", src.HookPath, r.Status, r.Body)
	}
	return sgActions(sgDecode[statusd.HookResponse](t, r))
}

// caSourceOf is source id, as caHook needs it.
func caSourceOf(id int64) statusd.AdminSource {
	return statusd.AdminSource{ID: id, HookPath: statusd.HookPath(id)}
}

// caDraft reads a draft through the admin API.
func caDraft(t *testing.T, srv *testserver.Server, tok string, id int64) statusd.AdminDraft {
	t.Helper()
	return sgDecode[statusd.AdminDraft](t, caAdmin(t, srv, tok, http.MethodGet, fmt.Sprintf("/drafts/%d", id), "", 200))
}

// caTime is t as a generic event's time.
func caTime(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// caClock is how the console says when t was, seen at now: "15:04 UTC"
// on the same day, else with the day, "Jan 2 15:04 UTC".
func caClock(t, now time.Time) string {
	if t.UTC().Format("2006-01-02") == now.UTC().Format("2006-01-02") {
		return t.UTC().Format("15:04") + " UTC"
	}
	return t.UTC().Format("Jan 2 15:04") + " UTC"
}

// lacks fails if the screen's body holds any of unwanted.
func (p screen) lacks(t *testing.T, what string, unwanted ...string) {
	t.Helper()
	for _, u := range unwanted {
		if strings.Contains(p.body, u) {
			t.Errorf("%s holds %s\n%s", what, u, p.body)
		}
	}
}

// before fails unless first stands before second in the screen's body.
func (p screen) before(t *testing.T, what, first, second string) {
	t.Helper()
	i, j := strings.Index(p.body, first), strings.Index(p.body, second)
	if i < 0 || j < 0 || i > j {
		t.Errorf("%s: %q is not before %q\n%s", what, first, second, p.body)
	}
}

// TestConsoleDrafts: three alerts on Website make one incident draft,
// which home lists above the open incidents for every role, with
// Publish and Review for publishers only; a viewer's review and posts
// are 403. A publisher reviews it beside the alerts' labels, escaped,
// meets a stale version (409, the draft as it is now), publishes it with
// changes; the alerts resolve and the notice's page proposes recovering,
// which the publisher accepts. Another draft is discarded with a reason;
// one whose alert cleared first is listed apart and published as a
// closed incident. The public page never shows a draft or an alert.
func TestConsoleDrafts(t *testing.T) {
	now := time.Now().UTC()
	srv, tok, adm := caStart(t, now, options{})
	pat := signedIn(t, srv, adm, "pat@example.com", "publisher")
	vic := signedIn(t, srv, adm, "vic@example.com", "viewer")
	src := caSource(t, srv, tok, `{"name": "Scripts", "format": "generic"}`)
	// Alert a started 12½ minutes ago, b and c 3 minutes ago; none has a
	// rule, so each names its components by its label component.
	started := now.Add(-12*time.Minute - 30*time.Second).Truncate(time.Second)
	later := now.Add(-3 * time.Minute).Truncate(time.Second)
	const hostile = `<script>alert(1)</script>`
	fire := fmt.Sprintf(`{"events": [
		{"dedup_key": "checkout-5xx", "status": "firing", "labels": {"component": "website", "team": %q},
		 "annotations": {"runbook": "restart the pods"}, "url": "https://grafana.example/d/abc?x=1&y=2", "started_at": %q},
		{"dedup_key": "checkout-latency", "status": "firing", "labels": {"component": "website"}, "started_at": %q},
		{"dedup_key": "checkout-errors", "status": "firing", "labels": {"component": "3"}, "started_at": %q}]}`,
		hostile, caTime(started), caTime(later), caTime(later))

	testserver.Step(t, "three alerts on Website make one draft, listed above the open incidents; buttons for a publisher only", func(t *testing.T) {
		// The first drafts a new incident (Website has none open); the
		// others name Website within 10 minutes of it: the same draft.
		if got := caHook(t, srv, src, src.Token, fire); strings.Join(got, ",") != "drafted,attached,attached" {
			t.Fatalf("the hook: %v, want drafted, attached, attached", got)
		}
		for _, b := range []*browser{pat, vic} {
			p := b.do("GET", "/manage", nil)
			p.want(t, "home", 200, "")
			p.has(t, "home", `<h2 id="drafts">Alerts waiting for you</h2>`,
				// The default subject names the components: "Issues with
				// {{.Components}}"; from the earliest start, 12½ minutes.
				`<strong class="subject">Issues with Website</strong>`, `<span class="tag">New incident</span>`,
				`Website · from Scripts · firing for 12 minutes</p>`)
			p.before(t, "home", "Alerts waiting for you", "Open incidents")
		}
		p := pat.do("GET", "/manage", nil)
		p.has(t, "pat's home", `<form class="inline" method="post" action="/manage/drafts/1/publish">`,
			`<input type="hidden" name="version" value="1"><input type="hidden" name="notify" value="on">`,
			`<a class="button" href="/manage/drafts/1">Review<span class="vh"> “Issues with Website”</span></a>`)
		vic.do("GET", "/manage", nil).lacks(t, "vic's home", "/manage/drafts/1/publish", `href="/manage/drafts/1"`, "/discard")
	})

	testserver.Step(t, "nothing of it on the public page", func(t *testing.T) {
		for _, path := range []string{"/", "/api/v1/notices", "/history", "/api/v2/summary.json"} {
			if body := string(srv.Get(path, 200).Body); strings.Contains(body, "Issues with Website") || strings.Contains(body, "checkout-5xx") ||
				strings.Contains(body, "grafana.example") {
				t.Errorf("GET %s shows the draft or its alerts", path)
			}
		}
	})

	testserver.Step(t, "a viewer's review and posts are 403 and change nothing", func(t *testing.T) {
		vic.do("GET", "/manage/drafts/1", nil).want(t, "vic's review", 403, "")
		vic.do("POST", "/manage/drafts/1/publish", url.Values{"version": {"1"}, "notify": {"on"}}, sameSite...).want(t, "vic's publish", 403, "")
		vic.do("POST", "/manage/drafts/1/discard", url.Values{"version": {"1"}}, sameSite...).want(t, "vic's discard", 403, "")
		if d := caDraft(t, srv, tok, 1); d.State != "open" || d.Version != 1 {
			t.Errorf("draft 1 after vic's posts: %s, version %d; want open, 1", d.State, d.Version)
		}
	})

	testserver.Step(t, "the review: the incident form prefilled, beside the alerts' labels, escaped, marked not published", func(t *testing.T) {
		p := pat.do("GET", "/manage/drafts/1", nil)
		p.want(t, "the review", 200, "")
		p.has(t, "the review", `<h1>Review: New incident</h1>`,
			`<input type="hidden" name="version" value="1">`,
			`<input id="subject" name="subject" required autofocus value="Issues with Website" autocomplete="off">`,
			`>We are investigating reports of problems with Website.</textarea>`,
			`<input type="checkbox" name="notify" checked> Notify subscribers`,
			`<option value="investigating" selected>Investigating</option>`, `<option value="identified">Identified</option>`,
			`<input type="checkbox" name="component_ids" value="3" checked> Website`,
			`<input type="checkbox" name="component_ids" value="1"> API`,
			`<h2 id="internal">Not published</h2>`,
			`<code class="key">checkout-5xx</code>`, `<code class="key">checkout-latency</code>`, `<code class="key">checkout-errors</code>`,
			`<div><dt>team</dt><dd>&lt;script&gt;alert(1)&lt;/script&gt;</dd></div>`,
			`<div><dt>runbook</dt><dd>restart the pods</dd></div>`,
			`<a class="url" href="https://grafana.example/d/abc?x=1&amp;y=2" rel="noreferrer">https://grafana.example/d/abc?x=1&amp;y=2</a>`,
			`started <time datetime="`+caTime(started)+`">`)
		p.lacks(t, "the review", hostile)
		p.before(t, "the review", `action="/manage/drafts/1/publish"`, `<h2 id="internal">Not published</h2>`)
	})

	testserver.Step(t, "a stale version: 409, the form again with the draft as it is now", func(t *testing.T) {
		// Someone else renames it: version 1 becomes 2.
		caAdmin(t, srv, tok, http.MethodPatch, "/drafts/1", `{"version": 1, "subject": "Checkout errors"}`, 200)
		p := pat.do("POST", "/manage/drafts/1/publish", url.Values{"form": {"review"}, "version": {"1"}, "subject": {"Mine"},
			"content": {"Mine."}, "state": {"investigating"}, "component_ids": {"3"}, "notify": {"on"}}, sameSite...)
		p.want(t, "a stale review", 409, "")
		p.has(t, "a stale review", `draft 1 changed since you read it (version 1, now 2): read it again`,
			`<input type="hidden" name="version" value="2">`, `value="Checkout errors"`)
		// Home's button, stale too: the review screen, as it is now.
		p = pat.do("POST", "/manage/drafts/1/publish", url.Values{"version": {"1"}, "notify": {"on"}}, sameSite...)
		p.want(t, "a stale publish from home", 409, "")
		p.has(t, "a stale publish from home", `<h1>Review: New incident</h1>`, `value="Checkout errors"`,
			`>We are investigating reports of problems with Website.</textarea>`)
		if n, err := adm.Notices(t.Context(), 1); err != nil || n.Meta.TotalCount != 2 {
			t.Errorf("notices after the refusals: %v %v, want the 2 of the document", n, err)
		}
	})

	testserver.Step(t, "an empty message: 422, the form as typed", func(t *testing.T) {
		p := pat.do("POST", "/manage/drafts/1/publish", url.Values{"form": {"review"}, "version": {"2"}, "subject": {"Checkout fails"},
			"content": {" "}, "state": {"identified"}, "component_ids": {"3"}}, sameSite...)
		p.want(t, "an empty message", 422, "")
		p.has(t, "an empty message", `<p class="problem" id="content-problem" role="alert">must not be empty</p>`, `value="Checkout fails"`,
			`<option value="identified" selected>`)
		p.lacks(t, "an empty message", `name="notify" checked`)
	})

	testserver.Step(t, "publish the review, identified, notify off: the notice's page says so; the public API has it", func(t *testing.T) {
		pat.do("POST", "/manage/drafts/1/publish", url.Values{"form": {"review"}, "version": {"2"}, "subject": {"Checkout fails"},
			"content": {"Payments fail for some; we are on it."}, "state": {"identified"}, "component_ids": {"3"}}, sameSite...).
			want(t, "publish", 303, "/manage/notices/12?done=published&component=3")
		n := srv.Notice(12)
		if n.Subject != "Checkout fails" || testserver.Value(n.State) != "identified" || len(n.Components) != 1 || n.Components[0].ID != 3 ||
			len(n.Updates) != 1 || n.Updates[0].Content != "Payments fail for some; we are on it." {
			t.Errorf("the API's notice 12: %+v; want Checkout fails, identified, on Website, with the message", n)
		}
		// Website has an identified incident: degraded.
		if got := srv.ComponentStates(); got[3] != "degraded" {
			t.Errorf("component states %v: want Website degraded", got)
		}
		p := pat.do("GET", "/manage/notices/12?done=published&component=3", nil)
		p.has(t, "the notice's page", `<strong>Published.</strong>`, `<h2 id="signals">Signals</h2>`,
			`<code class="key">checkout-5xx</code>`, `<dd>&lt;script&gt;alert(1)&lt;/script&gt;</dd>`)
		p.lacks(t, "the notice's page", hostile, `class="proposal"`)
		if d := caDraft(t, srv, tok, 1); d.State != "published" || d.NoticeID == nil || *d.NoticeID != 12 {
			t.Errorf("draft 1: %s of %v; want published, notice 12", d.State, d.NoticeID)
		}
		if strings.Contains(string(srv.Get("/notices/12", 200).Body), "checkout-5xx") {
			t.Error("the public notice shows its alerts")
		}
	})

	// The alerts resolve at 3, 2 and 1 minutes ago: the last one proposes
	// posting recovering (draft 2).
	ends := []time.Time{now.Add(-3 * time.Minute).Truncate(time.Second), now.Add(-2 * time.Minute).Truncate(time.Second),
		now.Add(-time.Minute).Truncate(time.Second)}
	question := "All 3 alerts resolved at " + caClock(ends[2], now) + ": post Recovering?"
	testserver.Step(t, "the alerts resolve: the notice's page asks to post recovering; a viewer reads it without buttons", func(t *testing.T) {
		got := caHook(t, srv, src, src.Token, fmt.Sprintf(`{"events": [
			{"dedup_key": "checkout-5xx", "status": "resolved", "ended_at": %q},
			{"dedup_key": "checkout-latency", "status": "ok", "ended_at": %q},
			{"dedup_key": "checkout-errors", "status": "recovered", "ended_at": %q}]}`, caTime(ends[0]), caTime(ends[1]), caTime(ends[2])))
		if strings.Join(got, ",") != "unchanged,unchanged,proposed" {
			t.Fatalf("the hook: %v, want unchanged, unchanged, proposed", got)
		}
		if n := srv.Notice(12); testserver.Value(n.State) != "identified" {
			t.Errorf("a proposal changed the public notice: %s", testserver.Value(n.State))
		}
		p := pat.do("GET", "/manage/notices/12", nil)
		p.has(t, "the proposal", `<p><strong>`+question+`</strong></p>`,
			`<form method="post" action="/manage/drafts/2/publish" class="actions">`+"\n"+`<input type="hidden" name="version" value="1">`,
			`<button type="submit">Post Recovering</button>`, `<input type="hidden" name="from" value="notice">`,
			`resolved at <time datetime="`+caTime(ends[2])+`">`)
		p.before(t, "the notice's page", "<h2 id=\"signals\">", "<h2 id=\"post-update\">")
		p = vic.do("GET", "/manage/notices/12", nil)
		p.has(t, "vic's notice page", question)
		p.lacks(t, "vic's notice page", "/manage/drafts/2/publish", "/manage/drafts/2/discard")
		home := vic.do("GET", "/manage", nil)
		home.has(t, "vic's home", `<a href="/manage/notices/12">Update of notice 12</a>`,
			"Website · from Scripts · all 3 alerts resolved at "+caClock(ends[2], now))
	})

	testserver.Step(t, "a publisher accepts it: the public notice is recovering", func(t *testing.T) {
		pat.do("POST", "/manage/drafts/2/publish", url.Values{"version": {"1"}, "notify": {"on"}}, sameSite...).
			want(t, "accept", 303, "/manage/notices/12?done=updated&component=3")
		n := srv.Notice(12)
		if testserver.Value(n.State) != "recovering" || len(n.Updates) != 2 {
			t.Errorf("the API's notice 12: %s with %d updates; want recovering, 2", testserver.Value(n.State), len(n.Updates))
		}
		pat.do("GET", "/manage/notices/12?done=updated&component=3", nil).has(t, "after accepting", "<strong>Update posted.</strong>")
	})

	testserver.Step(t, "discard with a reason: home says so; the draft keeps the reason", func(t *testing.T) {
		// API (1) has no open incident (incident 10 is API EU's): draft 3.
		if got := caHook(t, srv, src, src.Token, `{"dedup_key": "api-latency", "status": "firing", "labels": {"component": "api"}}`); got[0] != "drafted" {
			t.Fatalf("the hook: %v, want drafted", got)
		}
		p := pat.do("GET", "/manage/drafts/3", nil)
		p.has(t, "the review", `<form method="post" action="/manage/drafts/3/discard" class="stack" aria-labelledby="discard">`)
		pat.do("POST", "/manage/drafts/3/discard", url.Values{"version": {"1"}, "reason": {"a deploy, expected"}}, sameSite...).
			want(t, "discard", 303, "/manage?discarded=3")
		pat.do("GET", "/manage?discarded=3", nil).has(t, "home", `<p class="done" role="status">Draft 3 discarded: nothing was published.</p>`)
		if d := caDraft(t, srv, tok, 3); d.State != "discarded" || d.Reason != "a deploy, expected" {
			t.Errorf("draft 3: %s (%q); want discarded, a deploy, expected", d.State, d.Reason)
		}
	})

	testserver.Step(t, "an alert that cleared first: listed apart, published as a closed incident", func(t *testing.T) {
		began := now.Add(-20 * time.Minute).Truncate(time.Second)
		ended := now.Add(-15 * time.Minute).Truncate(time.Second)
		caHook(t, srv, src, src.Token, fmt.Sprintf(`{"dedup_key": "api-queue", "status": "firing", "labels": {"component": "api"}, "started_at": %q}`, caTime(began)))
		if got := caHook(t, srv, src, src.Token, fmt.Sprintf(`{"dedup_key": "api-queue", "status": "resolved", "ended_at": %q}`, caTime(ended))); got[0] != "lapsed" {
			t.Fatalf("the hook: %v, want lapsed", got)
		}
		p := vic.do("GET", "/manage", nil)
		p.has(t, "vic's home", `<h3 id="lapsed">Cleared before anyone looked</h3>`, "API · from Scripts · its alert resolved at "+caClock(ended, now))
		p.lacks(t, "vic's home", "/manage/drafts/4/publish")
		p = pat.do("GET", "/manage", nil)
		p.has(t, "pat's home", `<form class="inline" method="post" action="/manage/drafts/4/publish">`+"\n"+`<input type="hidden" name="version" value="2">`+"\n"+`<button type="submit">Publish<span class="vh"> “Issues with API”</span></button>`,
			`<span class="hint">writes a closed incident</span>`, `action="/manage/drafts/4/discard"`)
		p.before(t, "pat's home", `<h2 id="drafts">`, `<h3 id="lapsed">`)
		pat.do("POST", "/manage/drafts/4/publish", url.Values{"version": {"2"}}, sameSite...).want(t, "publish the lapsed", 303, "/manage/notices/13?done=published&component=1")
		// Closed, from the alert's start. (Its end is when statusd saw
		// the draft lapse, not the alert's ended_at: app.lapsedSpan starts
		// from the draft's updated_at.)
		n := srv.Notice(13)
		if testserver.Value(n.State) != "resolved" || len(n.Updates) != 2 || !n.Updates[0].CreatedAt.Equal(began) || n.Updates[1].CreatedAt.Before(ended) {
			t.Errorf("the API's notice 13: %+v; want resolved, from %s, ended after %s", n, caTime(began), caTime(ended))
		}
		pat.do("GET", "/manage", nil).lacks(t, "home after", `<h3 id="lapsed">`, `<h2 id="drafts">`)
	})

	testserver.Step(t, "the audit log names the publisher", func(t *testing.T) {
		a, err := adm.Audit(t.Context(), 1)
		testserver.NoErr(t, "Audit", err)
		var got []string
		for _, e := range a.Audit[:4] {
			got = append(got, e.Actor+" "+e.Action+" "+e.Target)
		}
		want := []string{"pat@example.com notice.create notice 13", "pat@example.com draft.discard draft 3",
			"pat@example.com notice.post_update notice 12", "pat@example.com notice.create notice 12"}
		if strings.Join(got, "; ") != strings.Join(want, "; ") {
			t.Errorf("audit\n%q\nwant\n%q", got, want)
		}
	})
}

// caConfig is the text of a sender's configuration on a screen: the
// block of id, unescaped.
func caConfig(t *testing.T, p screen, id string) string {
	t.Helper()
	m := regexp.MustCompile(`(?s)<pre class="config" id="` + id + `-text">(.*?)</pre>`).FindStringSubmatch(p.body)
	if m == nil {
		t.Fatalf("no configuration %s\n%s", id, p.body)
	}
	return html.UnescapeString(m[1])
}

// caToken is the token shown on a screen.
func caToken(t *testing.T, p screen) string {
	t.Helper()
	m := regexp.MustCompile(`<p class="secret" id="source-token">(sgn_[A-Za-z0-9_-]{43})</p>`).FindStringSubmatch(p.body)
	if m == nil {
		t.Fatalf("no token shown\n%s", p.body)
	}
	return m[1]
}

// TestConsoleSources: only an owner sees the sources (the nav's link,
// the screens; a publisher's and a viewer's are 403). An owner adds a
// source of each format and is shown its token, once, with its sender's
// configuration, whose hook URL is the console's own origin and whose
// token works on the hook; a refused form comes back as typed with each
// problem at its field. A source's page lists its alerts that name no
// component, with the hint; its token rotates (the old one then fails),
// it changes, and it is removed once confirmed.
func TestConsoleSources(t *testing.T) {
	now := time.Now().UTC()
	srv, tok, adm := caStart(t, now, options{})
	olga := signedIn(t, srv, adm, "olga@example.com", "owner")
	pat := signedIn(t, srv, adm, "pat@example.com", "publisher")
	vic := signedIn(t, srv, adm, "vic@example.com", "viewer")
	const nav = `<a href="/manage/sources">Sources</a>`

	testserver.Step(t, "only an owner sees the sources", func(t *testing.T) {
		olga.do("GET", "/manage", nil).has(t, "olga's home", nav)
		for _, b := range []*browser{pat, vic} {
			b.do("GET", "/manage", nil).lacks(t, "home", nav)
			b.do("GET", "/manage/sources", nil).want(t, "the sources", 403, "")
			b.do("POST", "/manage/sources", url.Values{"name": {"Mine"}, "format": {"generic"}}, sameSite...).want(t, "adding", 403, "")
		}
		olga.do("GET", "/manage/sources", nil).has(t, "the sources", "<h1>Alert sources</h1>", "<p>None yet.</p>",
			`<option value="alertmanager" selected>Alertmanager (Prometheus)</option>`)
	})

	testserver.Step(t, "a refused form: as typed, each problem at its field; nothing added", func(t *testing.T) {
		p := olga.do("POST", "/manage/sources", url.Values{"name": {"Prometheus"}, "format": {"alertmanager"}, "rules": {`[{"match": {"a": "b"}`},
			"heartbeat_match": {"Watchdog"}, "heartbeat_timeout": {"soon"}}, sameSite...)
		p.want(t, "bad fields", 422, "")
		p.has(t, "bad fields", `<p class="problem" id="rules-problem" role="alert">is not JSON: `,
			`<p class="problem" id="heartbeat.match-problem" role="alert">&#34;Watchdog&#34; is not label=value, such as alertname=Watchdog</p>`,
			`<p class="problem" id="heartbeat.timeout-problem" role="alert">&#34;soon&#34; is not a duration such as 90s or 5m</p>`,
			`value="Prometheus"`, `>[{&#34;match&#34;: {&#34;a&#34;: &#34;b&#34;}</textarea>`)
		// A rule the action refuses: its problem at the rules.
		p = olga.do("POST", "/manage/sources", url.Values{"name": {"Prometheus"}, "format": {"alertmanager"},
			"rules": {`[{"action": "publish"}]`}}, sameSite...)
		p.want(t, "a publish rule without a hold", 422, "")
		p.has(t, "a publish rule without a hold", `<p class="problem" id="rules-problem" role="alert">a publish rule needs a hold of at least 1m0s, so that a flap publishes nothing</p>`)
		if list := sgDecode[statusd.AdminSourcesResponse](t, caAdmin(t, srv, tok, http.MethodGet, "/sources", "", 200)); len(list.Sources) != 0 {
			t.Errorf("sources after the refusals: %+v", list.Sources)
		}
	})

	hook := func(id int64) string { return fmt.Sprintf("%s/hooks/v1/%d", srv.AdminURL, id) }
	tokens := map[int64]string{}
	testserver.Step(t, "add one of each format: the token once, with its sender's configuration", func(t *testing.T) {
		for _, c := range []struct {
			id     int64
			form   url.Values
			config string // the block's id
			want   func(hook, token string) string
		}{
			{1, url.Values{"name": {"Prometheus"}, "format": {"alertmanager"}, "heartbeat_match": {"alertname=Watchdog"}, "heartbeat_timeout": {"5m"}},
				"config-alertmanager", func(hook, token string) string {
					return "receivers:\n  - name: statusd\n    webhook_configs:\n      - url: \"" + hook + "\"\n        send_resolved: true\n" +
						"        http_config:\n          authorization:\n            type: Bearer\n            credentials: \"" + token + "\"\n"
				}},
			{2, url.Values{"name": {"Grafana"}, "format": {"grafana"}, "secret": {"s3cret"}}, "config-grafana", func(hook, token string) string {
				return "Integration: Webhook\nURL: " + hook + "\nHTTP Method: POST\nAuthorization Header - Scheme: Bearer\n" +
					"Authorization Header - Credentials: " + token + "\nHMAC Signature - Secret: the secret given to this source\n" +
					"HMAC Signature - Header: X-Grafana-Alerting-Signature\nHMAC Signature - Timestamp Header: X-Grafana-Alerting-Signature-Timestamp\n"
			}},
			{3, url.Values{"name": {"Kuma"}, "format": {"uptime_kuma"}, "rules": {`[{"components": ["website"]}]`}}, "config-uptime-kuma",
				func(hook, token string) string {
					return "Notification Type: Webhook\nPost URL: " + hook + "\nRequest Body: Preset - application/json\n" +
						`Additional Headers: {"Authorization": "Bearer ` + token + `"}` + "\n"
				}},
			{4, url.Values{"name": {"Gatus"}, "format": {"generic"}}, "config-gatus", func(hook, token string) string {
				return "alerting:\n  custom:\n    url: \"" + hook + "\"\n    method: \"POST\"\n    headers:\n      Authorization: \"Bearer " + token + "\"\n" +
					"    body: |\n      " + `{"dedup_key": "gatus:[ENDPOINT_GROUP]/[ENDPOINT_NAME]", "status": "[ALERT_TRIGGERED_OR_RESOLVED]", ` +
					`"labels": {"component": "<component key>", "endpoint": "[ENDPOINT_NAME]"}, "annotations": {"description": "[ALERT_DESCRIPTION]"}}` + "\n" +
					"endpoints:\n  - name: website\n    url: \"https://example.com/health\"\n    conditions:\n      - \"[STATUS] == 200\"\n" +
					"    alerts:\n      - type: custom\n        send-on-resolved: true\n"
			}},
		} {
			p := olga.do("POST", "/manage/sources", c.form, sameSite...)
			p.want(t, "add "+c.form.Get("name"), 201, "")
			token := caToken(t, p)
			tokens[c.id] = token
			p.has(t, "add "+c.form.Get("name"), `<code class="url" id="hook-url">`+hook(c.id)+`</code>`,
				`<a href="/manage/sources/`+fmt.Sprint(c.id)+`">`+c.form.Get("name")+`</a>`)
			if got, want := caConfig(t, p, c.config), c.want(hook(c.id), token); got != want {
				t.Errorf("%s's configuration:\n%s\nwant\n%s", c.form.Get("name"), got, want)
			}
			// The generic format has a second: a script's.
			if strings.Count(p.body, `<pre class="config"`) != map[bool]int{true: 2, false: 1}[c.id == 4] {
				t.Errorf("%s: the configurations shown: %d", c.form.Get("name"), strings.Count(p.body, `<pre class="config"`))
			}
		}
		p := olga.do("GET", "/manage/sources", nil)
		p.lacks(t, "the list", `id="source-token"`, tokens[1], tokens[4])
		p.has(t, "the list", `<span class="when">Alertmanager (Prometheus) · last event never</span><br>`+"\n"+`<code class="url">`+hook(1)+`</code>`)
		src := caReadSource(t, srv, tok, 1)
		if src.Format != "alertmanager" || src.Heartbeat == nil || src.Heartbeat.Match["alertname"] != "Watchdog" || time.Duration(src.Heartbeat.Timeout) != 5*time.Minute {
			t.Errorf("source 1: %+v; want alertmanager, a heartbeat alertname=Watchdog within 5m", src)
		}
		if g := caReadSource(t, srv, tok, 2); !g.Signed {
			t.Error("source 2 has no HMAC secret")
		}
		// The Gatus source's token works on its hook: Gatus's own
		// triggered body, on website (3), drafts.
		gatus := caSourceOf(4)
		if got := caHook(t, srv, gatus, tokens[4], sgPayload(t, "gatus_triggered.json")); got[0] != "drafted" {
			t.Errorf("Gatus's alert: %v, want drafted", got)
		}
	})

	testserver.Step(t, "a source's page: its alerts that name no component, with the hint", func(t *testing.T) {
		gatus := caSourceOf(4)
		if got := caHook(t, srv, gatus, tokens[4], `{"dedup_key": "gatus:/cdn", "status": "TRIGGERED", "labels": {"component": "cdn", "endpoint": "<i>cdn</i>"}}`); got[0] != "unmapped" {
			t.Fatalf("an alert on no component: %v, want unmapped", got)
		}
		p := olga.do("GET", "/manage/sources/4", nil)
		p.want(t, "the source's page", 200, "")
		p.has(t, "the source's page", "<h1>Gatus</h1>", `<dd><code class="url">`+hook(4)+`</code></dd>`,
			"give the alert a statusd_component label naming a component key, or add a rule",
			`<code class="key">gatus:/cdn</code>`, `<div><dt>endpoint</dt><dd>&lt;i&gt;cdn&lt;/i&gt;</dd></div>`)
		// Only the unmapped: not Gatus's alert on website.
		p.lacks(t, "the source's page", "gatus:/website", `id="source-token"`)
	})

	testserver.Step(t, "rotate: the new token once; the old one is refused", func(t *testing.T) {
		p := olga.do("POST", "/manage/sources/3/rotate", url.Values{}, sameSite...)
		p.want(t, "rotate", 200, "")
		token := caToken(t, p)
		if token == tokens[3] {
			t.Fatal("the same token after a rotation")
		}
		if got, want := caConfig(t, p, "config-uptime-kuma"), "Notification Type: Webhook\nPost URL: "+hook(3)+
			"\nRequest Body: Preset - application/json\n"+`Additional Headers: {"Authorization": "Bearer `+token+`"}`+"\n"; got != want {
			t.Errorf("the configuration after the rotation:\n%s\nwant\n%s", got, want)
		}
		down := sgPayload(t, "uptime_kuma_down.json")
		r := testserver.Fetch(t, http.MethodPost, hook(3), down, testserver.Bearer(tokens[3])...)
		testserver.AssertError(t, "the old token", r, 401, "unauthorized")
		caHook(t, srv, caSourceOf(3), token, down)
	})

	testserver.Step(t, "change: name, rules and heartbeat; the form shows them", func(t *testing.T) {
		p := olga.do("GET", "/manage/sources/1", nil)
		p.has(t, "the change form", `<input id="heartbeat_match" name="heartbeat_match" value="alertname=Watchdog"`,
			`<input id="heartbeat_timeout" name="heartbeat_timeout" value="5m0s"`)
		p.lacks(t, "the change form", `id="secret"`) // only Grafana's has a secret
		olga.do("POST", "/manage/sources/1", url.Values{"name": {"Prometheus EU"}, "rules": {`[{"match": {"env": "staging"}, "action": "ignore"}]`},
			"heartbeat_match": {"alertname=Watchdog, env=prod"}, "heartbeat_timeout": {"10m"}}, sameSite...).want(t, "change", 303, "/manage/sources/1")
		src := caReadSource(t, srv, tok, 1)
		if src.Name != "Prometheus EU" || len(src.Rules) != 1 || src.Rules[0].Action != "ignore" || src.Rules[0].Match["env"] != "staging" ||
			fmt.Sprint(src.Heartbeat.Match) != "map[alertname:Watchdog env:prod]" || time.Duration(src.Heartbeat.Timeout) != 10*time.Minute {
			t.Errorf("source 1 after the change: %+v", src)
		}
		// The Grafana source: its secret kept when the field is empty,
		// taken away with the box.
		olga.do("POST", "/manage/sources/2", url.Values{"name": {"Grafana"}}, sameSite...).want(t, "keep the secret", 303, "/manage/sources/2")
		if !caReadSource(t, srv, tok, 2).Signed {
			t.Error("an empty secret field took the secret away")
		}
		olga.do("POST", "/manage/sources/2", url.Values{"name": {"Grafana"}, "clear_secret": {"on"}}, sameSite...).want(t, "no secret", 303, "/manage/sources/2")
		if caReadSource(t, srv, tok, 2).Signed {
			t.Error("the box did not take the secret away")
		}
	})

	testserver.Step(t, "remove, once confirmed", func(t *testing.T) {
		p := olga.do("POST", "/manage/sources/3/remove", url.Values{}, sameSite...)
		p.want(t, "remove unconfirmed", 422, "")
		p.has(t, "remove unconfirmed", `<p class="problem" id="confirm-problem" role="alert">tick the box to confirm the removal</p>`)
		caReadSource(t, srv, tok, 3)
		olga.do("POST", "/manage/sources/3/remove", url.Values{"confirm": {"yes"}}, sameSite...).want(t, "remove", 303, "/manage/sources")
		caAdmin(t, srv, tok, http.MethodGet, "/sources/3", "", 404)
		pat.do("POST", "/manage/sources/4/remove", url.Values{"confirm": {"yes"}}, sameSite...).want(t, "pat's remove", 403, "")
		caReadSource(t, srv, tok, 4)
	})
}

// caReadSource reads a source through the admin API.
func caReadSource(t *testing.T, srv *testserver.Server, tok string, id int64) statusd.AdminSource {
	t.Helper()
	return sgDecode[statusd.AdminSource](t, caAdmin(t, srv, tok, http.MethodGet, fmt.Sprintf("/sources/%d", id), "", 200))
}

// TestConsoleSourceURL: with --console-url, a hook's URL is under it.
func TestConsoleSourceURL(t *testing.T) {
	srv, _, adm := caStart(t, time.Now().UTC(), options{consoleURL: testserver.ConsoleURL})
	olga := signedIn(t, srv, adm, "olga@example.com", "owner")
	p := olga.do("POST", "/manage/sources", url.Values{"name": {"Prometheus"}, "format": {"alertmanager"}}, sameSite...)
	p.want(t, "add", 201, "")
	p.has(t, "add", `<code class="url" id="hook-url">`+testserver.ConsoleURL+`/hooks/v1/1</code>`)
	if cfg := caConfig(t, p, "config-alertmanager"); !strings.Contains(cfg, `      - url: "`+testserver.ConsoleURL+`/hooks/v1/1"`) {
		t.Errorf("the configuration:\n%s", cfg)
	}
}

// TestConsoleStaleSource: a source whose heartbeat (timeout 1s) came is
// ok, and home says nothing; 1.2 s later it is stale, and home says so
// to every role, linking an owner to the source.
func TestConsoleStaleSource(t *testing.T) {
	srv, tok, adm := caStart(t, time.Now().UTC(), options{})
	olga := signedIn(t, srv, adm, "olga@example.com", "owner")
	vic := signedIn(t, srv, adm, "vic@example.com", "viewer")
	src := caSource(t, srv, tok, `{"name": "Prometheus", "format": "alertmanager", "heartbeat": {"match": {"alertname": "Watchdog"}, "timeout": "1s"}}`)
	watchdog := sgPayload(t, "alertmanager.json", `"alertname": "InstanceDown",
        "instance": "api-1:9100"`, `"alertname": "Watchdog",
        "instance": "api-1:9100"`)
	if got := caHook(t, srv, src, src.Token, watchdog); got[0] != "heartbeat" {
		t.Fatalf("the Watchdog: %v, want heartbeat", got)
	}
	if s := caReadSource(t, srv, tok, src.ID); s.State != "ok" {
		t.Fatalf("after the heartbeat the source is %s, want ok", s.State)
	}
	vic.do("GET", "/manage", nil).lacks(t, "home, heard from", "has sent no heartbeat")
	time.Sleep(1200 * time.Millisecond)
	s := caReadSource(t, srv, tok, src.ID)
	if s.State != "stale" {
		t.Fatalf("1.2 s after the heartbeat the source is %s, want stale", s.State)
	}
	since := caClock(s.LastHeartbeatAt.Time, time.Now())
	vic.do("GET", "/manage", nil).has(t, "vic's home",
		`<p class="problem" role="alert">Prometheus has sent no heartbeat since `+since+`: alerts may not be reaching statusd.</p>`)
	olga.do("GET", "/manage", nil).has(t, "olga's home",
		`<p class="problem" role="alert"><a href="/manage/sources/1">Prometheus</a> has sent no heartbeat since `+since+`: alerts may not be reaching statusd.</p>`)
}
