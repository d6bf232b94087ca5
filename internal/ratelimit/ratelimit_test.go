package ratelimit

import (
	"net/http"
	"net/netip"
	"testing"
)

// TestClientAddr checks which address counts as the client, with and
// without ports, behind trusted proxies and not.
func TestClientAddr(t *testing.T) {
	trusted := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}
	for _, tc := range []struct {
		name, peer, xff, want string
	}{
		{"untrusted peer, header ignored", "192.0.2.1:5000", "203.0.113.1", "192.0.2.1"},
		{"untrusted IPv6 peer", "[2001:db8::1]:5000", "", "2001:db8::1"},
		{"IPv4-mapped peer", "[::ffff:192.0.2.1]:5000", "", "192.0.2.1"},
		{"trusted peer, hop", "10.0.0.1:5000", "203.0.113.1", "203.0.113.1"},
		{"hop with port", "10.0.0.1:5000", "203.0.113.1:4711", "203.0.113.1"},
		{"IPv6 hop with port", "10.0.0.1:5000", "[2001:DB8::9]:4711", "2001:db8::9"},
		{"IPv6 hop without port", "10.0.0.1:5000", "2001:db8::9", "2001:db8::9"},
		{"rightmost untrusted hop", "10.0.0.1:5000", "198.51.100.1, 203.0.113.1:80, 10.0.0.2:443", "203.0.113.1"},
		{"only trusted hops: the leftmost", "10.0.0.1:5000", "10.0.0.3:1, 10.0.0.2", "10.0.0.3"},
		{"no header: the proxy", "10.0.0.1:5000", "", "10.0.0.1"},
		{"not an address: kept as written", "10.0.0.1:5000", "unknown", "unknown"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &http.Request{RemoteAddr: tc.peer, Header: http.Header{}}
			if tc.xff != "" {
				r.Header.Set("X-Forwarded-For", tc.xff)
			}
			if got := ClientAddr(r, trusted); got != tc.want {
				t.Errorf("ClientAddr(peer %s, X-Forwarded-For %q) = %q, want %q", tc.peer, tc.xff, got, tc.want)
			}
		})
	}
}

// TestBlock: an IPv6 client counts as its /64, an IPv4 one (mapped
// included, as ClientAddr unmaps it) as its address.
func TestBlock(t *testing.T) {
	for in, want := range map[string]string{
		"2001:db8:1:2:aaaa::1": "2001:db8:1:2::/64",
		"2001:db8:1:2:ffff::9": "2001:db8:1:2::/64",
		"2001:db8:1:3::1":      "2001:db8:1:3::/64",
		"203.0.113.7":          "203.0.113.7",
		"not an address":       "not an address",
	} {
		if got := Block(in); got != want {
			t.Errorf("Block(%q) = %q, want %q", in, got, want)
		}
	}
}
