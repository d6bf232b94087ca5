package shed

import (
	"io"
	"net"
	"os"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"
)

// receiveTimes tells whether connections can read the arrival times of
// their bytes: Linux stamps received segments when asked to.
const receiveTimes = true

// stampListener returns ln with its TCP connections asking the kernel for
// the time each received segment arrived (SO_TIMESTAMPNS), so that a
// request's wait in the socket's queue and the server's can be told from
// the time its bytes arrived (see ConnContext), while l.timing is set:
// reading the times costs a few percent of a cached answer. Meanwhile they
// also refuse requests before net/http reads them (see early). A
// connection that refuses the option is served as it is, without times.
func stampListener(ln net.Listener, l *Limiter) net.Listener {
	return stamps{ln, l}
}

type stamps struct {
	net.Listener
	l *Limiter
}

func (l stamps) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return c, err
	}
	tc, ok := c.(*net.TCPConn)
	if !ok {
		return c, nil
	}
	raw, err := tc.SyscallConn()
	if err != nil {
		return c, nil
	}
	var serr error
	if err := raw.Control(func(fd uintptr) {
		serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_TIMESTAMPNS, 1)
		if serr == nil {
			// Without it (before Linux 4.18), a refusal is followed by a
			// read, as any other answer.
			syscall.SetsockoptInt(int(fd), syscall.IPPROTO_TCP, tcpInq, 1)
		}
	}); err != nil || serr != nil {
		return c, nil
	}
	sc := &stampedConn{TCPConn: tc, raw: raw, l: l.l}
	sc.recv, sc.send = sc.recvmsg, sc.write
	return sc, nil
}

// stampedConn reads with recvmsg, keeping the arrival time the kernel
// attaches to the last segment each read takes bytes from. net/http reads
// a connection from one goroutine at a time; arrived is also read by the
// handler's.
type stampedConn struct {
	*net.TCPConn
	raw   syscall.RawConn
	l     *Limiter
	frame framing // of the bytes handed to net/http
	// refusal holds the last early refusal written, its room reused.
	refusal []byte
	// recv is recvmsg as a func value made once, and the fields below are
	// its arguments and results, so that a read allocates nothing.
	recv    func(fd uintptr) bool
	send    func(fd uintptr) bool // write, made once
	out     []byte                // what send writes
	wrote   int                   // how much of it send wrote
	buf     []byte
	n, oobn int
	err     error
	oob     [8]uint64 // room for the control messages, aligned as one
	// at is when the bytes of the last read arrived (Unix ns; 0: not
	// known). When that read was a request refused before net/http, left
	// and pause are what Read has still to do, if anything: the part of
	// the refusal that one write did not take, and how long to pause.
	at      int64
	left    []byte
	pause   time.Duration
	arrived atomic.Int64 // Unix ns; 0: not known
	// resumed is when the connection's last pause after a refusal ended
	// (Unix ns; see pause.go): bytes that arrived before count as arrived
	// then.
	resumed int64
}

// recvmsg reads, and reports true when it has bytes for net/http, an
// error or the end of the stream, false when nothing is there to read yet,
// for the poller to wait. A signal that interrupts the call retries it, as
// net.TCPConn's Read does.
//
// A request refused before net/http (see refuse) is answered here, in the
// poller's call: when the answer went whole and the kernel says that
// nothing more was there to read (TCP_INQ: no byte, and no end of the
// stream), the poller waits for the next bytes at once, without a read
// that would find none; when it says nothing, recvmsg reads again. Only
// within one call may the read be left out: the next call of the poller
// forgets the readiness it saw before, and would miss bytes, or a close,
// that came meanwhile.
func (c *stampedConn) recvmsg(fd uintptr) bool {
	for {
		c.n, c.oobn, _, _, c.err = syscall.Recvmsg(int(fd), c.buf, c.oobBytes(), 0)
		switch {
		case c.err == syscall.EINTR:
			continue
		case c.err == syscall.EAGAIN:
			return false
		case c.err != nil || c.n == 0:
			return true
		}
		var inq int
		c.at, inq = controls(c.oobBytes()[:c.oobn])
		if c.at != 0 {
			c.at = max(c.at, c.resumed)
			c.l.lastRead.Store(c.at)
		}
		if !c.refuse() {
			return true
		}
		if len(c.left) > 0 || c.pause > 0 {
			return true // for Read: what waits cannot be done here
		}
		if inq == 0 {
			return false
		}
	}
}

// refuse follows the framing of the bytes just read and, when they are one
// whole request to refuse before net/http (see early), writes its refusal
// in one try, keeps what Read has still to do (left, pause) and reports
// true.
func (c *stampedConn) refuse() bool {
	chunk := c.buf[:c.n]
	var one, refused bool
	if c.frame, one = c.frame.next(chunk); !one {
		return false
	}
	now := time.Now()
	if c.refusal, refused = c.l.early(c.refusal[:0], chunk, c.at, now); !refused {
		return false
	}
	// What a client that does not read leaves unwritten is waiting, not
	// work: it is not counted.
	c.left = c.tryRefusal(c.refusal)
	c.pause = c.l.spent(time.Since(now))
	return true
}

