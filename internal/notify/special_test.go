package notify

import (
	"context"
	"errors"
	"net"
	"strings"
	"syscall"
	"testing"
)

// TestRefuseSpecialRanges: the dialer's hook refuses, after resolution,
// addresses of the special-purpose blocks that are not globally reachable
// (the cloud metadata service on 100.100.100.200, benchmarking, IETF
// assignments, reserved, NAT64 and 6to4 among them), and lets a public
// address through. It is called as the dialer calls it, and then by a
// real net.Dialer, whose hook runs before connect(2): nothing is ever
// connected to. Should the hook let one through, a guard refuses it
// there, and the test fails.
func TestRefuseSpecialRanges(t *testing.T) {
	for _, addr := range []string{
		"100.100.100.200:80", "100.64.0.1:443", "198.18.0.1:443", "198.19.255.254:443", "192.0.0.1:443",
		"240.0.0.1:443", "255.255.255.255:443", "[64:ff9b::a9fe:a9fe]:443", "[2002:a9fe:a9fe::1]:443",
		"[::ffff:100.100.100.200]:443", "[fe80::1%eth0]:443", "[2001:db8::1]:443",
	} {
		var pe *privateError
		if err := refusePrivate(context.Background(), "tcp", addr, nil); !errors.As(err, &pe) {
			t.Errorf("%s: %v, want refused as not public", addr, err)
		}
		if strings.Contains(addr, "%") {
			continue // a zone names an interface this machine may not have
		}
		// syscall.RawConn is only the type of the dialer's hook, the one
		// the sender's dialer uses (refusePrivate): nothing is called on it.
		guarded := net.Dialer{ControlContext: func(ctx context.Context, network, address string, c syscall.RawConn) error {
			if err := refusePrivate(ctx, network, address, c); err != nil {
				return err
			}
			t.Errorf("%s: the dialer's hook let %s through", addr, address)
			return errors.New("guard: not connecting")
		}}
		if _, err := guarded.DialContext(context.Background(), "tcp", addr); !errors.As(err, &pe) {
			t.Errorf("%s: dialed: %v, want refused by the hook as not public", addr, err)
		}
	}
	for _, addr := range []string{"8.8.8.8:443", "[2606:4700:4700::1111]:443", "100.128.0.1:443"} {
		if err := refusePrivate(context.Background(), "tcp", addr, nil); err != nil {
			t.Errorf("%s: %v, want allowed", addr, err)
		}
	}
}
