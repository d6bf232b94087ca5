//go:build !linux

package shed

import "testing"

// stampsOn skips the test: receive times are read on Linux only.
func stampsOn(t *testing.T) {
	t.Skip("queue-time refusals need receive times, read on Linux only")
}
