package notify

import (
	"fmt"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/statusd/statusd"
)

// TestLaneHold follows a lane through a batch on a made-up clock: not
// busy, it never holds; busy, it holds while a delivery is under way, then
// for restFactor (4) times the batch's wall time, at most maxRest (1 s).
func TestLaneHold(t *testing.T) {
	l := &lane{slots: make(chan struct{}, 4)}
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	check := func(what string, now time.Time, busy bool, wantUntil time.Time, wantHeld bool) {
		t.Helper()
		until, held := l.hold(now, busy)
		if held != wantHeld || !until.Equal(wantUntil) {
			t.Errorf("%s: hold = %v, %v; want %v, %v", what, until, held, wantUntil, wantHeld)
		}
	}
	check("busy, before any batch", at(0), true, time.Time{}, false)
	l.claim(at(0))
	l.slots <- struct{}{}
	check("not busy, a delivery under way", at(50), false, time.Time{}, false)
	check("busy, a delivery under way", at(50), true, time.Time{}, true)
	<-l.slots
	l.emptied(at(100)) // a batch of 100 ms: a rest of 400 ms, to 500
	check("busy, resting", at(300), true, at(500), true)
	check("not busy, in the rest", at(300), false, time.Time{}, false)
	check("busy, at the rest's end", at(500), true, at(500), false)

	l.claim(at(1000))
	l.emptied(at(2000)) // a batch of 1 s: 4 s of rest, cut to 1 s
	check("busy, after a long batch", at(2999), true, at(3000), true)
	check("busy, after the longest rest", at(3000), true, at(3000), false)
}

// TestPaced sends 300 webhooks to a receiver that takes 20 ms to answer
// each: at most maxHTTP (16) at once, a batch of 100 takes at least 7
// waves of 20 ms, 140 ms. While readers are busy all the time, the lane
// sends its three batches one after the other with a rest of 4 x 140 ms
// between them: the last arrives 3 x 140 + 2 x 560 = 1,540 ms or more
// after the worker was woken, and still arrives. Without readers,
// nothing waits: 19 waves of 20 ms, about 0.4 s, well under that.
func TestPaced(t *testing.T) {
	const hooks = 300
	const paced = 3*140*time.Millisecond + 2*restFactor*140*time.Millisecond
	for _, busy := range []bool{true, false} {
		t.Run(fmt.Sprintf("busy=%v", busy), func(t *testing.T) {
			var received atomic.Int64
			rcv := startReceiver(t, func(w http.ResponseWriter, _ *http.Request) {
				time.Sleep(20 * time.Millisecond)
				received.Add(1)
			})
			subs := make([]statusd.Subscriber, hooks)
			for i := range subs {
				subs[i] = statusd.Subscriber{Channel: statusd.Webhook, Address: fmt.Sprintf("%s/%d", rcv.URL, i), Secret: statusd.NewWebhookSecret()}
			}
			start, _ := startFanOut(t, Config{Busy: func() bool { return busy }}, subs)
			for received.Load() < hooks && time.Since(start) < 30*time.Second {
				time.Sleep(5 * time.Millisecond)
			}
			took := time.Since(start)
			switch {
			case received.Load() < hooks:
				t.Fatalf("%d of %d webhooks arrived in 30 s", received.Load(), hooks)
			case busy && took < paced:
				t.Errorf("busy readers: the %d webhooks took %v; want %v or more (paced)", hooks, took.Round(time.Millisecond), paced)
			case !busy && took >= paced:
				t.Errorf("no readers: the %d webhooks took %v; want less than %v (not paced)", hooks, took.Round(time.Millisecond), paced)
			}
			t.Logf("busy=%v: %d webhooks in %v", busy, hooks, took.Round(time.Millisecond))
		})
	}
}
