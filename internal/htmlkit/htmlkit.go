// Package htmlkit is the one HTML kit of the status page (internal/web)
// and the operator console (internal/console): their templates parsed
// once from embed.FS with the kit's shared partials (the start of the
// head, templates/head.html; the state icons and badges, and a
// component's row in a tree, templates/badges.html), one render into a buffer with one set of
// security headers, one error screen (Failure, in each site's layout),
// one same-origin check for the forms' POSTs (SameOrigin), the embedded
// assets with the shared stylesheet (Assets, assets/style.css) and the
// component tree the screens and forms show (Tree).
package htmlkit

import (
	"bytes"
	"embed"
	"html/template"
	"io/fs"
	"net/http"
	"strconv"

	"github.com/statusd/statusd"
)

//go:embed templates/*.html assets
var files embed.FS

// Site describes the templates of one site.
type Site struct {
	// Files holds the site's templates.
	Files fs.FS
	// Shared are the files of Files parsed into every page: its layout,
	// which defines "layout", starts with the kit's "head" and executes
	// "content", and its partials.
	Shared []string
	// Pages are the names of the site's pages, each the file
	// templates/NAME.html of Files, which defines "content". The page
	// "error", the error screen, is the kit's, and always there.
	Pages []string
	// Funcs are the site's own template functions, besides the kit's.
	Funcs template.FuncMap
	// Scripts says whether the pages run the site's own scripts; without,
	// the policy allows none (see Policy).
	Scripts bool
}

// Pages are a site's page templates, parsed once, and the headers they
// are answered with. They are safe for concurrent use.
type Pages struct {
	pages   map[string]*template.Template
	headers map[string]string
}

// Parse parses the pages of site, each with the site's shared files and
// the kit's partials. It panics on a template that does not parse: the
// templates are embedded, so the program's tests find it.
func Parse(site Site) *Pages {
	p := &Pages{pages: map[string]*template.Template{}, headers: Headers(site.Scripts)}
	for _, name := range append([]string{"error"}, site.Pages...) {
		t := template.New(name).Funcs(funcs).Funcs(site.Funcs)
		t = template.Must(t.ParseFS(files, "templates/badges.html", "templates/head.html"))
		t = template.Must(t.ParseFS(site.Files, site.Shared...))
		if name == "error" {
			t = template.Must(t.ParseFS(files, "templates/error.html"))
		} else {
			t = template.Must(t.ParseFS(site.Files, "templates/"+name+".html"))
		}
		p.pages[name] = t
	}
	return p
}

// Policy is the Content-Security-Policy of a site's pages: nothing but
// the site's own files, no inline script or style, no plugins, no frames,
// forms only to statusd itself. A site with scripts (the status page's
// app.js) may load them, and what they fetch, from itself; a site
// without (the console) loads nothing but its stylesheets and images.
func Policy(scripts bool) string {
	const common = "style-src 'self'; img-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
	if scripts {
		return "default-src 'self'; script-src 'self'; connect-src 'self'; font-src 'self'; " + common
	}
	return "default-src 'none'; " + common
}

// Headers are the security headers of every HTML answer of a site with
// or without scripts (see Policy): its policy, nosniff, a Referrer-Policy
// and no framing.
func Headers(scripts bool) map[string]string {
	return map[string]string{
		"Content-Security-Policy": Policy(scripts),
		"X-Content-Type-Options":  "nosniff",
		"Referrer-Policy":         "same-origin",
		"X-Frame-Options":         "DENY",
	}
}

// Private marks an answer as never to be stored (Cache-Control:
// no-store) nor sent on as a Referer (Referrer-Policy: no-referrer), for
// the pages of a secret (a token in the URL, a session): Render keeps
// both.
func Private(w http.ResponseWriter) {
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Referrer-Policy", "no-referrer")
}

// Render executes the page name with data into a buffer, then writes it
// (Write). A template that fails is returned, having written nothing.
func (p *Pages) Render(w http.ResponseWriter, status int, name string, data any) error {
	var buf bytes.Buffer
	if err := p.pages[name].ExecuteTemplate(&buf, "layout", data); err != nil {
		return err
	}
	p.Write(w, status, buf.Bytes())
	return nil
}

// Write writes the status line, the headers and page, an HTML page. A
// header set already is kept (a stricter Referrer-Policy, a
// Cache-Control); without one, a 200 is revalidated each time (no-cache)
// and any other answer never stored.
func (p *Pages) Write(w http.ResponseWriter, status int, page []byte) {
	h := w.Header()
	for k, v := range p.headers {
		if h.Get(k) == "" {
			h.Set(k, v)
		}
	}
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Length", strconv.Itoa(len(page)))
	switch {
	case h.Get("Cache-Control") != "":
	case status == http.StatusOK:
		h.Set("Cache-Control", "no-cache")
	default:
		h.Set("Cache-Control", "no-store")
	}
	w.WriteHeader(status)
	w.Write(page)
}

// funcs are the functions of the kit's partials: "stateWord",
// "stateClass" and "noticeStateClass", a state's word and class, and
// "badge", a badge of a class and a word. The partials are "sprite", the
// icons, once in a page's body; "icon", one of them by name; "bigicon", a
// page state's icon in a banner; "badge"; "state", a page or component
// state (statusd.PageState) as a badge of its icon and word in its
// colours; "nstate", a notice's state (statusd.State) as one. The page
// and the console show states alike with them.
var funcs = template.FuncMap{
	"stateWord":        stateWord,
	"stateClass":       stateClass,
	"noticeStateClass": NoticeStateClass,
	"badge":            func(class, word string) badgeView { return badgeView{Class: class, Word: word} },
}

// badgeView is a badge: its class (s-Class, and the icon i-Class) and word.
type badgeView struct{ Class, Word string }

// stateWord names a page or component state for a reader.
func stateWord(st statusd.PageState) string {
	switch st {
	case statusd.PageDegraded:
		return "Degraded"
	case statusd.PageUnderMaintenance:
		return "Under maintenance"
	}
	return "Operational"
}

// stateClass is the CSS class of a page or component state.
func stateClass(st statusd.PageState) string {
	switch st {
	case statusd.PageDegraded:
		return "degraded"
	case statusd.PageUnderMaintenance:
		return "maintenance"
	}
	return "operational"
}

// NoticeStateClass is the CSS class of a notice's badge, and so which
// icon it shows beside its word.
func NoticeStateClass(st statusd.State) string {
	switch st {
	case statusd.Investigating, statusd.Identified:
		return "degraded"
	case statusd.Recovering:
		return "recovering"
	case statusd.Underway:
		return "maintenance"
	case statusd.Scheduled:
		return "scheduled"
	case statusd.Resolved, statusd.FalseAlarm, statusd.Complete, statusd.Cancelled:
		return "resolved"
	}
	return "info"
}
