package server_test

import (
	"context"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/client"
	"github.com/statusd/statusd/internal/testserver"
)

// The console's notice screens (CONTRACT C8): each action
// through an HTTP form with a session cookie, then the public API.

// sameSite is the header a browser sends with a form of the console's own.
var sameSite = []string{"Sec-Fetch-Site", "same-origin"}

// signedIn adds a user of role through the admin API and returns their
// browser, signed in through the setup link.
func signedIn(t *testing.T, srv *testserver.Server, adm *client.Admin, email, role string) *browser {
	t.Helper()
	u, err := adm.CreateUser(context.Background(), statusd.AdminUserRequest{Email: new(email), Role: new(role)})
	testserver.NoErr(t, "CreateUser "+email, err)
	b := newBrowser(t, srv.AdminURL)
	b.do("POST", "/manage/setup", url.Values{"token": {testserver.SetupToken(t, u.SetupURL)}, "password": {goodPassword}, "password2": {goodPassword}},
		sameSite...).want(t, "setup of "+email, 303, "/manage")
	return b
}

// has fails unless the screen's body holds each of want.
func (p screen) has(t *testing.T, what string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(p.body, w) {
			t.Errorf("%s lacks %s\n%s", what, w, p.body)
		}
	}
}

func TestConsoleNotices(t *testing.T) {
	now := time.Now().UTC()
	srv := startServer(t, consoleDoc(now), options{adminListener: true, allowPrivate: true})
	token := newToken(t, srv.DB, "alice")
	adm := srv.Admin(token)
	ctx := context.Background()
	pat := signedIn(t, srv, adm, "pat@example.com", "publisher")
	vic := signedIn(t, srv, adm, "vic@example.com", "viewer")
	hook := testserver.StartReceiver(t)
	_, err := adm.CreateSubscriber(ctx, statusd.AdminSubscriberRequest{Channel: new("webhook"), Address: new(hook.URL + "/hook")})
	testserver.NoErr(t, "CreateSubscriber", err)
	// The document has notices 10 and 11: the next is 12.
	const inc, mnt, ann = 12, 13, 14

	testserver.Step(t, "home links a publisher to the three forms, a viewer to none", func(t *testing.T) {
		home := pat.do("GET", "/manage", nil)
		home.want(t, "pat's home", 200, "")
		home.has(t, "pat's home", `<a href="/manage/incidents/new">Declare an incident</a>`,
			// The open incident 10 and the maintenance 11, to their screens.
			`<a href="/manage/notices/10">EU errors</a>`, `<a href="/manage/notices/11">Website move</a>`,
			`<a href="/manage/maintenance/new">Schedule maintenance</a>`, `<a href="/manage/announcements/new">Announce</a>`)
		home = vic.do("GET", "/manage", nil)
		home.want(t, "vic's home", 200, "")
		if strings.Contains(home.body, "/manage/incidents/new") {
			t.Errorf("a viewer's home links to the incident form:\n%s", home.body)
		}
	})

	testserver.Step(t, "the incident form: the component tree as checkboxes, notify on", func(t *testing.T) {
		p := pat.do("GET", "/manage/incidents/new", nil)
		p.want(t, "the incident form", 200, "")
		p.has(t, "the incident form", `<option value="investigating" selected>Investigating</option>`,
			`<input type="checkbox" name="component_ids" value="1"> API</label><ul class="checks picker">`+"\n"+
				`<li><label><input type="checkbox" name="component_ids" value="2"> API EU</label>`,
			`<input type="checkbox" name="notify" checked> Notify subscribers`)
	})

	testserver.Step(t, "invalid input: the form again, 422, the problem by its field, what was typed kept; nothing published", func(t *testing.T) {
		p := pat.do("POST", "/manage/incidents/new", url.Values{"subject": {"Login failures"}, "state": {"identified"},
			"component_ids": {"3"}, "content": {"  "}}, sameSite...)
		p.want(t, "an empty message", 422, "")
		p.has(t, "the form again", `<p class="problem" id="content-problem" role="alert">must not be empty</p>`, `value="Login failures"`,
			`<option value="identified" selected>`, `value="3" checked> Website`)
		if strings.Contains(p.body, `name="notify" checked`) {
			t.Error("notify was left off, and the form shows it on")
		}
		p = pat.do("POST", "/manage/incidents/new", url.Values{"subject": {"Login failures"}, "state": {"resolving"},
			"content": {"Fails."}}, sameSite...)
		p.want(t, "an unknown state", 422, "")
		p.has(t, "an unknown state", `<p class="problem" id="state-problem" role="alert">`)
		if n, err := adm.Notices(ctx, 1); err != nil || n.Meta.TotalCount != 2 {
			t.Errorf("notices after the refusals: %v %v, want the 2 of the document", n, err)
		}
	})

	testserver.Step(t, "declare an incident, notify off: 303 to its page, which shows the public page's state; the API has it", func(t *testing.T) {
		p := pat.do("POST", "/manage/incidents/new", url.Values{"subject": {"Login failures"}, "state": {"identified"},
			"component_ids": {"3"}, "content": {"Sign-in fails for some."}}, sameSite...)
		p.want(t, "declare", 303, "/manage/notices/12?done=published&component=3")
		n := srv.Notice(inc)
		if n.Type != "unplanned" || n.Subject != "Login failures" || testserver.Value(n.State) != "identified" || len(n.Components) != 1 || n.Components[0].ID != 3 {
			t.Errorf("the API's notice 12: %+v", n)
		}
		// Website (3) has an identified incident now: degraded.
		if got := srv.ComponentStates(); got[3] != "degraded" {
			t.Errorf("component states %v: want Website degraded", got)
		}
		p = pat.do("GET", "/manage/notices/12?done=published&component=3", nil)
		p.want(t, "the notice's page", 200, "")
		p.has(t, "the notice's page", `<strong>Published.</strong> The public page is now `+badge("degraded", "Degraded")+`: “Some systems are degraded”.`,
			`<a href="https://status.acme.test/notices/12">See this notice on the public page</a>`, `<h1>Login failures</h1>`,
			`Sign-in fails for some.`, `<dd>Website</dd>`)
	})

	testserver.Step(t, "post an update, notify on: the API has it, the subscriber hears of it and of nothing else", func(t *testing.T) {
		pat.do("POST", "/manage/notices/12/updates", url.Values{"form": {"update"}, "state": {"recovering"}, "content": {"Fix deployed."},
			"notify": {"on"}}, sameSite...).want(t, "update", 303, "/manage/notices/12?done=updated&component=3")
		n := srv.Notice(inc)
		if testserver.Value(n.State) != "recovering" || len(n.Updates) != 2 {
			t.Errorf("the API's notice 12: state %q, %d updates; want recovering, 2", testserver.Value(n.State), len(n.Updates))
		}
		// Two events: the update's, and Website's (3) change back to
		// operational (recovering is not current), from the degraded of
		// an incident of the default impact, minor. Website has no
		// parent; incident 10 is on API EU. The declaration, notify off,
		// stored neither its notice's event nor Website's change then.
		got := hook.Wait(t, 2)
		testserver.AssertJSON(t, "the webhooks", hookLines(t, got), []string{
			"component_update 3 degraded_performance operational",
			"notice.updated recovering Login failures",
		})
		if r := hookFind(t, got, "notice.updated recovering Login failures"); !strings.Contains(string(r.Body), "Fix deployed.") {
			t.Errorf("the webhook is not of the update: %s", r.Body)
		}
		d, err := adm.Deliveries(ctx, statusd.DeliveryFilter{}, 1)
		testserver.NoErr(t, "Deliveries", err)
		kinds := []string{}
		for _, x := range d.Deliveries {
			kinds = append(kinds, x.Event.Kind)
		}
		slices.Sort(kinds)
		if d.Meta.TotalCount != 2 || !slices.Equal(kinds, []string{"component_update", "notice.updated"}) {
			t.Errorf("%d deliveries %v: want 2, the update's and Website's component_update (the incident was declared with notify off)",
				d.Meta.TotalCount, kinds)
		}
		p := pat.do("GET", "/manage/notices/12", nil)
		// The timeline, newest first.
		if i, j := strings.Index(p.body, "Fix deployed."), strings.Index(p.body, "Sign-in fails for some."); i < 0 || j < i {
			t.Errorf("the timeline is not newest first:\n%s", p.body)
		}
	})

	testserver.Step(t, "resolve needs a message; then the incident is resolved and Website operational", func(t *testing.T) {
		p := pat.do("POST", "/manage/notices/12/updates", url.Values{"form": {"resolve"}, "state": {"resolved"}, "content": {""}}, sameSite...)
		p.want(t, "resolve without a message", 422, "")
		p.has(t, "resolve without a message", `<p class="problem" id="content-problem" role="alert">must not be empty</p>`)
		pat.do("POST", "/manage/notices/12/updates", url.Values{"form": {"resolve"}, "state": {"resolved"}, "content": {"All fine."}}, sameSite...).
			want(t, "resolve", 303, "/manage/notices/12?done=resolved&component=3")
		if n := srv.Notice(inc); testserver.Value(n.State) != "resolved" {
			t.Errorf("state %q, want resolved", testserver.Value(n.State))
		}
		if got := srv.ComponentStates(); got[3] != "operational" {
			t.Errorf("component states %v: want Website operational", got)
		}
		p = pat.do("GET", "/manage/notices/12", nil)
		p.has(t, "a resolved incident's page", `action="/manage/notices/12/reopen"`)
	})

	testserver.Step(t, "reopen: investigating again", func(t *testing.T) {
		pat.do("POST", "/manage/notices/12/reopen", url.Values{"form": {"reopen"}, "content": {"It is back."}}, sameSite...).
			want(t, "reopen", 303, "/manage/notices/12?done=reopened&component=3")
		if n := srv.Notice(inc); testserver.Value(n.State) != "investigating" || len(n.Updates) != 4 {
			t.Errorf("state %q, %d updates; want investigating, 4", testserver.Value(n.State), len(n.Updates))
		}
	})

	testserver.Step(t, "edit the subject and the components", func(t *testing.T) {
		p := pat.do("GET", "/manage/notices/12/edit", nil)
		p.want(t, "the edit form", 200, "")
		p.has(t, "the edit form", `value="Login failures"`, `value="3" checked> Website`)
		pat.do("POST", "/manage/notices/12/edit", url.Values{"subject": {"Login and signup failures"}, "component_ids": {"2", "3"}}, sameSite...).
			want(t, "edit", 303, "/manage/notices/12?done=edited&component=3&component=2")
		n := srv.Notice(inc)
		if n.Subject != "Login and signup failures" || len(n.Components) != 2 || n.Components[0].ID != 2 || n.Components[1].ID != 3 {
			t.Errorf("the API's notice 12: %q on %+v", n.Subject, n.Components)
		}
	})

	begins := now.Add(2 * time.Hour).Truncate(time.Minute)
	testserver.Step(t, "schedule maintenance: times in UTC, automated, the reminder said", func(t *testing.T) {
		p := pat.do("GET", "/manage/maintenance/new", nil)
		p.want(t, "the maintenance form", 200, "")
		p.has(t, "the maintenance form", "Subscribers are reminded 1 hour before it begins.", "Begins at (UTC)")
		form := url.Values{"subject": {"DB upgrade"}, "begins_at": {"tomorrow"}, "ends_at": {begins.Add(time.Hour).Format("2006-01-02T15:04")},
			"automate": {"on"}, "component_ids": {"1"}, "content": {"Upgrading."}}
		p = pat.do("POST", "/manage/maintenance/new", form, sameSite...)
		p.want(t, "a time that is not one", 422, "")
		p.has(t, "a time that is not one", `<p class="problem" id="begins_at-problem" role="alert">&#34;tomorrow&#34; is not a time: write it like 2026-01-31T09:30, in UTC</p>`)
		form.Set("begins_at", begins.Format("2006-01-02T15:04"))
		pat.do("POST", "/manage/maintenance/new", form, sameSite...).want(t, "schedule", 303, "/manage/notices/13?done=published&component=1")
		n, err := adm.Notice(ctx, mnt)
		testserver.NoErr(t, "Notice 13", err)
		if n.Type != "planned" || testserver.Value(n.State) != "scheduled" || n.BeginsAt == nil || !n.BeginsAt.Equal(begins) ||
			n.EndsAt == nil || !n.EndsAt.Equal(begins.Add(time.Hour)) || n.Automate == nil || !*n.Automate {
			t.Errorf("notice 13: %+v; want planned, scheduled, %v to an hour later, automated", n, begins)
		}
	})

	testserver.Step(t, "announce, with an expiry", func(t *testing.T) {
		expires := now.Add(48 * time.Hour).Truncate(time.Minute)
		pat.do("POST", "/manage/announcements/new", url.Values{"subject": {"New region"}, "content": {"EU-West opens."},
			"expires_at": {expires.Format("2006-01-02T15:04")}}, sameSite...).want(t, "announce", 303, "/manage/notices/14?done=published")
		n, err := adm.Notice(ctx, ann)
		testserver.NoErr(t, "Notice 14", err)
		if n.Type != "general" || n.Subject != "New region" || !testserver.Value(n.ExpiresAt).Equal(expires) {
			t.Errorf("notice 14: %+v; want general, New region, expiring %v", n, expires)
		}
		if _, err := srv.API.Notice(ctx, ann); err != nil {
			t.Errorf("the public API's notice 14: %v", err)
		}
	})

	testserver.Step(t, "delete: a confirmation says what goes; the POST deletes", func(t *testing.T) {
		p := pat.do("GET", "/manage/notices/14/delete", nil)
		p.want(t, "the confirmation", 200, "")
		p.has(t, "the confirmation", "Delete “New region”?", "This deletes Announcement 14 and its 1 update from")
		if _, err := srv.API.Notice(ctx, ann); err != nil {
			t.Errorf("the confirmation deleted notice 14: %v", err)
		}
		p = pat.do("POST", "/manage/notices/14/delete", url.Values{}, sameSite...)
		p.want(t, "delete", 200, "")
		p.has(t, "deleted", "Announcement 14, “New region”, and its updates are deleted.")
		if _, err := srv.API.Notice(ctx, ann); !client.IsNotFound(err) {
			t.Errorf("the public API's notice 14 after the deletion: %v, want 404", err)
		}
		pat.do("GET", "/manage/notices/14", nil).want(t, "the deleted notice's page", 404, "")
	})

	testserver.Step(t, "a viewer reads a notice without forms; each POST is 403 and changes nothing", func(t *testing.T) {
		p := vic.do("GET", "/manage/notices/12", nil)
		p.want(t, "vic reads notice 12", 200, "")
		if strings.Contains(p.body, "<form method=\"post\" action=\"/manage/notices/12") {
			t.Errorf("a viewer is shown a form:\n%s", p.body)
		}
		vic.do("GET", "/manage/incidents/new", nil).want(t, "vic's incident form", 403, "")
		before := srv.Notice(inc)
		for path, form := range map[string]url.Values{
			"/manage/incidents/new":      {"subject": {"Vic's"}, "content": {"x"}},
			"/manage/maintenance/new":    {"subject": {"Vic's"}, "content": {"x"}},
			"/manage/announcements/new":  {"subject": {"Vic's"}, "content": {"x"}},
			"/manage/notices/12/updates": {"content": {"x"}},
			"/manage/notices/12/reopen":  {"content": {"x"}},
			"/manage/notices/12/edit":    {"subject": {"Vic's"}},
			"/manage/notices/12/delete":  {},
		} {
			vic.do("POST", path, form, sameSite...).want(t, "vic's POST "+path, 403, "")
		}
		after := srv.Notice(inc)
		if after.Subject != before.Subject || len(after.Updates) != len(before.Updates) {
			t.Errorf("notice 12 changed: %q, %d updates; was %q, %d", after.Subject, len(after.Updates), before.Subject, len(before.Updates))
		}
		if n, err := adm.Notices(ctx, 1); err != nil || n.Meta.TotalCount != 4 {
			t.Errorf("notices: %v %v, want 4 (10 to 13)", n, err)
		}
	})

	testserver.Step(t, "a cross-site update is 403 and changes nothing", func(t *testing.T) {
		pat.do("POST", "/manage/notices/12/updates", url.Values{"content": {"Forged."}}, "Sec-Fetch-Site", "cross-site").
			want(t, "a cross-site update", 403, "")
		if n := srv.Notice(inc); len(n.Updates) != 4 {
			t.Errorf("%d updates, want 4", len(n.Updates))
		}
		pat.do("GET", "/manage/notices/999", nil).want(t, "a notice that never was", 404, "")
	})

	testserver.Step(t, "the audit log names the person", func(t *testing.T) {
		a, err := adm.Audit(ctx, 1)
		testserver.NoErr(t, "Audit", err)
		var got []string
		for _, e := range a.Audit[:8] {
			got = append(got, e.Actor+" "+e.Action+" "+e.Target)
		}
		want := []string{
			"pat@example.com notice.delete notice 14", "pat@example.com notice.create notice 14",
			"pat@example.com notice.create notice 13", "pat@example.com notice.update notice 12",
			"pat@example.com notice.reopen notice 12", "pat@example.com notice.post_update notice 12",
			"pat@example.com notice.post_update notice 12", "pat@example.com notice.create notice 12",
		}
		if strings.Join(got, "; ") != strings.Join(want, "; ") {
			t.Errorf("audit\n%q\nwant\n%q", got, want)
		}
	})
}
