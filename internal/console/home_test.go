package console

import (
	"testing"
	"time"
)

// TestAgo: durations in words, rounded down, minutes up to two hours,
// hours up to two days.
func TestAgo(t *testing.T) {
	for _, tc := range []struct {
		d    time.Duration
		want string
	}{
		{0, "less than a minute ago"},
		{59 * time.Second, "less than a minute ago"},
		{time.Minute, "1 minute ago"},
		{7*time.Minute + 59*time.Second, "7 minutes ago"},
		{119 * time.Minute, "119 minutes ago"},
		{2 * time.Hour, "2 hours ago"},
		{47*time.Hour + 59*time.Minute, "47 hours ago"},
		{48 * time.Hour, "2 days ago"},
		{30 * 24 * time.Hour, "30 days ago"},
	} {
		if got := ago(tc.d); got != tc.want {
			t.Errorf("ago(%v) = %q, want %q", tc.d, got, tc.want)
		}
	}
}
