// Package connlimit caps the connections an HTTP server holds open, in
// total and per client address, so that idle keep-alive connections cannot
// use up the process's file descriptors and leave new clients unserved.
//
// A Limiter wraps the listeners (Listen) and follows each connection's
// state through http.Server.ConnState: a request's start takes no lock
// (see follow). Near the cap (three quarters of it)
// the idle timeout is shortened: a new connection first closes those idle
// for longer than ShortIdle. At the cap it closes the connection idle for
// the longest, and refuses the new one (closes it at once) when none is
// idle. A client already holding its share is refused at once.
package connlimit

import (
	"log/slog"
	"math"
	"net"
	"net/http"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"
)

// ShortIdle is the idle timeout near the cap.
const ShortIdle = 5 * time.Second

// Limiter counts the connections of the listeners it wraps. It is safe
// for concurrent use.
type Limiter struct {
	max, perClient int
	exempt         []netip.Prefix
	log            *slog.Logger
	now            func() time.Time // the clock, which tests move

	mu    sync.Mutex
	conns map[net.Conn]*conn
	// byConn holds what conns holds, for the state changes that take no
	// lock: a request's start.
	byConn sync.Map
	per    map[netip.Addr]int
	idle   idleList  // idle for the longest first
	logged time.Time // of the last log line
	quiet  int       // closings and refusals since, not logged
}

// conn is a connection being counted.
type conn struct {
	nc   net.Conn
	peer netip.Addr // invalid when not an IP connection
	from time.Time  // when it became idle
	// state is stateBusy, stateIdle or stateClosing: an idle connection
	// is closed (closeIdle) only by moving it from idle to closing, and
	// becomes busy only by moving it from idle to busy, so that the two
	// never both happen.
	state atomic.Int32
	// idle says that it is in Limiter.idle, between prev and next: idle,
	// or busy since it was last idle (taken out by the next look).
	idle       bool
	prev, next *conn
}

// The states of a conn.
const (
	stateBusy int32 = iota
	stateIdle
	stateClosing
)

// idleList is a list of connections linked through their own prev and
// next: a connection goes idle after every answer, and the element of a
// container/list would be a new object each time.
type idleList struct{ head, tail *conn }

// pushBack puts cn, not idle, at the back.
func (q *idleList) pushBack(cn *conn) {
	cn.idle, cn.prev, cn.next = true, q.tail, nil
	if q.tail == nil {
		q.head = cn
	} else {
		q.tail.next = cn
	}
	q.tail = cn
}

// remove takes cn out, if it is idle.
func (q *idleList) remove(cn *conn) {
	if !cn.idle {
		return
	}
	if cn.prev == nil {
		q.head = cn.next
	} else {
		cn.prev.next = cn.next
	}
	if cn.next == nil {
		q.tail = cn.prev
	} else {
		cn.next.prev = cn.prev
	}
	cn.idle, cn.prev, cn.next = false, nil, nil
}

// New returns a Limiter of max connections in all and perClient for each
// client address (0: no cap). Peers in exempt, such as trusted proxies
// that carry many clients, are capped only in total.
func New(max, perClient int, exempt []netip.Prefix, log *slog.Logger) *Limiter {
	return &Limiter{max: max, perClient: perClient, exempt: exempt, log: log, now: time.Now,
		conns: map[net.Conn]*conn{}, per: map[netip.Addr]int{}}
}

// Listen returns ln counting the connections it accepts, and sets srv's
// ConnState (calling any hook set before) to follow them; srv must serve
// the listener returned, and Listen be called before it does. The
// connections are those ln accepts, not wrapped, so that what looks at
// their type (an inner listener's http.Server.ConnContext) still works.
func (l *Limiter) Listen(ln net.Listener, srv *http.Server) net.Listener {
	next := srv.ConnState
	srv.ConnState = func(c net.Conn, s http.ConnState) {
		l.follow(c, s)
		if next != nil {
			next(c, s)
		}
	}
	return listener{ln, l}
}

type listener struct {
	net.Listener
	l *Limiter
}

// Accept returns the next connection that the caps let in, closing those
// they do not.
func (ln listener) Accept() (net.Conn, error) {
	for {
		c, err := ln.Listener.Accept()
		if err != nil || ln.l.admit(c) {
			return c, err
		}
		c.Close()
	}
}

