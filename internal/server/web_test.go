package server_test

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/internal/testserver"
)

// The status page, black-box: the real server on testserver.Fixture.
// Expectations are worked out by hand from the fixture;
// comments give the reasoning.

// webPage is an HTML answer, parsed.
type webPage struct {
	Path   string
	Status int
	Header http.Header
	Body   string
	Doc    *html.Node
}

// webGet fetches an HTML page and fails unless the status is want; it
// checks the security headers and that the page is well formed.
func webGet(t *testing.T, srv *testserver.Server, path string, want int) webPage {
	t.Helper()
	return webParse(t, path, srv.In(t).Do(http.MethodGet, path), want)
}

// webParse is webGet for an answer already fetched, of path (which names
// the request in messages: "POST /subscribe").
func webParse(t *testing.T, path string, r testserver.Response, want int) webPage {
	t.Helper()
	if r.Status != want {
		t.Fatalf("%s: status %d, want %d\n%s", path, r.Status, want, r.Body)
	}
	p := webPage{Path: path, Status: r.Status, Header: r.Header, Body: string(r.Body)}
	webCheckHeaders(t, path, r.Header)
	webWellFormed(t, path, p.Body)
	doc, err := html.Parse(strings.NewReader(p.Body))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	p.Doc = doc
	return p
}

func webCheckHeaders(t *testing.T, path string, h http.Header) {
	t.Helper()
	if ct := h.Get("Content-Type"); ct != "text/html; charset=utf-8" {
		t.Errorf("%s: Content-Type %q", path, ct)
	}
	csp := h.Get("Content-Security-Policy")
	for _, must := range []string{"default-src 'self'", "script-src 'self'", "style-src 'self'", "frame-ancestors 'none'", "object-src 'none'"} {
		if !strings.Contains(csp, must) {
			t.Errorf("%s: Content-Security-Policy %q lacks %s", path, csp, must)
		}
	}
	if strings.Contains(csp, "unsafe-") || strings.Contains(csp, "*") {
		t.Errorf("%s: Content-Security-Policy %q is not strict", path, csp)
	}
	if h.Get("X-Content-Type-Options") != "nosniff" || h.Get("Referrer-Policy") == "" {
		t.Errorf("%s: nosniff %q, Referrer-Policy %q", path, h.Get("X-Content-Type-Options"), h.Get("Referrer-Policy"))
	}
}

// webVoid are the HTML elements that have no end tag.
var webVoid = map[string]bool{"area": true, "base": true, "br": true, "col": true, "embed": true, "hr": true,
	"img": true, "input": true, "link": true, "meta": true, "source": true, "track": true, "wbr": true}

// webWellFormed checks that the page is well formed in the XML sense on top
// of HTML: a doctype, every element closed in order (void elements never),
// no attribute twice, ids unique, and the accessibility basics: a language,
// one h1, one main, labelled inputs (but hidden ones).
func webWellFormed(t *testing.T, path, body string) {
	t.Helper()
	if !strings.HasPrefix(body, "<!DOCTYPE html>") {
		t.Errorf("%s: no doctype", path)
	}
	z := html.NewTokenizer(strings.NewReader(body))
	var stack []string
	ids := map[string]bool{}
	labels := map[string]bool{}
	var inputs []string
	count := map[string]int{}
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			if z.Err() != io.EOF {
				t.Errorf("%s: %v", path, z.Err())
			}
			break
		}
		tok := z.Token()
		switch tt {
		case html.StartTagToken, html.SelfClosingTagToken:
			count[tok.Data]++
			seen := map[string]bool{}
			for _, a := range tok.Attr {
				if seen[a.Key] {
					t.Errorf("%s: <%s> has %s twice", path, tok.Data, a.Key)
				}
				seen[a.Key] = true
				switch a.Key {
				case "id":
					if ids[a.Val] {
						t.Errorf("%s: id %q twice", path, a.Val)
					}
					ids[a.Val] = true
				case "for":
					labels[a.Val] = true
				case "style":
					t.Errorf("%s: inline style on <%s> (the CSP forbids it)", path, tok.Data)
				}
				if strings.HasPrefix(a.Key, "on") {
					t.Errorf("%s: inline handler %s on <%s>", path, a.Key, tok.Data)
				}
			}
			if tok.Data == "input" && webTokAttr(tok, "type") != "hidden" {
				inputs = append(inputs, webTokAttr(tok, "id"))
			}
			if tok.Data == "html" && webTokAttr(tok, "lang") != "en" {
				t.Errorf("%s: <html> without lang", path)
			}
			if tok.Data == "script" && webTokAttr(tok, "src") == "" {
				t.Errorf("%s: inline script", path)
			}
			if tt == html.StartTagToken && !webVoid[tok.Data] {
				stack = append(stack, tok.Data)
			}
			if tt == html.SelfClosingTagToken && !webVoid[tok.Data] && !webSVG(stack) {
				t.Errorf("%s: <%s/> is not a void element", path, tok.Data)
			}
		case html.EndTagToken:
			if webVoid[tok.Data] {
				t.Errorf("%s: </%s> closes a void element", path, tok.Data)
				continue
			}
			if len(stack) == 0 || stack[len(stack)-1] != tok.Data {
				t.Errorf("%s: </%s> does not close the open element (open: %v)", path, tok.Data, stack)
				return
			}
			stack = stack[:len(stack)-1]
		}
	}
	if len(stack) != 0 {
		t.Errorf("%s: elements left open: %v", path, stack)
	}
	if count["h1"] != 1 || count["main"] != 1 || count["header"] < 1 || count["footer"] < 1 || count["nav"] < 1 {
		t.Errorf("%s: h1 %d, main %d, header %d, footer %d, nav %d", path, count["h1"], count["main"], count["header"], count["footer"], count["nav"])
	}
	for _, id := range inputs {
		if id == "" || !labels[id] {
			t.Errorf("%s: an input without a label (id %q)", path, id)
		}
	}
}

