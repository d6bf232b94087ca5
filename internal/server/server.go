// Package server is the one HTTP assembly of statusd: New builds the
// handlers of both listeners from a Config, routes.go shows every route of
// the process, and a request goes one way: listener, middleware (nosniff,
// request id and metrics, panics, the JSON APIs' CORS, rate limit and
// cached answers (front.go), the gate), route, handler, error writer (route.Errors, built here with the status page's
// HTML error page).
package server

import (
	"context"
	"log/slog"
	"net/http"
	"net/netip"
	"strings"
	"time"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/internal/admin"
	"github.com/statusd/statusd/internal/api"
	"github.com/statusd/statusd/internal/app"
	"github.com/statusd/statusd/internal/badge"
	"github.com/statusd/statusd/internal/console"
	"github.com/statusd/statusd/internal/health"
	"github.com/statusd/statusd/internal/mirror"
	"github.com/statusd/statusd/internal/ratelimit"
	"github.com/statusd/statusd/internal/respcache"
	"github.com/statusd/statusd/internal/route"
	"github.com/statusd/statusd/internal/statuspage"
	"github.com/statusd/statusd/internal/telemetry"
	"github.com/statusd/statusd/internal/web"
)

// Store is what the assembly asks of the store: the tokens, the console's
// sessions, the subscription pages' subscribers, and the readiness
// probe's checks. *sqlstore.Store is one.
type Store interface {
	statusd.Store
	health.Store
}

// Config is everything New needs.
type Config struct {
	Store     Store
	Snapshots Snapshots
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
	// Pressure, when set, counts the public listener's requests (nil:
	// none), for the notification worker to give way to readers.
	Pressure *Pressure
	// Notes, when set, names background trouble on /readyz
	// (health.Checker.WithNotes): the mail relay's.
	Notes func() []string
	// AdminListener puts the admin API and /metrics on a handler of their
	// own (--admin-addr).
	AdminListener bool
	// MetricsPublic serves /metrics without a token.
	MetricsPublic bool
	// HooksPublic serves the sources' hooks (CONTRACT C9) on the public
	// listener too, for senders hosted elsewhere (--hooks-public).
	HooksPublic bool
	// EmailSubscriptions serves the pages where people subscribe by email
	// (CONTRACT C7), and links to them: statusd can send email.
	EmailSubscriptions bool
	// ConfirmationsPerHour caps the emails subscription requests send an
	// hour (--confirmations-per-hour; 0: web.DefaultConfirmationsPerHour).
	ConfirmationsPerHour int
	// App runs the writes of the admin API and the console
	// (internal/app).
	App *app.App
	// MaintenanceReminder is how long before a maintenance begins
	// subscribers are reminded (--maintenance-reminder), as the console
	// says.
	MaintenanceReminder time.Duration
	// ConsoleURL is where people reach the console's listener
	// (--console-url: scheme and host, the console at its /manage); ""
	// for the rule of consoleURL.
	ConsoleURL string
	// OIDC turns on the console's sign-in with an OpenID Connect
	// provider; nil: off.
	OIDC *console.OIDC
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
	// answers are the API's and Statuspage's answers of the current
	// snapshot, which the front serves before routing.
	answers respcache.PerSource
	// console is the operator console's, set by routes.
	console *console.Server
}

// New returns the handler of the public listener and, with
// Config.AdminListener, that of the admin listener (nil otherwise).
func New(cfg Config) (public, adminH http.Handler) {
	s := newAssembly(cfg, web.Config{Subscribers: cfg.Store.Subscribers(), Limiter: cfg.Limiter,
		TrustedProxies: cfg.TrustedProxies, ConfirmationsPerHour: cfg.ConfirmationsPerHour})
	// The console's errors are its screens, on the listener it is on.
	pages := s.errorPage
	if cfg.AdminListener {
		pages = s.pages.ErrorPage
	}
	cfg.Metrics.WatchSources(cfg.App.SourceStates)
	pub := route.NewMux(http.NewServeMux(), route.NewErrors(cfg.Log, pages))
	adm := pub
	if cfg.AdminListener {
		// It serves machines, and people only in the console: its errors
		// are JSON on every path but the console's.
		adm = route.NewMux(http.NewServeMux(), route.NewErrors(cfg.Log, func(w http.ResponseWriter, r *http.Request, err error) {
			if !console.Path(r.URL.Path) {
				route.WriteJSON(w, r, err)
				return
			}
			s.console.ErrorPage(w, r, err)
		}))
	}
	s.routes(pub, adm)
	public = s.publicChain(pub)
	if cfg.AdminListener {
		adminH = s.adminChain(adm)
	}
	return public, adminH
}

