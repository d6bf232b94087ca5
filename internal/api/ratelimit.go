package api

import (
	"math"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// limiter is the §8 rate limit: a token bucket per client (CONTRACT C2).
// Buckets that have refilled are forgotten, so memory follows the number of
// recently active clients. It is safe for concurrent use.
type limiter struct {
	rate    rate.Limit
	burst   int
	mu      sync.Mutex
	clients map[string]*rate.Limiter
	swept   time.Time
}

func newLimiter(perSecond float64) *limiter {
	burst := max(1, int(math.Ceil(perSecond)))
	return &limiter{rate: rate.Limit(perSecond), burst: burst, clients: map[string]*rate.Limiter{}}
}

// allow takes a token for the client at now. It returns whether the request
// may go on, the whole tokens left, the seconds until the bucket is full and,
// when refused, the seconds until a token is there.
func (l *limiter) allow(client string, now time.Time) (ok bool, remaining, reset, retry int) {
	l.mu.Lock()
	defer l.mu.Unlock()
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
	ok = b.AllowN(now, 1)
	tokens := b.TokensAt(now)
	remaining = max(0, int(math.Floor(tokens)))
	reset = int(math.Ceil((float64(l.burst) - tokens) / float64(l.rate)))
	if !ok {
		retry = max(1, int(math.Ceil((1-tokens)/float64(l.rate))))
	}
	return ok, remaining, reset, retry
}

// clientAddr is the TCP peer's address, or, when the peer is a trusted proxy,
// the rightmost address of X-Forwarded-For that is not a trusted proxy.
func clientAddr(r *http.Request, trusted []netip.Prefix) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	if !isTrusted(host, trusted) {
		return host
	}
	hops := strings.Split(strings.Join(r.Header.Values("X-Forwarded-For"), ","), ",")
	for i := len(hops) - 1; i >= 0; i-- {
		hop := strings.TrimSpace(hops[i])
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

// rateLimit applies the limit to every request it wraps and sets the
// RateLimit-* headers; over the limit it answers 429 with Retry-After.
func (s *Server) rateLimit(next http.Handler) http.Handler {
	if s.limiter == nil {
		return next
	}
	limit := strconv.Itoa(s.limiter.burst)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodOptions {
			next.ServeHTTP(w, r)
			return
		}
		ok, remaining, reset, retry := s.limiter.allow(clientAddr(r, s.trusted), time.Now())
		h := w.Header()
		h.Set("RateLimit-Limit", limit)
		h.Set("RateLimit-Remaining", strconv.Itoa(remaining))
		h.Set("RateLimit-Reset", strconv.Itoa(reset))
		if !ok {
			h.Set("Retry-After", strconv.Itoa(retry))
			s.writeError(w, r, errRateLimited(retry))
			return
		}
		next.ServeHTTP(w, r)
	})
}