func webSVG(stack []string) bool { return slices.Contains(stack, "svg") }

func webTokAttr(tok html.Token, key string) string {
	for _, a := range tok.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

func webAttr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

func webWalk(n *html.Node, f func(*html.Node)) {
	if n.Type == html.ElementNode {
		f(n)
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		webWalk(c, f)
	}
}

func webByID(t *testing.T, p webPage, id string) *html.Node {
	t.Helper()
	var found *html.Node
	webWalk(p.Doc, func(n *html.Node) {
		if found == nil && webAttr(n, "id") == id {
			found = n
		}
	})
	if found == nil {
		t.Fatalf("%s: no element with id %q", p.Path, id)
	}
	return found
}

// webText is the text under n with white space collapsed.
func webText(n *html.Node) string {
	var b strings.Builder
	var rec func(*html.Node)
	rec = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
			b.WriteByte(' ')
		}
		if n.Type == html.ElementNode && (n.Data == "title" || n.Data == "script") {
			return
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			rec(c)
		}
	}
	rec(n)
	return strings.Join(strings.Fields(b.String()), " ")
}

// webNoticeLinks lists the notice ids linked under n, in order, once each.
func webNoticeLinks(n *html.Node) []string {
	var out []string
	webWalk(n, func(e *html.Node) {
		if h := webAttr(e, "href"); e.Data == "a" && strings.HasPrefix(h, "/notices/") && !slices.Contains(out, h[len("/notices/"):]) {
			out = append(out, h[len("/notices/"):])
		}
	})
	return out
}

// webSection is the element labelled by the heading with the id.
func webSection(t *testing.T, p webPage, headingID string) *html.Node {
	t.Helper()
	var found *html.Node
	webWalk(p.Doc, func(n *html.Node) {
		if found == nil && webAttr(n, "aria-labelledby") == headingID {
			found = n
		}
	})
	if found == nil {
		t.Fatalf("%s: no section labelled by %s", p.Path, headingID)
	}
	return found
}

// webLinks returns every link of a page: href, src and action values.
func webLinks(n *html.Node) []string {
	var out []string
	webWalk(n, func(e *html.Node) {
		for _, k := range []string{"href", "src", "action"} {
			if v := webAttr(e, k); v != "" {
				if e.Data == "use" { // in-page SVG references
					continue
				}
				out = append(out, v)
			}
		}
	})
	return out
}

// TestWebLinksResolve crawls the whole site from / in both variants: every
// HTML page is well formed with the security headers, every link on it
// (href, src, form action) is a path on statusd itself that answers 200,
// and every #fragment names an element of its page.
func TestWebLinksResolve(t *testing.T) {
	for _, variant := range []string{"a", "b"} {
		t.Run(variant, func(t *testing.T) {
			srv, _ := fixtureServer(t, variant, options{})
			pages := map[string]webPage{}
			checked := map[string]bool{}
			queue := []string{"/", "/history"}
			var fragments [][3]string // page, target page, fragment
			for len(queue) > 0 {
				path := queue[0]
				queue = queue[1:]
				if _, ok := pages[path]; ok {
					continue
				}
				if len(pages) > 300 {
					t.Fatal("more than 300 pages: the crawl does not end")
				}
				p := webGet(t, srv, path, 200)
				pages[path] = p
				for _, link := range webLinks(p.Doc) {
					u, err := url.Parse(link)
					if err != nil || u.Scheme != "" || u.Host != "" || (u.Path != "" && !strings.HasPrefix(u.Path, "/")) {
						t.Errorf("%s: link %q does not stay on statusd", path, link)
						continue
					}
					target := u.Path
					if target == "" {
						target = path
					} else if u.RawQuery != "" {
						target += "?" + u.RawQuery
					}
					if webIsPage(u.Path) || u.Path == "" {
						queue = append(queue, target)
						if u.Fragment != "" {
							fragments = append(fragments, [3]string{path, target, u.Fragment})
						}
						continue
					}
					if checked[target] {
						continue
					}
					checked[target] = true
					r := srv.Do(http.MethodGet, target)
					if r.Status != 200 {
						t.Errorf("%s: link %s answers %d", path, link, r.Status)
					}
				}
			}
			for _, f := range fragments {
				if p, ok := pages[f[1]]; !ok {
					t.Errorf("%s: link to %s#%s, a page never reached", f[0], f[1], f[2])
				} else {
					webByID(t, p, f[2])
				}
			}
			// Every notice and, in Variant A, every metrics page is reached.
			for _, id := range []int{100, 101, 102, 103, 104, 105, 200, 201, 202, 203, 204, 300, 301, 302, 303} {
				if _, ok := pages[fmt.Sprintf("/notices/%d", id)]; !ok {
					t.Errorf("notice %d is linked from no page", id)
				}
			}
			for _, id := range []int{10, 11, 30} {
				_, ok := pages[fmt.Sprintf("/components/%d/metrics", id)]
				if ok != (variant == "a") {
					t.Errorf("metrics page of %d reached: %v", id, ok)
				}
			}
			if len(checked) < 5 {
				t.Errorf("only %d other links checked: %v", len(checked), checked)
			}
		})
	}
}

