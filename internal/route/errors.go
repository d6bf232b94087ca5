// Package route is where statusd's handlers meet the ServeMux. A handler
// returns the error to answer with, and one writer, Errors.Write, answers
// every error in the shape of its path: the JSON error of CONTRACT C2
// under /api/, /v1/ and /admin/ (and for the machines' /metrics and
// probes), the status page's HTML error page elsewhere, never text/plain.
// Mux registers the routes by method pattern and answers any other method
// on their paths 405 with Allow, through the same writer.
package route

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"strings"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/internal/httpjson"
)

// Handler serves a request, or returns the error to answer with, having
// written nothing.
type Handler func(w http.ResponseWriter, r *http.Request) error

// Errors is the one error writer. It is safe for concurrent use.
type Errors struct {
	log  *slog.Logger
	page func(w http.ResponseWriter, r *http.Request, err error)
}

// NewErrors returns the error writer. page renders the HTML error page of
// err (a *statusd.Error, or any other error for a generic page), for the
// paths whose errors are not JSON; nil answers every path in JSON.
func NewErrors(log *slog.Logger, page func(w http.ResponseWriter, r *http.Request, err error)) *Errors {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Errors{log: log, page: page}
}

// Write answers err in the shape of r's path, with the status of its code
// (statusd.ErrorStatus), never cacheable, and Retry-After when err says
// when to retry (see Retry). An error that is not a *statusd.Error is
// logged, once, here, and answered 500 with a generic message.
func (e *Errors) Write(w http.ResponseWriter, r *http.Request, err error) {
	code := statusd.ErrorCode(err)
	if code == statusd.EInternal {
		e.log.Error("request failed", "method", r.Method, "path", r.URL.Path, "err", err,
			"request_id", w.Header().Get("X-Request-Id"))
	}
	h := w.Header()
	h.Set("Cache-Control", "no-store")
	var retry retryError
	if errors.As(err, &retry) {
		h.Set("Retry-After", strconv.Itoa(retry.seconds))
	}
	if e.page != nil && !IsJSON(r.URL.Path) {
		e.page(w, r, err)
		return
	}
	WriteJSON(w, r, err)
}

// WriteJSON writes err as the JSON error of CONTRACT C2, with the status
// of its code: the JSON part of Write, for a page function that answers
// some of its paths in JSON.
func WriteJSON(w http.ResponseWriter, r *http.Request, err error) {
	status := statusd.ErrorStatus(statusd.ErrorCode(err))
	httpjson.Write(w, r, status, statusd.ErrorResponse{Error: statusd.ErrorBody{
		Status: status, Code: statusd.ErrorCode(err), Message: statusd.ErrorMessage(err),
	}})
}

// Serve adapts h to net/http: its error is answered by Write.
func (e *Errors) Serve(h Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := h(w, r); err != nil {
			e.Write(w, r, err)
		}
	})
}

// Plain adapts an http.Handler that answers every request itself.
func Plain(h http.Handler) Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		h.ServeHTTP(w, r)
		return nil
	}
}

// Recover answers a panic in next as an internal error (logged by Write)
// instead of a dropped connection.
func (e *Errors) Recover(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					panic(v)
				}
				e.Write(w, r, fmt.Errorf("panic: %v", v))
			}
		}()
		next.ServeHTTP(w, r)
	})
}

// jsonPrefixes are the paths whose errors are JSON (CONTRACT C2); every
// other path's are HTML pages.
var jsonPrefixes = []string{"/api/", "/v1/", "/admin/", "/hooks/"}

// jsonPaths are the paths outside jsonPrefixes whose errors are JSON: the
// alias of the API's index, and the metrics and probes, read by machines.
var jsonPaths = []string{"/v1", "/metrics", "/healthz", "/readyz"}

// IsJSON reports whether the errors of path are JSON.
func IsJSON(path string) bool {
	for _, p := range jsonPrefixes {
		if strings.HasPrefix(path, p) {
			return true
		}
	}
	for _, p := range jsonPaths {
		if path == p {
			return true
		}
	}
	return false
}

// IsAPI reports whether path is one of the public JSON APIs': the v1 API
// at /api/v1 and its alias /v1 (CONTRACT C1), Statuspage's v2 at /api/v2,
// and the JSON 404s of every other path under /api/ and /v1/. Every
// answer there, errors included, may be read by any origin and counts
// toward the per-client rate limit (C2).
func IsAPI(path string) bool {
	return strings.HasPrefix(path, "/api/") || strings.HasPrefix(path, "/v1/") || path == "/v1"
}

// Retry returns err, answered with Retry-After: seconds (a refusal for
// load, a rate limit).
func Retry(err *statusd.Error, seconds int) error { return retryError{err, seconds} }

// IsRetry reports whether err says when to retry (see Retry).
func IsRetry(err error) bool {
	var retry retryError
	return errors.As(err, &retry)
}

// retryError is a *statusd.Error that also says when to retry.
type retryError struct {
	err     *statusd.Error
	seconds int
}

func (e retryError) Error() string { return e.err.Error() }

func (e retryError) Unwrap() error { return e.err }

// RetryAfter is the Retry-After header of the answer, in seconds.
func (e retryError) RetryAfter() int { return e.seconds }
