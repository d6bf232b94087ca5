package main

import (
	"fmt"
	"math"
	"os"
	"slices"
	"strings"

	"github.com/statusd/statusd/bench/internal/rig"
)

// The fan-out targets.
const (
	targetAckMs   = 50
	targetWebhook = 15
	// targetWebhookRead is the webhooks' target while wrk saturates the
	// public API: a fan-out during a read flood still gets through.
	targetWebhookRead = 60
	targetEmail       = 60
	targetRatio       = 0.8
)

// report is the Markdown written at the end of a run.
type report struct {
	cfg     config
	machine rig.Machine
	dbs     []dbResult
	notes   []string
}

func (rep report) write(path string) error {
	var b strings.Builder
	m, c := rep.machine, rep.cfg
	fmt.Fprintf(&b, "# statusd fan-out benchmark\n\n")
	fmt.Fprintf(&b, "Written by `bash bench/fanout.sh` (bench/fanout; see bench/README.md). %s UTC, commit %s, %s, wrk %s.\n\n",
		m.Date, m.Commit, m.GoVersion, m.Wrk)
	fmt.Fprintf(&b, "Machine: %d cores, %s. Load average before %s, after %s.\n\n", m.NProc, m.CPU, m.LoadBefore, m.LoadAfter)
	fmt.Fprintf(&b, "Setup: %d active subscribers of each channel (%s: %d), whole page, ids interleaved "+
		"across channels; statusd `serve --allow-private-targets --smtp-url` (an in-process go-smtp server that counts messages) "+
		"`--smtp-rate %g --rate-limit 0`, pinned to core 0 with GOMAXPROCS=1; the receivers (one HTTP server for every HTTP channel) "+
		"and wrk (`-t1 -c%d -d%s`) on core 1. Per database %d rounds without reads, then %d with reads. A round: wrk on %s without a fan-out, "+
		"then one triggering write (`POST /admin/api/v1/notices`, a new incident on a component), then, until every message arrived, "+
		"wrk on the two paths in turn (or, without reads, as long a wait), with an edit of the notice (`PATCH`, sends nothing) after each; "+
		"then the wait until no delivery is pending. "+
		"A message counts once per recipient (a repeat is counted apart).\n\n",
		c.per, strings.Join(channels, ", "), c.per*len(channels), c.smtpRate, c.wrkConns, c.wrkDur, c.idleRounds, c.rounds, strings.Join(code(readPaths), " and "))
	if slices.Contains(channels, "email") {
		fmt.Fprintf(&b, "Email is bounded by `--smtp-rate`: %d emails at %g/s take at least %.0f s.\n\n", c.per, c.smtpRate, float64(c.per)/c.smtpRate)
	}
	for _, n := range rep.notes {
		fmt.Fprintf(&b, "Note: %s\n\n", n)
	}

	b.WriteString("## Targets\n\n| target |")
	for _, d := range rep.dbs {
		fmt.Fprintf(&b, " %s |", d.name)
	}
	b.WriteString("\n|---|")
	b.WriteString(strings.Repeat("---|", len(rep.dbs)))
	b.WriteString("\n")
	row := func(name string, cell func(dbResult) string) {
		fmt.Fprintf(&b, "| %s |", name)
		for _, d := range rep.dbs {
			fmt.Fprintf(&b, " %s |", cell(d))
		}
		b.WriteString("\n")
	}
	row(fmt.Sprintf("triggering write acknowledged <= %d ms (median / max of the rounds)", targetAckMs), func(d dbResult) string {
		acks := collect(d.rounds, func(r roundResult) float64 { return r.ackMs })
		return fmt.Sprintf("%.1f / %.1f ms %s", median(acks), maxOf(acks), verdict(maxOf(acks) <= targetAckMs))
	})
	row(fmt.Sprintf("%d webhooks arrived <= %d s without reads (max), <= %d s with reads (median / max)", c.per, targetWebhook, targetWebhookRead), func(d dbResult) string {
		return arrivalCell(d, "webhook", targetWebhook, targetWebhookRead)
	})
	if slices.Contains(channels, "email") {
		row(fmt.Sprintf("%d emails arrived <= %d s (max without reads; median / max with reads)", c.per, targetEmail), func(d dbResult) string {
			return arrivalCell(d, "email", targetEmail, targetEmail)
		})
	}
	for _, p := range readPaths {
		row(fmt.Sprintf("`%s` read throughput during the fan-out >= %.1f of without (median of the steady rounds: HTTP phase; email phase)", p, targetRatio),
			func(d dbResult) string {
				h, e := d.ratio(p, "http"), d.ratio(p, "email")
				cell := fmt.Sprintf("%s; %s", ratioText(h), ratioText(e))
				switch {
				case math.IsNaN(h) && math.IsNaN(e):
					return cell + " not judged: no steady round"
				case h < targetRatio || e < targetRatio: // NaN compares false
					return cell + " " + verdict(false)
				}
				return cell + " " + verdict(true)
			})
	}
	fmt.Fprintf(&b, "\nA round is steady when its two quiet figures (before and after it) differ by at most %.0f%%; "+
		"an unsteady round says the machine's other work changed during it, and its ratio is shown but not judged.\n", 100*(steady-1))

	for _, d := range rep.dbs {
		fmt.Fprintf(&b, "\n## %s\n\nImport of the page with its subscribers: %.1f s. Load average before %s, after %s.\n\n",
			d.name, d.importSec, d.loadBefore, d.loadAfter)
		for i, r := range d.rounds {
			if !r.underReads {
				fmt.Fprintf(&b, "Round %d, without reads: statusd spent %.1f CPU s on the %d messages, %.2f ms each, %.0f%% of its core until none was pending.\n\n",
					i+1, r.cpu, c.per*len(channels), 1000*r.cpu/float64(c.per*len(channels)), 100*r.cpu/r.recorded)
			}
		}
		b.WriteString("| round | reads | write ack | edits during the fan-out (median / max, n) | " + strings.Join(channels, " | ") +
			" | none pending | repeats | statusd CPU (share of its core; reads included) | load average |\n")
		b.WriteString("|---|---|---|---|" + strings.Repeat("---|", len(channels)) + "---|---|---|---|\n")
		for i, r := range d.rounds {
			fmt.Fprintf(&b, "| %d | %s | %.1f ms | %.1f / %.1f ms, %d |", i+1, map[bool]string{true: "wrk", false: "none"}[r.underReads],
				r.ackMs, median(r.editsMs), maxOf(r.editsMs), len(r.editsMs))
			for _, ch := range channels {
				fmt.Fprintf(&b, " %.1f s |", r.arrived[ch])
			}
			fmt.Fprintf(&b, " %.1f s | %d | %.1f s (%.0f%%) | %s |\n", r.recorded, r.repeats, r.cpu, 100*r.cpu/r.recorded, r.load)
		}
		b.WriteString("\nRead throughput (req/s; the ratio divides a round's figure during the fan-out by the mean of the quiet runs before and after it):\n\n")
		b.WriteString("| path | round | without (before, after) | HTTP phase: runs, median, ratio | email phase: runs, median, ratio | mixed runs |\n|---|---|---|---|---|---|\n")
		for _, p := range readPaths {
			for r := 1; r <= len(d.rounds); r++ {
				if !d.rounds[r-1].underReads {
					continue
				}
				q := d.quietRPS(p, r)
				fmt.Fprintf(&b, "| `%s` | %d | %.0f, %.0f%s |", p, r, d.quietOf(p, r), d.quietOf(p, r+1), map[bool]string{false: " (unsteady)"}[d.steady(p, r)])
				for _, phase := range []string{"http", "email"} {
					runs := d.runs(p, r, phase)
					if len(runs) == 0 {
						b.WriteString(" none |")
						continue
					}
					fmt.Fprintf(&b, " %s; %.0f, %.2f |", join(runs), median(runs), median(runs)/q)
				}
				fmt.Fprintf(&b, " %s |\n", join(d.runs(p, r, "mixed")))
			}
		}
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}

// arrivalCell is the time until every message of a channel arrived: the
// longest of the rounds without reads, and the median and longest of those
// with reads, each with its verdict.
func arrivalCell(d dbResult, ch string, target, readTarget float64) string {
	var idle, loaded []float64
	for _, r := range d.rounds {
		if r.underReads {
			loaded = append(loaded, r.arrived[ch])
		} else {
			idle = append(idle, r.arrived[ch])
		}
	}
	var parts []string
	if len(idle) > 0 {
		parts = append(parts, fmt.Sprintf("no reads %.1f s %s", maxOf(idle), verdict(maxOf(idle) <= target)))
	}
	if len(loaded) > 0 {
		parts = append(parts, fmt.Sprintf("under wrk %.1f / %.1f s %s", median(loaded), maxOf(loaded), verdict(maxOf(loaded) <= readTarget)))
	}
	return strings.Join(parts, "; ")
}

// quietOf is the quiet figure of path measured before round r.
func (d dbResult) quietOf(path string, r int) float64 {
	for _, q := range d.quiet {
		if q.path == path && q.round == r {
			return q.rps
		}
	}
	return math.NaN()
}

// quietRPS is round r's figure without a fan-out: the mean of the quiet
// runs before and after it.
func (d dbResult) quietRPS(path string, r int) float64 {
	return (d.quietOf(path, r) + d.quietOf(path, r+1)) / 2
}

// steady is the largest ratio between a round's two quiet figures for
// the round to be judged.
const steady = 1.2

// steady reports whether round r's quiet figures of path, before and
// after it, are within the steady ratio of each other.
func (d dbResult) steady(path string, r int) bool {
	a, b := d.quietOf(path, r), d.quietOf(path, r+1)
	return max(a, b) <= steady*min(a, b)
}

// runs returns the figures of round r's runs of path in a phase.
func (d dbResult) runs(path string, r int, phase string) []float64 {
	var out []float64
	for _, x := range d.rounds[r-1].reads {
		if x.path == path && x.phase == phase {
			out = append(out, x.rps)
		}
	}
	return out
}

// ratio is the median over the steady rounds of the ratio of path's
// median figure in a phase to the round's quiet figure (NaN when no steady
// round has a run in the phase).
func (d dbResult) ratio(path, phase string) float64 {
	var ratios []float64
	for r := 1; r <= len(d.rounds); r++ {
		if runs := d.runs(path, r, phase); len(runs) > 0 && d.steady(path, r) {
			ratios = append(ratios, median(runs)/d.quietRPS(path, r))
		}
	}
	return median(ratios)
}

func collect(rounds []roundResult, f func(roundResult) float64) []float64 {
	out := make([]float64, len(rounds))
	for i, r := range rounds {
		out[i] = f(r)
	}
	return out
}

// median of xs (NaN for none).
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := slices.Sorted(slices.Values(xs))
	if n := len(s); n%2 == 0 {
		return (s[n/2-1] + s[n/2]) / 2
	}
	return s[len(s)/2]
}

// maxOf is the largest of xs (NaN for none).
func maxOf(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	return slices.Max(xs)
}

// ratioText shows a ratio, or a dash when there is none.
func ratioText(x float64) string {
	if math.IsNaN(x) {
		return "-"
	}
	return fmt.Sprintf("%.2f", x)
}

func verdict(ok bool) string {
	if ok {
		return "PASS"
	}
	return "**FAIL**"
}

func join(xs []float64) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = fmt.Sprintf("%.0f", x)
	}
	return strings.Join(s, " ")
}

func code(xs []string) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = "`" + x + "`"
	}
	return out
}
