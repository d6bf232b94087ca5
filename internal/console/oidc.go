package console

// Sign-in with OpenID Connect (CONTRACT C8, serve --oidc-issuer): the
// authorization-code flow with state, nonce and PKCE, whose verified email
// claim picks an existing user.

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	"golang.org/x/oauth2"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/internal/htmlkit"
)

// OIDC is the configuration of sign-in with an OpenID Connect provider.
type OIDC struct {
	// Issuer is the provider's issuer URL, https unless loopback.
	Issuer       string
	ClientID     string
	ClientSecret string
}

// CheckIssuer refuses an issuer URL that is not https, unless it names a
// loopback host (a provider started by a test).
func CheckIssuer(issuer string) error {
	u, err := url.Parse(issuer)
	if err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http") {
		return fmt.Errorf("%q is not an absolute https URL", issuer)
	}
	if u.Scheme == "http" && !loopback(u.Hostname()) {
		return fmt.Errorf("%q must be https (http only for a loopback address, in tests)", issuer)
	}
	return nil
}

func loopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// OIDCCallbackPath is the path of the redirect URI, under the console's
// URL, to register at the provider.
const OIDCCallbackPath = Root + "/oidc/callback"

const (
	// oidcCookie holds a flow's state, nonce and PKCE verifier, for
	// oidcFlowTime, on the flow's paths only.
	oidcCookie   = "statusd_oidc"
	oidcFlowTime = 10 * time.Minute
	// oidcTimeout bounds each request to the provider.
	oidcTimeout = 10 * time.Second
)

// sso is the sign-in with a provider: its configuration and, once
// discovery has worked, the provider.
type sso struct {
	cfg  OIDC
	host string // the issuer's host, which the button names
	// discovering is held by the one discovery at a time.
	discovering chan struct{}
	mu          sync.Mutex
	provider    *oidc.Provider
}

func newSSO(cfg OIDC) *sso {
	host := cfg.Issuer
	if u, err := url.Parse(cfg.Issuer); err == nil {
		host = u.Host
	}
	return &sso{cfg: cfg, host: host, discovering: make(chan struct{}, 1)}
}

// providerContext is ctx carrying the HTTP client of the requests to
// the provider, with a timeout.
func providerContext(ctx context.Context) context.Context {
	return oidc.ClientContext(ctx, &http.Client{Timeout: oidcTimeout})
}

