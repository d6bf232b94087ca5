package snapshot

import (
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/statusd/statusd"
)

// hullIndex counts, with binary searches, the closed notices whose impact
// meets a window: each notice is reduced to the hull [first start, last end)
// of its impact intervals, and the few notices whose window falls in a gap
// between their intervals are subtracted. Open notices (impact still going
// on) are few and are checked one by one against now.
type hullIndex struct {
	starts, ends []int64 // hull starts and hull ends of closed notices, each sorted
	gaps         [][2]int64
	open         []*Notice
}

func newHullIndex(counting []*Notice) hullIndex {
	var h hullIndex
	for _, n := range counting {
		imp := n.impacts()
		if len(imp) == 0 {
			continue
		}
		if n.open {
			h.open = append(h.open, n)
			continue
		}
		h.starts = append(h.starts, imp[0][0])
		h.ends = append(h.ends, imp[len(imp)-1][1])
		h.gaps = appendGaps(h.gaps, imp)
	}
	slices.Sort(h.starts)
	slices.Sort(h.ends)
	return h
}

// appendGaps appends the gaps between a notice's impact intervals.
func appendGaps(gaps, impacts [][2]int64) [][2]int64 {
	for i := 1; i < len(impacts); i++ {
		gaps = append(gaps, [2]int64{impacts[i-1][1], impacts[i][0]})
	}
	return gaps
}

// clone returns a copy that add and remove may change.
func (h hullIndex) clone() hullIndex {
	return hullIndex{starts: slices.Clone(h.starts), ends: slices.Clone(h.ends), gaps: slices.Clone(h.gaps), open: slices.Clone(h.open)}
}

// add puts one more notice in the index.
func (h *hullIndex) add(n *Notice) {
	imp := n.impacts()
	if len(imp) == 0 {
		return
	}
	if n.open {
		h.open = append(h.open, n)
		return
	}
	insertSorted(&h.starts, imp[0][0])
	insertSorted(&h.ends, imp[len(imp)-1][1])
	h.gaps = appendGaps(h.gaps, imp)
}

// remove takes a notice that add put in the index out again.
func (h *hullIndex) remove(n *Notice) {
	imp := n.impacts()
	if len(imp) == 0 {
		return
	}
	if n.open {
		h.open = slices.DeleteFunc(h.open, func(o *Notice) bool { return o.ID == n.ID })
		return
	}
	deleteSorted(&h.starts, imp[0][0])
	deleteSorted(&h.ends, imp[len(imp)-1][1])
	for i := 1; i < len(imp); i++ {
		if j := slices.Index(h.gaps, [2]int64{imp[i-1][1], imp[i][0]}); j >= 0 {
			h.gaps = slices.Delete(h.gaps, j, j+1)
		}
	}
}

func insertSorted(list *[]int64, v int64) {
	i, _ := slices.BinarySearch(*list, v)
	*list = slices.Insert(*list, i, v)
}

func deleteSorted(list *[]int64, v int64) {
	if i, ok := slices.BinarySearch(*list, v); ok {
		*list = slices.Delete(*list, i, i+1)
	}
}

// count returns how many notices have an impact interval [s, e) with
// s < to and e > from, open intervals ending at now.
func (h *hullIndex) count(from, to, now int64) int64 {
	startsBefore, _ := slices.BinarySearch(h.starts, to) // hulls with s < to
	endsBy, _ := slices.BinarySearch(h.ends, from+1)     // hulls with e <= from
	n := int64(startsBefore - endsBy)
	for _, g := range h.gaps {
		if g[0] <= from && to <= g[1] {
			n--
		}
	}
	for _, o := range h.open {
		if o.meets(from, to, now) {
			n++
		}
	}
	return n
}

// meets reports whether one of the notice's impact intervals, cut at now,
// is not empty and meets [from, to): s < to and e > from.
func (n *Notice) meets(from, to, now int64) bool {
	for _, iv := range n.impacts() {
		if e := min(iv[1], now); iv[0] < to && e > from && iv[0] < e {
			return true
		}
	}
	return false
}

