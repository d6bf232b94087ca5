package server_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/statusd/statusd/internal/testserver"
)

// TestConsoleBrowser: in real Chromium (see web_browser_test.go), with
// JavaScript off, at phone and desktop widths, a publisher signs in and
// declares an incident from home with the keyboard alone, in three
// actions: open the form from the nav, fill it in, send it. The public API
// then has it. With STATUSD_CONSOLE_DOCS=1 the screenshots of home and
// the form are written to docs/ for the README.
func TestConsoleBrowser(t *testing.T) {
	shots := webScreenshots(t)
	now := time.Now().UTC()
	srv := startServer(t, consoleDoc(now), options{adminListener: true})
	adm := srv.Admin(newToken(t, srv.DB, "alice"))
	docs := os.Getenv("STATUSD_CONSOLE_DOCS") == "1"
	browser := webBrowser(t)
	for i, vp := range webViewports {
		t.Run(vp.name, func(t *testing.T) {
			email := vp.name + "@example.com"
			signedIn(t, srv, adm, email, "publisher") // sets the password
			b := consoleTab(t, browser, srv.AdminURL, shots, "console-"+vp.name, vp.width, vp.height, vp.mobile)
			ctx := b.ctx
			width := map[bool]string{true: "390", false: "1280"}[vp.width == 390]

			b.load("login", 200, "Sign in", srv.AdminURL+"/manage/login")
			b.load("home", 200, "Some systems are degraded", "",
				press(email, kb.Tab, goodPassword, kb.Enter))
			if docs {
				shot(t, ctx, "console-home-"+width)
			}
			// Action 1: from home, to the form: the nav's first link
			// follows the skip link, the page's name and Sign out.
			b.load("incident-form", 200, "Declare an incident", "", press(kb.Tab, kb.Tab, kb.Tab, kb.Tab, kb.Enter))
			if docs {
				shot(t, ctx, "console-incident-"+width)
			}
			// Action 2: fill it in. The message has the focus; Tab goes
			// through notify (on), the subject, the state
			// (investigating), the impact (minor), API, API EU (Space
			// checks it), Website, the button.
			subject := "Checkout errors seen from " + vp.name
			if err := chromedp.Do(ctx, press("Payments fail for some.", kb.Tab, kb.Tab, subject, kb.Tab, kb.Tab, kb.Tab, kb.Tab, " ", kb.Tab, kb.Tab)); err != nil {
				t.Fatal(err)
			}
			// Action 3: send it.
			b.load("incident-published", 200, subject, "", press(kb.Enter))
			id := int64(12 + i)
			n := srv.Notice(id)
			if n.Subject != subject || testserver.Value(n.State) != "investigating" || len(n.Components) != 1 || n.Components[0].ID != 2 ||
				len(n.Updates) != 1 || n.Updates[0].Content != "Payments fail for some." {
				t.Errorf("the API's notice %d: %+v; want %q, investigating, on API EU, with the message", id, n, subject)
			}
			b.says("the notice's page", "Published.", "The public page is now Degraded: “Some systems are degraded”.", "See this notice on the public page")
		})
	}
}

// shot writes a full-page PNG of the tab to docs/name.png.
func shot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join("..", "..", "docs", name+".png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
}
