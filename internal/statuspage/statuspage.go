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
// alone, so they are marshalled once per snapshot (respcache).
//
// Like the v1 API, these endpoints answer GET and HEAD, JSON errors, and
// (the assembly's, internal/server) any origin (CORS *) and the same
// per-client rate limit.
package statuspage

import (
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/internal/httpjson"
	"github.com/statusd/statusd/internal/respcache"
	"github.com/statusd/statusd/internal/route"
	"github.com/statusd/statusd/internal/snapshot"
)

// Snapshots is where answers come from; *snapshot.Holder is one, and
// snapshot.Fixed.
type Snapshots interface {
	Current() *snapshot.Snapshot
}

// Config configures a Server.
type Config struct {
	Snapshots Snapshots
	// MaxAge is how long clients may reuse an answer (Cache-Control).
	MaxAge time.Duration
	// Answers keeps the answers of the current snapshot, shared with what
	// serves them before routing (internal/server); nil: a cache of its
	// own.
	Answers *respcache.PerSource
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Server serves the endpoints. It is safe for concurrent use.
type Server struct {
	snaps  Snapshots
	header http.Header // of every answer: Content-Type, Cache-Control
	cache  *respcache.PerSource
	now    func() time.Time
}

// New returns a Server for the configuration.
func New(cfg Config) *Server {
	s := &Server{snaps: cfg.Snapshots, cache: cfg.Answers, now: cfg.Now,
		header: http.Header{"Content-Type": {"application/json; charset=utf-8"},
			"Cache-Control": {"public, max-age=" + strconv.Itoa(int(cfg.MaxAge/time.Second))}}}
	if s.cache == nil {
		s.cache = new(respcache.PerSource)
	}
	if s.now == nil {
		s.now = time.Now
	}
	return s
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

// Serve answers the endpoint at path, one of Paths, from the snapshot's
// cache (respcache), under the key path: marshalled once per snapshot,
// with its ETag, 304 and encodings. The answer does not depend on the
// query, so that every target of the path is aliased to it and served
// before routing next time. CORS and the rate limit are the assembly's,
// before routing (internal/server).
func (s *Server) Serve(path string) route.Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		return s.serve(w, r, path, func(snap *snapshot.Snapshot) (any, error) { return answer(snap, path), nil })
	}
}

// Folder answers the files of dir, one of Folders, at dir{file}: the
// files of Paths in it, each named by its path as its own route would be,
// and <id>.json, the notice with that id as dir's list presents it under
// the list's key made singular ({"page": ..., "incident": ...}), the
// shape of the list's own items. An id that names no notice of the list,
// or that is no id, is 404 not_found.
func (s *Server) Folder(dir string) route.Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		path := dir + r.PathValue("file")
		if slices.Contains(Paths, path) {
			r.Pattern = path
			return s.serve(w, r, path, func(snap *snapshot.Snapshot) (any, error) { return answer(snap, path), nil })
		}
		idText, isJSON := strings.CutSuffix(r.PathValue("file"), ".json")
		n, err := statusd.ParseID(Folders[dir], idText)
		if !isJSON || err != nil {
			return statusd.Errorf(statusd.ENotFound, "%s %s not found", Folders[dir], idText)
		}
		return s.serve(w, r, itemPath(dir, id(n)), func(snap *snapshot.Snapshot) (any, error) {
			if v, ok := item(snap, dir, n); ok {
				return v, nil
			}
			return nil, statusd.Errorf(statusd.ENotFound, "%s %d not found", Folders[dir], n)
		})
	}
}

// serve answers the body that build maps from the current snapshot,
// kept in the snapshot's cache under key; build's error is the answer's.
func (s *Server) serve(w http.ResponseWriter, r *http.Request, key string, build func(*snapshot.Snapshot) (any, error)) error {
	snap := s.snaps.Current()
	if snap == nil {
		return statusd.NoPage(statusd.EUnavailable)
	}
	cache := s.cache.For(snap)
	e, err := cache.Get(key, s.now(), func(time.Time) (*respcache.Entry, error) {
		v, err := build(snap)
		if err != nil {
			return nil, err
		}
		return respcache.Compute(func(dst []byte) ([]byte, error) { return httpjson.Append(dst, v) }, s.header, time.Time{})
	})
	if err != nil {
		return err
	}
	if r.RequestURI != "" {
		cache.Alias(r.RequestURI, key, r.Pattern)
	}
	respcache.Serve(w, r, e)
	return nil
}
