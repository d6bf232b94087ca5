package api

import (
	"net/http"
	"strconv"
	"time"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/internal/httpjson"
	"github.com/statusd/statusd/internal/ratelimit"
)

// rateLimit applies the §8 limit to every request it wraps and sets the
// RateLimit-* headers; over the limit it answers 429 with Retry-After. CORS
// preflights do not count.
func (s *Server) rateLimit(next http.Handler) http.Handler {
	if s.limiter == nil {
		return next
	}
	limit := strconv.Itoa(s.limiter.Burst())
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodOptions {
			next.ServeHTTP(w, r)
			return
		}
		res := s.limiter.Allow(ratelimit.ClientAddr(r, s.trusted), time.Now())
		h := w.Header()
		h.Set("RateLimit-Limit", limit)
		h.Set("RateLimit-Remaining", strconv.Itoa(res.Remaining))
		h.Set("RateLimit-Reset", strconv.Itoa(res.Reset))
		if !res.OK {
			h.Set("Retry-After", strconv.Itoa(res.Retry))
			s.writeError(w, r, statusd.Errorf(statusd.ERateLimited, "too many requests; retry in %d second(s)", res.Retry))
			return
		}
		next.ServeHTTP(w, r)
	})
}

func (s *Server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	httpjson.Error(w, r, s.log, err)
}
