package console

// Sign-in with OpenID Connect (CONTRACT C8, serve --oidc-issuer): the
// authorization-code flow with state, nonce and PKCE, whose verified email
// claim picks an existing user.

import (
	"cmp"
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
	// TrustEmail takes the ID token's email as verified when the token
	// has no email_verified claim (--oidc-trust-email), for a provider
	// that verifies every email and does not say so (Microsoft Entra ID).
	// An email_verified false is refused all the same.
	TrustEmail bool
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
	// oidcCookie, then "_" and the first 16 characters of a flow's state,
	// names the cookie that holds that flow's state, nonce and PKCE
	// verifier, for oidcFlowTime, on the callback's path only: one cookie
	// a flow, so that a sign-in started again in the same browser leaves
	// the first one working.
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

// Discover logs the redirect URI to register at the provider and asks the
// provider's discovery document, at start: a failure is logged as a
// warning saying what failed, and the sign-in button tries again when
// pressed.
func (s *Server) Discover(ctx context.Context) {
	if s.sso == nil {
		return
	}
	s.log.Info("OpenID Connect sign-in: register this redirect URI at the provider", "issuer", s.sso.cfg.Issuer,
		"redirect_uri", cmp.Or(s.url(), "<console URL>")+OIDCCallbackPath)
	if _, err := s.sso.discover(ctx); err != nil {
		s.log.Warn("OpenID Connect discovery failed; sign-in with the provider is unavailable until it works (it is tried again at each sign-in)",
			"issuer", s.sso.cfg.Issuer, "problem", discoveryProblem(s.sso.cfg.Issuer, err), "err", err)
	}
}

// discoveryProblem says what failed in a discovery of issuer.
func discoveryProblem(issuer string, err error) string {
	var mismatch *oidc.IssuerMismatchError
	var netErr *url.Error
	switch {
	case errors.As(err, &mismatch):
		return fmt.Sprintf("the provider's discovery document names the issuer %q, not %q: --oidc-issuer must be written exactly as the provider writes it, trailing slash included",
			mismatch.Discovered, mismatch.Provided)
	case errors.As(err, &netErr):
		return fmt.Sprintf("statusd could not reach %s/.well-known/openid-configuration (%v)", strings.TrimSuffix(issuer, "/"), netErr.Err)
	}
	return fmt.Sprintf("%s/.well-known/openid-configuration did not answer a discovery document: %v", strings.TrimSuffix(issuer, "/"), err)
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
		problem := discoveryProblem(s.sso.cfg.Issuer, err)
		s.log.Warn("OpenID Connect discovery failed", "issuer", s.sso.cfg.Issuer, "problem", problem, "err", err)
		return s.unavailable(w, r, "statusd could not read the provider's discovery document ("+problem+"); it tries again at the next sign-in.")
	}
	state, _ := statusd.NewSecret()
	nonce, _ := statusd.NewSecret()
	verifier := oauth2.GenerateVerifier()
	http.SetCookie(w, s.flowCookie(state, state+"."+nonce+"."+verifier, int(oidcFlowTime/time.Second)))
	target := s.oauth2Config(p, base).AuthCodeURL(state, oidc.Nonce(nonce), oauth2.S256ChallengeOption(verifier))
	http.Redirect(w, r, target, http.StatusSeeOther)
	return nil
}

// flowCookie is the cookie of the flow of state with value; maxAge < 0
// deletes it. SameSite=Lax: the provider's redirect back is a top-level
// GET, which carries it.
func (s *Server) flowCookie(state, value string, maxAge int) *http.Cookie {
	return &http.Cookie{Name: flowCookieName(state), Value: value, Path: OIDCCallbackPath, MaxAge: maxAge, HttpOnly: true,
		Secure: s.secure(), SameSite: http.SameSiteLaxMode}
}

// flowCookieName is the name of the cookie of the flow of state; "" when
// state cannot be one (a state is 43 URL-safe characters).
func flowCookieName(state string) string {
	if len(state) < 16 || strings.Trim(state[:16], "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_") != "" {
		return ""
	}
	return oidcCookie + "_" + state[:16]
}

// errNotStarted refuses a callback without the flow that this browser
// started: no cookie, or another state.
var errNotStarted = statusd.Errorf(statusd.EInvalidParameter,
	"This sign-in was not started from this browser, or took longer than 10 minutes. Please start again from the sign-in page.")

