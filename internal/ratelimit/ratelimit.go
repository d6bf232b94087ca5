// Package ratelimit keeps a token bucket per client (CONTRACT C2) and finds
// the client of a request behind trusted proxies.
package ratelimit

import (
	"math"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/internal/route"
)

// Allower is a rate limit per client: a local Limiter, or one Shared
// through Redis.
type Allower interface {
	// Allow takes a token from the client's bucket at now.
	Allow(client string, now time.Time) Result
	// Burst is the size of each client's bucket.
	Burst() int
}

// Limiter is a token bucket per client. Buckets that have refilled are
// forgotten, so memory follows the number of recently active clients. It is
// safe for concurrent use.
type Limiter struct {
	rate    rate.Limit
	burst   int
	mu      sync.Mutex
	clients map[string]*rate.Limiter
	swept   time.Time
}

// New returns a Limiter of perSecond tokens a second per client, with
// buckets of burst tokens; a burst of 0 means perSecond (at least 1).
func New(perSecond float64, burst int) *Limiter {
	if burst <= 0 {
		burst = max(1, int(math.Ceil(perSecond)))
	}
	return &Limiter{rate: rate.Limit(perSecond), burst: burst, clients: map[string]*rate.Limiter{}}
}

// Burst is the size of each client's bucket.
func (l *Limiter) Burst() int { return l.burst }

// Result is the outcome of Allow.
type Result struct {
	OK        bool
	Remaining int // whole tokens left
	Reset     int // seconds until the bucket is full
	Retry     int // when refused, seconds until a token is there
}

// Allow takes a token from the client's bucket at now.
func (l *Limiter) Allow(client string, now time.Time) Result {
	l.mu.Lock()
	defer l.mu.Unlock()
	b := l.bucket(client, now)
	ok := b.AllowN(now, 1)
	return l.result(ok, b.TokensAt(now))
}

// Check reports, without taking a token, whether the client has one left.
func (l *Limiter) Check(client string, now time.Time) Result {
	l.mu.Lock()
	defer l.mu.Unlock()
	tokens := l.bucket(client, now).TokensAt(now)
	return l.result(tokens >= 1, tokens)
}

func (l *Limiter) bucket(client string, now time.Time) *rate.Limiter {
	if now.Sub(l.swept) > time.Minute {
		for k, b := range l.clients {
			if b.TokensAt(now) >= float64(l.burst) {
				delete(l.clients, k)
			}
		}
		l.swept = now
	}
	b := l.clients[client]
	if b == nil {
		b = rate.NewLimiter(l.rate, l.burst)
		l.clients[client] = b
	}
	return b
}

func (l *Limiter) result(ok bool, tokens float64) Result {
	r := Result{
		OK:        ok,
		Remaining: max(0, int(math.Floor(tokens))),
		Reset:     int(math.Ceil((float64(l.burst) - tokens) / float64(l.rate))),
	}
	if !ok {
		r.Retry = max(1, int(math.Ceil((1-tokens)/float64(l.rate))))
	}
	return r
}

// ClientAddr is the TCP peer's address, or, when the peer is a trusted
// proxy, the rightmost address of X-Forwarded-For that is not a trusted
// proxy. An address is given without its port and in its canonical form,
// so that one client is one client whatever port a proxy writes.
func ClientAddr(r *http.Request, trusted []netip.Prefix) string {
	host := addrOf(r.RemoteAddr)
	if !isTrusted(host, trusted) {
		return host
	}
	hops := strings.Split(strings.Join(r.Header.Values("X-Forwarded-For"), ","), ",")
	for i := len(hops) - 1; i >= 0; i-- {
		hop := addrOf(strings.TrimSpace(hops[i]))
		if hop == "" {
			continue
		}
		if !isTrusted(hop, trusted) {
			return hop
		}
		host = hop
	}
	return host
}

// Block is the block of addresses that a limit counts as one client: the
// address client (as ClientAddr gives it), or for IPv6 its /64, the block
// one host or home usually has whole, so that a client cannot take a new
// allowance with each of its addresses.
func Block(client string) string {
	if ip, err := netip.ParseAddr(client); err == nil && ip.Is6() && !ip.Is4In6() {
		p, _ := ip.Prefix(64)
		return p.String()
	}
	return client
}

// addrOf is the IP address in s, written "ip", "ip:port" or "[ip]:port",
// in its canonical form (an IPv4-mapped IPv6 address as IPv4); s itself
// when it holds no IP address.
func addrOf(s string) string {
	if ap, err := netip.ParseAddrPort(s); err == nil {
		return ap.Addr().Unmap().String()
	}
	if a, err := netip.ParseAddr(s); err == nil {
		return a.Unmap().String()
	}
	return s
}

func isTrusted(addr string, trusted []netip.Prefix) bool {
	ip, err := netip.ParseAddr(addr)
	if err != nil {
		return false
	}
	ip = ip.Unmap()
	for _, p := range trusted {
		if p.Contains(ip) {
			return true
		}
	}
	return false
}

// Check counts r against the limit and sets the RateLimit-* headers of
// its answer; over the limit, it returns the 429 to answer with (CONTRACT
// C2), with the seconds until a token is back as its Retry-After. A nil
// limit lets everything through.
func Check(l Allower, trusted []netip.Prefix, w http.ResponseWriter, r *http.Request) error {
	if l == nil {
		return nil
	}
	res := l.Allow(ClientAddr(r, trusted), time.Now())
	h := w.Header()
	h.Set("RateLimit-Limit", strconv.Itoa(l.Burst()))
	h.Set("RateLimit-Remaining", strconv.Itoa(res.Remaining))
	h.Set("RateLimit-Reset", strconv.Itoa(res.Reset))
	if !res.OK {
		return route.Retry(statusd.Errorf(statusd.ERateLimited, "too many requests; retry in %d second(s)", res.Retry), res.Retry)
	}
	return nil
}
