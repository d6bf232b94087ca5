// Package statuspage serves the read endpoints of Atlassian Statuspage's
// public v2 API, mapped from statusd's snapshot, so that the many tools
// written against Statuspage pages read a statusd page unchanged:
//
//	/api/v2/summary.json                          page, status, components, unresolved incidents, upcoming and active maintenances
//	/api/v2/status.json                           page and status rollup
//	/api/v2/components.json                       page and every component
//	/api/v2/incidents.json                        the 50 most recent incidents
//	/api/v2/incidents/unresolved.json             investigating, identified or monitoring incidents
//	/api/v2/scheduled-maintenances.json           the 50 most recent scheduled maintenances
//	/api/v2/scheduled-maintenances/upcoming.json  maintenances still scheduled
//	/api/v2/scheduled-maintenances/active.json    maintenances in progress
//
// Unplanned notices are incidents, planned notices are scheduled
// maintenances; general notices have no counterpart and are left out. See
// the mapping functions for each value. The answers depend on the snapshot
// alone, so they are marshalled once per snapshot.
//
// Like the v1 API, these endpoints answer GET and HEAD, any origin (CORS
// *), JSON errors, and count toward the same per-client rate limit.
package statuspage

import (
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"net/netip"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/internal/httpjson"
	"github.com/statusd/statusd/internal/ratelimit"
	"github.com/statusd/statusd/internal/respcache"
	"github.com/statusd/statusd/internal/route"
	"github.com/statusd/statusd/internal/snapshot"
)

// Snapshots is where answers come from; *snapshot.Holder is one.
type Snapshots interface {
	Current() *snapshot.Snapshot
}

// Config configures a Server.
type Config struct {
	Snapshots Snapshots
	// Limiter is the per-client limit shared with the v1 API; nil turns it
	// off.
	Limiter ratelimit.Allower
	// TrustedProxies are the peers whose X-Forwarded-For is believed.
	TrustedProxies []netip.Prefix
	// MaxAge is how long clients may reuse an answer (Cache-Control).
	MaxAge time.Duration
}

// Server serves the endpoints. It is safe for concurrent use.
type Server struct {
	snaps        Snapshots
	limiter      ratelimit.Allower
	trusted      []netip.Prefix
	cacheControl string

	mu    sync.Mutex // serialises building answers
	cache atomic.Pointer[answers]
}

// answers are the marshalled bodies of one snapshot.
type answers struct {
	snap   *snapshot.Snapshot
	bodies map[string]body
}

type body struct {
	data []byte
	etag string
}

// New returns a Server for the configuration.
func New(cfg Config) *Server {
	return &Server{snaps: cfg.Snapshots, limiter: cfg.Limiter, trusted: cfg.TrustedProxies,
		cacheControl: "public, max-age=" + strconv.Itoa(int(cfg.MaxAge/time.Second))}
}

// Paths are the endpoints, in the order of the package documentation.
var Paths = []string{
	"/api/v2/summary.json",
	"/api/v2/status.json",
	"/api/v2/components.json",
	"/api/v2/incidents.json",
	"/api/v2/incidents/unresolved.json",
	"/api/v2/scheduled-maintenances.json",
	"/api/v2/scheduled-maintenances/upcoming.json",
	"/api/v2/scheduled-maintenances/active.json",
}

// Public adds what every answer of these endpoints gets, errors included:
// CORS and the rate limit.
func (s *Server) Public(h route.Handler) route.Handler {
	return ratelimit.Public(s.limiter, s.trusted, h)
}

// Serve answers the endpoint at path, one of Paths. Its routes are
// registered through Public.
func (s *Server) Serve(path string) route.Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		snap := s.snaps.Current()
		if snap == nil {
			return statusd.NoPage(statusd.EUnavailable)
		}
		b, err := s.answersFor(snap)
		if err != nil {
			return err
		}
		e := b.bodies[path]
		h := w.Header()
		h.Set("Cache-Control", s.cacheControl)
		h.Set("ETag", e.etag)
		h.Set("Content-Type", "application/json; charset=utf-8")
		h.Set("Content-Length", strconv.Itoa(len(e.data)))
		respcache.ServeConditional(w, r, e.etag, e.data)
		return nil
	}
}

// answersFor returns the snapshot's answers, marshalling them the first
// time.
func (s *Server) answersFor(snap *snapshot.Snapshot) (*answers, error) {
	if a := s.cache.Load(); a != nil && a.snap == snap {
		return a, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if a := s.cache.Load(); a != nil && a.snap == snap {
		return a, nil
	}
	a := &answers{snap: snap, bodies: map[string]body{}}
	for path, v := range newView(snap).answers() {
		data, err := httpjson.Marshal(v)
		if err != nil {
			return nil, err
		}
		sum := sha256.Sum256(data)
		a.bodies[path] = body{data: data, etag: `"` + base64.RawURLEncoding.EncodeToString(sum[:12]) + `"`}
	}
	s.cache.Store(a)
	return a, nil
}
