package telemetry

import (
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"log/slog"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// RequestIDHeader carries the request id, in and out.
const RequestIDHeader = "X-Request-Id"

// maxRequestID is the longest request id taken from a client.
const maxRequestID = 64

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

// idPrefix makes this process's request ids unlike those of any other
// (replicas, restarts): 8 random bytes in hex.
var idPrefix = func() string {
	var b [8]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}()

var idCounter atomic.Uint64

// newRequestID returns 32 hex digits: the process's prefix and a counter,
// unique without a system call per request.
func newRequestID() string {
	var b [32]byte
	copy(b[:16], idPrefix)
	var n [8]byte
	binary.BigEndian.PutUint64(n[:], idCounter.Add(1))
	hex.Encode(b[16:], n[:])
	return string(b[:])
}

// Middleware wraps the handler of a listener (around its ServeMux, and
// around load shedding so that shed requests are counted too). For every
// request it:
//
//   - takes the client's X-Request-Id when it is sane (see above), or makes
//     one, and sets it on the response, where handlers find it too;
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
		var id string
		if v := r.Header[RequestIDHeader]; len(v) > 0 { // as Get does, the key being canonical already
			id = v[0]
		}
		if !saneRequestID(id) {
			id = newRequestID()
		}
		w.Header()[RequestIDHeader] = []string{id}
		rec := recorders.Get().(*recorder)
		rec.ResponseWriter = w
		m.inFlight.Add(1)
		defer func() {
			m.inFlight.Add(-1)
			status, bytes := rec.status, rec.bytes
			*rec = recorder{}
			recorders.Put(rec)
			if status == 0 {
				// Nothing written: net/http answers 200, or the handler
				// panicked with http.ErrAbortHandler and the connection is cut.
				status = http.StatusOK
			}
			took := time.Since(start)
			// The mux below sets Pattern on the request it is given: this one.
			route := r.Pattern
			if route == "" {
				route = "unmatched"
			}
			method := normalMethod(r.Method)
			series := m.series(route, method, status)
			series.requests.Inc()
			series.duration.Observe(took.Seconds())
			if status == http.StatusTooManyRequests {
				m.rateLimited.Inc()
			}
			if m.log.Enabled(r.Context(), slog.LevelDebug) {
				m.log.LogAttrs(r.Context(), slog.LevelDebug, "request",
					slog.String("method", method),
					slog.String("route", route),
					slog.String("path", r.URL.Path),
					slog.Int("status", status),
					slog.Int64("bytes", bytes),
					slog.Duration("took", took),
					slog.String("request_id", id))
			}
		}()
		next.ServeHTTP(rec, r)
	})
}

// recorders are reused from request to request.
var recorders = sync.Pool{New: func() any { return new(recorder) }}

// seriesKey names the request series of one route, method and status.
type seriesKey struct {
	route, method string
	status        int
}

// requestSeries are the counter and histogram of one seriesKey.
type requestSeries struct {
	requests prometheus.Counter
	duration prometheus.Observer
}

// series returns the instruments of a route, method and status, looked up
// in the vectors once and kept, so that a request pays one map read.
func (m *Metrics) series(route, method string, status int) requestSeries {
	k := seriesKey{route, method, status}
	m.seriesMu.RLock()
	s, ok := m.seriesOf[k]
	m.seriesMu.RUnlock()
	if ok {
		return s
	}
	s = requestSeries{
		requests: m.requests.WithLabelValues(route, method, strconv.Itoa(status)),
		duration: m.duration.WithLabelValues(route, method),
	}
	m.seriesMu.Lock()
	m.seriesOf[k] = s
	m.seriesMu.Unlock()
	return s
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
