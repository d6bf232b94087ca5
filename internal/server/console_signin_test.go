package server_test

import (
	"context"
	"fmt"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/statusd/statusd/internal/testserver"
)

// The limits of sign-in and the session's cookie (CONTRACT C8): only
// failures count, a success or a reset clears them, and the cookie lasts
// as long as the session.

// signInAs posts the sign-in form from a new browser, with headers as
// name, value pairs.
func signInAs(t *testing.T, srv *testserver.Server, email, password string, header ...string) screen {
	t.Helper()
	return newBrowser(t, srv.AdminURL).do("POST", "/manage/login", url.Values{"email": {email}, "password": {password}}, header...)
}

// sessionCookie is the session cookie an answer sets, or nil.
func sessionCookie(p screen) *http.Cookie {
	for _, c := range (&http.Response{Header: p.header}).Cookies() {
		if c.Name == "statusd_session" {
			return c
		}
	}
	return nil
}

// wantLifetime fails unless the answer sets the session cookie to last
// 12 hours from about now: Max-Age 43200 (12 × 3600) and Expires within
// a few seconds of now + 12 h.
func wantLifetime(t *testing.T, what string, p screen) {
	t.Helper()
	c := sessionCookie(p)
	if c == nil {
		t.Fatalf("%s: no session cookie in %q", what, p.header.Values("Set-Cookie"))
	}
	if c.MaxAge != 43200 {
		t.Errorf("%s: Max-Age %d, want 43200 (%q)", what, c.MaxAge, p.header.Get("Set-Cookie"))
	}
	if d := time.Until(c.Expires) - 12*time.Hour; d < -5*time.Second || d > 5*time.Second {
		t.Errorf("%s: Expires %s, want 12 hours from now (%q)", what, c.Expires, p.header.Get("Set-Cookie"))
	}
}

// TestConsoleSignInCountsFailures: six right sign-ins in a row all pass;
// a success clears the account's failures; five failures refuse the
// sixth attempt, which a reset and a new password lift; the session
// cookie lasts 12 hours and is renewed as the session is used.
func TestConsoleSignInCountsFailures(t *testing.T) {
	srv := startServer(t, consoleDoc(time.Now().UTC()), options{adminListener: true})
	adm := srv.Admin(newToken(t, srv.DB, "alice"))
	owner := signedIn(t, srv, adm, "ann@example.com", "owner")

	testserver.Step(t, "six right sign-ins in a row", func(t *testing.T) {
		for i := range 6 {
			p := signInAs(t, srv, "ann@example.com", goodPassword)
			p.want(t, "sign-in", 303, "/manage")
			if i == 0 {
				wantLifetime(t, "the sign-in's cookie", p)
			}
		}
	})

	testserver.Step(t, "the cookie is renewed as the session is used", func(t *testing.T) {
		p := owner.do("GET", "/manage", nil)
		p.want(t, "home", 200, "")
		wantLifetime(t, "home's cookie", p)
		if c := sessionCookie(p); c.Value != owner.session {
			t.Errorf("home set the session %q, want the same %q", c.Value, owner.session)
		}
	})

	testserver.Step(t, "a success clears the failures", func(t *testing.T) {
		// 4 failures, a success (clears them), 4 failures: never 5 in a
		// row, never refused.
		for range 2 {
			for range 4 {
				signInAs(t, srv, "ann@example.com", "not the password").want(t, "a wrong password", 401, "")
			}
			signInAs(t, srv, "ann@example.com", goodPassword).want(t, "the right one", 303, "/manage")
		}
	})

	testserver.Step(t, "five failures refuse the account until a reset", func(t *testing.T) {
		// The account has 0 failures (the last sign-in succeeded): 5 more,
		// then even the right password is refused.
		for range 5 {
			signInAs(t, srv, "ann@example.com", "not the password").want(t, "a wrong password", 401, "")
		}
		signInAs(t, srv, "ann@example.com", goodPassword).want(t, "the sixth attempt", 429, "")

		users, err := adm.Users(context.Background())
		testserver.NoErr(t, "Users", err)
		u, err := adm.ResetUser(context.Background(), users[0].ID)
		testserver.NoErr(t, "ResetUser", err)
		const newPassword = "a new correct horse"
		newBrowser(t, srv.AdminURL).do("POST", "/manage/setup", url.Values{"token": {testserver.SetupToken(t, u.SetupURL)},
			"password": {newPassword}, "password2": {newPassword}}).want(t, "setup after the reset", 303, "/manage")
		p := signInAs(t, srv, "ann@example.com", newPassword)
		p.want(t, "the new password after the reset", 303, "/manage")
		if strings.Contains(p.body, "Too many") {
			t.Errorf("still limited: %s", p.body)
		}
	})
}

