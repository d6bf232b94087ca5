//go:build unix

package connlimit

import "syscall"

// descriptorLimit is the process's limit on open file descriptors
// (RLIMIT_NOFILE, as Go raised it at start), 0 when not known.
//
// A system call, kept because measured: the default cap must sit below this
// limit, which only the kernel knows. With ulimit -n 400 and 600 idle
// keep-alive connections, a new client went unanswered for over 3 s (the
// test's bound) with no cap, and within 1 s with the cap derived
// here (cmd/statusd TestIdleConnectionsCapped; the README's limits table).
func descriptorLimit() uint64 {
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil {
		return 0
	}
	return rl.Cur
}
