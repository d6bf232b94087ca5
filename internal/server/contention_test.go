package server

import (
	"runtime"
	"sync"
	"testing"
	"time"
)

// TestContention: goroutines that wake every 100 µs are scheduled at once
// while the processors are free (not contended), and wait behind
// goroutines that spin on every processor while those run (contended),
// as readers wait behind a busy sender. Each phase lasts 300 ms.
func TestContention(t *testing.T) {
	c := NewContention(nil)
	phase := func(spinners int) bool {
		t.Helper()
		stop := time.Now().Add(300 * time.Millisecond)
		var wg sync.WaitGroup
		for range spinners {
			wg.Go(func() {
				for time.Now().Before(stop) {
				}
			})
		}
		for range 4 {
			wg.Go(func() {
				for time.Now().Before(stop) {
					time.Sleep(100 * time.Microsecond)
				}
			})
		}
		wg.Wait()
		return c.Contended()
	}
	c.Contended() // from here
	if phase(0) {
		t.Error("contended with the processors free")
	}
	if !phase(4 * runtime.GOMAXPROCS(0)) {
		t.Error("not contended with every processor spinning")
	}
	if phase(0) {
		t.Error("still contended once the spinning ended")
	}
}
