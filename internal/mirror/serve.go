package mirror

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/internal/health"
	"github.com/statusd/statusd/internal/httpjson"
	"github.com/statusd/statusd/internal/route"
)

// DefaultRefresh is how often a Server looks for a new copy
// (--from-mirror-refresh).
const DefaultRefresh = 30 * time.Second

// cacheControl is the caching of the copy's answers. A copy changes only
// when a refresh loads a new one, every DefaultRefresh by default: a CDN
// or browser that keeps an answer as long is about one refresh behind
// the bucket, and a new notice still reaches readers within a minute.
const cacheControl = "public, max-age=30"

// Server serves a copy read-only with the live server's routing
// (CONTRACT C10, "Serving the copy"): the answers by target (canonical),
// conditional GET and HEAD on them, CORS on the JSON APIs, the probes;
// other methods are 405, and the admin API, the console, the hooks and
// the subscription pages 404, naming the live page. Until a copy is
// loaded it answers 503 but for /healthz. It is safe for concurrent use.
type Server struct {
	copy atomic.Pointer[Copy]
	h    http.Handler
	now  func() time.Time
}

// NewServer returns a Server without a copy whose errors errs answers
// (route.NewErrors with the status page's HTML error page), and whose
// /readyz tells a copy's age by the clock now.
func NewServer(errs *route.Errors, now func() time.Time) *Server {
	s := &Server{now: now}
	s.h = errs.Recover(errs.Serve(s.route))
	return s
}

// liveOnly are the paths only the live server has: the admin API, the
// console (console.Root), the hooks and the subscription pages.
var liveOnly = []string{"/admin/", "/manage", "/hooks/", "/subscribe"}

// ServeHTTP answers r from the copy. Every answer carries nosniff, and
// every answer under a JSON API's path (route.IsAPI), errors included,
// the CORS of an answer any origin may read, as live.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("X-Content-Type-Options", "nosniff")
	if route.IsAPI(r.URL.Path) {
		httpjson.AllowAnyOrigin(w)
	}
	s.h.ServeHTTP(w, r)
}

// route answers r as the live routing does: any method of a path only
// the live server has, its 404; a CORS preflight on a JSON API's path;
// any other method but GET and HEAD, 405; then the probes and the copy's
// targets.
func (s *Server) route(w http.ResponseWriter, r *http.Request) error {
	path := r.URL.Path
	for _, p := range liveOnly {
		if strings.HasPrefix(path, p) {
			return s.readOnly(r)
		}
	}
	api := route.IsAPI(path)
	switch {
	case api && r.Method == http.MethodOptions:
		return httpjson.Preflight(w, r)
	case api && r.Method != http.MethodGet && r.Method != http.MethodHead:
		return route.NotAllowed(w, r, http.MethodGet, http.MethodHead, http.MethodOptions)
	case r.Method != http.MethodGet && r.Method != http.MethodHead:
		return route.NotAllowed(w, r, http.MethodGet, http.MethodHead)
	case path == "/healthz":
		w.Header().Set("Cache-Control", "no-store")
		return httpjson.Write(w, r, http.StatusOK, health.Answer{Status: "ok"}) // as live
	case path == "/readyz":
		return s.readyz(w, r)
	}
	return s.serve(w, r)
}

// Copy is the copy served, nil before the first is loaded.
func (s *Server) Copy() *Copy { return s.copy.Load() }

// Refresh loads src's copy (Source.Load, reusing the bytes of the one
// served) and serves it from now on; on an error the copy served stays.
func (s *Server) Refresh(ctx context.Context, src Source) error {
	prev := s.copy.Load()
	c, err := src.Load(ctx, prev)
	if err == nil && c != prev {
		s.copy.Store(c)
	}
	return err
}

// Follow refreshes the copy from src now and every interval until ctx
// ends. It logs a failure once, while refreshes keep failing, and the
// first success after it, and each new copy served.
func (s *Server) Follow(ctx context.Context, src Source, interval time.Duration, log *slog.Logger) {
	tick := time.NewTicker(interval)
	defer tick.Stop()
	failing := false
	for {
		prev := s.copy.Load()
		err := s.Refresh(ctx, src)
		switch {
		case ctx.Err() != nil:
			return
		case err != nil && !failing:
			log.Warn("the mirror could not be loaded; the copy loaded before, if any, is served until it can",
				"mirror", src.Bucket.String(), "err", err)
		case err == nil && failing:
			log.Info("the mirror loads again", "mirror", src.Bucket.String())
		}
		failing = err != nil
		if c := s.copy.Load(); c != prev {
			log.Info("serving a copy of the mirror", "mirror", src.Bucket.String(), "sequence", c.Manifest.Sequence,
				"generated_at", c.Manifest.GeneratedAt, "files", len(c.Manifest.Files))
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// errNoCopy answers every request but /healthz before a copy is loaded.
var errNoCopy = statusd.Errorf(statusd.EUnavailable, "This copy of the status page has not been loaded yet. Please try again in a moment.")

// serve answers a target from the copy: its bytes, content type, ETag
// and, as Last-Modified, when the copy was generated; a conditional
// request 304 (http.ServeContent).
func (s *Server) serve(w http.ResponseWriter, r *http.Request) error {
	c := s.copy.Load()
	if c == nil {
		return errNoCopy
	}
	target := canonical(r.URL.Path, r.URL.RawQuery)
	a, ok := c.files[target]
	if !ok {
		return statusd.Errorf(statusd.ENotFound, "This copy of the status page does not hold %s.", target)
	}
	h := w.Header()
	h.Set("Content-Type", a.contentType)
	h.Set("ETag", a.etag)
	h.Set("Cache-Control", cacheControl)
	http.ServeContent(w, r, "", c.Manifest.GeneratedAt, bytes.NewReader(a.body))
	return nil
}

// readOnly refuses a path only the live server has, naming the live
// page.
func (s *Server) readOnly(r *http.Request) error {
	c := s.copy.Load()
	switch {
	case c == nil:
		return errNoCopy
	case c.Manifest.SourceURL == "":
		return statusd.Errorf(statusd.ENotFound, "This is a read-only copy of the status page: %s is only on the live page.", r.URL.Path)
	}
	return statusd.Errorf(statusd.ENotFound, "This is a read-only copy of the status page: %s is on the live page, %s.",
		r.URL.Path, c.Manifest.SourceURL)
}

// readyz answers 200 naming the copy served and its age, 503 before
// one is loaded.
func (s *Server) readyz(w http.ResponseWriter, r *http.Request) error {
	c := s.copy.Load()
	if c == nil {
		return errNoCopy
	}
	m, now := c.Manifest, s.now()
	fresh := "fresh"
	if m.Stale(now) {
		fresh = "stale"
	}
	h := w.Header()
	h.Set("Cache-Control", "no-store")
	h.Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		fmt.Fprintf(w, "serving copy %d, generated %s, %s ago: %s\n", m.Sequence,
			m.GeneratedAt.UTC().Format(time.RFC3339), m.Age(now), fresh)
	}
	return nil
}
