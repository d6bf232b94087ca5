package server

import (
	"net/http"
	"strings"
	"sync/atomic"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/internal/route"
)

// Gate bounds the requests worked on at once, as golang/pkgsite's load
// shedder does: a request takes one of a fixed number of places, without
// waiting, or is refused at once with 503 and Retry-After. A refusal costs
// next to nothing, so that under a flood the requests served stay fast
// instead of queueing. The answers already cached never reach the gate
// (see routes.go), and the paths of ungated pass it uncounted. It is safe
// for concurrent use.
type Gate struct {
	places chan struct{} // nil: no bound
	exempt []string
	shed   atomic.Int64
}

// NewGate returns a gate of max places; 0 or less means no bound.
func NewGate(max int) *Gate {
	g := &Gate{exempt: ungated}
	if max > 0 {
		g.places = make(chan struct{}, max)
	}
	return g
}

// Shed is the number of requests refused so far.
func (g *Gate) Shed() int64 { return g.shed.Load() }

// Wrap lets a request through to next when a place is free, and holds the
// place until next returns; otherwise it counts the request as shed and
// answers ErrBusy with refuse.
func (g *Gate) Wrap(next http.Handler, refuse func(http.ResponseWriter, *http.Request, error)) http.Handler {
	if g.places == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for _, prefix := range g.exempt {
			if strings.HasPrefix(r.URL.Path, prefix) {
				next.ServeHTTP(w, r)
				return
			}
		}
		select {
		case g.places <- struct{}{}:
			defer func() { <-g.places }()
			next.ServeHTTP(w, r)
		default:
			g.shed.Add(1)
			refuse(w, r, ErrBusy)
		}
	})
}

// ErrBusy is the gate's refusal: 503 unavailable, to be retried in a
// second.
var ErrBusy = route.Retry(statusd.Errorf(statusd.EUnavailable, "the server is at capacity; retry in a second"), 1)
