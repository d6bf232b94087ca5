package server_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/client"
	"github.com/statusd/statusd/internal/testserver"
)

// The console's flows in real Chromium (see
// web_browser_test.go), at phone and desktop widths, with JavaScript off:
// a new person's setup link (item 1) and an incident's life (item 3).

// consoleTab is a tab of a browser context of its own in browser (no
// cookie of another run), at a viewport's size, with JavaScript off,
// whose pages are checked against origin (subBrowser.load).
func consoleTab(t *testing.T, browser context.Context, origin, shots, name string, width, height int64, mobile bool) *subBrowser {
	t.Helper()
	tab, cancel := chromedp.NewContext(browser, chromedp.WithNewBrowserContext())
	t.Cleanup(cancel)
	ctx, cancelTimeout := context.WithTimeout(tab, 2*time.Minute)
	t.Cleanup(cancelTimeout)
	b := &subBrowser{t: t, ctx: ctx, problems: webListen(t, tab, origin), shots: shots, name: name}
	opts := []chromedp.EmulateViewportOption{chromedp.EmulateScale(1)}
	if mobile {
		opts = append(opts, chromedp.EmulateMobile)
	}
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(width, height, opts...)); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Call(ctx, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true}); err != nil {
		t.Fatal(err)
	}
	return b
}

// consoleVisit starts a server on consoleDoc(now) with an admin listener,
// adds email with role (its password set), and signs the person in by
// keyboard in a tab of its own at vp's size, named name: home is shown.
// It returns the server, the tab and an admin client.
func consoleVisit(t *testing.T, browser context.Context, shots, name string, vp webViewport, now time.Time, email, role string) (*testserver.Server, *subBrowser, *client.Admin) {
	t.Helper()
	srv := startServer(t, consoleDoc(now), options{adminListener: true})
	adm := srv.Admin(newToken(t, srv.DB, "alice"))
	signedIn(t, srv, adm, email, role)
	b := consoleTab(t, browser, srv.AdminURL, shots, name+"-"+vp.name, vp.width, vp.height, vp.mobile)
	b.load("login", 200, "Sign in", srv.AdminURL+"/manage/login")
	b.load("home", 200, "Some systems are degraded", "", press(email, kb.Tab, goodPassword, kb.Enter))
	return srv, b, adm
}

// mainText is the text of the page's main element, its white space
// collapsed (a badge's word is a flex item, which innerText puts on a
// line of its own).
func (b *subBrowser) mainText() string {
	b.t.Helper()
	return eval[string](b, `document.querySelector("main").innerText.replace(/\s+/g, " ")`)
}

// says fails unless the page's main element says each of want.
func (b *subBrowser) says(step string, want ...string) {
	b.t.Helper()
	text := b.mainText()
	for _, w := range want {
		if !strings.Contains(text, w) {
			b.t.Errorf("%s: the page does not say %q:\n%s", step, w, text)
		}
	}
}

