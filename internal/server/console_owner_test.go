package server_test

import (
	"context"
	"errors"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/client"
	"github.com/statusd/statusd/internal/testserver"
)

// The owner's screens of the console (CONTRACT C8): components, the page,
// tokens, users and the audit log, each checked afterwards through the
// public API or the admin API; and the tokens of the admin API.

// signIn adds a user with role through the admin API, sets its password
// through the setup link and returns its signed-in browser.
func signIn(t *testing.T, srv *testserver.Server, adm *client.Admin, email, role string) *browser {
	t.Helper()
	u, err := adm.CreateUser(context.Background(), statusd.AdminUserRequest{Email: &email, Role: &role})
	testserver.NoErr(t, "CreateUser", err)
	b := newBrowser(t, srv.AdminURL)
	b.do("POST", "/manage/setup", url.Values{"token": {testserver.SetupToken(t, u.SetupURL)}, "password": {goodPassword}, "password2": {goodPassword}}).
		want(t, "setup of "+email, 303, "/manage")
	return b
}

// publicOrder is the public list's components, by name, in their order.
func publicOrder(srv *testserver.Server) []string {
	var names []string
	for _, c := range srv.Components().Components {
		names = append(names, c.Name)
	}
	return names
}

// wantOrder fails unless the public list holds names, in that order.
func wantOrder(t *testing.T, srv *testserver.Server, names ...string) {
	t.Helper()
	if got := publicOrder(srv.In(t)); strings.Join(got, ", ") != strings.Join(names, ", ") {
		t.Errorf("public components %q, want %q", got, names)
	}
}

