// Package console is the operator console (CONTRACT C8) under /manage, on
// the admin API's listener: server-rendered HTML from embedded templates,
// usable without JavaScript. People sign in with an email and a password
// set through a one-time setup link (statusd user add); a session is a
// random secret in the cookie statusd_session, stored as its SHA-256 in
// the database and ended after 12 hours unused.
//
// The assembly (internal/server) routes each screen through SignedIn,
// which resolves the session to its user and carries them as the
// request's actor (statusd.WithActor), and then through the least role of
// the screen's action (app.Least); the action (internal/app) checks it
// again, as it does for the admin API.
// Every POST is refused from other sites first (SameOrigin, Go's
// http.CrossOriginProtection): a session rides on a cookie, so a forged
// cross-site form could otherwise act as the person signed in.
package console

import (
	"embed"
	"html/template"
	"log/slog"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"time"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/internal/app"
	"github.com/statusd/statusd/internal/htmlkit"
	"github.com/statusd/statusd/internal/ratelimit"
	"github.com/statusd/statusd/internal/route"
	"github.com/statusd/statusd/internal/snapshot"
)

// Root is the console's path; every console path is it or under it.
const Root = "/manage"

// Path reports whether a path is the console's.
func Path(p string) bool { return p == Root || strings.HasPrefix(p, Root+"/") }

// CookieName is the name of the session cookie.
const CookieName = "statusd_session"

// Snapshots is where the screens read the current page; *snapshot.Holder
// is one.
type Snapshots interface {
	Current() *snapshot.Snapshot
}

// Config configures a Server.
type Config struct {
	Users       statusd.UserStore
	Subscribers statusd.SubscriberStore
	Snapshots   Snapshots
	// TrustedProxies are the peers whose X-Forwarded-For tells the client,
	// for the limit of sign-in attempts.
	TrustedProxies []netip.Prefix
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Log receives the errors of rendering; nil discards them.
	Log *slog.Logger
	// App runs the actions the screens do, the same as the admin API's
	// (CONTRACT C8), with the signed-in person as the actor; a screen
	// shows a form only to those whose role may do its action (app.Least).
	App *app.App
	// Reminder is how long before a maintenance begins subscribers are
	// reminded of it (--maintenance-reminder; 0: never).
	Reminder time.Duration
	// URL is the console's URL (scheme and host; the console is its
	// /manage), "" when unknown: the session cookie is Secure when it is
	// https, and it is the base of the OpenID Connect redirect URI.
	URL func() string
	// OIDC turns on sign-in with an OpenID Connect provider; nil: off.
	OIDC *OIDC
}

// Server serves the console. It is safe for concurrent use.
type Server struct {
	users     statusd.UserStore
	subs      statusd.SubscriberStore
	snaps     Snapshots
	trusted   []netip.Prefix
	now       func() time.Time
	log       *slog.Logger
	origin    *htmlkit.SameOrigin
	logins    *ratelimit.Window // sign-in attempts, per account and per client
	publisher statusd.Role      // the least role of the notice screens (publishing's), for their forms and links
	reminder  time.Duration
	url       func() string
	sso       *sso // nil without OIDC
	app       *app.App
}

// New returns a Server for the configuration.
func New(cfg Config) *Server {
	s := &Server{users: cfg.Users, subs: cfg.Subscribers, snaps: cfg.Snapshots, trusted: cfg.TrustedProxies,
		now: cfg.Now, log: cfg.Log, origin: htmlkit.NewSameOrigin("the console's own pages"), logins: ratelimit.NewWindow(LoginWindow, loginKeys),
		publisher: app.Least(app.ActPublish), reminder: cfg.Reminder, url: cfg.URL, app: cfg.App}
	if cfg.OIDC != nil {
		s.sso = newSSO(*cfg.OIDC)
	}
	if s.url == nil {
		s.url = func() string { return "" }
	}
	if s.now == nil {
		s.now = time.Now
	}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	return s
}

// SameOrigin refuses a POST sent from another site (a Sec-Fetch-Site of
// cross-site, or an Origin that is not the console's) with 403 forbidden,
// before h runs: nothing is changed, and a refused sign-in is not counted.
func (s *Server) SameOrigin(h route.Handler) route.Handler { return s.origin.Wrap(h) }

// SignedIn lets through to h only the requests of a session, carrying its
// user as the actor (statusd.WithActor); any other is sent to the sign-in
// page (303). Answers are never stored.
func (s *Server) SignedIn(h route.Handler) route.Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		htmlkit.Private(w)
		u, err := s.sessionUser(r)
		if err != nil {
			return err
		}
		if u == nil {
			http.Redirect(w, r, Root+"/login", http.StatusSeeOther)
			return nil
		}
		s.renew(w, r)
		return h(w, r.WithContext(statusd.WithActor(r.Context(), statusd.Actor{Name: u.Email, Role: u.Role, Kind: statusd.ByPerson})))
	}
}

// sessionUser returns the user of r's session cookie, or nil.
func (s *Server) sessionUser(r *http.Request) (*statusd.User, error) {
	c, err := r.Cookie(CookieName)
	if err != nil || c.Value == "" {
		return nil, nil
	}
	return s.users.Session(r.Context(), statusd.SecretHash(c.Value), s.now())
}

// startSession starts a session of u and sets its cookie: HttpOnly,
// SameSite=Lax, on /manage only, Secure when the console's URL is https,
// kept by the browser as long as the session lasts unused
// (statusd.SessionIdle).
func (s *Server) startSession(w http.ResponseWriter, r *http.Request, u *statusd.User) error {
	secret, hash := statusd.NewSecret()
	if err := s.users.StartSession(r.Context(), u.ID, hash, s.now()); err != nil {
		return err
	}
	http.SetCookie(w, s.cookie(secret, statusd.SessionIdle))
	return nil
}