// webIsPage reports whether a path is an HTML page of the site (as
// opposed to an asset, a feed or the API).
func webIsPage(p string) bool {
	return p == "/" || p == "/history" || strings.HasPrefix(p, "/notices/") || strings.HasPrefix(p, "/components/")
}

// TestWebStatusPage checks what the status page shows for the fixture.
func TestWebStatusPage(t *testing.T) {
	for _, variant := range []string{"a", "b"} {
		t.Run(variant, func(t *testing.T) {
			srv, now := fixtureServer(t, variant, options{})
			p := webGet(t, srv, "/", 200)
			// Incident 100 is identified: degraded, even with 200 underway.
			banner := webSection(t, p, "banner-title")
			if got := webText(banner); !strings.Contains(got, "Some systems are degraded") || !strings.Contains(got, "Current state: Degraded") {
				t.Errorf("banner %q", got)
			}
			if !strings.Contains(p.Body, `<body data-refresh="60">`) {
				t.Error("an incident is open but the page does not refresh itself")
			}
			// Present incidents newest first: 100 (identified), 105
			// (recovering), with their latest updates.
			inc := webSection(t, p, "incidents-title")
			if got := webNoticeLinks(inc); !slices.Equal(got, []string{"100", "105"}) {
				t.Errorf("open incidents %v", got)
			}
			for _, want := range []string{"A bad deploy; rolling back.", "Recovering.", "Identified", "Affects: API EU", "Affects: Dashboard"} {
				if !strings.Contains(webText(inc), want) {
					t.Errorf("open incidents lack %q: %s", want, webText(inc))
				}
			}
			for id, want := range map[string][]string{
				"underway-title":      {"200"},
				"announcements-title": {"300", "301"},
				"upcoming-title":      {"201"},
			} {
				if got := webNoticeLinks(webSection(t, p, id)); !slices.Equal(got, want) {
					t.Errorf("%s: %v, want %v", id, got, want)
				}
			}
			if !strings.Contains(webText(webSection(t, p, "underway-title")), "Started.") {
				t.Error("underway maintenance without its latest update")
			}
			// Component states (CONTRACT C3): 11 is listed by current
			// incident 100; 20 and 30 by underway 200; 10 is degraded with
			// its child 11; the rest operational.
			maint := "Under maintenance"
			for id, want := range map[int]string{20: maint, 10: "Degraded", 12: "Operational", 11: "Degraded", 30: maint, 31: "Operational"} {
				c := webByID(t, p, fmt.Sprintf("component-%d", id))
				var badge string
				webWalk(c, func(n *html.Node) {
					if badge == "" && strings.HasPrefix(webAttr(n, "class"), "badge") {
						badge = webText(n)
					}
				})
				if badge != want {
					t.Errorf("component %d shows %q, want %q", id, badge, want)
				}
			}
			// The tree: top level in position order, children inside their
			// parent's collapsible group.
			var top []string
			webWalk(p.Doc, func(n *html.Node) {
				if n.Data == "li" && webAttr(n, "class") == "component" && webAttr(n.Parent, "class") == "tree" {
					top = append(top, webAttr(n, "id"))
				}
			})
			if !slices.Equal(top, []string{"component-20", "component-10", "component-30"}) {
				t.Errorf("top level %v", top)
			}
			for parent, children := range map[int][]string{10: {"component-12", "component-11"}, 30: {"component-31"}} {
				var got []string
				webWalk(webByID(t, p, fmt.Sprintf("component-%d", parent)), func(n *html.Node) {
					if n.Data == "li" && webAttr(n.Parent, "class") == "children" && n.Parent.Parent.Data == "details" {
						got = append(got, webAttr(n, "id"))
					}
				})
				if !slices.Equal(got, children) {
					t.Errorf("children of %d: %v, want %v", parent, got, children)
				}
			}
			webCheckBars(t, p, variant, now)
			// The last 7 days, by the day each notice began (or was posted).
			recent := webSection(t, p, "recent-title")
			d := func(days float64) time.Time { return now.Add(time.Duration(days * 24 * float64(time.Hour))) }
			hr := func(n float64) time.Time { return now.Add(time.Duration(n * float64(time.Hour))) }
			byDay := map[string]time.Time{"200": hr(-1), "100": hr(-2), "105": hr(-5), "300": d(-1), "101": d(-3), "202": d(-5)}
			for id, when := range byDay {
				day := webByID(t, p, "day-"+statusd.Day(when).Format(statusd.DateLayout))
				if !slices.Contains(webNoticeLinks(day.Parent), id) {
					t.Errorf("notice %s is not under %s", id, statusd.Day(when).Format(statusd.DateLayout))
				}
			}
			recentIDs := webNoticeLinks(recent)
			slices.Sort(recentIDs)
			if want := []string{"100", "101", "105", "200", "202", "300"}; !slices.Equal(recentIDs, want) {
				t.Errorf("last 7 days list %v, want %v", recentIDs, want)
			}
		})
	}
}