func TestConsoleOwnerScreens(t *testing.T) {
	now := time.Now().UTC()
	srv := startServer(t, consoleDoc(now), options{adminListener: true})
	token := newToken(t, srv.DB, "alice")
	adm := srv.Admin(token)
	ctx := context.Background()
	owner := signIn(t, srv, adm, "olga@example.com", "owner")
	const comps = "/manage/components"

	testserver.Step(t, "an owner adds a component under API; the public API has it, placed after API's group", func(t *testing.T) {
		owner.do("POST", comps, url.Values{"name": {"Database"}, "description": {"Primary"}, "parent_id": {"1"}, "metrics_enabled": {"on"}}).
			want(t, "add", 303, comps+"?done=component-added&component=4")
		// The doc's ids are 1 to 3: the new one is 4, under API (1), right
		// after API EU, before Website.
		c := srv.In(t).Component(4)
		if c.Name != "Database" || c.Description != "Primary" || c.ParentID == nil || *c.ParentID != 1 || c.MetricsSummary.Value == nil {
			t.Errorf("component 4 %+v: want Database, Primary, under 1, with metrics", c)
		}
		wantOrder(t, srv, "API", "API EU", "Database", "Website")
	})

	testserver.Step(t, "invalid input is shown again at its field, 422, the values kept, nothing added", func(t *testing.T) {
		p := owner.do("POST", comps, url.Values{"name": {"  "}, "description": {"kept text"}})
		p.want(t, "a blank name", 422, "")
		for _, want := range []string{"must not be empty", `value="kept text"`} {
			if !strings.Contains(p.body, want) {
				t.Errorf("the refused form lacks %q:\n%s", want, p.body)
			}
		}
		p = owner.do("POST", comps, url.Values{"name": {"Cache"}, "parent_id": {"99"}})
		p.want(t, "an unknown parent", 422, "")
		if !strings.Contains(p.body, "no component has id 99") || !strings.Contains(p.body, `value="Cache"`) {
			t.Errorf("an unknown parent:\n%s", p.body)
		}
		wantOrder(t, srv, "API", "API EU", "Database", "Website")
	})

	testserver.Step(t, "rename it and move it to the top level, then up above API", func(t *testing.T) {
		owner.do("POST", comps+"/4", url.Values{"name": {"Database EU"}, "description": {""}, "parent_id": {""}}).want(t, "change", 303, comps+"?done=component-changed&component=4&component=1")
		c := srv.In(t).Component(4)
		if c.Name != "Database EU" || c.ParentID != nil || c.MetricsSummary.Value != nil {
			t.Errorf("component 4 %+v: want Database EU, at the top, metrics off (the box was not ticked)", c)
		}
		// At the top, between API (position 1) and Website (4), it stays
		// third; its up button moves it to API's position.
		p := owner.do("GET", comps, nil)
		p.want(t, "the tree", 200, "")
		up := `action="/manage/components/4/move"><input type="hidden" name="position" value="1">`
		if !strings.Contains(p.body, up) {
			t.Fatalf("no up button to position 1 for Database EU:\n%s", p.body)
		}
		owner.do("POST", comps+"/4/move", url.Values{"position": {"1"}}).want(t, "move up", 303, comps+"?done=component-moved&component=4")
		wantOrder(t, srv, "Database EU", "API", "API EU", "Website")
	})

	testserver.Step(t, "the component form sets a key, shows it, refuses a bad one at its field, and clears it", func(t *testing.T) {
		edit := func(key string) screen {
			return owner.do("POST", comps+"/4", url.Values{"name": {"Database EU"}, "key": {key}, "description": {""}, "parent_id": {""}})
		}
		key := func(want string) {
			t.Helper()
			got, err := adm.Component(ctx, 4)
			testserver.NoErr(t, "GET /components/4", err)
			if have := got.Key; (have == nil) != (want == "") || have != nil && *have != want {
				t.Errorf("component 4's key %v, want %q (\"\": none)", have, want)
			}
		}
		edit("db-eu").want(t, "a key", 303, comps+"?done=component-changed&component=4")
		key("db-eu")
		if p := owner.do("GET", comps+"/4", nil); !strings.Contains(p.body, `<input id="key" name="key" value="db-eu"`) {
			t.Errorf("the form does not show the key:\n%s", p.body)
		}
		p := owner.do("POST", comps, url.Values{"name": {"Cache"}, "key": {"DB EU"}})
		p.want(t, "a malformed key", 422, "")
		if !strings.Contains(p.body, "is not a key") || !strings.Contains(p.body, `value="DB EU"`) || !strings.Contains(p.body, `id="key-problem"`) {
			t.Errorf("a malformed key, at its field:\n%s", p.body)
		}
		edit("").want(t, "no key", 303, comps+"?done=component-changed&component=4")
		key("")
		wantOrder(t, srv, "Database EU", "API", "API EU", "Website")
	})

	testserver.Step(t, "delete asks for confirmation and offers the API's recursive choice", func(t *testing.T) {
		p := owner.do("POST", comps+"/4/delete", url.Values{})
		p.want(t, "delete unconfirmed", 422, "")
		if !strings.Contains(p.body, "tick the box to confirm") {
			t.Errorf("unconfirmed delete:\n%s", p.body)
		}
		p = owner.do("POST", comps+"/1/delete", url.Values{"confirm": {"yes"}})
		p.want(t, "API, which has API EU below it, without recursive", 409, "")
		if !strings.Contains(p.body, "component 1 has 1 components below it") {
			t.Errorf("a subtree without recursive:\n%s", p.body)
		}
		owner.do("POST", comps+"/4/delete", url.Values{"confirm": {"yes"}}).want(t, "delete", 303, comps+"?done=component-deleted")
		wantOrder(t, srv, "API", "API EU", "Website")
	})

	testserver.Step(t, "page settings: the name and a state text; a bad url is refused at its field", func(t *testing.T) {
		p := owner.do("POST", "/manage/page", url.Values{"name": {"Acme"}, "url": {"ftp://status.acme.test"}})
		p.want(t, "a bad url", 422, "")
		if !strings.Contains(p.body, `value="ftp://status.acme.test"`) || !strings.Contains(p.body, `class="problem"`) {
			t.Errorf("a bad url:\n%s", p.body)
		}
		owner.do("POST", "/manage/page", url.Values{"name": {"Acme Two"}, "url": {"https://status.acme.test"},
			"operational": {""}, "degraded": {"Trouble on some systems"}, "under_maintenance": {""}}).want(t, "save", 303, "/manage/page?done=page-saved")
		// The incident on API EU keeps the page degraded: its text shows.
		if st := srv.In(t).Status(); st.Name != "Acme Two" || st.State != "degraded" || st.StateText != "Trouble on some systems" {
			t.Errorf("status %+v: want Acme Two, degraded, Trouble on some systems", st)
		}
	})

	var secret string
	testserver.Step(t, "an owner creates a token, shown once, and revokes it; it is refused then", func(t *testing.T) {
		p := owner.do("POST", "/manage/tokens", url.Values{"name": {"deploy"}})
		p.want(t, "create", 201, "")
		secret = regexp.MustCompile(`sdt_[A-Za-z0-9_-]{43}`).FindString(p.body)
		if secret == "" {
			t.Fatalf("no secret shown:\n%s", p.body)
		}
		if _, err := srv.Admin(secret).Page(ctx); err != nil {
			t.Errorf("the new token: %v", err)
		}
		if strings.Contains(owner.do("GET", "/manage/tokens", nil).body, secret) {
			t.Error("the list shows the secret again")
		}
		owner.do("POST", "/manage/tokens/deploy/revoke", nil).want(t, "revoke", 303, "/manage/tokens")
		// The form's role: a publisher token, listed as one, refused what
		// only an owner may do; a role that is not one, at its field.
		p = owner.do("POST", "/manage/tokens", url.Values{"name": {"bot"}, "role": {"publisher"}})
		p.want(t, "create bot, a publisher", 201, "")
		bot := regexp.MustCompile(`sdt_[A-Za-z0-9_-]{43}`).FindString(p.body)
		if _, err := srv.Admin(bot).CreateToken(ctx, "more"); !isStatus(err, http.StatusForbidden) {
			t.Errorf("the publisher token creating a token: %v, want 403", err)
		}
		if p := owner.do("GET", "/manage/tokens", nil); !strings.Contains(p.body, "<tr><td>bot</td><td>publisher</td>") {
			t.Errorf("the list does not show bot's role:\n%s", p.body)
		}
		p = owner.do("POST", "/manage/tokens", url.Values{"name": {"root"}, "role": {"root"}})
		p.want(t, "a role that is not one", 422, "")
		if !strings.Contains(p.body, `id="role-problem"`) || !strings.Contains(p.body, "is not a role") {
			t.Errorf("a bad role, at its field:\n%s", p.body)
		}
		owner.do("POST", "/manage/tokens/bot/revoke", nil).want(t, "revoke bot", 303, "/manage/tokens")
		// A name with a slash, a question mark and a hash is one segment
		// of its revoke form's path.
		owner.do("POST", "/manage/tokens", url.Values{"name": {"ci/bot?#1"}}).want(t, "create ci/bot?#1", 201, "")
		p = owner.do("GET", "/manage/tokens", nil)
		if !strings.Contains(p.body, `action="/manage/tokens/ci%2Fbot%3F%231/revoke"`) {
			t.Fatalf("no revoke form for ci/bot?#1:\n%s", p.body)
		}
		owner.do("POST", "/manage/tokens/ci%2Fbot%3F%231/revoke", nil).want(t, "revoke ci/bot?#1", 303, "/manage/tokens")
		if list, err := adm.Tokens(ctx); err != nil || len(list) != 1 || list[0].Name != "alice" {
			t.Errorf("tokens %+v, %v: want alice alone", list, err)
		}
		if _, err := srv.Admin(secret).Page(ctx); !isStatus(err, http.StatusUnauthorized) {
			t.Errorf("the revoked token: %v, want 401", err)
		}
	})

	testserver.Step(t, "an owner adds a viewer, shown the setup link once", func(t *testing.T) {
		p := owner.do("POST", "/manage/users", url.Values{"email": {"nope"}, "role": {"viewer"}})
		p.want(t, "a bad email", 422, "")
		p = owner.do("POST", "/manage/users", url.Values{"email": {"Val@Example.com"}, "role": {"viewer"}})
		p.want(t, "add", 201, "")
		// The console is on its own listener (--admin-addr alone): its URL
		// is unknown, so the link is its path alone (docs/CONSOLE.md).
		if !strings.Contains(p.body, `id="setup-link">/manage/setup?token=`) {
			t.Errorf("no setup link:\n%s", p.body)
		}
		users, err := adm.Users(ctx)
		testserver.NoErr(t, "Users", err)
		if len(users) != 2 || users[1].Email != "val@example.com" || users[1].Role != "viewer" || users[1].State != "pending" {
			t.Errorf("users %+v: want olga, then val@example.com, viewer, pending", users)
		}
	})

	viewer := signIn(t, srv, adm, "vic@example.com", "viewer")
	publisher := signIn(t, srv, adm, "pat@example.com", "publisher")
	testserver.Step(t, "a viewer and a publisher see the screens without forms; their POSTs are 403 and change nothing", func(t *testing.T) {
		before := srv.In(t).AuditTotal(token)
		for role, b := range map[string]*browser{"viewer": viewer, "publisher": publisher} {
			for _, path := range []string{comps, "/manage/page", "/manage/tokens", "/manage/users", "/manage/audit", "/manage/subscribers", "/manage/deliveries"} {
				p := b.do("GET", path, nil)
				p.want(t, path, 200, "")
				if n := strings.Count(p.body, `method="post"`); n != 1 { // sign out
					t.Errorf("%s shows %d forms to a %s, want only sign out", path, n-1, role)
				}
			}
			for path, form := range map[string]url.Values{
				comps:                            {"name": {"X"}},
				comps + "/1":                     {"name": {"X"}},
				comps + "/1/move":                {"position": {"3"}},
				comps + "/3/delete":              {"confirm": {"yes"}},
				"/manage/page":                   {"name": {"X"}},
				"/manage/tokens":                 {"name": {"x"}},
				"/manage/tokens/alice/revoke":    {},
				"/manage/users":                  {"email": {"x@example.com"}, "role": {"owner"}},
				"/manage/users/1/reset":          {},
				"/manage/users/1/remove":         {},
				"/manage/subscribers":            {"channel": {"email"}, "address": {"x@example.com"}},
				"/manage/subscribers/1":          {"component_ids": {"1"}},
				"/manage/subscribers/1/activate": {},
				"/manage/subscribers/1/remove":   {},
			} {
				b.do("POST", path, form).want(t, role+" POST "+path, 403, "")
			}
		}
		if after := srv.In(t).AuditTotal(token); after != before {
			t.Errorf("the audit log went from %d to %d entries", before, after)
		}
		wantOrder(t, srv, "API", "API EU", "Website")
	})

	testserver.Step(t, "a cross-site POST is refused and changes nothing", func(t *testing.T) {
		owner.do("POST", comps, url.Values{"name": {"Evil"}}, "Sec-Fetch-Site", "cross-site").want(t, "cross-site", 403, "")
		owner.do("POST", comps, url.Values{"name": {"Evil"}}, "Origin", "https://evil.test").want(t, "foreign origin", 403, "")
		wantOrder(t, srv, "API", "API EU", "Website")
	})

	testserver.Step(t, "the audit log names the person, in the console and the admin API", func(t *testing.T) {
		a, err := adm.Audit(ctx, 1)
		testserver.NoErr(t, "Audit", err)
		// Newest first: the viewer's and publisher's accounts (by the
		// token alice), then olga's actions.
		by := map[string]string{}
		for _, e := range a.Audit {
			if _, seen := by[e.Action]; !seen {
				by[e.Action] = e.Actor
			}
		}
		for action, actor := range map[string]string{"component.create": "olga@example.com", "component.update": "olga@example.com",
			"component.delete": "olga@example.com", "page.update": "olga@example.com", "token.create": "olga@example.com",
			"token.revoke": "olga@example.com", "user.create": "alice"} {
			if by[action] != actor {
				t.Errorf("the newest %s is by %q, want %q", action, by[action], actor)
			}
		}
		p := owner.do("GET", "/manage/audit", nil)
		p.want(t, "audit", 200, "")
		if !strings.Contains(p.body, "<td>olga@example.com</td><td>token.revoke</td><td>token deploy</td>") {
			t.Errorf("the audit screen does not name olga for the revoke:\n%s", p.body)
		}
	})

	testserver.Step(t, "an owner resets the viewer and removes the publisher; their sessions end", func(t *testing.T) {
		// Users by id: olga 1, val 2, vic 3, pat 4.
		p := owner.do("POST", "/manage/users/3/reset", url.Values{})
		p.want(t, "reset vic", 200, "")
		if !strings.Contains(p.body, `id="setup-link">/manage/setup?token=`) || !strings.Contains(p.body, "vic@example.com") {
			t.Errorf("no new setup link for vic:\n%s", p.body)
		}
		owner.do("POST", "/manage/users/4/remove", url.Values{}).want(t, "remove pat", 303, "/manage/users")
		viewer.do("GET", "/manage", nil).want(t, "vic after the reset", 303, "/manage/login")
		publisher.do("GET", "/manage", nil).want(t, "pat after the removal", 303, "/manage/login")
		users, err := adm.Users(ctx)
		testserver.NoErr(t, "Users", err)
		var got []string
		for _, u := range users {
			got = append(got, u.Email+" "+u.State)
		}
		if want := "olga@example.com active, val@example.com pending, vic@example.com pending"; strings.Join(got, ", ") != want {
			t.Errorf("users %q, want %s", got, want)
		}
	})
}

