package client

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/statusd/statusd"
)

// Error is an error answer of the server: its HTTP status and, from the
// body {"error": {"status", "code", "message"}}, the statusd error code (one
// of the statusd.E* constants) and message. An answer that is not a statusd
// error body (a proxy's error page, say) gets the code of its status, and
// the status text as its message.
type Error struct {
	Status  int
	Code    string
	Message string
	// RetryAfter is the wait the server asked for with a 429 (zero
	// otherwise).
	RetryAfter time.Duration
	// Location is where a redirect points, for the redirects the [Admin]
	// client does not follow ("" otherwise).
	Location string
}

// Error implements the error interface.
func (e *Error) Error() string {
	return fmt.Sprintf("statusd: %d %s: %s", e.Status, e.Code, e.Message)
}

// Sentinels for [errors.Is]: an *Error is one of them when its code is the
// sentinel's.
var (
	ErrInvalidParameter  = sentinel(statusd.EInvalidParameter)
	ErrInvalidBody       = sentinel(statusd.EInvalidBody)
	ErrInvalidField      = sentinel(statusd.EInvalidField)
	ErrInvalidTransition = sentinel(statusd.EInvalidTransition)
	ErrUnauthorized      = sentinel(statusd.EUnauthorized)
	ErrConflict          = sentinel(statusd.EConflict)
	ErrTooLarge          = sentinel(statusd.ETooLarge)
	ErrNotFound          = sentinel(statusd.ENotFound)
	ErrMetricsDisabled   = sentinel(statusd.EMetricsDisabled)
	ErrMethodNotAllowed  = sentinel(statusd.EMethodNotAllowed)
	ErrRateLimited       = sentinel(statusd.ERateLimited)
	ErrInternal          = sentinel(statusd.EInternal)
	ErrUnavailable       = sentinel(statusd.EUnavailable)
)

// sentinels are the sentinel errors by code.
var sentinels = map[string]error{}

// sentinel returns the sentinel error of code, kept in sentinels.
func sentinel(code string) error {
	err := errors.New("statusd: " + code)
	sentinels[code] = err
	return err
}

// Is reports whether target is the sentinel of e's code, so that
// errors.Is(err, client.ErrNotFound) works on a wrapped *Error.
func (e *Error) Is(target error) bool {
	s, ok := sentinels[e.Code]
	return ok && s == target
}

// IsNotFound reports whether err is or wraps an *Error with status 404: a
// notice or component that does not exist (not_found), a component without
// Metrics (metrics_disabled), or an endpoint the page does not have.
func IsNotFound(err error) bool { return hasStatus(err, http.StatusNotFound) }

// IsRateLimited reports whether err is or wraps a 429 that the retries did
// not get past.
func IsRateLimited(err error) bool { return hasStatus(err, http.StatusTooManyRequests) }

func hasStatus(err error, status int) bool {
	var e *Error
	return errors.As(err, &e) && e.Status == status
}

// newError reads an error answer.
func newError(res *http.Response, body []byte) *Error {
	e := &Error{Status: res.StatusCode}
	var r statusd.ErrorResponse
	if err := json.Unmarshal(body, &r); err == nil && r.Error.Code != "" {
		e.Code, e.Message = r.Error.Code, r.Error.Message
	} else {
		e.Code, e.Message = statusd.CodeOfStatus(res.StatusCode), http.StatusText(res.StatusCode)
		if e.Message == "" {
			e.Message = res.Status
		}
	}
	if loc, err := res.Location(); err == nil && res.StatusCode >= 300 && res.StatusCode < 400 {
		e.Location = loc.String()
	}
	if res.StatusCode == http.StatusTooManyRequests {
		e.RetryAfter = retryAfter(res.Header.Get("Retry-After"), time.Now())
	}
	return e
}

// retryAfter reads a Retry-After header: seconds, or an HTTP date.
func retryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if s, err := strconv.Atoi(v); err == nil {
		return time.Duration(max(0, s)) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(0, t.Sub(now))
	}
	return 0
}
