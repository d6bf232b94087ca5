// Package shed refuses the requests a server has no capacity for, at once,
// with 503 and Retry-After, so that the requests that are served stay fast
// instead of queueing for seconds.
//
// Two signals say that capacity is exceeded. The first is the number of
// requests in flight, bounded. The second is queue time: with few
// processors, a handler for a cached answer runs to completion without
// yielding, so requests in flight stay few while the real queue builds up
// outside the handlers, as goroutines ready to run waiting for a processor
// (and bytes in the kernel's socket buffers behind them). Watch measures
// that wait from the Go scheduler's own histogram and, while it stays above
// a target, refuses a share of new requests; see controller for the law.
package shed

import (
	"context"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"runtime/metrics"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/internal/httpjson"
)

// Limiter holds the bounds. It is safe for concurrent use.
type Limiter struct {
	max         int64
	queueTarget time.Duration
	inFlight    atomic.Int64
	shed        atomic.Int64
	// refuse is the share of new requests refused for queue time, in units
	// of 2^-32: a request is refused when a random uint32 is below it.
	refuse atomic.Uint64
	log    *slog.Logger
}

// New returns a Limiter of max requests in flight (0 or less: no bound) that
// also refuses a share of requests while goroutines wait longer than
// queueTarget to run (0 or less: never; the wait is measured by Watch).
func New(max int, queueTarget time.Duration, log *slog.Logger) *Limiter {
	return &Limiter{max: int64(max), queueTarget: queueTarget, log: log}
}

// Shed is the number of requests refused so far, for either reason.
func (l *Limiter) Shed() int64 { return l.shed.Load() }

// Wrap bounds next. Paths with one of the exempt prefixes (the admin API:
// operators must be able to publish during the spike) are never refused.
func (l *Limiter) Wrap(next http.Handler, exempt ...string) http.Handler {
	if l.max <= 0 && l.queueTarget <= 0 {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for _, p := range exempt {
			if strings.HasPrefix(r.URL.Path, p) {
				next.ServeHTTP(w, r)
				return
			}
		}
		// Queue time: the connection stays open, since reconnecting would
		// cost the server more than the refused request.
		if t := l.refuse.Load(); t != 0 && uint64(rand.Uint32()) < t {
			l.refuseRequest(w, r)
			return
		}
		if l.max <= 0 {
			next.ServeHTTP(w, r)
			return
		}
		if l.inFlight.Add(1) > l.max {
			l.inFlight.Add(-1)
			w.Header().Set("Connection", "close")
			l.refuseRequest(w, r)
			return
		}
		defer l.inFlight.Add(-1)
		next.ServeHTTP(w, r)
	})
}

// refuseRequest counts r as shed and answers it 503: JSON on the API paths,
// text elsewhere.
func (l *Limiter) refuseRequest(w http.ResponseWriter, r *http.Request) {
	l.shed.Add(1)
	w.Header().Set("Retry-After", "1")
	if strings.HasPrefix(r.URL.Path, "/api/") || strings.HasPrefix(r.URL.Path, "/v1/") {
		httpjson.Error(w, r, l.log, statusd.Errorf(statusd.EUnavailable, "the server is at capacity; retry in a second"))
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusServiceUnavailable)
	w.Write([]byte("The status page is very busy right now; please retry in a second.\n"))
}

// The runtime metrics Watch reads: the scheduler's cumulative histogram of
// the time goroutines spent ready to run before running (recorded for one
// scheduling in eight, which is plenty under load), and the two that tell
// whether the garbage collector is marking (see marking).
const (
	schedLatencies = "/sched/latencies:seconds"
	gcCycles       = "/gc/cycles/total:gc-cycles"
	gcPauses       = "/sched/pauses/total/gc:seconds"
)

// minWaits is the fewest waits in a period that say anything of a queue.
// The runtime records one scheduling in eight: fewer than 16 in 25 ms is a
// server doing a few hundred requests a second, where a handful of
// goroutines held up by one long task (a snapshot made after a write, say)
// would otherwise read as a queue, and refuse requests on a quiet server.
const minWaits = 16

// samplePeriod is how often Watch reads the histogram: each reading's
// estimate covers the period since the previous one.
const samplePeriod = 25 * time.Millisecond

// Watch samples the scheduler's wait every samplePeriod and sets the share
// of requests refused for queue time, until ctx is done; then it stops
// refusing for queue time and returns. It returns at once when the Limiter
// has no queue target.
func (l *Limiter) Watch(ctx context.Context) {
	if l.queueTarget <= 0 {
		return
	}
	defer l.refuse.Store(0)
	s := []metrics.Sample{{Name: schedLatencies}, {Name: gcCycles}, {Name: gcPauses}}
	metrics.Read(s)
	for _, m := range s {
		if m.Value.Kind() == metrics.KindBad {
			l.log.Warn("queue-time shedding is off: the Go runtime does not report " + m.Name)
			return
		}
	}
	// Read reuses the histogram's slices: keep a copy of the counts.
	prev := slices.Clone(s[0].Value.Float64Histogram().Counts)
	prevCycles := s[1].Value.Uint64()
	c := controller{target: l.queueTarget}
	tick := time.NewTicker(samplePeriod)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		metrics.Read(s)
		h := s[0].Value.Float64Histogram()
		cycles := s[1].Value.Uint64()
		// The collector marked during the period if it is marking now or
		// completed a cycle since the last reading.
		gc := cycles != prevCycles || marking(cycles, s[2].Value.Float64Histogram().Counts)
		l.observe(&c, p90(h.Buckets, prev, h.Counts), gc)
		prev, prevCycles = append(prev[:0], h.Counts...), cycles
	}
}

