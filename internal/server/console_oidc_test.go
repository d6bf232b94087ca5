package server_test

import (
	"cmp"
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	"github.com/coreos/go-oidc/v3/oidc/oidctest"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/internal/console"
	"github.com/statusd/statusd/internal/testserver"
)

// The console's sign-in with OpenID Connect, against a
// provider started in the test (testProvider, below), and where the
// console is reached (--console-url).

// ssoBrowser is a person's browser: it keeps cookies and follows
// redirects, and reaches the console at http://console.test (the
// --console-url of the test), which is the admin listener.
func ssoBrowser(t *testing.T, adminURL string) *http.Client {
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	admin := strings.TrimPrefix(adminURL, "http://")
	tr := &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		if addr == "console.test:80" {
			addr = admin
		}
		return (&net.Dialer{}).DialContext(ctx, network, addr)
	}}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Jar: jar, Transport: tr, Timeout: 20 * time.Second}
}

// landing is a browser's answer after the redirects: where it ended.
type landing struct {
	status int
	url    string
	body   string
}

func browse(t *testing.T, c *http.Client, method, target string, form url.Values) landing {
	t.Helper()
	var res *http.Response
	var err error
	if form != nil {
		res, err = c.PostForm(target, form)
	} else {
		res, err = c.Get(target)
	}
	if err != nil {
		t.Fatalf("%s %s: %v", method, target, err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return landing{res.StatusCode, res.Request.URL.String(), string(b)}
}

var hiddenField = regexp.MustCompile(`<input type="hidden" name="([a-z_]+)" value="([^"]*)">`)

// ssoSignIn presses "Sign in with" on the console, and submits the
// provider's login form with email (verified or not) and the fields that
// the provider put in it, changed by tamper; it returns where the browser
// ended.
func ssoSignIn(t *testing.T, c *http.Client, prov *testProvider, email string, verified bool, tamper func(url.Values)) landing {
	t.Helper()
	fields := ssoStart(t, c, prov)
	fields.Set("email", email)
	if verified {
		fields.Set("email_verified", "true")
	}
	if tamper != nil {
		tamper(fields)
	}
	return browse(t, c, "POST", prov.URL+"/auth", fields)
}

// ssoStart presses "Sign in with" on the console and returns the fields
// that the provider put in its login form.
func ssoStart(t *testing.T, c *http.Client, prov *testProvider) url.Values {
	t.Helper()
	form := browse(t, c, "GET", "http://console.test/manage/oidc/login", nil)
	if form.status != 200 || !strings.HasPrefix(form.url, prov.URL+"/auth?") {
		t.Fatalf("the button: %d at %s, want the provider's login form\n%s", form.status, form.url, form.body)
	}
	fields := url.Values{}
	for _, m := range hiddenField.FindAllStringSubmatch(form.body, -1) {
		fields.Set(m[1], strings.ReplaceAll(m[2], "&amp;", "&"))
	}
	return fields
}

func TestConsoleOIDC(t *testing.T) {
	prov := startProvider(t)
	prov.setDown(true)
	srv := startServer(t, consoleDoc(time.Now().UTC()), options{adminListener: true, consoleURL: "http://console.test",
		oidc: &console.OIDC{Issuer: prov.URL, ClientID: prov.clientID, ClientSecret: prov.secret}})
	adm := srv.Admin(newToken(t, srv.DB, "alice"))
	ctx := context.Background()
	pat, err := adm.CreateUser(ctx, statusd.AdminUserRequest{Email: new("pat@example.com"), Role: new("publisher")})
	testserver.NoErr(t, "CreateUser", err)
	host := strings.TrimPrefix(prov.URL, "http://")

	testserver.Step(t, "discovery fails at start: serve starts, warns, and the button says sign-in with the provider is unavailable", func(t *testing.T) {
		testserver.WaitLog(t, srv.Logs, "OpenID Connect discovery failed", prov.URL)
		c := ssoBrowser(t, srv.AdminURL)
		p := browse(t, c, "GET", "http://console.test/manage/login", nil)
		if p.status != 200 || !strings.Contains(p.body, `<a class="sso" href="/manage/oidc/login">Sign in with `+host+`</a>`) {
			t.Errorf("the sign-in page: %d, want the button naming %s\n%s", p.status, host, p.body)
		}
		p = browse(t, c, "GET", "http://console.test/manage/oidc/login", nil)
		if p.status != 503 || !strings.Contains(p.body, "Sign-in with "+host+" is unavailable") ||
			!strings.Contains(p.body, "tries again at the next sign-in") {
			t.Errorf("the button with the provider down: %d\n%s", p.status, p.body)
		}
	})

	prov.setDown(false)
	testserver.Step(t, "once the provider answers, its verified email signs in the user who has it, in any case", func(t *testing.T) {
		c := ssoBrowser(t, srv.AdminURL)
		p := ssoSignIn(t, c, prov, "PAT@Example.COM", true, nil)
		if p.status != 200 || p.url != "http://console.test/manage" || !strings.Contains(p.body, "pat@example.com (publisher)") {
			t.Fatalf("after the provider: %d at %s, want home, signed in as pat@example.com (publisher)\n%s", p.status, p.url, p.body)
		}
		prov.mu.Lock()
		redirects := prov.redirects
		prov.mu.Unlock()
		if len(redirects) != 1 || redirects[0] != "http://console.test/manage/oidc/callback" {
			t.Errorf("redirect URIs %q, want http://console.test/manage/oidc/callback", redirects)
		}
		// The session is a password sign-in's: the cookie statusd_session,
		// which sign-out ends; the flow's cookie is gone.
		u, _ := url.Parse("http://console.test/manage/oidc/callback")
		names := []string{}
		for _, ck := range c.Jar.Cookies(u) {
			names = append(names, ck.Name)
		}
		if strings.Join(names, " ") != "statusd_session" {
			t.Errorf("cookies after sign-in %v, want statusd_session alone", names)
		}
		p = browse(t, c, "POST", "http://console.test/manage/logout", url.Values{})
		if p.url != "http://console.test/manage/login" {
			t.Errorf("sign-out ended at %s", p.url)
		}
		if p = browse(t, c, "GET", "http://console.test/manage", nil); p.url != "http://console.test/manage/login" {
			t.Errorf("home after sign-out: at %s, want the sign-in page", p.url)
		}
	})

	testserver.Step(t, "an unverified email, one the provider does not say is verified and an unknown one are each refused, saying why, logged; no account", func(t *testing.T) {
		for _, tc := range []struct {
			what, email, verified, problem, logged string
		}{
			{"an unverified email", "pat@example.com", "false", "The provider has not verified this email.",
				`reason="email_verified is false" email=pat@example.com`},
			{"no email_verified claim", "pat@example.com", "absent", "The provider has not verified this email.",
				`--oidc-trust-email" email=pat@example.com`},
			{"an unknown email", "zed@example.com", "true", "No statusd account for this email; ask an owner to add you.",
				`reason="no statusd account has this email" email=zed@example.com`},
		} {
			p := ssoSignIn(t, ssoBrowser(t, srv.AdminURL), prov, tc.email, false, func(f url.Values) { f.Set("email_verified", tc.verified) })
			if p.status != 401 || !strings.Contains(p.body, html.EscapeString(tc.problem)) || strings.Contains(p.body, "The email or the password is not right.") {
				t.Errorf("%s: %d, want 401 saying %q\n%s", tc.what, p.status, tc.problem, p.body)
			}
			testserver.WaitLog(t, srv.Logs, "OpenID Connect: sign-in refused", tc.logged)
		}
		users, err := adm.Users(ctx)
		testserver.NoErr(t, "Users", err)
		if len(users) != 1 {
			t.Errorf("users %+v: want pat alone", users)
		}
	})

	testserver.Step(t, "a wrong state, or a callback this browser did not start, is refused", func(t *testing.T) {
		c := ssoBrowser(t, srv.AdminURL)
		p := ssoSignIn(t, c, prov, "pat@example.com", true, func(f url.Values) { f.Set("state", "forged") })
		if p.status != 400 || !strings.Contains(p.body, "not started from this browser") {
			t.Errorf("a wrong state: %d at %s\n%s", p.status, p.url, p.body)
		}
		if p = browse(t, c, "GET", "http://console.test/manage", nil); p.url != "http://console.test/manage/login" {
			t.Errorf("home after a wrong state: at %s, want the sign-in page", p.url)
		}
		// A provider's token for another nonce, or a code whose PKCE
		// challenge is not the flow's, signs nobody in.
		for _, field := range []string{"nonce", "code_challenge"} {
			c := ssoBrowser(t, srv.AdminURL)
			p := ssoSignIn(t, c, prov, "pat@example.com", true, func(f url.Values) { f.Set(field, "Xq9TcFh0dCkuJuO0sC8D9fB7n6QkzmB2dBqyEw0iGks") })
			if p.status != 401 || !strings.Contains(p.body, "did not confirm the sign-in") {
				t.Errorf("another %s: %d at %s\n%s", field, p.status, p.url, p.body)
			}
		}
		// A code and state that reach another browser: it has no flow.
		started := ssoBrowser(t, srv.AdminURL)
		var callback string
		started.CheckRedirect = func(req *http.Request, via []*http.Request) error {
			if req.URL.Path == "/manage/oidc/callback" {
				callback = req.URL.String()
				return http.ErrUseLastResponse
			}
			return nil
		}
		ssoSignIn(t, started, prov, "pat@example.com", true, nil)
		if !strings.HasPrefix(callback, "http://console.test/manage/oidc/callback?code=") {
			t.Fatalf("the provider sent the browser to %q", callback)
		}
		p = browse(t, ssoBrowser(t, srv.AdminURL), "GET", callback, nil)
		if p.status != 400 || !strings.Contains(p.body, "not started from this browser") {
			t.Errorf("another browser's callback: %d\n%s", p.status, p.body)
		}
	})

	// An account without a password (pending, or reset) signs in with the
	// provider, whose verified email proves who it is, and its setup link
	// stays valid; a removed account is unknown (docs/CONSOLE.md).
	verified := func(t *testing.T, c *http.Client, email string) landing {
		t.Helper()
		return ssoSignIn(t, c, prov, email, true, nil)
	}
	signedInAs := func(p landing, who string) bool {
		return p.status == 200 && p.url == "http://console.test/manage" && strings.Contains(p.body, who)
	}
	stateOf := func(t *testing.T, email string) string {
		t.Helper()
		users, err := adm.Users(ctx)
		testserver.NoErr(t, "Users", err)
		for _, u := range users {
			if u.Email == email {
				return u.State
			}
		}
		return "removed"
	}
	setUp := func(t *testing.T, link string) screen {
		t.Helper()
		u, err := url.Parse(link)
		testserver.NoErr(t, "the setup link "+link, err)
		tok := u.Query().Get("token")
		return newBrowser(t, srv.AdminURL).do("POST", "/manage/setup", url.Values{"token": {tok}, "password": {goodPassword}, "password2": {goodPassword}})
	}
	passwordSignIn := func(t *testing.T, email string) screen {
		t.Helper()
		return newBrowser(t, srv.AdminURL).do("POST", "/manage/login", url.Values{"email": {email}, "password": {goodPassword}})
	}

	testserver.Step(t, "a pending account signs in with the provider; its setup link still sets a password", func(t *testing.T) {
		if st := stateOf(t, "pat@example.com"); st != "pending" {
			t.Fatalf("pat is %s, want pending (no password yet)", st)
		}
		if p := verified(t, ssoBrowser(t, srv.AdminURL), "pat@example.com"); !signedInAs(p, "pat@example.com (publisher)") {
			t.Errorf("pending pat with the provider: %d at %s, want home\n%s", p.status, p.url, p.body)
		}
		if st := stateOf(t, "pat@example.com"); st != "pending" {
			t.Errorf("pat is %s after signing in with the provider, want still pending", st)
		}
		setUp(t, pat.SetupURL).want(t, "pat's setup link after the provider's sign-in", 303, "/manage")
		passwordSignIn(t, "pat@example.com").want(t, "pat's password", 303, "/manage")
	})

	var val *statusd.AdminUser
	testserver.Step(t, "after a reset, the provider signs the account in; the password does not, until the new link sets one", func(t *testing.T) {
		var err error
		val, err = adm.CreateUser(ctx, statusd.AdminUserRequest{Email: new("val@example.com"), Role: new("viewer")})
		testserver.NoErr(t, "CreateUser val", err)
		setUp(t, val.SetupURL).want(t, "val's setup", 303, "/manage")
		reset, err := adm.ResetUser(ctx, val.ID)
		testserver.NoErr(t, "ResetUser val", err)
		if p := passwordSignIn(t, "val@example.com"); p.status != 401 {
			t.Errorf("val's old password after the reset: %d, want 401", p.status)
		}
		if p := verified(t, ssoBrowser(t, srv.AdminURL), "VAL@example.com"); !signedInAs(p, "val@example.com (viewer)") {
			t.Errorf("reset val with the provider: %d at %s, want home\n%s", p.status, p.url, p.body)
		}
		setUp(t, reset.SetupURL).want(t, "val's new setup link after the provider's sign-in", 303, "/manage")
		passwordSignIn(t, "val@example.com").want(t, "val's new password", 303, "/manage")
	})

	testserver.Step(t, "a removed account cannot sign in with the provider: the refusal of an unknown one; its session ends", func(t *testing.T) {
		c := ssoBrowser(t, srv.AdminURL)
		if p := verified(t, c, "val@example.com"); !signedInAs(p, "val@example.com (viewer)") {
			t.Fatalf("val with the provider: %d at %s", p.status, p.url)
		}
		testserver.NoErr(t, "DeleteUser val", adm.DeleteUser(ctx, val.ID))
		if p := browse(t, c, "GET", "http://console.test/manage", nil); p.url != "http://console.test/manage/login" {
			t.Errorf("val's session after the removal: at %s, want the sign-in page", p.url)
		}
		removed := verified(t, ssoBrowser(t, srv.AdminURL), "val@example.com")
		unknown := verified(t, ssoBrowser(t, srv.AdminURL), "zed@example.com")
		if removed.status != 401 || strings.Replace(removed.body, "val@", "zed@", -1) != unknown.body ||
			!strings.Contains(removed.body, "No statusd account for this email; ask an owner to add you.") {
			t.Errorf("removed val with the provider: %d at %s, want the unknown email's 401\n%s", removed.status, removed.url, removed.body)
		}
		if st := stateOf(t, "val@example.com"); st != "removed" {
			t.Errorf("val is %s after the provider's refusal, want removed (no account made)", st)
		}
	})

	if strings.Contains(srv.Logs.String(), prov.secret) {
		t.Errorf("the client secret is in the logs:\n%s", srv.Logs)
	}
}

// testProvider is a minimal OpenID Connect provider started in the test,
// whose URL is the issuer. Discovery and the JWKS are go-oidc's own test
// server (oidctest); around them it does what a real provider does: the
// authorization endpoint with a login form, and the token endpoint, which
// checks the client's secret, the code (once), the redirect URI and the
// PKCE verifier, and answers an RS256 ID token with the nonce and the
// email the form gave. It was chosen over zitadel's example server for
// its weight (zitadel pulls a router, a schema library and its storage
// into go.mod) and because a test must set the email_verified claim,
// which the example's fixed users do not let it.
type testProvider struct {
	URL              string
	clientID, secret string
	key              *rsa.PrivateKey
	mu               sync.Mutex
	// down makes discovery and the keys answer 503.
	down bool
	// grants are the codes given and not yet exchanged.
	grants map[string]grant
	// secretWanted, when set, is the client secret the token endpoint
	// takes instead of secret (a provider whose secret was changed).
	secretWanted string
	// redirects are the redirect URIs the authorization requests named.
	redirects []string
}

// grant is what a code stands for.
type grant struct {
	redirectURI, challenge, nonce, email string
	// verified is the form's email_verified: "true", "false" or "" (the
	// claim false), or "absent" (no claim, as Microsoft Entra ID).
	verified string
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
		if p.isDown() {
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

// setDown makes the provider's discovery and keys fail, or work again.
func (p *testProvider) setDown(down bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.down = down
}

func (p *testProvider) isDown() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.down
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
		email: f.Get("email"), verified: f.Get("email_verified")}
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
	wanted := cmp.Or(p.secretWanted, p.secret)
	p.mu.Unlock()
	sum := sha256.Sum256([]byte(f.Get("code_verifier")))
	w.Header().Set("Content-Type", "application/json")
	switch {
	case id != p.clientID || secret != wanted:
		w.WriteHeader(http.StatusUnauthorized)
		w.Write([]byte(`{"error":"invalid_client"}`))
		return
	case f.Get("grant_type") != "authorization_code" || !known || g.redirectURI != f.Get("redirect_uri") ||
		base64.RawURLEncoding.EncodeToString(sum[:]) != g.challenge:
		w.WriteHeader(http.StatusBadRequest)
		w.Write([]byte(`{"error":"invalid_grant"}`))
		return
	}
	fields := map[string]any{"iss": p.URL, "aud": p.clientID, "sub": "u-" + g.email,
		"iat": time.Now().Unix(), "exp": time.Now().Add(5 * time.Minute).Unix(), "nonce": g.nonce,
		"email": g.email, "email_verified": g.verified == "true"}
	if g.verified == "absent" {
		delete(fields, "email_verified")
	}
	claims, _ := json.Marshal(fields)
	json.NewEncoder(w).Encode(map[string]any{"access_token": rand.Text(), "token_type": "Bearer", "expires_in": 300,
		"id_token": oidctest.SignIDToken(p.key, "k1", oidc.RS256, string(claims))})
}
