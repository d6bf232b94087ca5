package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/statusd/statusd"
)

// Exit codes of the operator commands, which scripts can rely on. run
// returns an *exitError carrying one; main exits with it.
const (
	exitCodeFailure      = 1 // any other failure
	exitCodeUsage        = 2 // bad flags or arguments
	exitCodeUnauthorized = 3 // 401: no token, or a wrong or revoked one
	exitCodeNotFound     = 4 // 404: no such notice, component or endpoint
	exitCodeRefused      = 5 // 400, 409, 413, 422: the server refused the request
	exitCodeUnavailable  = 6 // no answer, 429 or 5xx
)

// exitError is an error with the exit code main should end with.
type exitError struct {
	Code int
	Err  error
}

func (e *exitError) Error() string { return e.Err.Error() }
func (e *exitError) Unwrap() error { return e.Err }

// exitErrorf returns an *exitError with code and a formatted message.
func exitErrorf(code int, format string, args ...any) *exitError {
	return &exitError{Code: code, Err: fmt.Errorf(format, args...)}
}

// opWithHint adds a hint to err when it carries the exit code.
func opWithHint(err error, code int, hint string) error {
	var ee *exitError
	if errors.As(err, &ee) && ee.Code == code {
		return &exitError{Code: code, Err: fmt.Errorf("%w; %s", ee.Err, hint)}
	}
	return err
}

// opTimeout bounds every request of the operator CLI.
const opTimeout = 10 * time.Second

// opAdminPrefix is the root of the admin API (CONTRACT C6).
const opAdminPrefix = "/admin/api/v1"

// opClient is a thin client of the admin API: it sends JSON, reads JSON, and
// turns every failure into an *exitError whose message says what to do. It
// is safe for concurrent use.
type opClient struct {
	base  string // scheme://host[:port][/prefix], without a trailing slash
	token string
	http  *http.Client
}

// newOpClient returns a client of the server at rawURL, or a usage error
// when rawURL is not an http or https URL.
func newOpClient(rawURL, token string) (*opClient, error) {
	u, err := url.Parse(strings.TrimSpace(rawURL))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		return nil, exitErrorf(exitCodeUsage, "--url: %q is not a server URL like http://127.0.0.1:8080 (also $STATUSD_URL)", rawURL)
	}
	return &opClient{
		base:  strings.TrimSuffix(u.String(), "/"),
		token: strings.TrimSpace(token),
		// A redirect is answered, not followed: the request carries the
		// token, which belongs to the server --url names.
		http: &http.Client{Timeout: opTimeout, CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		}},
	}, nil
}

// do sends method to the admin API path (below /admin/api/v1), with body
// as JSON unless it is nil, and returns the answer's body; a 2xx JSON body
// is also decoded into out when out is not nil. Errors are *exitError.
func (c *opClient) do(ctx context.Context, method, path string, body, out any) ([]byte, error) {
	var reqBody io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return nil, err
		}
		reqBody = bytes.NewReader(b)
	}
	target := c.base + opAdminPrefix + path
	req, err := http.NewRequestWithContext(ctx, method, target, reqBody)
	if err != nil {
		return nil, exitErrorf(exitCodeUsage, "--url: cannot build a request to %s: %v", target, err)
	}
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	res, err := c.http.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("interrupted before %s answered", c.base)
		}
		cause := err
		var ue *url.Error
		if errors.As(err, &ue) {
			cause = ue.Err
			if ue.Timeout() {
				return nil, exitErrorf(exitCodeUnavailable, "statusd at %s did not answer within %s; check that it is running and reachable, then try again", c.base, opTimeout)
			}
		}
		return nil, exitErrorf(exitCodeUnavailable, "cannot reach statusd at %s: %v; check --url (or $STATUSD_URL) and that statusd serve is running there", c.base, cause)
	}
	defer res.Body.Close()
	answer, err := io.ReadAll(io.LimitReader(res.Body, 32<<20))
	if err != nil {
		return nil, exitErrorf(exitCodeUnavailable, "statusd at %s broke off its answer: %v; try again", c.base, err)
	}
	if res.StatusCode >= 200 && res.StatusCode < 300 {
		if out != nil && len(answer) > 0 {
			if err := json.Unmarshal(answer, out); err != nil {
				return nil, exitErrorf(exitCodeFailure, "%s %s answered something that is not the statusd admin API (%v); is --url the statusd server?", method, target, err)
			}
		}
		return answer, nil
	}
	return nil, c.failure(method, target, res, answer)
}

// failure turns an error answer into an *exitError with the server's
// message and what to do about it.
func (c *opClient) failure(method, target string, res *http.Response, answer []byte) error {
	var e statusd.ErrorResponse
	fromStatusd := json.Unmarshal(answer, &e) == nil && e.Error.Code != ""
	msg := e.Error.Message
	if !fromStatusd {
		msg = http.StatusText(res.StatusCode)
		if snippet := strings.TrimSpace(string(answer)); snippet != "" && len(snippet) <= 200 && !strings.ContainsAny(snippet, "<\n") {
			msg += ": " + snippet
		}
	}
	status := res.StatusCode
	switch {
	case status >= 300 && status < 400 && res.Header.Get("Location") != "":
		return exitErrorf(exitCodeUsage, "the server answered a redirect to %s; use that URL with --url", opRedirectBase(res))
	case status == http.StatusUnauthorized:
		return exitErrorf(exitCodeUnauthorized, "not authorized by %s (%s); set $STATUSD_TOKEN or pass --token with a token made by statusd token create --name NAME on the server's host", c.base, msg)
	case status == http.StatusNotFound && !fromStatusd:
		return exitErrorf(exitCodeNotFound, "%s %s: 404 %s; is --url the statusd server (or its --admin-addr listener)?", method, target, msg)
	case status == http.StatusNotFound:
		return exitErrorf(exitCodeNotFound, "%s", msg)
	case status == http.StatusBadRequest, status == http.StatusConflict,
		status == http.StatusRequestEntityTooLarge, status == http.StatusUnprocessableEntity:
		return exitErrorf(exitCodeRefused, "refused by the server: %s", msg)
	case status == http.StatusTooManyRequests:
		wait := res.Header.Get("Retry-After")
		if wait == "" {
			wait = "a few"
		}
		return exitErrorf(exitCodeUnavailable, "statusd at %s is rate limiting this client (%s); try again in %s second(s)", c.base, msg, wait)
	case status >= 500:
		return exitErrorf(exitCodeUnavailable, "statusd at %s is unavailable (%d %s); try again shortly, and check the server's log if it persists", c.base, status, msg)
	}
	return exitErrorf(exitCodeFailure, "%s %s: %d %s", method, target, status, msg)
}

// opRedirectBase is the server URL a redirect of an admin API request
// points at: its Location without the admin API path and the query when it
// ends so, else the whole Location.
func opRedirectBase(res *http.Response) string {
	loc, err := res.Location()
	if err != nil {
		return strconv.Quote(res.Header.Get("Location"))
	}
	if i := strings.Index(loc.Path, opAdminPrefix+"/"); i >= 0 {
		loc.Path, loc.RawPath, loc.RawQuery = loc.Path[:i], "", ""
	}
	return loc.String()
}