// webOverlap is how many seconds of [s, e) fall on each UTC day.
func webOverlap(out map[string]int64, s, e time.Time) {
	for d := statusd.Day(s); d.Before(e); d = d.AddDate(0, 0, 1) {
		from, to := d, d.AddDate(0, 0, 1)
		if s.After(from) {
			from = s
		}
		if e.Before(to) {
			to = e
		}
		if to.After(from) {
			out[d.Format("2 Jan 2006")] += int64(to.Sub(from) / time.Second)
		}
	}
}

// webCheckBars checks the 90 daily bars of the Metrics components (Variant
// A only) against the incidents of the fixture, day by day:
//
//	API (10): 100 via 11 (2 hours ago to now), 102 (two 1-hour spans 40
//	days ago), 104 via 11 (its 600 s override, 20 days ago); 103 is a
//	false alarm and counts nowhere.
//	API EU (11): 100 and 104.
//	Database (30): 102, and 101 via 31 (30 minutes, 3 days ago).
func webCheckBars(t *testing.T, p webPage, variant string, now time.Time) {
	t.Helper()
	h := func(n float64) time.Time { return now.Add(time.Duration(n * float64(time.Hour))) }
	d := func(n float64) time.Time { return h(24 * n) }
	type span struct {
		s, e    time.Time
		subject string
	}
	i100 := span{h(-2), now, "API errors"}
	i102a := span{d(-40), d(-40).Add(time.Hour), "Outage, reopened"}
	i102b := span{d(-40).Add(2 * time.Hour), d(-40).Add(3 * time.Hour), "Outage, reopened"}
	i104 := span{d(-20), d(-20).Add(600 * time.Second), "Slow EU responses"}
	i101 := span{d(-3), d(-3).Add(30 * time.Minute), "Replica lag"}
	spans := map[int][]span{10: {i100, i102a, i102b, i104}, 11: {i100, i104}, 30: {i102a, i102b, i101}}
	for _, id := range []int{20, 10, 12, 11, 30, 31} {
		c := webByID(t, p, fmt.Sprintf("component-%d", id))
		var bars []*html.Node
		webWalk(c, func(n *html.Node) {
			if n.Data == "g" && strings.HasPrefix(webAttr(n, "class"), "bar") && webOwner(n) == c {
				bars = append(bars, n)
			}
		})
		want, ok := spans[id]
		if variant == "b" || !ok {
			if len(bars) != 0 {
				t.Errorf("component %d: %d bars, want none", id, len(bars))
			}
			continue
		}
		if len(bars) != 90 {
			t.Fatalf("component %d: %d bars, want 90", id, len(bars))
		}
		down := map[string]int64{}
		incidents := map[string][]string{}
		for _, sp := range want {
			webOverlap(down, sp.s, sp.e)
			for day := statusd.Day(sp.s); day.Before(sp.e); day = day.AddDate(0, 0, 1) {
				k := day.Format("2 Jan 2006")
				if !slices.Contains(incidents[k], sp.subject) {
					incidents[k] = append(incidents[k], sp.subject)
				}
			}
		}
		today := statusd.Day(now)
		for i, b := range bars {
			date := today.AddDate(0, 0, i-89)
			k := date.Format("2 Jan 2006")
			if got := webAttr(b, "data-date"); got != k {
				t.Fatalf("component %d bar %d: date %s, want %s", id, i, got, k)
			}
			// Today's figures move with the clock of the request (incident
			// 100 is still open), so only the days before today are exact.
			if !date.Equal(today) {
				hundredths := (86400 - down[k]) * 10000 / 86400 // C4: truncated to two decimals
				wantUp := fmt.Sprintf("%d.%02d%%", hundredths/100, hundredths%100)
				wantDown := ""
				if down[k] > 0 {
					wantDown = statusd.DurationWords(down[k])
				}
				if got := webAttr(b, "data-uptime"); got != wantUp {
					t.Errorf("component %d, %s: uptime %s, want %s", id, k, got, wantUp)
				}
				if got := webAttr(b, "data-down"); got != wantDown {
					t.Errorf("component %d, %s: down %q, want %q", id, k, got, wantDown)
				}
			}
			gotInc := strings.Split(webAttr(b, "data-incidents"), "\n")
			if gotInc[0] == "" {
				gotInc = nil
			}
			slices.Sort(gotInc)
			wantInc := slices.Clone(incidents[k])
			slices.Sort(wantInc)
			if !slices.Equal(gotInc, wantInc) {
				t.Errorf("component %d, %s: incidents %q, want %q", id, k, gotInc, wantInc)
			}
			if webAttr(b, "tabindex") != "0" || b.FirstChild == nil || b.FirstChild.Data != "title" {
				t.Errorf("component %d, %s: bar not focusable or without a title", id, k)
			}
		}
	}
}

// webOwner is the component item a node belongs to.
func webOwner(n *html.Node) *html.Node {
	for p := n.Parent; p != nil; p = p.Parent {
		if p.Data == "li" && webAttr(p, "class") == "component" {
			return p
		}
	}
	return nil
}

