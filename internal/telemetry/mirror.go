package telemetry

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/statusd/statusd"
)

// MirrorStates reads the mirror's destinations and their states (CONTRACT
// C10); mirror.Mirror.States is one.
type MirrorStates func(ctx context.Context) ([]statusd.MirrorState, error)

// mirrorCollector is statusd_mirror_last_success_timestamp_seconds, read
// at scrape time from the store, whichever replica pushed.
type mirrorCollector struct {
	states MirrorStates
	desc   *prometheus.Desc
}

// WatchMirror adds statusd_mirror_last_success_timestamp_seconds.
func (m *Metrics) WatchMirror(states MirrorStates) {
	m.reg.MustRegister(&mirrorCollector{states: states, desc: prometheus.NewDesc("statusd_mirror_last_success_timestamp_seconds",
		"When the mirror's copy last reached the destination (Unix time; 0: never): alert when it falls behind the heartbeat.",
		[]string{"destination"}, nil)})
}

func (c *mirrorCollector) Describe(ch chan<- *prometheus.Desc) { ch <- c.desc }

func (c *mirrorCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	list, err := c.states(ctx)
	if err != nil {
		ch <- prometheus.NewInvalidMetric(c.desc, err)
		return
	}
	for _, s := range list {
		var at float64
		if s.LastSuccessAt != nil {
			at = float64(s.LastSuccessAt.UnixMilli()) / 1000
		}
		ch <- prometheus.MustNewConstMetric(c.desc, prometheus.GaugeValue, at, s.URL)
	}
}
