package shed

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"syscall"
	"testing"
	"time"
	"unsafe"
)

// stampedPair is a connection accepted by a listener of times, on, and
// the client's end of it.
func stampedPair(t *testing.T) (*stampedConn, net.Conn) {
	t.Helper()
	return stampedPairOf(t, New(0, 0, discard))
}

// stampedPairOf is stampedPair with a Limiter of the caller's, reading
// times.
func stampedPairOf(t *testing.T, l *Limiter) (*stampedConn, net.Conn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	l.timing.Store(true)
	sl := stampListener(ln, l)
	client, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.Close() })
	c, err := sl.Accept()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	sc, ok := c.(*stampedConn)
	if !ok {
		t.Fatalf("Accept returned a %T", c)
	}
	return sc, client
}

// stampsOn returns once the kernel stamps the segments it receives. It
// turns that on for the whole system when a first socket asks for it, but
// not at once: a test's first connection may get reads without times.
func stampsOn(t *testing.T) {
	t.Helper()
	sc, client := stampedPair(t)
	buf := make([]byte, 8)
	for range 100 {
		client.Write([]byte("x"))
		if _, err := sc.Read(buf); err != nil {
			t.Fatal(err)
		}
		if arrivals(sc).Load() != 0 {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("no receive times after a second")
}

// TestStampedRead: bytes read late carry the time they arrived, not the
// time they were read; the end of the stream is io.EOF, and a deadline a
// timeout, as from a plain TCP connection.
func TestStampedRead(t *testing.T) {
	stampsOn(t)
	sc, client := stampedPair(t)
	buf := make([]byte, 64)
	for range 2 {
		sent := time.Now()
		if _, err := client.Write([]byte("GET / HTTP/1.1\r\n\r\n")); err != nil {
			t.Fatal(err)
		}
		time.Sleep(50 * time.Millisecond)
		n, err := sc.Read(buf)
		read := time.Now()
		if err != nil || string(buf[:n]) != "GET / HTTP/1.1\r\n\r\n" {
			t.Fatalf("Read: %q, %v", buf[:n], err)
		}
		at := time.Unix(0, arrivals(sc).Load())
		if at.Before(sent.Add(-time.Millisecond)) || read.Sub(at) < 45*time.Millisecond {
			t.Errorf("arrived %v after the write and %v before the read, want the moment of the write", at.Sub(sent), read.Sub(at))
		}
	}
	// Times off: the bytes are read all the same, without a time.
	sc.l.timing.Store(false)
	if _, err := client.Write([]byte("x")); err != nil {
		t.Fatal(err)
	}
	if n, err := sc.Read(buf); n != 1 || err != nil || arrivals(sc).Load() != 0 {
		t.Errorf("times off: %d, %v, arrival %d", n, err, arrivals(sc).Load())
	}
	sc.l.timing.Store(true)
	if n, err := sc.Read(nil); n != 0 || err != nil {
		t.Errorf("an empty read: %d, %v", n, err)
	}
	sc.SetReadDeadline(time.Now().Add(10 * time.Millisecond))
	var ne net.Error
	if _, err := sc.Read(buf); !errors.As(err, &ne) || !ne.Timeout() {
		t.Errorf("past the deadline: %v, want a timeout", err)
	}
	sc.SetReadDeadline(time.Time{})
	client.Close()
	if n, err := sc.Read(buf); n != 0 || err != io.EOF {
		t.Errorf("after the client closed: %d, %v, want io.EOF", n, err)
	}
}

// TestStampedReadAllocs: a read allocates nothing.
func TestStampedReadAllocs(t *testing.T) {
	sc, client := stampedPair(t)
	msg, buf := []byte("x"), make([]byte, 8)
	if n := testing.AllocsPerRun(100, func() {
		client.Write(msg)
		sc.Read(buf)
	}); n != 0 {
		t.Errorf("%v allocations a write and read", n)
	}
}

// TestControls reads control messages built by hand: a time, a count of
// TCP_INQ, both, neither, and messages cut short.
func TestControls(t *testing.T) {
	tsSize := int(unsafe.Sizeof(syscall.Timespec{}))
	// msgs lays out control messages of the given levels, types and
	// payloads one after the other, as the kernel does.
	type cmsg struct {
		level, typ int32
		payload    []byte
	}
	msgs := func(ms ...cmsg) []byte {
		var b [16]uint64
		oob := unsafe.Slice((*byte)(unsafe.Pointer(&b[0])), len(b)*8)
		off := 0
		for _, m := range ms {
			h := (*syscall.Cmsghdr)(unsafe.Pointer(&oob[off]))
			h.Level, h.Type = m.level, m.typ
			h.SetLen(syscall.CmsgLen(len(m.payload)))
			copy(oob[off+syscall.CmsgLen(0):], m.payload)
			off += syscall.CmsgSpace(len(m.payload))
		}
		return oob[:off]
	}
	stamp := func(level, typ int32, sec, nsec int64) cmsg {
		ts := syscall.NsecToTimespec(sec*1e9 + nsec)
		return cmsg{level, typ, unsafe.Slice((*byte)(unsafe.Pointer(&ts)), tsSize)}
	}
	count := func(n int32) cmsg {
		return cmsg{syscall.IPPROTO_TCP, tcpInq, unsafe.Slice((*byte)(unsafe.Pointer(&n)), 4)}
	}
	timestamp := stamp(syscall.SOL_SOCKET, syscall.SCM_TIMESTAMPNS, 1_700_000_000, 5)
	const at = 1_700_000_000_000_000_005
	for _, c := range []struct {
		name string
		oob  []byte
		at   int64
		inq  int
	}{
		{"a time", msgs(timestamp), at, -1},
		{"a time, then a count", msgs(timestamp, count(7)), at, 7},
		{"a count of none", msgs(count(0)), 0, 0},
		{"a count, then a time", msgs(count(1), timestamp), at, 1},
		{"another message", msgs(stamp(syscall.SOL_SOCKET, syscall.SCM_CREDENTIALS, 1, 5)), 0, -1},
		{"a time cut short", msgs(timestamp)[:syscall.CmsgLen(0)], 0, -1},
		{"a count cut short", msgs(timestamp, count(7))[:syscall.CmsgSpace(tsSize)+syscall.CmsgLen(0)+2], at, -1},
		{"nothing", nil, 0, -1},
	} {
		if gotAt, gotInq := controls(c.oob); gotAt != c.at || gotInq != c.inq {
			t.Errorf("%s: %d, %d; want %d, %d", c.name, gotAt, gotInq, c.at, c.inq)
		}
	}
}

// TestInq: the kernel tells a read what is left to read: the bytes a
// shorter read left, none, and 1 for the end of the stream alone.
func TestInq(t *testing.T) {
	sc, client := stampedPair(t)
	inq := func() int {
		_, n := controls(sc.oobBytes()[:sc.oobn])
		return n
	}
	client.Write([]byte("0123456789"))
	time.Sleep(20 * time.Millisecond)
	buf := make([]byte, 4)
	if n, err := sc.Read(buf); n != 4 || err != nil {
		t.Fatalf("Read: %d, %v", n, err)
	}
	if inq() == -1 {
		raw, err := client.(*net.TCPConn).SyscallConn()
		if err != nil {
			t.Fatal(err)
		}
		var serr error
		raw.Control(func(fd uintptr) { serr = syscall.SetsockoptInt(int(fd), syscall.IPPROTO_TCP, tcpInq, 1) })
		if serr != nil {
			t.Skipf("the kernel does not tell (TCP_INQ, Linux 4.18): %v", serr)
		}
		t.Fatal("the kernel takes TCP_INQ, but the connection's reads do not tell")
	}
	if got := inq(); got != 6 {
		t.Errorf("after 4 of 10 bytes: %d left, want 6", got)
	}
	if n, _ := sc.Read(make([]byte, 64)); n != 6 || inq() != 0 {
		t.Errorf("the last 6 bytes: read %d, %d left, want 0", n, inq())
	}
	client.Write([]byte("ab"))
	client.(*net.TCPConn).CloseWrite()
	time.Sleep(20 * time.Millisecond)
	if n, _ := sc.Read(make([]byte, 64)); n != 2 || inq() != 1 {
		t.Errorf("2 bytes, then the end of the stream: read %d, %d left, want 1", n, inq())
	}
	if n, err := sc.Read(buf); n != 0 || err != io.EOF {
		t.Errorf("the end: %d, %v, want io.EOF", n, err)
	}
}

// TestRefusalThenClose: a client that sends a request and closes its side
// before the server reads either gets its refusal, and the server's Read
// then meets the end of the stream: the close that came with the refused
// request is not missed, however the read after the refusal is left out.
func TestRefusalThenClose(t *testing.T) {
	l := New(0, 200*time.Millisecond, discard)
	l.queued.Store(1000) // computations waiting: the gate is full
	l.computeCost.Store(int64(time.Second))
	sc, client := stampedPairOf(t, l)
	client.Write([]byte(get("/api/v1/status")))
	client.(*net.TCPConn).CloseWrite()
	time.Sleep(20 * time.Millisecond) // both reach the server's socket before it reads
	type result struct {
		n   int
		err error
	}
	done := make(chan result, 1)
	go func() {
		n, err := sc.Read(make([]byte, 4096))
		done <- result{n, err}
	}()
	select {
	case r := <-done:
		if r.n != 0 || r.err != io.EOF {
			t.Errorf("Read: %d, %v; want io.EOF after the refusal", r.n, r.err)
		}
	case <-time.After(5 * time.Second):
		sc.Close()
		t.Fatal("Read still waits 5 s after the client closed: the close was missed")
	}
	client.SetReadDeadline(time.Now().Add(5 * time.Second))
	res, err := http.ReadResponse(bufio.NewReader(client), nil)
	if err != nil || res.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("the client's answer: %v, %v; want the refusal", res, err)
	}
	if l.Shed() != 1 {
		t.Errorf("Shed() = %d, want 1", l.Shed())
	}
}
