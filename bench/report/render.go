package main

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/statusd/statusd/bench/internal/stats"
)

// The targets of the benchmark issue (2 cores, rate limit off, 100k
// notices, 1,000 components).
const (
	ratioStatus    = 0.85
	ratioOtherJSON = 0.7
	ratioGzip      = 0.8
	ratioNotMod    = 0.9
	p99At5k        = 3.0  // ms
	p99At20k       = 10.0 // ms
	p999At20k      = 50.0 // ms
	servedFraction = 0.8
	overCapacity   = 1.5  // served past this share of the capacity: not the same work
	minOffered     = 0.9  // an overload the generator sent less of than this share was not offered
	p99ServedOver  = 50.0 // ms
	refusedOver    = 5.0  // ms
	afterWriteMS   = 10.0
	rssMB          = 300.0
	startMS        = 2000.0
	visibleMS      = 50.0
	controlLow     = 0.95
	controlHigh    = 1.05
	// Per-round control ratios further apart than this mark a run noisy.
	controlSpread = 0.2
)

// jsonRequests are the JSON request names, in the order of the issue.
var jsonRequests = []string{"status", "components", "notices", "notice", "metrics"}

var describe = map[string]string{
	"status":     "`/api/v1/status`",
	"components": "`/api/v1/components?page=2`",
	"notices":    "`/api/v1/notices?page=3&filter[type_eq]=unplanned`",
	"notice":     "`/api/v1/notices/{id}`",
	"metrics":    "12-month metrics",
	"html":       "`/` (HTML)",
}

func desc(req string) string {
	if d, ok := describe[req]; ok {
		return d
	}
	return req
}

var variantName = map[string]string{"plain": "plain", "gzip": "gzip", "inm": "If-None-Match"}

// machineLimit is the verdict on a target the run could not put to the
// test: the baseline misses it too, or the generator could not offer the
// load. It is neither a pass nor a fail of statusd.
const machineLimit = "not measurable here"

func verdict(ok bool) string {
	if ok {
		return "PASS"
	}
	return "**FAIL**"
}

