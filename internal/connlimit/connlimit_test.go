package connlimit

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"sync"
	"testing"
	"time"
)

// clock is a time that tests move by hand.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }

func (c *clock) advance(d time.Duration) { c.mu.Lock(); c.t = c.t.Add(d); c.mu.Unlock() }

// server serves l's listener on a free loopback port: /busy answers only
// once release is closed, any other path at once. It returns the address.
func server(t *testing.T, l *Limiter, release chan struct{}) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/busy" {
			<-release
		}
		io.WriteString(w, "ok")
	})}
	go srv.Serve(l.Listen(ln, srv))
	t.Cleanup(func() { srv.Close() })
	return ln.Addr().String()
}

// client is a connection that tests send requests on.
type client struct {
	t  *testing.T
	nc net.Conn
	br *bufio.Reader
}

func dial(t *testing.T, addr string) *client {
	t.Helper()
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	return &client{t: t, nc: nc, br: bufio.NewReader(nc)}
}

// send writes a GET of path.
func (c *client) send(path string) {
	fmt.Fprintf(c.nc, "GET %s HTTP/1.1\r\nHost: test\r\n\r\n", path)
}

// answered reads the answer to the request sent, and reports whether
// there was one; false when the server closed the connection. The
// connection is idle after an answer.
func (c *client) answered() bool {
	c.t.Helper()
	c.nc.SetReadDeadline(time.Now().Add(2 * time.Second))
	res, err := http.ReadResponse(c.br, nil)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		c.t.Fatal("neither answered nor closed within 2 s")
	}
	if err != nil {
		return false
	}
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
	return true
}

// closed reports whether the server closed the idle connection: it reads
// the end of the stream, rather than waiting in vain for 200 ms.
func (c *client) closed() bool {
	c.nc.SetReadDeadline(time.Now().Add(200 * time.Millisecond))
	_, err := c.br.ReadByte()
	var ne net.Error
	return err != nil && !(errors.As(err, &ne) && ne.Timeout())
}

// idle opens n connections to l's server at addr that each make a
// request and stay idle, one after the other: each is idle in l before
// the next is opened, so that they are idle for the longest in their
// order. (net/http tells a connection idle right after writing its
// answer, which the client may read first.)
func idle(t *testing.T, l *Limiter, addr string, n int) []*client {
	t.Helper()
	var cs []*client
	for i := range n {
		c := dial(t, addr)
		c.send("/")
		if !c.answered() {
			t.Fatalf("idle connection %d of %d refused", i+1, n)
		}
		cs = append(cs, c)
		waitIdle(t, l, i+1)
	}
	return cs
}

// waitIdle waits, up to 5 s, until l holds n connections idle.
func waitIdle(t *testing.T, l *Limiter, n int) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(time.Millisecond) {
		l.mu.Lock()
		idle := 0
		for cn := l.idle.head; cn != nil; cn = cn.next {
			idle++
		}
		l.mu.Unlock()
		if idle >= n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d connections idle after 5 s, want %d", idle, n)
		}
	}
}

func quiet() *slog.Logger { return slog.New(slog.DiscardHandler) }

// TestPerClient checks that a client holding its share is refused another
// connection at once, gets one again once it closes one, and that exempt
// peers are capped only in total.
func TestPerClient(t *testing.T) {
	l := New(0, 2, nil, quiet())
	addr := server(t, l, nil)
	cs := idle(t, l, addr, 2)
	third := dial(t, addr)
	third.send("/")
	if third.answered() {
		t.Fatal("a third connection of a client capped at 2 was answered")
	}
	cs[0].nc.Close()
	time.Sleep(50 * time.Millisecond)
	again := dial(t, addr)
	again.send("/")
	if !again.answered() {
		t.Error("refused after closing one of its 2 connections")
	}

	le := New(0, 2, []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}, quiet())
	idle(t, le, server(t, le, nil), 3)
}

// TestAtCap checks that at the cap a new connection closes the one idle
// for the longest, and is refused when none is idle.
func TestAtCap(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	l := New(4, 0, nil, quiet())
	addr := server(t, l, release)
	cs := idle(t, l, addr, 4)
	fifth := dial(t, addr)
	fifth.send("/")
	if !fifth.answered() {
		t.Fatal("a fifth connection was refused while 4 were idle")
	}
	for i, c := range cs {
		if want := i == 0; c.closed() != want {
			t.Errorf("idle connection %d: closed %v, want %v (only the one idle for the longest)", i+1, !want, want)
		}
	}
	// Now 4 are open (2, 3, 4, 5): keep each busy with a request.
	for _, c := range append(cs[1:], fifth) {
		c.send("/busy")
	}
	time.Sleep(50 * time.Millisecond)
	sixth := dial(t, addr)
	sixth.send("/")
	if sixth.answered() {
		t.Error("a connection past the cap was answered while every one was busy")
	}
}

