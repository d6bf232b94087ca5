package cli

import (
	"strings"
	"testing"
	"time"
)

func TestOperatorDuration(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want time.Duration
	}{{"+90s", 90 * time.Second}, {"+2h", 2 * time.Hour}, {"1d12h", 36 * time.Hour}, {"+7d", 7 * 24 * time.Hour}} {
		got, err := opDuration(strings.TrimPrefix(tc.in, "+"))
		if err != nil || got != tc.want {
			t.Errorf("opDuration(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
}
