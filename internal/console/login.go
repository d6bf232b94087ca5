package console

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/internal/htmlkit"
	"github.com/statusd/statusd/internal/ratelimit"
	"github.com/statusd/statusd/internal/route"
)

// Limits of sign-in attempts (CONTRACT C8), counted in this process's
// memory (ratelimit.Window). Only failures count: a sign-in that succeeds
// clears its account's counts and is given back to its client's. A
// client's failures refuse that client only: failures on an account from
// every client together slow its sign-ins (loginDelay), never shut them
// out, so that nobody can lock the owner out by guessing.
const (
	// LoginWindow is the span over which failures are counted.
	LoginWindow = 15 * time.Minute
	// LoginsPerAccount is how many failures one client may have on one
	// email in a window, whether or not it is a user's (a refusal does
	// not tell); and how many the email may have from all clients before
	// its sign-ins are slowed. The counts start again when the account's
	// password changes (a reset, a setup).
	LoginsPerAccount = 5
	// LoginsPerClient is how many failures one client may have in a
	// window.
	LoginsPerClient = 20
	// LoginDelayStep is how much longer each failure past
	// LoginsPerAccount, from any client, makes every sign-in of the
	// account wait, up to LoginDelayMax.
	LoginDelayStep = time.Second
	// LoginDelayMax bounds that wait.
	LoginDelayMax = 10 * time.Second
	// loginKeys bounds the keys the limits remember.
	loginKeys = 20_000
	// maxForm bounds the body of a form.
	maxForm = 16 << 10
)

// loginDelay is how long a sign-in waits on an account that had failures
// from all clients in the window.
func loginDelay(failures int) time.Duration {
	if failures < LoginsPerAccount {
		return 0
	}
	return min(time.Duration(failures-LoginsPerAccount+1)*LoginDelayStep, LoginDelayMax)
}

// formView is what the sign-in and setup screens show.
type formView struct {
	base
	Email   string
	Token   string
	Problem string
	// SSO is the host of the OpenID Connect provider whose sign-in button
	// the sign-in screen shows; "" for none.
	SSO string
}

// loginView is the sign-in screen with email typed and problem.
func (s *Server) loginView(r *http.Request, email, problem string) formView {
	v := formView{base: s.newBase(r, "Sign in"), Email: email, Problem: problem}
	if s.sso != nil {
		v.SSO = s.sso.host
	}
	return v
}

// wrongLogin is the one answer to a wrong email and to a wrong password.
const wrongLogin = "The email or the password is not right."

// LoginForm shows the sign-in screen, or the home screen to a person
// signed in already.
func (s *Server) LoginForm(w http.ResponseWriter, r *http.Request) error {
	htmlkit.Private(w)
	if u, err := s.sessionUser(r); err != nil || u != nil {
		if err == nil {
			http.Redirect(w, r, Root, http.StatusSeeOther)
		}
		return err
	}
	return s.render(w, http.StatusOK, "login", s.loginView(r, "", ""))
}

