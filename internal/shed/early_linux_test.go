package shed

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// earlyServer is a server whose late requests are all refused (a target
// of 1 ns, in an episode), through the middleware of via: the answers
// refused before net/http carry X-Via: early, those of Wrap X-Via: wrap.
// /admin/ is exempt, /cached is cached, and /slow waits for release.
type earlyServer struct {
	l       *Limiter
	addr    string
	served  atomic.Int64 // requests the handler answered
	release chan struct{}
}

func via(name string) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("X-Via", name)
			if id := r.Header.Get("X-Request-Id"); id != "" {
				w.Header().Set("X-Via-Id", id)
			}
			next.ServeHTTP(w, r)
		})
	}
}

func newEarlyServer(t *testing.T) *earlyServer {
	t.Helper()
	return newEarlyServerTarget(t, time.Nanosecond)
}

// newEarlyServerTarget is newEarlyServer with a queue target of its own.
func newEarlyServerTarget(t *testing.T, target time.Duration) *earlyServer {
	t.Helper()
	stampsOn(t)
	s := &earlyServer{l: New(0, target, discard), release: make(chan struct{})}
	s.l.overloaded.Store(true)
	s.l.timing.Store(true)
	s.l.Exempt("/admin/")
	s.l.Cached(func(r *http.Request) bool { return r.URL.Path == "/cached" })
	s.l.AnswerThrough(via("early"), "x-request-id")
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/admin/slow" {
			<-s.release
		}
		s.served.Add(1)
		io.WriteString(w, "ok")
	})
	srv := httptest.NewUnstartedServer(via("wrap")(s.l.Wrap(h)))
	srv.Listener = s.l.Listen(srv.Listener)
	srv.Config.ConnContext = ConnContext
	srv.Start()
	t.Cleanup(srv.Close)
	s.addr = srv.Listener.Addr().String()
	return s
}

// client is one connection to the server, written to and read from by
// hand.
type client struct {
	t    *testing.T
	conn net.Conn
	br   *bufio.Reader
}

