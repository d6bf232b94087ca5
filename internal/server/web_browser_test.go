package server_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/internal/testserver"
)

// The status page in a real browser: headless Chromium (Debian's chromium
// package) driven with chromedp. Outside CI the test skips when Chromium is
// missing; with CI=true it must run.

// webChromium returns the path of Chromium, or skips (fails in CI). With
// -short it skips: a browser test is long, and what it adds is the page's
// behaviour in a browser, which the run without -short checks; CI's run
// under the race detector is -short.
func webChromium(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("a browser test: skipped with -short")
	}
	if p := os.Getenv("STATUSD_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("CI=true and no Chromium found: the browser tests must run in CI; install it with apt-get install chromium (.ci/run does)")
	}
	t.Skip("headless Chromium not found: apt-get install chromium (or set STATUSD_CHROMIUM) to run the browser tests")
	return ""
}

// webBrowser starts one headless Chromium with a fresh profile for the
// test; the returned context opens tabs with chromedp.NewContext.
func webBrowser(t *testing.T) context.Context {
	t.Helper()
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(webChromium(t)),
		chromedp.Flag("headless", true),
		chromedp.Flag("no-sandbox", true),
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("no-first-run", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("hide-scrollbars", true),
		chromedp.Flag("mute-audio", true),
		chromedp.UserDataDir(t.TempDir()),
	}
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(allocCtx)
	// Registered after TempDir, so it runs first: the browser has exited
	// before its profile is removed.
	t.Cleanup(func() { cancel(); cancelAlloc() })
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("starting Chromium: %v", err)
	}
	return ctx
}

