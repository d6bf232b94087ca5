package statusd

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"
)

func tDate(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }

func TestDay(t *testing.T) {
	plus2 := time.FixedZone("UTC+2", 2*3600)
	minus5 := time.FixedZone("UTC-5", -5*3600)
	tests := []struct {
		name string
		in   time.Time
		want time.Time
	}{
		{"midnight", tDate(2028, 3, 10), tDate(2028, 3, 10)},
		{"noon", time.Date(2028, 3, 10, 12, 0, 0, 0, time.UTC), tDate(2028, 3, 10)},
		{"last millisecond", time.Date(2028, 2, 29, 23, 59, 59, 999e6, time.UTC), tDate(2028, 2, 29)},
		{"east of UTC: still the previous UTC day", time.Date(2028, 3, 1, 1, 0, 0, 0, plus2), tDate(2028, 2, 29)},
		{"west of UTC: already the next UTC day", time.Date(2027, 12, 31, 20, 0, 0, 0, minus5), tDate(2028, 1, 1)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := Day(tc.in)
			if !got.Equal(tc.want) || got.Location() != time.UTC {
				t.Errorf("Day(%s) = %s, want %s UTC", tc.in, got, tc.want)
			}
		})
	}
}

func TestDefaultTimeframe(t *testing.T) {
	tests := []struct {
		name       string
		now        time.Time
		start, end time.Time
	}{
		// 2028 is a leap year: 10 March - 10 days = 29 February, - 20 more = 9 February.
		{"leap year", time.Date(2028, 3, 10, 12, 0, 0, 0, time.UTC), tDate(2028, 2, 9), tDate(2028, 3, 10)},
		// 10 March 2027 - 10 days = 28 February, - 20 more = 8 February.
		{"common year", time.Date(2027, 3, 10, 0, 0, 0, 0, time.UTC), tDate(2027, 2, 8), tDate(2027, 3, 10)},
		// 15 January - 15 days = 31 December, - 15 more = 16 December.
		{"across the new year", time.Date(2028, 1, 15, 23, 59, 59, 0, time.UTC), tDate(2027, 12, 16), tDate(2028, 1, 15)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := DefaultTimeframe(tc.now)
			if !got.Start.Equal(tc.start) || !got.End.Equal(tc.end) {
				t.Errorf("DefaultTimeframe(%s) = %s..%s, want %s..%s", tc.now,
					got.Start.Format(DateLayout), got.End.Format(DateLayout), tc.start.Format(DateLayout), tc.end.Format(DateLayout))
			}
		})
	}
}

func TestEarliestStart(t *testing.T) {
	tests := []struct {
		name string
		now  time.Time
		want time.Time
	}{
		{"29 February gives 28 February", time.Date(2028, 2, 29, 15, 0, 0, 0, time.UTC), tDate(2027, 2, 28)},
		{"28 February of a leap year gives 28 February", tDate(2028, 2, 28), tDate(2027, 2, 28)},
		{"28 February after a leap year gives 28 February", tDate(2029, 2, 28), tDate(2028, 2, 28)},
		{"1 March after a leap year gives 1 March", tDate(2029, 3, 1), tDate(2028, 3, 1)},
		{"31 March gives 31 March", time.Date(2027, 3, 31, 23, 59, 59, 0, time.UTC), tDate(2026, 3, 31)},
		{"1 January gives 1 January", tDate(2028, 1, 1), tDate(2027, 1, 1)},
		{"31 December gives 31 December", tDate(2028, 12, 31), tDate(2027, 12, 31)},
		{"30 April", tDate(2028, 4, 30), tDate(2027, 4, 30)},
		{"10 March at noon", time.Date(2028, 3, 10, 12, 0, 0, 0, time.UTC), tDate(2027, 3, 10)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := EarliestStart(tc.now); !got.Equal(tc.want) {
				t.Errorf("EarliestStart(%s) = %s, want %s", tc.now, got.Format(DateLayout), tc.want.Format(DateLayout))
			}
		})
	}
}

