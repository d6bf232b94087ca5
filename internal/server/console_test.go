package server_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
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

// The operator console (CONTRACT C8): users, setup links, sign-in,
// sessions, the home screen and the refusals.

// consoleDoc is a page of three components, API (with the child API EU)
// and Website, an incident on API EU open since 40 minutes before now and
// last updated 7 minutes 30 seconds before now, and a maintenance of
// Website tomorrow.
func consoleDoc(now time.Time) *statusd.Document {
	at := func(d time.Duration) time.Time { return now.Add(d).Truncate(time.Millisecond) }
	eu, api := int64(2), int64(1)
	begins, ends := at(24*time.Hour), at(25*time.Hour)
	return &statusd.Document{
		Page: statusd.Page{Name: "Acme Status", URL: "https://status.acme.test", CreatedAt: at(-48 * time.Hour), UpdatedAt: at(-48 * time.Hour),
			StateTexts: statusd.StateTexts{Degraded: "Some systems are degraded"}},
		Components: []statusd.Component{
			{ID: api, Position: 1, Name: "API", CreatedAt: at(-48 * time.Hour), UpdatedAt: at(-48 * time.Hour)},
			{ID: eu, ParentID: &api, Position: 2, Name: "API EU", CreatedAt: at(-48 * time.Hour), UpdatedAt: at(-48 * time.Hour)},
			{ID: 3, Position: 3, Name: "Website", CreatedAt: at(-48 * time.Hour), UpdatedAt: at(-48 * time.Hour)},
		},
		Notices: []statusd.Notice{
			{ID: 10, Type: statusd.Unplanned, Subject: "EU errors", TagList: []string{}, ComponentIDs: []int64{eu},
				CreatedAt: at(-40 * time.Minute), UpdatedAt: at(-450 * time.Second),
				Updates: []statusd.Update{
					{ID: 1, State: statusd.Investigating, Content: "Looking.", CreatedAt: at(-40 * time.Minute), UpdatedAt: at(-40 * time.Minute)},
					{ID: 2, State: statusd.Identified, Content: "Found it.", CreatedAt: at(-450 * time.Second), UpdatedAt: at(-450 * time.Second)},
				}},
			{ID: 11, Type: statusd.Planned, Subject: "Website move", TagList: []string{}, ComponentIDs: []int64{3},
				BeginsAt: &begins, EndsAt: &ends, CreatedAt: at(-time.Hour), UpdatedAt: at(-time.Hour),
				Updates: []statusd.Update{{ID: 3, State: statusd.Scheduled, Content: "Planned.", CreatedAt: at(-time.Hour), UpdatedAt: at(-time.Hour)}}},
		},
	}
}

// browser is a person's browser at the console: it keeps the session
// cookie and does not follow redirects, so that each answer is seen.
type browser struct {
	t       *testing.T
	base    string // the console's listener
	session string
	client  *http.Client
}

