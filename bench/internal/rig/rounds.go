package rig

import (
	"context"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/statusd/statusd/bench/internal/stats"
)

// Steady is the largest ratio between a round's two read figures without
// the load under test (before and after it) for the round's ratio to be
// judged: past it, the machine's other work changed under the round.
const Steady = 1.2

// Quiet are the read runs of a series of rounds without the load under
// test: Quiet[i] ran before round i (from 0) and Quiet[i+1] after it, so
// a run that went through has one more than it has rounds.
type Quiet []Result

// After is the run after round i; a zero Result when there is none (the
// run stopped).
func (q Quiet) After(i int) Result {
	if i+1 < len(q) {
		return q[i+1]
	}
	return Result{}
}

// Without is round i's figure without the load: the mean of the runs
// before and after it, or the one before when there is none after.
func (q Quiet) Without(i int) float64 {
	if a := q.After(i).RPS; a > 0 {
		return (q[i].RPS + a) / 2
	}
	return q[i].RPS
}

// Steady reports whether round i has both figures without the load,
// within Steady of each other.
func (q Quiet) Steady(i int) bool {
	a, b := q[i].RPS, q.After(i).RPS
	return a > 0 && b > 0 && max(a, b) <= Steady*min(a, b)
}

// Ratio is the median, over the steady rounds, of the reads with the
// load (with[i], round i's requests a second) over the reads without
// (NaN when no round is steady).
func (q Quiet) Ratio(with []float64) float64 {
	var ratios []float64
	for i, w := range with {
		if i < len(q) && q.Steady(i) {
			ratios = append(ratios, w/q.Without(i))
		}
	}
	if len(ratios) == 0 {
		return math.NaN()
	}
	return stats.Median(ratios)
}

// Implied is the reads ratio while the load was under way, from a
// window's ratio and the share of the window under it, taking the reads
// outside it to run as fast as without (NaN for no share).
func Implied(ratio, share float64) float64 {
	if share <= 0 {
		return math.NaN()
	}
	return max(0, (ratio-(1-share))/share)
}

// Verdict is PASS, or FAIL in bold.
func Verdict(ok bool) string {
	if ok {
		return "PASS"
	}
	return "**FAIL**"
}

// RatioText shows a ratio, or a dash for none (NaN).
func RatioText(x float64) string {
	if math.IsNaN(x) {
		return "-"
	}
	return fmt.Sprintf("%.2f", x)
}

// RPSText shows a run's requests a second, or a dash for a run that did
// not happen (a zero Result).
func RPSText(r Result) string {
	if r.RPS == 0 {
		return "-"
	}
	return fmt.Sprintf("%.0f", r.RPS)
}

// Plural is n and a noun, with an s unless n is 1.
func Plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// Span is a time something was under way, from Start to End.
type Span struct{ Start, End time.Time }

// Within is how much of s lies within [start, end].
func (s Span) Within(start, end time.Time) time.Duration {
	from, to := s.Start, s.End
	if from.Before(start) {
		from = start
	}
	if to.After(end) {
		to = end
	}
	return max(0, to.Sub(from))
}

// Coverage is the share of [start, end] during which one of spans was
// under way; the spans must not overlap (one after the other).
func Coverage(spans []Span, start, end time.Time) float64 {
	var busy time.Duration
	for _, s := range spans {
		busy += s.Within(start, end)
	}
	return busy.Seconds() / end.Sub(start).Seconds()
}

// Memory returns process pid's resident memory now (VmRSS) and its peak
// (VmHWM) from /proc/PID/status, in bytes; 0 when it cannot be read.
func Memory(pid int) (rss, peak int64) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, 0
	}
	for line := range strings.Lines(string(b)) {
		k, v, _ := strings.Cut(line, ":")
		f := strings.Fields(v) // "1234 kB"
		if len(f) == 0 {
			continue
		}
		kb, _ := strconv.ParseInt(f[0], 10, 64)
		switch k {
		case "VmRSS":
			rss = kb << 10
		case "VmHWM":
			peak = kb << 10
		}
	}
	return rss, peak
}

// Beside is a wrk run with work beside it: wrk's figures, when it ran,
// and statusd's CPU seconds meanwhile.
type Beside struct {
	Reads      Result
	Start, End time.Time
	CPU        float64
}

// RunBeside runs w against the server and, after lead (wrk connects and
// reaches its pace), calls step again and again until wrk's run is over,
// at least once, stopping at step's first error: the reads of a window
// while storms, or pushes, run back to back. The error is step's, else
// wrk's.
func (s *Server) RunBeside(ctx context.Context, w Wrk, lead time.Duration, step func() error) (Beside, error) {
	type wrkDone struct {
		r   Result
		err error
		cpu float64
		at  time.Time
	}
	done := make(chan wrkDone, 1)
	cpu0, start := CPUSeconds(s.PID), time.Now()
	go func() {
		r, err := w.Run(ctx)
		done <- wrkDone{r, err, CPUSeconds(s.PID), time.Now()}
	}()
	end := start.Add(w.Duration)
	time.Sleep(lead)
	var err error
	for first := true; first || time.Now().Before(end); first = false {
		if err = step(); err != nil {
			break
		}
	}
	d := <-done
	if err == nil {
		err = d.err
	}
	return Beside{Reads: d.r, Start: start, End: d.at, CPU: d.cpu - cpu0}, err
}