func render(rs *results) string {
	var b strings.Builder
	m := rs.meta
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }

	// The control pair decides whether the run counts.
	discarded := []string{}
	controls := rs.kinds("control")
	for _, k := range controls {
		med := stats.Median(rs.ratios("control", k[0], k[1], "baseline2", "baseline"))
		if med < controlLow || med > controlHigh {
			discarded = append(discarded, fmt.Sprintf("%s %s: %.3f", k[0], k[1], med))
		}
	}
	status := "valid"
	var spread []string
	for _, k := range controls {
		rt := rs.ratios("control", k[0], k[1], "baseline2", "baseline")
		if len(rt) > 0 && slices.Max(rt)-slices.Min(rt) > controlSpread {
			spread = append(spread, fmt.Sprintf("%s %s %.2f–%.2f", k[0], k[1], slices.Min(rt), slices.Max(rt)))
		}
	}
	if len(spread) > 0 {
		status += " by the rule of the issue, but noisy: single rounds of the control pair ranged " + strings.Join(spread, ", ") +
			" (the machine was busy during parts of the run; trust medians, not single rounds)"
	}
	switch {
	case len(controls) == 0:
		status = "**DISCARDED**: no control pair was measured"
	case len(discarded) > 0:
		status = "**DISCARDED**: the control pair (a second baseline against the first) came out outside 0.95–1.05 (" +
			strings.Join(discarded, "; ") + "): the machine was not steady enough for the ratios to mean anything"
	}
	if m["mode"] == "quick" {
		status += " — **QUICK run** (smaller data set, fewer and shorter rounds): a smoke test, not a measurement"
	}

	p("## Benchmark results\n\n")
	p("Run: %s.\n\n", status)
	p("| | |\n|---|---|\n")
	for _, row := range [][2]string{
		{"date (UTC)", m["date"]},
		{"machine", fmt.Sprintf("%s cores, %s, %s", m["nproc"], m["cpu"], m["kernel"])},
		{"commit", m["commit"]},
		{"Go, wrk", m["go"] + ", " + m["wrk"]},
		{"load average before / after", m["loadavg_before"] + " / " + m["loadavg_after"]},
		{"data set", m["dataset"]},
		// Runs before run.sh --unpinned were all pinned, and did not say.
		{"placement", cmp.Or(m["placement"], "statusd and the baselines `GOMAXPROCS=1 taskset -c 0`; wrk and bench/load `taskset -c 1`") +
			"; rate limit off, `--max-in-flight " + m["max_in_flight"] + "`"},
		{"throughput", m["throughput_method"]},
		{"latency", m["latency_method"]},
	} {
		p("| %s | %s |\n", row[0], row[1])
	}
	p("\n### Targets\n\n| figure | target | measured | |\n|---|---|---|---|\n")

	ratioRow := func(label, target string, min float64, reqs []string, variant string) {
		var parts []string
		worst, ok, any := 0.0, true, false
		for _, req := range reqs {
			rt := rs.ratios("main", req, variant, "statusd", "baseline")
			if len(rt) == 0 {
				continue
			}
			med := stats.Median(rt)
			note := ""
			if variant == "inm" {
				misses, rounds := rs.notModifiedMisses(req, "statusd")
				if misses > 0 && misses == rounds {
					// Never a 304: the answer moves with the clock (an
					// uptime cut at now), so this compares a 200 with the
					// baseline's 304. Shown, not judged.
					parts = append(parts, fmt.Sprintf("%s %.2f (not counted: statusd answered 200 after every round, its answer changes every second)", req, med))
					continue
				}
				if misses > 0 {
					note = fmt.Sprintf(" (statusd answered 200, not 304, after %d of %d rounds)", misses, rounds)
				}
			}
			parts = append(parts, fmt.Sprintf("%s %.2f%s", req, med, note))
			if !any || med < worst {
				worst = med
			}
			any = true
			ok = ok && med >= min
		}
		if !any {
			p("| %s | %s | not measured | |\n", label, target)
			return
		}
		measured := fmt.Sprintf("%.2f", worst)
		if len(parts) > 1 {
			measured = "lowest " + measured + ": " + strings.Join(parts, ", ")
		}
		p("| %s | %s | %s | %s |\n", label, target, measured, verdict(ok))
	}
	ratioRow("req/s ratio statusd/baseline, `/api/v1/status`", "≥ 0.85", ratioStatus, []string{"status"}, "plain")
	ratioRow("req/s ratio, every other JSON request", "≥ 0.7", ratioOtherJSON, jsonRequests[1:], "plain")
	ratioRow("req/s ratio, gzip requests", "≥ 0.8", ratioGzip, jsonRequests, "gzip")
	ratioRow("req/s ratio, `If-None-Match` answered 304", "≥ 0.9", ratioNotMod, jsonRequests, "inm")

	{ // p99 at 5,000 req/s
		var parts []string
		worst, ok, any := 0.0, true, false
		for _, req := range jsonRequests {
			r := rs.load("5k " + req)
			if r == nil {
				continue
			}
			parts = append(parts, fmt.Sprintf("%s %.2f", req, r.Latency.P99))
			any = true
			worst = max(worst, r.Latency.P99)
			ok = ok && r.Latency.P99 <= p99At5k && r.ErrorCount == 0 && r.Served == r.Scheduled
		}
		if any {
			p("| p99 latency, open loop at 5,000 req/s, any JSON request | ≤ 3 ms | highest %.2f ms: %s | %s |\n",
				worst, strings.Join(parts, ", "), verdict(ok))
		} else {
			p("| p99 latency, open loop at 5,000 req/s, any JSON request | ≤ 3 ms | not measured | |\n")
		}
	}
	if r := rs.load("20k status"); r != nil {
		meets := func(l *loadResult) bool {
			return l.Latency.P99 <= p99At20k && l.Latency.P999 <= p999At20k && l.ErrorCount == 0 && l.Served == l.Scheduled
		}
		measured := fmt.Sprintf("%.2f ms / %.2f ms, %d errors, %d not 2xx/3xx of %d",
			r.Latency.P99, r.Latency.P999, r.ErrorCount, r.Scheduled-r.Served-r.ErrorCount, r.Scheduled)
		result := verdict(meets(r))
		if b := rs.load("20k status (baseline)"); b != nil && !meets(b) && !meets(r) {
			// The baseline does no work of its own: when it misses the
			// target too, the machine (or the generator's one core) does.
			measured += fmt.Sprintf("; the baseline, which only replays captured bytes, had %.2f ms / %.2f ms "+
				"(the generator sent late by up to %.2f ms at p99, against %.2f ms for statusd's run): "+
				"this machine cannot show the target", b.Latency.P99, b.Latency.P999, b.SendLag.P99, r.SendLag.P99)
			result = machineLimit
		}
		p("| p99 / p99.9, open loop at 20,000 req/s, `/api/v1/status` | ≤ 10 ms / ≤ 50 ms, no errors | %s | %s |\n", measured, result)
	} else {
		p("| p99 / p99.9, open loop at 20,000 req/s, `/api/v1/status` | ≤ 10 ms / ≤ 50 ms, no errors | not measured | |\n")
	}
	overloadRow := func(what, load string, capacity float64) {
		label := "2x capacity offered, " + what
		const target = "≥ 80% of capacity served, p99 of served ≤ 50 ms, excess refused in < 5 ms"
		r := rs.load(load)
		if r == nil || capacity == 0 {
			p("| %s | %s | not measured | |\n", label, target)
			return
		}
		frac := r.ServedRate / capacity
		if r.SentRate < minOffered*r.Rate {
			p("| %s | %s | not offered: the generator's one core sent %.0f of the %.0f req/s scheduled (2 × %.0f); "+
				"statusd served %.0f req/s (%.0f%% of its capacity), refused %d (503) with p99 %.2f ms | %s |\n",
				label, target, r.SentRate, r.Rate, capacity, r.ServedRate, 100*frac, r.Shed, r.LatencyShed.P99, machineLimit)
			return
		}
		if frac > overCapacity {
			p("| %s | %s | not valid: %.0f req/s served, %.0f%% of the capacity measured before (%.0f req/s), "+
				"so the load did not meet the same work: answers kept in between (a time rule that remakes the snapshot "+
				"starts an empty cache) | |\n", label, target, r.ServedRate, 100*frac, capacity)
			return
		}
		ok := frac >= servedFraction && r.LatencyServed.P99 <= p99ServedOver && (r.Shed == 0 || r.LatencyShed.P99 < refusedOver)
		p("| %s | %s | "+
			"%.0f req/s scheduled (2 × %.0f; the generator sent %.0f/s), %.0f served = %.0f%% of capacity, p99 of served %.2f ms "+
			"(%.2f ms from the actual send), %d refused (503) with p99 %.2f ms, %d errors | %s |\n",
			label, target, r.Rate, capacity, r.SentRate, r.ServedRate, 100*frac, r.LatencyServed.P99, r.ServiceServed.P99, r.Shed, r.LatencyShed.P99, r.ErrorCount, verdict(ok))
	}
	overloadRow("`/api/v1/status`", "overload status", rs.medianRPS("main", "status", "plain", "statusd"))
	if r := rs.probe("first_request_after_write"); r != nil {
		p("| 12-month metrics, first request after a write | ≤ 10 ms | %.2f ms (median of %d; max %.2f; the next request %.2f ms) | %s |\n",
			r.MS, len(r.Trials), r.MaxMS, r.SecondMS, verdict(r.MS <= afterWriteMS))
	} else {
		p("| 12-month metrics, first request after a write | ≤ 10 ms | not measured | |\n")
	}
	if r := rs.rss("warm"); r != nil {
		peak := ""
		if e := rs.rss("end"); e != nil {
			peak = fmt.Sprintf("; peak over the whole run %.0f MB", float64(e.VmHWMKB)/1024)
		}
		p("| resident memory with the %s data set | ≤ 300 MB | %.0f MB after warm-up (VmRSS)%s | %s |\n",
			m["notices_short"], float64(r.VmRSSKB)/1024, peak, verdict(float64(r.VmRSSKB)/1024 <= rssMB))
	} else {
		p("| resident memory | ≤ 300 MB | not measured | |\n")
	}
	if r := rs.probe("start_to_first_answer"); r != nil {
		p("| start to first answer (snapshot built) | ≤ 2 s | %.2f s | %s |\n", r.MS/1000, verdict(r.MS <= startMS))
	} else {
		p("| start to first answer (snapshot built) | ≤ 2 s | not measured | |\n")
	}
	if r := rs.probe("write_visible"); r != nil {
		p("| a write visible in the public API | ≤ 50 ms | %.0f ms (median of %d; max %.0f; write acknowledged after %.0f ms) | %s |\n",
			r.MS, len(r.Trials), r.MaxMS, r.AckMS, verdict(r.MS <= visibleMS))
	} else {
		p("| a write visible in the public API | ≤ 50 ms | not measured | |\n")
	}

	// Details.
	p("\n### Throughput (wrk), req/s\n\n")
	p("Median of the rounds; the ratio is the median of the per-round ratios statusd/baseline. The status column is what one request of the kind was answered with before the rounds and, for `If-None-Match`, after each round (an ETag can go stale when the answer depends on the time).\n\n")
	p("| request | variant | status (statusd / baseline) | statusd | baseline | ratio per round | median ratio |\n|---|---|---|---|---|---|---|\n")
	for _, k := range rs.kinds("main") {
		rt := rs.ratios("main", k[0], k[1], "statusd", "baseline")
		p("| %s | %s | %s / %s | %.0f | %.0f | %s | %.2f |\n", desc(k[0]), variantName[k[1]],
			rs.statuses(k[0], k[1], "statusd"), rs.statuses(k[0], k[1], "baseline"),
			rs.medianRPS("main", k[0], k[1], "statusd"), rs.medianRPS("main", k[0], k[1], "baseline"),
			joinFloats(rt), stats.Median(rt))
	}
	p("\nControl pair (a second baseline instance against the first, interleaved the same way; must be within 0.95–1.05):\n\n")
	p("| request | variant | baseline | baseline 2 | ratio per round | median ratio | |\n|---|---|---|---|---|---|---|\n")
	for _, k := range controls {
		rt := rs.ratios("control", k[0], k[1], "baseline2", "baseline")
		med := stats.Median(rt)
		p("| %s | %s | %.0f | %.0f | %s | %.3f | %s |\n", desc(k[0]), variantName[k[1]],
			rs.medianRPS("control", k[0], k[1], "baseline"), rs.medianRPS("control", k[0], k[1], "baseline2"),
			joinFloats(rt), med, verdict(med >= controlLow && med <= controlHigh))
	}
	var errs []string
	for _, r := range rs.filter(func(r *record) bool {
		return r.Kind == "wrk" && (r.Non2xx > 0 || r.Errors != "")
	}) {
		errs = append(errs, fmt.Sprintf("%s %s %s round %d: %d non-2xx/3xx, socket errors %q", r.Server, r.Req, r.Variant, r.Round, r.Non2xx, r.Errors))
	}
	if len(errs) > 0 {
		p("\nwrk reported errors:\n\n")
		for _, e := range errs {
			p("- %s\n", e)
		}
	}

	p("\n### Latency (bench/load, open loop), ms\n\n")
	p("| run | req/s scheduled / sent / answered | p50 | p99 | p99.9 | max | served p99 (from send) | shed (503), p99 | errors | statuses | connections | generator lag p99 |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, r := range rs.filter(func(r *record) bool { return r.Kind == "load" }) {
		l := r.Result
		if l == nil {
			continue
		}
		var st []string
		for _, c := range slices.Sorted(maps.Keys(l.Status)) {
			st = append(st, fmt.Sprintf("%s×%d", c, l.Status[c]))
		}
		errText := fmt.Sprint(l.ErrorCount)
		if l.ErrorCount > 0 {
			var parts []string
			for _, k := range slices.Sorted(maps.Keys(l.Errors)) {
				parts = append(parts, fmt.Sprintf("%s: %d", k, l.Errors[k]))
			}
			errText += " (" + strings.Join(parts, "; ") + ")"
		}
		p("| %s | %.0f / %.0f / %.0f | %.2f | %.2f | %.2f | %.2f | %.2f (%.2f) | %d, %.2f | %s | %s | %d | %.2f |\n", r.Name, l.Rate, l.SentRate, l.AchievedRate,
			l.Latency.P50, l.Latency.P99, l.Latency.P999, l.Latency.Max, l.LatencyServed.P99, l.ServiceServed.P99, l.Shed, l.LatencyShed.P99,
			errText, strings.Join(st, " "), l.ConnsUsed, l.SendLag.P99)
	}
	p("\n“generator lag” is how late bench/load itself sent requests (intended to actual send time); latencies are measured from the intended time, so a late generator inflates them rather than hiding a slow server.\n")

	if r := rs.probe("html_request"); r != nil {
		p("\nThe HTML page `/` (%.1f MB uncompressed): %.0f ms a request, one at a time (median of %d; max %.0f).\n",
			float64(r.Bytes)/1e6, r.MS, len(r.Trials), r.MaxMS)
	}

	var notes []string
	for _, r := range rs.filter(func(r *record) bool { return r.Kind == "note" }) {
		notes = append(notes, r.Text)
	}
	for _, r := range rs.filter(func(r *record) bool { return r.Kind == "probe" }) {
		if len(r.Trials) > 0 {
			notes = append(notes, fmt.Sprintf("%s: trials %s ms", r.Name, joinFloats(r.Trials)))
		}
	}
	if len(notes) > 0 {
		p("\nNotes:\n\n")
		for _, n := range notes {
			p("- %s\n", n)
		}
	}
	return b.String()
}

func joinFloats(xs []float64) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = fmt.Sprintf("%.2f", x)
	}
	return strings.Join(parts, " ")
}