// isStatus reports whether err is an answer of the server with status.
func isStatus(err error, status int) bool {
	e, ok := errors.AsType[*client.Error](err)
	return ok && e.Status == status
}

func TestAdminTokensAPI(t *testing.T) {
	srv := startServer(t, consoleDoc(time.Now().UTC()), options{})
	alice := newToken(t, srv.DB, "alice")
	adm := srv.Admin(alice)
	ctx := context.Background()
	var secret string

	testserver.Step(t, "create answers the secret once; the name is required and unique", func(t *testing.T) {
		tok, err := adm.CreateToken(ctx, "deploy")
		testserver.NoErr(t, "CreateToken", err)
		// sdt_ and 32 random bytes in unpadded base64url: 4 + 43.
		if secret = tok.Secret; tok.Name != "deploy" || !strings.HasPrefix(secret, "sdt_") || len(secret) != 47 || tok.LastUsedAt != nil {
			t.Errorf("token %+v: want deploy, a 47-character sdt_ secret, never used", tok)
		}
		if _, err := adm.CreateToken(ctx, "deploy"); !isStatus(err, http.StatusConflict) {
			t.Errorf("the same name again: %v, want 409", err)
		}
		if _, err := adm.CreateToken(ctx, " "); !isStatus(err, http.StatusUnprocessableEntity) || !strings.Contains(err.Error(), "name: is required") {
			t.Errorf("a blank name: %v, want 422 naming the field", err)
		}
		long := strings.Repeat("x", 101)
		if _, err := adm.CreateToken(ctx, long); !isStatus(err, http.StatusUnprocessableEntity) || !strings.Contains(err.Error(), "name: is 101 bytes long; at most 100") {
			t.Errorf("a 101-byte name: %v, want 422", err)
		}
		// statusd token create keeps the same rule (cmd/statusd's
		// TestTokenCreateNameRule).
	})

	testserver.Step(t, "the list names the tokens, never a secret or hash", func(t *testing.T) {
		list, err := adm.Tokens(ctx)
		testserver.NoErr(t, "Tokens", err)
		if len(list) != 2 || list[0].Name != "alice" || list[1].Name != "deploy" || list[0].Secret != "" {
			t.Errorf("tokens %+v: want alice, deploy, no secrets", list)
		}
		raw := string(srv.In(t).Authed("GET", testserver.AdminRoot+"/tokens", alice, "").Body)
		for _, never := range []string{"secret", "hash", secret} {
			if strings.Contains(raw, never) {
				t.Errorf("GET /tokens says %q: %s", never, raw)
			}
		}
	})

	testserver.Step(t, "the new token works; revoked, it is refused 401", func(t *testing.T) {
		if _, err := srv.Admin(secret).Page(ctx); err != nil {
			t.Fatalf("the new token: %v", err)
		}
		testserver.NoErr(t, "RevokeToken", adm.RevokeToken(ctx, "deploy"))
		if _, err := srv.Admin(secret).Page(ctx); !isStatus(err, http.StatusUnauthorized) {
			t.Errorf("the revoked token: %v, want 401", err)
		}
		if err := adm.RevokeToken(ctx, "deploy"); !isStatus(err, http.StatusNotFound) {
			t.Errorf("revoking again: %v, want 404", err)
		}
	})

	testserver.Step(t, "the audit log has the create and the revoke, by alice", func(t *testing.T) {
		a, err := adm.Audit(ctx, 1)
		testserver.NoErr(t, "Audit", err)
		if len(a.Audit) < 2 || a.Audit[0].Action != "token.revoke" || a.Audit[1].Action != "token.create" ||
			a.Audit[0].Actor != "alice" || a.Audit[1].Actor != "alice" || a.Audit[0].Target != "token deploy" {
			t.Errorf("audit %+v: want token.revoke, then token.create, of token deploy, by alice", a.Audit[:min(2, len(a.Audit))])
		}
	})
}

