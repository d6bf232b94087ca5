package shed

import (
	"errors"
	"io"
	"log/slog"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/statusd/statusd"
)

func quietLog() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// TestAdmitLaw: with a 5 ms queue target the bound is 2.5 ms. A
// computation is refused only once at least minPending (8 a processor)
// wait and their expected cost passes the bound.
func TestAdmitLaw(t *testing.T) {
	cases := []struct {
		name    string
		procs   int64
		queued  int64
		cost    time.Duration
		refused bool
	}{
		{"nothing waits", 1, 0, time.Second, false},
		{"7 wait: too few to refuse, however costly", 1, 7, time.Second, false},
		{"8 wait, 8 x 0.3 ms = 2.4 ms: within", 1, 8, 300 * time.Microsecond, false},
		{"8 wait, 8 x 0.32 ms = 2.56 ms: past", 1, 8, 320 * time.Microsecond, true},
		{"2 processors, 15 wait: too few", 2, 15, time.Second, false},
		{"2 processors, 16 wait, 16 x 0.32 / 2 = 2.56 ms: past", 2, 16, 320 * time.Microsecond, true},
		{"2 processors, 20 wait, 20 x 0.25 / 2 = 2.5 ms: within", 2, 20, 250 * time.Microsecond, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			l := New(0, 5*time.Millisecond, quietLog())
			l.procs = c.procs
			l.queued.Store(c.queued)
			l.computeCost.Store(int64(c.cost))
			ran := false
			err := l.Admit(func() { ran = true })
			if c.refused {
				if !errors.Is(err, ErrBusy) || ran || l.Shed() != 1 {
					t.Fatalf("want a refusal, counted, nothing run: err %v, ran %v, shed %d", err, ran, l.Shed())
				}
				return
			}
			if err != nil || !ran || l.Shed() != 0 {
				t.Fatalf("want it run: err %v, ran %v, shed %d", err, ran, l.Shed())
			}
			if l.queued.Load() != c.queued {
				t.Errorf("queued %d after the computation, want %d as before", l.queued.Load(), c.queued)
			}
		})
	}
}

// TestAdmitOff: without a queue target every computation runs.
func TestAdmitOff(t *testing.T) {
	l := New(10, 0, quietLog())
	l.queued.Store(1000)
	l.computeCost.Store(int64(time.Second))
	ran := false
	if err := l.Admit(func() { ran = true }); err != nil || !ran {
		t.Fatalf("err %v, ran %v", err, ran)
	}
}

// TestAdmitCost: the cost is a moving average, 1/8 of each computation:
// from nothing, a computation of at least 8 ms makes it at least 1 ms.
func TestAdmitCost(t *testing.T) {
	l := New(0, 5*time.Millisecond, quietLog())
	if err := l.Admit(func() { time.Sleep(8 * time.Millisecond) }); err != nil {
		t.Fatal(err)
	}
	if c := time.Duration(l.computeCost.Load()); c < time.Millisecond {
		t.Errorf("cost %v after an 8 ms computation, want at least 1 ms", c)
	}
}

// TestAdmitYields: on one processor, 40 requests that are all ready to run
// reach the gate before any of them computes, so that the gate sees them
// queue and refuses some. Without the yield, each would compute before the
// next one ran, nothing would ever be waiting, and all 40 would run.
func TestAdmitYields(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	l := New(0, 5*time.Millisecond, quietLog())
	l.procs = 1
	l.computeCost.Store(int64(10 * time.Millisecond))
	var mu sync.Mutex
	ran, refused := 0, 0
	var wg sync.WaitGroup
	for range 40 {
		wg.Go(func() {
			err := l.Admit(func() {})
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				refused++
			} else {
				ran++
			}
		})
	}
	wg.Wait()
	if ran+refused != 40 || ran < minPending || refused == 0 {
		t.Fatalf("%d ran, %d refused: want at least %d run and some refused", ran, refused, minPending)
	}
	if l.Shed() != int64(refused) {
		t.Errorf("shed %d, want the %d refused", l.Shed(), refused)
	}
}

// TestErrBusy: the refusal is a 503 (unavailable) that says to retry in a
// second.
func TestErrBusy(t *testing.T) {
	if code := statusd.ErrorCode(ErrBusy); code != statusd.EUnavailable {
		t.Errorf("code %q, want %q", code, statusd.EUnavailable)
	}
	if msg := statusd.ErrorMessage(ErrBusy); msg != "the server is at capacity; retry in a second" {
		t.Errorf("message %q", msg)
	}
	var retry interface{ RetryAfter() int }
	if !errors.As(ErrBusy, &retry) || retry.RetryAfter() != 1 {
		t.Error("ErrBusy does not say to retry in a second")
	}
}
