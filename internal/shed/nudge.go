package shed

import (
	"context"
	"runtime"
	"time"
)

// With one processor, the Go runtime polls the network only when no
// goroutine is ready to run (or every 10 ms, from its monitor). After each
// collection, the runtime's background sweeper works in the time the
// processor would otherwise be idle, yielding to the run queues only, where
// it waits itself: while it has work left, the network is not polled, and
// no request is read, for 5 ms after each collection of the flood of the
// benchmark (golang/go#56060). A refusal is decided when its request is
// read, so these gaps were most of the refusals' tail, and what tipped
// floods over: a client whose connections all wait that long opens more.
//
// Starting the world again after stopping it polls the network, and
// readies the goroutines of the connections that have bytes to read, ahead
// of the sweeper. So while the connections of Listen read arrival times (a
// flood), nudge stops and starts the world, through runtime.ReadMemStats
// (about a microsecond), whenever no connection has read for nudgeAfter. A
// goroutine woken by a timer runs before the sweeper does, since timers
// are run before the run queues are looked at.

// nudgePeriod is how often nudge looks, and nudgeAfter how long without a
// read it lets pass before it polls: against 250 µs and 1 ms, these made
// 10 times fewer polls (about 450 in 8 s of the benchmark's list pages
// flood) for about the same tail.
const (
	nudgePeriod = 500 * time.Microsecond
	nudgeAfter  = 2 * time.Millisecond
)

// nudge polls the network when no connection of Listen has read for
// nudgeAfter, while times are read, until ctx is done.
func (l *Limiter) nudge(ctx context.Context) {
	var stats runtime.MemStats
	for {
		select {
		case <-ctx.Done():
			return
		case <-l.timed:
		}
		tick := time.NewTicker(nudgePeriod)
		for l.timing.Load() {
			select {
			case <-ctx.Done():
				tick.Stop()
				return
			case <-tick.C:
			}
			if time.Now().UnixNano()-l.lastRead.Load() > int64(nudgeAfter) {
				l.nudges.Add(1)
				runtime.ReadMemStats(&stats) // stops the world; starting it again polls the network
			}
		}
		tick.Stop()
	}
}

// readTimes turns the reading of arrival times on (see observe), and with
// it nudge.
func (l *Limiter) readTimes() {
	if !l.timing.Swap(true) {
		select {
		case l.timed <- struct{}{}:
		default:
		}
	}
}