// TestShortIdleNearCap checks that from three quarters of the cap on, a
// new connection closes those idle for longer than ShortIdle, and only
// those.
func TestShortIdleNearCap(t *testing.T) {
	for _, tc := range []struct {
		name   string
		open   int           // idle connections before the new one
		after  time.Duration // since they became idle
		closed bool
	}{
		{"below three quarters", 5, ShortIdle + time.Second, false},
		{"near the cap, idle not long", 6, ShortIdle - time.Second, false},
		{"near the cap, idle long", 6, ShortIdle + time.Second, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clk := &clock{t: time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)}
			l := New(8, 0, nil, quiet())
			l.now = clk.now
			addr := server(t, l, nil)
			cs := idle(t, l, addr, tc.open)
			clk.advance(tc.after)
			c := dial(t, addr)
			c.send("/")
			if !c.answered() {
				t.Fatal("the new connection was refused")
			}
			for i, c := range cs {
				if got := c.closed(); got != tc.closed {
					t.Errorf("idle connection %d: closed %v, want %v", i+1, got, tc.closed)
				}
			}
		})
	}
}

// TestIdleOrder checks that a connection that is answered again goes
// behind the others idle: at the cap, new connections close those idle
// for longer first.
func TestIdleOrder(t *testing.T) {
	l := New(4, 0, nil, quiet())
	addr := server(t, l, nil)
	cs := idle(t, l, addr, 4) // idle for the longest first: 1, 2, 3, 4
	cs[1].send("/")
	if !cs[1].answered() {
		t.Fatal("an idle connection's second request was not answered")
	}
	// It went busy before its answer was written, and is idle again, now
	// 1, 3, 4, 2, once four are idle.
	waitIdle(t, l, 4)
	// A fifth closes 1 and is idle behind 2 (3, 4, 2, 5); a sixth closes 3.
	for i := range 2 {
		c := dial(t, addr)
		c.send("/")
		if !c.answered() {
			t.Fatalf("new connection %d refused while 4 were idle", i+1)
		}
		time.Sleep(50 * time.Millisecond)
	}
	for i, c := range cs {
		if want := i == 0 || i == 2; c.closed() != want {
			t.Errorf("connection %d: closed %v, want %v (1 and 3 only)", i+1, !want, want)
		}
	}
}

// newPipe is one end of a new pipe that l admitted, its state new; both
// ends are closed when t ends.
func newPipe(t *testing.T, l *Limiter) net.Conn {
	a, b := net.Pipe()
	t.Cleanup(func() { a.Close(); b.Close() })
	if !l.admit(a) {
		t.Fatal("a first connection was refused")
	}
	l.follow(a, http.StateNew)
	return a
}

// TestFollowAllocs checks that following a keep-alive request (its
// connection active, then idle again) allocates nothing.
func TestFollowAllocs(t *testing.T) {
	l := New(10, 0, nil, quiet())
	a := newPipe(t, l)
	allocs := testing.AllocsPerRun(100, func() {
		l.follow(a, http.StateActive)
		l.follow(a, http.StateIdle)
	})
	if cn := l.conns[a]; allocs != 0 || cn == nil || !cn.idle || l.idle.head != cn || l.idle.tail != cn {
		t.Errorf("%v allocations a request, connection %+v; want none, and the connection the one idle", allocs, cn)
	}
}

// BenchmarkFollow is what following a keep-alive request costs: its
// connection active, then idle again.
func BenchmarkFollow(b *testing.B) {
	l := New(10, 0, nil, quiet())
	c1, c2 := net.Pipe()
	defer c1.Close()
	defer c2.Close()
	l.admit(c1)
	l.follow(c1, http.StateNew)
	b.ReportAllocs()
	for b.Loop() {
		l.follow(c1, http.StateActive)
		l.follow(c1, http.StateIdle)
	}
}

// TestActiveTakesNoLock: a request's start (StateActive) is followed
// without the limiter's lock, which every request would otherwise take
// twice; the connection, busy, stays in the idle list until a look at it
// takes it out, and is never closed as idle.
func TestActiveTakesNoLock(t *testing.T) {
	l := New(10, 0, nil, quiet())
	a := newPipe(t, l)
	l.follow(a, http.StateIdle)
	l.mu.Lock()
	done := make(chan struct{})
	go func() {
		l.follow(a, http.StateActive)
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(2 * time.Second):
		t.Fatal("StateActive waited for the limiter's lock")
	}
	cn := l.conns[a]
	if cn.state.Load() != stateBusy || !cn.idle {
		t.Errorf("after StateActive: state %d, in the idle list %v; want busy, still listed", cn.state.Load(), cn.idle)
	}
	l.closeIdle(func(*conn) bool { return true })
	if l.conns[a] == nil || cn.idle || l.idle.head != nil {
		t.Errorf("closeIdle closed a busy connection (%v), or left it listed (%v)", l.conns[a] == nil, cn.idle)
	}
	l.mu.Unlock()
	l.follow(a, http.StateIdle)
	if cn.state.Load() != stateIdle || l.idle.head != cn {
		t.Errorf("idle again: state %d, head of the idle list %v", cn.state.Load(), l.idle.head == cn)
	}
}

// BenchmarkFollowParallel is BenchmarkFollow on every core at once, each
// goroutine a keep-alive connection of its own, as a busy server's are:
// what the limiter's shared state costs across cores.
func BenchmarkFollowParallel(b *testing.B) {
	l := New(1<<20, 0, nil, quiet())
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		c1, c2 := net.Pipe()
		defer c1.Close()
		defer c2.Close()
		l.admit(c1)
		l.follow(c1, http.StateNew)
		for pb.Next() {
			l.follow(c1, http.StateActive)
			l.follow(c1, http.StateIdle)
		}
	})
}
