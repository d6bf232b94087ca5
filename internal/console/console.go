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
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"html/template"
	"log/slog"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/internal/app"
	"github.com/statusd/statusd/internal/ratelimit"
	"github.com/statusd/statusd/internal/route"
	"github.com/statusd/statusd/internal/snapshot"
	"github.com/statusd/statusd/internal/web"
)

// Root is the console's path; every console path is it or under it.
const Root = "/manage"

// Path reports whether a path is the console's.
func Path(p string) bool { return p == Root || strings.HasPrefix(p, Root+"/") }

// PageStylesheet is the path of the status page's stylesheet on the
// console's listener, which may not be the page's.
const PageStylesheet = Root + "/assets/style.css"

// CookieName is the name of the session cookie.
const CookieName = "statusd_session"

// Config configures a Server.
type Config struct {
	Users       statusd.UserStore
	Subscribers statusd.SubscriberStore
	Snapshots   *snapshot.Holder
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
	snaps     *snapshot.Holder
	trusted   []netip.Prefix
	now       func() time.Time
	log       *slog.Logger
	origin    *http.CrossOriginProtection
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
		now: cfg.Now, log: cfg.Log, origin: http.NewCrossOriginProtection(), logins: ratelimit.NewWindow(LoginWindow, loginKeys),
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
func (s *Server) SameOrigin(h route.Handler) route.Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		if s.origin.Check(r) != nil {
			return statusd.Errorf(statusd.EForbidden,
				"This form was sent from another site, so it was refused and nothing was changed. Please use the console's own pages.")
		}
		return h(w, r)
	}
}

// SignedIn lets through to h only the requests of a session, carrying its
// user as the actor (statusd.WithActor); any other is sent to the sign-in
// page (303). Answers are never stored.
func (s *Server) SignedIn(h route.Handler) route.Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		private(w)
		u, err := s.sessionUser(r)
		if err != nil {
			return err
		}
		if u == nil {
			http.Redirect(w, r, Root+"/login", http.StatusSeeOther)
			return nil
		}
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

// private marks an answer as never to be stored or sent on as a Referer.
func private(w http.ResponseWriter) {
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Referrer-Policy", "no-referrer")
}

// startSession starts a session of u and sets its cookie: HttpOnly,
// SameSite=Lax, on /manage only, Secure when the console's URL is https.
func (s *Server) startSession(w http.ResponseWriter, r *http.Request, u *statusd.User) error {
	secret, hash := statusd.NewSecret()
	if err := s.users.StartSession(r.Context(), u.ID, hash, s.now()); err != nil {
		return err
	}
	http.SetCookie(w, s.cookie(secret, 0))
	return nil
}

// cookie is the session cookie with value; maxAge < 0 deletes it.
func (s *Server) cookie(value string, maxAge int) *http.Cookie {
	return &http.Cookie{Name: CookieName, Value: value, Path: Root, MaxAge: maxAge, HttpOnly: true, Secure: s.secure(),
		SameSite: http.SameSiteLaxMode}
}

// secure reports whether the console's cookies are Secure: its URL is
// https.
func (s *Server) secure() bool { return strings.HasPrefix(s.url(), "https://") }

// ---- rendering ----

//go:embed templates assets
var files embed.FS

// stylesheet is the console's own stylesheet, and its version: what only
// the console has (forms, tables, its navigation). The screens link the
// status page's stylesheet first (web.ServeAsset under /manage/assets/),
// for the page's colours, fonts, header, spacing and state badges.
var stylesheet, stylesheetVersion = func() ([]byte, string) {
	b, err := files.ReadFile("assets/console.css")
	if err != nil {
		panic(err)
	}
	sum := sha256.Sum256(b)
	return b, hex.EncodeToString(sum[:6])
}()

