// Package httpjson writes JSON answers and the JSON errors of CONTRACT C2 for
// the API and admin handlers: marshal into a buffer first, then write the
// status line, so that a failure can still be answered properly.
package httpjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"strconv"
	"sync"

	"github.com/statusd/statusd"
)

// Write answers v as JSON with the status. Paths inside keep their & raw,
// as SPEC.md shows them. A HEAD request gets the headers only.
func Write(w http.ResponseWriter, r *http.Request, log *slog.Logger, status int, v any) {
	body, err := Marshal(v)
	if err != nil {
		Error(w, r, log, err)
		return
	}
	send(w, r, status, body)
}

// Marshal encodes v as JSON without escaping <, > and &, as Write does. The
// encoding grows in a buffer kept for the next call; the answer is a copy
// of exactly its size.
func Marshal(v any) ([]byte, error) {
	buf := buffers.Get().(*bytes.Buffer)
	defer func() {
		if buf.Cap() <= maxKeptBuffer {
			buffers.Put(buf)
		}
	}()
	buf.Reset()
	if a, ok := v.(jsonAppender); ok {
		// As encoding/json would, minus the reflection.
		out := a.AppendJSON(buf.AvailableBuffer())
		if cap(out) > buf.Cap() {
			buf = bytes.NewBuffer(out[:0]) // kept, grown, for the next call
		}
		return bytes.Clone(out), nil
	}
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.Clone(bytes.TrimSuffix(buf.Bytes(), []byte("\n"))), nil
}

// Append appends v's JSON, as Marshal encodes it, to dst.
func Append(dst []byte, v any) ([]byte, error) {
	if a, ok := v.(jsonAppender); ok {
		return a.AppendJSON(dst), nil
	}
	body, err := Marshal(v)
	return append(dst, body...), err
}

// jsonAppender is a value that writes its own JSON, exactly as
// encoding/json with HTML escaping off would.
type jsonAppender interface{ AppendJSON(b []byte) []byte }

// buffers keeps Marshal's buffers, up to maxKeptBuffer bytes each.
var buffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

const maxKeptBuffer = 1 << 20

// Error answers err as {"error": {"status", "code", "message"}}. An error
// that is not a *statusd.Error is logged and answered with a generic
// message. Errors are never cacheable.
func Error(w http.ResponseWriter, r *http.Request, log *slog.Logger, err error) {
	code := statusd.ErrorCode(err)
	status := statusd.ErrorStatus(code)
	if code == statusd.EInternal {
		log.Error("request failed", "method", r.Method, "path", r.URL.Path, "err", err,
			"request_id", w.Header().Get("X-Request-Id"))
	}
	body, _ := Marshal(statusd.ErrorResponse{Error: statusd.ErrorBody{
		Status: status, Code: code, Message: statusd.ErrorMessage(err),
	}})
	w.Header().Set("Cache-Control", "no-store")
	RetryAfter(w, err)
	send(w, r, status, body)
}

// RetryAfter sets the Retry-After header when err says when to retry, as
// a refusal for load (server.ErrBusy) does, and reports whether it did.
func RetryAfter(w http.ResponseWriter, err error) bool {
	var retry interface{ RetryAfter() int }
	if !errors.As(err, &retry) {
		return false
	}
	w.Header().Set("Retry-After", strconv.Itoa(retry.RetryAfter()))
	return true
}

func send(w http.ResponseWriter, r *http.Request, status int, body []byte) {
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	if r.Method != http.MethodHead {
		w.Write(body)
	}
}

// The CORS headers of every answer, made once: the values are shared, never
// changed.
var (
	allowAnyOrigin = []string{"*"}
	exposedHeaders = []string{"ETag, RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, Retry-After, X-Ignored-Filters, X-Request-Id"}
)

// AllowAnyOrigin sets the CORS headers of an answer any origin may read,
// as CORS does.
func AllowAnyOrigin(w http.ResponseWriter) {
	h := w.Header()
	h["Access-Control-Allow-Origin"] = allowAnyOrigin
	h["Access-Control-Expose-Headers"] = exposedHeaders
}

// CORS lets any origin read what next serves: the public APIs carry no
// credentials. Preflight requests are answered here.
func CORS(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		AllowAnyOrigin(w)
		h := w.Header()
		if r.Method == http.MethodOptions {
			h.Set("Allow", "GET, HEAD, OPTIONS")
			h.Set("Access-Control-Allow-Methods", "GET, HEAD, OPTIONS")
			if req := r.Header.Get("Access-Control-Request-Headers"); req != "" {
				h.Set("Access-Control-Allow-Headers", req)
			}
			h.Set("Access-Control-Max-Age", "86400")
			w.WriteHeader(http.StatusNoContent)
			return
		}
		next.ServeHTTP(w, r)
	})
}
