package main

import (
	"context"
	"fmt"
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
	srv := startServer(t, consoleDoc(time.Now().UTC()), "--admin-addr", "127.0.0.1:0")
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
			if c := srv.in(t).component(id); c.Name != name || c.ParentID != nil {
				t.Fatalf("component %d %+v: want %s at the top", id, c, name)
			}
			b.load("console-component", 200, name, "", chromedp.Click(chromedp.CSS(fmt.Sprintf(`a[href="/manage/components/%d"]`, id))))
			b.load("console-renamed", 200, "Components", "", chromedp.SetValue(chromedp.CSS("#name"), name+" renamed"),
				chromedp.Click(chromedp.CSS(fmt.Sprintf(`form[action="/manage/components/%d"] button`, id))))
			if c := srv.in(t).component(id); c.Name != name+" renamed" {
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