func TestConsoleSubscribers(t *testing.T) {
	srv := startServer(t, consoleDoc(time.Now().UTC()), options{adminListener: true, allowPrivate: true})
	recv := testserver.StartReceiver(t)
	adm := srv.Admin(newToken(t, srv.DB, "alice"))
	ctx := context.Background()
	owner := signIn(t, srv, adm, "olga@example.com", "owner")
	publisher := signIn(t, srv, adm, "pat@example.com", "publisher")
	const subs = "/manage/subscribers"

	testserver.Step(t, "an owner adds a webhook following Website; its secret is shown once", func(t *testing.T) {
		p := owner.do("POST", subs, url.Values{"channel": {"webhook"}, "address": {recv.URL + "/hook"}, "component_ids": {"3"}})
		p.want(t, "add", 201, "")
		if !regexp.MustCompile(`whsec_[A-Za-z0-9+/]{43}=`).MatchString(html.UnescapeString(p.body)) {
			t.Errorf("no secret shown:\n%s", p.body)
		}
		s, err := adm.Subscriber(ctx, 1)
		testserver.NoErr(t, "Subscriber 1", err)
		if s.Channel != "webhook" || s.State != "active" || len(s.ComponentIDs) != 1 || s.ComponentIDs[0] != 3 || s.Secret != "" {
			t.Errorf("subscriber 1 %+v: want an active webhook following 3", s)
		}
		p = owner.do("POST", subs, url.Values{"channel": {"email"}, "address": {"not an address"}})
		p.want(t, "a bad address", 422, "")
		if !strings.Contains(p.body, `value="not an address"`) || !strings.Contains(p.body, "<option selected>email</option>") {
			t.Errorf("the refused form does not keep its values:\n%s", p.body)
		}
	})

	testserver.Step(t, "set what it follows: API and API EU, then nothing ticked, the whole page", func(t *testing.T) {
		owner.do("POST", subs+"/1", url.Values{"component_ids": {"1", "2"}}).want(t, "follow 1 and 2", 303, subs)
		s, err := adm.Subscriber(ctx, 1)
		testserver.NoErr(t, "Subscriber 1", err)
		if len(s.ComponentIDs) != 2 || s.ComponentIDs[0] != 1 || s.ComponentIDs[1] != 2 {
			t.Errorf("follows %v, want [1 2]", s.ComponentIDs)
		}
		owner.do("POST", subs+"/1", url.Values{}).want(t, "follow the page", 303, subs)
		if s, _ := adm.Subscriber(ctx, 1); s == nil || len(s.ComponentIDs) != 0 {
			t.Errorf("follows %+v, want the whole page", s)
		}
	})

	testserver.Step(t, "a pending address cannot be set active; a publisher cannot remove", func(t *testing.T) {
		owner.do("POST", subs, url.Values{"channel": {"email"}, "address": {"bob@example.com"}}).want(t, "add bob", 303, subs)
		p := owner.do("POST", subs+"/2/activate", url.Values{})
		p.want(t, "activate a pending address", 422, "")
		if !strings.Contains(p.body, "subscriber 2 is pending") {
			t.Errorf("activate pending:\n%s", p.body)
		}
		publisher.do("POST", subs+"/1/remove", url.Values{}).want(t, "a publisher removes", 403, "")
	})

	testserver.Step(t, "a publisher sends a test; the receiver has it and the delivery log shows it", func(t *testing.T) {
		p := publisher.do("POST", subs+"/1/test", url.Values{})
		p.want(t, "test", 201, "")
		if !strings.Contains(p.body, "Test message to subscriber 1: delivery") || !strings.Contains(p.body, "delivered") {
			t.Errorf("the test's outcome:\n%s", p.body)
		}
		if got := recv.Wait(t, 1); got[0].Path != "/hook" {
			t.Errorf("the receiver got %s, want /hook", got[0].Path)
		}
		d, err := adm.Deliveries(ctx, statusd.DeliveryFilter{SubscriberID: 1}, 1)
		testserver.NoErr(t, "Deliveries", err)
		if len(d.Deliveries) != 1 || d.Deliveries[0].State != "delivered" || d.Deliveries[0].Attempts != 1 {
			t.Fatalf("deliveries %+v: want one, delivered at the first attempt", d.Deliveries)
		}
		row := "<tr><td>" + strconv.FormatInt(d.Deliveries[0].ID, 10) + "</td><td>1</td><td>test</td><td>delivered</td><td>1</td>"
		if p := publisher.do("GET", "/manage/deliveries?subscriber_id=1", nil); !strings.Contains(p.body, row) {
			t.Errorf("the log lacks %s:\n%s", row, p.body)
		}
		// Failed: bob's confirmation alone, dropped as email is off (no
		// --smtp-url); the test message, delivered, is not shown.
		if p := publisher.do("GET", "/manage/deliveries?state=failed", nil); !strings.Contains(p.body, "1 deliveries") ||
			!strings.Contains(p.body, "<td>2</td><td>subscription.confirm</td><td>failed</td><td>0</td>") || strings.Contains(p.body, "<td>delivered</td>") {
			t.Errorf("failed deliveries: want bob's confirmation alone:\n%s", p.body)
		}
		publisher.do("GET", "/manage/deliveries?state=lost", nil).want(t, "an unknown state", 400, "")
	})

	testserver.Step(t, "an owner removes the webhook; the admin API no longer has it", func(t *testing.T) {
		owner.do("POST", subs+"/1/remove", url.Values{}).want(t, "remove", 303, subs)
		if _, err := adm.Subscriber(ctx, 1); !isStatus(err, http.StatusNotFound) {
			t.Errorf("subscriber 1 after removal: %v, want 404", err)
		}
	})
}
