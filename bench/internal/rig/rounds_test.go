package rig

import (
	"math"
	"os"
	"testing"
	"time"
)

// TestQuiet: a round's figure without the load is the mean of the runs
// before and after it; the ratio is the median over the steady rounds.
func TestQuiet(t *testing.T) {
	q := Quiet{{RPS: 1000}, {RPS: 1200}, {RPS: 2000}}
	// Round 1: without (1000 + 1200) / 2 = 1100, with 880: 0.8. Round 2
	// (1200, then 2000) is unsteady and left out.
	if got := q.Ratio([]float64{880, 100}); math.Abs(got-0.8) > 1e-9 {
		t.Errorf("ratio %v, want 0.8", got)
	}
	if !q.Steady(0) || q.Steady(1) {
		t.Errorf("steady: %v, %v; want true, false", q.Steady(0), q.Steady(1))
	}
	stopped := Quiet{{RPS: 1000}}
	if got := stopped.Ratio([]float64{500}); !math.IsNaN(got) || stopped.Without(0) != 1000 {
		t.Errorf("a round without its after figure: ratio %v (want NaN), without %v (want 1000)", got, stopped.Without(0))
	}
	if got := Implied(0.18, 0.85); math.Abs(got-0.0353) > 1e-3 {
		t.Errorf("Implied(0.18, 0.85) = %v, want about 0.035", got)
	}
	if got := Implied(0.1, 0.5); got != 0 {
		t.Errorf("Implied below 0 = %v, want 0", got)
	}
}

// TestCoverage: the share of a window under the spans counts only the
// parts of the spans within it.
func TestCoverage(t *testing.T) {
	t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	at := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	spans := []Span{
		{at(-1), at(1)},  // 1 s of it within
		{at(2), at(5)},   // 3 s
		{at(9), at(12)},  // 1 s: mostly after the end
		{at(12), at(13)}, // none
	}
	if got := Coverage(spans, at(0), at(10)); math.Abs(got-0.5) > 1e-9 {
		t.Errorf("coverage %v, want 0.5", got)
	}
	if got := spans[2].Within(at(0), at(10)); got != time.Second {
		t.Errorf("the span across the end: %v within, want 1s", got)
	}
}

// TestMemory: this process has a resident size, at most its peak.
func TestMemory(t *testing.T) {
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("no /proc")
	}
	rss, peak := Memory(os.Getpid())
	if rss <= 0 || peak < rss {
		t.Errorf("Memory = %d, %d; want 0 < rss <= peak", rss, peak)
	}
}
