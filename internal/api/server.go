// Package api serves the public, read-only v1 JSON API (docs/API.md) from the
// current snapshot, with the path aliases of CONTRACT C1 and the pagination,
// filters, errors, rate limit and CORS of C2. The read path never touches
// the database.
package api

import (
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/statusd/statusd"
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
	Variant   statusd.Variant
	// Cache are the caching directives of successful answers.
	Cache CacheControl
	// Answers keeps the answers of the current snapshot, shared with what
	// serves them before routing (internal/server); nil: a cache of its
	// own.
	Answers *respcache.PerSource
	Now     func() time.Time
	Log     *slog.Logger
}

// Server is the public API. It is safe for concurrent use.
type Server struct {
	snaps   Snapshots
	variant statusd.Variant
	now     func() time.Time
	log     *slog.Logger

	header http.Header          // of every answer: Content-Type, Cache-Control
	cache  *respcache.PerSource // the answers of the current snapshot
}

// New returns a Server for the configuration.
func New(cfg Config) *Server {
	s := &Server{snaps: cfg.Snapshots, variant: cfg.Variant, now: cfg.Now, log: cfg.Log, cache: cfg.Answers,
		header: http.Header{"Content-Type": {"application/json; charset=utf-8"}, "Cache-Control": {cfg.Cache.header()}}}
	if s.cache == nil {
		s.cache = new(respcache.PerSource)
	}
	return s
}

// Handler answers a request from a snapshot, or returns the error to
// answer with.
type Handler func(w http.ResponseWriter, r *http.Request, snap *snapshot.Snapshot) error

// Read adapts a Handler to the API's common behaviour: a snapshot to
// answer from; the error it returns is the one to answer with. CORS and
// the rate limit are the assembly's, before routing (internal/server).
func (s *Server) Read(h Handler) route.Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		snap := s.snaps.Current()
		if snap == nil {
			return statusd.NoPage(statusd.EUnavailable)
		}
		return h(w, r, snap)
	}
}

// NotFound answers the paths under the API's roots that no route claims.
func NotFound(w http.ResponseWriter, r *http.Request) error {
	return statusd.Errorf(statusd.ENotFound, "no such endpoint: %s", r.URL.Path)
}

// Index answers the API's index, the target of page.links.self.
func (s *Server) Index(w http.ResponseWriter, r *http.Request, snap *snapshot.Snapshot) error {
	return s.answer(w, r, snap, "index", true, func(time.Time) (any, time.Time, error) {
		return statusd.IndexResponse{Links: statusd.IndexLinks{Status: statusd.APIRoot + "/status",
			Components: statusd.APIRoot + "/components", Notices: statusd.APIRoot + "/notices"}}, time.Time{}, nil
	})
}

// Status answers the page and its state.
func (s *Server) Status(w http.ResponseWriter, r *http.Request, snap *snapshot.Snapshot) error {
	return s.answer(w, r, snap, "status", true, func(time.Time) (any, time.Time, error) {
		return statusd.StatusResponse{Page: snap.Page()}, time.Time{}, nil
	})
}

// Components answers a page of the components list, filtered.
func (s *Server) Components(w http.ResponseWriter, r *http.Request, snap *snapshot.Snapshot) error {
	f, q, err := parseComponentQuery(r.URL.RawQuery)
	if err != nil {
		return err
	}
	s.ignored(w, q)
	return s.answer(w, r, snap, q.key("components"), len(q.ignored) == 0, func(now time.Time) (any, time.Time, error) {
		list, total, changes := snap.ComponentsAt(f, q.page, now)
		return statusd.ComponentsResponse{Components: list, Meta: meta("components", q, len(list), total)}, timeDependent(now, changes), nil
	})
}

// Notices answers a page of the notices list, filtered.
func (s *Server) Notices(w http.ResponseWriter, r *http.Request, snap *snapshot.Snapshot) error {
	f, q, err := parseNoticeQuery(r.URL.RawQuery)
	if err != nil {
		return err
	}
	s.ignored(w, q)
	return s.answer(w, r, snap, q.key("notices"), len(q.ignored) == 0, func(now time.Time) (any, time.Time, error) {
		room := noticePages.Get().(*[]statusd.NoticeListEntry)
		list, total, changes := snap.AppendNotices(*room, f, q.page, now)
		return pooledNotices{statusd.NoticesResponse{Notices: list, Meta: meta("notices", q, len(list), total)}, room},
			timeDependent(now, changes), nil
	})
}

