package shed

import "time"

// Clients that send their next request as soon as a refusal arrives,
// without waiting the Retry-After it gave them (a closed loop of retries),
// are answered as fast as the server can refuse: each refusal brings the
// next request at once, so that the refusals, cheap as each is, take the
// whole processor, and the computations admitted starve. 256 such clients
// left a server about 2% of its capacity for computed answers.
//
// While the refusals made before net/http take more than half of the
// processors' time (refusalShare), a connection that one was written to
// is therefore read again only after the Retry-After it was given
// (pauseFor). A client that waits as it was told sees no difference; one
// that does not has its next request read that much later; and the
// refusals are then bounded by the number of such connections, not by the
// speed of the processors. The pause is not the request's wait: its queue
// time is counted from the end of the pause (see resumed). A flood of
// requests at a rate beyond capacity takes a smaller share for its
// refusals, and is not paused (see refusalShare).

// Pausing's constants.
const (
	// refusalShare: pausing starts once the early refusals took more than
	// 1/refusalShare of the processors' time (deciding, answering and
	// writing; the reads that bring the requests come on top) in
	// pauseAfter periods in a row (200 ms). Clients retrying at once take
	// about 0.7 of it in every period. A flood of twice the capacity of
	// computed answers takes 0.2-0.3 on average, and past half in a few
	// periods at a time (as the requests that queued behind a collection
	// are refused together): up to 3 in a row at twice the capacity, 6 at
	// three times.
	refusalShare = 2
	pauseAfter   = 8
	// pauseFor is how long a connection refused during pausing is left
	// unread: the Retry-After of the refusals (see busyError.RetryAfter).
	pauseFor = time.Second
	// pauseHold is the number of periods (one second) that pausing lasts
	// after the last that exceeded the share: once connections pause, the
	// refusals are few, however many clients retry at once.
	pauseHold = 40
)

// spent counts d, the time an early refusal took, and returns how long
// the connection that made it is to pause: pauseFor while pausing, 0
// otherwise.
func (l *Limiter) spent(d time.Duration) time.Duration {
	l.refusing.Add(int64(d))
	if l.pausing.Load() {
		l.paused.Add(1)
		return pauseFor
	}
	return 0
}

// pacer decides, period by period, whether connections pause after a
// refusal. Pausing that ends is soon started again while clients still
// retry at once (the refusals of a second's pauses come back together):
// an episode, for the log, ends only when pausing stayed off for
// pauseHold periods. It is not safe for concurrent use: only Watch's
// goroutine feeds it.
type pacer struct {
	above int // periods in a row above the share
	// left is the number of periods left in the episode after this one:
	// pausing while pauseHold or more are.
	left int
}

// update takes the time the last period's early refusals took, against
// the processors' time of a period, and returns whether to pause, and
// whether an episode of pausing starts or ends with this period.
func (p *pacer) update(refusing, available time.Duration) (on, started, ended bool) {
	if p.above++; refusing*refusalShare <= available {
		p.above = 0
	}
	was := p.left
	switch {
	case p.above >= pauseAfter:
		// This period and the next: pauseHold of pausing, then
		// pauseHold without.
		p.left = 2*pauseHold - 1
	case p.left > 0:
		p.left--
	}
	return p.left >= pauseHold, was == 0 && p.left > 0, was == 1 && p.left == 0
}

// pace feeds p the time the early refusals took since its last reading,
// and turns pausing on or off. It logs when an episode of pausing starts
// and ends, so that an operator sees that clients retry without waiting.
func (l *Limiter) pace(p *pacer) {
	refusing := time.Duration(l.refusing.Swap(0))
	on, started, ended := p.update(refusing, samplePeriod*time.Duration(l.procs))
	l.pausing.Store(on)
	switch {
	case started:
		l.log.Warn("clients retry at once, without waiting: refusals take more than half of the processors; a connection refused is read again only after its Retry-After",
			"refusing", refusing, "period", samplePeriod, "retry_after", pauseFor)
	case ended:
		l.log.Info("clients no longer retry at once; refused connections no longer pause", "paused", l.paused.Swap(0))
	}
}
