package statusd

import "net/netip"

// notGlobal are the special-purpose address blocks that are not globally
// reachable: a webhook or chat target in one of them is refused at
// creation and at connect time (CONTRACT C7, PublicAddr).
//
// Source: IANA's IPv4 and IPv6 Special-Purpose Address Registries
// (https://www.iana.org/assignments/iana-ipv4-special-registry/ and
// https://www.iana.org/assignments/iana-ipv6-special-registry/, as of
// 2025): every block whose "Globally Reachable" is False or N/A. Two
// blocks the registry calls reachable are refused as well, since they
// lead to IPv4 addresses of someone else's choosing through a translator
// (64:ff9b::/96, NAT64, whose embedded address may be private; 2002::/16,
// 6to4, N/A). Smaller blocks inside 192.0.0.0/24 and 2001::/23 that the
// registry marks reachable (anycast and AS112 services) are refused with
// their block: nobody sends status webhooks to them. Multicast, outside
// the registries, is refused by PublicAddr.
var notGlobal = []netip.Prefix{
	// IPv4 (an IPv4-mapped IPv6 address is checked as its IPv4 address).
	netip.MustParsePrefix("0.0.0.0/8"),          // "this network" (RFC 791)
	netip.MustParsePrefix("10.0.0.0/8"),         // private use (RFC 1918)
	netip.MustParsePrefix("100.64.0.0/10"),      // shared address space, carrier-grade NAT, cloud metadata (RFC 6598)
	netip.MustParsePrefix("127.0.0.0/8"),        // loopback (RFC 1122)
	netip.MustParsePrefix("169.254.0.0/16"),     // link local (RFC 3927)
	netip.MustParsePrefix("172.16.0.0/12"),      // private use (RFC 1918)
	netip.MustParsePrefix("192.0.0.0/24"),       // IETF protocol assignments (RFC 6890)
	netip.MustParsePrefix("192.0.2.0/24"),       // documentation, TEST-NET-1 (RFC 5737)
	netip.MustParsePrefix("192.88.99.0/24"),     // deprecated 6to4 relay anycast (RFC 7526)
	netip.MustParsePrefix("192.168.0.0/16"),     // private use (RFC 1918)
	netip.MustParsePrefix("198.18.0.0/15"),      // benchmarking (RFC 2544)
	netip.MustParsePrefix("198.51.100.0/24"),    // documentation, TEST-NET-2 (RFC 5737)
	netip.MustParsePrefix("203.0.113.0/24"),     // documentation, TEST-NET-3 (RFC 5737)
	netip.MustParsePrefix("240.0.0.0/4"),        // reserved (RFC 1112)
	netip.MustParsePrefix("255.255.255.255/32"), // limited broadcast (RFC 919)

	// IPv6.
	netip.MustParsePrefix("::/128"),         // unspecified (RFC 4291)
	netip.MustParsePrefix("::1/128"),        // loopback (RFC 4291)
	netip.MustParsePrefix("64:ff9b::/96"),   // IPv4/IPv6 translation, NAT64 (RFC 6052): see above
	netip.MustParsePrefix("64:ff9b:1::/48"), // local-use IPv4/IPv6 translation (RFC 8215)
	netip.MustParsePrefix("100::/64"),       // discard-only (RFC 6666)
	netip.MustParsePrefix("100:0:0:1::/64"), // dummy prefix (RFC 9780)
	netip.MustParsePrefix("2001::/23"),      // IETF protocol assignments, Teredo, benchmarking (RFC 2928)
	netip.MustParsePrefix("2001:db8::/32"),  // documentation (RFC 3849)
	netip.MustParsePrefix("2002::/16"),      // 6to4 (RFC 3056): see above
	netip.MustParsePrefix("3fff::/20"),      // documentation (RFC 9637)
	netip.MustParsePrefix("5f00::/16"),      // segment routing SIDs (RFC 9602)
	netip.MustParsePrefix("fc00::/7"),       // unique local (RFC 4193)
	netip.MustParsePrefix("fe80::/10"),      // link-local unicast (RFC 4291)
	netip.MustParsePrefix("fec0::/10"),      // deprecated site-local (RFC 3879)
}

// PublicAddr reports whether ip may be sent to without
// --allow-private-targets: not in a special-purpose block that is not
// globally reachable (notGlobal), nor multicast; an IPv4 address mapped
// into IPv6 is checked as its IPv4 address.
func PublicAddr(ip netip.Addr) bool {
	ip = ip.Unmap().WithZone("")
	if !ip.IsValid() || ip.IsMulticast() {
		return false
	}
	for _, p := range notGlobal {
		if p.Contains(ip) {
			return false
		}
	}
	return true
}