// Metrics computes the metrics of c over the timeframe at now (CONTRACT C4):
// the union of the counting notices' impacts within the window cut at now,
// and the number of notices whose impact meets the uncut timeframe, which is
// exactly what the calculation's notices link returns.
func (s *Snapshot) Metrics(c *Component, tf statusd.Timeframe, now time.Time) statusd.Metrics {
	from, to := tf.Window(now)
	dayAfter := tf.End.AddDate(0, 0, 1).UnixMilli()
	return statusd.Metrics{
		Timeframe:     tf,
		TotalSeconds:  to.Sub(from).Milliseconds() / 1000,
		ImpactSeconds: c.impacts.Covered(from.UnixMilli(), to.UnixMilli()) / 1000,
		Count:         c.hulls.count(from.UnixMilli(), dayAfter, now.UnixMilli()),
	}
}

// MetricsURL is the public metrics page of a component for a timeframe.
func (s *Snapshot) MetricsURL(c *Component, tf *statusd.Timeframe) string {
	u := s.link("/components/" + strconv.FormatInt(c.ID, 10) + "/metrics")
	if tf != nil {
		u += "?timeframe_start=" + tf.Start.Format(statusd.DateLayout) + "&timeframe_end=" + tf.End.Format(statusd.DateLayout)
	}
	return u
}

// MetricsResponse answers the metrics endpoint for c, which must have
// Metrics enabled.
func (s *Snapshot) MetricsResponse(c *Component, tf statusd.Timeframe, now time.Time, calculations bool) statusd.MetricsResponse {
	m := s.Metrics(c, tf, now)
	r := statusd.MetricsResponse{
		Component:               statusd.MetricsComponent{ID: strconv.FormatInt(c.ID, 10), Name: c.Name},
		TimeframeStart:          tf.Start.Format(statusd.DateLayout),
		TimeframeEnd:            tf.End.Format(statusd.DateLayout),
		PercentageUptime:        statusd.Uptime{Percent: m.UptimePercent(), Words: m.UptimeWords()},
		MeanTimeToRecovery:      *duration(m.MTTRSeconds()),
		MeanTimeBetweenFailures: *duration(m.MTBFSeconds()),
		URL:                     s.MetricsURL(c, &tf),
	}
	if !calculations {
		return r
	}
	r.PercentageUptime.Calculation = fmt.Sprintf("100 - ((%d / %d) * 100) = %s",
		m.ImpactSeconds, m.TotalSeconds, strconv.FormatFloat(m.UptimePercent(), 'f', -1, 64))
	if m.Count == 0 {
		r.MeanTimeToRecovery.Calculation = "no notices counted: 0"
		r.MeanTimeBetweenFailures.Calculation = fmt.Sprintf("no notices counted: total_time = %d", m.TotalSeconds)
	} else {
		r.MeanTimeToRecovery.Calculation = fmt.Sprintf("%d / %d = %d", m.ImpactSeconds, m.Count, m.MTTRSeconds())
		r.MeanTimeBetweenFailures.Calculation = fmt.Sprintf("(%d - %d) / %d = %d",
			m.TotalSeconds, m.ImpactSeconds, m.Count, m.MTBFSeconds())
	}
	r.CalculationData = &statusd.CalculationData{
		TotalTime:       *duration(m.TotalSeconds),
		TotalImpactTime: *duration(m.ImpactSeconds),
		Notices: statusd.Link{
			Href: "/api/v1/notices?filter%5Bmetrics_component_id%5D=" + strconv.FormatInt(c.ID, 10) +
				"&filter%5Bimpact_timeframe_overlaps%5D%5B%5D=" + tf.Start.Format(statusd.DateLayout) + "T00:00:00" +
				"&filter%5Bimpact_timeframe_overlaps%5D%5B%5D=" + tf.End.Format(statusd.DateLayout) + "T23:59:59",
			Count: int(m.Count),
		},
	}
	return r
}

// summary is a component's metrics_summary at now: null when Metrics are
// off.
func (s *Snapshot) summary(c *Component, now time.Time) statusd.Field[statusd.MetricsSummary] {
	if !c.MetricsEnabled {
		return statusd.Null[statusd.MetricsSummary]()
	}
	tf := statusd.DefaultTimeframe(now)
	m := s.Metrics(c, tf, now)
	return statusd.Some(statusd.MetricsSummary{
		TimeframeStart:   tf.Start.Format(statusd.DateLayout),
		TimeframeEnd:     tf.End.Format(statusd.DateLayout),
		PercentageUptime: statusd.Uptime{Percent: m.UptimePercent(), Words: m.UptimeWords()},
		URL:              s.MetricsURL(c, nil),
	})
}
