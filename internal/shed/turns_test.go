package shed

import (
	"context"
	"os"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"
)

// paced runs the turns of a Limiter with a 5 ms queue target and the
// given processors, for Admit, until the test ends.
func paced(t testing.TB, procs int64) *Limiter {
	t.Helper()
	l, stop := startPace(t, procs)
	t.Cleanup(func() {
		if err := stop(); err != nil {
			t.Errorf("pace: %v", err)
		}
	})
	return l
}

// startPace runs the turns of a Limiter with a 5 ms queue target and the
// given processors, and returns it once they are paced, with the function
// that stops them and returns pace's error.
func startPace(t testing.TB, procs int64) (*Limiter, func() error) {
	t.Helper()
	l := New(0, 5*time.Millisecond, quietLog())
	l.procs = procs
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- l.turns.pace(ctx, procs) }()
	for !l.turnsPaced() {
		time.Sleep(time.Millisecond)
	}
	return l, func() error {
		cancel()
		return <-done
	}
}

// within fails the test unless ch delivers within 5 s.
func within[T any](t *testing.T, ch <-chan T, failure string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(5 * time.Second):
		t.Fatal(failure)
	}
}

// notWithin fails the test if ch delivers within 50 ms.
func notWithin[T any](t *testing.T, ch <-chan T, failure string) {
	t.Helper()
	select {
	case <-ch:
		t.Fatal(failure)
	case <-time.After(50 * time.Millisecond):
	}
}

// turnsPaced reports whether pace runs.
func (l *Limiter) turnsPaced() bool {
	l.turns.mu.Lock()
	defer l.turns.mu.Unlock()
	return l.turns.paced
}

// TestTurnsPollBetween: on one processor, of two computations admitted
// together, the second starts only after the network was polled when the
// first took longer than turnBudget, so that a reader woken by the first
// (as by a request that arrived meanwhile) runs before it. Within the
// budget, or unpaced, the second computation runs before the reader. The
// scheduler now and then takes from its global queue first, for fairness,
// and so runs the second computation before the reader it has woken: the
// paced case past the budget asks for the reader first in most rounds,
// not all.
func TestTurnsPollBetween(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	const rounds = 20
	for _, c := range []struct {
		name      string
		paced     bool
		compute   time.Duration
		min, most int // rounds with the reader before the second computation (a busy machine may delay a round)
	}{
		{"paced, past the budget", true, 2 * turnBudget, rounds - 3, rounds},
		{"paced, within the budget", true, 0, 0, 3},
		{"unpaced", false, 2 * turnBudget, 0, 3},
	} {
		t.Run(c.name, func(t *testing.T) {
			l := New(0, 5*time.Millisecond, quietLog())
			if c.paced {
				l = paced(t, 1)
			}
			readerFirst := 0
			for range rounds {
				if order := pollRound(t, l, c.compute); slices.Equal(order, []string{"compute", "reader", "compute"}) {
					readerFirst++
				} else if !slices.Equal(order, []string{"compute", "compute", "reader"}) {
					t.Fatalf("order %v", order)
				}
			}
			if readerFirst < c.min || readerFirst > c.most {
				t.Errorf("the reader ran before the second computation in %d of %d rounds, want %d to %d",
					readerFirst, rounds, c.min, c.most)
			}
		})
	}
}

// pollRound has a reader wait on a pipe, then two computations admitted
// together, the first of which takes the given time without yielding and
// writes to the pipe, and returns the order in which they ran.
func pollRound(t *testing.T, l *Limiter, compute time.Duration) []string {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	var mu sync.Mutex
	var order []string
	note := func(s string) {
		mu.Lock()
		defer mu.Unlock()
		order = append(order, s)
	}
	var wg sync.WaitGroup
	wg.Go(func() {
		var b [1]byte
		r.Read(b[:]) // parks until the network is polled after the write
		note("reader")
	})
	time.Sleep(5 * time.Millisecond) // the reader is parked
	start := make(chan struct{})
	var write sync.Once // by the first computation
	for range 2 {
		wg.Go(func() {
			<-start
			l.Admit(func() {
				note("compute")
				write.Do(func() {
					// The scheduler may run this before the other
					// computation came: wait for it.
					for l.queued.Load() == 0 {
						runtime.Gosched()
					}
					for start := time.Now(); time.Since(start) < compute; {
					}
					w.Write([]byte{1})
				})
			})
		})
	}
	close(start)
	wg.Wait()
	return order
}

// TestTurnsOneAtATime: with one processor paced, computations admitted
// together run one at a time, each to its end, in the order they came.
func TestTurnsOneAtATime(t *testing.T) {
	l := paced(t, 1)
	var mu sync.Mutex
	running, most := 0, 0
	var ran []int
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Go(func() {
			err := l.Admit(func() {
				mu.Lock()
				running++
				most = max(most, running)
				ran = append(ran, i)
				mu.Unlock()
				time.Sleep(100 * time.Microsecond)
				mu.Lock()
				running--
				mu.Unlock()
			})
			if err != nil {
				t.Errorf("computation %d: %v", i, err)
			}
		})
	}
	wg.Wait()
	if most != 1 || len(ran) != 20 {
		t.Errorf("%d computations ran, at most %d at once: want 20, one at a time", len(ran), most)
	}
}

// TestTurnsTwoProcessors: with two processors, two computations run at
// once, and a third waits for one of them to end.
func TestTurnsTwoProcessors(t *testing.T) {
	l := paced(t, 2)
	started := make(chan int, 3)
	release := make(chan struct{})
	var wg sync.WaitGroup
	for i := range 3 {
		wg.Go(func() {
			l.Admit(func() {
				started <- i
				<-release
			})
		})
	}
	<-started
	<-started
	notWithin(t, started, "a third computation started with two running on two processors")
	release <- struct{}{}
	within(t, started, "the third computation did not start when one of two ended")
	close(release)
	wg.Wait()
}

// TestTurnsStop: when pacing stops (Watch's context is done), the
// computations waiting in line start, and later ones do not wait.
func TestTurnsStop(t *testing.T) {
	l, stop := startPace(t, 1)
	release := make(chan struct{})
	first := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		l.Admit(func() {
			close(first)
			<-release
		})
	})
	<-first
	second := make(chan struct{})
	wg.Go(func() { l.Admit(func() { close(second) }) })
	notWithin(t, second, "a second computation started beside the first on one processor")
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	within(t, second, "the computation waiting did not start when pacing stopped")
	third := make(chan struct{})
	wg.Go(func() { l.Admit(func() { close(third) }) })
	within(t, third, "a computation waited with pacing stopped")
	close(release)
	wg.Wait()
}

// BenchmarkAdmit is what the gate adds to a computation (here an empty
// one): alone, unpaced and paced, and paced with computations from
// several goroutines at once, which then wait in line and, being short,
// hand their turns on directly within turnBudget.
func BenchmarkAdmit(b *testing.B) {
	b.Run("unpaced", func(b *testing.B) {
		l := New(0, 5*time.Millisecond, quietLog())
		b.ReportAllocs()
		for b.Loop() {
			l.Admit(func() {})
		}
	})
	b.Run("paced", func(b *testing.B) {
		l := paced(b, int64(runtime.GOMAXPROCS(0)))
		b.ReportAllocs()
		for b.Loop() {
			l.Admit(func() {})
		}
	})
	b.Run("paced-contended", func(b *testing.B) {
		l := paced(b, int64(runtime.GOMAXPROCS(0)))
		b.ReportAllocs()
		b.SetParallelism(4)
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				l.Admit(func() {})
			}
		})
	})
}
