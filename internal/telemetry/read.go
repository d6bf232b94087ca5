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

// MirrorStates reads the mirror's destinations and their states (CONTRACT
// C10); mirror.Mirror.States is one.
type MirrorStates func(ctx context.Context) ([]statusd.MirrorState, error)

// WatchSources adds statusd_signal_source_stale: 1 for each source whose
// heartbeat is late, 0 for the others.
func (m *Metrics) WatchSources(states SourceStates) {
	m.reg.MustRegister(&readCollector[statusd.AdminSource]{read: states, desc: prometheus.NewDesc("statusd_signal_source_stale",
		"1 while a source of alerts has sent no heartbeat within its timeout (its alerts may not reach statusd), 0 otherwise.",
		[]string{"source"}, nil),
		sample: func(s statusd.AdminSource) (float64, string) {
			if s.State == statusd.SourceStale {
				return 1, s.Name
			}
			return 0, s.Name
		}})
}

// WatchMirror adds statusd_mirror_last_success_timestamp_seconds, from
// the store, whichever replica pushed.
func (m *Metrics) WatchMirror(states MirrorStates) {
	m.reg.MustRegister(&readCollector[statusd.MirrorState]{read: states, desc: prometheus.NewDesc("statusd_mirror_last_success_timestamp_seconds",
		"When the mirror's copy last reached the destination (Unix time; 0: never): alert when it falls behind the heartbeat.",
		[]string{"destination"}, nil),
		sample: func(s statusd.MirrorState) (float64, string) {
			if s.LastSuccessAt == nil {
				return 0, s.URL
			}
			return float64(s.LastSuccessAt.UnixMilli()) / 1000, s.URL
		}})
}

// readCollector is a gauge of one label, a sample for each of the things
// read at scrape time.
type readCollector[T any] struct {
	read   func(ctx context.Context) ([]T, error)
	desc   *prometheus.Desc
	sample func(T) (value float64, label string)
}

func (c *readCollector[T]) Describe(ch chan<- *prometheus.Desc) { ch <- c.desc }

func (c *readCollector[T]) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	list, err := c.read(ctx)
	if err != nil {
		ch <- prometheus.NewInvalidMetric(c.desc, err)
		return
	}
	for _, s := range list {
		v, label := c.sample(s)
		ch <- prometheus.MustNewConstMetric(c.desc, prometheus.GaugeValue, v, label)
	}
}
