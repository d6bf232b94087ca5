//go:build !linux

package shed

import (
	"net"
	"sync/atomic"
)

// receiveTimes tells whether connections can read the arrival times of
// their bytes: receive times are read on Linux only.
const receiveTimes = false

// stampListener returns ln: receive times are read on Linux only, so
// elsewhere queue-time refusals are off.
func stampListener(ln net.Listener, _ *Limiter) net.Listener { return ln }

// arrivals is nil: no connection has receive times here.
func arrivals(net.Conn) *atomic.Int64 { return nil }