func TestParseTimeframe(t *testing.T) {
	now := time.Date(2028, 3, 10, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name       string
		start, end string
		now        time.Time
		wantStart  time.Time
		wantEnd    time.Time
		wantErr    string // parameter named in the error; "" means success
	}{
		{name: "defaults", now: now, wantStart: tDate(2028, 2, 9), wantEnd: tDate(2028, 3, 10)},
		{name: "start only, end defaults to today", start: "2028-03-01", now: now, wantStart: tDate(2028, 3, 1), wantEnd: tDate(2028, 3, 10)},
		{name: "end only, start defaults to 30 days ago", end: "2028-03-05", now: now, wantStart: tDate(2028, 2, 9), wantEnd: tDate(2028, 3, 5)},
		{name: "both", start: "2028-01-01", end: "2028-01-31", now: now, wantStart: tDate(2028, 1, 1), wantEnd: tDate(2028, 1, 31)},
		{name: "single day today", start: "2028-03-10", end: "2028-03-10", now: now, wantStart: tDate(2028, 3, 10), wantEnd: tDate(2028, 3, 10)},
		{name: "end in the future is allowed", start: "2028-03-01", end: "2028-04-01", now: now, wantStart: tDate(2028, 3, 1), wantEnd: tDate(2028, 4, 1)},
		{name: "end far in the future is allowed", end: "2099-12-31", now: now, wantStart: tDate(2028, 2, 9), wantEnd: tDate(2099, 12, 31)},
		{name: "start exactly at the earliest allowed day", start: "2027-03-10", now: now, wantStart: tDate(2027, 3, 10), wantEnd: tDate(2028, 3, 10)},
		{name: "leap day in the timeframe", start: "2028-02-28", end: "2028-03-01", now: now, wantStart: tDate(2028, 2, 28), wantEnd: tDate(2028, 3, 1)},
		{name: "on 29 February, 28 February a year back is allowed", start: "2027-02-28", now: time.Date(2028, 2, 29, 8, 0, 0, 0, time.UTC),
			wantStart: tDate(2027, 2, 28), wantEnd: tDate(2028, 2, 29)},

		{name: "start one day before the earliest", start: "2027-03-09", now: now, wantErr: "timeframe_start"},
		{name: "start long ago", start: "2020-01-01", end: "2020-01-31", now: now, wantErr: "timeframe_start"},
		{name: "on 29 February, 27 February a year back is too early", start: "2027-02-27", now: time.Date(2028, 2, 29, 8, 0, 0, 0, time.UTC), wantErr: "timeframe_start"},
		{name: "on 1 March 2029, 29 February 2028 is too early", start: "2028-02-29", now: tDate(2029, 3, 1), wantErr: "timeframe_start"},
		{name: "start after end", start: "2028-03-05", end: "2028-03-01", now: now, wantErr: "timeframe_start"},
		{name: "end before the default start", end: "2028-02-01", now: now, wantErr: "timeframe_end"},
		{name: "start after today (default end)", start: "2028-03-11", now: now, wantErr: "timeframe_start"},
		{name: "start after today, end later", start: "2028-03-11", end: "2028-03-20", now: now, wantErr: "timeframe_start"},
		{name: "malformed start: no zero padding", start: "2028-3-1", now: now, wantErr: "timeframe_start"},
		{name: "malformed start: slashes", start: "2028/03/01", now: now, wantErr: "timeframe_start"},
		{name: "malformed start: no day 30 in February", start: "2028-02-30", now: now, wantErr: "timeframe_start"},
		{name: "malformed start: 29 February of a common year", start: "2027-02-29", now: now, wantErr: "timeframe_start"},
		{name: "malformed start: month 13", start: "2027-13-01", now: now, wantErr: "timeframe_start"},
		{name: "malformed start: a timestamp", start: "2028-03-01T00:00:00Z", now: now, wantErr: "timeframe_start"},
		{name: "malformed start: word", start: "yesterday", now: now, wantErr: "timeframe_start"},
		{name: "malformed start: leading space", start: " 2028-03-01", now: now, wantErr: "timeframe_start"},
		{name: "malformed start: compact", start: "20280301", now: now, wantErr: "timeframe_start"},
		{name: "malformed end", end: "2028-03-32", now: now, wantErr: "timeframe_end"},
		{name: "malformed end: word", start: "2028-03-01", end: "today", now: now, wantErr: "timeframe_end"},
		{name: "malformed end: trailing garbage", end: "2028-03-05x", now: now, wantErr: "timeframe_end"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tf, err := ParseTimeframe(tc.start, tc.end, tc.now)
			if tc.wantErr == "" {
				if err != nil {
					t.Fatalf("ParseTimeframe(%q, %q) error: %v", tc.start, tc.end, err)
				}
				if !tf.Start.Equal(tc.wantStart) || !tf.End.Equal(tc.wantEnd) {
					t.Errorf("ParseTimeframe(%q, %q) = %s..%s, want %s..%s", tc.start, tc.end,
						tf.Start.Format(DateLayout), tf.End.Format(DateLayout),
						tc.wantStart.Format(DateLayout), tc.wantEnd.Format(DateLayout))
				}
				return
			}
			if err == nil {
				t.Fatalf("ParseTimeframe(%q, %q) = %s..%s, want an error naming %s", tc.start, tc.end,
					tf.Start.Format(DateLayout), tf.End.Format(DateLayout), tc.wantErr)
			}
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %v (%T) is not an *Error", err, err)
			}
			if e.Code != EInvalidParameter || ErrorStatus(e.Code) != 400 {
				t.Errorf("code %q (status %d), want %q (400)", e.Code, ErrorStatus(e.Code), EInvalidParameter)
			}
			if !strings.Contains(e.Message, tc.wantErr) {
				t.Errorf("message %q does not name %s", e.Message, tc.wantErr)
			}
		})
	}
}

