package main

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/statusd/statusd/bench/internal/rig"
	"github.com/statusd/statusd/bench/internal/stats"
)

// targetRatio: the public reads keep at least 0.8 of their throughput
// while the mirror pushes.
const targetRatio = 0.8

// report is the Markdown written at the end of a run.
type report struct {
	cfg     config
	machine rig.Machine
	res     result
	notes   []string
}

// kindNames describe the kinds of change in the tables.
var kindNames = map[string]string{
	kindUpdate:  "an update posted to a past incident",
	kindNew:     "a new incident (investigating)",
	kindResolve: "that incident resolved",
	kindEdit:    "the past incident's subject edited (under reads)",
}

// write writes the report, as Markdown, to path.
func (rep report) write(path string) error {
	var b strings.Builder
	m, c, r := rep.machine, rep.cfg, rep.res
	fmt.Fprintf(&b, "# statusd mirror benchmark\n\n")
	fmt.Fprintf(&b, "Written by `%s` (bench/mirror; see bench/README.md). %s UTC, commit %s, %s, wrk %s.\n\n",
		cmp.Or(c.command, "bench/mirror"), m.Date, m.Commit, m.GoVersion, m.Wrk)
	fmt.Fprintf(&b, "Machine: %d cores, %s. Load average before %s, after %s.\n\n", m.NProc, m.CPU, m.LoadBefore, m.LoadAfter)
	fmt.Fprintf(&b, "Setup: the page of bench/gen (%s notices, 100 components), imported into SQLite (PostgreSQL is not measured: "+
		"the mirror renders from the snapshot in memory and only claims and records each push in the database). "+
		"statusd `serve --rate-limit 0 --max-conns-per-client 0 --log-format json --mirror file://%s --mirror-heartbeat %s` "+
		"pinned to core 0 with GOMAXPROCS=1; this program and wrk (`-t%d -c%d -d%s` on `%s`) on core 1. The heartbeat is long "+
		"so that the mirror pushes only after a change; the folder's file system is %s (the mirror syncs each file it writes). "+
		"A folder only: no S3 server (internal/testenv's needs a test, and an in-process fake would share core 1 with wrk).\n\n",
		count(c.notices), mirrorText(c), heartbeat, c.wrkThreads, c.wrkConns, c.wrkDur, readPath, fsType(cmp.Or(c.mirrorIn, c.work)))
	fmt.Fprintf(&b, "Figures of a push come from statusd's log line `mirror: pushed` (`files_put`, `bytes_put`, `files_deleted`, `took`: "+
		"from the push's start, rendering included, to its end: after mirror.json come the changed homes and the deletes); the wall "+
		"times from mirror.json's modification time (from serve's start, or from sending the write: the new snapshot and the mirror's "+
		"wait for its next tick, up to 1 s, included, the homes and deletes after mirror.json not). "+
		"Files put count a changed file twice when the previous manifest names its home (its bytes go to a blob first, then to the "+
		"home after the manifest: C10's order); targets changed are those whose bytes mirror.json gives anew. Without reads, each "+
		"change waits for statusd to be idle; its CPU runs from the write until statusd is idle again.\n\n")
	fmt.Fprintf(&b, "Reads: %s; each is wrk with the mirror idle (nothing changed since its last push), then as long while the past "+
		"incident's subject is edited again whenever the previous edit's mirror.json is written, so that every push renders the whole "+
		"copy and they run back to back but for the mirror's tick (up to 1 s between two); wrk once more after the last round. "+
		"A round's ratio divides its reads during the pushes by the mean of the idle reads before and after it; a round whose two idle "+
		"figures differ by more than %.0f%% is shown but not judged.\n\n", rig.Plural(c.rounds, "round"), 100*(rig.Steady-1))
	for _, n := range rep.notes {
		fmt.Fprintf(&b, "Note: %s\n\n", n)
	}

	b.WriteString("## Figures\n\n| measure | SQLite |\n|---|---|\n")
	f := r.first
	fmt.Fprintf(&b, "| the first full push (sequence %d): files put, bytes put, push time | %s files, %.1f MB, %.1f s |\n",
		f.Sequence, count(f.FilesPut), mb(f.BytesPut), f.Took.Seconds())
	fmt.Fprintf(&b, "| the first push: serve's start to mirror.json written (statusd's CPU by then) | %.1f s (%.1f CPU s) |\n", r.firstWallSec, r.firstCPU)
	fmt.Fprintf(&b, "| files in mirror.json | %s |\n", count(r.files))
	fmt.Fprintf(&b, "| statusd's resident memory just after the first push; once idle; peak at the end | %d MB; %d MB; %s |\n",
		r.rssFirst>>20, r.rssIdle>>20, peakText(r.peak))
	for _, kind := range []string{kindUpdate, kindNew, kindResolve} {
		cs := pick(r.changes, kind)
		if len(cs) == 0 {
			continue
		}
		fmt.Fprintf(&b, "| %s (median of %d): targets changed, files put, bytes put; push time; write to mirror.json | %s |\n",
			kindNames[kind], len(cs), changeCell(cs))
	}
	fmt.Fprintf(&b, "| `%s` reads during pushes >= %.1f of with the mirror idle (median of the steady rounds) | %s |\n",
		readPath, targetRatio, ratioCell(r))

	b.WriteString("\n## Changes without reads\n\n")
	b.WriteString("| # | change | sequence | targets changed | files put | bytes put | files deleted | push time | write answered | write to mirror.json | statusd CPU |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|---|---|\n")
	for i, ch := range r.changes {
		fmt.Fprintf(&b, "| %d | %s | %d | %d | %d | %.2f MB | %d | %.2f s | %.0f ms | %.2f s | %.2f s |\n", i+1, kindNames[ch.kind],
			ch.push.Sequence, ch.targets, ch.push.FilesPut, mb(ch.push.BytesPut), ch.push.FilesDeleted, ch.push.Took.Seconds(),
			1000*ch.ackSec, ch.wallSec, ch.cpu)
	}

	b.WriteString("\nTargets changed, by shape (numbers written N), in the first change of each kind. Every push renders the " +
		"whole copy at its moment, so answers that move with the clock alone (such as the metrics at the default timeframe, " +
		"cut at now, and what embeds them) get new bytes in any push, whatever the change:\n\n")
	seen := map[string]bool{}
	for _, ch := range r.changes {
		if !seen[ch.kind] {
			seen[ch.kind] = true
			fmt.Fprintf(&b, "- %s: %s\n", kindNames[ch.kind], shapesText(ch.shapes, 12))
		}
	}

	if len(r.rounds) > 0 {
		b.WriteString("\n## Reads during pushes\n\nReq/s; latency: wrk's average / max.\n\n")
		b.WriteString("| round | mirror idle: before (statusd's share of its core), after | during pushes | ratio | pushes during wrk | share of wrk's run under a push | implied ratio while a push is under way | push time median / max | latency idle (before) → during | socket errors during | statusd CPU during wrk (share of its core) | load average |\n")
		b.WriteString("|---|---|---|---|---|---|---|---|---|---|---|---|\n")
		for i, rr := range r.rounds {
			before, after := r.quiet[i], r.quiet.After(i)
			unsteady := ""
			if !r.quiet.Steady(i) {
				unsteady = " (unsteady)"
			}
			ratio := rr.reads.RPS / r.quiet.Without(i)
			fmt.Fprintf(&b, "| %d | %.0f (%.0f%%), %s%s | %.0f | %.2f | %d | %.0f%% | %s | %s | %v / %v → %v / %v | %d | %.1f s (%.0f%%) | %s |\n", i+1,
				before.RPS, 100*r.quietCPU[i], rig.RPSText(after), unsteady, rr.reads.RPS, ratio, len(rr.pushes), 100*rr.coverage,
				rig.RatioText(rig.Implied(ratio, rr.coverage)), tookText(rr.pushes),
				before.LatencyAvg, before.LatencyMax, rr.reads.LatencyAvg, rr.reads.LatencyMax, rr.reads.SocketErrors,
				rr.cpu, 100*rr.cpu/rr.window, rr.load)
		}
		b.WriteString("\nThe implied ratio while a push is under way takes the reads outside the pushes to run as fast as with the mirror idle: " +
			"(ratio - (1 - share)) / share. A push under reads takes longer than without: the rendering gives way to readers " +
			"(Config.Busy: every 32 answers, a pause of ten times their time, at most 20 ms, while readers wait).\n")
		var under []push
		for _, rr := range r.rounds {
			under = append(under, rr.pushes...)
		}
		var quietCPU, quietTook []float64
		for _, ch := range r.changes {
			quietCPU, quietTook = append(quietCPU, ch.cpu), append(quietTook, ch.push.Took.Seconds())
		}
		if len(under) > 0 && len(quietCPU) > 0 {
			fmt.Fprintf(&b, "\nA push of the whole copy: without reads %.1f s and %.1f CPU s of statusd (medians of the changes above); "+
				"under reads %s (median / max of %d).\n", stats.Median(quietTook), stats.Median(quietCPU), tookText(under), len(under))
		}
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}

// pick returns the changes of a kind.
func pick(cs []change, kind string) []change {
	var out []change
	for _, ch := range cs {
		if ch.kind == kind {
			out = append(out, ch)
		}
	}
	return out
}

// changeCell is the medians of changes of one kind: targets changed,
// files and bytes put; push time; write to mirror.json.
func changeCell(cs []change) string {
	med := func(f func(change) float64) float64 {
		xs := make([]float64, len(cs))
		for i, ch := range cs {
			xs[i] = f(ch)
		}
		return stats.Median(xs)
	}
	return fmt.Sprintf("%.0f, %.0f, %.2f MB; %.1f s; %.1f s",
		med(func(ch change) float64 { return float64(ch.targets) }),
		med(func(ch change) float64 { return float64(ch.push.FilesPut) }),
		med(func(ch change) float64 { return mb(ch.push.BytesPut) }),
		med(func(ch change) float64 { return ch.push.Took.Seconds() }),
		med(func(ch change) float64 { return ch.wallSec }))
}

// ratioCell is the judged reads ratio with its verdict, the requests a
// second behind it, and the share of the windows under a push.
func ratioCell(r result) string {
	if len(r.rounds) == 0 {
		return "not measured"
	}
	with := make([]float64, len(r.rounds))
	var idle, cover []float64
	for i, rr := range r.rounds {
		with[i] = rr.reads.RPS
		idle = append(idle, r.quiet.Without(i))
		cover = append(cover, rr.coverage)
	}
	ratio := r.quiet.Ratio(with)
	detail := fmt.Sprintf("(%.0f req/s during pushes, %.0f idle; %.0f%% of the windows under a push; medians)",
		stats.Median(with), stats.Median(idle), 100*stats.Median(cover))
	if math.IsNaN(ratio) {
		return "not judged: no steady round " + detail
	}
	return fmt.Sprintf("%.2f %s %s", ratio, rig.Verdict(ratio >= targetRatio), detail)
}

// tookText is the median and longest push time of pushes.
func tookText(pushes []push) string {
	if len(pushes) == 0 {
		return "-"
	}
	xs := make([]float64, len(pushes))
	for i, p := range pushes {
		xs[i] = p.Took.Seconds()
	}
	return fmt.Sprintf("%.1f / %.1f s", stats.Median(xs), slices.Max(xs))
}

// shapesText lists the first n shapes, most targets first, with their
// counts.
func shapesText(shapes map[string]int, n int) string {
	keys := slices.SortedFunc(maps.Keys(shapes), func(a, b string) int {
		return cmp.Or(cmp.Compare(shapes[b], shapes[a]), cmp.Compare(a, b))
	})
	var parts []string
	for i, k := range keys {
		if i == n {
			parts = append(parts, fmt.Sprintf("and %d more shapes", len(keys)-n))
			break
		}
		parts = append(parts, fmt.Sprintf("`%s` %d", k, shapes[k]))
	}
	return strings.Join(parts, ", ")
}

// mirrorText is where the mirror's folder was, as serve's flag names it.
func mirrorText(c config) string {
	if c.mirrorIn != "" {
		return filepath.Join(c.mirrorIn, "statusd-mirror-XXXX")
	}
	return "/WORK/mirror"
}

// fsType is the type of the file system that holds path (the longest
// mount point of /proc/mounts that is a prefix of it), or "unknown".
func fsType(path string) string {
	b, err := os.ReadFile("/proc/mounts")
	abs, aerr := filepath.Abs(path)
	if err != nil || aerr != nil {
		return "unknown"
	}
	best, typ := "", "unknown"
	for line := range strings.Lines(string(b)) {
		f := strings.Fields(line)
		if len(f) < 3 {
			continue
		}
		mount := f[1]
		if (abs == mount || strings.HasPrefix(abs, strings.TrimSuffix(mount, "/")+"/")) && len(mount) > len(best) {
			best, typ = mount, f[2]
		}
	}
	return typ
}

// peakText is the peak resident memory, or a dash when the run stopped
// before it was read.
func peakText(peak int64) string {
	if peak == 0 {
		return "-"
	}
	return fmt.Sprintf("%d MB", peak>>20)
}

// count writes n with a comma between thousands.
func count(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