// observe feeds one reading to c and publishes the share of requests to
// refuse for the request path.
func (l *Limiter) observe(c *controller, delay time.Duration, gc bool) {
	l.refuse.Store(uint64(c.update(delay, gc) * (1 << 32)))
}

// p90 is the 90th percentile of the waits recorded between two readings of
// a cumulative histogram, prev and cur, whose bucket i holds the values in
// [buckets[i], buckets[i+1]). It is the lower bound of the bucket where the
// percentile falls: at least a tenth of the waits were that long or longer.
// A lower bound of -Inf (the runtime's first bucket, below 0) counts as 0;
// the last bucket's upper bound, +Inf, is never used. Fewer than minWaits
// waits: 0.
//
// Why the 90th percentile: on one processor, most schedulings are hand-offs
// (a goroutine readied or started by the running one runs next, after
// microseconds) even when the server is overloaded, so the median stays
// near zero. The goroutines that do queue, those the network poller found
// ready together, are the slowest tenth or more; the 90th percentile tracks
// them, from enough samples not to follow a single outlier.
func p90(buckets []float64, prev, cur []uint64) time.Duration {
	if len(prev) != len(cur) || len(buckets) != len(cur)+1 {
		return 0
	}
	var total uint64
	for i := range cur {
		total += cur[i] - prev[i]
	}
	if total < minWaits {
		return 0
	}
	rank := (total*9 + 9) / 10 // ceil(0.9 * total), the rank of the percentile from 1
	var seen uint64
	for i := range cur {
		seen += cur[i] - prev[i]
		if seen >= rank {
			return time.Duration(max(buckets[i], 0) * float64(time.Second))
		}
	}
	return 0 // unreachable: seen reaches total
}

// marking reports whether the garbage collector is marking, from the
// number of completed cycles and the counts of the histogram of its
// stop-the-world pauses. Each cycle stops the world twice, as marking
// starts and as it ends, and counts itself complete at the second: one
// pause more than twice the cycles means that marking is under way.
//
// Marking matters because, on one processor, the collector's share of it
// holds runnable goroutines up for tens of milliseconds at a time, through
// a mark phase of up to a few hundred milliseconds, at any load; the queue
// that builds drains by itself once marking is over.
func marking(cycles uint64, pauses []uint64) bool {
	var n uint64
	for _, c := range pauses {
		n += c
	}
	return n == 2*cycles+1
}

// The control law's constants; see controller.
const (
	startAfter = 3    // readings above the target (75 ms), without marking, before the first refusal
	increase   = 0.05 // added to p at a reading above the target, per target's worth of delay...
	maxStep    = 0.2  // ...up to this much a reading
	decrease   = 0.8  // p is multiplied by it at each reading at or below the target
	minShare   = 0.01 // a smaller p is 0
	maxShare   = 0.95 // p never exceeds it: some requests always get through
)

// controller turns readings of the queue delay, one per samplePeriod, into
// p, the share of new requests to refuse:
//
//   - while p is 0, refusing starts only once startAfter readings in a row
//     (a 75 ms interval, as in CoDel) are above the target, not counting
//     those of periods in which the collector marked, so that neither a
//     short burst nor a garbage collection is refused;
//   - then every reading above the target adds increase for each target's
//     worth of delay, up to maxStep, and up to maxShare in all: a long
//     queue is cut fast (at 4 targets or more, 0.2 a reading: p reaches
//     0.6 within 75 ms), a delay just over the target moves p a little;
//   - every reading at or below the target multiplies p by decrease, so
//     that refusing stops within about half a second (21 readings from
//     0.95) of the queue draining; a p below minShare becomes 0, and the
//     next episode waits out the interval again.
//
// It is not safe for concurrent use: only Watch's goroutine feeds it.
type controller struct {
	target time.Duration
	above  int // readings in a row above the target, without marking, while p is 0
	p      float64
}

// update takes the queue delay over the last period, and whether the
// collector marked during it, and returns the new p.
func (c *controller) update(delay time.Duration, gc bool) float64 {
	if delay <= c.target {
		c.above = 0
		if c.p *= decrease; c.p < minShare {
			c.p = 0
		}
		return c.p
	}
	if c.p == 0 {
		if !gc {
			c.above++
		}
		if c.above < startAfter {
			return 0
		}
	}
	c.p = min(c.p+min(increase*float64(delay)/float64(c.target), maxStep), maxShare)
	return c.p
}
