package server_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// The owner's screens in a real browser (see web_browser_test.go), at
// phone and desktop widths: an owner signs in, adds a component by
// keyboard and renames it; a viewer sees the same screens without a form.

// TestConsoleOwnerBrowser runs the owner's and the viewer's visit in
// Chromium at each width.
func TestConsoleOwnerBrowser(t *testing.T) {
	browser := webBrowser(t)
	shots := webScreenshots(t)
	srv := startServer(t, consoleDoc(time.Now().UTC()), options{adminListener: true})
	adm := srv.Admin(newToken(t, srv.DB, "alice"))
	signIn(t, srv, adm, "olga@example.com", "owner")
	signIn(t, srv, adm, "vic@example.com", "viewer")
	for i, vp := range webViewports {
		t.Run(vp.name, func(t *testing.T) {
			tab, cancel := chromedp.NewContext(browser)
			defer cancel()
			ctx, cancelTimeout := context.WithTimeout(tab, 2*time.Minute)
			defer cancelTimeout()
			b := &subBrowser{t: t, ctx: ctx, problems: webListen(t, tab, srv.AdminURL), shots: shots, name: vp.name}
			opts := []chromedp.EmulateViewportOption{chromedp.EmulateScale(1)}
			if vp.mobile {
				opts = append(opts, chromedp.EmulateMobile)
			}
			if err := chromedp.Do(ctx, chromedp.EmulateViewport(vp.width, vp.height, opts...)); err != nil {
				t.Fatal(err)
			}
			signInTab := func(email string) {
				b.load("console-login", 200, "Sign in", srv.AdminURL+"/manage/login")
				b.load("console-home", 200, "Some systems are degraded", "",
					chromedp.SendKeys(chromedp.CSS("#email"), email), chromedp.Focus(chromedp.CSS("#password")), press(goodPassword, kb.Enter))
			}

			// The owner: the add form by keyboard alone, then the edit
			// screen. The doc's components are 1 to 3; each width adds one.
			id := int64(4 + i)
			name := "Cache " + vp.name
			signInTab("olga@example.com")
			b.load("console-components", 200, "Components", "", chromedp.Click(chromedp.CSS(`nav.screens a[href="/manage/components"]`)))
			b.load("console-added", 200, "Components", "", chromedp.Focus(chromedp.CSS("#name")), press(name, kb.Enter))
			if c := srv.In(t).Component(id); c.Name != name || c.ParentID != nil {
				t.Fatalf("component %d %+v: want %s at the top", id, c, name)
			}
			b.load("console-component", 200, name, "", chromedp.Click(chromedp.CSS(fmt.Sprintf(`a[href="/manage/components/%d"]`, id))))
			b.load("console-renamed", 200, "Components", "", chromedp.SetValue(chromedp.CSS("#name"), name+" renamed"),
				chromedp.Click(chromedp.CSS(fmt.Sprintf(`form[action="/manage/components/%d"] button`, id))))
			if c := srv.In(t).Component(id); c.Name != name+" renamed" {
				t.Errorf("component %d is named %q, want %q", id, c.Name, name+" renamed")
			}
			b.load("console-signed-out", 200, "Sign in", "", chromedp.Click(chromedp.CSS(".signout button")))

			// The viewer: every owner's screen, with only the sign-out form.
			signInTab("vic@example.com")
			for _, sc := range []struct{ path, heading string }{
				{"/manage/components", "Components"}, {"/manage/page", "Page settings"}, {"/manage/tokens", "Tokens"},
				{"/manage/users", "Users"}, {"/manage/subscribers", "Subscribers"}, {"/manage/deliveries", "Delivery log"},
				{"/manage/audit", "Audit log"},
			} {
				b.load("console-viewer-"+sc.path[len("/manage/"):], 200, sc.heading, srv.AdminURL+sc.path)
				if n := eval[int](b, `document.querySelectorAll('form[method="post"]').length`); n != 1 {
					t.Errorf("%s shows the viewer %d forms that post, want 1 (sign out)", sc.path, n)
				}
			}
			b.load("console-viewer-out", 200, "Sign in", "", chromedp.Click(chromedp.CSS(".signout button")))
		})
	}
}