// Stylesheet serves the console's own stylesheet, cacheable for good
// under its version.
func (s *Server) Stylesheet(w http.ResponseWriter, r *http.Request) error {
	h := w.Header()
	h.Set("Content-Type", "text/css; charset=utf-8")
	h.Set("Cache-Control", "public, max-age=31536000, immutable")
	w.Write(stylesheet)
	return nil
}

// pages are the templates of the screens, each with the layout.
var pages = func() map[string]*template.Template {
	funcs := template.FuncMap{
		"stylesheet":  func() string { return Root + "/assets/console.css?v=" + stylesheetVersion },
		"pageStyle":   func() string { return PageStylesheet + "?v=" + web.AssetVersion("style.css") },
		"minPassword": func() int { return statusd.MinPassword },
		"segment":     url.PathEscape, // a name as one segment of a path
		"message":     func(f *form, id, label string) fieldsView { return fieldsView{Form: f, ID: id, Label: label} },
		"states": func(f *form, id string, states []statusd.State) fieldsView {
			return fieldsView{Form: f, ID: id, States: states}
		},
	}
	out := map[string]*template.Template{}
	for _, name := range []string{"error", "login", "setup", "home", "sso",
		"incident", "maintenance", "announcement", "notice", "edit", "delete",
		"components", "component", "page", "tokens", "users", "audit", "subscribers", "deliveries"} {
		out[name] = template.Must(web.Badges(template.New(name).Funcs(funcs)).ParseFS(files, "templates/layout.html", "templates/forms.html", "templates/"+name+".html"))
	}
	return out
}()

// base is what the layout shows on every screen.
type base struct {
	Title string
	Name  string // the page's
	User  *statusd.Actor
	// CanPublish: the person may publish and change notices.
	CanPublish bool
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
		b.Outcome = s.outcomeOf(r)
	}
	return b
}

// securityHeaders are set on every screen: nothing but the console's own
// stylesheets, no script, no frames, forms only to statusd itself.
var securityHeaders = map[string]string{
	"Content-Security-Policy": "default-src 'none'; style-src 'self'; img-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
	"X-Frame-Options":         "DENY",
}

// render writes a screen with status, from a buffer; a template that fails
// is returned as an internal error, having written nothing.
func (s *Server) render(w http.ResponseWriter, status int, name string, data any) error {
	var buf bytes.Buffer
	if err := pages[name].ExecuteTemplate(&buf, "layout", data); err != nil {
		return err
	}
	h := w.Header()
	for k, v := range securityHeaders {
		h.Set(k, v)
	}
	private(w)
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Length", strconv.Itoa(buf.Len()))
	w.WriteHeader(status)
	w.Write(buf.Bytes())
	return nil
}

// errorView is the screen of a refusal or a failure.
type errorView struct {
	base
	Status  int
	Message string
}

// errorHeadings are the headings of the error screens by status; others
// have the status's text.
var errorHeadings = map[int]string{
	http.StatusForbidden:          "Not allowed",
	http.StatusNotFound:           "Not found",
	http.StatusTooManyRequests:    "Too many attempts",
	http.StatusServiceUnavailable: "Busy",
}

// ErrorPage renders err as the console's error screen, for route.Errors
// (which has logged an internal error and set Retry-After): a
// *statusd.Error's message as it is, any other error as a generic one.
// Its stylesheet and links are the console's own, on whichever listener.
func (s *Server) ErrorPage(w http.ResponseWriter, r *http.Request, err error) {
	code := statusd.ErrorCode(err)
	status, message := statusd.ErrorStatus(code), statusd.ErrorMessage(err)
	if code == statusd.EInternal {
		message = "The console could not do this. Please try again in a moment."
	}
	heading := errorHeadings[status]
	if heading == "" {
		heading = http.StatusText(status)
	}
	if err := s.render(w, status, "error", errorView{base: s.newBase(r, heading), Status: status, Message: message}); err != nil {
		s.log.Error("rendering the error screen", "err", err)
		http.Error(w, message, status)
	}
}