// admit counts c when the caps let it in, closing idle connections to
// make room, and reports whether it did.
func (l *Limiter) admit(c net.Conn) bool {
	var peer netip.Addr
	if a, ok := c.RemoteAddr().(*net.TCPAddr); ok {
		peer = a.AddrPort().Addr().Unmap()
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.perClient > 0 && peer.IsValid() && !l.exempted(peer) && l.per[peer] >= l.perClient {
		l.note("a client holding its share of connections (--max-conns-per-client) was refused another", peer)
		return false
	}
	if l.max > 0 {
		now := l.now()
		if len(l.conns) >= l.max*3/4 {
			l.closeIdle(func(cn *conn) bool { return now.Sub(cn.from) > ShortIdle })
		}
		if len(l.conns) >= l.max {
			l.closeIdle(func(*conn) bool { return len(l.conns) >= l.max })
		}
		if len(l.conns) >= l.max {
			l.note("a new connection was refused: every connection is busy (--max-conns)", peer)
			return false
		}
	}
	cn := &conn{nc: c, peer: peer}
	l.conns[c] = cn
	l.byConn.Store(c, cn)
	l.per[peer]++
	return true
}

func (l *Limiter) exempted(peer netip.Addr) bool {
	for _, p := range l.exempt {
		if p.Contains(peer) {
			return true
		}
	}
	return false
}

// closeIdle closes the idle connections, idle for the longest first, while
// more reports true of the next one; those of the list that have become
// busy since are taken out of it.
func (l *Limiter) closeIdle(more func(*conn) bool) {
	for cn := l.idle.head; cn != nil; cn = l.idle.head {
		if cn.state.Load() != stateIdle {
			l.idle.remove(cn)
			continue
		}
		if !more(cn) {
			return
		}
		if !cn.state.CompareAndSwap(stateIdle, stateClosing) {
			l.idle.remove(cn) // it has just become busy
			continue
		}
		l.forget(cn)
		cn.nc.Close()
		l.note("an idle connection was closed to make room (--max-conns)", cn.peer)
	}
}

// follow keeps track of a connection's state, told by net/http. A
// request's start (new or active) takes no lock, as it comes on every
// request: the connection is only marked busy, and stays in the idle list
// until it is idle again or closeIdle looks at it. Idle and closed take
// the lock.
func (l *Limiter) follow(c net.Conn, s http.ConnState) {
	if s == http.StateNew || s == http.StateActive {
		if v, ok := l.byConn.Load(c); ok {
			v.(*conn).state.CompareAndSwap(stateIdle, stateBusy)
		}
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	cn := l.conns[c]
	if cn == nil {
		return // closed by closeIdle already
	}
	l.idle.remove(cn)
	switch s {
	case http.StateIdle:
		cn.from = l.now()
		cn.state.Store(stateIdle)
		l.idle.pushBack(cn)
	case http.StateClosed, http.StateHijacked:
		l.forget(cn)
	}
}

// forget stops counting cn.
func (l *Limiter) forget(cn *conn) {
	l.idle.remove(cn)
	delete(l.conns, cn.nc)
	l.byConn.Delete(cn.nc)
	if l.per[cn.peer]--; l.per[cn.peer] == 0 {
		delete(l.per, cn.peer)
	}
}

// note logs what a cap did, at most once a minute, with how many such
// closings and refusals went unlogged since the last line.
func (l *Limiter) note(what string, peer netip.Addr) {
	now := l.now()
	if now.Sub(l.logged) < time.Minute {
		l.quiet++
		return
	}
	l.log.Warn(what, "peer", peer, "open", len(l.conns), "max_conns", l.max, "max_conns_per_client", l.perClient,
		"closed_or_refused_since_last_line", l.quiet)
	l.logged, l.quiet = now, 0
}

// headroom is the descriptors DefaultMax leaves for all but connections:
// the standard streams, the poller, the listeners, the database (up to 17
// SQLite connections of two or three files each, or 17 PostgreSQL
// connections), Redis's connections and log files.
const headroom = 128

// DefaultMax is the cap that leaves headroom of the process's descriptor
// limit for all but connections, and at least half of the limit for them;
// 0 (no cap) when the limit is not known or is beyond an int.
func DefaultMax() int {
	n := descriptorLimit()
	if n == 0 || n > math.MaxInt32 {
		return 0
	}
	return max(int(n)-headroom, int(n)/2)
}