// TestWebNoticePage checks notice pages: every update newest first, the
// impacted components in position order, the times in <time> elements.
func TestWebNoticePage(t *testing.T) {
	for _, variant := range []string{"a", "b"} {
		t.Run(variant, func(t *testing.T) {
			srv, now := fixtureServer(t, variant, options{})
			d := func(n float64) time.Time { return now.Add(time.Duration(n * 24 * float64(time.Hour))) }
			h := func(n float64) time.Time { return now.Add(time.Duration(n * float64(time.Hour))) }
			p := webGet(t, srv, "/notices/102", 200)
			if got := webText(webByID(t, p, "notice-title")); got != "Outage, reopened" {
				t.Errorf("title %q", got)
			}
			var updates []string
			webWalk(webSection(t, p, "updates-title"), func(n *html.Node) {
				if webAttr(n, "class") == "content" {
					updates = append(updates, webText(n))
				}
			})
			if want := []string{"Post-mortem follows.", "Fixed.", "Found it.", "Down again.", "Back.", "Down."}; !slices.Equal(updates, want) {
				t.Errorf("updates %v, want %v", updates, want)
			}
			var times []string
			webWalk(webSection(t, p, "updates-title"), func(n *html.Node) {
				if n.Data == "time" {
					times = append(times, webAttr(n, "datetime")+" "+webText(n))
				}
			})
			t0 := d(-40)
			var want []string
			for _, m := range []int{190, 180, 150, 120, 60, 0} {
				tm := t0.Add(time.Duration(m) * time.Minute)
				want = append(want, testserver.TS(tm)+" "+tm.UTC().Format("2 Jan 2006, 15:04 UTC"))
			}
			if !slices.Equal(times, want) {
				t.Errorf("update times %v, want %v", times, want)
			}
			affected := webSection(t, p, "affected-title")
			if got := webText(affected); got != "Affected components API Degraded Database Under maintenance" {
				t.Errorf("affected %q", got)
			}
			facts := webText(p.Doc)
			for _, want := range []string{"Began " + t0.UTC().Format("2 Jan 2006, 15:04 UTC"), "Ended " + t0.Add(3*time.Hour).UTC().Format("2 Jan 2006, 15:04 UTC"), "Tags db, api", "Resolved"} {
				if !strings.Contains(facts, want) {
					t.Errorf("notice 102 lacks %q", want)
				}
			}
			// Downtime: 1 h + 1 h (Variant A only).
			if got := strings.Contains(facts, "Downtime 2 hours"); got != (variant == "a") {
				t.Errorf("downtime shown: %v", got)
			}
			// The underway maintenance: its schedule and components in
			// position order (Dashboard 1, Database 5).
			p = webGet(t, srv, "/notices/200", 200)
			text := webText(p.Doc)
			for _, want := range []string{
				"Scheduled " + h(-1).UTC().Format("2 Jan 2006, 15:04 UTC") + " to " + h(1).UTC().Format("2 Jan 2006, 15:04 UTC"),
				"Affected components Dashboard Under maintenance Database Under maintenance",
				"In progress", "Started.", "Scheduled.",
			} {
				if !strings.Contains(text, want) {
					t.Errorf("notice 200 lacks %q:\n%s", want, text)
				}
			}
			// A general notice has no state and no component.
			p = webGet(t, srv, "/notices/300", 200)
			if text := webText(p.Doc); !strings.Contains(text, "Announcement") || !strings.Contains(text, "Our new status page.") || !strings.Contains(text, "No component is listed.") {
				t.Errorf("notice 300: %s", text)
			}
			webGet(t, srv, "/notices/999", 404)
		})
	}
}

// TestWebHistory checks that the archive holds every notice but the future
// one (201), each under the month it began, scheduled or was posted.
func TestWebHistory(t *testing.T) {
	srv, now := fixtureServer(t, "a", options{})
	h := func(n float64) time.Time { return now.Add(time.Duration(n * float64(time.Hour))) }
	d := func(n float64) time.Time { return h(24 * n) }
	dates := map[string]time.Time{
		"100": h(-2), "105": h(-5), "300": d(-1), "200": h(-1), "101": d(-3), "202": d(-5), "302": d(-9),
		"103": d(-10), "104": d(-20), "203": d(-28), "303": d(-35), "102": d(-40), "204": d(-50), "301": d(-70),
	}
	found := map[string]string{}
	path := "/history"
	for page := 1; path != ""; page++ {
		p := webGet(t, srv, path, 200)
		webWalk(p.Doc, func(n *html.Node) {
			if n.Data == "section" && strings.HasPrefix(webAttr(n, "aria-labelledby"), "month-") {
				for _, id := range webNoticeLinks(n) {
					found[id] = strings.TrimPrefix(webAttr(n, "aria-labelledby"), "month-")
				}
			}
		})
		path = ""
		webWalk(p.Doc, func(n *html.Node) {
			if n.Data == "a" && webAttr(n, "rel") == "next" {
				path = webAttr(n, "href")
			}
		})
		if page > 5 {
			t.Fatal("too many pages")
		}
	}
	if len(found) != len(dates) {
		t.Errorf("archive holds %d notices, want %d: %v", len(found), len(dates), found)
	}
	for id, when := range dates {
		y, m, _ := when.UTC().Date()
		if want := fmt.Sprintf("%04d-%02d-01", y, m); found[id] != want {
			t.Errorf("notice %s under %q, want %s", id, found[id], want)
		}
	}
	if r := srv.Do(http.MethodGet, "/history?page=x"); r.Status != 400 {
		t.Errorf("page=x: %d", r.Status)
	}
}