func newBrowser(t *testing.T, base string) *browser {
	return &browser{t: t, base: base, client: &http.Client{Timeout: 20 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

// screen is an answer of the console.
type screen struct {
	status   int
	header   http.Header
	body     string
	location string
}

// do sends a request, a form when form is not nil, with headers as name,
// value pairs, and keeps the session cookie it sets.
func (b *browser) do(method, path string, form url.Values, header ...string) screen {
	b.t.Helper()
	var body *strings.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	} else {
		body = strings.NewReader("")
	}
	req, err := http.NewRequest(method, b.base+path, body)
	if err != nil {
		b.t.Fatal(err)
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	if b.session != "" {
		req.AddCookie(&http.Cookie{Name: "statusd_session", Value: b.session})
	}
	res, err := b.client.Do(req)
	if err != nil {
		b.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		b.t.Fatal(err)
	}
	for _, c := range res.Cookies() {
		if c.Name == "statusd_session" {
			b.session = c.Value
		}
	}
	return screen{status: res.StatusCode, header: res.Header, body: string(raw), location: res.Header.Get("Location")}
}

// want fails unless the answer has the status (and, for a redirect, goes
// to location).
func (p screen) want(t *testing.T, what string, status int, location string) {
	t.Helper()
	if p.status != status || p.location != location {
		t.Fatalf("%s: %d to %q, want %d to %q\n%s", what, p.status, p.location, status, location, p.body)
	}
}

const goodPassword = "correct horse battery"

func TestConsoleSignInAndHome(t *testing.T) {
	now := time.Now().UTC()
	srv := startServer(t, consoleDoc(now), options{adminListener: true, consoleURL: testserver.ConsoleURL})
	token := newToken(t, srv.DB, "alice")
	adm := srv.Admin(token)
	ctx := context.Background()
	b := newBrowser(t, srv.AdminURL)
	var link string

	testserver.Step(t, "an owner adds a publisher and gets a setup link", func(t *testing.T) {
		u, err := adm.CreateUser(ctx, statusd.AdminUserRequest{Email: new("Pat@Example.com"), Role: new("publisher")})
		testserver.NoErr(t, "CreateUser", err)
		if u.ID != 1 || u.Email != "pat@example.com" || u.Role != "publisher" || u.State != "pending" {
			t.Errorf("user %+v: want user 1, pat@example.com, publisher, pending", u)
		}
		link = u.SetupURL
		if !strings.HasPrefix(link, testserver.ConsoleURL+"/manage/setup?token=") {
			t.Errorf("setup link %q: want it under --console-url %s", link, testserver.ConsoleURL)
		}
		_, err = adm.CreateUser(ctx, statusd.AdminUserRequest{Email: new("PAT@example.com"), Role: new("viewer")})
		if e, ok := errors.AsType[*client.Error](err); !ok || e.Status != http.StatusConflict {
			t.Errorf("the same email in other case: %v, want 409", err)
		}
		_, err = adm.CreateUser(ctx, statusd.AdminUserRequest{Email: new("vic@example.com"), Role: new("admin")})
		if e, ok := errors.AsType[*client.Error](err); !ok || e.Status != http.StatusUnprocessableEntity || !strings.Contains(err.Error(), `role: "admin" is not viewer, publisher or owner`) {
			t.Errorf("an unknown role: %v, want 422 naming the roles", err)
		}
	})

	testserver.Step(t, "the setup link sets a password, given twice, of 12 characters or more, and signs in", func(t *testing.T) {
		tok := testserver.SetupToken(t, link)
		p := b.do("GET", "/manage/setup?token="+url.QueryEscape(tok), nil)
		p.want(t, "the setup form", 200, "")
		if !strings.Contains(p.body, "pat@example.com") || !strings.Contains(p.body, `minlength="12"`) || p.header.Get("Cache-Control") != "no-store" {
			t.Errorf("setup form: Cache-Control %q, body %s", p.header.Get("Cache-Control"), p.body)
		}
		p = b.do("POST", "/manage/setup", url.Values{"token": {tok}, "password": {"short pass"}, "password2": {"short pass"}})
		p.want(t, "a short password", 422, "")
		if !strings.Contains(p.body, "at least 12 characters") {
			t.Errorf("a short password: %s", p.body)
		}
		p = b.do("POST", "/manage/setup", url.Values{"token": {tok}, "password": {goodPassword}, "password2": {goodPassword + "!"}})
		p.want(t, "two different passwords", 422, "")
		if b.session != "" {
			t.Fatal("a session before the password was set")
		}
		p = b.do("POST", "/manage/setup", url.Values{"token": {tok}, "password": {goodPassword}, "password2": {goodPassword}})
		p.want(t, "setup", 303, "/manage")
		c := p.header.Get("Set-Cookie")
		for _, attr := range []string{"Path=/manage", "HttpOnly", "Secure", "SameSite=Lax"} {
			if !strings.Contains(c, attr) {
				t.Errorf("Set-Cookie %q: want %s", c, attr)
			}
		}
		// The link works once.
		newBrowser(t, srv.AdminURL).do("GET", "/manage/setup?token="+url.QueryEscape(tok), nil).want(t, "the used link", 404, "")
		users, err := adm.Users(ctx)
		testserver.NoErr(t, "Users", err)
		if len(users) != 1 || users[0].State != "active" {
			t.Errorf("users %+v: want pat, active", users)
		}
	})

	testserver.Step(t, "home shows the page state, the component tree, the open incident and what comes", func(t *testing.T) {
		p := b.do("GET", "/manage", nil)
		p.want(t, "home", 200, "")
		// API EU has an identified incident: it is degraded, and so are
		// API, its parent, and the page; Website is operational.
		for _, want := range []string{
			`<section class="banner s-degraded" aria-labelledby="page-state">`,
			`<h1 id="page-state">Some systems are degraded</h1>`,
			`<p>The public page is ` + badge("degraded", "Degraded") + `</p>`,
			`<span class="cname">API</span> ` + badge("degraded", "Degraded") + `</div>`,
			`<span class="cname">API EU</span> ` + badge("degraded", "Degraded") + `</div>`,
			`<span class="cname">Website</span> ` + badge("operational", "Operational") + `</div>`,
			// Identified is a degraded notice state, as on the public page.
			`<a href="/manage/notices/10">EU errors</a> ` + badge("degraded", "Identified"),
			// 7 min 30 s ago, rounded down.
			`>7 minutes ago</time>`,
			`<a href="/manage/notices/11">Website move</a>`,
			`0 pending, 0 failed`,
			`pat@example.com (publisher)`,
		} {
			if !strings.Contains(p.body, want) {
				t.Errorf("home lacks %s\n%s", want, p.body)
			}
		}
		// The tree nests API EU under API.
		if !strings.Contains(p.body, `Degraded</span></div>`+"\n"+`<ul class="children">`+"\n"+`<li class="component"><div class="crow"><span class="cname">API EU</span>`) {
			t.Errorf("API EU is not nested under API:\n%s", p.body)
		}
	})

	testserver.Step(t, "a cross-site sign-out is refused and changes nothing", func(t *testing.T) {
		p := b.do("POST", "/manage/logout", url.Values{}, "Sec-Fetch-Site", "cross-site")
		p.want(t, "a cross-site sign-out", 403, "")
		if !strings.HasPrefix(p.header.Get("Content-Type"), "text/html") {
			t.Errorf("Content-Type %q: want an HTML page", p.header.Get("Content-Type"))
		}
		p = b.do("POST", "/manage/logout", url.Values{}, "Origin", "https://evil.example")
		p.want(t, "a sign-out from a foreign origin", 403, "")
		b.do("GET", "/manage", nil).want(t, "home after the refusals", 200, "")
	})

	testserver.Step(t, "sign out ends the session; home then sends to the sign-in page", func(t *testing.T) {
		old := b.session
		b.do("POST", "/manage/logout", url.Values{}, "Sec-Fetch-Site", "same-origin").want(t, "sign out", 303, "/manage/login")
		b.session = old // the cookie, kept by someone who copied it
		b.do("GET", "/manage", nil).want(t, "home after sign-out", 303, "/manage/login")
	})

	testserver.Step(t, "sign in with the password, the email in any case", func(t *testing.T) {
		b.session = ""
		b.do("GET", "/manage/login", nil).want(t, "the sign-in form", 200, "")
		b.do("POST", "/manage/login", url.Values{"email": {"PAT@example.com"}, "password": {goodPassword}}).want(t, "sign in", 303, "/manage")
		b.do("GET", "/manage", nil).want(t, "home", 200, "")
		b.do("GET", "/manage/login", nil).want(t, "the sign-in form, signed in", 303, "/manage")
	})

	testserver.Step(t, "reset ends the session and gives a new link", func(t *testing.T) {
		u, err := adm.ResetUser(ctx, 1)
		testserver.NoErr(t, "ResetUser", err)
		if u.State != "pending" || testserver.SetupToken(t, u.SetupURL) == testserver.SetupToken(t, link) {
			t.Errorf("reset: %+v; want pending with a new link", u)
		}
		b.do("GET", "/manage", nil).want(t, "home after the reset", 303, "/manage/login")
		b.do("POST", "/manage/login", url.Values{"email": {"pat@example.com"}, "password": {goodPassword}}).want(t, "the old password", 401, "")
	})

	testserver.Step(t, "remove deletes the user; both are in the audit log", func(t *testing.T) {
		testserver.NoErr(t, "DeleteUser", adm.DeleteUser(ctx, 1))
		if err := adm.DeleteUser(ctx, 1); !client.IsNotFound(err) {
			t.Errorf("removing again: %v, want 404", err)
		}
		a, err := adm.Audit(ctx, 1)
		testserver.NoErr(t, "Audit", err)
		var got []string
		for _, e := range a.Audit {
			got = append(got, e.Actor+" "+e.Action+" "+e.Target)
		}
		want := []string{"alice user.delete user 1", "alice user.reset user 1", "pat@example.com user.setup user 1", "alice user.create user 1", "statusd import page.import page"}
		if strings.Join(got, "; ") != strings.Join(want, "; ") {
			t.Errorf("audit %q, want %q", got, want)
		}
	})
}

// TestConsoleLoginRefusals: a wrong email and a wrong password get the
// same answer; failures are limited per account and per client; a
// cross-site sign-in is refused before it counts; on the public
// listener, /manage says where the console is.
func TestConsoleLoginRefusals(t *testing.T) {
	srv := startServer(t, consoleDoc(time.Now().UTC()), options{adminListener: true})
	token := newToken(t, srv.DB, "alice")
	adm := srv.Admin(token)
	ctx := context.Background()
	u, err := adm.CreateUser(ctx, statusd.AdminUserRequest{Email: new("ann@example.com"), Role: new("viewer")})
	testserver.NoErr(t, "CreateUser", err)
	b := newBrowser(t, srv.AdminURL)
	b.do("POST", "/manage/setup", url.Values{"token": {testserver.SetupToken(t, u.SetupURL)}, "password": {goodPassword}, "password2": {goodPassword}}).
		want(t, "setup", 303, "/manage")

	login := func(email, password string, header ...string) screen {
		t.Helper()
		return newBrowser(t, srv.AdminURL).do("POST", "/manage/login", url.Values{"email": {email}, "password": {password}}, header...)
	}
	testserver.Step(t, "a wrong email and a wrong password get the same answer", func(t *testing.T) {
		wrongPassword := login("ann@example.com", "not the password")
		wrongEmail := login("bob@example.com", "not the password")
		wrongPassword.want(t, "a wrong password", 401, "")
		wrongEmail.want(t, "a wrong email", 401, "")
		if wrongPassword.body != strings.Replace(wrongEmail.body, "bob@example.com", "ann@example.com", 1) {
			t.Errorf("the answers differ:\n%s\n---\n%s", wrongPassword.body, wrongEmail.body)
		}
		if !strings.Contains(wrongEmail.body, "The email or the password is not right.") {
			t.Errorf("no message: %s", wrongEmail.body)
		}
	})

	testserver.Step(t, "a cross-site sign-in is refused, even with the right password", func(t *testing.T) {
		login("ann@example.com", goodPassword, "Sec-Fetch-Site", "cross-site").want(t, "cross-site", 403, "")
		p := login("ann@example.com", goodPassword, "Origin", "https://evil.example")
		p.want(t, "a foreign origin", 403, "")
		if p.header.Get("Set-Cookie") != "" {
			t.Errorf("a refused sign-in set %q", p.header.Get("Set-Cookie"))
		}
	})

	testserver.Step(t, "five failures per account in 15 minutes, then the right password too is refused", func(t *testing.T) {
		// ann had one wrong attempt; four more, and the sixth attempt is
		// refused whatever it says.
		for range 4 {
			login("ann@example.com", "not the password").want(t, "a wrong password", 401, "")
		}
		p := login("ann@example.com", goodPassword)
		p.want(t, "the sixth attempt", 429, "")
		if !strings.Contains(p.body, "Too many sign-in attempts") || p.header.Get("Retry-After") == "" {
			t.Errorf("429: Retry-After %q\n%s", p.header.Get("Retry-After"), p.body)
		}
		// Any spelling of the address is the same account.
		login("ANN@example.com", goodPassword).want(t, "the same account in capitals", 429, "")
	})

	testserver.Step(t, "twenty failures per client in 15 minutes", func(t *testing.T) {
		// So far this client had 6 counted failures: ann's wrong one and
		// bob's, then ann's four (the refused ones did not count). 14
		// more, each for another account, then one is refused.
		for i := range 14 {
			login("nobody"+string(rune('a'+i))+"@example.com", "not the password").want(t, "attempt", 401, "")
		}
		login("zed@example.com", "not the password").want(t, "the 21st attempt", 429, "")
	})

	testserver.Step(t, "the public listener says where the console is", func(t *testing.T) {
		for _, path := range []string{"/manage", "/manage/login"} {
			r := srv.In(t).Do("GET", path)
			if r.Status != 404 || !strings.Contains(string(r.Body), "the console is on the admin API&#39;s listener") {
				t.Errorf("GET %s on the public listener: %d\n%s", path, r.Status, r.Body)
			}
		}
	})
}

// TestConsoleURLUnknown: with --admin-addr and no --console-url statusd
// does not know where people reach the console: a setup link is its path,
// and the session cookie is not Secure (the page's https url does not say
// the admin listener's scheme). That the CLI says to open the link on the
// admin listener is checked in cmd/statusd.
func TestConsoleURLUnknown(t *testing.T) {
	srv := startServer(t, consoleDoc(time.Now().UTC()), options{adminListener: true})
	token := newToken(t, srv.DB, "alice")
	u, err := srv.Admin(token).CreateUser(context.Background(), statusd.AdminUserRequest{Email: new("ann@example.com"), Role: new("viewer")})
	testserver.NoErr(t, "CreateUser", err)
	link := u.SetupURL
	if !strings.HasPrefix(link, "/manage/setup?token=") {
		t.Fatalf("setup link %q, want its path", link)
	}
	b := newBrowser(t, srv.AdminURL)
	p := b.do("POST", "/manage/setup", url.Values{"token": {testserver.SetupToken(t, link)}, "password": {goodPassword}, "password2": {goodPassword}})
	p.want(t, "setup", 303, "/manage")
	if c := p.header.Get("Set-Cookie"); !strings.Contains(c, "HttpOnly") || strings.Contains(c, "Secure") {
		t.Errorf("Set-Cookie %q: want HttpOnly, not Secure", c)
	}
}

// badge is the HTML of a state's badge, as the status page shows it
// (internal/htmlkit/templates/badges.html): the state's class and icon, and
// its word.
func badge(class, word string) string {
	return `<span class="badge s-` + class + `"><svg class="icon" aria-hidden="true" focusable="false"><use href="#i-` + class + `"></use></svg>` + word + `</span>`
}

// TestConsolePageStylesheet: every screen links the status page's
// stylesheet, then the console's own (the same look). The console
// has a listener of its own here, so it serves the page's stylesheet
// itself: the bytes the public listener serves at /assets/style.css,
// versioned by their hash and cached as there, for good under the version
// and five minutes without it. The public page's URL and caching are
// unchanged.
func TestConsolePageStylesheet(t *testing.T) {
	srv := startServer(t, consoleDoc(time.Now().UTC()), options{adminListener: true})
	public := newBrowser(t, srv.URL).do("GET", "/assets/style.css", nil)
	public.want(t, "the public stylesheet", 200, "")
	sum := sha256.Sum256([]byte(public.body))
	version := hex.EncodeToString(sum[:6])

	login := newBrowser(t, srv.AdminURL).do("GET", "/manage/login", nil)
	login.want(t, "the sign-in page", 200, "")
	links := regexp.MustCompile(`<link rel="stylesheet" href="([^"]+)">`).FindAllStringSubmatch(login.body, -1)
	if len(links) != 2 || links[0][1] != "/manage/assets/style.css?v="+version || !strings.HasPrefix(links[1][1], "/manage/assets/console.css?v=") {
		t.Fatalf("the sign-in page's stylesheets %q: want /manage/assets/style.css?v=%s, then console.css", links, version)
	}
	for _, c := range []struct {
		base, path, cache string
	}{
		{srv.AdminURL, links[0][1], "public, max-age=31536000, immutable"},
		{srv.AdminURL, "/manage/assets/style.css", "public, max-age=300"},
		{srv.URL, "/assets/style.css?v=" + version, "public, max-age=31536000, immutable"},
		{srv.URL, "/assets/style.css", "public, max-age=300"},
	} {
		p := newBrowser(t, c.base).do("GET", c.path, nil)
		p.want(t, c.path, 200, "")
		if p.body != public.body || p.header.Get("Content-Type") != "text/css; charset=utf-8" || p.header.Get("Cache-Control") != c.cache ||
			p.header.Get("ETag") != `"`+version+`"` {
			t.Errorf("%s%s: %d bytes, Content-Type %q, Cache-Control %q, ETag %q; want the public stylesheet's %d, text/css, %q, %q",
				c.base, c.path, len(p.body), p.header.Get("Content-Type"), p.header.Get("Cache-Control"), p.header.Get("ETag"),
				len(public.body), c.cache, `"`+version+`"`)
		}
	}
}
