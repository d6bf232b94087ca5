package telemetry

import (
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"log/slog"
	"maps"
	"net/http"
	"strconv"
	"strings"
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

// idsPerBatch is how many request ids are made at once.
const idsPerBatch = 64

// idBatch is request ids made at once, each 32 hex digits: the process's
// prefix and a counter, unique without a system call per request. Their
// digits are one string and their header values one array, so that an
// answer's id costs no allocation of its own: a batch allocates two
// objects for 64 answers, where an id made alone allocated two for each
// (its string and its header value).
type idBatch struct {
	values []string // values[i:i+1:i+1] is the header value of id i
	next   int      // the next id to give
}

// idBatches are the batches being given out, one for each processor at
// most; the counter hands out each batch's range whole, so that no id is
// given twice, though not in order across batches.
var idBatches = sync.Pool{New: func() any { return new(idBatch) }}

// newRequestID returns the header value of a new request id, to keep as
// it is (its capacity is its length: an append copies it).
func newRequestID() []string {
	b := idBatches.Get().(*idBatch)
	if b.next == len(b.values) {
		b.fill()
	}
	v := b.values[b.next : b.next+1 : b.next+1]
	b.next++
	idBatches.Put(b)
	return v
}

// fill makes idsPerBatch new ids.
func (b *idBatch) fill() {
	const size = 32
	first := idCounter.Add(idsPerBatch) - idsPerBatch + 1
	var digits strings.Builder
	digits.Grow(size * idsPerBatch)
	var n [8]byte
	var hx [16]byte
	for i := range uint64(idsPerBatch) {
		digits.WriteString(idPrefix)
		binary.BigEndian.PutUint64(n[:], first+i)
		hex.Encode(hx[:], n[:])
		digits.Write(hx[:])
	}
	all := digits.String()
	b.values = make([]string, idsPerBatch)
	for i := range b.values {
		b.values[i] = all[i*size : (i+1)*size]
	}
	b.next = 0
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
		if saneRequestID(id) {
			w.Header()[RequestIDHeader] = []string{id}
		} else {
			v := newRequestID()
			id = v[0]
			w.Header()[RequestIDHeader] = v
		}
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
// in the vectors once and kept, so that a request pays one map read, and
// takes no lock: the map is never changed once published, but replaced by
// a copy with one more series (they are few: routes, methods, statuses).
// A read lock would be a write to memory that every core shares, on
// every request.
func (m *Metrics) series(route, method string, status int) requestSeries {
	k := seriesKey{route, method, status}
	if s, ok := (*m.seriesOf.Load())[k]; ok {
		return s
	}
	m.seriesMu.Lock()
	defer m.seriesMu.Unlock()
	old := *m.seriesOf.Load()
	if s, ok := old[k]; ok {
		return s
	}
	s := requestSeries{
		requests: m.requests.WithLabelValues(route, method, strconv.Itoa(status)),
		duration: m.duration.WithLabelValues(route, method),
	}
	next := make(map[seriesKey]requestSeries, len(old)+1)
	maps.Copy(next, old)
	next[k] = s
	m.seriesOf.Store(&next)
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
