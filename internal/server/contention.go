package server

import (
	"runtime/metrics"
	"sync"
	"time"
)

// Contention tells whether the process's goroutines wait for a processor:
// the 90th percentile of the runtime's scheduling latency
// (/sched/latencies:seconds, the time goroutines spent runnable before
// they ran) since its last look, over at least pressureWindow, above
// contendedLatency. Readers slowed by the sender show there first, and a
// machine that serves 55,000 reads a second with room to spare does not.
// The standard mechanism: the runtime measures it for every goroutine,
// and reading it costs a few microseconds. It is safe for concurrent use.
type Contention struct {
	now func() time.Time

	mu        sync.Mutex
	sample    []metrics.Sample
	last      []uint64 // the histogram's counts at the last look
	at        time.Time
	contended bool
}

const (
	schedLatencies = "/sched/latencies:seconds"
	// contendedLatency is the scheduling latency, at the 90th percentile,
	// from which goroutines contend for the processors: an idle process
	// schedules in microseconds; one whose processors are saturated by
	// dozens of connections (wrk's 32) waits a millisecond and more.
	contendedLatency = 250 * time.Microsecond
)

// NewContention returns a Contention reading the time from now (nil:
// time.Now).
func NewContention(now func() time.Time) *Contention {
	if now == nil {
		now = time.Now
	}
	c := &Contention{now: now, sample: []metrics.Sample{{Name: schedLatencies}}, at: now()}
	c.last = c.read().Counts
	return c
}

// read reads the histogram, its counts copied.
func (c *Contention) read() metrics.Float64Histogram {
	metrics.Read(c.sample)
	h := c.sample[0].Value.Float64Histogram()
	return metrics.Float64Histogram{Counts: append([]uint64(nil), h.Counts...), Buckets: h.Buckets}
}

// Contended reports whether the 90th percentile of the scheduling
// latencies since the last look that measured, pressureWindow or more
// ago, was over contendedLatency; a look sooner than that answers as the
// last.
func (c *Contention) Contended() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.now()
	if now.Sub(c.at) < pressureWindow {
		return c.contended
	}
	h := c.read()
	var total uint64
	for i := range h.Counts {
		total += h.Counts[i] - c.last[i]
	}
	c.contended = false
	if total > 0 {
		// The first bucket whose cumulative count passes 90%: its lower
		// bound is the percentile, at the histogram's resolution.
		var seen uint64
		for i := range h.Counts {
			if seen += h.Counts[i] - c.last[i]; seen*10 >= total*9 {
				c.contended = h.Buckets[i] >= contendedLatency.Seconds()
				break
			}
		}
	}
	c.at, c.last = now, h.Counts
	return c.contended
}
