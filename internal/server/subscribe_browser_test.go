package server_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/statusd/statusd"
)

// The subscription pages in a real browser (see web_browser_test.go), at
// phone and desktop widths, with JavaScript and without: a person
// subscribes from the status page, confirms, changes the components and
// unsubscribes, by mouse, and without JavaScript by keyboard alone.

// subBrowser is one run of the subscription pages in a tab.
type subBrowser struct {
	t        *testing.T
	ctx      context.Context
	s        *subSite
	problems *webProblems
	shots    string
	name     string // of the run, in the screenshots' names
}

// eval runs a JavaScript expression in the page (DevTools evaluates it
// even when the page's scripts are off).
func eval[T any](b *subBrowser, js string) T {
	b.t.Helper()
	v, err := chromedp.Run(b.ctx, chromedp.Evaluate[T](js))
	if err != nil {
		b.t.Fatalf("%s: %v", js, err)
	}
	return v
}

// load opens url, or runs the actions, which lead to another page, waits
// until it has loaded, and checks it: the status, the heading, that every
// input but hidden ones has a label, that nothing is wider than the
// screen, and that the browser saw no problem; it saves a screenshot as
// step.
func (b *subBrowser) load(step string, status int, heading, url string, actions ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	var resp *network.Response
	var err error
	if url != "" {
		resp, err = chromedp.Run(b.ctx, chromedp.NavigateResponse(url))
	} else {
		resp, err = chromedp.RunResponse(b.ctx, actions...)
	}
	if err != nil {
		b.t.Fatalf("%s: %v", step, err)
	}
	if resp == nil {
		b.t.Fatalf("%s: the actions led to no page", step)
	}
	if resp.Status != int64(status) {
		b.t.Errorf("%s: status %d, want %d", step, resp.Status, status)
	}
	if h1 := eval[string](b, `document.querySelector("h1").textContent.trim()`); h1 != heading {
		b.t.Errorf("%s: heading %q, want %q", step, h1, heading)
	}
	unlabelled := eval[[]string](b, `Array.from(document.querySelectorAll("input:not([type=hidden]):not([hidden]), select, textarea"))
		.filter(function (i) { return i.labels.length === 0 || i.labels[0].textContent.trim() === ""; })
		.map(function (i) { return i.outerHTML; })`)
	if len(unlabelled) > 0 {
		b.t.Errorf("%s: inputs without a label: %v", step, unlabelled)
	}
	// Against the layout viewport (clientWidth): a phone browser widens
	// window.innerWidth to the content, zooming out, so that a page too
	// wide would pass against it.
	if !eval[bool](b, `document.documentElement.scrollWidth <= document.documentElement.clientWidth`) {
		b.t.Errorf("%s: the page is wider than the screen (%d > %d)", step,
			eval[int](b, `document.documentElement.scrollWidth`), eval[int](b, `document.documentElement.clientWidth`))
	}
	png, err := chromedp.Run(b.ctx, chromedp.FullScreenshot(100))
	if err != nil {
		b.t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(b.shots, fmt.Sprintf("subscribe-%s-%s.png", step, b.name)), png, 0o644); err != nil {
		b.t.Fatal(err)
	}
	for _, p := range b.problems.take() {
		b.t.Errorf("%s: %s", step, p)
	}
}

// press presses keys one after the other, in the focused element.
func press(keys ...string) chromedp.Action[chromedp.Void] {
	var steps []chromedp.Action[chromedp.Void]
	for _, k := range keys {
		steps = append(steps, chromedp.KeyEvent(k))
	}
	return chromedp.Steps(steps...)
}

// TestSubscribeBrowser runs the whole subscription by hand in Chromium.
func TestSubscribeBrowser(t *testing.T) {
	browser := webBrowser(t)
	shots := webScreenshots(t)
	s := startSubscriptions(t, options{})
	for _, vp := range webViewports {
		for _, script := range []bool{true, false} {
			name := vp.name
			if !script {
				name += "-noscript"
			}
			t.Run(name, func(t *testing.T) {
				tab, cancel := chromedp.NewContext(browser)
				defer cancel()
				ctx, cancelTimeout := context.WithTimeout(tab, 2*time.Minute)
				defer cancelTimeout()
				b := &subBrowser{t: t, ctx: ctx, s: s.In(t), problems: webListen(t, tab, s.URL), shots: shots, name: name}
				opts := []chromedp.EmulateViewportOption{chromedp.EmulateScale(1)}
				if vp.mobile {
					opts = append(opts, chromedp.EmulateMobile)
				}
				if err := chromedp.Do(ctx, chromedp.EmulateViewport(vp.width, vp.height, opts...)); err != nil {
					t.Fatal(err)
				}
				if !script {
					if _, err := chromedp.Call(ctx, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true}); err != nil {
						t.Fatal(err)
					}
				}
				b.run(script)
			})
		}
	}
}