func TestTimeframeWindow(t *testing.T) {
	now := time.Date(2028, 3, 10, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name     string
		tf       Timeframe
		from, to time.Time
	}{
		{"past timeframe is whole days", Timeframe{tDate(2028, 2, 1), tDate(2028, 2, 29)}, tDate(2028, 2, 1), tDate(2028, 3, 1)},
		{"single past day", Timeframe{tDate(2028, 2, 29), tDate(2028, 2, 29)}, tDate(2028, 2, 29), tDate(2028, 3, 1)},
		{"ending yesterday is not cut", Timeframe{tDate(2028, 3, 1), tDate(2028, 3, 9)}, tDate(2028, 3, 1), tDate(2028, 3, 10)},
		{"ending today is cut at now", Timeframe{tDate(2028, 3, 1), tDate(2028, 3, 10)}, tDate(2028, 3, 1), now},
		{"today only is cut at now", Timeframe{tDate(2028, 3, 10), tDate(2028, 3, 10)}, tDate(2028, 3, 10), now},
		{"ending in the future is cut at now", Timeframe{tDate(2028, 3, 1), tDate(2028, 4, 1)}, tDate(2028, 3, 1), now},
		{"starting after now is empty", Timeframe{tDate(2028, 3, 11), tDate(2028, 3, 12)}, tDate(2028, 3, 11), tDate(2028, 3, 11)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			from, to := tc.tf.Window(now)
			if !from.Equal(tc.from) || !to.Equal(tc.to) {
				t.Errorf("Window = [%s, %s), want [%s, %s)", from, to, tc.from, tc.to)
			}
		})
	}
}

