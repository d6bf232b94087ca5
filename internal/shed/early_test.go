package shed

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestWholeRequests: a chunk counts as whole requests only when every line
// ends in CR LF, every request ends with its empty line, and none has a
// body.
func TestWholeRequests(t *testing.T) {
	const get = "GET /a HTTP/1.1\r\nHost: x\r\n\r\n"
	for _, c := range []struct {
		name, chunk string
		inFirstLine bool
		n           int
		ok          bool
	}{
		{"one", get, false, 1, true},
		{"two pipelined", get + get, false, 2, true},
		{"no headers", "GET /a HTTP/1.0\r\n\r\n", false, 1, true},
		{"partial header", "GET /a HTTP/1.1\r\nHost: x\r\n", false, 0, false},
		{"partial line", "GET /a HTTP/1.1\r\nHo", false, 0, false},
		{"one and a partial", get + "GET /b", false, 1, false},
		{"bare line feed", "GET /a HTTP/1.1\nHost: x\r\n\r\n", false, 0, false},
		{"bare line feeds", "GET /a HTTP/1.1\nHost: x\n\n", false, 0, false},
		{"empty line first", "\r\n" + get, false, 0, false},
		{"content length", "POST /a HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nhi", false, 0, false},
		{"content length, lower case", "GET /a HTTP/1.1\r\ncontent-length: 0\r\n\r\n", false, 0, false},
		{"transfer encoding", "POST /a HTTP/1.1\r\nTRANSFER-ENCODING: chunked\r\n\r\n0\r\n\r\n", false, 0, false},
		// Not a Content-Length; net/http refuses it (400) and closes.
		{"a space before the colon", "GET /a HTTP/1.1\r\nContent-Length : 2\r\n\r\n", false, 1, true},
		{"a header like one", "GET /a HTTP/1.1\r\nContent-Type: text/plain\r\nX-Content-Length: 3\r\n\r\n", false, 1, true},
		{"body header in the second", get + "POST /b HTTP/1.1\r\nContent-Length: 0\r\n\r\n", false, 1, false},
		{"the rest of a request line", "ET /a HTTP/1.1\r\nHost: x\r\n\r\n", true, 1, true},
		{"the rest, then one more", "ET /a HTTP/1.1\r\nHost: x\r\n\r\n" + get, true, 2, true},
		{"the rest, partial", "ET /a HTTP/1.1\r\n", true, 0, false},
		{"empty", "", false, 0, false},
	} {
		n, ok := wholeRequests([]byte(c.chunk), c.inFirstLine)
		if n != c.n || ok != c.ok {
			t.Errorf("%s: %d, %v; want %d, %v", c.name, n, ok, c.n, c.ok)
		}
	}
}

// TestFraming follows a connection's requests through reads: whole
// requests keep it at a request, a read of one byte (net/http's background
// read) is made good by the rest of its request, and anything else loses
// it for good.
func TestFraming(t *testing.T) {
	const get = "GET /a HTTP/1.1\r\nHost: x\r\n\r\n"
	type step struct {
		chunk string
		want  framing
		one   bool
	}
	for _, c := range []struct {
		name  string
		steps []step
	}{
		{"whole requests", []step{{get, atRequest, true}, {get + get, atRequest, false}, {get, atRequest, true}}},
		{"background read", []step{{"G", afterFirstByte, false}, {"ET /a HTTP/1.1\r\nHost: x\r\n\r\n", atRequest, false}, {get, atRequest, true}}},
		{"background read, then a partial", []step{{"G", afterFirstByte, false}, {"ET /a HTTP/1.1\r\n", lost, false}, {get, lost, false}}},
		{"a line feed is no first byte", []step{{"\n", lost, false}}},
		{"split request", []step{{"GET /a HTTP/1.1\r\n", lost, false}, {"Host: x\r\n\r\n", lost, false}, {get, lost, false}}},
		{"body", []step{{"POST /a HTTP/1.1\r\nContent-Length: 2\r\n\r\nhi", lost, false}, {get, lost, false}}},
		{"two single bytes", []step{{"G", afterFirstByte, false}, {"E", lost, false}}},
	} {
		f := atRequest
		for i, s := range c.steps {
			var one bool
			f, one = f.next([]byte(s.chunk))
			if f != s.want || one != s.one {
				t.Errorf("%s, read %d (%q): %d, %v; want %d, %v", c.name, i, s.chunk, f, one, s.want, s.one)
			}
		}
	}
}

// TestParseRequest: only a request net/http would answer and keep the
// connection open after, a GET or HEAD without a body, is refused before
// net/http.
func TestParseRequest(t *testing.T) {
	for _, c := range []struct {
		chunk string
		ok    bool
	}{
		{"GET /api/v1/status HTTP/1.1\r\nHost: x\r\n\r\n", true},
		{"HEAD /api/v1/status HTTP/1.1\r\nHost: x\r\nAccept-Encoding: gzip\r\n\r\n", true},
		{"GET /api/v1/status HTTP/1.1\r\n\r\n", false},                                 // no Host
		{"GET /api/v1/status HTTP/1.0\r\nHost: x\r\n\r\n", false},                      // closes after the answer
		{"GET /api/v1/status HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", false}, // asks to close
		{"GET /api/v1/status HTTP/1.1\r\nHost: x\r\nUpgrade: h2c\r\nConnection: Upgrade\r\n\r\n", false},
		{"POST /api/v1/status HTTP/1.1\r\nHost: x\r\n\r\n", false},
		{"OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n", false},
		{"GET http://x/api/v1/status HTTP/1.1\r\nHost: x\r\n\r\n", false},        // absolute form
		{"GET /api/v1/status HTTP/1.1\r\nHost: x\r\nOdd Name: y\r\n\r\n", false}, // parsed, then refused by net/http's server
		{"GET /api/v1/status HTTP/1.1\r\nHost: a b\r\n\r\n", false},
		{"GET /api/v1/status HTTP/1.1\r\nHost: x\r\nHost: y\r\n\r\n", false},
		{"GET /api/v1/status HTTP/1.1\r\nHost: x\r\nBad(Name: y\r\n\r\n", false},
		{"GET /api/v1/status HTTP/1.1\r\nHost: x\r\nX: a\x00b\r\n\r\n", false},
		{"GET /a HTTP/1.1\r\nHost: x\r\n\r\nGET /b HTTP/1.1\r\nHost: x\r\n\r\n", false}, // two
	} {
		if r := parseRequest([]byte(c.chunk)); (r != nil) != c.ok {
			t.Errorf("%q: parsed %v, want %v", c.chunk, r != nil, c.ok)
		}
	}
}

