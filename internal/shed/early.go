package shed

import (
	"bufio"
	"bytes"
	"net/http"
	"net/textproto"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/net/http/httpguts"
)

// A refusal made through net/http costs the server about what serving a
// cached answer does: net/http reads and parses the request, makes its
// response and header maps, starts a goroutine to watch the connection
// while the handler runs, and flushes the answer. Under a flood of
// requests that each need a computation, that is a third of the cost of a
// computed answer, so that refusing twice the capacity leaves little of it
// to serve.
//
// While queueing goroutines have the connections of Listen read arrival
// times, a connection therefore refuses a request before net/http sees
// it, when the request is one whole GET or HEAD read at once, and when it
// would be refused anyway: it is late during an episode of overload (see
// controller), or it would be computed behind more computations than Admit
// lets wait; and its answer is not cached. The connection writes the 503
// itself, made by the same handler as Wrap's refusals behind the same
// middleware (see AnswerThrough), and reads on: net/http only sees a
// longer wait for the next request. The connection stays open.
//
// To answer exactly one request where net/http would read one, each
// connection follows where the requests begin in the bytes it hands to
// net/http (see framing); anything but whole requests without a body (a
// body, a request split across reads, a bare line feed) stops early
// refusals on that connection for good, and net/http answers as before.

// framing is where a connection stands in the requests of its stream, as
// far as early refusals need to know.
type framing uint8

const (
	// atRequest: the bytes handed to net/http so far end with whole
	// requests; the next byte starts one.
	atRequest framing = iota
	// afterFirstByte: the last read took only a request's first byte, as
	// net/http's background read of one byte does while a handler runs.
	afterFirstByte
	// lost: anything else was seen; no early refusal on this connection
	// again.
	lost
)

// next is the framing after chunk was read and handed to net/http, and
// whether chunk was exactly one whole request starting where a request
// starts (and so could be answered in net/http's place).
func (f framing) next(chunk []byte) (framing, bool) {
	switch f {
	case atRequest:
		if len(chunk) == 1 && chunk[0] != '\r' && chunk[0] != '\n' {
			return afterFirstByte, false
		}
		if n, ok := wholeRequests(chunk, false); ok {
			return atRequest, n == 1
		}
	case afterFirstByte:
		if _, ok := wholeRequests(chunk, true); ok {
			return atRequest, false
		}
	}
	return lost, false
}

// wholeRequests counts the requests in chunk and reports whether it is
// nothing but whole requests without a body, every line ended by CR LF
// (the way net/http reads them then ends each at its first empty line).
// inFirstLine says that chunk continues a request line already begun.
func wholeRequests(chunk []byte, inFirstLine bool) (n int, ok bool) {
	requestLine, inRequest := true, inFirstLine
	for len(chunk) > 0 {
		i := bytes.IndexByte(chunk, '\n')
		if i < 1 || chunk[i-1] != '\r' {
			return n, false // a partial line or a bare line feed
		}
		line := chunk[:i-1]
		chunk = chunk[i+1:]
		switch {
		case requestLine:
			if len(line) == 0 && !inRequest {
				return n, false // an empty line where a request line starts
			}
			requestLine, inRequest = false, true
		case len(line) == 0:
			n++
			requestLine, inRequest = true, false
		case startsBody(line):
			return n, false
		}
	}
	return n, n > 0 && !inRequest
}

// startsBody reports whether a header line gives its request a body.
func startsBody(line []byte) bool {
	switch line[0] {
	case 'C', 'c', 'T', 't':
	default:
		return false
	}
	name, _, _ := bytes.Cut(line, []byte{':'})
	return bytes.EqualFold(name, []byte("Content-Length")) || bytes.EqualFold(name, []byte("Transfer-Encoding"))
}

// Exempt sets the path prefixes that are never refused, by Wrap or before
// it (the admin API: operators must be able to publish during the spike).
// Call it before serving.
func (l *Limiter) Exempt(prefixes ...string) { l.exempt = prefixes }

// AnswerThrough sets the middleware that the refusals made before net/http
// go through, as those of Wrap go through the middleware around it: the
// request id, the metrics and the log of each request. headers names the
// request headers that the middleware reads: the requests it is given
// hold those, and maybe others. Call it before serving.
func (l *Limiter) AnswerThrough(middleware func(http.Handler) http.Handler, headers ...string) {
	l.refusal = middleware(http.HandlerFunc(l.refuseRequest))
	l.readHeaders = canonicalNames(headers)
}

func (l *Limiter) exempted(path string) bool {
	for _, p := range l.exempt {
		if strings.HasPrefix(path, p) {
			return true
		}
	}
	return false
}

// early appends to dst the answer to write in net/http's place to chunk,
// one whole request whose bytes arrived at the given moment (Unix ns; 0:
// not known), read at now, and reports whether it refused the request;
// when it did not, net/http reads it.
func (l *Limiter) early(dst, chunk []byte, arrivedAt int64, now time.Time) ([]byte, bool) {
	late := arrivedAt != 0 && l.overloaded.Load() && now.UnixNano()-arrivedAt > int64(l.queueTarget)
	if !late && !l.computationsFull() {
		return dst, false // the common case, decided without parsing
	}
	lean := leanRequests.Get().(*leanRequest)
	defer lean.release()
	r := lean.parse(chunk, l.readHeaders)
	if r == nil {
		r = parseRequest(chunk)
	}
	if r == nil || l.exempted(r.URL.Path) || l.isCached(r) {
		return dst, false
	}
	if late {
		l.waited.Add(1)
		l.late.Add(1)
		l.lateCostly.Add(1)
		l.lateRefused.Add(1)
	} else {
		l.gateRefused.Add(1)
	}
	return l.render(dst, r, now), true
}

