package shed

import (
	"runtime"
	"time"

	"github.com/statusd/statusd"
)

// minPending is the fewest computations waiting, per processor, for Admit
// to refuse one: fewer is a handful of clients at once, which a quiet
// server serves however long one computation takes.
const minPending = 8

// Admit runs compute, the computation of an answer no cache holds, unless
// the computations admitted before it and not yet started would keep it
// waiting past half the queue target (and there are at least minPending
// of them per processor). Then it refuses at once: it counts the request
// as shed and returns ErrBusy, for a 503 with Retry-After. It is meant for
// the caches' computations (see respcache.PerSource); with no queue
// target, it only runs compute.
//
// The queue it bounds is otherwise invisible. With few processors, a
// handler runs to completion without yielding, so requests ready to run
// wait in the scheduler's queue, each behind the computations of all those
// before it, and the runtime polls the network again only once that queue
// is empty: a flood of computations keeps new requests unread for tens of
// milliseconds before the first of them can be refused. Admit yields
// before it computes (runtime.Gosched), so that every request ready to run
// reaches the gate, and is counted or refused, before a computation
// starts. While Watch runs, the computations admitted then take turns, with
// the network polled after each millisecond of computing (see turns): a
// request is read within about that of its arrival, and refused then if
// the line is full.
//
// What a computation costs is the moving average of the last ones (1/8
// weight each): a mix of cheap and costly ones counts as their average.
func (l *Limiter) Admit(compute func()) error {
	if l.queueTarget/2 <= 0 {
		compute() // no gate
		return nil
	}
	if l.computationsFull() {
		l.gateRefused.Add(1)
		l.shed.Add(1)
		return ErrBusy
	}
	l.queued.Add(1)
	runtime.Gosched()
	counted := l.turns.take()
	l.queued.Add(-1)
	defer func() { l.turns.pass(counted, l.queued.Load() > 0) }()
	start := time.Now()
	compute()
	took := int64(time.Since(start))
	avg := l.computeCost.Load()
	l.computeCost.Store(avg + (took-avg)/8)
	return nil
}

// computationsFull reports whether the computations admitted and not yet
// started would keep one more waiting past half the queue target (and
// there are at least minPending of them per processor).
func (l *Limiter) computationsFull() bool {
	bound := l.queueTarget / 2
	ahead := l.queued.Load()
	return bound > 0 && ahead >= minPending*l.procs && ahead*l.computeCost.Load()/l.procs > int64(bound)
}

// ErrBusy is Admit's refusal: 503, to be retried in a second (see
// RetryAfter).
var ErrBusy error = busyError{statusd.Errorf(statusd.EUnavailable, "the server is at capacity; retry in a second")}

// busyError is a *statusd.Error that also says when to retry.
type busyError struct{ err *statusd.Error }

func (b busyError) Error() string { return b.err.Error() }

func (b busyError) Unwrap() error { return b.err }

// RetryAfter is the Retry-After header of the answer, in seconds.
func (busyError) RetryAfter() int { return 1 }
