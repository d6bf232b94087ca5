package main

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"os"
	"slices"
	"strings"

	"github.com/statusd/statusd/bench/internal/rig"
	"github.com/statusd/statusd/bench/internal/stats"
)

// The storm targets (issue 35).
const (
	targetStormSec = 1.0 // a storm answered within 1 s in all
	targetRatio    = 0.8 // reads keep 0.8 of their throughput meanwhile
)

// report is the Markdown written at the end of a run.
type report struct {
	cfg     config
	machine rig.Machine
	groups  [][]string
	dbs     []dbResult
	notes   []string
}

// write writes the report, as Markdown, to path.
func (rep report) write(path string) error {
	var b strings.Builder
	m, c := rep.machine, rep.cfg
	perBody := c.alerts / c.requests
	keys := 0
	for _, g := range rep.groups {
		keys += len(g)
	}
	fmt.Fprintf(&b, "# statusd alert storm benchmark\n\n")
	fmt.Fprintf(&b, "Written by `%s` (bench/storm; see bench/README.md). %s UTC, commit %s, %s, wrk %s.\n\n",
		cmp.Or(c.command, "bench/storm"), m.Date, m.Commit, m.GoVersion, m.Wrk)
	fmt.Fprintf(&b, "Machine: %d cores, %s. Load average before %s, after %s.\n\n", m.NProc, m.CPU, m.LoadBefore, m.LoadAfter)
	fmt.Fprintf(&b, "Setup: the page of bench/gen with keys c1, c2, ... on its components; the alerts name the %d components "+
		"that no current notice lists, in %d groups of consecutive keys. statusd `serve --rate-limit 0 --max-conns-per-client 0` "+
		"pinned to core 0 with GOMAXPROCS=1; this program (the sender) and wrk (`-t%d -c%d -d%s` on `%s`) on core 1.\n\n",
		keys, len(rep.groups), c.wrkThreads, c.wrkConns, c.wrkDur, readPath)
	fmt.Fprintf(&b, "A storm: %d Alertmanager bodies (version 4) of %d alerts, %d in all, sent at once to one `alertmanager` source's hook, "+
		"each on a connection of its own (kept open between storms); its time runs from the first send to the last answer read. "+
		"Each body is a group of its own (groupKey by alertname and job); body b's alerts name the components of group b mod %d in turn, "+
		"so a firing storm makes %d drafts, and its recovery (the same alerts, resolved) lapses them. Every firing storm has new "+
		"fingerprints: %d new signals. An answer is good when it is 202 and its summary received the body's %d alerts and names each.\n\n",
		c.requests, perBody, c.alerts, len(rep.groups), len(rep.groups), c.alerts, perBody)
	fmt.Fprintf(&b, "Per database: one storm pair (firing, then recovery) to warm up, shown but not judged; %s without reads, "+
		"statusd idle before each storm (its CPU is counted from the first send until it is idle again); then %s of wrk "+
		"without storms, then wrk as long with storm pairs sent back to back until wrk's end (a storm at least half of which "+
		"ran during wrk is under reads; the others, the last pair's tail, are shown apart); "+
		"wrk once more after the last round. A round's ratio divides its reads with storms by the mean of the reads without "+
		"storms before and after it; a round whose two figures without differ by more than %.0f%% is shown but not judged.\n\n",
		rig.Plural(c.quietPairs, "pair"), rig.Plural(c.rounds, "round"), 100*(rig.Steady-1))
	fmt.Fprintf(&b, "Rate limit: a hook takes %d requests a second per source (burst %d); a pair is %d requests and the pairs come "+
		"back to back, so they take the %d sources of a pool in turn, and a storm first waits, if need be, until its source has "+
		"a token for each request at %.0f%% of the rate (the waits are shown): the limit refuses nothing, and a storm under reads "+
		"is as much a storm as one source could send.\n\n",
		hookRate, hookBurst, 2*c.requests, c.sources, 100*pace)
	for _, n := range rep.notes {
		fmt.Fprintf(&b, "Note: %s\n\n", n)
	}

	b.WriteString("## Targets\n\n| target |")
	for _, d := range rep.dbs {
		fmt.Fprintf(&b, " %s |", d.name)
	}
	b.WriteString("\n|---|" + strings.Repeat("---|", len(rep.dbs)) + "\n")
	row := func(name string, cell func(dbResult) string) {
		fmt.Fprintf(&b, "| %s |", name)
		for _, d := range rep.dbs {
			fmt.Fprintf(&b, " %s |", cell(d))
		}
		b.WriteString("\n")
	}
	row(fmt.Sprintf("a storm of %d alerts in %d requests answered <= %g s, without reads (median / max)", c.alerts, c.requests, targetStormSec),
		func(d dbResult) string { return stormCell(d.storms, phaseQuiet) })
	row("the same, storms back to back under reads (median / max)",
		func(d dbResult) string { return stormCell(d.storms, phaseReads) })
	row(fmt.Sprintf("`%s` reads during the storms >= %.1f of without (median of the steady rounds)", readPath, targetRatio),
		func(d dbResult) string {
			r := d.ratio()
			if math.IsNaN(r) {
				return "not judged: no steady round"
			}
			return fmt.Sprintf("%.2f %s", r, rig.Verdict(r >= targetRatio))
		})
	row("every answer 202 with every alert of its body summarised", func(d dbResult) string {
		good, all := answers(d.storms)
		return fmt.Sprintf("%d of %d %s", good, all, rig.Verdict(good == all))
	})

	for _, d := range rep.dbs {
		fmt.Fprintf(&b, "\n## %s\n\nImport of the page: %.1f s. Load average before %s, after %s.\n\n", d.name, d.importSec, d.loadBefore, d.loadAfter)
		b.WriteString("| storms | kind | n | time median / max | statusd CPU a storm, median (per alert) | waited for the rate limit | good answers | what became of the alerts |\n")
		b.WriteString("|---|---|---|---|---|---|---|---|\n")
		for _, phase := range []string{phaseWarmUp, phaseQuiet, phaseReads, phaseAfter} {
			for _, resolved := range []bool{false, true} {
				ss := pick(d.storms, phase, resolved)
				if len(ss) == 0 {
					continue
				}
				secs := collect(ss, func(s stormResult) float64 { return s.sec })
				cpu := "(shared with the reads)"
				if phase == phaseAfter {
					cpu = "(not measured)"
				}
				if phase == phaseQuiet || phase == phaseWarmUp {
					med := stats.Median(collect(ss, func(s stormResult) float64 { return s.cpu }))
					cpu = fmt.Sprintf("%.2f s (%.2f ms)", med, 1000*med/float64(c.alerts))
				}
				good, all := answers(ss)
				fmt.Fprintf(&b, "| %s | %s | %d | %.3f / %.3f s | %s | %.1f s in all | %d of %d | %s |\n", phaseName(phase), kindOf(resolved), len(ss),
					stats.Median(secs), slices.Max(secs), cpu, sum(collect(ss, func(s stormResult) float64 { return s.waited })), good, all, actionsText(ss))
			}
		}
		if rests := collect(pick(d.storms, phaseQuiet, false), func(s stormResult) float64 { return s.rest }); len(rests) > 0 {
			fmt.Fprintf(&b, "\nAt rest (nothing sent for %v) after a firing storm without reads, its %d alerts firing: statusd used %.1f%% of its core "+
				"(median of %d); before the first storm, none firing: %.1f%%.\n", restFor, c.alerts, 100*stats.Median(rests), len(rests), 100*d.rest)
		}
		if fails := failures(d.storms); len(fails) > 0 {
			b.WriteString("\nAnswers that were not good (the first few):\n\n")
			for _, f := range fails {
				fmt.Fprintf(&b, "- %s\n", f)
			}
		}
		b.WriteString("\nReads (req/s; latency: wrk's average / max):\n\n")
		b.WriteString("| round | without storms: before, after | with storms | ratio | storms under reads | share of wrk's run under a storm | implied ratio while a storm is under way | latency without (before) → with | socket errors with | statusd CPU during wrk (share of its core) | load average |\n")
		b.WriteString("|---|---|---|---|---|---|---|---|---|---|---|\n")
		for i, r := range d.rounds {
			before, after := d.quiet[i], d.quiet.After(i)
			unsteady := ""
			if !d.quiet.Steady(i) {
				unsteady = " (unsteady)"
			}
			ratio := r.reads.RPS / d.quiet.Without(i)
			fmt.Fprintf(&b, "| %d | %.0f, %s%s | %.0f | %.2f | %d | %.0f%% | %s | %v / %v → %v / %v | %d | %.1f s (%.0f%%) | %s |\n", i+1,
				before.RPS, rig.RPSText(after), unsteady, r.reads.RPS, ratio, r.storms, 100*r.duty, rig.RatioText(rig.Implied(ratio, r.duty)),
				before.LatencyAvg, before.LatencyMax, r.reads.LatencyAvg, r.reads.LatencyMax, r.reads.SocketErrors,
				r.cpu, 100*r.cpu/r.window, r.load)
		}
		b.WriteString("\nThe implied ratio while a storm is under way takes the reads outside the storms to run as fast as without: " +
			"(ratio - (1 - share)) / share.\n")
		b.WriteString("\n" + endText(d, c.alerts, len(rep.groups)) + "\n")
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}

// pick returns the storms of a phase and kind.
func pick(storms []stormResult, phase string, resolved bool) []stormResult {
	var out []stormResult
	for _, s := range storms {
		if s.phase == phase && s.resolved == resolved {
			out = append(out, s)
		}
	}
	return out
}

// stormCell is the storm times of a phase, firing and recovery apart
// (median / max), and the verdict: PASS when every storm of the phase
// took at most targetStormSec.
func stormCell(storms []stormResult, phase string) string {
	var parts []string
	ok := true
	for _, resolved := range []bool{false, true} {
		secs := collect(pick(storms, phase, resolved), func(s stormResult) float64 { return s.sec })
		if len(secs) == 0 {
			continue
		}
		parts = append(parts, fmt.Sprintf("%s %.3f / %.3f s", kindOf(resolved), stats.Median(secs), slices.Max(secs)))
		ok = ok && stormsPass(secs)
	}
	if len(parts) == 0 {
		return "no storm"
	}
	return strings.Join(parts, "; ") + " " + rig.Verdict(ok)
}

// stormsPass reports whether every storm took at most targetStormSec.
func stormsPass(secs []float64) bool {
	return !slices.ContainsFunc(secs, func(s float64) bool { return s > targetStormSec })
}

// answers counts the good answers and all the requests of storms.
func answers(storms []stormResult) (good, all int) {
	for _, s := range storms {
		good, all = good+s.good, all+s.requests
	}
	return good, all
}

// failures are the first answers of storms that were not good, named by
// their storm.
func failures(storms []stormResult) []string {
	var out []string
	for _, s := range storms {
		for _, f := range s.failures {
			if len(out) < 10 {
				out = append(out, fmt.Sprintf("%s storm %d (%s): %s", kindOf(s.resolved), s.number, phaseName(s.phase), f))
			}
		}
	}
	return out
}

// actionsText sums what became of the alerts of storms, by action.
func actionsText(storms []stormResult) string {
	all := map[string]int{}
	for _, s := range storms {
		for a, n := range s.actions {
			all[a] += n
		}
	}
	var parts []string
	for _, a := range slices.Sorted(maps.Keys(all)) {
		parts = append(parts, fmt.Sprintf("%s %d", a, all[a]))
	}
	return strings.Join(parts, ", ")
}

// phaseName is a phase as the report names it.
func phaseName(phase string) string {
	return map[string]string{phaseWarmUp: "warm-up (not judged)", phaseQuiet: "without reads", phaseReads: "under reads",
		phaseAfter: "mostly after wrk's end (not judged)"}[phase]
}

// ratio is the median over the steady rounds of the reads with storms
// over the reads without (NaN when no round is steady).
func (d dbResult) ratio() float64 {
	with := make([]float64, len(d.rounds))
	for i, r := range d.rounds {
		with[i] = r.reads.RPS
	}
	return d.quiet.Ratio(with)
}

// endText compares the signals and drafts the admin API listed at the
// end with what the storms should have left: every signal resolved, and
// every draft (groups a firing storm) lapsed.
func endText(d dbResult, alerts, groups int) string {
	e := d.end
	if e.err != "" {
		return "At the end, the admin API could not be read: " + e.err
	}
	if e.signals == nil {
		return "The run stopped before the end: no count of signals and drafts."
	}
	wantSignals, wantDrafts := d.fired*alerts, d.fired*groups
	check := func(got map[string]int, want int, state string) string {
		if total(got) == want && got[state] == want {
			return "as expected"
		}
		return fmt.Sprintf("**not as expected**: %d, all %s", want, state)
	}
	return fmt.Sprintf("At the end (%s and their recoveries), the admin API lists %d signals (%s), %s; and %d drafts (%s), %s.",
		rig.Plural(d.fired, "firing storm"), total(e.signals), countsText(e.signals), check(e.signals, wantSignals, "resolved"),
		total(e.drafts), countsText(e.drafts), check(e.drafts, wantDrafts, "lapsed"))
}

// total sums counts.
func total(counts map[string]int) int {
	n := 0
	for _, v := range counts {
		n += v
	}
	return n
}

// countsText shows counts by key, in key order.
func countsText(counts map[string]int) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(counts)) {
		parts = append(parts, fmt.Sprintf("%s %d", k, counts[k]))
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

// collect is f of each storm.
func collect(storms []stormResult, f func(stormResult) float64) []float64 {
	out := make([]float64, len(storms))
	for i, s := range storms {
		out[i] = f(s)
	}
	return out
}

// sum adds xs up.
func sum(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s
}
