package telemetry

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"net/http"
	"strconv"
	"time"
)

// RequestIDHeader carries the request id, in and out.
const RequestIDHeader = "X-Request-Id"

// maxRequestID is the longest request id taken from a client.
const maxRequestID = 64

type requestIDKey struct{}

// RequestID returns the id the middleware gave the request of ctx, or "".
func RequestID(ctx context.Context) string {
	id, _ := ctx.Value(requestIDKey{}).(string)
	return id
}

// saneRequestID reports whether a client's id can be kept as it is: 1 to
// 64 characters of [A-Za-z0-9._-], nothing that could break a log line or
// a header.
func saneRequestID(id string) bool {
	if id == "" || len(id) > maxRequestID {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '.', c == '_', c == '-':
		default:
			return false
		}
	}
	return true
}

// newRequestID returns 16 random bytes in hex.
func newRequestID() string {
	var b [16]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// Middleware wraps the handler of a listener (around its ServeMux, and
// around load shedding so that shed requests are counted too). For every
// request it:
//
//   - takes the client's X-Request-Id when it is sane (see above), or makes
//     one, sets it on the response and in the request's context
//     (RequestID);
//   - counts the answer in statusd_http_requests_total and its time in
//     statusd_http_request_duration_seconds, labelled by the pattern of the
//     route that answered ("unmatched" when no route did, for example when
//     load shedding refused it), and 429s in statusd_http_rate_limited_total;
//   - logs one line at debug level: method, route, path (without the
//     query), status, bytes, duration and request id. Headers, the query
//     and the body are never logged, so neither is a token.
func (m *Metrics) Middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		id := r.Header.Get(RequestIDHeader)
		if !saneRequestID(id) {
			id = newRequestID()
		}
		w.Header().Set(RequestIDHeader, id)
		// The mux below sets Pattern on the request it is given: this one.
		r = r.WithContext(context.WithValue(r.Context(), requestIDKey{}, id))
		rec := &recorder{ResponseWriter: w}
		m.inFlight.Inc()
		defer func() {
			m.inFlight.Dec()
			status := rec.status
			if status == 0 {
				// Nothing written: net/http answers 200, or the handler
				// panicked with http.ErrAbortHandler and the connection is cut.
				status = http.StatusOK
			}
			took := time.Since(start)
			route := r.Pattern
			if route == "" {
				route = "unmatched"
			}
			method := normalMethod(r.Method)
			m.requests.WithLabelValues(route, method, strconv.Itoa(status)).Inc()
			m.duration.WithLabelValues(route, method).Observe(took.Seconds())
			if status == http.StatusTooManyRequests {
				m.rateLimited.Inc()
			}
			if m.log.Enabled(r.Context(), slog.LevelDebug) {
				m.log.LogAttrs(r.Context(), slog.LevelDebug, "request",
					slog.String("method", method),
					slog.String("route", route),
					slog.String("path", r.URL.Path),
					slog.Int("status", status),
					slog.Int64("bytes", rec.bytes),
					slog.Duration("took", took),
					slog.String("request_id", id))
			}
		}()
		next.ServeHTTP(rec, r)
	})
}

// normalMethod bounds the method label: the standard methods as they are,
// anything else "other".
func normalMethod(m string) string {
	switch m {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
		http.MethodDelete, http.MethodOptions:
		return m
	}
	return "other"
}

// recorder notes the status and size of an answer.
type recorder struct {
	http.ResponseWriter
	status int
	bytes  int64
}

func (r *recorder) WriteHeader(code int) {
	if r.status == 0 && code >= 200 {
		r.status = code
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *recorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	n, err := r.ResponseWriter.Write(b)
	r.bytes += int64(n)
	return n, err
}

// Flush passes on to the underlying writer when it can flush.
func (r *recorder) Flush() {
	if f, ok := r.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (r *recorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }
