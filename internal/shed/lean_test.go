package shed

import (
	"net/http"
	"slices"
	"testing"
)

// TestLeanRequest: the lean parser takes the requests that clients send
// (wrk's, Go's, a browser's) as net/http's parser does, keeping only the
// headers asked for; it leaves everything else to net/http's parser
// (parseRequest): it never takes a request that parser would not, nor
// reads one differently.
func TestLeanRequest(t *testing.T) {
	keep := canonicalNames([]string{"x-request-id"})
	for _, c := range []struct {
		chunk string
		lean  bool   // taken by the lean parser
		path  string // its URL.Path, when taken
		query string
		id    string // its X-Request-Id
		full  bool   // taken by net/http's parser, when not by the lean one
	}{
		{"GET /api/v1/status HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n\r\n", true, "/api/v1/status", "", "", false},
		{"GET /api/v1/notices?page=3&filter%5Btype_eq%5D=unplanned HTTP/1.1\r\nHost: localhost:8080\r\n" +
			"User-Agent: Go-http-client/1.1\r\nAccept-Encoding: gzip\r\n\r\n",
			true, "/api/v1/notices", "page=3&filter%5Btype_eq%5D=unplanned", "", false},
		{"HEAD /a%20b HTTP/1.1\r\nhost: x\r\nConnection: Keep-Alive\r\nx-request-id:  lb-1 \r\n\r\n", true, "/a b", "", "lb-1", false},
		{"GET / HTTP/1.1\r\nHost: [::1]:80\r\nAccept: text/html,*/*;q=0.8\r\nIf-None-Match: \"abc\"\r\n" +
			"User-Agent: Mozilla/5.0 (X11; Linux x86_64)\r\nCookie: a=b; c=d\r\n\r\n", true, "/", "", "", false},
		{"GET /caf\xc3\xa9 HTTP/1.1\r\nHost: x\r\n\r\n", true, "/caf\xc3\xa9", "", "", false},
		{"GET /api/v1/status HTTP/1.1\r\nHost: x\r\nX-Name: caf\xc3\xa9\r\n\r\n", true, "/api/v1/status", "", "", false},
		// Left to net/http's parser, which takes these too.
		{"GET /api/v1/status HTTP/1.1\r\nHost: x\r\nX-Request-Id: a\r\nX-Request-Id: b\r\n\r\n", false, "", "", "", true},
		// Left to it, which refuses them.
		{"GET /api/v1/status HTTP/1.1\r\n\r\n", false, "", "", "", false},
		{"GET /api/v1/status HTTP/1.1\r\nHost: x\r\nHost: y\r\n\r\n", false, "", "", "", false},
		{"GET /api/v1/status HTTP/1.1\r\nHost: a b\r\n\r\n", false, "", "", "", false},
		{"GET /api/v1/status HTTP/1.0\r\nHost: x\r\n\r\n", false, "", "", "", false},
		{"GET /api/v1/status HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", false, "", "", "", false},
		{"GET /api/v1/status HTTP/1.1\r\nHost: x\r\nUpgrade: h2c\r\nConnection: Upgrade\r\n\r\n", false, "", "", "", false},
		{"POST /api/v1/status HTTP/1.1\r\nHost: x\r\n\r\n", false, "", "", "", false},
		{"GET http://x/api/v1/status HTTP/1.1\r\nHost: x\r\n\r\n", false, "", "", "", false},
		{"GET  /api/v1/status HTTP/1.1\r\nHost: x\r\n\r\n", false, "", "", "", false},
		{"GET /a b HTTP/1.1\r\nHost: x\r\n\r\n", false, "", "", "", false},
		{"GET /api/v1/status HTTP/1.1\r\nHost: x\r\nOdd Name: y\r\n\r\n", false, "", "", "", false},
		{"GET /api/v1/status HTTP/1.1\r\nHost: x\r\nBad(Name: y\r\n\r\n", false, "", "", "", false},
		{"GET /api/v1/status HTTP/1.1\r\nHost: x\r\nX: a\x00b\r\n\r\n", false, "", "", "", false},
		{"GET /a\x7fb HTTP/1.1\r\nHost: x\r\n\r\n", false, "", "", "", false},
		{"GET /api/v1/status HTTP/1.1\r\nHost: x\r\n Folded: y\r\n\r\n", false, "", "", "", false},
		{"GET /%zz HTTP/1.1\r\nHost: x\r\n\r\n", false, "", "", "", false},
	} {
		p := leanRequests.Get().(*leanRequest)
		r := p.parse([]byte(c.chunk), keep)
		if (r != nil) != c.lean {
			t.Errorf("%q: taken %v, want %v", c.chunk, r != nil, c.lean)
			p.release()
			continue
		}
		if r == nil {
			if full := parseRequest([]byte(c.chunk)) != nil; full != c.full {
				t.Errorf("%q: taken by net/http's parser %v, want %v", c.chunk, full, c.full)
			}
			p.release()
			continue
		}
		if r.URL.Path != c.path || r.URL.RawQuery != c.query || r.Header.Get("X-Request-Id") != c.id || len(r.Header) > 1 {
			t.Errorf("%q: path %q, query %q, header %v", c.chunk, r.URL.Path, r.URL.RawQuery, r.Header)
		}
		full := parseRequest([]byte(c.chunk))
		if full == nil {
			t.Errorf("%q: net/http's parser does not take it", c.chunk)
		} else if r.Method != full.Method || r.RequestURI != full.RequestURI || *r.URL != *full.URL || r.Host != full.Host ||
			r.Proto != full.Proto || r.ProtoMajor != full.ProtoMajor || r.ProtoMinor != full.ProtoMinor ||
			!slices.Equal(r.Header["X-Request-Id"], full.Header["X-Request-Id"]) || r.Body != http.NoBody {
			t.Errorf("%q: read as\n %+v\nnet/http's parser:\n %+v", c.chunk, r, full)
		}
		p.release()
	}
}

// TestLeanRequestReused: a request's kept headers are gone from the next
// one parsed in the same room.
func TestLeanRequestReused(t *testing.T) {
	keep := []string{"X-Request-Id"}
	p := &leanRequest{header: http.Header{}}
	if r := p.parse([]byte("GET /a HTTP/1.1\r\nHost: x\r\nX-Request-Id: one\r\n\r\n"), keep); r == nil || r.Header.Get("X-Request-Id") != "one" {
		t.Fatalf("first: %+v", r)
	}
	p.reset()
	r := p.parse([]byte("GET /b HTTP/1.1\r\nHost: x\r\n\r\n"), keep)
	if r == nil || r.URL.Path != "/b" || len(r.Header) != 0 {
		t.Fatalf("second: %+v", r)
	}
}
