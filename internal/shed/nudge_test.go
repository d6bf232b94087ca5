package shed

import (
	"context"
	"testing"
	"time"
)

// TestNudge checks when nudge polls the network: never while times are
// not read, nor while connections read; within a few periods once none
// has read for nudgeAfter during a flood; and that it stops with its
// context.
func TestNudge(t *testing.T) {
	l := New(0, 5*time.Millisecond, discard)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { l.nudge(ctx); close(done) }()
	idle := func(what string) {
		t.Helper()
		before := l.nudges.Load()
		time.Sleep(10 * nudgeAfter)
		if n := l.nudges.Load() - before; n != 0 {
			t.Errorf("%s: %d polls", what, n)
		}
	}

	l.lastRead.Store(0) // nothing read for ever
	idle("times not read")

	l.lastRead.Store(time.Now().Add(time.Hour).UnixNano()) // a read that stays recent
	l.readTimes()
	idle("connections reading")

	l.lastRead.Store(0)
	deadline := time.Now().Add(10 * time.Second)
	for l.nudges.Load() == 0 {
		if time.Now().After(deadline) {
			t.Fatal("no poll while nothing was read during a flood")
		}
		time.Sleep(nudgePeriod)
	}

	l.timing.Store(false)
	time.Sleep(2 * nudgePeriod) // the tick that sees it
	idle("times no longer read")

	cancel()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("nudge did not return once its context was done")
	}
}