// webScreenshots is where screenshots go: $STATUSD_SCREENSHOTS, or a
// temporary directory.
func webScreenshots(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("STATUSD_SCREENSHOTS")
	if dir == "" {
		dir = t.TempDir()
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshots in %s", dir)
	return dir
}

// webProblems collects what a reader's browser would complain about:
// uncaught exceptions, console errors, browser log errors (CSP violations
// among them), failed requests, answers of 400 or more, and requests to
// any other host.
type webProblems struct {
	mu       sync.Mutex
	origin   string
	urls     map[network.RequestID]string
	list     []string
	expected string // a URL whose error status is expected (a 404 page)
}

// webListen starts collecting the problems of the tab.
func webListen(t *testing.T, tab context.Context, origin string) *webProblems {
	t.Helper()
	p := &webProblems{origin: origin, urls: map[network.RequestID]string{}}
	if err := chromedp.Listen(tab, p.event); err != nil {
		t.Fatal(err)
	}
	// Report CSP violations on the console too, from before any page
	// script runs (scripts added this way are not subject to the CSP).
	_, err := chromedp.Call(tab, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{
		Source: `document.addEventListener("securitypolicyviolation", function (e) {
			console.error("CSP violation: " + e.violatedDirective + " blocked " + (e.blockedURI || "inline code"));
		});`,
	})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func (p *webProblems) add(format string, args ...any) {
	p.list = append(p.list, fmt.Sprintf(format, args...))
}

func (p *webProblems) event(ev any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch e := ev.(type) {
	case *runtime.EventExceptionThrown:
		text := e.ExceptionDetails.Text
		if e.ExceptionDetails.Exception != nil {
			text += " " + e.ExceptionDetails.Exception.Description
		}
		p.add("exception: %s", text)
	case *runtime.EventConsoleAPICalled:
		if e.Type == runtime.ConsoleAPICalledTypeError || e.Type == runtime.ConsoleAPICalledTypeAssert {
			var args []string
			for _, a := range e.Args {
				args = append(args, strings.Trim(string(a.Value), `"`)+a.Description)
			}
			p.add("console.%s: %s", e.Type, strings.Join(args, " "))
		}
	case *cdplog.EventEntryAdded:
		if e.Entry.Level == cdplog.EntryLevelError || e.Entry.Source == cdplog.EntrySourceSecurity {
			if e.Entry.URL != "" && e.Entry.URL == p.expected {
				return
			}
			p.add("browser log (%s, %s): %s %s", e.Entry.Source, e.Entry.Level, e.Entry.Text, e.Entry.URL)
		}
	case *network.EventRequestWillBeSent:
		u := e.Request.URL
		p.urls[e.RequestID] = u
		if !strings.HasPrefix(u, p.origin+"/") && !strings.HasPrefix(u, "data:") && u != "about:blank" {
			p.add("request to another host: %s", u)
		}
	case *network.EventLoadingFailed:
		p.add("request failed: %s: %s (%s)", p.urls[e.RequestID], e.ErrorText, e.BlockedReason)
	case *network.EventResponseReceived:
		if e.Response.Status >= 400 && e.Response.URL != p.expected {
			p.add("answer %d for %s", e.Response.Status, e.Response.URL)
		}
	}
}

// take returns the problems seen so far and forgets them.
func (p *webProblems) take() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := p.list
	p.list = nil
	return out
}

func (p *webProblems) expect(u string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.expected = u
}

// webStateDoc is a small page in one state, timed around now:
//
//	1 Website (metrics) <- 2 Checkout (metrics); 3 Email
//	10: incident on Checkout 4 days ago, resolved after 45 minutes
//	20: announcement 2 days ago
//	degraded: 30, incident on Checkout investigating since an hour ago
//	maintenance: 40, maintenance of Email underway since an hour ago
func webStateDoc(now time.Time, state string) *statusd.Document {
	h := func(n float64) time.Time { return now.Add(time.Duration(n * float64(time.Hour))) }
	d := func(n float64) time.Time { return h(24 * n) }
	comp := func(id int64, parent *int64, pos int, name string, metrics bool) statusd.Component {
		return statusd.Component{ID: id, ParentID: parent, Position: pos, Name: name, Description: name + " of Shop",
			MetricsEnabled: metrics, CreatedAt: testserver.PageCreated, UpdatedAt: testserver.PageCreated}
	}
	notice := func(id int64, typ statusd.NoticeType, subject string, comps []int64, ups ...statusd.Update) statusd.Notice {
		return statusd.Notice{ID: id, Type: typ, Subject: subject, ComponentIDs: comps, TagList: []string{},
			CreatedAt: ups[0].CreatedAt, UpdatedAt: ups[len(ups)-1].CreatedAt, Updates: ups}
	}
	doc := &statusd.Document{
		Page: statusd.Page{Name: "Shop Status", URL: "https://status.shop.test", CreatedAt: testserver.PageCreated, UpdatedAt: testserver.PageCreated},
		Components: []statusd.Component{
			comp(1, nil, 1, "Website", true),
			comp(2, testserver.Ptr(int64(1)), 2, "Checkout", true),
			comp(3, nil, 3, "Email", false),
		},
		Notices: []statusd.Notice{
			notice(10, statusd.Unplanned, "Checkout errors", []int64{2},
				testserver.Upd(statusd.Investigating, d(-4), "We see errors at checkout."),
				testserver.Upd(statusd.Resolved, d(-4).Add(45*time.Minute), "Fixed.")),
			notice(20, statusd.General, "Welcome to our status page", nil, testserver.Upd("", d(-2), "Follow our status here.")),
		},
	}
	switch state {
	case "degraded":
		doc.Notices = append(doc.Notices, notice(30, statusd.Unplanned, "Checkout is failing", []int64{2},
			testserver.Upd(statusd.Investigating, h(-1), "Payments fail; we are on it.")))
	case "maintenance":
		n := notice(40, statusd.Planned, "Email server upgrade", []int64{3},
			testserver.Upd(statusd.Scheduled, d(-1), "We will upgrade the mail servers."),
			testserver.Upd(statusd.Underway, h(-1), "The upgrade has started."))
		begins, ends := h(-1), h(2)
		n.BeginsAt, n.EndsAt = &begins, &ends
		doc.Notices = append(doc.Notices, n)
	}
	return doc
}

// webViewport is a browser's window: its name, size, and whether it is a
// phone's.
type webViewport struct {
	name          string
	width, height int64
	mobile        bool
}

// webViewports are the widths of the screenshots: a phone and a desktop.
var webViewports = []webViewport{{"phone", 390, 844, true}, {"desktop", 1280, 900, false}}

// TestWebBrowser opens every page of a page in each state, at phone and
// desktop widths, in one headless Chromium: it checks what a reader sees,
// that the browser reports no error and no failed request, and saves a
// screenshot of each.
func TestWebBrowser(t *testing.T) {
	browser := webBrowser(t)
	shots := webScreenshots(t)
	states := []struct {
		state, text, word string
		extra             []string // what "/" shows for the state
		refresh           bool
	}{
		{"operational", "All systems operational", "Operational", nil, false},
		{"degraded", "Some systems are degraded", "Degraded",
			[]string{"Open incidents", "Checkout is failing", "Payments fail; we are on it."}, true},
		{"maintenance", "Maintenance is underway", "Under maintenance",
			[]string{"Maintenance in progress", "Email server upgrade", "The upgrade has started."}, true},
	}
	for _, st := range states {
		t.Run(st.state, func(t *testing.T) {
			now := time.Now().UTC().Truncate(time.Second)
			srv := startServer(t, webStateDoc(now, st.state), options{variant: statusd.VariantA})
			tab, cancel := chromedp.NewContext(browser)
			defer cancel()
			ctx, cancelTimeout := context.WithTimeout(tab, 2*time.Minute)
			defer cancelTimeout()
			problems := webListen(t, tab, srv.URL)
			month := now.AddDate(0, 0, -4).Format("January 2006")
			pages := []struct {
				name, path string
				status     int
				texts      []string
			}{
				{"status", "/", 200, append([]string{st.text, "Current state: " + st.word, "Components", "Website", "Checkout", "Email",
					"Announcements", "Welcome to our status page", "Scheduled maintenance", "Last 7 days", "Checkout errors", "uptime"}, st.extra...)},
				{"notice", "/notices/10", 200, []string{"Checkout errors", "Resolved", "Fixed.", "We see errors at checkout.",
					"Affected components", "Checkout", "Downtime", "45 minutes"}},
				{"history", "/history", 200, []string{"History", month, "Checkout errors", "Welcome to our status page", "Page 1 of 1"}},
				{"metrics", "/components/2/metrics", 200, []string{"Checkout: uptime and reliability", "Uptime", "Mean time to recovery",
					"Mean time between failures", "Day by day", "Incidents counted", "Checkout errors"}},
				{"notfound", "/no/such/page", 404, []string{"Page not found", "There is nothing at /no/such/page.", "Back to the status page"}},
			}
			if st.state != "degraded" {
				// One incident of 45 minutes in the default timeframe.
				pages[3].texts = append(pages[3].texts, "Mean time to recovery 45 minutes")
			}
			for _, vp := range webViewports {
				opts := []chromedp.EmulateViewportOption{chromedp.EmulateScale(1)}
				if vp.mobile {
					opts = append(opts, chromedp.EmulateMobile)
				}
				if err := chromedp.Do(ctx, chromedp.EmulateViewport(vp.width, vp.height, opts...)); err != nil {
					t.Fatal(err)
				}
				for _, pg := range pages {
					u := srv.URL + pg.path
					problems.expect("")
					if pg.status != 200 {
						problems.expect(u)
					}
					resp, err := chromedp.Run(ctx, chromedp.NavigateResponse(u))
					if err != nil {
						t.Fatalf("%s: %v", pg.path, err)
					}
					if resp.Status != int64(pg.status) {
						t.Errorf("%s: status %d, want %d", pg.path, resp.Status, pg.status)
					}
					text, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.body.innerText.replace(/\s+/g, " ")`))
					if err != nil {
						t.Fatal(err)
					}
					for _, want := range pg.texts {
						if !strings.Contains(text, want) {
							t.Errorf("%s (%s): the reader does not see %q:\n%s", pg.path, vp.name, want, text)
						}
					}
					// Nothing wider than the screen.
					fits, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.documentElement.scrollWidth <= document.documentElement.clientWidth`))
					if err != nil || !fits {
						t.Errorf("%s (%s): the page is wider than the screen (%v)", pg.path, vp.name, err)
					}
					// The script has run: times are in the reader's zone.
					note, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById("tz-note").textContent`))
					if err != nil || !strings.HasPrefix(note, "Times are in your time zone") {
						t.Errorf("%s (%s): the page script did not run: %q (%v)", pg.path, vp.name, note, err)
					}
					png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
					if err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(filepath.Join(shots, fmt.Sprintf("%s-%s-%s.png", st.state, pg.name, vp.name)), png, 0o644); err != nil {
						t.Fatal(err)
					}
					for _, p := range problems.take() {
						t.Errorf("%s (%s): %s", pg.path, vp.name, p)
					}
				}
			}
			if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/")); err != nil {
				t.Fatal(err)
			}
			// The banner's state word, the refresh while something is open.
			word, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(".banner .state-word")))
			if err != nil || word != st.word {
				t.Errorf("state word %q (%v), want %q", word, err, st.word)
			}
			refresh, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.body.dataset.refresh || ""`))
			if err != nil || (refresh == "60") != st.refresh {
				t.Errorf("data-refresh %q (%v), want refresh %v", refresh, err, st.refresh)
			}
			if st.state == "degraded" {
				webInteract(t, ctx, srv.URL, now, shots)
			}
			for _, p := range problems.take() {
				t.Errorf("%s", p)
			}
			// The detector works and the CSP is enforced: inline script is
			// refused and reported.
			ran, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(function () {
				var s = document.createElement("script");
				s.textContent = "window.inlineRan = true";
				document.head.appendChild(s);
				return window.inlineRan === true;
			})()`))
			if err != nil || ran {
				t.Errorf("inline script ran: %v (%v)", ran, err)
			}
			time.Sleep(200 * time.Millisecond)
			if got := strings.Join(problems.take(), "\n"); !strings.Contains(got, "CSP violation: script-src") {
				t.Errorf("an inline script was not reported as a CSP violation; seen: %q", got)
			}
		})
	}
}

// webInteract checks the progressive parts on the degraded page, at
// desktop width: tooltips of the daily bars on focus, keys and hover; the
// collapsible groups; times in the reader's zone; dark mode.
func webInteract(t *testing.T, ctx context.Context, base string, now time.Time, shots string) {
	t.Helper()
	eval := func(js string) string {
		t.Helper()
		v, err := chromedp.Run(ctx, chromedp.Evaluate[string](js))
		if err != nil {
			t.Fatalf("%s: %v", js, err)
		}
		return v
	}
	tipText := `(function () { var t = document.getElementById("bar-tip"); return t && !t.hidden ? t.innerText.replace(/\s+/g, " ") : "hidden"; })()`
	today := now.Format("2 Jan 2006")
	yesterday := now.AddDate(0, 0, -1).Format("2 Jan 2006")
	incidentDay := now.AddDate(0, 0, -4).Format("2 Jan 2006")

	// One tab stop per row of bars: the latest day.
	if got := eval(`String(document.querySelectorAll("#component-2 svg[data-bars] .bar[tabindex='0']").length)`); got != "1" {
		t.Errorf("%s tab stops in a row of bars, want 1", got)
	}
	eval(`(function () { var b = document.querySelectorAll("#component-2 svg[data-bars] .bar"); b[b.length - 1].focus(); return ""; })()`)
	if got := eval(tipText); !strings.Contains(got, today) || !strings.Contains(got, "uptime") || !strings.Contains(got, "Checkout is failing") {
		t.Errorf("focused bar of today: tooltip %q", got)
	}
	if err := chromedp.Do(ctx, chromedp.KeyEvent(kb.ArrowLeft)); err != nil {
		t.Fatal(err)
	}
	if got := eval(`document.activeElement.getAttribute("data-date")`); got != yesterday {
		t.Errorf("after ArrowLeft the focus is on %q, want %q", got, yesterday)
	}
	if got := eval(tipText); !strings.HasPrefix(got, yesterday) {
		t.Errorf("tooltip after ArrowLeft %q", got)
	}
	if err := chromedp.Do(ctx, chromedp.KeyEvent(kb.Escape)); err != nil {
		t.Fatal(err)
	}
	if got := eval(tipText); got != "hidden" {
		t.Errorf("tooltip after Escape %q", got)
	}
	// Hover over the day of incident 10.
	xy := eval(fmt.Sprintf(`(function () {
		var b = document.querySelector("#component-2 svg[data-bars] .bar[data-date='%s']");
		b.scrollIntoView({block: "center"});
		var r = b.getBoundingClientRect();
		return (r.left + r.width / 2) + " " + (r.top + r.height / 2);
	})()`, incidentDay))
	var x, y float64
	if _, err := fmt.Sscan(xy, &x, &y); err != nil {
		t.Fatalf("bar position %q: %v", xy, err)
	}
	if err := chromedp.Do(ctx, chromedp.MouseEvent("mouseMoved", x, y)); err != nil {
		t.Fatal(err)
	}
	if got := eval(tipText); !strings.HasPrefix(got, incidentDay) || !strings.Contains(got, "Checkout errors") || !strings.Contains(got, "down") {
		t.Errorf("hovered bar of %s: tooltip %q", incidentDay, got)
	}
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err == nil {
		err = os.WriteFile(filepath.Join(shots, "degraded-status-tooltip-desktop.png"), png, 0o644)
	}
	if err != nil {
		t.Fatal(err)
	}
	// Groups collapse and open again.
	for _, want := range []string{"false", "true"} {
		if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#component-1 > details > summary"))); err != nil {
			t.Fatal(err)
		}
		if got := eval(`String(document.querySelector("#component-1 > details").open)`); got != want {
			t.Errorf("group open %s, want %s", got, want)
		}
	}
	// Dark mode follows prefers-color-scheme.
	for _, scheme := range []struct{ name, bg string }{{"dark", "rgb(13, 17, 23)"}, {"light", "rgb(255, 255, 255)"}} {
		_, err := chromedp.Call(ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
			Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme.name}}})
		if err != nil {
			t.Fatal(err)
		}
		if got := eval(`getComputedStyle(document.body).backgroundColor`); got != scheme.bg {
			t.Errorf("%s: background %s, want %s", scheme.name, got, scheme.bg)
		}
		if scheme.name == "dark" {
			eval(`window.scrollTo(0, 0), ""`)
			png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
			if err == nil {
				err = os.WriteFile(filepath.Join(shots, "degraded-status-dark-desktop.png"), png, 0o644)
			}
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	// Times in the reader's zone: Tokyo is UTC+9 all year. The UTC text
	// stays as the title.
	if _, err := chromedp.Call(ctx, emulation.SetTimezoneOverride, emulation.SetTimezoneOverrideParams{TimezoneID: "Asia/Tokyo"}); err != nil {
		t.Fatal(err)
	}
	defer chromedp.Call(ctx, emulation.SetTimezoneOverride, emulation.SetTimezoneOverrideParams{})
	if err := chromedp.Do(ctx, chromedp.Navigate(base+"/notices/10")); err != nil {
		t.Fatal(err)
	}
	began := now.AddDate(0, 0, -4)
	local := eval(`document.querySelector("time[data-local]").textContent`)
	title := eval(`document.querySelector("time[data-local]").title`)
	datetime := eval(`document.querySelector("time[data-local]").getAttribute("datetime")`)
	tokyo := began.Add(9 * time.Hour)
	if datetime != testserver.TS(began) || title != began.Format("2 Jan 2006, 15:04 UTC") ||
		!strings.Contains(local, "GMT+9") || !strings.Contains(local, tokyo.Format(":04")) || !strings.Contains(local, tokyo.Format("2006")) {
		t.Errorf("first time: datetime %q, title %q, text %q; want %s in Tokyo time", datetime, title, local, testserver.TS(began))
	}
	if got := eval(`document.getElementById("tz-note").textContent`); !strings.Contains(got, "Asia/Tokyo") {
		t.Errorf("time zone note %q", got)
	}
}
