package shed

import (
	"errors"
	"io"
	"net"
	"syscall"
	"testing"
	"time"
	"unsafe"
)

// stampedPair is a connection accepted by a listener of times, on, and
// the client's end of it.
func stampedPair(t *testing.T) (*stampedConn, net.Conn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	l := New(0, 0, discard)
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

// TestStampOf reads control messages built by hand.
func TestStampOf(t *testing.T) {
	msg := func(level, typ int32, sec, nsec int64) []byte {
		var b [8]uint64
		oob := unsafe.Slice((*byte)(unsafe.Pointer(&b[0])), len(b)*8)
		h := (*syscall.Cmsghdr)(unsafe.Pointer(&oob[0]))
		h.Level, h.Type = level, typ
		h.SetLen(syscall.CmsgLen(int(unsafe.Sizeof(syscall.Timespec{}))))
		ts := (*syscall.Timespec)(unsafe.Pointer(&oob[syscall.CmsgLen(0)]))
		*ts = syscall.NsecToTimespec(sec*1e9 + nsec)
		return oob[:syscall.CmsgSpace(int(unsafe.Sizeof(syscall.Timespec{})))]
	}
	if got := stampOf(msg(syscall.SOL_SOCKET, syscall.SCM_TIMESTAMPNS, 1_700_000_000, 5)); got != 1_700_000_000_000_000_005 {
		t.Errorf("a timestamp: %d", got)
	}
	if got := stampOf(msg(syscall.SOL_SOCKET, syscall.SCM_CREDENTIALS, 1_700_000_000, 5)); got != 0 {
		t.Errorf("another message: %d", got)
	}
	if got := stampOf(msg(syscall.SOL_SOCKET, syscall.SCM_TIMESTAMPNS, 1, 0)[:syscall.CmsgLen(0)]); got != 0 {
		t.Errorf("a message cut short: %d", got)
	}
	if got := stampOf(nil); got != 0 {
		t.Errorf("no message: %d", got)
	}
}