// TestConsoleOwnerActionsBrowser: the rest of item 4 in Chromium at each
// width, JavaScript off: an owner moves Website up among the top
// components, puts it under API, deletes it after ticking the
// confirmation (and, as a notice lists it, the box that takes it out of
// the notices), changes the page's name and degraded text, creates a
// token (which then works on the admin API) and adds a user (whose setup
// link is shown). The public API has each change, as CONTRACT C3 and C8
// give it.
func TestConsoleOwnerActionsBrowser(t *testing.T) {
	browser := webBrowser(t)
	shots := webScreenshots(t)
	for _, vp := range webViewports {
		t.Run(vp.name, func(t *testing.T) {
			srv, b, _ := consoleVisit(t, browser, shots, "owner", vp, time.Now().UTC(), "olga@example.com", "owner")

			// Website (position 3) is second at the top, after API: up
			// takes API's position, first.
			b.load("components", 200, "Components", "", chromedp.Click(chromedp.CSS(`nav.screens a[href="/manage/components"]`)))
			b.load("moved-up", 200, "Components", "", chromedp.Click(chromedp.CSS(`button[aria-label="Move Website up"]`)))
			wantOrder(t, srv, "Website", "API", "API EU")
			b.says("the move", "Component moved.", "Website Operational")

			// Under API: API takes the degraded state of API EU, not
			// Website's (a group follows its children, not the reverse).
			b.load("website", 200, "Website", "", chromedp.Click(chromedp.CSS(`a[href="/manage/components/3"]`)))
			b.load("changed", 200, "Components", "", chromedp.SetValue(chromedp.CSS("#parent_id"), "1"),
				chromedp.Click(chromedp.CSS(`form[action="/manage/components/3"] button`)))
			if c := srv.In(t).Component(3); c.ParentID == nil || *c.ParentID != 1 {
				t.Errorf("component 3's parent %v, want API (1)", c.ParentID)
			}
			if got := srv.In(t).ComponentStates(); fmt.Sprint(got) != fmt.Sprint(map[int64]string{1: "degraded", 2: "degraded", 3: "operational"}) {
				t.Errorf("the API's component states after the move: %v, want API and API EU degraded, Website operational", got)
			}
			b.says("the change", "Component changed.", "API Degraded", "Website Operational")

			// Delete, once the box is ticked: maintenance 11 lists Website,
			// so it is refused (C6: 409, nothing deleted) until the box
			// that takes it out of the notices is ticked too.
			b.load("website-again", 200, "Website", srv.AdminURL+"/manage/components/3")
			b.problems.expect(srv.AdminURL + "/manage/components/3/delete")
			b.load("listed", 409, "Website", "", chromedp.Click(chromedp.CSS(`input[name="confirm"]`)),
				chromedp.Click(chromedp.CSS(`form[action="/manage/components/3/delete"] button`)))
			b.problems.expect("")
			b.says("the refusal", "listed by")
			wantOrder(t, srv, "API", "API EU", "Website")
			b.load("deleted", 200, "Components", "", chromedp.Click(chromedp.CSS(`input[name="detach"]`)),
				chromedp.Click(chromedp.CSS(`input[name="confirm"]`)),
				chromedp.Click(chromedp.CSS(`form[action="/manage/components/3/delete"] button`)))
			wantOrder(t, srv, "API", "API EU")
			b.says("the deletion", "Component deleted.")

			// The page's name and degraded text.
			b.load("page", 200, "Page settings", "", chromedp.Click(chromedp.CSS(`nav.screens a[href="/manage/page"]`)))
			b.load("page-saved", 200, "Page settings", "", chromedp.SetValue(chromedp.CSS("#name"), "Acme Cloud Status"),
				chromedp.SetValue(chromedp.CSS("#degraded"), "Partly down"),
				chromedp.Click(chromedp.CSS(`form[action="/manage/page"] button`)))
			if p := srv.In(t).Status(); p.State != "degraded" || p.StateText != "Partly down" {
				t.Errorf("the API's page: %s, %q; want degraded, Partly down", p.State, p.StateText)
			}
			b.says("the settings", "Page settings saved. The public page is now Degraded: “Partly down”.")

			// A token, shown once, which the admin API then takes.
			b.load("tokens", 200, "Tokens", "", chromedp.Click(chromedp.CSS(`nav.screens a[href="/manage/tokens"]`)))
			b.load("token-created", 201, "Tokens", "", chromedp.SendKeys(chromedp.CSS("#name"), "deploy-bot"),
				chromedp.Click(chromedp.CSS(`form[action="/manage/tokens"] button`)))
			secret := eval[string](b, `document.querySelector("#secret").textContent`)
			if p, err := srv.Admin(secret).Page(context.Background()); err != nil || p.Name != "Acme Cloud Status" {
				t.Errorf("the admin API with the new token: %v, %v; want the page Acme Cloud Status", p, err)
			}

			// A user, whose one-time setup link is shown: a path, as the
			// console's URL is unknown with --admin-addr alone.
			b.load("users", 200, "Users", "", chromedp.Click(chromedp.CSS(`nav.screens a[href="/manage/users"]`)))
			b.load("user-added", 201, "Users", "", chromedp.SendKeys(chromedp.CSS(`form[action="/manage/users"] #email`), "sam@example.com"),
				chromedp.SetValue(chromedp.CSS("#role"), "viewer"),
				chromedp.Click(chromedp.CSS(`form[action="/manage/users"] button`)))
			if link := eval[string](b, `document.querySelector("#setup-link").textContent`); !strings.HasPrefix(link, "/manage/setup?token=") {
				t.Errorf("the setup link %q, want /manage/setup?token=…", link)
			}
			b.says("the new user", "sam@example.com viewer pending")
		})
	}
}
