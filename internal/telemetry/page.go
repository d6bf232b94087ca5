package telemetry

import (
	"strconv"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/statusd/statusd"
)

// pageStates are the states a page or component can be in, in the
// spelling of variant A whatever the variant, so that alerts do not depend
// on it.
var pageStates = []statusd.PageState{statusd.PageOperational, statusd.PageDegraded, statusd.PageUnderMaintenance}

// pageCollector reads the current snapshot at scrape time. Each state is a
// series of its own, 1 for the current state and 0 for the others, so that
// an alert can say statusd_component_state{state="degraded"} == 1 and a
// component that is not degraded still has a series.
type pageCollector struct {
	snaps      Snapshots
	page       *prometheus.Desc
	component  *prometheus.Desc
	notices    *prometheus.Desc
	version    *prometheus.Desc
	builtAt    *prometheus.Desc
	noticeKeys [][2]string
}

func newPageCollector(snaps Snapshots) *pageCollector {
	c := &pageCollector{
		snaps: snaps,
		page: prometheus.NewDesc("statusd_page_state",
			"1 for the page's current state (operational, degraded, under_maintenance), 0 for the others.",
			[]string{"state"}, nil),
		component: prometheus.NewDesc("statusd_component_state",
			"1 for each component's current state (operational, degraded, under_maintenance), 0 for the others.",
			[]string{"component_id", "name", "state"}, nil),
		notices: prometheus.NewDesc("statusd_notices",
			"Notices on the page, by type and timeline state.",
			[]string{"type", "timeline"}, nil),
		version: prometheus.NewDesc("statusd_snapshot_version",
			"The store version the current snapshot was built from.", nil, nil),
		builtAt: prometheus.NewDesc("statusd_snapshot_built_timestamp_seconds",
			"When the current snapshot was built, in seconds since the Unix epoch.", nil, nil),
	}
	for _, t := range []statusd.NoticeType{statusd.Unplanned, statusd.Planned, statusd.General} {
		for _, tl := range statusd.TimelineStates {
			c.noticeKeys = append(c.noticeKeys, [2]string{string(t), string(tl)})
		}
	}
	return c
}

func (c *pageCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.page
	ch <- c.component
	ch <- c.notices
	ch <- c.version
	ch <- c.builtAt
}

// Collect emits nothing while no page has been published.
func (c *pageCollector) Collect(ch chan<- prometheus.Metric) {
	snap := c.snaps.Current()
	if snap == nil {
		return
	}
	ch <- prometheus.MustNewConstMetric(c.version, prometheus.GaugeValue, float64(snap.Version))
	ch <- prometheus.MustNewConstMetric(c.builtAt, prometheus.GaugeValue, float64(snap.BuiltAt.UnixMilli())/1000)
	for _, s := range pageStates {
		ch <- prometheus.MustNewConstMetric(c.page, prometheus.GaugeValue, is(snap.PageState == s), string(s))
	}
	for _, comp := range snap.AllComponents {
		id := strconv.FormatInt(comp.ID, 10)
		for _, s := range pageStates {
			ch <- prometheus.MustNewConstMetric(c.component, prometheus.GaugeValue, is(comp.State == s), id, comp.Name, string(s))
		}
	}
	counts := make(map[[2]string]int, len(c.noticeKeys))
	for _, n := range snap.AllNotices() {
		counts[[2]string{string(n.Type()), string(n.Timeline())}]++
	}
	for _, k := range c.noticeKeys {
		ch <- prometheus.MustNewConstMetric(c.notices, prometheus.GaugeValue, float64(counts[k]), k[0], k[1])
	}
}

func is(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