// renew sets the cookie of r's live session again, to last
// statusd.SessionIdle from now, as the store's Session has just renewed
// the session.
func (s *Server) renew(w http.ResponseWriter, r *http.Request) {
	if c, err := r.Cookie(CookieName); err == nil {
		http.SetCookie(w, s.cookie(c.Value, statusd.SessionIdle))
	}
}

// cookie is the session cookie with value, kept for maxAge from now
// (Max-Age and Expires); a maxAge of 0 or less deletes it.
func (s *Server) cookie(value string, maxAge time.Duration) *http.Cookie {
	c := &http.Cookie{Name: CookieName, Value: value, Path: Root, HttpOnly: true, Secure: s.secure(),
		SameSite: http.SameSiteLaxMode, MaxAge: -1}
	if maxAge > 0 {
		c.MaxAge, c.Expires = int(maxAge/time.Second), s.now().Add(maxAge).UTC()
	}
	return c
}

// secure reports whether the console's cookies are Secure: its URL is
// https.
func (s *Server) secure() bool { return strings.HasPrefix(s.url(), "https://") }

// ---- rendering ----

//go:embed templates assets
var files embed.FS

// assets are the console's files under /manage/assets/, on whichever
// listener: the kit's stylesheet, the status page's look (colours, fonts,
// header, spacing, state badges), linked first; the console's own
// (console.css: forms, tables, its navigation); its icon, so that a
// browser asks for no /favicon.ico, which the admin listener does not
// have.
var assets = htmlkit.NewAssets(Root+"/assets/", files, "assets")

// Assets serves the console's assets, by the path's {name}.
func (s *Server) Assets() route.Handler { return assets.Handler() }

// pages are the templates of the screens, each with the layout and the
// forms.
var pages = htmlkit.Parse(htmlkit.Site{Files: files, Shared: []string{"templates/layout.html", "templates/forms.html", "templates/alerts.html"},
	Pages: []string{"login", "setup", "home", "sso",
		"incident", "maintenance", "announcement", "notice", "edit", "delete",
		"components", "component", "page", "tokens", "users", "audit", "subscribers", "deliveries",
		"draft", "sources", "source"},
	Funcs: template.FuncMap{
		"asset":       assets.URL,
		"formatWord":  formatWord,
		"minPassword": func() int { return statusd.MinPassword },
		"segment":     url.PathEscape, // a name as one segment of a path
		"message":     func(f *form, id, label string) fieldsView { return fieldsView{Form: f, ID: id, Label: label} },
		// first is a message field with the focus, first in its form.
		"first": func(f *form, id, label string) fieldsView {
			return fieldsView{Form: f, ID: id, Label: label, Autofocus: true}
		},
		"states": func(f *form, id string, states []statusd.State) fieldsView {
			return fieldsView{Form: f, ID: id, States: states}
		},
	}})

// base is what the layout shows on every screen.
type base struct {
	Title string
	Name  string // the page's
	User  *statusd.Actor
	// CanPublish: the person may publish and change notices.
	CanPublish bool
	// CanSource: the person may manage the alert sources (an owner).
	CanSource bool
	// Outcome is what the action just done did to the public page, shown
	// above the screen; nil for none.
	Outcome *outcome
}

// newBase is the base of a screen titled title, for r's actor if any,
// with the outcome that r's query names (outcomeOf).
func (s *Server) newBase(r *http.Request, title string) base {
	b := base{Title: title, Name: "statusd"}
	if snap := s.snaps.Current(); snap != nil {
		b.Name = snap.Page().Name
	}
	if a := statusd.ActorOf(r.Context()); a.Name != "" {
		b.User = &a
		b.CanPublish = a.Role.Allows(s.publisher)
		b.CanSource = a.Role.Allows(app.Least(app.ActManageSources))
		b.Outcome = s.outcomeOf(r)
	}
	return b
}

// render writes a screen with status (htmlkit.Pages.Render), never to be
// stored; a template that fails is returned as an internal error, having
// written nothing.
func (s *Server) render(w http.ResponseWriter, status int, name string, data any) error {
	htmlkit.Private(w)
	return pages.Render(w, status, name, data)
}

// errorView is the screen of a refusal or a failure.
type errorView struct {
	base
	htmlkit.Failure
}

// errorScreen words the console's error screens.
var errorScreen = htmlkit.ErrorScreen{
	Headings: map[int]string{
		http.StatusForbidden:          "Not allowed",
		http.StatusNotFound:           "Not found",
		http.StatusTooManyRequests:    "Too many attempts",
		http.StatusServiceUnavailable: "Busy",
	},
	Internal: "The console could not do this. Please try again in a moment.",
	Back:     htmlkit.Link{Href: Root, Text: "Back to the console"},
}

// ErrorPage renders err as the console's error screen, for route.Errors
// (which has logged an internal error and set Retry-After): a
// *statusd.Error's message as it is, any other error as a generic one.
// Its stylesheet and links are the console's own, on whichever listener.
func (s *Server) ErrorPage(w http.ResponseWriter, r *http.Request, err error) {
	f := errorScreen.Failure(err)
	if err := s.render(w, f.Status, "error", errorView{base: s.newBase(r, f.Heading), Failure: f}); err != nil {
		s.log.Error("rendering the error screen", "err", err)
		http.Error(w, f.Message, f.Status)
	}
}
