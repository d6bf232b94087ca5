package main

// A minimal OpenID Connect provider, started in the test, for the
// console's sign-in (issue 27 item 6). Discovery and the JWKS are go-oidc's
// own test server (oidctest); this file adds what a real provider does
// around them: the authorization endpoint with a login form, and the token
// endpoint, which checks the client's secret, the code (once), the
// redirect URI and the PKCE verifier, and answers an RS256 ID token with
// the nonce and the email the form gave. It was chosen over zitadel's
// example server for its weight (zitadel pulls a router, a schema library
// and its own storage into go.mod) and because a test must set the
// email_verified claim, which the example's fixed users do not let it.

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"html"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	"github.com/coreos/go-oidc/v3/oidc/oidctest"
)

// testProvider is the provider: its URL is the issuer.
type testProvider struct {
	URL              string
	clientID, secret string
	key              *rsa.PrivateKey
	// down makes discovery and the keys answer 503.
	down atomic.Bool
	mu   sync.Mutex
	// grants are the codes given and not yet exchanged.
	grants map[string]grant
	// redirects are the redirect URIs the authorization requests named.
	redirects []string
}

// grant is what a code stands for.
type grant struct {
	redirectURI, challenge, nonce, email string
	verified                             bool
}

func startProvider(t *testing.T) *testProvider {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	p := &testProvider{clientID: "statusd-console", secret: "s3cret-of-the-client", key: key, grants: map[string]grant{}}
	keys := &oidctest.Server{PublicKeys: []oidctest.PublicKey{{PublicKey: key.Public(), KeyID: "k1", Algorithm: oidc.RS256}}}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /auth", p.authForm)
	mux.HandleFunc("POST /auth", p.authorize)
	mux.HandleFunc("POST /token", p.token)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if p.down.Load() {
			http.Error(w, "down", http.StatusServiceUnavailable)
			return
		}
		keys.ServeHTTP(w, r)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	p.URL = srv.URL
	keys.SetIssuer(srv.URL)
	return p
}

// authForm is the provider's login page: the request's parameters checked
// and carried in hidden fields, and the person's email and whether it is
// verified to fill in.
func (p *testProvider) authForm(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	if q.Get("response_type") != "code" || q.Get("client_id") != p.clientID || q.Get("code_challenge_method") != "S256" ||
		q.Get("code_challenge") == "" || q.Get("state") == "" || q.Get("nonce") == "" || !strings.Contains(q.Get("scope"), "openid") ||
		!strings.Contains(q.Get("scope"), "email") {
		http.Error(w, "a bad authorization request: "+r.URL.RawQuery, http.StatusBadRequest)
		return
	}
	p.mu.Lock()
	p.redirects = append(p.redirects, q.Get("redirect_uri"))
	p.mu.Unlock()
	var b strings.Builder
	b.WriteString(`<form method="post" action="/auth">`)
	for _, k := range []string{"redirect_uri", "state", "nonce", "code_challenge"} {
		fmt.Fprintf(&b, `<input type="hidden" name="%s" value="%s">`, k, html.EscapeString(q.Get(k)))
	}
	b.WriteString(`<input name="email"><input type="checkbox" name="email_verified" value="true"><button>Sign in</button></form>`)
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Write([]byte(b.String()))
}

// authorize is the login form's POST: a code, and the browser sent back.
func (p *testProvider) authorize(w http.ResponseWriter, r *http.Request) {
	r.ParseForm()
	f := r.PostForm
	code := rand.Text()
	p.mu.Lock()
	p.grants[code] = grant{redirectURI: f.Get("redirect_uri"), challenge: f.Get("code_challenge"), nonce: f.Get("nonce"),
		email: f.Get("email"), verified: f.Get("email_verified") == "true"}
	p.mu.Unlock()
	http.Redirect(w, r, f.Get("redirect_uri")+"?code="+code+"&state="+f.Get("state"), http.StatusSeeOther)
}

// token exchanges a code for an ID token, once, for the client with its
// secret, the same redirect URI and the PKCE verifier of the challenge.
func (p *testProvider) token(w http.ResponseWriter, r *http.Request) {
	r.ParseForm()
	f := r.PostForm
	id, secret, ok := r.BasicAuth()
	if !ok {
		id, secret = f.Get("client_id"), f.Get("client_secret")
	}
	p.mu.Lock()
	g, known := p.grants[f.Get("code")]
	delete(p.grants, f.Get("code"))
	p.mu.Unlock()
	sum := sha256.Sum256([]byte(f.Get("code_verifier")))
	w.Header().Set("Content-Type", "application/json")
	switch {
	case id != p.clientID || secret != p.secret:
		w.WriteHeader(http.StatusUnauthorized)
		w.Write([]byte(`{"error":"invalid_client"}`))
		return
	case f.Get("grant_type") != "authorization_code" || !known || g.redirectURI != f.Get("redirect_uri") ||
		base64.RawURLEncoding.EncodeToString(sum[:]) != g.challenge:
		w.WriteHeader(http.StatusBadRequest)
		w.Write([]byte(`{"error":"invalid_grant"}`))
		return
	}
	claims, _ := json.Marshal(map[string]any{"iss": p.URL, "aud": p.clientID, "sub": "u-" + g.email,
		"iat": time.Now().Unix(), "exp": time.Now().Add(5 * time.Minute).Unix(), "nonce": g.nonce,
		"email": g.email, "email_verified": g.verified})
	json.NewEncoder(w).Encode(map[string]any{"access_token": rand.Text(), "token_type": "Bearer", "expires_in": 300,
		"id_token": oidctest.SignIDToken(p.key, "k1", oidc.RS256, string(claims))})
}
