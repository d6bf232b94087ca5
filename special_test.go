package statusd

import (
	"net/netip"
	"testing"
)

// TestPublicAddrSpecialRanges: the first and last address of every
// special-purpose block that is not globally reachable is refused, in
// IPv4, as IPv4 mapped into IPv6, and in IPv6; the neighbours just outside
// a few of them, and well-known public addresses, are allowed. Written
// out by hand from IANA's registries, not derived from the table.
func TestPublicAddrSpecialRanges(t *testing.T) {
	refused := []string{
		"0.0.0.0", "0.255.255.255",
		"10.0.0.0", "10.255.255.255",
		"100.64.0.0", "100.100.100.200", "100.127.255.255",
		"127.0.0.1", "127.255.255.255",
		"169.254.0.0", "169.254.169.254", "169.254.255.255",
		"172.16.0.0", "172.31.255.255",
		"192.0.0.0", "192.0.0.8", "192.0.0.170", "192.0.0.255",
		"192.0.2.0", "192.0.2.255",
		"192.88.99.0", "192.88.99.255",
		"192.168.0.0", "192.168.255.255",
		"198.18.0.0", "198.19.255.255",
		"198.51.100.0", "198.51.100.255",
		"203.0.113.0", "203.0.113.255",
		"224.0.0.1", "239.255.255.255", // multicast
		"240.0.0.0", "254.255.255.255",
		"255.255.255.255",
		"::ffff:100.100.100.200", "::ffff:10.0.0.1", "::ffff:198.18.0.1",
		"::", "::1",
		"64:ff9b::", "64:ff9b::a9fe:a9fe", "64:ff9b::ffff:ffff",
		"64:ff9b:1::", "64:ff9b:1:ffff:ffff:ffff:ffff:ffff",
		"100::", "100::ffff:ffff:ffff:ffff",
		"100:0:0:1::", "100:0:0:1:ffff:ffff:ffff:ffff",
		"2001::", "2001:1ff:ffff:ffff:ffff:ffff:ffff:ffff",
		"2001:db8::", "2001:db8:ffff:ffff:ffff:ffff:ffff:ffff",
		"2002::", "2002:a9fe:a9fe::", "2002:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
		"3fff::", "3fff:fff:ffff:ffff:ffff:ffff:ffff:ffff",
		"5f00::", "5f00:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
		"fc00::", "fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
		"fe80::", "fe80::1%eth0", "febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
		"fec0::", "feff:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
		"ff02::1", "ff0e::1", // multicast
	}
	allowed := []string{
		"1.1.1.1", "8.8.8.8", "9.255.255.255", "11.0.0.0",
		"100.63.255.255", "100.128.0.0", // beside 100.64.0.0/10
		"172.15.255.255", "172.32.0.0",
		"192.0.1.0", "192.31.196.1", "192.52.193.1", "192.175.48.1", // AS112 and AMT are reachable
		"198.17.255.255", "198.20.0.0",
		"223.255.255.255",
		"::ffff:8.8.8.8",
		"2001:200::1", "2001:4860:4860::8888", "2606:4700:4700::1111", "2a00:1450::1",
		"64:ff9a:ffff:ffff:ffff:ffff:ffff:ffff", "64:ff9b:0:0:0:1::", // beside NAT64
		"2003::1", "3ffe:ffff::1", "3fff:1000::", "5f01::", "fbff:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
	}
	for _, s := range refused {
		if PublicAddr(netip.MustParseAddr(s)) {
			t.Errorf("%s is allowed, want refused", s)
		}
	}
	for _, s := range allowed {
		if !PublicAddr(netip.MustParseAddr(s)) {
			t.Errorf("%s is refused, want allowed", s)
		}
	}
	// At creation, as a URL names one literally.
	for _, u := range []string{"https://100.100.100.200/latest/meta-data", "https://[64:ff9b::a9fe:a9fe]/", "https://[2002:a00:1::]/", "https://198.18.0.1/"} {
		if err := CheckTarget(u, false); ErrorCode(err) != EInvalidField {
			t.Errorf("CheckTarget(%s): %v, want invalid_field", u, err)
		}
	}
}
