//go:build unix

package connlimit

import "syscall"

// descriptorLimit is the process's limit on open file descriptors
// (RLIMIT_NOFILE, as Go raised it at start), 0 when not known.
func descriptorLimit() uint64 {
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil {
		return 0
	}
	return rl.Cur
}