// TestWebMetricsPage checks the metrics page over the past timeframe of
// TestMetricsPastTimeframe (45 to 15 days ago, 31 days): API holds 104 (600
// s) and 102 (7,200 s), so 99.70%, MTTR 1 hour 5 minutes, MTBF 15 days 10
// hours 55 minutes; and that the figures are the API's.
func TestWebMetricsPage(t *testing.T) {
	srv, now := fixtureServer(t, "a", options{})
	start, end := day(now.AddDate(0, 0, -45)), day(now.AddDate(0, 0, -15))
	path := fmt.Sprintf("/components/10/metrics?timeframe_start=%s&timeframe_end=%s", start, end)
	p := webGet(t, srv, path, 200)
	figures := map[string]string{}
	webWalk(p.Doc, func(n *html.Node) {
		if n.Data == "dt" && webAttr(n.Parent.Parent, "class") == "figures" {
			figures[webText(n)] = webText(n.NextSibling)
		}
	})
	want := map[string]string{"Uptime": "99.70%", "Mean time to recovery": "1 hour 5 minutes",
		"Mean time between failures": "15 days 10 hours 55 minutes", "Incidents counted": "2",
		"Downtime": "2 hours 10 minutes", "Time covered": "31 days"}
	for k, v := range want {
		if figures[k] != v {
			t.Errorf("%s = %q, want %q", k, figures[k], v)
		}
	}
	api := srv.Get("/api/v1"+path+"&show_calculations=true", 200)
	for k, key := range map[string]string{"Uptime": "percentage_uptime.words", "Mean time to recovery": "mean_time_to_recovery.words",
		"Mean time between failures": "mean_time_between_failures.words", "Downtime": "calculation_data_in_timeframe.total_impact_time.words"} {
		if got := testserver.At(t, api.JSON, key); got != figures[k] {
			t.Errorf("%s: page %q, API %q", k, figures[k], got)
		}
	}
	// The counted notices are the API's, newest first, and the page links
	// to the API's list.
	counted := webSection(t, p, "counted-title")
	if got := webNoticeLinks(counted); !slices.Equal(got, []string{"104", "102"}) {
		t.Errorf("counted %v", got)
	}
	href := testserver.At(t, api.JSON, "calculation_data_in_timeframe.notices.href").(string)
	var apiLink string
	webWalk(counted, func(n *html.Node) {
		if h := webAttr(n, "href"); strings.HasPrefix(h, "/api/") {
			apiLink = h
		}
	})
	if u1, u2 := webDecode(t, apiLink), webDecode(t, href); u1 != u2 {
		t.Errorf("link to the counted notices %q, API href %q", apiLink, href)
	}
	var listed struct {
		Notices []struct{ ID int64 } `json:"notices"`
	}
	if err := json.Unmarshal(srv.Get(apiLink, 200).Body, &listed); err != nil || len(listed.Notices) != 2 || listed.Notices[0].ID != 104 || listed.Notices[1].ID != 102 {
		t.Errorf("the page's API link lists %+v (%v)", listed, err)
	}
	// The day-by-day chart covers the 31 days; the two days of 102 and the
	// day of 104 are in the table.
	var bars int
	webWalk(webSection(t, p, "chart-title"), func(n *html.Node) {
		if n.Data == "g" && strings.HasPrefix(webAttr(n, "class"), "bar") {
			bars++
		}
	})
	if bars != 31 {
		t.Errorf("%d bars, want 31", bars)
	}
	table := webText(webSection(t, p, "chart-title"))
	for _, s := range []string{"Slow EU responses", "Outage, reopened"} {
		if !strings.Contains(table, s) {
			t.Errorf("day table lacks %s", s)
		}
	}
	// The form changes the timeframe with GET.
	for _, s := range []string{`<form class="timeframe" method="get" action="/components/10/metrics">`,
		`name="timeframe_start" value="` + start + `"`, `name="timeframe_end" value="` + end + `"`} {
		if !strings.Contains(p.Body, s) {
			t.Errorf("form lacks %s", s)
		}
	}
	// Errors: 400 pages with the message; 404 for metrics off, unknown.
	bad := webGet(t, srv, "/components/10/metrics?timeframe_start=2000-01-01", 400)
	if !strings.Contains(webText(bad.Doc), "timeframe_start: 2000-01-01 is more than 12 months in the past") {
		t.Errorf("400 page: %s", webText(bad.Doc))
	}
	bad = webGet(t, srv, "/components/10/metrics?timeframe_end=soon", 400)
	if !strings.Contains(webText(bad.Doc), `timeframe_end: "soon" is not a date (yyyy-mm-dd)`) {
		t.Errorf("400 page: %s", webText(bad.Doc))
	}
	webGet(t, srv, "/components/20/metrics", 404)
	webGet(t, srv, "/components/999/metrics", 404)
	srvB, _ := fixtureServer(t, "b", options{})
	webGet(t, srvB, "/components/10/metrics", 404)
}

