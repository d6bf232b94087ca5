//go:build !linux

package main

import "time"

// sleeper waits with the precision of Go's timers.
type sleeper struct{}

func newSleeper() *sleeper { return &sleeper{} }

func (*sleeper) sleep(d time.Duration) {
	if d > 0 {
		time.Sleep(d)
	}
}

func (*sleeper) close() {}