// TestConsoleSignInNoLockout: five wrong passwords from one client
// refuse that client on the account, but the owner's right password from
// another client signs in, slowed; a wrong one from there is a plain
// 401. The owner's typo waits 1 s (5 failures on the account: one
// LoginDelayStep), the right password then 2 s (6 failures). The clients are told by X-Forwarded-For from the
// trusted loopback proxy.
func TestConsoleSignInNoLockout(t *testing.T) {
	srv := startServer(t, consoleDoc(time.Now().UTC()), options{adminListener: true,
		trusted: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}})
	adm := srv.Admin(newToken(t, srv.DB, "alice"))
	signedIn(t, srv, adm, "owner@example.com", "owner")
	attacker := []string{"X-Forwarded-For", "203.0.113.7"}
	owner := []string{"X-Forwarded-For", "198.51.100.9"}

	for range 5 {
		signInAs(t, srv, "owner@example.com", "guess guess guess", attacker...).want(t, "the attacker's guess", 401, "")
	}
	signInAs(t, srv, "owner@example.com", "guess guess guess", attacker...).want(t, "the attacker's sixth guess", 429, "")

	signInAs(t, srv, "owner@example.com", "not the password", owner...).want(t, "the owner's typo", 401, "")
	start := time.Now()
	signInAs(t, srv, "owner@example.com", goodPassword, owner...).want(t, "the owner from another client", 303, "/manage")
	if took := time.Since(start); took < 2*time.Second {
		t.Errorf("the owner's sign-in took %s: want it slowed by at least 2 s", took)
	}
	// The success cleared the account's failures, not the attacker's
	// own limit on it.
	start = time.Now()
	signInAs(t, srv, "owner@example.com", goodPassword, owner...).want(t, "the owner again", 303, "/manage")
	if took := time.Since(start); took >= time.Second {
		t.Errorf("the owner's second sign-in took %s: want no wait", took)
	}
	signInAs(t, srv, "owner@example.com", goodPassword, attacker...).want(t, "the attacker's client", 429, "")
}

// TestConsoleSignInIPv6Block: the addresses of one IPv6 /64 are one
// client: 20 failures from 20 of its addresses, each on another account,
// and the 21st, from yet another address of it, is refused; an address of
// another /64 is not.
func TestConsoleSignInIPv6Block(t *testing.T) {
	srv := startServer(t, consoleDoc(time.Now().UTC()), options{adminListener: true,
		trusted: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}})
	for i := range 20 {
		signInAs(t, srv, fmt.Sprintf("nobody%d@example.com", i), "not the password",
			"X-Forwarded-For", fmt.Sprintf("2001:db8:1:2::%x", i+1)).want(t, "a failure", 401, "")
	}
	signInAs(t, srv, "zed@example.com", "not the password", "X-Forwarded-For", "2001:db8:1:2:ffff::1").
		want(t, "the 21st failure from the /64", 429, "")
	signInAs(t, srv, "zed@example.com", "not the password", "X-Forwarded-For", "2001:db8:1:3::1").
		want(t, "another /64", 401, "")
}