// TestEarlyDecision: a request is refused before net/http when it is late
// during an episode or would wait behind too many computations, and never
// when its path is exempt or its answer cached. A late refusal is counted
// for the controller as one of Wrap's is.
func TestEarlyDecision(t *testing.T) {
	chunk := func(path string) []byte { return []byte("GET " + path + " HTTP/1.1\r\nHost: x\r\n\r\n") }
	l := New(0, 5*time.Millisecond, discard)
	l.Exempt("/admin/")
	l.Cached(func(r *http.Request) bool { return r.URL.Path == "/cached" })
	refusal := func(path string, at int64) []byte {
		if a, refused := l.early(nil, chunk(path), at, time.Now()); refused {
			return a
		}
		return nil
	}
	now := time.Now().UnixNano()
	old := now - int64(time.Second)
	if refusal("/api/v1/status", old) != nil {
		t.Error("refused outside an episode, with no computation waiting")
	}
	l.overloaded.Store(true)
	if refusal("/api/v1/status", now) != nil {
		t.Error("refused a request that had not waited")
	}
	if refusal("/api/v1/status", 0) != nil {
		t.Error("refused a request whose wait is not known")
	}
	for _, p := range []string{"/admin/api/v1/page", "/cached"} {
		if refusal(p, old) != nil {
			t.Errorf("refused %s", p)
		}
	}
	if l.waited.Load()+l.late.Load()+l.lateRefused.Load() != 0 {
		t.Errorf("counted requests it let through: waited %d, late %d", l.waited.Load(), l.late.Load())
	}
	a := refusal("/api/v1/status", old)
	if a == nil || !strings.HasPrefix(string(a), "HTTP/1.1 503 Service Unavailable\r\n") {
		t.Fatalf("a late request in an episode: %q", a)
	}
	if l.waited.Load() != 1 || l.late.Load() != 1 || l.lateCostly.Load() != 1 || l.lateRefused.Load() != 1 {
		t.Errorf("counted waited %d, late %d, costly %d, refused %d; want 1 each",
			l.waited.Load(), l.late.Load(), l.lateCostly.Load(), l.lateRefused.Load())
	}
	// Computations: 8 waiting at 1 ms each is 8 ms, past half the target.
	l.overloaded.Store(false)
	l.queued.Store(minPending * l.procs)
	l.computeCost.Store(int64(time.Millisecond))
	if refusal("/api/v1/notices?page=3", now) == nil {
		t.Error("not refused behind 8 ms of computations")
	}
	if refusal("/cached", now) != nil {
		t.Error("refused a cached answer behind computations")
	}
	if l.lateRefused.Load() != 1 {
		t.Errorf("a refusal for computations counted as late: %d", l.lateRefused.Load())
	}
	l.computeCost.Store(int64(100 * time.Microsecond))
	if refusal("/api/v1/notices?page=3", now) != nil {
		t.Error("refused behind 0.8 ms of computations")
	}
}

// TestAnswerBytes: a rendered answer is written as net/http writes one:
// the status line, the handler's header in name order with line breaks in
// values made spaces and the ends trimmed, then Date and Content-Length
// unless the handler set them, then the body but for HEAD; appended to
// what the buffer held.
func TestAnswerBytes(t *testing.T) {
	a := &answer{header: http.Header{
		"X-Two":  {" a\r\nb ", "c"},
		"Accept": {"x"},
		"Date":   {"Sun, 22 Nov 2026 10:00:00 GMT"},
	}}
	a.WriteHeader(http.StatusServiceUnavailable)
	a.Write([]byte("busy"))
	want := "HTTP/1.1 503 Service Unavailable\r\nAccept: x\r\nDate: Sun, 22 Nov 2026 10:00:00 GMT\r\n" +
		"X-Two: a  b\r\nX-Two: c\r\nContent-Length: 4\r\n\r\n"
	at := time.Date(2026, 11, 22, 11, 30, 5, 0, time.FixedZone("CET", 3600))
	if got := string(a.appendTo([]byte("kept"), false, at)); got != "kept"+want+"busy" {
		t.Errorf("GET:\n got %q\nwant %q", got, "kept"+want+"busy")
	}
	if got := string(a.appendTo(nil, true, at)); got != want {
		t.Errorf("HEAD:\n got %q\nwant %q", got, want)
	}

	b := &answer{header: http.Header{"Content-Length": {"0"}}}
	// The Date is the moment given, in GMT: 11:30:05 CET is 10:30:05.
	got := string(b.appendTo(nil, false, at))
	if want := "HTTP/1.1 200 OK\r\nContent-Length: 0\r\nDate: Sun, 22 Nov 2026 10:30:05 GMT\r\n\r\n"; got != want {
		t.Errorf("no Date after the handler's header:\n got %q\nwant %q", got, want)
	}
}
