package main

import (
	"os"
	"syscall"
	"time"
	"unsafe"
)

// sleeper waits with sub-millisecond precision: Go's timers can wake up to
// a millisecond late when the process is otherwise idle (the runtime's
// network poller waits in whole milliseconds), which would show as latency
// of the server. A timerfd read through the poller wakes on time.
type sleeper struct {
	fd int      // the timerfd; kept apart because File.Fd would make it blocking
	f  *os.File // the same, for reads through the poller
}

func newSleeper() *sleeper {
	const clockMonotonic = 1
	fd, _, errno := syscall.Syscall(syscall.SYS_TIMERFD_CREATE, clockMonotonic, syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if errno != 0 {
		return &sleeper{fd: -1}
	}
	return &sleeper{fd: int(fd), f: os.NewFile(fd, "timerfd")}
}

// sleep waits for d.
func (s *sleeper) sleep(d time.Duration) {
	if d <= 0 {
		return
	}
	if s.f == nil {
		time.Sleep(d)
		return
	}
	// struct itimerspec: it_interval (zero: once), then it_value, relative.
	spec := [4]int64{0, 0, int64(d / time.Second), int64(d % time.Second)}
	if _, _, errno := syscall.Syscall6(syscall.SYS_TIMERFD_SETTIME, uintptr(s.fd), 0, uintptr(unsafe.Pointer(&spec)), 0, 0, 0); errno != 0 {
		time.Sleep(d)
		return
	}
	var buf [8]byte
	s.f.Read(buf[:])
}

func (s *sleeper) close() {
	if s.f != nil {
		s.f.Close()
	}
}
