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
//	/api/v2/incidents/{id}.json                   one incident
//	/api/v2/scheduled-maintenances/{id}.json      one scheduled maintenance
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
	"strings"
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

// answers are the marshalled bodies of one snapshot: those of Paths at
// once (bodies, never changed once built), those of the files of one
// notice each the first time they are asked for (items, by path, marshalled
// into done).
type answers struct {
	snap   *snapshot.Snapshot
	bodies map[string]body
	items  map[string]any

	mu   sync.Mutex // guards done
	done map[string]body
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

// Folders are the folders of Paths that also hold one file per notice,
// <id>.json, with what their notices are called in errors. A ServeMux
// wildcard is a whole path segment, and a wildcard route beside fixed
// routes of the same folder conflicts with them, so Folder answers every
// file of these folders.
var Folders = map[string]string{
	"/api/v2/incidents/":              "incident",
	"/api/v2/scheduled-maintenances/": "scheduled maintenance",
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
		a, err := s.current()
		if err != nil {
			return err
		}
		s.write(w, r, a.bodies[path])
		return nil
	}
}

// Folder answers the files of dir, one of Folders, at dir{file}: the
// files of Paths in it, each named by its path as its own route would be,
// and <id>.json, the notice with that id as dir's list presents it under
// the list's key made singular ({"page": ..., "incident": ...}), as
// Statuspage answers it. An id that names no notice of the list, or that
// is no id, is 404 not_found. Its routes are registered through Public.
func (s *Server) Folder(dir string) route.Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		a, err := s.current()
		if err != nil {
			return err
		}
		path := dir + r.PathValue("file")
		if b, ok := a.bodies[path]; ok {
			r.Pattern = path
			s.write(w, r, b)
			return nil
		}
		idText, isJSON := strings.CutSuffix(r.PathValue("file"), ".json")
		n, err := statusd.ParseID(Folders[dir], idText)
		if !isJSON || err != nil {
			return statusd.Errorf(statusd.ENotFound, "%s %s not found", Folders[dir], idText)
		}
		b, ok, err := a.item(itemPath(dir, id(n)))
		if err != nil {
			return err
		}
		if !ok {
			return statusd.Errorf(statusd.ENotFound, "%s %d not found", Folders[dir], n)
		}
		s.write(w, r, b)
		return nil
	}
}

// current returns the answers of the current snapshot.
func (s *Server) current() (*answers, error) {
	snap := s.snaps.Current()
	if snap == nil {
		return nil, statusd.Errorf(statusd.EUnavailable, "no page has been published yet; import one with statusd import")
	}
	return s.answersFor(snap)
}

// write answers b, with its ETag and the configured Cache-Control.
func (s *Server) write(w http.ResponseWriter, r *http.Request, b body) {
	h := w.Header()
	h.Set("Cache-Control", s.cacheControl)
	h.Set("ETag", b.etag)
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("Content-Length", strconv.Itoa(len(b.data)))
	respcache.ServeConditional(w, r, b.etag, b.data)
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
	v := newView(snap)
	a := &answers{snap: snap, bodies: map[string]body{}, items: v.items(), done: map[string]body{}}
	for path, ans := range v.answers() {
		b, err := marshal(ans)
		if err != nil {
			return nil, err
		}
		a.bodies[path] = b
	}
	s.cache.Store(a)
	return a, nil
}

// item returns the body of the notice's file at path, marshalling it the
// first time; ok is false when no notice has that file.
func (a *answers) item(path string) (b body, ok bool, err error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if b, ok := a.done[path]; ok {
		return b, true, nil
	}
	v, ok := a.items[path]
	if !ok {
		return body{}, false, nil
	}
	if b, err = marshal(v); err != nil {
		return body{}, false, err
	}
	a.done[path] = b
	return b, true, nil
}

// marshal returns v's body and its ETag.
func marshal(v any) (body, error) {
	data, err := httpjson.Marshal(v)
	if err != nil {
		return body{}, err
	}
	sum := sha256.Sum256(data)
	return body{data: data, etag: `"` + base64.RawURLEncoding.EncodeToString(sum[:12]) + `"`}, nil
}
