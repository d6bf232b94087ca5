package telemetry

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/statusd/statusd"
)

// SourceStates reads the sources of alerts and their states (CONTRACT C9);
// app.App.SourceStates is one.
type SourceStates func(ctx context.Context) ([]statusd.AdminSource, error)

// sourceCollector is statusd_signal_source_stale: 1 for each source whose
// heartbeat is late, 0 for the others, read at scrape time.
type sourceCollector struct {
	states SourceStates
	desc   *prometheus.Desc
}

func newSourceCollector(states SourceStates) *sourceCollector {
	return &sourceCollector{states: states, desc: prometheus.NewDesc("statusd_signal_source_stale",
		"1 while a source of alerts has sent no heartbeat within its timeout (its alerts may not reach statusd), 0 otherwise.",
		[]string{"source"}, nil)}
}

func (c *sourceCollector) Describe(ch chan<- *prometheus.Desc) { ch <- c.desc }

func (c *sourceCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	list, err := c.states(ctx)
	if err != nil {
		ch <- prometheus.NewInvalidMetric(c.desc, err)
		return
	}
	for _, s := range list {
		stale := 0.0
		if s.State == statusd.SourceStale {
			stale = 1
		}
		ch <- prometheus.MustNewConstMetric(c.desc, prometheus.GaugeValue, stale, s.Name)
	}
}
