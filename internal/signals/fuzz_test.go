package signals

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/statusd/statusd"
)

// FuzzDecode feeds arbitrary bytes to Decode in each format: it never
// panics, a refusal is a *statusd.Error of a hook's codes (invalid_field
// naming its problems), and a body it takes gives alerts with a key and
// a status, or is a test message without any. Seeded with every file of
// testdata in every format. A longer run:
//
//	go test ./internal/signals -run '^$' -fuzz FuzzDecode -fuzztime 60s
func FuzzDecode(f *testing.F) {
	formats := []Format{Alertmanager, Grafana, UptimeKuma, Generic}
	files, err := filepath.Glob(filepath.Join("testdata", "*.json"))
	if err != nil || len(files) == 0 {
		f.Fatalf("no seeds: %v", err)
	}
	for _, name := range files {
		body, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		for i := range formats {
			f.Add(uint8(i), body)
		}
	}
	f.Fuzz(func(t *testing.T, format uint8, body []byte) {
		b, err := Decode(formats[int(format)%len(formats)], body)
		if err != nil {
			var e *statusd.Error
			switch {
			case !errors.As(err, &e):
				t.Fatalf("error %T %v is not a *statusd.Error", err, err)
			case e.Code == statusd.EInvalidField && len(e.Problems) == 0:
				t.Fatalf("invalid_field without problems: %v", err)
			case e.Code != statusd.EInvalidField && e.Code != statusd.EInvalidBody && e.Code != statusd.ETooLarge:
				t.Fatalf("code %s: %v", e.Code, err)
			}
			return
		}
		if b.Test && len(b.Alerts) > 0 {
			t.Fatalf("a test message with alerts: %+v", b)
		}
		for i, a := range b.Alerts {
			if a.Key == "" || (a.Status != Firing && a.Status != Resolved && a.Status != Unchanged) ||
				a.Labels == nil || a.Annotations == nil {
				t.Fatalf("alert %d: %+v", i, a)
			}
		}
	})
}
