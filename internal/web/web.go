// Package web serves the public status page: the HTML pages that people
// read (/, /notices/{id}, /history, /components/{id}/metrics), the Atom and
// RSS feeds of the notices (/history.atom, /history.rss), the pages where
// people subscribe by email when statusd can send it (/subscribe,
// /subscriptions/..., subscribe.go), and the page's own CSS, JavaScript
// and icon under /assets/. Everything is rendered on the
// server from the current snapshot with html/template; the templates and
// assets are embedded in the binary and parsed once, and no page asks any
// other host for anything.
//
// Every HTML answer carries a strict Content-Security-Policy (no inline
// script or style), nosniff, a Referrer-Policy and frame-ancestors 'none'.
// Errors are HTML pages in the same style: 400, 404, 405, 500 and 503.
package web

import (
	"bytes"
	"errors"
	"log/slog"
	"net/http"
	"net/netip"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/internal/ratelimit"
	"github.com/statusd/statusd/internal/respcache"
	"github.com/statusd/statusd/internal/route"
	"github.com/statusd/statusd/internal/snapshot"
)

// Config configures a Server.
type Config struct {
	// Snapshots is where the pages read the current page from.
	Snapshots *snapshot.Holder
	// Variant decides whether component metrics are shown (Variant A).
	Variant statusd.Variant
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Log receives the internal errors; nil discards them.
	Log *slog.Logger

	// EmailSubscriptions turns on email subscription (CONTRACT C7): every
	// page links to /subscribe, whose pages keep the subscriptions in
	// Subscribers (required then). It is on when statusd can send email
	// (--smtp-url).
	EmailSubscriptions bool
	Subscribers        statusd.SubscriberStore
	// Limiter is the §8 limit per client, which a subscription request
	// costs; nil turns it off. TrustedProxies are the peers whose
	// X-Forwarded-For tells the client.
	Limiter        ratelimit.Allower
	TrustedProxies []netip.Prefix
}

// Server renders the status page. It is safe for concurrent use.
type Server struct {
	snaps   *snapshot.Holder
	variant statusd.Variant
	now     func() time.Time
	pages   respcache.PerSource // rendered pages of the current snapshot
	log     *slog.Logger
	// derived caches what the pages derive from one snapshot (the archive
	// order, the feed order); it is replaced when the snapshot changes.
	derived atomic.Pointer[derived]

	// Email subscription (subscribe.go).
	subscribe bool
	subs      statusd.SubscriberStore
	limiter   ratelimit.Allower
	trusted   []netip.Prefix
	limits    *ratelimit.Window
	origin    *http.CrossOriginProtection
}

// New returns a Server for the configuration.
func New(cfg Config) *Server {
	s := &Server{snaps: cfg.Snapshots, variant: cfg.Variant, now: cfg.Now, log: cfg.Log,
		subscribe: cfg.EmailSubscriptions, subs: cfg.Subscribers,
		limiter: cfg.Limiter, trusted: cfg.TrustedProxies, limits: newSubscribeLimits(), origin: http.NewCrossOriginProtection()}
	if s.now == nil {
		s.now = time.Now
	}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	return s
}

// Handler answers a request from a snapshot at now. It returns an *Error
// for the answers that are error pages.
type Handler func(w http.ResponseWriter, r *http.Request, snap *snapshot.Snapshot, now time.Time) error

// Page adapts a Handler: a snapshot to answer from, and the page kept for
// PageTTL; the error it returns is the one to answer with (see
// ErrorPage).
func (s *Server) Page(h Handler) route.Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		snap := s.snaps.Current()
		if snap == nil {
			return errNoPage
		}
		e, err := s.pages.For(snap).Get(pageKey(r), s.now(), func(now time.Time) (*respcache.Entry, error) {
			rec := &recorder{header: http.Header{}, status: http.StatusOK}
			if err := h(rec, r, snap, now); err != nil {
				return nil, err
			}
			if rec.status != http.StatusOK {
				return nil, rec
			}
			return respcache.NewEntry(rec.body.Bytes(), rec.header, now.Add(PageTTL)), nil
		})
		var rec *recorder
		switch {
		case errors.As(err, &rec):
			rec.replay(w)
		case err != nil:
			return err
		default:
			respcache.Serve(w, r, e, noCache)
		}
		return nil
	}
}

// errNoPage answers a page while the store holds none.
var errNoPage = statusd.Errorf(statusd.EUnavailable, "No status has been published yet. Please come back soon.")

// NotFound answers the paths that no route claims: a 404 page.
func NotFound(w http.ResponseWriter, r *http.Request) error {
	return statusd.Errorf(statusd.ENotFound, "There is nothing at %s.", r.URL.Path)
}

// pageKey is the cache key of the page r asks for.
func pageKey(r *http.Request) string { return r.URL.Path + "?" + r.URL.RawQuery }