// TestConsoleSetupBrowser: an owner adds a publisher through the admin
// API (as statusd user add does), which answers a one-time setup link;
// the person opens it in Chromium, meets
// the refusals of a short password (the browser's, and the server's
// when the browser does not check) and of two different ones, each
// changing nothing, sets a good one and is signed in; signs out and in
// again with it; and the same link is then refused with a page that says
// what to do.
func TestConsoleSetupBrowser(t *testing.T) {
	browser := webBrowser(t)
	shots := webScreenshots(t)
	srv := startServer(t, consoleDoc(time.Now().UTC()), options{adminListener: true})
	token := newToken(t, srv.DB, "alice")
	adm := srv.Admin(token)
	for _, vp := range webViewports {
		t.Run(vp.name, func(t *testing.T) {
			b := consoleTab(t, browser, srv.AdminURL, shots, "setup-"+vp.name, vp.width, vp.height, vp.mobile)
			email := "pat-" + vp.name + "@example.com"
			// The console has a listener of its own and no --console-url:
			// the link is its path, to be opened there. (The user is added
			// through the admin API, which statusd user add calls.)
			u, err := adm.CreateUser(context.Background(), statusd.AdminUserRequest{Email: new(email), Role: new("publisher")})
			testserver.NoErr(t, "CreateUser", err)
			if u.Email != email || u.Role != "publisher" || !strings.HasPrefix(u.SetupURL, "/manage/setup?token=") {
				t.Fatalf("the user added: %+v\nwant %s (publisher), and the setup link's path", u, email)
			}
			link := srv.AdminURL + "/manage/setup?token=" + testserver.SetupToken(t, u.SetupURL)
			// state checks the user's state in the admin API.
			state := func(what, want string) {
				t.Helper()
				users, err := adm.Users(context.Background())
				testserver.NoErr(t, "Users", err)
				for _, u := range users {
					if u.Email == email && u.State == want {
						return
					}
				}
				t.Errorf("%s: users %+v; want %s %s", what, users, email, want)
			}

			b.load("form", 200, "Set your password", link)
			b.says("the setup form", "For "+email+".", "Choose a password of at least 12 characters")
			// The password field has the focus. A short password: the
			// browser itself refuses to send the form and says why.
			eval[bool](b, `window.stayed = true`)
			if err := chromedp.Do(b.ctx, press("short pass", kb.Tab, "short pass", kb.Enter)); err != nil {
				t.Fatal(err)
			}
			time.Sleep(300 * time.Millisecond)
			if !eval[bool](b, `window.stayed === true && document.querySelector("#password").validity.tooShort`) {
				t.Error("a password of 10 characters: the browser sent the form, or did not find it too short")
			}
			if msg := eval[string](b, `document.querySelector("#password").validationMessage`); !strings.Contains(msg, "12") {
				t.Errorf("the browser's refusal %q does not say how long a password must be", msg)
			}
			state("after the browser's refusal", "pending")

			// A browser that does not check (here: the check taken away)
			// sends it; the server refuses it with the form again.
			b.problems.expect(srv.AdminURL + "/manage/setup")
			eval[bool](b, `document.querySelectorAll("[minlength]").forEach(function (e) { e.removeAttribute("minlength"); }), true`)
			b.load("short", 422, "Set your password", "", chromedp.Focus(chromedp.CSS("#password2")), press(kb.Enter))
			b.says("a short password", "Please choose a password of at least 12 characters.")
			state("after a short password", "pending")

			// Two different passwords: the form again, its fields empty
			// and the first one focused.
			b.load("different", 422, "Set your password", "", press(goodPassword, kb.Tab, goodPassword+"!", kb.Enter))
			b.says("two different passwords", "The two passwords are not the same. Please type the same password twice.")
			state("after two different passwords", "pending")

			// A good one: home, signed in.
			b.problems.expect("")
			b.load("home", 200, "Some systems are degraded", "", press(goodPassword, kb.Tab, goodPassword, kb.Enter))
			if who := eval[string](b, `document.querySelector(".signout .who").textContent`); who != email+" (publisher)" {
				t.Errorf("signed in as %q, want %q", who, email+" (publisher)")
			}
			state("after a good password", "active")

			// Out, and in again with the password.
			b.load("signed-out", 200, "Sign in", "", chromedp.Click(chromedp.CSS(".signout button")))
			b.load("signed-in", 200, "Some systems are degraded", "", press(email, kb.Tab, goodPassword, kb.Enter))

			// The link works once.
			b.problems.expect(link)
			b.load("used", 404, "Not found", link)
			b.says("the used link", "Error 404", "this setup link is not valid (any more); ask an owner for a new one (statusd user reset)",
				"Back to the console")
			if n := eval[int](b, `document.querySelectorAll("input[type=password]").length`); n != 0 {
				t.Errorf("the used link shows %d password fields, want none", n)
			}
			b.problems.expect("")
		})
	}
}

