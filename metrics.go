package statusd

import (
	"fmt"
	"strconv"
	"time"
)

// DateLayout is the layout of dates on the wire (yyyy-mm-dd).
const DateLayout = "2006-01-02"

// DefaultMetricsDays is how far back the default metrics timeframe starts.
const DefaultMetricsDays = 30

// Timeframe is a metrics timeframe of whole UTC days, both ends included.
type Timeframe struct {
	Start, End time.Time // midnight UTC of the first and of the last day
}

// Day returns midnight UTC of t's day.
func Day(t time.Time) time.Time {
	y, m, d := t.UTC().Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

// DefaultTimeframe is today − 30 days to today (CONTRACT C4).
func DefaultTimeframe(now time.Time) Timeframe {
	today := Day(now)
	return Timeframe{Start: today.AddDate(0, 0, -DefaultMetricsDays), End: today}
}

// EarliestStart returns the earliest allowed timeframe start: the same day 12
// calendar months before today, or the month's last day when that day does
// not exist (29 February gives 28 February).
func EarliestStart(now time.Time) time.Time {
	y, m, d := Day(now).Date()
	last := time.Date(y-1, m+1, 0, 0, 0, 0, 0, time.UTC).Day()
	return time.Date(y-1, m, min(d, last), 0, 0, 0, 0, time.UTC)
}

// ParseTimeframe validates the timeframe_start and timeframe_end parameters
// (empty means the default) against CONTRACT C4. Errors are *Error with code
// EInvalidParameter naming the parameter.
func ParseTimeframe(start, end string, now time.Time) (Timeframe, error) {
	tf := DefaultTimeframe(now)
	parse := func(name, v string, dst *time.Time) error {
		if v == "" {
			return nil
		}
		t, err := time.Parse(DateLayout, v)
		if err != nil {
			return Errorf(EInvalidParameter, "%s: %q is not a date (yyyy-mm-dd)", name, v)
		}
		*dst = t
		return nil
	}
	if err := parse("timeframe_start", start, &tf.Start); err != nil {
		return tf, err
	}
	if err := parse("timeframe_end", end, &tf.End); err != nil {
		return tf, err
	}
	today := Day(now)
	switch {
	case tf.Start.After(today):
		return tf, Errorf(EInvalidParameter, "timeframe_start: %s is after today (%s)", tf.Start.Format(DateLayout), today.Format(DateLayout))
	case tf.Start.After(tf.End):
		return tf, Errorf(EInvalidParameter, "timeframe_start: %s is after timeframe_end %s", tf.Start.Format(DateLayout), tf.End.Format(DateLayout))
	case tf.Start.Before(EarliestStart(now)):
		return tf, Errorf(EInvalidParameter, "timeframe_start: %s is more than 12 months in the past (earliest %s)", tf.Start.Format(DateLayout), EarliestStart(now).Format(DateLayout))
	}
	return tf, nil
}

// Window returns the timeframe as the half-open range [start 00:00:00Z,
// end + 1 day 00:00:00Z), cut at now.
func (tf Timeframe) Window(now time.Time) (from, to time.Time) {
	to = tf.End.AddDate(0, 0, 1)
	if now.Before(to) {
		to = now
	}
	if to.Before(tf.Start) {
		to = tf.Start
	}
	return tf.Start, to
}

// Metrics are the figures of SPEC §4.3 for one component and timeframe.
type Metrics struct {
	Timeframe     Timeframe
	TotalSeconds  int64 // length of the window, rounded down
	ImpactSeconds int64 // length of the union of impacts in the window, rounded down
	Count         int64 // notices counted
}

// UptimePercent is 100 - ((total_impact_time / total_time) * 100); 100 when
// the window is empty.
func (m Metrics) UptimePercent() float64 {
	if m.TotalSeconds == 0 {
		return 100
	}
	return 100 - (float64(m.ImpactSeconds)/float64(m.TotalSeconds))*100
}

// UptimeWords is the uptime truncated (never rounded up) to two decimals,
// with a percent sign, computed in integers so that 99.999 gives "99.99%".
func (m Metrics) UptimeWords() string {
	hundredths := int64(10000)
	if m.TotalSeconds > 0 {
		hundredths = (m.TotalSeconds - m.ImpactSeconds) * 10000 / m.TotalSeconds
	}
	return fmt.Sprintf("%d.%02d%%", hundredths/100, hundredths%100)
}

// MTTRSeconds is total_impact_time / notices.count, rounded down; 0 when
// nothing was counted.
func (m Metrics) MTTRSeconds() int64 {
	if m.Count == 0 {
		return 0
	}
	return m.ImpactSeconds / m.Count
}

// MTBFSeconds is (total_time - total_impact_time) / notices.count, rounded
// down; total_time when nothing was counted.
func (m Metrics) MTBFSeconds() int64 {
	if m.Count == 0 {
		return m.TotalSeconds
	}
	return (m.TotalSeconds - m.ImpactSeconds) / m.Count
}

// DurationWords spells whole seconds in plain English: "2 hours 5 minutes",
// "1 day 3 seconds", "0 seconds".
func DurationWords(seconds int64) string {
	if seconds <= 0 {
		return "0 seconds"
	}
	var room [64]byte // the longest is 51 bytes: "106751991167299 days 23 hours 59 minutes 59 seconds"
	b := room[:0]
	for _, u := range durationUnits {
		if n := seconds / u.size; n > 0 {
			seconds -= n * u.size
			if len(b) > 0 {
				b = append(b, ' ')
			}
			b = strconv.AppendInt(b, n, 10)
			b = append(b, ' ')
			b = append(b, u.name...)
			if n != 1 {
				b = append(b, 's')
			}
		}
	}
	return string(b)
}

// durationUnits are the units of DurationWords, largest first.
var durationUnits = [...]struct {
	name string
	size int64
}{{"day", 86400}, {"hour", 3600}, {"minute", 60}, {"second", 1}}