// readers parse requests for early refusals.
var readers = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, 4096) }}

// parseRequest parses chunk, one whole request, with net/http's own
// parser, and returns it when it is a request that net/http would answer
// and keep the connection open after: GET or HEAD of a path, HTTP/1.1, one
// valid Host, valid header names and values, no body, nothing asking to
// close or to switch protocols. Otherwise it returns nil.
func parseRequest(chunk []byte) *http.Request {
	br := readers.Get().(*bufio.Reader)
	defer readers.Put(br)
	br.Reset(bytes.NewReader(chunk))
	r, err := http.ReadRequest(br)
	if err != nil || br.Buffered() != 0 {
		return nil
	}
	if (r.Method != http.MethodGet && r.Method != http.MethodHead) || !strings.HasPrefix(r.RequestURI, "/") ||
		r.ProtoMajor != 1 || r.ProtoMinor != 1 || r.Close || r.ContentLength != 0 || len(r.TransferEncoding) != 0 ||
		r.Host == "" || r.Header.Get("Upgrade") != "" || !validHeader(r) {
		return nil
	}
	return r
}

// validHeader reports whether r's Host and header pass the checks that
// net/http's server makes of a request read (it answers 400 otherwise).
func validHeader(r *http.Request) bool {
	if len(r.Header["Host"]) > 1 || !httpguts.ValidHostHeader(r.Host) {
		return false
	}
	for name, values := range r.Header {
		if !httpguts.ValidHeaderFieldName(name) {
			return false
		}
		for _, v := range values {
			if !httpguts.ValidHeaderFieldValue(v) {
				return false
			}
		}
	}
	return true
}

// answers are the answers that refusals are rendered in, reused: a
// refusal must cost as little as it can.
var answers = sync.Pool{New: func() any { return &answer{header: http.Header{}} }}

// render appends to dst the refusal of r, as net/http would write it at
// now.
func (l *Limiter) render(dst []byte, r *http.Request, now time.Time) []byte {
	a := answers.Get().(*answer)
	defer func() {
		clear(a.header)
		clear(a.names)
		a.status, a.body = 0, a.body[:0]
		answers.Put(a)
	}()
	l.refusal.ServeHTTP(a, r)
	return a.appendTo(dst, r.Method == http.MethodHead, now)
}

// answer is a ResponseWriter that keeps an answer, to be written as a
// whole.
type answer struct {
	header http.Header
	status int
	body   []byte
	names  []string // room for appendTo's sorted names
}

func (a *answer) Header() http.Header { return a.header }

func (a *answer) WriteHeader(status int) {
	if a.status == 0 {
		a.status = status
	}
}

func (a *answer) Write(b []byte) (int, error) {
	a.WriteHeader(http.StatusOK)
	a.body = append(a.body, b...)
	return len(b), nil
}

// appendTo appends the answer to dst in HTTP/1.1, as net/http writes it:
// the header set by the handler, as http.Header's own Write does (names in
// order, line breaks in values made spaces, the ends trimmed), then the
// Date (of now) and Content-Length that net/http adds when the handler
// did not set them; then the body, but for a HEAD request.
func (a *answer) appendTo(dst []byte, head bool, now time.Time) []byte {
	a.WriteHeader(http.StatusOK)
	dst = append(dst, "HTTP/1.1 "...)
	dst = strconv.AppendInt(dst, int64(a.status), 10)
	dst = append(dst, ' ')
	dst = append(dst, http.StatusText(a.status)...)
	dst = append(dst, "\r\n"...)
	a.names = a.names[:0]
	for name := range a.header {
		a.names = append(a.names, name)
	}
	slices.Sort(a.names)
	for _, name := range a.names {
		for _, v := range a.header[name] {
			dst = append(dst, name...)
			dst = append(dst, ": "...)
			dst = appendFieldValue(dst, v)
			dst = append(dst, "\r\n"...)
		}
	}
	if _, ok := a.header["Date"]; !ok {
		dst = append(dst, "Date: "...)
		dst = append(dst, httpDate(now)...)
		dst = append(dst, "\r\n"...)
	}
	if _, ok := a.header["Content-Length"]; !ok {
		dst = append(dst, "Content-Length: "...)
		dst = strconv.AppendInt(dst, int64(len(a.body)), 10)
		dst = append(dst, "\r\n"...)
	}
	dst = append(dst, "\r\n"...)
	if !head {
		dst = append(dst, a.body...)
	}
	return dst
}

// appendFieldValue appends v as http.Header's Write writes a value: each
// line break made a space, then spaces, tabs and line breaks trimmed from
// both ends.
func appendFieldValue(dst []byte, v string) []byte {
	v = textproto.TrimString(v)
	for {
		i := strings.IndexAny(v, "\r\n")
		if i < 0 {
			return append(dst, v...)
		}
		dst = append(dst, v[:i]...)
		dst = append(dst, ' ')
		v = v[i+1:]
	}
}

// date is an HTTP date and the second it names.
type date struct {
	unix int64
	text string
}

// lastDate is the Date of the last answer rendered: within a second, the
// next answers reuse it.
var lastDate atomic.Pointer[date]

// httpDate is now as the Date header gives it (http.TimeFormat).
func httpDate(now time.Time) string {
	sec := now.Unix()
	if d := lastDate.Load(); d != nil && d.unix == sec {
		return d.text
	}
	d := &date{sec, now.UTC().Format(http.TimeFormat)}
	lastDate.Store(d)
	return d.text
}
