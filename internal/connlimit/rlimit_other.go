//go:build !unix

package connlimit

// descriptorLimit is 0 (not known) where there is no RLIMIT_NOFILE.
func descriptorLimit() uint64 { return 0 }