// Login signs a person in with the form's email and password, and sends
// them home. A wrong email and a wrong password get the same answer,
// after the same work (verifyPassword); failures are limited per email
// and client and per client (429), and slow the email's sign-ins from
// every client (loginDelay).
func (s *Server) Login(w http.ResponseWriter, r *http.Request) error {
	r.Body = http.MaxBytesReader(w, r.Body, maxForm)
	if err := r.ParseForm(); err != nil {
		return statusd.Errorf(statusd.EInvalidBody, "The form could not be read. Please send it again from the sign-in page.")
	}
	email, password := strings.TrimSpace(r.PostForm.Get("email")), r.PostForm.Get("password")
	account := strings.ToLower(email)
	var u *statusd.User
	if normalized, err := statusd.NormalizeEmail(email); err == nil {
		if u, err = s.users.ByEmail(r.Context(), normalized); err != nil {
			return err
		}
	}
	hash := ""
	if u != nil {
		hash = u.PasswordHash
	}
	// The account's count is kept per password: one that changes (a
	// reset, a setup) starts from 0.
	client := ratelimit.Block(ratelimit.ClientAddr(r, s.trusted))
	accountKey := "account " + string(statusd.SecretHash(account+"\x00"+hash))
	accountClientKey := accountKey + " client " + client
	clientKey := "client " + client
	now := s.now()
	ok, retry := s.logins.Take(now,
		ratelimit.Quota{Key: accountClientKey, Limit: LoginsPerAccount},
		ratelimit.Quota{Key: clientKey, Limit: LoginsPerClient})
	if !ok {
		minutes := int((retry + time.Minute - 1) / time.Minute)
		return route.Retry(statusd.Errorf(statusd.ERateLimited,
			"Too many sign-in attempts. Please wait %d minute(s) and try again, or ask an owner to reset your account.", minutes),
			int((retry+time.Second-1)/time.Second))
	}
	failures := s.logins.Count(now, accountKey)
	// Counted while it is below the longest wait; past it a failure adds
	// nothing.
	s.logins.Take(now, ratelimit.Quota{Key: accountKey, Limit: LoginsPerAccount + int(LoginDelayMax/LoginDelayStep)})
	if err := wait(r.Context(), loginDelay(failures)); err != nil {
		return err
	}
	ok, err := verifyPassword(r.Context(), hash, password)
	if err != nil {
		return err
	}
	if !ok {
		return s.render(w, http.StatusUnauthorized, "login", s.loginView(r, email, wrongLogin))
	}
	s.logins.Forget(accountKey, accountClientKey)
	s.logins.Return(now, clientKey)
	if err := s.startSession(w, r, u); err != nil {
		return err
	}
	http.Redirect(w, r, Root, http.StatusSeeOther)
	return nil
}

// Logout ends the session and sends the person to the sign-in screen.
func (s *Server) Logout(w http.ResponseWriter, r *http.Request) error {
	htmlkit.Private(w)
	if c, err := r.Cookie(CookieName); err == nil && c.Value != "" {
		if err := s.users.EndSession(r.Context(), statusd.SecretHash(c.Value)); err != nil {
			return err
		}
	}
	http.SetCookie(w, s.cookie("", 0))
	http.Redirect(w, r, Root+"/login", http.StatusSeeOther)
	return nil
}

// SetupForm shows the screen where a new user sets a password, for a
// valid setup link.
func (s *Server) SetupForm(w http.ResponseWriter, r *http.Request) error {
	htmlkit.Private(w)
	token := r.URL.Query().Get("token")
	u, err := s.users.SetupUser(r.Context(), statusd.SecretHash(token), s.now())
	if err != nil {
		return err
	}
	return s.render(w, http.StatusOK, "setup", formView{base: s.newBase(r, "Set your password"), Email: u.Email, Token: token})
}

// Setup sets the password of a setup link's user (given twice, at least
// statusd.MinPassword characters), signs them in and sends them home.
func (s *Server) Setup(w http.ResponseWriter, r *http.Request) error {
	htmlkit.Private(w)
	r.Body = http.MaxBytesReader(w, r.Body, maxForm)
	if err := r.ParseForm(); err != nil {
		return statusd.Errorf(statusd.EInvalidBody, "The form could not be read. Please open your setup link again.")
	}
	token, password := r.PostForm.Get("token"), r.PostForm.Get("password")
	link := statusd.SecretHash(token)
	u, err := s.users.SetupUser(r.Context(), link, s.now())
	if err != nil {
		return err
	}
	problem := ""
	if err := statusd.CheckPassword(password); err != nil {
		problem = fmt.Sprintf("Please choose a password of at least %d characters.", statusd.MinPassword)
	} else if password != r.PostForm.Get("password2") {
		problem = "The two passwords are not the same. Please type the same password twice."
	}
	if problem != "" {
		v := formView{base: s.newBase(r, "Set your password"), Email: u.Email, Token: token, Problem: problem}
		return s.render(w, http.StatusUnprocessableEntity, "setup", v)
	}
	hash, err := hashPassword(r.Context(), password)
	if err != nil {
		return err
	}
	if u, err = s.users.Setup(r.Context(), link, hash, s.now()); err != nil {
		return err
	}
	if err := s.startSession(w, r, u); err != nil {
		return err
	}
	http.Redirect(w, r, Root, http.StatusSeeOther)
	return nil
}

// wait waits d, or until ctx ends (its error).
func wait(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