// Notice answers one notice with its updates.
func (s *Server) Notice(w http.ResponseWriter, r *http.Request, snap *snapshot.Snapshot) error {
	id, err := statusd.ParseID("notice", r.PathValue("id"))
	if err != nil {
		return err
	}
	n := snap.Notice(id)
	if n == nil {
		return statusd.Errorf(statusd.ENotFound, "notice %s not found", r.PathValue("id"))
	}
	return s.answer(w, r, snap, "notice/"+strconv.FormatInt(id, 10), true, func(now time.Time) (any, time.Time, error) {
		return statusd.NoticeResponse{Notice: snap.NoticeDetail(n, now)}, timeDependent(now, snap.TimeDependent(n)), nil
	})
}

// Metrics answers a component's metrics over a timeframe (Variant A).
func (s *Server) Metrics(w http.ResponseWriter, r *http.Request, snap *snapshot.Snapshot) error {
	if !s.variant.HasMetrics() {
		return statusd.Errorf(statusd.ENotFound, "no such endpoint: this page has no component metrics")
	}
	id, err := statusd.ParseID("component", r.PathValue("id"))
	if err != nil {
		return err
	}
	c := snap.Component(id)
	if c == nil {
		return statusd.Errorf(statusd.ENotFound, "component %s not found", r.PathValue("id"))
	}
	if !c.MetricsEnabled {
		return statusd.Errorf(statusd.EMetricsDisabled, "component %d does not have Metrics enabled", id)
	}
	q := r.URL.Query()
	tf, err := statusd.ParseTimeframe(q.Get("timeframe_start"), q.Get("timeframe_end"), s.now())
	if err != nil {
		return err
	}
	calc := false
	if v := q.Get("show_calculations"); v != "" {
		if calc, err = parseBool("show_calculations", v); err != nil {
			return err
		}
	}
	key := "metrics/" + strconv.FormatInt(id, 10) + "?" + tf.Start.Format(statusd.DateLayout) + "&" +
		tf.End.Format(statusd.DateLayout) + "&" + strconv.FormatBool(calc)
	return s.answer(w, r, snap, key, true, func(now time.Time) (any, time.Time, error) {
		// A window that ends before now no longer changes with the clock,
		// but whether its start is allowed changes with the date.
		until := untilTomorrow(now)
		if _, to := tf.Window(now); to.Before(tf.End.AddDate(0, 0, 1)) {
			until = untilNextSecond(now)
		}
		return snap.MetricsResponse(c, tf, now, calc), until, nil
	})
}

// answer serves the answer under key from the snapshot's cache, computing
// it when needed. When the request's target (path and raw query) always
// gets this answer, with no header of its own, aliasable says so: the
// next request for the same target is then served before routing
// (respcache.Cache.Lookup).
func (s *Server) answer(w http.ResponseWriter, r *http.Request, snap *snapshot.Snapshot, key string, aliasable bool, build builder) error {
	cache := s.cache.For(snap)
	e, err := cache.Get(key, s.now(), entry(s.header, build))
	if err != nil {
		return err
	}
	if aliasable && r.RequestURI != "" {
		cache.Alias(r.RequestURI, key, r.Pattern)
	}
	respcache.Serve(w, r, e)
	return nil
}

// ignored names the filter keys that were ignored, in X-Ignored-Filters.
func (s *Server) ignored(w http.ResponseWriter, q listQuery) {
	if len(q.ignored) > 0 {
		w.Header().Set("X-Ignored-Filters", strings.Join(q.ignored, ","))
	}
}

// meta is the pagination block: next_page keeps every applied filter, its
// brackets percent-encoded (CONTRACT C1), and changes only page; it is null
// on the last page and past it.
func meta(collection string, q listQuery, count, total int) statusd.Meta {
	m := statusd.Meta{Count: count, TotalCount: total}
	if q.page < int64(total+snapshot.PageSize-1)/snapshot.PageSize {
		var b strings.Builder
		b.WriteString("/api/v1/" + collection + "?")
		for _, p := range q.applied {
			b.WriteString(url.QueryEscape(p.key) + "=" + escapeValue(p.value) + "&")
		}
		b.WriteString("page=" + strconv.FormatInt(q.page+1, 10))
		next := b.String()
		m.NextPage = &next
	}
	return m
}

// escapeValue percent-encodes what a query value cannot hold raw; the
// values statusd applies (enums, integers, timestamps) come out unchanged.
func escapeValue(v string) string {
	return strings.NewReplacer("%", "%25", "&", "%26", "#", "%23", "+", "%2B", " ", "+").Replace(v)
}