// noCache makes browsers revalidate each page (with its ETag).
var noCache = respcache.CacheControl("no-cache")

// PageTTL is how long a rendered page is kept for other readers of the same
// snapshot: pages also move with the clock (durations, the last 7 days).
const PageTTL = 5 * time.Second

// recorder keeps what a page handler writes, so that it can be cached; an
// answer other than 200 is not cached but replayed, and is returned as the
// error that says so.
type recorder struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (r *recorder) Header() http.Header         { return r.header }
func (r *recorder) WriteHeader(status int)      { r.status = status }
func (r *recorder) Write(b []byte) (int, error) { return r.body.Write(b) }
func (r *recorder) Error() string               { return "answer " + strconv.Itoa(r.status) + " is not cached" }

func (r *recorder) replay(w http.ResponseWriter) {
	for k, v := range r.header {
		w.Header()[k] = v
	}
	w.WriteHeader(r.status)
	w.Write(r.body.Bytes())
}

// errorView is what the error template shows.
type errorView struct {
	base
	Status  int
	Heading string
	Message string
}

var headings = map[int]string{
	http.StatusBadRequest:            "This request cannot be answered",
	http.StatusForbidden:             "Refused",
	http.StatusNotFound:              "Page not found",
	http.StatusMethodNotAllowed:      "Method not allowed",
	http.StatusRequestEntityTooLarge: "Too large",
	http.StatusTooManyRequests:       "Too many requests",
	http.StatusInternalServerError:   "Something went wrong",
	http.StatusServiceUnavailable:    "Status not available yet",
}

// ErrorPage renders err as an HTML error page, for route.Errors: an
// *statusd.Error is shown as it is, a refusal for load (route.Retry with
// EUnavailable) as "very busy", any other error as a generic 500 page
// (route.Errors has logged it).
func (s *Server) ErrorPage(w http.ResponseWriter, r *http.Request, err error) {
	var e *statusd.Error
	if !errors.As(err, &e) {
		e = statusd.Errorf(statusd.EInternal, "The status page could not be shown. Please try again in a moment.")
	}
	if route.IsRetry(err) && e.Code == statusd.EUnavailable {
		e = statusd.Errorf(e.Code, busyText)
	}
	s.errorPage(w, statusd.ErrorStatus(e.Code), e.Message)
}

// errorPage renders the error page of status with message, named after
// the current page, if any.
func (s *Server) errorPage(w http.ResponseWriter, status int, message string) {
	var snap *snapshot.Snapshot
	if s.snaps != nil {
		snap = s.snaps.Current()
	}
	v := errorView{base: s.base(snap, s.now(), ""), Status: status, Heading: headings[status], Message: message}
	if v.Heading == "" {
		v.Heading = http.StatusText(status)
	}
	v.Title = v.Heading
	s.render(w, status, "error", v)
}

// busyText is the message of a refusal for load (one that says when to
// retry), for a person.
const busyText = "The status page is very busy right now. Please try again in a second."

// securityHeaders are set on every HTML answer. The policy allows nothing
// but the page's own assets: no inline script or style, no frames, no
// plugins, forms only to statusd itself.
var securityHeaders = map[string]string{
	"Content-Security-Policy": "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; " +
		"connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
	"X-Content-Type-Options": "nosniff",
	"Referrer-Policy":        "same-origin",
	"X-Frame-Options":        "DENY",
}

// render executes a page template into a buffer, then writes the status
// line, the headers and the page. A template that fails is logged and
// answered with a plain 500. A header set already (Private's) is kept.
func (s *Server) render(w http.ResponseWriter, status int, name string, data any) {
	var buf bytes.Buffer
	if err := pages[name].ExecuteTemplate(&buf, "layout", data); err != nil {
		s.log.Error("rendering a page", "template", name, "err", err)
		buf.Reset()
		status = http.StatusInternalServerError
		buf.WriteString(plainError)
	}
	h := w.Header()
	for k, v := range securityHeaders {
		if h.Get(k) == "" {
			h.Set(k, v)
		}
	}
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Length", strconv.Itoa(buf.Len()))
	switch {
	case h.Get("Cache-Control") != "":
	case status == http.StatusOK:
		h.Set("Cache-Control", "no-cache")
	default:
		h.Set("Cache-Control", "no-store")
	}
	w.WriteHeader(status)
	w.Write(buf.Bytes())
}

// plainError is the last resort when even a template fails.
const plainError = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Something went wrong</title></head>
<body><main><h1>Something went wrong</h1><p>The status page could not be shown. Please try again in a moment.</p></main></body></html>
`

// writeBody writes a non-HTML answer (a feed) from a buffer.
func writeBody(w http.ResponseWriter, contentType string, body []byte) {
	h := w.Header()
	h.Set("Content-Type", contentType)
	h.Set("Content-Length", strconv.Itoa(len(body)))
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(http.StatusOK)
	w.Write(body)
}