// TestConsoleIncidentBrowser: a publisher signs in by keyboard and, from
// the page of consoleDoc's incident 10 (identified, on API EU), posts an
// update, resolves it and reopens it, then schedules a maintenance from
// its form. After each action the public API has the change, with the
// values CONTRACT C3 gives, and the console's page says what was done and
// the public page's new state. Each width has a server of its own.
func TestConsoleIncidentBrowser(t *testing.T) {
	browser := webBrowser(t)
	shots := webScreenshots(t)
	for _, vp := range webViewports {
		t.Run(vp.name, func(t *testing.T) {
			now := time.Now().UTC()
			began := now.Add(-40 * time.Minute).Truncate(time.Millisecond) // consoleDoc's first update of 10
			srv, b, _ := consoleVisit(t, browser, shots, "incident", vp, now, "pat@example.com", "publisher")
			b.load("incident", 200, "EU errors", "", chromedp.Click(chromedp.CSS(`a[href="/manage/notices/10"]`)))
			b.says("incident 10", "Incident 10 · Identified", "Components API EU", "Found it.")

			// act runs the actions of a form on the notice's page, which
			// lead to that page again, and checks the API's notice 10:
			// its updates, its first one's time as began_at, the newest
			// one's state and content; its timeline state, and its
			// ended_at, when ended the newest update's time, else null.
			// It returns the notice.
			act := func(step string, updates int, state, content, timeline string, ended bool, actions ...chromedp.Action[chromedp.Void]) *statusd.NoticeDetail {
				t.Helper()
				before := time.Now()
				b.load(step, 200, "EU errors", "", actions...)
				n := srv.In(t).Notice(10)
				if len(n.Updates) != updates || !testserver.Value(n.BeganAt).Equal(began) {
					t.Fatalf("%s: the API's notice 10 has %d updates, began at %v; want %d, %s", step, len(n.Updates), testserver.Value(n.BeganAt), updates, testserver.TS(began))
				}
				u := n.Updates[len(n.Updates)-1]
				testserver.Within(t, step+": the newest update's time", u.CreatedAt.Time, before, time.Now())
				got := "none"
				if u.State != nil {
					got = *u.State
				}
				if testserver.Value(n.State) != state || got != state || u.Content != content {
					t.Errorf("%s: the API's notice 10 is %s, its newest update %s, %q; want %s, %s, %q", step, testserver.Value(n.State), got, u.Content, state, state, content)
				}
				if n.TimelineState != timeline || !n.EndedAt.Set || (n.EndedAt.Value != nil) != ended || ended && !n.EndedAt.Value.Equal(u.CreatedAt.Time) {
					t.Errorf("%s: timeline %q, ended_at %+v; want %s, ended %v (at the newest update's time)", step, n.TimelineState, n.EndedAt, timeline, ended)
				}
				return n
			}
			// public checks the page's and the components' state in the
			// API: API EU (2) and its parent API (1) are page; Website (3)
			// stays operational.
			public := func(step, page string) {
				t.Helper()
				if p := srv.In(t).Status(); p.State != page {
					t.Errorf("%s: the API's page state %q, want %s", step, p.State, page)
				}
				want := map[int64]string{1: page, 2: page, 3: "operational"}
				if got := srv.In(t).ComponentStates(); fmt.Sprint(got) != fmt.Sprint(want) {
					t.Errorf("%s: the API's component states %v, want %v", step, got, want)
				}
			}

			// An update: recovering is not current (C3), so API EU, API
			// and the page are operational again; the incident is still
			// present and open.
			act("updated", 3, "recovering", "A fix is out; we are watching.", "present", false,
				chromedp.SetValue(chromedp.CSS("#u-state"), "recovering"),
				chromedp.SendKeys(chromedp.CSS("#u-content"), "A fix is out; we are watching."),
				chromedp.Click(chromedp.CSS(`section[aria-labelledby="post-update"] button`)))
			public("update", "operational")
			b.says("after the update", "Update posted. The public page is now Operational: “All systems operational”. API Operational API EU Operational",
				"Incident 10 · Recovering", "See this notice on the public page")
			if first := eval[string](b, `document.querySelector("ol.updates li p.content").textContent`); first != "A fix is out; we are watching." {
				t.Errorf("the timeline begins with %q, want the new update", first)
			}

			// Resolve: ended at the resolving update, past (recent).
			closing := `section[aria-labelledby="close"] button`
			act("resolved", 4, "resolved", "All fine again.", "past_recent", true,
				chromedp.SendKeys(chromedp.CSS("#resolve"), "All fine again."), chromedp.Click(chromedp.CSS(closing)))
			public("resolve", "operational")
			b.says("after resolve", "Resolved. The public page is now Operational: “All systems operational”. API Operational API EU Operational",
				"Incident 10 · Resolved", "Reopen")

			// Reopen: investigating (C6), current again, so API EU and
			// API are degraded, and the page; open again.
			if !eval[bool](b, `document.querySelector("#reopen") !== null`) {
				t.Fatal("a resolved incident's page has no reopen form")
			}
			act("reopened", 5, "investigating", "The errors are back.", "present", false,
				chromedp.SendKeys(chromedp.CSS("#reopen"), "The errors are back."), chromedp.Click(chromedp.CSS(closing)))
			public("reopen", "degraded")
			b.says("after reopen", "Reopened. The public page is now Degraded: “Some systems are degraded”. API Degraded API EU Degraded",
				"Incident 10 · Investigating", "Resolve the incident")

			// A maintenance of Website from its form, two days ahead:
			// scheduled, in the future, not begun; Website stays
			// operational until it is underway.
			begins := now.Add(48 * time.Hour).Truncate(time.Minute)
			ends := begins.Add(90 * time.Minute)
			b.load("maintenance-form", 200, "Schedule maintenance", "", chromedp.Click(chromedp.CSS(`nav.publish a[href="/manage/maintenance/new"]`)))
			b.load("maintenance", 200, "Database move", "",
				chromedp.SendKeys(chromedp.CSS("#subject"), "Database move"),
				chromedp.SetValue(chromedp.CSS("#begins_at"), begins.Format("2006-01-02T15:04")),
				chromedp.SetValue(chromedp.CSS("#ends_at"), ends.Format("2006-01-02T15:04")),
				chromedp.Click(chromedp.CSS(`input[name="component_ids"][value="3"]`)),
				chromedp.SendKeys(chromedp.CSS("#content"), "The site is read-only for an hour and a half."),
				chromedp.Click(chromedp.CSS(`form[action="/manage/maintenance/new"] button`)))
			m := srv.In(t).Notice(12) // the document has 10 and 11
			if m.Type != "planned" || m.Subject != "Database move" || testserver.Value(m.State) != "scheduled" || m.TimelineState != "future" ||
				!m.BeganAt.Set || m.BeganAt.Value != nil || !m.EndedAt.Set || m.EndedAt.Value != nil ||
				m.BeginsAt == nil || !m.BeginsAt.Equal(begins) || m.EndsAt == nil || !m.EndsAt.Equal(ends) ||
				len(m.Components) != 1 || m.Components[0].ID != 3 ||
				len(m.Updates) != 1 || m.Updates[0].Content != "The site is read-only for an hour and a half." {
				t.Errorf("the API's notice 12: %+v\nwant planned, Database move, scheduled, future, not begun, from %s to %s, on Website, with the message",
					m, testserver.TS(begins), testserver.TS(ends))
			}
			public("maintenance", "degraded")
			b.says("the maintenance", "Published. The public page is now Degraded: “Some systems are degraded”. Website Operational",
				"Maintenance 12 · Scheduled", "Components Website",
				"Begins "+begins.Format("2006-01-02 15:04")+" UTC", "Ends "+ends.Format("2006-01-02 15:04")+" UTC", "Automated yes")
		})
	}
}

