package web

import (
	"bytes"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/bench/large"
	"github.com/statusd/statusd/internal/htmlkit"
	"github.com/statusd/statusd/internal/route"
	"github.com/statusd/statusd/internal/snapshot"
	"github.com/statusd/statusd/internal/testenv"
)

// testNow is the fixed clock of these tests: Thursday 15 June 2028, noon UTC.
var testNow = time.Date(2028, 6, 15, 12, 0, 0, 0, time.UTC)

func at(t *testing.T, s string) time.Time {
	t.Helper()
	v, err := time.Parse(time.RFC3339, s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func up(t *testing.T, st statusd.State, when string) statusd.Update {
	return statusd.Update{State: st, Content: "Update " + string(st) + " at " + when, CreatedAt: at(t, when), UpdatedAt: at(t, when)}
}

// site serves doc (nil: no page yet) with the web pages only, from its
// snapshot, with the clock fixed at testNow. extra registers more routes
// on the same mux.
func site(t *testing.T, doc *statusd.Document, variant statusd.Variant, extra ...func(*Server, func(string, route.Handler))) *httptest.Server {
	t.Helper()
	now := func() time.Time { return testNow }
	log := slog.New(slog.DiscardHandler)
	var h snapshot.Fixed
	if doc != nil {
		// Through the import document, as statusd import does: validated,
		// with update ids given.
		var buf bytes.Buffer
		if err := statusd.EncodeDocument(&buf, doc); err != nil {
			t.Fatal(err)
		}
		doc, err := statusd.DecodeDocument(&buf)
		if err != nil {
			t.Fatal(err)
		}
		h.Snapshot = snapshot.Build(doc, 1, now(), snapshot.Options{Variant: variant})
	}
	s := New(Config{Snapshots: h, Variant: variant, Now: now, Log: log})
	// The page's routes, as internal/server registers them.
	errs := route.NewErrors(log, s.ErrorPage)
	mux := route.NewMux(http.NewServeMux(), errs)
	handle := func(path string, h route.Handler) { mux.Read(path, h, nil) }
	handle("/{$}", s.Page(s.Index))
	handle("/notices/{id}", s.Page(s.Notice))
	handle("/history", s.Page(s.History))
	handle("/history.atom", s.Page(s.Atom))
	handle("/history.rss", s.Page(s.RSS))
	handle("/components/{id}/metrics", s.Page(s.Metrics))
	handle("/assets/{name}", s.Assets())
	handle("/favicon.ico", s.Assets())
	mux.Handle("/", htmlkit.NotFound)
	for _, f := range extra {
		f(s, handle)
	}
	srv := httptest.NewServer(errs.Recover(mux))
	t.Cleanup(srv.Close)
	return srv
}

type answer struct {
	status int
	header http.Header
	body   string
}

func fetch(t *testing.T, method, url string, header ...string) answer {
	t.Helper()
	res, body := testenv.Fetch(t, method, url, header...)
	return answer{res.StatusCode, res.Header, body}
}

// smallDoc is a page of two components and notices in several months:
//
//	1 API (metrics) <- 2 API EU
//	notice 1: incident on 2 from 10 June 22:00 to 11 June 02:00 (June)
//	notice 2: maintenance scheduled for 1 July (future: not archived)
//	notice 3: announcement posted 2 May (May)
//	notice 4: incident on 1 from 31 January 23:30 to 1 February 00:30 (January)
//	notice 5: maintenance cancelled before it began, planned for 5 December 2027
func smallDoc(t *testing.T) *statusd.Document {
	parent := int64(1)
	n := func(id int64, typ statusd.NoticeType, subject string, comps []int64, ups ...statusd.Update) statusd.Notice {
		return statusd.Notice{ID: id, Type: typ, Subject: subject, ComponentIDs: comps, TagList: []string{},
			CreatedAt: ups[0].CreatedAt, UpdatedAt: ups[len(ups)-1].CreatedAt, Updates: ups}
	}
	planned := func(x statusd.Notice, begins, ends string) statusd.Notice {
		b, e := at(t, begins), at(t, ends)
		x.BeginsAt, x.EndsAt = &b, &e
		return x
	}
	general := statusd.Notice{ID: 3, Type: statusd.General, Subject: "New support hours", TagList: []string{},
		CreatedAt: at(t, "2028-05-02T09:00:00Z"), UpdatedAt: at(t, "2028-05-02T09:00:00Z"),
		Updates: []statusd.Update{{Content: "We now answer around the clock.", CreatedAt: at(t, "2028-05-02T09:00:00Z"), UpdatedAt: at(t, "2028-05-02T09:00:00Z")}}}
	return &statusd.Document{
		Page: statusd.Page{Name: "Test Status", URL: "https://status.example.test", CreatedAt: at(t, "2027-01-01T00:00:00Z"), UpdatedAt: at(t, "2027-01-01T00:00:00Z")},
		Components: []statusd.Component{
			{ID: 1, Position: 1, Name: "API", Description: "The API", MetricsEnabled: true},
			{ID: 2, ParentID: &parent, Position: 2, Name: "API EU", MetricsEnabled: true},
		},
		Notices: []statusd.Notice{
			n(1, statusd.Unplanned, "Night outage", []int64{2},
				up(t, statusd.Investigating, "2028-06-10T22:00:00Z"), up(t, statusd.Resolved, "2028-06-11T02:00:00Z")),
			planned(n(2, statusd.Planned, "Summer upgrade", []int64{1},
				up(t, statusd.Scheduled, "2028-06-01T10:00:00Z")), "2028-07-01T02:00:00Z", "2028-07-01T04:00:00Z"),
			general,
			n(4, statusd.Unplanned, "Midnight errors", []int64{1},
				up(t, statusd.Investigating, "2028-01-31T23:30:00Z"), up(t, statusd.Resolved, "2028-02-01T00:30:00Z")),
			planned(n(5, statusd.Planned, "Dropped plan", []int64{1},
				up(t, statusd.Scheduled, "2027-11-20T10:00:00Z"), up(t, statusd.Cancelled, "2027-11-25T10:00:00Z")),
				"2027-12-05T02:00:00Z", "2027-12-05T03:00:00Z"),
		},
	}
}

func parse(t *testing.T, body string) *html.Node {
	t.Helper()
	doc, err := html.Parse(strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

// walk calls f for every element under n.
func walk(n *html.Node, f func(*html.Node)) {
	if n.Type == html.ElementNode {
		f(n)
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		walk(c, f)
	}
}

func byID(doc *html.Node, id string) *html.Node {
	var found *html.Node
	walk(doc, func(n *html.Node) {
		if found == nil && attr(n, "id") == id {
			found = n
		}
	})
	return found
}

// links returns the href of every link under n, in document order.
func links(n *html.Node) []string {
	var out []string
	walk(n, func(e *html.Node) {
		if e.Data == "a" {
			out = append(out, attr(e, "href"))
		}
	})
	return out
}

// noticeLinks returns the notice pages linked under n.
func noticeLinks(n *html.Node) []string {
	var out []string
	for _, l := range links(n) {
		if strings.HasPrefix(l, "/notices/") {
			out = append(out, strings.TrimPrefix(l, "/notices/"))
		}
	}
	return out
}

func checkHTMLHeaders(t *testing.T, what string, a answer) {
	t.Helper()
	for k, v := range htmlkit.Headers(true) {
		if got := a.header.Get(k); got != v {
			t.Errorf("%s: %s = %q, want %q", what, k, got, v)
		}
	}
	if ct := a.header.Get("Content-Type"); ct != "text/html; charset=utf-8" {
		t.Errorf("%s: Content-Type %q", what, ct)
	}
	csp := a.header.Get("Content-Security-Policy")
	for _, must := range []string{"default-src 'self'", "frame-ancestors 'none'", "script-src 'self'", "style-src 'self'"} {
		if !strings.Contains(csp, must) {
			t.Errorf("%s: CSP %q lacks %q", what, csp, must)
		}
	}
	if strings.Contains(csp, "unsafe-inline") || strings.Contains(csp, "unsafe-eval") {
		t.Errorf("%s: CSP %q allows inline code", what, csp)
	}
}

// TestErrorPages checks that every error is an HTML page in the site's
// style, with the security headers, and the right status.
func TestErrorPages(t *testing.T) {
	srv := site(t, smallDoc(t), statusd.VariantA, func(s *Server, handle func(string, route.Handler)) {
		handle("/boom", s.Page(func(http.ResponseWriter, *http.Request, *snapshot.Snapshot, time.Time) error {
			panic("a bug")
		}))
	})
	srvB := site(t, smallDoc(t), statusd.VariantB)
	empty := site(t, nil, statusd.VariantA)
	cases := []struct {
		name, method, url string
		status            int
		text              string
	}{
		{"unknown path", "GET", srv.URL + "/no/such/page", 404, "There is nothing at /no/such/page."},
		{"notice id not a number", "GET", srv.URL + "/notices/abc", 404, "There is no notice abc."},
		{"unknown notice", "GET", srv.URL + "/notices/999", 404, "There is no notice 999."},
		{"unknown component", "GET", srv.URL + "/components/9/metrics", 404, "There is no component 9."},
		{"metrics in Variant B", "GET", srvB.URL + "/components/1/metrics", 404, "does not publish component metrics"},
		{"bad timeframe", "GET", srv.URL + "/components/1/metrics?timeframe_start=2028-06-20", 400,
			"timeframe_start: 2028-06-20 is after today (2028-06-15)"},
		{"bad page", "GET", srv.URL + "/history?page=0", 400, `page: &#34;0&#34; is not a page number`},
		{"page past the end", "GET", srv.URL + "/history?page=4", 404, "The archive has 3 pages; there is no page 4."},
		{"POST", "POST", srv.URL + "/", 405, "POST is not allowed here"},
		{"unknown asset", "GET", srv.URL + "/assets/nope.css", 404, "There is nothing at /assets/nope.css."},
		{"a panic", "GET", srv.URL + "/boom", 500, "The status page could not be shown."},
		{"nothing published", "GET", empty.URL + "/", 503, "No status has been published yet."},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a := fetch(t, c.method, c.url)
			if a.status != c.status {
				t.Fatalf("status %d, want %d\n%s", a.status, c.status, a.body)
			}
			checkHTMLHeaders(t, c.name, a)
			if !strings.Contains(a.body, c.text) {
				t.Errorf("body lacks %q:\n%s", c.text, a.body)
			}
			if !strings.Contains(a.body, "Error "+strconv.Itoa(c.status)) {
				t.Errorf("body does not name the status %d", c.status)
			}
			if !strings.Contains(a.body, "/assets/style.css?v=") {
				t.Errorf("error page is not in the site's style")
			}
			// With nothing published every page answers 503: the error page
			// links to none of them, itself included.
			if links := strings.Contains(a.body, `<a href="/`) || strings.Contains(a.body, `href="/"`); links != (c.status != 503) {
				t.Errorf("error page links to the site: %v, want %v\n%s", links, c.status != 503, a.body)
			}
			if a.header.Get("Cache-Control") != "no-store" {
				t.Errorf("Cache-Control %q", a.header.Get("Cache-Control"))
			}
			if c.method == "POST" && a.header.Get("Allow") != "GET, HEAD" {
				t.Errorf("Allow %q", a.header.Get("Allow"))
			}
		})
	}
}

// TestHistoryMonths checks the archive worked out by hand from smallDoc at
// 15 June 2028: the months from June 2028 back to December 2027 are seven,
// three a page, so three pages; each notice is under the month it began
// (5, never begun, under its planned start; 3, general, under its posting);
// the future maintenance 2 is not archived.
func TestHistoryMonths(t *testing.T) {
	srv := site(t, smallDoc(t), statusd.VariantA)
	type month struct {
		id      string
		notices []string
	}
	pages := []struct {
		url          string
		months       []month
		newer, older string
		label        string
	}{
		{"/history", []month{{"month-2028-06-01", []string{"1"}}, {"month-2028-05-01", []string{"3"}}, {"month-2028-04-01", nil}},
			"", "/history?page=2", "Page 1 of 3"},
		{"/history?page=2", []month{{"month-2028-03-01", nil}, {"month-2028-02-01", nil}, {"month-2028-01-01", []string{"4"}}},
			"/history", "/history?page=3", "Page 2 of 3"},
		{"/history?page=3", []month{{"month-2027-12-01", []string{"5"}}}, "/history?page=2", "", "Page 3 of 3"},
	}
	for _, p := range pages {
		a := fetch(t, "GET", srv.URL+p.url)
		if a.status != 200 {
			t.Fatalf("%s: %d", p.url, a.status)
		}
		checkHTMLHeaders(t, p.url, a)
		doc := parse(t, a.body)
		var sections []string
		walk(doc, func(n *html.Node) {
			if n.Data == "section" && strings.HasPrefix(attr(n, "aria-labelledby"), "month-") {
				sections = append(sections, attr(n, "aria-labelledby"))
			}
		})
		var want []string
		for _, m := range p.months {
			want = append(want, m.id)
			h := byID(doc, m.id)
			if h == nil {
				t.Fatalf("%s: no heading %s", p.url, m.id)
			}
			if got := noticeLinks(h.Parent); !slices.Equal(got, m.notices) {
				t.Errorf("%s, %s: notices %v, want %v", p.url, m.id, got, m.notices)
			}
		}
		if !slices.Equal(sections, want) {
			t.Errorf("%s: months %v, want %v", p.url, sections, want)
		}
		pager := ""
		walk(doc, func(n *html.Node) {
			if n.Data == "nav" && attr(n, "class") == "pager" {
				pager = strings.Join(links(n), " ")
			}
		})
		if wantPager := strings.TrimSpace(p.newer + " " + p.older); pager != wantPager {
			t.Errorf("%s: pager links %q, want %q", p.url, pager, wantPager)
		}
		if !strings.Contains(a.body, p.label) {
			t.Errorf("%s: no %q", p.url, p.label)
		}
	}
}

// TestIndexBars checks the daily bars of API (1), whose child API EU (2)
// had incident 1 from 10 June 22:00 to 11 June 02:00: 2 hours on each of
// the two days, 100 - 7200/86400*100 = 91.666..., worded 91.66%; and the
// 90 days end today, 15 June, cut at noon.
func TestIndexBars(t *testing.T) {
	srv := site(t, smallDoc(t), statusd.VariantA)
	a := fetch(t, "GET", srv.URL+"/")
	if a.status != 200 {
		t.Fatalf("status %d", a.status)
	}
	checkHTMLHeaders(t, "/", a)
	doc := parse(t, a.body)
	for _, id := range []string{"component-1", "component-2"} {
		c := byID(doc, id)
		if c == nil {
			t.Fatalf("no %s", id)
		}
		var bars []*html.Node
		walk(c, func(n *html.Node) {
			if n.Data == "g" && strings.HasPrefix(attr(n, "class"), "bar ") && (id == "component-2" || !inside(n, "component-2")) {
				bars = append(bars, n)
			}
		})
		if len(bars) != BarDays {
			t.Fatalf("%s: %d bars, want %d", id, len(bars), BarDays)
		}
		if got := attr(bars[0], "data-date"); got != "18 Mar 2028" { // 15 June - 89 days
			t.Errorf("%s: first bar %s", id, got)
		}
		if got := attr(bars[BarDays-1], "data-date"); got != "15 Jun 2028" {
			t.Errorf("%s: last bar %s", id, got)
		}
		for i, b := range bars {
			date := attr(b, "data-date")
			wantClass, wantUp, wantDown, wantInc := "bar ok", "100.00%", "", ""
			if date == "10 Jun 2028" || date == "11 Jun 2028" {
				wantClass, wantUp, wantDown, wantInc = "bar major", "91.66%", "2 hours", "Night outage"
			}
			if attr(b, "class") != wantClass || attr(b, "data-uptime") != wantUp || attr(b, "data-down") != wantDown ||
				attr(b, "data-incidents") != wantInc || attr(b, "tabindex") != "0" {
				t.Errorf("%s bar %d (%s): %v", id, i, date, b.Attr)
			}
			title := b.FirstChild
			if title == nil || title.Data != "title" || !strings.HasPrefix(title.FirstChild.Data, date+": "+wantUp+" uptime") {
				t.Errorf("%s bar %d: no title", id, i)
			}
		}
	}
	if !strings.Contains(a.body, `href="/components/1/metrics"`) {
		t.Error("no link to the metrics page of API")
	}
}

func inside(n *html.Node, id string) bool {
	for p := n.Parent; p != nil; p = p.Parent {
		if attr(p, "id") == id {
			return true
		}
	}
	return false
}

// TestMetricsPageByHand checks the metrics page of API EU over 10-11 June:
// 4 hours down of 48, one incident: uptime 100 - 14400/172800*100 =
// 91.666... (91.66%), MTTR 4 hours, MTBF 44 hours = 1 day 20 hours.
func TestMetricsPageByHand(t *testing.T) {
	srv := site(t, smallDoc(t), statusd.VariantA)
	a := fetch(t, "GET", srv.URL+"/components/2/metrics?timeframe_start=2028-06-10&timeframe_end=2028-06-11")
	if a.status != 200 {
		t.Fatalf("status %d\n%s", a.status, a.body)
	}
	doc := parse(t, a.body)
	figures := map[string]string{}
	walk(doc, func(n *html.Node) {
		if n.Data == "dt" && n.Parent.Parent != nil && attr(n.Parent.Parent, "class") == "figures" {
			figures[n.FirstChild.Data] = n.NextSibling.FirstChild.Data
		}
	})
	want := map[string]string{"Uptime": "91.66%", "Mean time to recovery": "4 hours", "Mean time between failures": "1 day 20 hours",
		"Incidents counted": "1", "Downtime": "4 hours", "Time covered": "2 days"}
	for k, v := range want {
		if figures[k] != v {
			t.Errorf("%s = %q, want %q", k, figures[k], v)
		}
	}
	if got := noticeLinks(byID(doc, "counted-title").Parent); !slices.Equal(got, []string{"1"}) {
		t.Errorf("counted notices %v", got)
	}
	href := "/api/v1/notices?filter%5Bmetrics_component_id%5D=2&amp;filter%5Bimpact_timeframe_overlaps%5D%5B%5D=2028-06-10T00:00:00&amp;filter%5Bimpact_timeframe_overlaps%5D%5B%5D=2028-06-11T23:59:59"
	if !strings.Contains(a.body, href) && !strings.Contains(a.body, strings.NewReplacer("[", "%5b", "]", "%5d").Replace(href)) {
		t.Errorf("no link to the counted notices in the API")
	}
	// The form keeps the timeframe.
	for _, want := range []string{`name="timeframe_start" value="2028-06-10"`, `name="timeframe_end" value="2028-06-11"`, `action="/components/2/metrics"`} {
		if !strings.Contains(a.body, want) {
			t.Errorf("form lacks %s", want)
		}
	}
	// Component 1 with Metrics off in this copy answers 404.
	doc2 := smallDoc(t)
	doc2.Components[1].MetricsEnabled = false
	srv2 := site(t, doc2, statusd.VariantA)
	if a := fetch(t, "GET", srv2.URL+"/components/2/metrics"); a.status != 404 || !strings.Contains(a.body, "API EU does not publish metrics.") {
		t.Errorf("metrics off: %d", a.status)
	}
}

// TestAssets checks the embedded assets: types, versioned caching, ETag.
func TestAssets(t *testing.T) {
	srv := site(t, smallDoc(t), statusd.VariantA)
	for name, ct := range map[string]string{"style.css": "text/css; charset=utf-8", "app.js": "text/javascript; charset=utf-8", "icon.svg": "image/svg+xml"} {
		url := assets.URL(name)
		a := fetch(t, "GET", srv.URL+url)
		if a.status != 200 || a.header.Get("Content-Type") != ct || a.header.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("%s: %d %q", url, a.status, a.header.Get("Content-Type"))
		}
		if cc := a.header.Get("Cache-Control"); cc != "public, max-age=31536000, immutable" {
			t.Errorf("%s: Cache-Control %q", url, cc)
		}
		etag := a.header.Get("ETag")
		if b := fetch(t, "GET", srv.URL+url, "If-None-Match", etag); b.status != 304 {
			t.Errorf("%s with If-None-Match: %d", url, b.status)
		}
		if b := fetch(t, "GET", srv.URL+"/assets/"+name); b.header.Get("Cache-Control") != "public, max-age=300" {
			t.Errorf("unversioned %s: Cache-Control %q", name, b.header.Get("Cache-Control"))
		}
	}
	if a := fetch(t, "GET", srv.URL+"/favicon.ico"); a.status != 200 || a.header.Get("Content-Type") != "image/svg+xml" {
		t.Errorf("/favicon.ico: %d %s", a.status, a.header.Get("Content-Type"))
	}
	if a := fetch(t, "POST", srv.URL+assets.URL("app.js")); a.status != 405 {
		t.Errorf("POST asset: %d", a.status)
	}
	// Nothing inline: the CSP would block it.
	a := fetch(t, "GET", srv.URL+"/")
	for _, bad := range []string{"<style", " style=", "<script>", " onclick=", " onload=", "javascript:"} {
		if strings.Contains(a.body, bad) {
			t.Errorf("the page holds %q", bad)
		}
	}
}

// TestIndexBarsLargeTree checks that on a tree of more than ChildBarsUpTo
// components only the top-level ones draw bars, and every component with
// Metrics still links to its metrics page.
func TestIndexBarsLargeTree(t *testing.T) {
	now := at(t, "2028-06-15T12:00:00Z")
	// large.Document: component 1 at the top, the others its children, all with
	// Metrics.
	doc := large.Document(ChildBarsUpTo+1, 10, now)
	srv := site(t, doc, statusd.VariantA)
	a := fetch(t, "GET", srv.URL+"/")
	if a.status != 200 {
		t.Fatalf("status %d", a.status)
	}
	page := parse(t, a.body)
	var svgs int
	walk(page, func(n *html.Node) {
		if n.Data == "svg" && attr(n, "class") == "bars" {
			svgs++
			if !inside(n, "component-1") || inside(n, "component-2") {
				t.Errorf("bars outside the top-level component: %v", n.Attr)
			}
		}
	})
	if svgs != 1 {
		t.Errorf("%d rows of bars, want 1 (the top-level component)", svgs)
	}
	for _, id := range []int{1, 2, ChildBarsUpTo + 1} {
		if !strings.Contains(a.body, fmt.Sprintf(`href="/components/%d/metrics"`, id)) {
			t.Errorf("no link to the metrics page of component %d", id)
		}
	}
}
