package htmlkit

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/internal/route"
)

// TestFailure: a refusal is shown as it is, under the site's heading or
// the status's text; an internal error, whether an *Error or not, as the
// site's generic message; a refusal for load as the site's busy message,
// when it has one.
func TestFailure(t *testing.T) {
	e := ErrorScreen{Headings: map[int]string{404: "Gone fishing"}, Internal: "Try later.", Busy: "Very busy.",
		Back: Link{Href: "/", Text: "Back"}}
	busy := route.Retry(statusd.Errorf(statusd.EUnavailable, "Slots full."), 1)
	for _, tc := range []struct {
		name string
		e    ErrorScreen
		err  error
		want Failure
	}{
		{"not found", e, statusd.Errorf(statusd.ENotFound, "No notice 9."), Failure{404, "Gone fishing", "No notice 9.", e.Back}},
		{"no heading", e, statusd.Errorf(statusd.EForbidden, "No."), Failure{403, "Forbidden", "No.", e.Back}},
		{"internal", e, errors.New("disk on fire"), Failure{500, "Internal Server Error", "Try later.", e.Back}},
		{"internal *Error", e, statusd.Errorf(statusd.EInternal, "secret detail"), Failure{500, "Internal Server Error", "Try later.", e.Back}},
		{"busy", e, busy, Failure{503, "Service Unavailable", "Very busy.", e.Back}},
		{"busy, no busy words", ErrorScreen{}, busy, Failure{503, "Service Unavailable", "Slots full.", Link{}}},
		{"unavailable, no retry", e, statusd.Errorf(statusd.EUnavailable, "No page yet."), Failure{503, "Service Unavailable", "No page yet.", e.Back}},
	} {
		if got := tc.e.Failure(tc.err); got != tc.want {
			t.Errorf("%s: %+v, want %+v", tc.name, got, tc.want)
		}
	}
}

// TestRender: a page in its site's layout with the kit's badges, the
// policy of a site with or without scripts, a stricter Referrer-Policy
// and a Cache-Control set before kept; the error screen is every site's.
func TestRender(t *testing.T) {
	site := fstest.MapFS{
		"templates/layout.html": {Data: []byte(`{{define "layout"}}<main>{{template "content" .}}</main>{{end}}`)},
		"templates/home.html":   {Data: []byte(`{{define "content"}}{{template "state" .}}{{end}}`)},
	}
	for _, scripts := range []bool{true, false} {
		p := Parse(Site{Files: site, Shared: []string{"templates/layout.html"}, Pages: []string{"home"}, Scripts: scripts})
		w := httptest.NewRecorder()
		if err := p.Render(w, 200, "home", statusd.PageDegraded); err != nil {
			t.Fatal(err)
		}
		want := `<main><span class="badge s-degraded"><svg class="icon" aria-hidden="true" focusable="false"><use href="#i-degraded"></use></svg>Degraded</span></main>`
		h := w.Result().Header
		if w.Body.String() != want || h.Get("Cache-Control") != "no-cache" || h.Get("Content-Security-Policy") != Policy(scripts) ||
			h.Get("X-Frame-Options") != "DENY" || h.Get("Referrer-Policy") != "same-origin" || h.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("scripts %v: %s %v", scripts, w.Body, h)
		}
		if strings.Contains(Policy(scripts), "script-src") != scripts || strings.Contains(Policy(scripts), "unsafe-") {
			t.Errorf("scripts %v: policy %q", scripts, Policy(scripts))
		}

		w = httptest.NewRecorder()
		w.Header().Set("Referrer-Policy", "no-referrer")
		w.Header().Set("Cache-Control", "no-store")
		f := Failure{Status: 404, Heading: "Not found", Message: "No such <thing>.", Back: Link{"/manage", "Back to the console"}}
		if err := p.Render(w, f.Status, "error", f); err != nil {
			t.Fatal(err)
		}
		h = w.Result().Header
		for _, s := range []string{"<p class=\"code\">Error 404</p>", "<h1>Not found</h1>", "No such &lt;thing&gt;.", `<a href="/manage">Back to the console</a>`} {
			if !strings.Contains(w.Body.String(), s) {
				t.Errorf("the error screen lacks %s:\n%s", s, w.Body)
			}
		}
		if w.Code != 404 || h.Get("Referrer-Policy") != "no-referrer" || h.Get("Cache-Control") != "no-store" {
			t.Errorf("error screen: %d %v", w.Code, h)
		}
	}
}

// TestSameOrigin: a POST from another site is refused, 403, before the
// handler runs; one from the site itself, or from a program, passes.
func TestSameOrigin(t *testing.T) {
	o := NewSameOrigin("the form on this page")
	for _, tc := range []struct {
		header []string
		ok     bool
	}{
		{nil, true},
		{[]string{"Sec-Fetch-Site", "same-origin"}, true},
		{[]string{"Sec-Fetch-Site", "cross-site"}, false},
		{[]string{"Origin", "https://evil.example"}, false},
	} {
		ran := false
		r := httptest.NewRequest("POST", "http://status.example/subscribe", nil)
		if tc.header != nil {
			r.Header.Set(tc.header[0], tc.header[1])
		}
		err := o.Wrap(func(http.ResponseWriter, *http.Request) error { ran = true; return nil })(httptest.NewRecorder(), r)
		if ran != tc.ok || (err == nil) != tc.ok || (err != nil && statusd.ErrorCode(err) != statusd.EForbidden) {
			t.Errorf("%v: ran %v, %v", tc.header, ran, err)
		}
		if err != nil && !strings.HasSuffix(statusd.ErrorMessage(err), "Please use the form on this page.") {
			t.Errorf("%v: message %q", tc.header, statusd.ErrorMessage(err))
		}
	}
}