// run is one person's subscription, from the status page to the end.
func (b *subBrowser) run(script bool) {
	t, s := b.t, b.s
	// Long enough to need breaking on a phone.
	addr := "a.rather.long.address.for.a.narrow.screen+" + b.name + "@example.com"
	b.load("status", 200, "Shop Status: All systems operational", s.URL+"/")
	// The page's script runs, or not, as the run wants.
	if note := eval[string](b, `document.getElementById("tz-note").textContent`); strings.HasPrefix(note, "Times are in your time zone") != script {
		t.Errorf("with script %v, the time zone note says %q", script, note)
	}
	b.load("form", 200, "Get email updates", "", chromedp.Click(chromedp.CSS(`nav a[href="/subscribe"]`)))

	// Fill in the form and send it: by mouse, or by keyboard alone.
	if script {
		b.load("inbox", 200, "Check your inbox", "",
			chromedp.SendKeys(chromedp.CSS("#email"), addr), chromedp.Click(chromedp.CSS("#cb-2")),
			chromedp.Click(chromedp.CSS(`form button[type="submit"]`)))
	} else {
		// Tab from the email field goes through Website, Checkout, Email
		// and then the button; Space checks a box, Enter presses the
		// button.
		b.load("inbox", 200, "Check your inbox", "",
			chromedp.Focus(chromedp.CSS("#email")), press(addr), press(kb.Tab, kb.Tab, " ", kb.Tab, kb.Tab), press(kb.Enter))
	}
	sub := s.subscriber(addr)
	if sub == nil || sub.State != statusd.SubscriberPending || !slices.Equal(sub.ComponentIDs, []int64{2}) {
		t.Fatalf("after the form: %+v, want pending on Checkout (2)", sub)
	}

	// The link of the email, then its button.
	b.linkThenButton(addr, "confirm", "Confirm your subscription", "/subscriptions/confirm?token="+sub.ConfirmToken,
		"confirmed", "You are subscribed", statusd.SubscriberPending, statusd.SubscriberActive)

	// The manage link: Checkout checked; add Email, Save.
	b.load("manage", 200, "Your subscription", "", chromedp.Click(chromedp.CSS(`a[href^="/subscriptions/manage?token="]`)))
	if !eval[bool](b, `document.getElementById("cb-2").checked && !document.getElementById("cb-1").checked && !document.getElementById("cb-3").checked`) {
		t.Error("the manage page does not show Checkout alone checked")
	}
	if script {
		b.load("saved", 200, "Your subscription", "", chromedp.Click(chromedp.CSS("#cb-3")), chromedp.Click(chromedp.CSS(`button[value="save"]`)))
	} else {
		b.load("saved", 200, "Your subscription", "", chromedp.Focus(chromedp.CSS("#cb-3")), press(" ", kb.Tab, kb.Enter))
	}
	if !strings.Contains(eval[string](b, `document.querySelector("main").innerText`), "Your changes are saved.") {
		t.Error("the saved page does not say so")
	}
	if got := s.subscriber(addr).ComponentIDs; !slices.Equal(got, []int64{2, 3}) {
		t.Errorf("after Save: components %v, want [2 3]", got)
	}

	// The unsubscribe link of an email, then its button.
	b.linkThenButton(addr, "unsubscribe", "Unsubscribe", "/subscriptions/unsubscribe?token="+sub.Token,
		"unsubscribed", "You are unsubscribed", statusd.SubscriberActive, statusd.SubscriberUnsubscribed)
}

// linkThenButton opens the link of an email (path), a page (step,
// heading) that leaves addr's subscription as it was (before), and
// presses its button, which leads to the page (done, doneHeading) and
// makes it after.
func (b *subBrowser) linkThenButton(addr, step, heading, path, done, doneHeading string, before, after statusd.SubscriberState) {
	b.t.Helper()
	b.load(step, 200, heading, b.s.URL+path)
	if got := b.s.subscriber(addr).State; got != before {
		b.t.Errorf("opening the %s link made the subscription %s, want %s", step, got, before)
	}
	b.load(done, 200, doneHeading, "", chromedp.Click(chromedp.CSS(`form button[type="submit"]`)))
	if got := b.s.subscriber(addr).State; got != after {
		b.t.Errorf("after the button of the %s page: %s, want %s", step, got, after)
	}
}
