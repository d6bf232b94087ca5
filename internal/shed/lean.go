package shed

import (
	"bytes"
	"net/http"
	"net/textproto"
	"net/url"
	"sync"
	"unsafe"

	"golang.org/x/net/http/httpguts"
)

// A refusal made before net/http parses its request too, for the path
// that decides whether it is refused (exempt, cached) and for the
// middleware its answer goes through. net/http's parser makes a map of
// every header, with a string for each name and value: half the work of
// an early refusal. leanRequest parses the shape that clients send, and
// nothing else: a request line with a path and HTTP/1.1, headers of token
// names and valid values (as net/http's server checks them), one valid
// Host, no Connection but keep-alive, no Upgrade. It keeps only the
// headers the middleware reads (see AnswerThrough). Anything else goes to
// net/http's parser (parseRequest), so that early refusals answer exactly
// the requests they did.

// leanRequest is a request parsed by parse, with its room reused.
type leanRequest struct {
	req    http.Request
	header http.Header
	values []string // room for the kept headers' values
}

// leanRequests are reused from refusal to refusal.
var leanRequests = sync.Pool{New: func() any { return &leanRequest{header: http.Header{}} }}

// release clears p and puts it back in leanRequests.
func (p *leanRequest) release() {
	p.reset()
	leanRequests.Put(p)
}

// reset clears p for the next request, keeping its room.
func (p *leanRequest) reset() {
	clear(p.header)
	clear(p.values)
	p.req, p.values = http.Request{}, p.values[:0]
}

var (
	crlf      = []byte("\r\n")
	getSP     = []byte("GET ")
	headSP    = []byte("HEAD ")
	http11    = []byte("HTTP/1.1")
	keepAlive = []byte("keep-alive")
)

// parse parses chunk, one whole request (see wholeRequests), keeping the
// headers named in keep (canonical names), and returns the request when it
// has the shape described above, a GET or HEAD that net/http would answer
// and keep the connection open after; nil when it has not, which says
// nothing of what net/http would do with it.
func (p *leanRequest) parse(chunk []byte, keep []string) *http.Request {
	line, rest, _ := bytes.Cut(chunk, crlf)
	var method string
	switch {
	case bytes.HasPrefix(line, getSP):
		method, line = http.MethodGet, line[len(getSP):]
	case bytes.HasPrefix(line, headSP):
		method, line = http.MethodHead, line[len(headSP):]
	default:
		return nil
	}
	target, proto, _ := bytes.Cut(line, []byte{' '})
	if !bytes.Equal(proto, http11) || len(target) == 0 || target[0] != '/' {
		return nil
	}
	var host []byte
	hosts := 0
	for {
		line, rest, _ = bytes.Cut(rest, crlf)
		if len(line) == 0 {
			break
		}
		name, value, found := bytes.Cut(line, []byte{':'})
		if !found || !httpguts.ValidHeaderFieldName(view(name)) || !httpguts.ValidHeaderFieldValue(view(value)) {
			return nil
		}
		value = bytes.Trim(value, " \t")
		switch {
		case bytes.EqualFold(name, []byte("Host")):
			host = value
			hosts++
		case bytes.EqualFold(name, []byte("Connection")):
			if !bytes.EqualFold(value, keepAlive) {
				return nil
			}
		case bytes.EqualFold(name, []byte("Upgrade")):
			return nil
		default:
			if !p.keep(name, value, keep) {
				return nil
			}
		}
	}
	if hosts != 1 || !httpguts.ValidHostHeader(string(host)) {
		return nil
	}
	uri := string(target)
	u, err := url.ParseRequestURI(uri)
	if err != nil {
		return nil
	}
	p.req = http.Request{Method: method, URL: u, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: p.header, Body: http.NoBody, Host: string(host), RequestURI: uri}
	return &p.req
}

// keep adds the header to p's when keep names it, and reports false when
// the header was already there: a repeated header is left to net/http's
// parser, which keeps every value.
func (p *leanRequest) keep(name, value []byte, keep []string) bool {
	for _, k := range keep {
		if !bytes.EqualFold(name, []byte(k)) {
			continue
		}
		if _, ok := p.header[k]; ok {
			return false
		}
		i := len(p.values)
		p.values = append(p.values, string(value))
		p.header[k] = p.values[i : i+1 : i+1]
		return true
	}
	return true
}

// view is b as a string without a copy, for a call that does not keep it
// while b stays as it is.
func view(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

// canonicalNames returns names in net/http's canonical form.
func canonicalNames(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = textproto.CanonicalMIMEHeaderKey(n)
	}
	return out
}