func TestMetricsUptime(t *testing.T) {
	tests := []struct {
		name          string
		total, impact int64
		percent       float64
		words         string
	}{
		{"empty window is 100", 0, 0, 100, "100.00%"},
		{"no impact", 86400, 0, 100, "100.00%"},
		// 1/100000 = 0.001 % -> 99.999, truncated to 99.99 (never rounded up to 100.00).
		{"99.999 truncates to 99.99", 100000, 1, 99.999, "99.99%"},
		// 1/1000000 = 0.0001 % -> 99.9999 -> 99.99.
		{"99.9999 truncates to 99.99", 1000000, 1, 99.9999, "99.99%"},
		// 1/10000 = 0.01 % -> exactly 99.99.
		{"exactly 99.99", 10000, 1, 99.99, "99.99%"},
		// 1/200 = 0.5 % -> 99.5, two decimals.
		{"99.50 keeps two decimals", 200, 1, 99.5, "99.50%"},
		// 1/3 = 33.333 % -> 66.666 -> 66.66 (not 66.67).
		{"two thirds truncates", 3, 1, 100 - 100.0/3, "66.66%"},
		// 2/3 -> 33.333 -> 33.33.
		{"one third", 3, 2, 100 - 200.0/3, "33.33%"},
		// 5400/864000 = 0.625 % -> 99.375 -> 99.37.
		{"99.375 truncates to 99.37", 864000, 5400, 99.375, "99.37%"},
		{"all impact", 86400, 86400, 0, "0.00%"},
		// 1/2592000 uptime = 0.0000385 % -> 0.00.
		{"almost all impact", 2592000, 2591999, 100 - float64(2591999)/2592000*100, "0.00%"},
		{"half", 100, 50, 50, "50.00%"},
		// 1/16 = 6.25 % -> 93.75.
		{"93.75", 16, 1, 93.75, "93.75%"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := Metrics{TotalSeconds: tc.total, ImpactSeconds: tc.impact}
			if got := m.UptimePercent(); math.Abs(got-tc.percent) > 1e-9 {
				t.Errorf("UptimePercent() = %v, want %v", got, tc.percent)
			}
			if got := m.UptimeWords(); got != tc.words {
				t.Errorf("UptimeWords() = %q, want %q", got, tc.words)
			}
		})
	}
}

func TestMetricsMeans(t *testing.T) {
	tests := []struct {
		name                 string
		total, impact, count int64
		mttr, mtbf           int64
	}{
		{"count 0: MTTR 0, MTBF total", 864000, 0, 0, 0, 864000},
		{"count 0 with empty window", 0, 0, 0, 0, 0},
		{"one notice", 864000, 5400, 1, 5400, 858600},
		// 10/3 = 3.33 -> 3; (100-10)/3 = 30.
		{"MTTR rounds down", 100, 10, 3, 3, 30},
		// 0/4 = 0; 101/4 = 25.25 -> 25.
		{"MTBF rounds down", 101, 0, 4, 0, 25},
		// 11/2 = 5.5 -> 5; (100-11)/2 = 44.5 -> 44.
		{"both round down", 100, 11, 2, 5, 44},
		{"all impact", 3600, 3600, 2, 1800, 0},
		// A notice can count with less than a second of impact.
		{"count with zero impact seconds", 86400, 0, 1, 0, 86400},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := Metrics{TotalSeconds: tc.total, ImpactSeconds: tc.impact, Count: tc.count}
			if got := m.MTTRSeconds(); got != tc.mttr {
				t.Errorf("MTTRSeconds() = %d, want %d", got, tc.mttr)
			}
			if got := m.MTBFSeconds(); got != tc.mtbf {
				t.Errorf("MTBFSeconds() = %d, want %d", got, tc.mtbf)
			}
		})
	}
}

func TestDurationWords(t *testing.T) {
	tests := []struct {
		in   int64
		want string
	}{
		{0, "0 seconds"},
		{-5, "0 seconds"},
		{1, "1 second"},
		{2, "2 seconds"},
		{59, "59 seconds"},
		{60, "1 minute"},
		{61, "1 minute 1 second"},
		{120, "2 minutes"},
		{3600, "1 hour"},
		{3601, "1 hour 1 second"},
		{7500, "2 hours 5 minutes"},               // 2*3600 + 5*60
		{86400, "1 day"},                          //
		{86403, "1 day 3 seconds"},                // zero hours and minutes are left out
		{90061, "1 day 1 hour 1 minute 1 second"}, // 86400+3600+60+1
		{259200, "3 days"},                        // 3*86400
		{180122, "2 days 2 hours 2 minutes 2 seconds"},
		{2592000, "30 days"},
		{31622400, "366 days"},
		// 2^63-1 = 106751991167300*86400 + 55807, and 55807 = 15*3600 + 30*60 + 7
		{math.MaxInt64, "106751991167300 days 15 hours 30 minutes 7 seconds"},
	}
	for _, tc := range tests {
		if got := DurationWords(tc.in); got != tc.want {
			t.Errorf("DurationWords(%d) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
