package server_test

import (
	"context"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/statusd/statusd"
)

// TestConsoleBrowserLook: in real Chromium (see web_browser_test.go), in
// light and in dark, the console has the public page's look: a
// component's state badge has the same computed colours in the console's
// component tree as in the public page's, and they are those of the
// public stylesheet (internal/htmlkit/assets/style.css) for the state; the
// header's background and the font are the page's too. The console is on
// a listener of its own (--admin-addr), so it serves the page's
// stylesheet itself, under its CSP.
func TestConsoleBrowserLook(t *testing.T) {
	now := time.Now().UTC()
	doc := consoleDoc(now)
	// Database (4) is under maintenance: maintenance underway on it.
	at := func(d time.Duration) time.Time { return now.Add(d).Truncate(time.Millisecond) }
	begins, ends := at(-10*time.Minute), at(time.Hour)
	doc.Components = append(doc.Components, statusd.Component{ID: 4, Position: 4, Name: "Database",
		CreatedAt: at(-48 * time.Hour), UpdatedAt: at(-48 * time.Hour)})
	doc.Notices = append(doc.Notices, statusd.Notice{ID: 12, Type: statusd.Planned, Subject: "Database upgrade", TagList: []string{},
		ComponentIDs: []int64{4}, BeginsAt: &begins, EndsAt: &ends, CreatedAt: at(-time.Hour), UpdatedAt: at(-10 * time.Minute),
		Updates: []statusd.Update{
			{ID: 4, State: statusd.Scheduled, Content: "Planned.", CreatedAt: at(-time.Hour), UpdatedAt: at(-time.Hour)},
			{ID: 5, State: statusd.Underway, Content: "Started.", CreatedAt: at(-10 * time.Minute), UpdatedAt: at(-10 * time.Minute)},
		}})
	srv := startServer(t, doc, options{adminListener: true})
	signedIn(t, srv, srv.Admin(newToken(t, srv.DB, "alice")), "vic@example.com", "viewer")

	browser, shots := webBrowser(t), webScreenshots(t)
	open := func(origin, name string) *subBrowser {
		tab, cancel := chromedp.NewContext(browser)
		t.Cleanup(cancel)
		ctx, cancelTimeout := context.WithTimeout(tab, 2*time.Minute)
		t.Cleanup(cancelTimeout)
		return &subBrowser{t: t, ctx: ctx, problems: webListen(t, tab, origin), shots: shots, name: name}
	}
	con, pub := open(srv.AdminURL, "console-look"), open(srv.URL, "public-look")
	con.load("login", 200, "Sign in", srv.AdminURL+"/manage/login")
	con.load("home", 200, "Some systems are degraded", "", press("vic@example.com", kb.Tab, goodPassword, kb.Enter))
	pub.load("status", 200, "Acme Status: Some systems are degraded", srv.URL+"/")

	// The colours of style.css, as Chromium computes them: a state's
	// --c (the word, the border) and --c-bg, and --surface (the header).
	type colours struct{ fg, bg string }
	for _, scheme := range []struct {
		name   string
		states map[string]colours // by the state's class
		header string
	}{
		{"light", map[string]colours{
			"operational": {"rgb(26, 127, 55)", "rgb(218, 251, 225)"},  // --ok #1a7f37, --ok-bg #dafbe1
			"degraded":    {"rgb(207, 34, 46)", "rgb(255, 235, 233)"},  // --bad #cf222e, --bad-bg #ffebe9
			"maintenance": {"rgb(9, 105, 218)", "rgb(221, 244, 255)"}}, // --maint #0969da, --maint-bg #ddf4ff
			"rgb(246, 248, 250)"}, // --surface #f6f8fa
		{"dark", map[string]colours{
			"operational": {"rgb(63, 185, 80)", "rgb(18, 38, 30)"},   // #3fb950, #12261e
			"degraded":    {"rgb(248, 81, 73)", "rgb(45, 22, 25)"},   // #f85149, #2d1619
			"maintenance": {"rgb(68, 147, 248)", "rgb(18, 29, 47)"}}, // #4493f8, #121d2f
			"rgb(21, 27, 35)"}, // #151b23
	} {
		fonts := map[string]string{}
		for _, b := range []*subBrowser{con, pub} {
			_, err := chromedp.Call(b.ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
				Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme.name}}})
			if err != nil {
				t.Fatal(err)
			}
			for class, want := range scheme.states {
				// A component's badge in the tree; its border is its word's
				// colour (currentColor).
				got := eval[[]string](b, `(function () {
					var e = document.querySelector(".tree .badge.s-`+class+`");
					if (!e) return ["no badge"];
					var s = getComputedStyle(e);
					return [s.color, s.backgroundColor, s.borderTopColor];
				})()`)
				if len(got) != 3 || got[0] != want.fg || got[1] != want.bg || got[2] != want.fg {
					t.Errorf("%s, %s: the %s badge is %v; want %s on %s, bordered %[5]s", b.name, scheme.name, class, got, want.fg, want.bg)
				}
			}
			if got := eval[string](b, `getComputedStyle(document.querySelector("header.site")).backgroundColor`); got != scheme.header {
				t.Errorf("%s, %s: header background %s, want %s", b.name, scheme.name, got, scheme.header)
			}
			fonts[b.name] = eval[string](b, `getComputedStyle(document.body).font`)
		}
		if fonts[con.name] != fonts[pub.name] {
			t.Errorf("%s: the console's font is %q, the public page's %q", scheme.name, fonts[con.name], fonts[pub.name])
		}
	}
	for _, b := range []*subBrowser{con, pub} {
		for _, p := range b.problems.take() {
			t.Errorf("%s: %s", b.name, p)
		}
	}
}