// discover returns the provider, asking its discovery document if no
// attempt has worked yet (one attempt at a time; a caller waits for the
// one under way, bounded by ctx).
func (o *sso) discover(ctx context.Context) (*oidc.Provider, error) {
	o.mu.Lock()
	p := o.provider
	o.mu.Unlock()
	if p != nil {
		return p, nil
	}
	select {
	case o.discovering <- struct{}{}:
		defer func() { <-o.discovering }()
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	o.mu.Lock()
	p = o.provider
	o.mu.Unlock()
	if p != nil {
		return p, nil
	}
	p, err := oidc.NewProvider(providerContext(ctx), o.cfg.Issuer)
	if err != nil {
		return nil, err
	}
	o.mu.Lock()
	o.provider = p
	o.mu.Unlock()
	return p, nil
}

// Discover asks the provider's discovery document, at start: a failure is
// logged as a warning, and the sign-in button tries again when pressed.
func (s *Server) Discover(ctx context.Context) {
	if s.sso == nil {
		return
	}
	if _, err := s.sso.discover(ctx); err != nil {
		s.log.Warn("OpenID Connect discovery failed; sign-in with the provider is unavailable until it works (it is tried again at each sign-in)",
			"issuer", s.sso.cfg.Issuer, "err", err)
	}
}

// oauth2Config is the flow's client configuration with p, redirecting to
// the console's URL (Config.URL).
func (s *Server) oauth2Config(p *oidc.Provider, base string) *oauth2.Config {
	return &oauth2.Config{ClientID: s.sso.cfg.ClientID, ClientSecret: s.sso.cfg.ClientSecret, Endpoint: p.Endpoint(),
		RedirectURL: base + OIDCCallbackPath, Scopes: []string{oidc.ScopeOpenID, "email"}}
}

// ssoView is the page that says sign-in with the provider is unavailable.
type ssoView struct {
	base
	Host   string
	Reason string
}

// unavailable answers 503 with the page saying why sign-in with the
// provider cannot start, and that password sign-in still works.
func (s *Server) unavailable(w http.ResponseWriter, r *http.Request, reason string) error {
	w.Header().Set("Retry-After", "60")
	return s.render(w, http.StatusServiceUnavailable, "sso", ssoView{base: s.newBase(r, "Sign-in unavailable"), Host: s.sso.host, Reason: reason})
}

// OIDCLogin starts the authorization-code flow: a new state, nonce and
// PKCE verifier in a short-lived cookie, and a redirect to the provider.
func (s *Server) OIDCLogin(w http.ResponseWriter, r *http.Request) error {
	htmlkit.Private(w)
	base := s.url()
	if base == "" {
		return s.unavailable(w, r, "statusd does not know the console's URL yet (serve --console-url, or the page's url).")
	}
	p, err := s.sso.discover(r.Context())
	if err != nil {
		s.log.Warn("OpenID Connect discovery failed", "issuer", s.sso.cfg.Issuer, "err", err)
		return s.unavailable(w, r, "statusd could not reach the provider's discovery document; it tries again at the next sign-in.")
	}
	state, _ := statusd.NewSecret()
	nonce, _ := statusd.NewSecret()
	verifier := oauth2.GenerateVerifier()
	http.SetCookie(w, s.flowCookie(state+"."+nonce+"."+verifier, int(oidcFlowTime/time.Second)))
	target := s.oauth2Config(p, base).AuthCodeURL(state, oidc.Nonce(nonce), oauth2.S256ChallengeOption(verifier))
	http.Redirect(w, r, target, http.StatusSeeOther)
	return nil
}

// flowCookie is the cookie of a flow with value; maxAge < 0 deletes it.
// SameSite=Lax: the provider's redirect back is a top-level GET, which
// carries it.
func (s *Server) flowCookie(value string, maxAge int) *http.Cookie {
	return &http.Cookie{Name: oidcCookie, Value: value, Path: OIDCCallbackPath, MaxAge: maxAge, HttpOnly: true,
		Secure: s.secure(), SameSite: http.SameSiteLaxMode}
}

// errNotStarted refuses a callback without the flow that this browser
// started: no cookie, or another state.
var errNotStarted = statusd.Errorf(statusd.EInvalidParameter,
	"This sign-in was not started from this browser, or took longer than 10 minutes. Please start again from the sign-in page.")

// OIDCCallback ends the flow: the state must be the cookie's, the code is
// exchanged (with the PKCE verifier) for an ID token that go-oidc
// verifies (signature, issuer, audience, expiry) and whose nonce must be
// the cookie's; the token's email, verified, signs in the user who has it.
// An unverified or unknown email gets the refusal of a wrong password.
func (s *Server) OIDCCallback(w http.ResponseWriter, r *http.Request) error {
	htmlkit.Private(w)
	http.SetCookie(w, s.flowCookie("", -1))
	c, err := r.Cookie(oidcCookie)
	if err != nil {
		return errNotStarted
	}
	parts := strings.Split(c.Value, ".")
	q := r.URL.Query()
	if len(parts) != 3 || subtle.ConstantTimeCompare([]byte(parts[0]), []byte(q.Get("state"))) != 1 {
		return errNotStarted
	}
	nonce, verifier := parts[1], parts[2]
	if e := q.Get("error"); e != "" {
		return s.refuseSSO(w, r, fmt.Sprintf("%s did not sign you in (%s). Please try again, or sign in with your password.", s.sso.host, e))
	}
	p, err := s.sso.discover(r.Context())
	if err != nil {
		return s.unavailable(w, r, "statusd could not reach the provider's discovery document; it tries again at the next sign-in.")
	}
	ctx := providerContext(r.Context())
	ctx = context.WithValue(ctx, oauth2.HTTPClient, &http.Client{Timeout: oidcTimeout})
	tok, err := s.oauth2Config(p, s.url()).Exchange(ctx, q.Get("code"), oauth2.VerifierOption(verifier))
	if err != nil {
		s.log.Warn("OpenID Connect: the code exchange failed", "issuer", s.sso.cfg.Issuer, "err", err)
		return s.refuseSSO(w, r, fmt.Sprintf("%s did not confirm the sign-in. Please try again.", s.sso.host))
	}
	raw, _ := tok.Extra("id_token").(string)
	id, err := p.Verifier(&oidc.Config{ClientID: s.sso.cfg.ClientID}).Verify(ctx, raw)
	if err == nil && subtle.ConstantTimeCompare([]byte(id.Nonce), []byte(nonce)) != 1 {
		err = errors.New("the ID token's nonce is not the one sent")
	}
	if err != nil {
		s.log.Warn("OpenID Connect: the ID token was refused", "issuer", s.sso.cfg.Issuer, "err", err)
		return s.refuseSSO(w, r, fmt.Sprintf("%s did not confirm the sign-in. Please try again.", s.sso.host))
	}
	u, err := s.ssoUser(r.Context(), id)
	if err != nil {
		return err
	}
	if u == nil {
		return s.render(w, http.StatusUnauthorized, "login", s.loginView(r, "", wrongLogin))
	}
	if err := s.startSession(w, r, u); err != nil {
		return err
	}
	http.Redirect(w, r, Root, http.StatusSeeOther)
	return nil
}

// refuseSSO answers 401 with the sign-in page and problem.
func (s *Server) refuseSSO(w http.ResponseWriter, r *http.Request, problem string) error {
	return s.render(w, http.StatusUnauthorized, "login", s.loginView(r, "", problem))
}

// ssoUser is the user whose email is the ID token's, if the provider says
// it is verified (email_verified true, or "true" as some providers send
// it); nil otherwise. A user without a password yet (pending, or reset)
// is one too: the provider proved who it is, and its setup link is left
// as it is; a removed user is no user (docs/CONSOLE.md).
func (s *Server) ssoUser(ctx context.Context, id *oidc.IDToken) (*statusd.User, error) {
	var claims struct {
		Email    string          `json:"email"`
		Verified json.RawMessage `json:"email_verified"`
	}
	if err := id.Claims(&claims); err != nil {
		return nil, nil
	}
	if v := string(claims.Verified); v != "true" && v != `"true"` {
		return nil, nil
	}
	email, err := statusd.NormalizeEmail(claims.Email)
	if err != nil {
		return nil, nil
	}
	return s.users.ByEmail(ctx, email)
}