// TestConsoleErrorScreen: a refusal under /manage is the console's own
// screen, with the console's stylesheet and a link back to it, whether
// the console has a listener of its own or shares the public one; the
// public listener's /manage, beside an admin listener, stays the status
// page's.
func TestConsoleErrorScreen(t *testing.T) {
	const used = "/manage/setup?token=no-such-token"
	const message = "this setup link is not valid (any more); ask an owner for a new one (statusd user reset)"
	screen := []string{`<h1>Not found</h1>`, message, `href="/manage/assets/console.css?v=`, `<a href="/manage">Back to the console</a>`}
	own := startServer(t, consoleDoc(time.Now().UTC()), options{adminListener: true})
	shared := startServer(t, consoleDoc(time.Now().UTC()), options{})
	for _, c := range []struct {
		name, url string
		want      []string
	}{
		{"its own listener", own.AdminURL + used, screen},
		{"the shared listener", shared.URL + used, screen},
		{"the public listener beside it", own.URL + "/manage", []string{"the console is on the admin API&#39;s listener", `href="/assets/style.css?v=`}},
	} {
		r := testserver.Fetch(t, "GET", c.url, "")
		if r.Status != 404 || !strings.HasPrefix(r.Header.Get("Content-Type"), "text/html") {
			t.Errorf("%s: %d %s, want a 404 page", c.name, r.Status, r.Header.Get("Content-Type"))
		}
		for _, w := range c.want {
			if !strings.Contains(string(r.Body), w) {
				t.Errorf("%s: the page lacks %s\n%s", c.name, w, r.Body)
			}
		}
	}
}

