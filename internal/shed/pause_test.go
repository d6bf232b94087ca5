package shed

import (
	"testing"
	"time"
)

// TestPacer: pausing starts after pauseAfter periods in a row in which
// refusals took more than half of the processors' time, lasts pauseHold
// periods after the last of them, and an episode ends pauseHold periods
// after pausing did; spent pauses a connection only while pausing.
func TestPacer(t *testing.T) {
	l := New(0, 5*time.Millisecond, discard)
	l.procs = 1
	var p pacer
	period := func(refusing time.Duration) bool {
		l.refusing.Store(int64(refusing))
		l.pace(&p)
		return l.pausing.Load()
	}
	half := samplePeriod / 2
	// Exactly half is not more than half, and a period below it starts
	// the count again.
	var periods []time.Duration
	for range 2 {
		periods = append(periods, half)
		for range pauseAfter - 1 {
			periods = append(periods, half+1)
		}
	}
	for i, r := range periods {
		if period(r) {
			t.Fatalf("period %d (%v): pausing", i+1, r)
		}
	}
	if got := l.spent(time.Microsecond); got != 0 {
		t.Errorf("spent while not pausing: pause %v", got)
	}
	if !period(half + 1) { // pauseAfter in a row
		t.Fatalf("%d periods above half: not pausing", pauseAfter)
	}
	if got := l.spent(time.Microsecond); got != pauseFor {
		t.Errorf("spent while pausing: pause %v, want %v", got, pauseFor)
	}
	// pauseHold periods after the last above half: 39 still pausing, the
	// 40th not.
	for i := 1; i < pauseHold; i++ {
		if !period(0) {
			t.Fatalf("%d periods after: not pausing", i)
		}
	}
	if period(0) {
		t.Fatal("pauseHold periods after: still pausing")
	}
	// The episode goes on for pauseHold periods more: pausing again
	// within it starts no new episode.
	for i := 0; i < pauseAfter; i++ {
		period(samplePeriod)
	}
	if on, started, _ := p.update(samplePeriod, samplePeriod); !on || started {
		t.Errorf("pausing again within the episode: on %v, started %v", on, started)
	}
	var ended int
	for i := 0; i < 2*pauseHold+1; i++ {
		if _, _, e := p.update(0, samplePeriod); e {
			ended = i + 1
		}
	}
	// Pausing lasts pauseHold periods from the last above half (the
	// first of them above), the episode pauseHold more.
	if want := 2*pauseHold - 1; ended != want {
		t.Errorf("the episode ended %d periods after the last above half, want %d", ended, want)
	}
	if got := l.paused.Load(); got != 1 {
		t.Errorf("paused = %d, want 1", got)
	}
}