func (s *earlyServer) dial(t *testing.T) *client {
	t.Helper()
	c, err := net.Dial("tcp", s.addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	c.SetDeadline(time.Now().Add(10 * time.Second))
	return &client{t, c, bufio.NewReader(c)}
}

func (c *client) send(raw string) {
	c.t.Helper()
	if _, err := io.WriteString(c.conn, raw); err != nil {
		c.t.Fatal(err)
	}
}

// answer reads the next answer, to a request of method.
func (c *client) answer(method string) (*http.Response, string) {
	c.t.Helper()
	res, err := http.ReadResponse(c.br, &http.Request{Method: method})
	if err != nil {
		c.t.Fatal(err)
	}
	body, err := io.ReadAll(res.Body)
	if err != nil {
		c.t.Fatal(err)
	}
	return res, string(body)
}

// afterNetHTTP waits for net/http to end its background read of the
// connection (it does so just after it writes an answer): a request sent
// before then may have its first byte read by it, and go to net/http.
func afterNetHTTP() { time.Sleep(10 * time.Millisecond) }

func get(path string) string { return "GET " + path + " HTTP/1.1\r\nHost: x\r\n\r\n" }

// expect reads an answer and checks its status and who made it.
func (c *client) expect(method string, status int, by string) (*http.Response, string) {
	c.t.Helper()
	res, body := c.answer(method)
	if res.StatusCode != status || res.Header.Get("X-Via") != by {
		c.t.Errorf("%d from %q, want %d from %q", res.StatusCode, res.Header.Get("X-Via"), status, by)
	}
	return res, body
}

// TestEarlyRefusal: on a connection of Listen, a late request in an
// episode is refused before net/http, with the same answer that Wrap gives
// (but for the middleware's mark and the date), GET and HEAD, JSON and
// text; the connection stays open. Exempt paths and cached answers are
// served; requests that are not one whole GET or HEAD read at once go to
// net/http, and are refused by Wrap.
func TestEarlyRefusal(t *testing.T) {
	s := newEarlyServer(t)
	c := s.dial(t)

	c.send(get("/api/v1/status"))
	early, earlyBody := c.expect("GET", 503, "early")
	c.send(get("/api/v1/status") + get("/api/v1/status")) // pipelined: for net/http
	wrap, wrapBody := c.expect("GET", 503, "wrap")
	c.expect("GET", 503, "wrap")
	if earlyBody != wrapBody || !strings.Contains(earlyBody, `"code":"unavailable"`) {
		t.Errorf("early body %q, Wrap's %q", earlyBody, wrapBody)
	}
	for _, h := range []http.Header{early.Header, wrap.Header} {
		if h.Get("Date") == "" {
			t.Errorf("no Date: %v", h)
		}
		h.Del("Date")
		h.Del("X-Via")
	}
	if early.Header.Get("Content-Length") != strconv.Itoa(len(earlyBody)) || len(early.Header) != len(wrap.Header) {
		t.Errorf("early header %v, Wrap's %v", early.Header, wrap.Header)
	}
	for k := range wrap.Header {
		if early.Header.Get(k) != wrap.Header.Get(k) {
			t.Errorf("%s: early %q, Wrap's %q", k, early.Header.Get(k), wrap.Header.Get(k))
		}
	}

	afterNetHTTP()
	c.send("HEAD /api/v1/status HTTP/1.1\r\nHost: x\r\n\r\n")
	if res, body := c.expect("HEAD", 503, "early"); body != "" || res.ContentLength != int64(len(earlyBody)) {
		t.Errorf("HEAD: body %q, length %d", body, res.ContentLength)
	}
	c.send(get("/"))
	if res, body := c.expect("GET", 503, "early"); body != BusyText+"\n" || res.Header.Get("Content-Type") != "text/plain; charset=utf-8" {
		t.Errorf("/: %q, %v", body, res.Header)
	}
	c.send("GET /api/v1/status HTTP/1.1\r\nHost: x\r\nX-Request-Id: lb-7\r\n\r\n")
	if res, _ := c.expect("GET", 503, "early"); res.Header.Get("X-Via-Id") != "lb-7" {
		t.Errorf("the middleware read X-Request-Id as %q", res.Header.Get("X-Via-Id"))
	}
	c.send(get("/admin/api/v1/page"))
	c.expect("GET", 200, "wrap")
	c.send(get("/cached"))
	c.expect("GET", 200, "wrap")
	afterNetHTTP()
	c.send(get("/api/v1/components"))
	c.expect("GET", 503, "early") // still at a request after all that
	for _, raw := range []string{
		"GET /api/v1/status HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
		"GET /api/v1/status HTTP/1.0\r\nHost: x\r\n\r\n",
	} {
		c := s.dial(t)
		c.send(raw)
		if res, _ := c.expect("GET", 503, "wrap"); !res.Close {
			t.Errorf("%q: the connection stays open", raw)
		}
	}
	if s.served.Load() != 2 {
		t.Errorf("the handler answered %d requests, want 2", s.served.Load())
	}
	if got := s.l.Shed(); got != 9 {
		t.Errorf("Shed() = %d, want 9", got)
	}
}

// TestEarlyRefusalFraming: a body or a request split across reads stops
// early refusals on its connection (net/http refuses instead), a request
// whose first byte net/http's background read took does not.
func TestEarlyRefusalFraming(t *testing.T) {
	s := newEarlyServer(t)

	body := s.dial(t)
	body.send("POST /admin/api/v1/notices HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nhi")
	body.expect("POST", 200, "wrap")
	body.send(get("/api/v1/status"))
	body.expect("GET", 503, "wrap")

	split := s.dial(t)
	split.send("GET /api/v1/status HTTP/1.1\r\n")
	time.Sleep(20 * time.Millisecond)
	split.send("Host: x\r\n\r\n")
	split.expect("GET", 503, "wrap")
	split.send(get("/api/v1/status"))
	split.expect("GET", 503, "wrap")

	// While /admin/slow is served, net/http reads one byte in the
	// background: the next request's first.
	bg := s.dial(t)
	bg.send(get("/admin/slow"))
	time.Sleep(20 * time.Millisecond)
	bg.send(get("/api/v1/status"))
	time.Sleep(20 * time.Millisecond)
	close(s.release)
	bg.expect("GET", 200, "wrap")
	bg.expect("GET", 503, "wrap")
	afterNetHTTP()
	bg.send(get("/api/v1/status"))
	bg.expect("GET", 503, "early")

	// A name with a space before its colon is no Content-Length to the
	// framing; net/http refuses the request and closes the connection, so
	// no request after it is read.
	space := s.dial(t)
	space.send("GET /admin/a HTTP/1.1\r\nHost: x\r\nContent-Length : 2\r\n\r\n" + get("/admin/b"))
	if res, _ := space.answer("GET"); res.StatusCode != 400 || !res.Close {
		t.Errorf("a space before the colon: %d, closing %v", res.StatusCode, res.Close)
	}
}

// TestWriteRefusalWhole: a refusal more than the connection's buffers
// hold, to a client that reads late, is written whole: what the first
// write leaves, under a deadline.
func TestWriteRefusalWhole(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	client, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	server, err := New(0, time.Nanosecond, discard).Listen(ln).Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer server.Close()
	sc, ok := server.(*stampedConn)
	if !ok {
		t.Skipf("no stamped connection: %T", server)
	}
	big := bytes.Repeat([]byte("0123456789abcdef"), 1<<18) // 4 MiB
	written := make(chan error, 1)
	go func() {
		rest := sc.tryRefusal(big)
		if len(rest) == 0 {
			written <- errors.New("one write took the whole refusal: nothing was left to write under a deadline")
			return
		}
		written <- sc.writeRest(rest)
	}()
	time.Sleep(50 * time.Millisecond) // for the first write to fill the buffers
	client.SetReadDeadline(time.Now().Add(10 * time.Second))
	got := make([]byte, len(big))
	if _, err := io.ReadFull(client, got); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, big) {
		t.Error("the refusal came changed")
	}
	if err := <-written; err != nil {
		t.Error(err)
	}
}

// TestPauseAfterRefusal: while pausing, a connection refused before
// net/http reads its next request only after pauseFor, and that request's
// wait is counted from then: not late, it is served.
func TestPauseAfterRefusal(t *testing.T) {
	s := newEarlyServerTarget(t, 200*time.Millisecond)
	s.l.queued.Store(1000) // computations waiting: the gate is full
	s.l.computeCost.Store(int64(time.Second))
	s.l.pausing.Store(true)
	c := s.dial(t)
	c.send(get("/api/v1/status"))
	c.expect("GET", 503, "early")
	s.l.queued.Store(0) // the gate has room again
	sent := time.Now()
	c.send(get("/api/v1/status"))
	c.expect("GET", 200, "wrap")
	// The pause began before the refusal was read: the wait from the
	// second request is a little less than pauseFor.
	if waited := time.Since(sent); waited < pauseFor/2 {
		t.Errorf("the request after a refusal was answered after %v, want about %v", waited, pauseFor)
	}
	if got := s.l.paused.Load(); got != 1 {
		t.Errorf("paused = %d, want 1", got)
	}
}
