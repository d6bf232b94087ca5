package server_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// TestConsoleAlertsBrowser: CONTRACT C9's console in Chromium, with
// JavaScript off, at phone and desktop widths, each with a server of its
// own. An alert arrives through a source's hook; the draft shows on a
// publisher's home; they review it (the alert's words beside the form,
// below it on a phone) and publish it, and the public page shows the
// notice. The alert resolves: the notice's page asks to post recovering;
// accepted, the public page says Recovering. An owner adds a source and
// is shown its sender's configuration. No screen is wider than the
// window (subBrowser.load).
func TestConsoleAlertsBrowser(t *testing.T) {
	browser := webBrowser(t)
	shots := webScreenshots(t)
	for _, vp := range webViewports {
		t.Run(vp.name, func(t *testing.T) {
			now := time.Now().UTC()
			srv, b, adm := consoleVisit(t, browser, shots, "alerts", vp, now, "pat@example.com", "publisher")
			tok := newToken(t, srv.DB, "bot")
			src := caSource(t, srv, tok, `{"name": "Scripts", "format": "generic"}`)
			// An alert on Website (3), firing for 5 minutes, with a
			// summary, which is the draft's message.
			started := now.Add(-5*time.Minute - 10*time.Second).Truncate(time.Second)
			caHook(t, srv, src, src.Token, fmt.Sprintf(`{"dedup_key": "web-down", "status": "firing", "labels": {"component": "3", "probe": "<b>eu-1</b>"},
				"annotations": {"statusd_summary": "The website does not answer."}, "url": "https://probe.example/web", "started_at": %q}`, caTime(started)))

			b.load("home", 200, "Some systems are degraded", srv.AdminURL+"/manage")
			b.says("home", "Alerts waiting for you Issues with Website New incident Investigating Website · from Scripts · firing for 5 minutes")

			b.load("review", 200, "Review: New incident", "", chromedp.Click(chromedp.CSS(`a[href="/manage/drafts/1"]`)))
			b.says("the review", "Not published", "probe <b>eu-1</b>", "https://probe.example/web")
			if got := eval[string](b, `document.querySelector("#content").value`); got != "The website does not answer." {
				t.Errorf("the message is %q, want the alert's summary", got)
			}
			// Beside the form on a desktop, below it on a phone.
			beside := eval[bool](b, `(function () {
				var f = document.querySelector("form[action='/manage/drafts/1/publish']").getBoundingClientRect();
				var a = document.querySelector("aside.internal").getBoundingClientRect();
				return a.left >= f.right;
			})()`)
			if beside != (vp.width > 960) {
				t.Errorf("the alerts' panel beside the form: %v at %d px", beside, vp.width)
			}

			b.load("published", 200, "Issues with Website", "", chromedp.Click(chromedp.CSS(`form[action="/manage/drafts/1/publish"] button`)))
			b.says("the notice", "Published. The public page is now Degraded", "Incident 12 · Investigating", "Signals", "web-down")
			pub := consoleTab(t, browser, srv.URL, shots, "alerts-public-"+vp.name, vp.width, vp.height, vp.mobile)
			pub.load("public", 200, "Issues with Website", srv.URL+"/notices/12")
			pub.says("the public notice", "Investigating", "The website does not answer.")
			if n := eval[int](pub, `document.body.innerText.indexOf("web-down") + document.body.innerText.indexOf("eu-1") + 2`); n != 0 {
				t.Error("the public notice shows the alert")
			}

			// It resolves half a minute ago: draft 2 proposes recovering.
			ended := time.Now().Add(-30 * time.Second).Truncate(time.Second)
			caHook(t, srv, src, src.Token, fmt.Sprintf(`{"dedup_key": "web-down", "status": "resolved", "ended_at": %q}`, caTime(ended)))
			b.load("proposal", 200, "Issues with Website", srv.AdminURL+"/manage/notices/12")
			b.says("the proposal", "Its alert resolved at "+caClock(ended, time.Now())+": post Recovering?", "It would post:")
			b.load("accepted", 200, "Issues with Website", "", chromedp.Click(chromedp.CSS(`form[action="/manage/drafts/2/publish"] button`)))
			b.says("accepted", "Update posted.", "Incident 12 · Recovering")
			pub.load("public-recovering", 200, "Issues with Website", srv.URL+"/notices/12")
			pub.says("the public notice", "Recovering")

			// An owner adds a source: its token and configuration, on a
			// phone too without scrolling sideways.
			signedIn(t, srv, adm, "olga@example.com", "owner")
			o := consoleTab(t, browser, srv.AdminURL, shots, "alerts-owner-"+vp.name, vp.width, vp.height, vp.mobile)
			o.load("login", 200, "Sign in", srv.AdminURL+"/manage/login")
			o.load("home", 200, "Some systems are degraded", "", press("olga@example.com", kb.Tab, goodPassword, kb.Enter))
			o.load("sources", 200, "Alert sources", "", chromedp.Click(chromedp.CSS(`nav.screens a[href="/manage/sources"]`)))
			o.load("added", 201, "Alert sources", "", chromedp.SendKeys(chromedp.CSS("#name"), "Prometheus"),
				chromedp.SendKeys(chromedp.CSS("#heartbeat_match"), "alertname=Watchdog"), chromedp.SendKeys(chromedp.CSS("#heartbeat_timeout"), "5m"),
				chromedp.Click(chromedp.CSS(`form[action="/manage/sources"] button`)))
			hook := fmt.Sprintf("%s/hooks/v1/%d", srv.AdminURL, src.ID+1)
			token := eval[string](o, `document.querySelector("#source-token").textContent`)
			o.says("the new source", "Its hook: "+hook, "Alertmanager", "credentials: \""+token+"\"")
			if sel := eval[string](o, `getComputedStyle(document.querySelector("pre.config")).userSelect`); sel != "all" {
				t.Errorf("the configuration's user-select is %q, want all (one click selects it)", sel)
			}
			caHook(t, srv, caSourceOf(src.ID+1), token, sgPayload(t, "alertmanager.json"))
			o.load("source", 200, "Prometheus", "", chromedp.Click(chromedp.CSS(fmt.Sprintf(`a[href="/manage/sources/%d"]`, src.ID+1))))
			o.says("the source", "Heartbeat alertname=Watchdog, within 5m0s")
		})
	}
}