// OIDCCallback ends the flow: the state must be that of a flow this
// browser started (its cookie), the code is exchanged (with the PKCE
// verifier) for an ID token that go-oidc verifies (signature, issuer,
// audience, expiry) and whose nonce must be the cookie's; the token's
// email, verified, signs in the user who has it. Each refusal says why
// (ssoUser), and is logged.
func (s *Server) OIDCCallback(w http.ResponseWriter, r *http.Request) error {
	htmlkit.Private(w)
	q := r.URL.Query()
	name := flowCookieName(q.Get("state"))
	c, err := r.Cookie(name)
	if name == "" || err != nil {
		return errNotStarted
	}
	http.SetCookie(w, s.flowCookie(q.Get("state"), "", -1))
	parts := strings.Split(c.Value, ".")
	if len(parts) != 3 || subtle.ConstantTimeCompare([]byte(parts[0]), []byte(q.Get("state"))) != 1 {
		return errNotStarted
	}
	nonce, verifier := parts[1], parts[2]
	if e := q.Get("error"); e != "" {
		return s.refuseSSO(w, r, fmt.Sprintf("%s did not sign you in (%s). Please try again, or sign in with your password.", s.sso.host, e))
	}
	p, err := s.sso.discover(r.Context())
	if err != nil {
		return s.unavailable(w, r, "statusd could not read the provider's discovery document ("+discoveryProblem(s.sso.cfg.Issuer, err)+
			"); it tries again at the next sign-in.")
	}
	ctx := providerContext(r.Context())
	ctx = context.WithValue(ctx, oauth2.HTTPClient, &http.Client{Timeout: oidcTimeout})
	tok, err := s.oauth2Config(p, s.url()).Exchange(ctx, q.Get("code"), oauth2.VerifierOption(verifier))
	if code, ok := clientRefused(err); ok {
		s.log.Error("OpenID Connect: the provider refused statusd's client id or secret; check --oidc-client-id and --oidc-client-secret",
			"issuer", s.sso.cfg.Issuer, "client_id", s.sso.cfg.ClientID, "error", code)
		return s.unavailable(w, r, "Sign-in with the provider is misconfigured; tell an owner.")
	}
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
	u, refusal, err := s.ssoUser(r.Context(), id)
	if err != nil {
		return err
	}
	if u == nil {
		s.log.Warn("OpenID Connect: sign-in refused", "reason", refusal.reason, "email", refusal.email)
		return s.refuseSSO(w, r, refusal.problem)
	}
	if err := s.startSession(w, r, u); err != nil {
		return err
	}
	http.Redirect(w, r, Root, http.StatusSeeOther)
	return nil
}

// clientRefused reports whether err is the token endpoint's refusal of
// statusd's client (invalid_client, unauthorized_client, or 401: a wrong
// client id or secret), with the provider's error code.
func clientRefused(err error) (code string, ok bool) {
	var refused *oauth2.RetrieveError
	if !errors.As(err, &refused) {
		return "", false
	}
	status := 0
	if refused.Response != nil {
		status = refused.Response.StatusCode
	}
	return refused.ErrorCode, refused.ErrorCode == "invalid_client" || refused.ErrorCode == "unauthorized_client" ||
		status == http.StatusUnauthorized
}

// refuseSSO answers 401 with the sign-in page and problem.
func (s *Server) refuseSSO(w http.ResponseWriter, r *http.Request, problem string) error {
	return s.render(w, http.StatusUnauthorized, "login", s.loginView(r, "", problem))
}

// ssoRefusal is why an ID token signs nobody in: for the log, the reason
// and the email (no secret); for the person, the problem.
type ssoRefusal struct {
	reason, email, problem string
}

// The problems shown to a person the provider signed in but statusd
// does not.
const (
	ssoNoEmail    = "The provider did not send an email address. Please sign in with your password, or tell an owner."
	ssoUnverified = "The provider has not verified this email."
	ssoNoAccount  = "No statusd account for this email; ask an owner to add you."
)

// ssoUser is the user whose email is the ID token's, if the provider says
// it is verified (email_verified true, or "true" as some providers send
// it; or no such claim at all with OIDC.TrustEmail); else nil and why. A
// user without a password yet (pending, or reset) is one too: the
// provider proved who it is, and its setup link is left as it is; a
// removed user is no user (docs/CONSOLE.md).
func (s *Server) ssoUser(ctx context.Context, id *oidc.IDToken) (*statusd.User, ssoRefusal, error) {
	var claims struct {
		Email    string          `json:"email"`
		Verified json.RawMessage `json:"email_verified"`
	}
	if err := id.Claims(&claims); err != nil {
		return nil, ssoRefusal{reason: "the ID token's claims could not be read: " + err.Error(), problem: ssoNoEmail}, nil
	}
	email, err := statusd.NormalizeEmail(claims.Email)
	if err != nil {
		return nil, ssoRefusal{reason: "no email claim, or not an email address", email: claims.Email, problem: ssoNoEmail}, nil
	}
	switch v := string(claims.Verified); {
	case v == "true" || v == `"true"`:
	case v == "" && s.sso.cfg.TrustEmail:
	case v == "":
		return nil, ssoRefusal{reason: "the ID token has no email_verified claim; if the provider verifies every email (Microsoft Entra ID), start serve with --oidc-trust-email",
			email: email, problem: ssoUnverified}, nil
	default:
		return nil, ssoRefusal{reason: "email_verified is " + v, email: email, problem: ssoUnverified}, nil
	}
	u, err := s.users.ByEmail(ctx, email)
	if err != nil || u != nil {
		return u, ssoRefusal{}, err
	}
	return nil, ssoRefusal{reason: "no statusd account has this email", email: email, problem: ssoNoAccount}, nil
}
