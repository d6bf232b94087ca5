// Package shed bounds the requests a server works on at once. Past the
// bound, a request is refused at once with 503 and Retry-After, so that the
// requests that are served stay fast instead of queueing for seconds.
package shed

import (
	"net/http"
	"strings"
	"sync/atomic"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/internal/httpjson"

	"log/slog"
)

// Limiter is the bound. It is safe for concurrent use.
type Limiter struct {
	max      int64
	inFlight atomic.Int64
	shed     atomic.Int64
	log      *slog.Logger
}

// New returns a Limiter of max requests in flight; 0 or less means no bound.
func New(max int, log *slog.Logger) *Limiter {
	return &Limiter{max: int64(max), log: log}
}

// Shed is the number of requests refused so far.
func (l *Limiter) Shed() int64 { return l.shed.Load() }

// Wrap bounds next. Paths with one of the exempt prefixes (the admin API:
// operators must be able to publish during the spike) are never refused.
func (l *Limiter) Wrap(next http.Handler, exempt ...string) http.Handler {
	if l.max <= 0 {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for _, p := range exempt {
			if strings.HasPrefix(r.URL.Path, p) {
				next.ServeHTTP(w, r)
				return
			}
		}
		if l.inFlight.Add(1) > l.max {
			l.inFlight.Add(-1)
			l.shed.Add(1)
			w.Header().Set("Retry-After", "1")
			w.Header().Set("Connection", "close")
			if strings.HasPrefix(r.URL.Path, "/api/") || strings.HasPrefix(r.URL.Path, "/v1/") {
				httpjson.Error(w, r, l.log, statusd.Errorf(statusd.EUnavailable, "the server is at capacity; retry in a second"))
				return
			}
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			w.Header().Set("Cache-Control", "no-store")
			w.WriteHeader(http.StatusServiceUnavailable)
			w.Write([]byte("The status page is very busy right now; please retry in a second.\n"))
			return
		}
		defer l.inFlight.Add(-1)
		next.ServeHTTP(w, r)
	})
}