// TestConsoleNoticesBrowser: the rest of item 3, and item 5's publisher,
// in Chromium at each width with JavaScript off. A publisher announces,
// edits an incident's subject and components, and deletes a maintenance
// after its confirmation; the public API has each change, with the values
// CONTRACT C3 and C8 give, and the console says what was done and the
// public page's new state. The owner's screens show the publisher no form
// but signing out.
func TestConsoleNoticesBrowser(t *testing.T) {
	browser := webBrowser(t)
	shots := webScreenshots(t)
	for _, vp := range webViewports {
		t.Run(vp.name, func(t *testing.T) {
			srv, b, adm := consoleVisit(t, browser, shots, "notices", vp, time.Now().UTC(), "pat@example.com", "publisher")

			// Announce, on Website, without an expiry: notice 12 (the
			// document has 10 and 11), general, which sets no state.
			b.load("announce-form", 200, "Announce", "", chromedp.Click(chromedp.CSS(`nav.publish a[href="/manage/announcements/new"]`)))
			b.load("announced", 200, "Office move", "",
				chromedp.SendKeys(chromedp.CSS("#subject"), "Office move"),
				chromedp.Click(chromedp.CSS(`input[name="component_ids"][value="3"]`)),
				chromedp.SendKeys(chromedp.CSS("#content"), "We move on Friday."),
				chromedp.Click(chromedp.CSS(`form[action="/manage/announcements/new"] button`)))
			n := srv.In(t).Notice(12)
			if n.Type != "general" || n.Subject != "Office move" || len(n.Components) != 1 || n.Components[0].ID != 3 ||
				len(n.Updates) != 1 || n.Updates[0].Content != "We move on Friday." {
				t.Errorf("the API's notice 12: %+v; want general, Office move, on Website, with the message", n)
			}
			if an, err := adm.Notice(context.Background(), 12); err != nil {
				t.Errorf("the admin API's notice 12: %v", err)
			} else if an.ExpiresAt.Value != nil {
				t.Errorf("the admin API's notice 12 expires at %v; want never", *an.ExpiresAt.Value)
			}
			b.says("the announcement", "Published. The public page is now Degraded: “Some systems are degraded”. Website Operational",
				"Announcement 12", "Expires never")

			// Edit incident 10 (identified, on API EU): a new subject, and
			// Website too, which the current incident now makes degraded,
			// as API EU and its parent API stay.
			b.load("incident", 200, "EU errors", srv.AdminURL+"/manage/notices/10")
			b.load("edit-form", 200, "Edit “EU errors”", "", chromedp.Click(chromedp.CSS(`a[href="/manage/notices/10/edit"]`)))
			b.load("edited", 200, "EU and US errors", "",
				chromedp.SetValue(chromedp.CSS("#subject"), "EU and US errors"),
				chromedp.Click(chromedp.CSS(`input[name="component_ids"][value="3"]`)),
				chromedp.Click(chromedp.CSS(`form[action="/manage/notices/10/edit"] button`)))
			n = srv.In(t).Notice(10)
			if n.Subject != "EU and US errors" || len(n.Components) != 2 || n.Components[0].ID != 2 || n.Components[1].ID != 3 || len(n.Updates) != 2 {
				t.Errorf("the API's notice 10: %q on %+v with %d updates; want EU and US errors on API EU and Website, 2 updates", n.Subject, n.Components, len(n.Updates))
			}
			if got := srv.In(t).ComponentStates(); fmt.Sprint(got) != fmt.Sprint(map[int64]string{1: "degraded", 2: "degraded", 3: "degraded"}) {
				t.Errorf("the API's component states after the edit: %v, want all three degraded", got)
			}
			b.says("the edit", "Changes saved. The public page is now Degraded: “Some systems are degraded”. API Degraded API EU Degraded Website Degraded")

			// Delete maintenance 11: the confirmation says what goes and
			// deletes nothing; its button deletes it.
			b.load("maintenance", 200, "Website move", srv.AdminURL+"/manage/notices/11")
			b.load("delete-confirm", 200, "Delete “Website move”?", "", chromedp.Click(chromedp.CSS(`a[href="/manage/notices/11/delete"]`)))
			b.says("the confirmation", "This deletes Maintenance 11 and its 1 update from the public page, the API and the history, for good.")
			srv.In(t).Notice(11) // still there
			b.load("deleted", 200, "Deleted", "", chromedp.Click(chromedp.CSS(`form[action="/manage/notices/11/delete"] button`)))
			b.says("the deletion", "Maintenance 11, “Website move”, and its updates are deleted.")
			if _, err := srv.API.Notice(context.Background(), 11); !client.IsNotFound(err) {
				t.Errorf("the public API's notice 11 after the deletion: %v, want 404", err)
			}

			// Item 5: the owner's screens show a publisher no form but
			// signing out.
			for _, sc := range []struct{ path, heading string }{
				{"/manage/components", "Components"}, {"/manage/page", "Page settings"}, {"/manage/tokens", "Tokens"},
				{"/manage/users", "Users"}, {"/manage/subscribers", "Subscribers"},
			} {
				b.load("publisher-"+sc.path[len("/manage/"):], 200, sc.heading, srv.AdminURL+sc.path)
				if n := eval[int](b, `document.querySelectorAll('form[method="post"]').length`); n != 1 {
					t.Errorf("%s shows the publisher %d forms that post, want 1 (sign out)", sc.path, n)
				}
			}
		})
	}
}
