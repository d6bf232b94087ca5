package shed

import (
	"context"
	"os"
	"runtime"
	"sync"
	"time"
)

// turns lines up the computations that Admit lets through: one runs per
// processor at a time, the others wait in line, first come first served,
// and once turnBudget of computing has followed the last poll of the
// network, the next starts only after the network is polled again, so
// that the requests that arrived meanwhile are read, and refused or lined
// up, within about that budget of their arrival.
//
// Handed on directly (a channel, a mutex), turns would follow each other
// without a poll: with few processors, the Go runtime polls the network
// only once nothing else is ready to run, so that new requests would stay
// unread in the kernel's buffers for as long as the line lasts, and could
// be refused only once they had waited that long. The turn is therefore
// handed on through a pipe (see pace): the runtime learns that the pipe is
// readable only when it polls the network, and then it also reads the
// requests that arrived.
//
// While pace does not run, computations do not wait.
type turns struct {
	mu      sync.Mutex
	procs   int64
	paced   bool            // pace runs
	running int64           // computations running, counted by take
	line    []chan struct{} // the computations waiting, first first
	// polled says that the next computation may start at once: the
	// network was polled since the last one ended with others waiting, or
	// that one ended within the budget.
	polled bool
	// fired says that a byte was written to the pipe and not yet read.
	fired bool
	// lastPoll is when the network was last known polled; zero when no
	// computation ran since the line was last empty.
	lastPoll time.Time
	w        *os.File // the pipe's end that pass writes to
}

// take returns once the caller may compute, and whether it was counted
// (for pass).
func (t *turns) take() (counted bool) {
	t.mu.Lock()
	if !t.paced {
		t.mu.Unlock()
		return false
	}
	if t.running < t.procs && t.polled && len(t.line) == 0 {
		t.running++
		if t.lastPoll.IsZero() {
			t.lastPoll = time.Now()
		}
		t.mu.Unlock()
		return true
	}
	turn := make(chan struct{})
	t.line = append(t.line, turn)
	t.mu.Unlock()
	<-turn
	return true
}

// pass ends a computation that take counted. When others are waiting, or
// about to (more), the next starts at once while the network was polled
// less than turnBudget ago, and after the next poll otherwise.
func (t *turns) pass(counted, more bool) {
	if !counted {
		return
	}
	now := time.Now()
	t.mu.Lock()
	t.running--
	switch {
	case !more && len(t.line) == 0:
		// The next computation will come from a request read anew, in a
		// poll that take stamps.
		t.polled, t.lastPoll = true, time.Time{}
		t.mu.Unlock()
		return
	case now.Sub(t.lastPoll) < turnBudget:
		t.polled = true
		t.start(t.procs)
		t.mu.Unlock()
		return
	}
	t.polled = false
	fire := t.paced && !t.fired
	t.fired = t.fired || fire
	w := t.w
	t.mu.Unlock()
	if fire {
		w.Write([]byte{1})
	}
}

// pace hands the turns on after the network is polled, procs running at a
// time, until ctx is done; then it lets every computation waiting start,
// and returns. It returns an error at once when the system has no pipe for
// it.
func (t *turns) pace(ctx context.Context, procs int64) error {
	r, w, err := os.Pipe()
	if err != nil {
		return err
	}
	defer r.Close()
	defer w.Close()
	t.mu.Lock()
	t.procs, t.paced, t.polled, t.fired, t.w = procs, true, true, false, w
	t.mu.Unlock()
	stop := context.AfterFunc(ctx, func() { r.Close() })
	defer stop()
	var b [64]byte
	for {
		if _, err := r.Read(b[:]); err != nil {
			break // closed: ctx is done
		}
		// The requests read in the same poll go first: refused at once,
		// or lined up behind the computations already waiting.
		runtime.Gosched()
		t.mu.Lock()
		t.fired, t.polled, t.lastPoll = false, true, time.Now()
		t.start(t.procs)
		t.mu.Unlock()
	}
	t.mu.Lock()
	t.paced = false
	t.start(int64(len(t.line)) + t.running)
	t.mu.Unlock()
	return nil
}

// start starts the first computations in line while fewer than max run.
// t.mu is held.
func (t *turns) start(max int64) {
	for t.running < max && len(t.line) > 0 {
		t.running++
		close(t.line[0])
		t.line = t.line[1:]
	}
}

// turnBudget is the computing that may follow a poll of the network before
// the next: a request that arrives meanwhile waits about this long to be
// read, and the poll and the pipe are paid once per budget rather than
// once per computation. Against 1 ms, half of it cut the refusals' p99 in
// a flood of list pages from 4.4-4.9 to 3.6-3.9 ms and served as much (4
// alternating pairs).
const turnBudget = 500 * time.Microsecond
