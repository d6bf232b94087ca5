package server_test

import (
	"context"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/internal/console"
	"github.com/statusd/statusd/internal/testserver"
)

// What an operator of sign-in with OpenID Connect is told, against the
// provider of console_oidc_test.go: the redirect URI to register, a
// discovery or a client secret that fails, a provider that sends no
// email_verified claim (--oidc-trust-email); and two sign-ins started in
// one browser.

// oidcServer serves the console at http://console.test with sign-in at
// prov as cfg changes it, and a publisher pat@example.com.
func oidcServer(t *testing.T, prov *testProvider, change func(*console.OIDC)) *testserver.Server {
	t.Helper()
	cfg := console.OIDC{Issuer: prov.URL, ClientID: prov.clientID, ClientSecret: prov.secret}
	if change != nil {
		change(&cfg)
	}
	srv := startServer(t, consoleDoc(time.Now().UTC()), options{adminListener: true, consoleURL: "http://console.test", oidc: &cfg})
	_, err := srv.Admin(newToken(t, srv.DB, "alice")).CreateUser(context.Background(),
		statusd.AdminUserRequest{Email: new("pat@example.com"), Role: new("publisher")})
	testserver.NoErr(t, "CreateUser", err)
	return srv
}

func TestConsoleOIDCOperator(t *testing.T) {
	prov := startProvider(t)

	testserver.Step(t, "start-up logs the redirect URI to register", func(t *testing.T) {
		srv := oidcServer(t, prov, nil)
		testserver.WaitLog(t, srv.Logs, "register this redirect URI at the provider", "redirect_uri=http://console.test/manage/oidc/callback")
	})

	testserver.Step(t, "an issuer written with a trailing slash the provider does not write: discovery says so", func(t *testing.T) {
		srv := oidcServer(t, prov, func(c *console.OIDC) { c.Issuer += "/" })
		testserver.WaitLog(t, srv.Logs, "OpenID Connect discovery failed", "names the issuer", "trailing slash included")
		p := browse(t, ssoBrowser(t, srv.AdminURL), "GET", "http://console.test/manage/oidc/login", nil)
		if p.status != 503 || !strings.Contains(p.body, "trailing slash included") {
			t.Errorf("the button: %d, want 503 saying the issuer does not match\n%s", p.status, p.body)
		}
	})

	testserver.Step(t, "a wrong client secret: the log tells the operator, the person to tell an owner", func(t *testing.T) {
		srv := oidcServer(t, prov, func(c *console.OIDC) { c.ClientSecret = "not-the-secret" })
		p := ssoSignIn(t, ssoBrowser(t, srv.AdminURL), prov, "pat@example.com", true, nil)
		if p.status != 503 || !strings.Contains(p.body, "Sign-in with the provider is misconfigured; tell an owner.") ||
			strings.Contains(p.body, "Please try again.") {
			t.Errorf("a wrong secret: %d, want 503 saying to tell an owner\n%s", p.status, p.body)
		}
		testserver.WaitLog(t, srv.Logs, "refused statusd's client id or secret", "--oidc-client-secret", "error=invalid_client")
		if strings.Contains(srv.Logs.String(), "not-the-secret") {
			t.Errorf("the secret is logged:\n%s", srv.Logs)
		}
	})

	testserver.Step(t, "with --oidc-trust-email a token without email_verified signs in; email_verified false does not", func(t *testing.T) {
		srv := oidcServer(t, prov, func(c *console.OIDC) { c.TrustEmail = true })
		absent := func(f url.Values) { f.Set("email_verified", "absent") }
		p := ssoSignIn(t, ssoBrowser(t, srv.AdminURL), prov, "pat@example.com", false, absent)
		if p.status != 200 || p.url != "http://console.test/manage" || !strings.Contains(p.body, "pat@example.com (publisher)") {
			t.Errorf("no email_verified, trusted: %d at %s, want home\n%s", p.status, p.url, p.body)
		}
		p = ssoSignIn(t, ssoBrowser(t, srv.AdminURL), prov, "pat@example.com", false, nil)
		if p.status != 401 || !strings.Contains(p.body, "The provider has not verified this email.") {
			t.Errorf("email_verified false, trusted: %d, want 401\n%s", p.status, p.body)
		}
	})

	testserver.Step(t, "two sign-ins started in one browser: the first one still works, then the second", func(t *testing.T) {
		srv := oidcServer(t, prov, nil)
		c := ssoBrowser(t, srv.AdminURL)
		first, second := ssoStart(t, c, prov), ssoStart(t, c, prov)
		for i, fields := range []url.Values{first, second} {
			what := []string{"the first", "the second"}[i]
			fields.Set("email", "pat@example.com")
			fields.Set("email_verified", "true")
			p := browse(t, c, "POST", prov.URL+"/auth", fields)
			if p.status != 200 || p.url != "http://console.test/manage" {
				t.Errorf("%s sign-in: %d at %s, want home\n%s", what, p.status, p.url, p.body)
			}
		}
	})
}