// Read reads as net.TCPConn's Read does and, while times are on, records
// when the bytes read arrived, and answers the requests to refuse before
// net/http reads them (see early).
func (c *stampedConn) Read(b []byte) (int, error) {
	if !c.l.timing.Load() {
		if c.arrived.Load() != 0 {
			c.arrived.Store(0)
		}
		n, err := c.TCPConn.Read(b)
		if n > 0 {
			c.frame, _ = c.frame.next(b[:n])
		}
		return n, err
	}
	if len(b) == 0 {
		return 0, nil
	}
	c.buf = b
	defer func() { c.buf = nil }()
	for {
		err := c.raw.Read(c.recv)
		if err == nil && c.err != nil {
			err = os.NewSyscallError("recvmsg", c.err)
		}
		if err != nil {
			return 0, &net.OpError{Op: "read", Net: "tcp", Source: c.LocalAddr(), Addr: c.RemoteAddr(), Err: err}
		}
		if c.n == 0 {
			return 0, io.EOF
		}
		if len(c.left) > 0 || c.pause > 0 { // a refusal to finish (see recvmsg)
			left, pause := c.left, c.pause
			c.left, c.pause = nil, 0
			if err := c.writeRest(left); err != nil {
				return 0, err
			}
			if pause > 0 {
				time.Sleep(pause)
				c.resumed = time.Now().UnixNano()
			}
			continue
		}
		c.arrived.Store(c.at)
		return c.n, nil
	}
}

// refusalTimeout bounds the write of an early refusal to a client that
// does not read.
const refusalTimeout = 5 * time.Second

// tryRefusal writes an early refusal in one try, which takes it whole
// unless the client leaves its answers unread, and returns what is left.
func (c *stampedConn) tryRefusal(b []byte) []byte {
	c.out = b
	if err := c.raw.Write(c.send); err != nil {
		c.wrote = 0 // left to writeRest, to meet the error again and report it
	}
	b, c.out = b[c.wrote:], nil
	return b
}

// writeRest writes what tryRefusal left, under a deadline. net/http
// clears the write deadline while it waits for a request, as here, and
// sets its own once it has one.
func (c *stampedConn) writeRest(b []byte) error {
	if len(b) == 0 {
		return nil
	}
	c.SetWriteDeadline(time.Now().Add(refusalTimeout))
	_, err := c.TCPConn.Write(b)
	c.SetWriteDeadline(time.Time{})
	return err
}

// write writes c.out once, without waiting, and keeps in c.wrote how much
// of it was written.
func (c *stampedConn) write(fd uintptr) bool {
	// An error (EAGAIN, EINTR, a broken connection) is left to the write
	// under a deadline, to meet again and report.
	n, _ := syscall.Write(int(fd), c.out)
	c.wrote = max(n, 0)
	return true
}

// arrivals is the arrival time of c's last bytes read, if c is a
// connection of a stampListener.
func arrivals(c net.Conn) *atomic.Int64 {
	if sc, ok := c.(*stampedConn); ok {
		return &sc.arrived
	}
	return nil
}

func (c *stampedConn) oobBytes() []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(&c.oob[0])), len(c.oob)*8)
}

// tcpInq is the TCP socket option (Linux 4.18) that has recvmsg tell, in
// a control message of the same number, how many bytes are left to read,
// or 1 when none are but the end of the stream is.
const tcpInq = 36

// controls reads the control messages of a read: the time of
// SO_TIMESTAMPNS (a timespec), in Unix ns, 0 when there is none; and the
// count of TCP_INQ (an int), -1 when there is none. oob is aligned for a
// header.
func controls(oob []byte) (at int64, inq int) {
	inq = -1
	header := syscall.CmsgLen(0)
	for len(oob) >= header {
		h := (*syscall.Cmsghdr)(unsafe.Pointer(&oob[0]))
		size := int(h.Len) - header
		if size < 0 || header+size > len(oob) {
			break
		}
		switch {
		case h.Level == syscall.SOL_SOCKET && h.Type == syscall.SCM_TIMESTAMPNS && size >= int(unsafe.Sizeof(syscall.Timespec{})):
			at = (*syscall.Timespec)(unsafe.Pointer(&oob[header])).Nano()
		case h.Level == syscall.IPPROTO_TCP && h.Type == tcpInq && size >= int(unsafe.Sizeof(int32(0))):
			inq = int(*(*int32)(unsafe.Pointer(&oob[header])))
		}
		next := syscall.CmsgSpace(size)
		if next > len(oob) {
			break
		}
		oob = oob[next:]
	}
	return at, inq
}
