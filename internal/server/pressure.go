package server

import (
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// Pressure tells whether the public listener is busy answering, so that
// background work (the notification worker) gives way to readers. It
// counts the requests that pass Wrap; Busy compares their rate, since its
// last look and over at least pressureWindow, with busyRate. It is safe
// for concurrent use.
type Pressure struct {
	requests atomic.Int64
	now      func() time.Time

	mu   sync.Mutex
	at   time.Time // the last look that measured
	seen int64     // requests counted by then
	busy bool      // what it measured
}

const (
	// pressureWindow is the shortest span Busy measures the rate over.
	pressureWindow = 200 * time.Millisecond
	// busyRate is the request rate, per second, from which the listener
	// is busy: a rate at which readers take a share of a core worth giving
	// way to (about 20 µs each: 4% of one core, and one core answers some
	// 50,000 a second), well above what the browsers and monitors of a page
	// in an outage usually ask, so that those do not slow its
	// notifications down.
	busyRate = 2000
)

// NewPressure returns a Pressure reading the time from now (nil:
// time.Now).
func NewPressure(now func() time.Time) *Pressure {
	if now == nil {
		now = time.Now
	}
	return &Pressure{now: now, at: now()}
}

// Wrap counts every request to next. A nil Pressure returns next.
func (p *Pressure) Wrap(next http.Handler) http.Handler {
	if p == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.requests.Add(1)
		next.ServeHTTP(w, r)
	})
}

// Busy reports whether more than busyRate requests a second came since
// the last look that measured, pressureWindow or more ago; a look sooner
// than that answers as the last.
func (p *Pressure) Busy() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.now()
	if d := now.Sub(p.at); d >= pressureWindow {
		n := p.requests.Load()
		p.busy = float64(n-p.seen) > busyRate*d.Seconds()
		p.at, p.seen = now, n
	}
	return p.busy
}