func webDecode(t *testing.T, s string) string {
	t.Helper()
	v, err := url.QueryUnescape(s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// The feeds, as a feed reader parses them.
type webAtom struct {
	XMLName xml.Name `xml:"http://www.w3.org/2005/Atom feed"`
	ID      string   `xml:"id"`
	Title   string   `xml:"title"`
	Updated string   `xml:"updated"`
	Links   []struct {
		Rel  string `xml:"rel,attr"`
		Href string `xml:"href,attr"`
	} `xml:"link"`
	Author struct {
		Name string `xml:"name"`
	} `xml:"author"`
	Entries []struct {
		ID    string `xml:"id"`
		Title string `xml:"title"`
		Link  struct {
			Rel  string `xml:"rel,attr"`
			Href string `xml:"href,attr"`
		} `xml:"link"`
		Published  string `xml:"published"`
		Updated    string `xml:"updated"`
		Summary    string `xml:"summary"`
		Categories []struct {
			Term string `xml:"term,attr"`
		} `xml:"category"`
		Content struct {
			Type string `xml:"type,attr"`
			Body string `xml:",chardata"`
		} `xml:"content"`
	} `xml:"entry"`
}

type webRSS struct {
	XMLName xml.Name `xml:"rss"`
	Version string   `xml:"version,attr"`
	Channel struct {
		Title         string `xml:"title"`
		Description   string `xml:"description"`
		LastBuildDate string `xml:"lastBuildDate"`
		// <link> and <atom:link rel="self">, told apart by namespace.
		Links []struct {
			XMLName xml.Name
			Rel     string `xml:"rel,attr"`
			Href    string `xml:"href,attr"`
			Value   string `xml:",chardata"`
		} `xml:"link"`
		Items []struct {
			Title string `xml:"title"`
			Link  string `xml:"link"`
			GUID  struct {
				IsPermaLink string `xml:"isPermaLink,attr"`
				Value       string `xml:",chardata"`
			} `xml:"guid"`
			PubDate     string   `xml:"pubDate"`
			Categories  []string `xml:"category"`
			Description string   `xml:"description"`
		} `xml:"item"`
	} `xml:"channel"`
}

// TestWebFeeds parses both feeds with encoding/xml and checks them against
// the fixture's notices: most recently updated first (ties by id, higher
// first), worked out from fixtureWant's updated_at:
//
//	200 and 100 (1 h ago), 105 (4 h), 300 and 201 (1 day), 101, 202, 302,
//	103, 104, 203, 303, 102, 204, 301 (70 days).
func TestWebFeeds(t *testing.T) {
	order := []int64{200, 100, 105, 300, 201, 101, 202, 302, 103, 104, 203, 303, 102, 204, 301}
	for _, tc := range []struct {
		variant, base string
	}{{"a", "https://status.acme.test"}, {"b", "https://status.example.org/acme"}} {
		t.Run(tc.variant, func(t *testing.T) {
			o := options{}
			if tc.variant == "b" {
				o.baseURL = tc.base
			}
			srv, now := fixtureServer(t, tc.variant, o)
			want := map[int64]noticeWant{}
			for _, n := range fixtureWant(now) {
				want[n.id] = n
			}
			latest := map[int64]string{100: "A bad deploy; rolling back.", 201: "Planned.", 300: "Our new status page.", 102: "Post-mortem follows."}

			r := srv.Get("/history.atom", 200)
			if ct := r.Header.Get("Content-Type"); ct != "application/atom+xml; charset=utf-8" {
				t.Errorf("Atom Content-Type %q", ct)
			}
			var atom webAtom
			if err := xml.Unmarshal(r.Body, &atom); err != nil {
				t.Fatalf("Atom: %v\n%s", err, r.Body)
			}
			if atom.ID != tc.base+"/history" || atom.Title != "Acme Status: incidents and maintenance" || atom.Author.Name != "Acme Status" {
				t.Errorf("Atom feed id %q, title %q, author %q", atom.ID, atom.Title, atom.Author.Name)
			}
			// The newest update: 100's and 200's, an hour ago.
			if atom.Updated != testserver.TS(now.Add(-time.Hour)) {
				t.Errorf("Atom updated %q, want %q", atom.Updated, testserver.TS(now.Add(-time.Hour)))
			}
			links := map[string]string{}
			for _, l := range atom.Links {
				links[l.Rel] = l.Href
			}
			if links["self"] != tc.base+"/history.atom" || links["alternate"] != tc.base+"/history" {
				t.Errorf("Atom links %v", links)
			}
			if len(atom.Entries) != len(order) {
				t.Fatalf("Atom: %d entries, want %d", len(atom.Entries), len(order))
			}
			for i, id := range order {
				e, n := atom.Entries[i], want[id]
				u := fmt.Sprintf("%s/notices/%d", tc.base, id)
				if e.ID != u || e.Link.Href != u || e.Link.Rel != "alternate" || e.Title != n.subject ||
					e.Published != testserver.TS(n.created) || e.Updated != testserver.TS(n.updated) || e.Content.Type != "html" {
					t.Errorf("Atom entry %d: %+v, want notice %d %q created %s updated %s", i, e, id, n.subject, testserver.TS(n.created), testserver.TS(n.updated))
				}
				if s, ok := latest[id]; ok && !strings.HasSuffix(e.Summary, s) {
					t.Errorf("Atom entry %d: summary %q, want the latest update %q", id, e.Summary, s)
				}
				if len(e.Categories) == 0 || e.Categories[0].Term != map[string]string{"unplanned": "Incident", "planned": "Maintenance", "general": "Announcement"}[n.typ] {
					t.Errorf("Atom entry %d: categories %+v", id, e.Categories)
				}
			}

			r = srv.Get("/history.rss", 200)
			if ct := r.Header.Get("Content-Type"); ct != "application/rss+xml; charset=utf-8" {
				t.Errorf("RSS Content-Type %q", ct)
			}
			var rss webRSS
			if err := xml.Unmarshal(r.Body, &rss); err != nil {
				t.Fatalf("RSS: %v\n%s", err, r.Body)
			}
			c := rss.Channel
			var link, self string
			for _, l := range c.Links {
				switch {
				case l.XMLName.Space == "":
					link = l.Value
				case l.XMLName.Space == "http://www.w3.org/2005/Atom" && l.Rel == "self":
					self = l.Href
				}
			}
			if rss.Version != "2.0" || link != tc.base+"/history" || self != tc.base+"/history.rss" || c.Description == "" {
				t.Errorf("RSS channel: version %q, link %q, self %q", rss.Version, link, self)
			}
			if lb, err := time.Parse(time.RFC1123Z, c.LastBuildDate); err != nil || !lb.Equal(now.Add(-time.Hour)) {
				t.Errorf("RSS lastBuildDate %q (%v)", c.LastBuildDate, err)
			}
			if len(c.Items) != len(order) {
				t.Fatalf("RSS: %d items, want %d", len(c.Items), len(order))
			}
			for i, id := range order {
				it, n := c.Items[i], want[id]
				u := fmt.Sprintf("%s/notices/%d", tc.base, id)
				pub, err := time.Parse(time.RFC1123Z, it.PubDate)
				if it.Title != n.subject || it.Link != u || it.GUID.Value != u || it.GUID.IsPermaLink != "true" || err != nil || !pub.Equal(n.created) {
					t.Errorf("RSS item %d: %+v, want notice %d %q created %s", i, it, id, n.subject, n.created)
				}
				if s, ok := latest[id]; ok && !strings.Contains(it.Description, s) {
					t.Errorf("RSS item %d: description lacks %q", id, s)
				}
			}
		})
	}
}

// TestWebNoDataBeforeCreated checks that the days wholly before a
// component's created_at are drawn as "no data", on the status page and on
// the metrics page, while the metrics figures stay the API's (SPEC §4.3).
// API EU (11) is added two days ago: of its 90 bars the 87 up to three days
// ago have no data, the day it was added and the two after have figures.
func TestWebNoDataBeforeCreated(t *testing.T) {
	now := time.Now().UTC().Truncate(time.Second)
	doc := testserver.Fixture(now)
	added := now.AddDate(0, 0, -2)
	for i := range doc.Components {
		if c := &doc.Components[i]; c.ID == 11 {
			c.CreatedAt, c.UpdatedAt = added, added
		}
	}
	srv := startServer(t, doc, options{})
	today := statusd.Day(now)
	has := func(n *html.Node, key string) bool {
		return slices.ContainsFunc(n.Attr, func(a html.Attribute) bool { return a.Key == key })
	}
	checkBars := func(what string, bars []*html.Node, first time.Time) {
		t.Helper()
		for i, b := range bars {
			date := first.AddDate(0, 0, i)
			k := date.Format("2 Jan 2006")
			noData := date.Before(statusd.Day(added))
			title := b.FirstChild.FirstChild.Data // <title>'s text
			if got := webAttr(b, "data-date"); got != k {
				t.Fatalf("%s bar %d: date %s, want %s", what, i, got, k)
			}
			flagged, uptime := has(b, "data-nodata"), has(b, "data-uptime")
			switch {
			case noData && (webAttr(b, "class") != "bar nodata" || !flagged || uptime || title != k+": no data, before API EU was added"):
				t.Errorf("%s, %s: want no data, got class %q, title %q, %v", what, k, webAttr(b, "class"), title, b.Attr)
			case !noData && (strings.Contains(webAttr(b, "class"), "nodata") || flagged || !uptime || !strings.Contains(title, "uptime")):
				t.Errorf("%s, %s: want figures, got class %q, title %q", what, k, webAttr(b, "class"), title)
			}
		}
	}
	barsIn := func(n *html.Node) []*html.Node {
		var bars []*html.Node
		webWalk(n, func(n *html.Node) {
			if n.Data == "g" && strings.HasPrefix(webAttr(n, "class"), "bar") {
				bars = append(bars, n)
			}
		})
		return bars
	}
	p := webGet(t, srv, "/", 200)
	bars := barsIn(webByID(t, p, "component-11"))
	if len(bars) != 90 {
		t.Fatalf("status page: %d bars, want 90", len(bars))
	}
	checkBars("status page", bars, today.AddDate(0, 0, -89))
	if !strings.Contains(p.Body, "No data: before the component was added") {
		t.Error("the legend does not say what a grey bar is")
	}

	// The metrics page over the default 31 days: 28 days without data; the
	// day of 104 (20 days ago) is one of them, so it is not in the table of
	// bad days, though the figures, the API's, still count it.
	p = webGet(t, srv, "/components/11/metrics", 200)
	chart := webSection(t, p, "chart-title")
	bars = barsIn(chart)
	if len(bars) != 31 {
		t.Fatalf("metrics page: %d bars, want 31", len(bars))
	}
	checkBars("metrics page", bars, today.AddDate(0, 0, -30))
	if table := webText(chart); strings.Contains(table, "Slow EU responses") || !strings.Contains(table, "API errors") {
		t.Errorf("days with downtime or incidents: %q, want today's API errors only", table)
	}
	api := srv.Get("/api/v1/components/11/metrics?show_calculations=true", 200)
	if got := testserver.At(t, api.JSON, "calculation_data_in_timeframe.notices.count"); got != float64(2) {
		t.Errorf("API notices.count %v, want 2 (100 and 104): the API keeps its equations", got)
	}
	if !strings.Contains(webText(webSection(t, p, "figures-title")), "Incidents counted 2") {
		t.Errorf("figures: %q", webText(webSection(t, p, "figures-title")))
	}
}
