package app

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/statusd/statusd"
)

// BenchmarkIngest: a storm's body of 100 Alertmanager alerts, new keys
// each time, on one component, on SQLite: what the hook costs statusd an
// alert (the storm benchmark, bench/storm.sh, measures it whole).
func BenchmarkIngest(b *testing.B) {
	c := newClockedB(b)
	src := c.sourceB(b)
	ctx := context.Background()
	for i := 0; b.Loop(); i++ {
		alerts := make([]map[string]any, 100)
		for j := range alerts {
			alerts[j] = map[string]any{"status": "firing", "fingerprint": fmt.Sprintf("%08x%08x", i, j),
				"labels":      map[string]string{"alertname": "Down", "instance": fmt.Sprintf("h%d", j), "statusd_component": "2"},
				"annotations": map[string]string{"summary": "down"}, "startsAt": time.Now().UTC().Format(time.RFC3339Nano),
				"endsAt": "0001-01-01T00:00:00Z", "generatorURL": "http://prometheus.example/graph"}
		}
		body, _ := json.Marshal(map[string]any{"version": "4", "status": "firing", "receiver": "statusd", "groupKey": fmt.Sprint(i % 5),
			"groupLabels": map[string]string{}, "commonLabels": map[string]string{}, "commonAnnotations": map[string]string{},
			"externalURL": "http://am.example", "truncatedAlerts": 0, "alerts": alerts})
		if _, err := c.app.Ingest(ctx, src, body); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*100), "ns/alert")
}

// newClockedB is newClocked for a benchmark.
func newClockedB(b *testing.B) clocked {
	b.Helper()
	now := t0.Add(time.Hour)
	return onStore(b, filepath.Join(b.TempDir(), "bench.db"), &now, true)
}

// sourceB makes an alertmanager source.
func (c clocked) sourceB(b *testing.B) *statusd.Source {
	out, err := c.app.AddSource(context.Background(), statusd.System, statusd.AdminSourceRequest{Name: ptr("AM"), Format: ptr("alertmanager")})
	if err != nil {
		b.Fatal(err)
	}
	var src *statusd.Source
	c.store.Signals().Read(context.Background(), func(r statusd.SignalReads) (err error) { src, err = r.Source(out.ID); return err })
	return src
}
