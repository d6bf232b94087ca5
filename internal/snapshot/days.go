package snapshot

import (
	"time"

	"github.com/statusd/statusd"
)

// Day is one UTC day of a component's record, as the status page draws it.
type Day struct {
	// Date is midnight UTC of the day.
	Date time.Time
	// NoData is set on a day that ends before the component was created:
	// the page has no record of it, and Metrics and Incidents are left
	// zero.
	NoData bool
	// Metrics are exactly Snapshot.Metrics for the one-day timeframe
	// [Date, Date]: the uptime of the day is Metrics.UptimePercent and
	// Metrics.UptimeWords.
	Metrics statusd.Metrics
	// Incidents are the notices counted for the day, in list order (newest
	// first); there are exactly Metrics.Count of them.
	Incidents []*Notice
}

// Days returns the days of c from first to last, both midnights UTC and
// included, at now: one Day per date, oldest first. Days after today are
// left out, so the result is empty when first is after today. Every figure
// is the one the metrics of a one-day timeframe give, so the days agree with
// the metrics API; days wholly before c's created_at have none (NoData). It
// does not check that c has Metrics enabled.
func (s *Snapshot) Days(c *Component, first, last, now time.Time) []Day {
	first, last = statusd.Day(first), statusd.Day(last)
	if today := statusd.Day(now); last.After(today) {
		last = today
	}
	if last.Before(first) {
		return nil
	}
	ms := now.UnixMilli()
	// The notices that meet the whole range, found with one scan; each day
	// then only looks at these.
	var inRange []*Notice
	for _, slot := range c.counting {
		if n := s.slot(slot); n.meets(first.UnixMilli(), last.AddDate(0, 0, 1).UnixMilli(), ms) {
			inRange = append(inRange, n)
		}
	}
	var days []Day
	for d := first; !d.After(last); d = d.AddDate(0, 0, 1) {
		if !d.AddDate(0, 0, 1).After(c.CreatedAt) {
			days = append(days, Day{Date: d, NoData: true})
			continue
		}
		day := Day{Date: d, Metrics: s.Metrics(c, statusd.Timeframe{Start: d, End: d}, now)}
		from, to := d.UnixMilli(), d.AddDate(0, 0, 1).UnixMilli()
		for _, n := range inRange {
			if n.meets(from, to, ms) {
				day.Incidents = append(day.Incidents, n)
			}
		}
		days = append(days, day)
	}
	return days
}

// CountedNotices returns, in list order (newest first), the notices counted
// by c's metrics over tf at now: exactly those that the metrics response's
// calculation_data_in_timeframe.notices.href lists, whatever their number.
func (s *Snapshot) CountedNotices(c *Component, tf statusd.Timeframe, now time.Time) []*Notice {
	f := NoticeFilter{
		MetricsComponentID: &c.ID,
		// <end>T23:59:59 in the href counts to the end of its second.
		Overlaps: &Range{From: tf.Start, To: tf.End.Add(24*time.Hour - time.Millisecond)},
	}
	ms := now.UnixMilli()
	return s.notices(filter(c.counting, func(slot int32) bool { return f.match(s.slot(slot), ms) }))
}