// newAssembly returns the assembly of cfg with its public pages and API;
// pages is the pages' configuration beyond what cfg says.
func newAssembly(cfg Config, pages web.Config) *assembly {
	pages.Snapshots, pages.Variant, pages.Now, pages.Log = cfg.Snapshots, cfg.Variant, cfg.Now, cfg.Log
	pages.EmailSubscriptions = cfg.EmailSubscriptions
	s := &assembly{cfg: cfg, pages: web.New(pages)}
	s.api = api.New(api.Config{Snapshots: cfg.Snapshots, Variant: cfg.Variant, Cache: cfg.Cache, Answers: &s.answers,
		Now: cfg.Now, Log: cfg.Log})
	return s
}

// Renderer returns what the mirror (internal/mirror) renders its files
// with: the handler of the public reads alone (the JSON APIs, the pages,
// feeds, assets and badges) on the pinned snapshot, with the pages in
// their mirror's form (web.Config.Mirror), so that a JSON file is the live
// answer's bytes by construction. Of cfg it reads Variant, Cache,
// EmailSubscriptions, Now and Log.
func Renderer(cfg Config) func(pin *mirror.Pin) http.Handler {
	return func(pin *mirror.Pin) http.Handler {
		cfg.Snapshots = pin
		s := newAssembly(cfg, web.Config{Mirror: true})
		mux := route.NewMux(http.NewServeMux(), route.NewErrors(cfg.Log, s.pages.ErrorPage))
		s.reads(mux)
		return mux
	}
}

func (s *assembly) now() time.Time { return s.cfg.Now() }

// errorPage is the HTML error page of the listener that has the console:
// the console's screen on its paths, the status page's elsewhere.
func (s *assembly) errorPage(w http.ResponseWriter, r *http.Request, err error) {
	if console.Path(r.URL.Path) {
		s.console.ErrorPage(w, r, err)
		return
	}
	s.pages.ErrorPage(w, r, err)
}

// consoleURL is the console's URL, the base of its setup links, of its
// OpenID Connect redirect URI and of its cookies' Secure: --console-url
// if given; else the page's url when the console shares the public
// listener; else (--admin-addr) unknown, "": a setup link is its path
// alone, to be opened on the admin listener.
func (s *assembly) consoleURL() string {
	switch {
	case s.cfg.ConsoleURL != "":
		return strings.TrimSuffix(s.cfg.ConsoleURL, "/")
	case s.cfg.AdminListener:
		return ""
	}
	if snap := s.cfg.Snapshots.Current(); snap != nil {
		return strings.TrimSuffix(snap.Page().URL, "/")
	}
	return ""
}

// noSniff has every answer carry X-Content-Type-Options: nosniff, so that
// no browser takes a JSON, text or feed answer for HTML or script.
func noSniff(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header()["X-Content-Type-Options"] = nosniff
		next.ServeHTTP(w, r)
	})
}

// nosniff is the value of every answer's X-Content-Type-Options, made
// once: its key is canonical and its one element fills its capacity (an
// Add copies it), so that setting it allocates nothing.
var nosniff = []string{"nosniff"}

// newAdmin returns the admin API's handlers, on the App.
func (s *assembly) newAdmin() *admin.Server {
	return admin.New(admin.Config{App: s.cfg.App, Now: s.cfg.Now, ConsoleURL: s.consoleURL})
}

// newConsole returns the operator console's handlers, on the App.
func (s *assembly) newConsole() *console.Server {
	return console.New(console.Config{Users: s.cfg.Store.Users(), Subscribers: s.cfg.Store.Subscribers(), Snapshots: s.cfg.Snapshots,
		TrustedProxies: s.cfg.TrustedProxies, Now: s.cfg.Now, Log: s.cfg.Log,
		Reminder: s.cfg.MaintenanceReminder, App: s.cfg.App, URL: s.consoleURL, OIDC: s.cfg.OIDC})
}

// newStatuspage, newBadges and newHealth return the other handler groups.
func (s *assembly) newStatuspage() *statuspage.Server {
	return statuspage.New(statuspage.Config{Snapshots: s.cfg.Snapshots, MaxAge: s.cfg.Cache.MaxAge, Answers: &s.answers,
		Now: s.cfg.Now})
}

func (s *assembly) newBadges() *badge.Server {
	return badge.New(badge.Config{Snapshots: s.cfg.Snapshots, MaxAge: s.cfg.Cache.MaxAge})
}

func (s *assembly) newHealth() *health.Checker {
	return health.New(s.cfg.Snapshots, s.cfg.Store, health.DefaultTimeout, s.cfg.Log).WithNotes(func() []string {
		var notes []string
		if s.cfg.Notes != nil {
			notes = s.cfg.Notes()
		}
		ctx, cancel := context.WithTimeout(context.Background(), health.DefaultTimeout)
		defer cancel()
		return append(notes, s.cfg.App.StaleNotes(ctx)...) // the sources whose heartbeat is late (C9)
	})
}
