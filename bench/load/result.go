package main

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"time"
)

// Result is the outcome of a run. Latencies are in milliseconds.
type Result struct {
	Label           string   `json:"label,omitempty"`
	URL             string   `json:"url"`            // the first, with -urls
	URLs            int      `json:"urls,omitempty"` // how many URLs were requested in turn, with -urls
	Headers         []string `json:"headers,omitempty"`
	Rate            float64  `json:"rate"` // scheduled requests per second
	DurationSeconds float64  `json:"duration_s"`
	ElapsedSeconds  float64  `json:"elapsed_s"` // until the last answer
	Conns           int      `json:"conns"`
	MaxConns        int      `json:"max_conns"`
	ConnsUsed       int      `json:"conns_used"` // connection slots the run needed
	Dials           int      `json:"dials"`      // connections opened (reconnections included)

	Scheduled    int64   `json:"scheduled"`
	Sent         int64   `json:"sent"`      // requests written to a connection
	Completed    int64   `json:"completed"` // answers of any status
	Served       int64   `json:"served"`    // 2xx and 3xx answers
	Shed         int64   `json:"shed"`      // 503 answers
	SentRate     float64 `json:"sent_rate"`
	AchievedRate float64 `json:"achieved_rate"`
	ServedRate   float64 `json:"served_rate"`

	Status     map[string]int64 `json:"status"`
	ErrorCount int64            `json:"error_count"` // requests without an answer
	Errors     map[string]int64 `json:"errors"`
	Queued     int64            `json:"queued"` // of which never sent: waited longer than the timeout

	Latency       Summary `json:"latency_ms"`        // every answer
	LatencyServed Summary `json:"latency_served_ms"` // 2xx and 3xx
	LatencyShed   Summary `json:"latency_shed_ms"`   // 503
	ServiceServed Summary `json:"service_served_ms"` // 2xx and 3xx, from the actual send time
	SendLag       Summary `json:"send_lag_ms"`       // intended to actual send: the generator's own delay
}

// Summary describes a set of durations, in milliseconds.
type Summary struct {
	Count int     `json:"count"`
	Mean  float64 `json:"mean"`
	P50   float64 `json:"p50"`
	P90   float64 `json:"p90"`
	P99   float64 `json:"p99"`
	P999  float64 `json:"p99_9"`
	Max   float64 `json:"max"`
}

// summarize sorts ds and describes it.
func summarize(ds []time.Duration) Summary {
	if len(ds) == 0 {
		return Summary{}
	}
	slices.Sort(ds)
	var sum float64
	for _, d := range ds {
		sum += float64(d)
	}
	return Summary{Count: len(ds), Mean: ms(time.Duration(sum / float64(len(ds)))),
		P50: ms(percentile(ds, 50)), P90: ms(percentile(ds, 90)), P99: ms(percentile(ds, 99)),
		P999: ms(percentile(ds, 99.9)), Max: ms(ds[len(ds)-1])}
}

// percentile is the nearest-rank percentile p (0 < p <= 100) of sorted: the
// smallest value that at least p% of the values do not exceed. It is 0 for
// no values.
func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	// The epsilon keeps 99.9% of 1000 at rank 999 despite rounding.
	rank := int(math.Ceil(p/100*float64(len(sorted)) - 1e-9))
	return sorted[min(max(rank, 1), len(sorted))-1]
}

func ms(d time.Duration) float64 { return math.Round(float64(d)/1e3) / 1e3 }

// Line is the result as one line of text.
func (r *Result) Line() string {
	var codes []string
	for k := range r.Status {
		codes = append(codes, k)
	}
	sort.Strings(codes)
	var st []string
	for _, k := range codes {
		st = append(st, fmt.Sprintf("%s:%d", k, r.Status[k]))
	}
	errs := ""
	if r.ErrorCount > 0 {
		var parts []string
		for k, v := range r.Errors {
			parts = append(parts, fmt.Sprintf("%s:%d", k, v))
		}
		sort.Strings(parts)
		errs = " (" + strings.Join(parts, ", ") + ")"
	}
	return fmt.Sprintf("%s rate %.0f/s sent %.0f/s achieved %.0f/s served %.0f/s | latency p50 %.2fms p99 %.2fms p99.9 %.2fms max %.2fms"+
		" | served p99 %.2fms | shed %d p99 %.2fms | errors %d%s | status %s | conns %d dials %d | send lag p99 %.2fms",
		r.Label, r.Rate, r.SentRate, r.AchievedRate, r.ServedRate, r.Latency.P50, r.Latency.P99, r.Latency.P999, r.Latency.Max,
		r.LatencyServed.P99, r.Shed, r.LatencyShed.P99, r.ErrorCount, errs, strings.Join(st, " "),
		r.ConnsUsed, r.Dials, r.SendLag.P99)
}
