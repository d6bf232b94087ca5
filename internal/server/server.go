// Package server is the one HTTP assembly of statusd: New builds the
// handlers of both listeners from a Config, routes.go shows every route of
// the process, and a request goes one way: listener, middleware (request
// id and metrics, nosniff, panics, the cache lookup, the gate), route,
// handler, error writer.
package server

import (
	"log/slog"
	"net/http"
	"net/netip"
	"strings"
	"time"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/internal/admin"
	"github.com/statusd/statusd/internal/api"
	"github.com/statusd/statusd/internal/badge"
	"github.com/statusd/statusd/internal/health"
	"github.com/statusd/statusd/internal/httpjson"
	"github.com/statusd/statusd/internal/ratelimit"
	"github.com/statusd/statusd/internal/snapshot"
	"github.com/statusd/statusd/internal/statuspage"
	"github.com/statusd/statusd/internal/telemetry"
	"github.com/statusd/statusd/internal/web"
)

// Store is what the assembly asks of the store: the admin API's writes
// and tokens, and the readiness probe's checks. *sqlstore.Store is one.
type Store interface {
	statusd.Store
	health.Store
}

// Config is everything New needs.
type Config struct {
	Store     Store
	Snapshots *snapshot.Holder
	Variant   statusd.Variant
	// Limiter is the per-client limit of the JSON APIs; nil turns it off.
	Limiter ratelimit.Allower
	// TrustedProxies are the peers whose X-Forwarded-For is believed.
	TrustedProxies []netip.Prefix
	// Cache are the caching directives of the API's successful answers.
	Cache api.CacheControl
	// Gate bounds the requests worked on at once; its Shed feeds
	// Metrics.
	Gate *Gate
	// AdminListener puts the admin API and /metrics on a handler of their
	// own (--admin-addr).
	AdminListener bool
	// MetricsPublic serves /metrics without a token.
	MetricsPublic bool
	// Metrics records every request of both listeners.
	Metrics *telemetry.Metrics
	Now     func() time.Time
	Log     *slog.Logger
}

// assembly holds the handlers of one process.
type assembly struct {
	cfg   Config
	api   *api.Server
	pages *web.Server
}

// New returns the handler of the public listener and, with
// Config.AdminListener, that of the admin listener (nil otherwise).
func New(cfg Config) (public, adminH http.Handler) {
	s := &assembly{cfg: cfg,
		api: api.New(api.Config{Snapshots: cfg.Snapshots, Variant: cfg.Variant, Limiter: cfg.Limiter,
			TrustedProxies: cfg.TrustedProxies, Cache: cfg.Cache, Now: cfg.Now, Log: cfg.Log}),
		pages: web.New(web.Config{Snapshots: cfg.Snapshots, Variant: cfg.Variant, Now: cfg.Now, Log: cfg.Log}),
	}
	pub := http.NewServeMux()
	adm := pub
	if cfg.AdminListener {
		adm = http.NewServeMux()
	}
	s.routes(pub, adm)
	public = s.publicChain(pub)
	if cfg.AdminListener {
		adminH = s.adminChain(adm)
	}
	return public, adminH
}

func (s *assembly) now() time.Time { return s.cfg.Now() }

// jsonPrefixes are the paths whose errors are JSON (CONTRACT C2); every
// other path's are HTML pages.
var jsonPrefixes = []string{"/api/", "/v1/", "/admin/"}

// jsonPaths are the paths outside jsonPrefixes whose errors are JSON: the
// alias of the API's index, and the metrics and probes, read by machines.
var jsonPaths = []string{"/v1", "/metrics", "/healthz", "/readyz"}

// writeError is the one error writer: it answers err in the shape of r's
// path, the JSON error of CONTRACT C2 ({"error": {"status", "code",
// "message"}}, see httpjson.Error) under /api/, /v1/ and /admin/, and the
// status page's HTML error page elsewhere; never text/plain. The status is
// the code's (statusd.ErrorStatus); an error that is not a *statusd.Error
// is logged and answered 500 with a generic message.
func (s *assembly) writeError(w http.ResponseWriter, r *http.Request, err error) {
	if isJSONPath(r.URL.Path) {
		httpjson.Error(w, r, s.cfg.Log, err)
		return
	}
	s.pages.Error(w, r, err)
}

func isJSONPath(path string) bool {
	for _, p := range jsonPrefixes {
		if strings.HasPrefix(path, p) {
			return true
		}
	}
	for _, p := range jsonPaths {
		if path == p {
			return true
		}
	}
	return false
}

// recoverPanics answers a panic in next with a 500 error in the shape of
// the path instead of a dropped connection, and logs it once.
func (s *assembly) recoverPanics(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					panic(v)
				}
				s.cfg.Log.Error("panic", "method", r.Method, "path", r.URL.Path, "panic", v,
					"request_id", w.Header().Get(telemetry.RequestIDHeader))
				s.writeError(w, r, statusd.Errorf(statusd.EInternal, "internal error"))
			}
		}()
		next.ServeHTTP(w, r)
	})
}

// noSniff has every answer carry X-Content-Type-Options: nosniff, so that
// no browser takes a JSON, text or feed answer for HTML or script.
func noSniff(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Content-Type-Options", "nosniff")
		next.ServeHTTP(w, r)
	})
}

// newAdmin returns the admin API's handlers.
func (s *assembly) newAdmin() *admin.Server {
	return admin.New(admin.Config{Store: s.cfg.Store, Snapshots: s.cfg.Snapshots, Now: s.cfg.Now, Log: s.cfg.Log})
}

// newStatuspage, newBadges and newHealth return the other handler groups.
func (s *assembly) newStatuspage() *statuspage.Server {
	return statuspage.New(statuspage.Config{Snapshots: s.cfg.Snapshots, Limiter: s.cfg.Limiter,
		TrustedProxies: s.cfg.TrustedProxies, MaxAge: s.cfg.Cache.MaxAge, Log: s.cfg.Log})
}

func (s *assembly) newBadges() *badge.Server {
	return badge.New(badge.Config{Snapshots: s.cfg.Snapshots, MaxAge: s.cfg.Cache.MaxAge, Log: s.cfg.Log})
}

func (s *assembly) newHealth() *health.Checker {
	return health.New(s.cfg.Snapshots, s.cfg.Store, health.DefaultTimeout, s.cfg.Log)
}
