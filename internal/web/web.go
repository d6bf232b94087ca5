// Package web serves the public status page: the HTML pages that people
// read (/, /notices/{id}, /history, /components/{id}/metrics), the Atom and
// RSS feeds of the notices (/history.atom, /history.rss), the pages where
// people subscribe by email when statusd can send it (/subscribe,
// /subscriptions/..., subscribe.go), and the page's stylesheet (the
// kit's), JavaScript and icon under /assets/. Everything is rendered on
// the server from the current snapshot with html/template; the templates
// and assets are embedded in the binary and parsed once, and no page asks
// any other host for anything.
//
// The pages are rendered with the HTML kit (internal/htmlkit), which the
// console shares: every HTML answer carries its strict
// Content-Security-Policy (no inline script or style), nosniff, a
// Referrer-Policy and frame-ancestors 'none'. Errors are the kit's error
// screen in the page's layout: 400, 404, 405, 500 and 503.
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
	"github.com/statusd/statusd/internal/htmlkit"
	"github.com/statusd/statusd/internal/ratelimit"
	"github.com/statusd/statusd/internal/respcache"
	"github.com/statusd/statusd/internal/route"
	"github.com/statusd/statusd/internal/snapshot"
)

// Snapshots is where the pages come from; *snapshot.Holder is one, and
// snapshot.Fixed.
type Snapshots interface {
	Current() *snapshot.Snapshot
}

// Config configures a Server.
type Config struct {
	// Snapshots is where the pages read the current page from.
	Snapshots Snapshots
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
	// ConfirmationsPerHour is how many subscription requests an hour,
	// over all addresses, send an email; past it the form answers as
	// ever, sends nothing and logs it. 0 means
	// DefaultConfirmationsPerHour.
	ConfirmationsPerHour int

	// Mirror renders the pages of the mirror (CONTRACT C10) instead of
	// the live ones: the page's body names the copy's mirror.json, from
	// which app.js tells readers how old the copy is; the Subscribe link
	// goes to the live page; and the footer leaves the copy's age to
	// app.js instead of giving the moment the page was made, so that a
	// page is copied again only when it changed.
	Mirror bool
}

// Server renders the status page. It is safe for concurrent use.
type Server struct {
	snaps   Snapshots
	variant statusd.Variant
	now     func() time.Time
	pages   respcache.PerSource // rendered pages of the current snapshot
	log     *slog.Logger
	// derived caches what the pages derive from one snapshot (the archive
	// order, the feed order); it is replaced when the snapshot changes.
	derived atomic.Pointer[derived]

	mirror bool // Config.Mirror

	// Email subscription (subscribe.go).
	subscribe bool
	subs      statusd.SubscriberStore
	limiter   ratelimit.Allower
	trusted   []netip.Prefix
	limits    subscribeLimits
	origin    *htmlkit.SameOrigin
}

// New returns a Server for the configuration.
func New(cfg Config) *Server {
	s := &Server{snaps: cfg.Snapshots, variant: cfg.Variant, now: cfg.Now, log: cfg.Log, mirror: cfg.Mirror,
		subscribe: cfg.EmailSubscriptions, subs: cfg.Subscribers,
		limiter: cfg.Limiter, trusted: cfg.TrustedProxies, limits: newSubscribeLimits(cfg.ConfirmationsPerHour), origin: htmlkit.NewSameOrigin("the form on this page")}
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
			rec.header["Cache-Control"] = noCache
			return respcache.NewEntry(rec.body.Bytes(), rec.header, now.Add(PageTTL)), nil
		})
		var rec *recorder
		switch {
		case errors.As(err, &rec):
			rec.replay(w)
		case err != nil:
			return err
		default:
			respcache.Serve(w, r, e)
		}
		return nil
	}
}

// errNoPage answers a page while the store holds none.
var errNoPage = statusd.Errorf(statusd.EUnavailable, "No status has been published yet. Please come back soon. (To publish it: statusd init, or statusd import.)")

// pageKey is the cache key of the page r asks for.
func pageKey(r *http.Request) string { return r.URL.Path + "?" + r.URL.RawQuery }

// noCache makes browsers revalidate each page (with its ETag).
var noCache = []string{"no-cache"}

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

// errorView is what the error screen shows.
type errorView struct {
	base
	htmlkit.Failure
}

// errorScreen words the page's error screens.
var errorScreen = htmlkit.ErrorScreen{
	Headings: map[int]string{
		http.StatusBadRequest:            "This request cannot be answered",
		http.StatusForbidden:             "Refused",
		http.StatusNotFound:              "Page not found",
		http.StatusMethodNotAllowed:      "Method not allowed",
		http.StatusRequestEntityTooLarge: "Too large",
		http.StatusTooManyRequests:       "Too many requests",
		http.StatusInternalServerError:   "Something went wrong",
		http.StatusServiceUnavailable:    "Status not available yet",
	},
	Internal: "The status page could not be shown. Please try again in a moment.",
	Busy:     "The status page is very busy right now. Please try again in a second.",
	Back:     htmlkit.Link{Href: "/", Text: "Back to the status page"},
}

// ErrorPage renders err as an HTML error page, for route.Errors, named
// after the current page, if any: an *statusd.Error is shown as it is, a
// refusal for load (route.Retry with EUnavailable) as "very busy", any
// other error as a generic 500 page (route.Errors has logged it).
func (s *Server) ErrorPage(w http.ResponseWriter, r *http.Request, err error) {
	var snap *snapshot.Snapshot
	if s.snaps != nil {
		snap = s.snaps.Current()
	}
	v := errorView{base: s.base(snap, s.now(), ""), Failure: errorScreen.Failure(err)}
	if v.Empty {
		v.Back = htmlkit.Link{} // there is no status page to go back to
	}
	v.Title = v.Heading
	s.render(w, v.Status, "error", v)
}

// render renders a page (htmlkit.Pages.Render); a template that fails is
// logged and answered with a plain 500.
func (s *Server) render(w http.ResponseWriter, status int, name string, data any) {
	if err := pages.Render(w, status, name, data); err != nil {
		s.log.Error("rendering a page", "template", name, "err", err)
		pages.Write(w, http.StatusInternalServerError, []byte(plainError))
	}
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
