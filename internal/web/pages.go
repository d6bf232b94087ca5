package web

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/internal/htmlkit"
	"github.com/statusd/statusd/internal/snapshot"
)

// BarDays is how many days of uptime bars the status page shows for a
// component with Metrics.
const BarDays = 90

// ChildBarsUpTo is the largest page (in components) on which components
// below the top level get uptime bars too. A larger tree shows bars for its
// top-level components only, each of the others linking to its own metrics
// page: 1,000 rows of 90 bars made a 14.5 MB page.
const ChildBarsUpTo = 100

// RecentDays is how many days the status page lists notices for.
const RecentDays = 7

// MonthsPerPage is how many months a page of the archive holds.
const MonthsPerPage = 3

// FeedSize is how many notices the feeds carry, most recently updated first.
const FeedSize = 50

// indexView is the status page.
type indexView struct {
	base
	State         statusd.PageState
	StateText     string
	Components    []*treeNode
	Incidents     []noticeView // open incidents (present unplanned)
	Underway      []noticeView // maintenance in progress
	Upcoming      []noticeView // scheduled maintenance, soonest first
	Announcements []noticeView // present general notices
	Recent        []dayNotices // the last RecentDays days, today first
	Bars          bool         // some component has uptime bars: the legend is shown
}

// treeNode is a component in the tree of the status page.
type treeNode struct {
	ID          int64
	Name        string
	Description string
	State       statusd.PageState
	Bars        *barsView
	MetricsHref string
	Children    []*treeNode
}

// dayNotices are the notices filed under one day.
type dayNotices struct {
	Date    time.Time
	Notices []noticeView
}

// Index renders the status page, /.
func (s *Server) Index(w http.ResponseWriter, r *http.Request, snap *snapshot.Snapshot, now time.Time) error {
	v := indexView{
		base:      s.base(snap, now, "status"),
		State:     snap.PageState,
		StateText: snap.Page().StateText,
	}
	views := func(list []*snapshot.Notice) []noticeView {
		out := make([]noticeView, 0, len(list))
		for _, n := range list {
			out = append(out, s.view(snap, n, now, false))
		}
		return out
	}
	v.Incidents = views(snap.Find(statusd.Unplanned, statusd.Present, now))
	v.Underway = views(snap.Find(statusd.Planned, statusd.Present, now))
	v.Announcements = views(snap.Find(statusd.General, statusd.Present, now))
	upcoming := snap.Find(statusd.Planned, statusd.Future, now)
	slices.SortStableFunc(upcoming, func(a, b *snapshot.Notice) int { return noticeDate(a).Compare(noticeDate(b)) })
	v.Upcoming = views(upcoming)

	today := statusd.Day(now)
	childBars := len(snap.AllComponents) <= ChildBarsUpTo
	for _, c := range htmlkit.Roots(snap) {
		t := s.tree(snap, c, today, now, true, childBars)
		v.Components = append(v.Components, t)
		v.Bars = v.Bars || t.hasBars()
	}

	derived := s.derive(snap)
	first := today.AddDate(0, 0, -(RecentDays - 1))
	for d := today; !d.Before(first); d = d.AddDate(0, 0, -1) {
		v.Recent = append(v.Recent, dayNotices{Date: d})
	}
	for _, at := range derived.archive {
		n := derived.notice(at)
		date := statusd.Day(noticeDate(n))
		if date.Before(first) {
			break
		}
		if date.After(today) {
			continue
		}
		i := int(today.Sub(date).Hours() / 24)
		v.Recent[i].Notices = append(v.Recent[i].Notices, s.view(snap, n, now, false))
	}
	v.Title = v.StateText
	s.render(w, http.StatusOK, "index", v)
	return nil
}

// tree is the view of c and its subtree; c gets bars when withBars says so
// and has Metrics, its descendants when childBars does.
func (s *Server) tree(snap *snapshot.Snapshot, c *snapshot.Component, today, now time.Time, withBars, childBars bool) *treeNode {
	t := &treeNode{ID: c.ID, Name: c.Name, Description: c.Description, State: c.State}
	if s.variant.HasMetrics() && c.MetricsEnabled {
		t.MetricsHref = "/components/" + strconv.FormatInt(c.ID, 10) + "/metrics"
		if withBars {
			first := today.AddDate(0, 0, -(BarDays - 1))
			t.Bars = bars(snap, c, statusd.Timeframe{Start: first, End: today}, now,
				fmt.Sprintf("Uptime of %s, day by day, over the last %d days", c.Name, BarDays))
		}
	}
	for _, child := range c.Children {
		t.Children = append(t.Children, s.tree(snap, child, today, now, childBars, childBars))
	}
	return t
}

// hasBars reports whether t or a descendant has uptime bars.
func (t *treeNode) hasBars() bool {
	return t.Bars != nil || slices.ContainsFunc(t.Children, (*treeNode).hasBars)
}

// barsView is a row of daily uptime bars, drawn as inline SVG.
type barsView struct {
	Label     string // what the row shows, for assistive technology
	Width     int    // of the viewBox
	Bars      []barView
	From, To  time.Time
	Uptime    string // over the whole row, as the metrics API words it
	Incidents int    // days with at least one incident
}

// barView is one day.
type barView struct {
	X         int
	Class     string // ok, minor (uptime 99% or more), major, or nodata (before the component was created)
	NoData    bool
	Label     string // the whole day in one sentence
	Date      time.Time
	Uptime    string
	Down      string   // downtime in words, "" for none
	Incidents string   // the incidents' subjects, one a line
	Subjects  []string // the same, as a list
	Count     int
}

const (
	barWidth = 3
	barStep  = 5
)

// bars draws c's days of tf (up to today) at now.
func bars(snap *snapshot.Snapshot, c *snapshot.Component, tf statusd.Timeframe, now time.Time, label string) *barsView {
	days := snap.Days(c, tf.Start, tf.End, now)
	b := &barsView{Label: label, From: tf.Start, To: tf.End}
	b.Uptime = snap.Metrics(c, tf, now).UptimeWords()
	for i, d := range days {
		if d.NoData {
			b.Bars = append(b.Bars, barView{X: i * barStep, Date: d.Date, Class: "nodata", NoData: true,
				Label: d.Date.Format("2 Jan 2006") + ": no data, before " + c.Name + " was added"})
			continue
		}
		m := d.Metrics
		bar := barView{X: i * barStep, Date: d.Date, Uptime: m.UptimeWords(), Count: len(d.Incidents), Class: "ok"}
		switch {
		case m.ImpactSeconds == 0:
		case m.UptimePercent() >= 99:
			bar.Class = "minor"
		default:
			bar.Class = "major"
		}
		if m.ImpactSeconds > 0 {
			bar.Down = statusd.DurationWords(m.ImpactSeconds)
		}
		var subjects []string
		for _, n := range d.Incidents {
			subjects = append(subjects, n.Subject())
		}
		bar.Incidents, bar.Subjects = joinLines(subjects), subjects
		sentence := d.Date.Format("2 Jan 2006") + ": " + bar.Uptime + " uptime"
		if bar.Down != "" {
			sentence += ", down " + bar.Down
		}
		if len(subjects) == 0 {
			sentence += ", no incidents"
		} else {
			sentence += "; incidents: " + strings.Join(subjects, ", ")
			b.Incidents++
		}
		bar.Label = sentence
		b.Bars = append(b.Bars, bar)
	}
	if len(days) > 0 {
		b.To = days[len(days)-1].Date
		b.Width = (len(days)-1)*barStep + barWidth
	}
	return b
}

// noticePage is the page of one notice.
type noticePage struct {
	base
	Notice noticeView
}

// Notice renders the page of one notice, /notices/{id}.
func (s *Server) Notice(w http.ResponseWriter, r *http.Request, snap *snapshot.Snapshot, now time.Time) error {
	id, err := statusd.ParseID("notice", r.PathValue("id"))
	n := snap.Notice(id)
	if err != nil || n == nil {
		return statusd.Errorf(statusd.ENotFound, "There is no notice %s.", r.PathValue("id"))
	}
	v := noticePage{base: s.base(snap, now, "history"), Notice: s.view(snap, n, now, true)}
	v.Title = n.Subject()
	s.render(w, http.StatusOK, "notice", v)
	return nil
}

// historyView is one page of the archive.
type historyView struct {
	base
	Months     []monthNotices
	Page, Last int
	Newer      string // link to the newer page, "" on the first
	Older      string // link to the older page, "" on the last
}

type monthNotices struct {
	Month   time.Time // the first day of the month, UTC
	Notices []noticeView
}

// History renders the archive of notices, a page of months at a time.
func (s *Server) History(w http.ResponseWriter, r *http.Request, snap *snapshot.Snapshot, now time.Time) error {
	page := 1
	if v := r.URL.Query().Get("page"); v != "" {
		p, err := strconv.Atoi(v)
		if err != nil || p < 1 {
			return statusd.Errorf(statusd.EInvalidParameter, "page: %q is not a page number (an integer from 1).", v)
		}
		page = p
	}
	derived := s.derive(snap)
	archive := derived.archive
	month := func(t time.Time) time.Time {
		y, m, _ := t.UTC().Date()
		return time.Date(y, m, 1, 0, 0, 0, 0, time.UTC)
	}
	top, bottom := month(now), month(now)
	if len(archive) > 0 {
		if m := month(noticeDate(derived.notice(archive[0]))); m.After(top) {
			top = m
		}
		bottom = month(noticeDate(derived.notice(archive[len(archive)-1])))
	}
	months := 0
	for m := top; !m.Before(bottom); m = m.AddDate(0, -1, 0) {
		months++
	}
	last := (months + MonthsPerPage - 1) / MonthsPerPage
	if page > last {
		return statusd.Errorf(statusd.ENotFound, "The archive has %d pages; there is no page %d.", last, page)
	}
	v := historyView{base: s.base(snap, now, "history"), Page: page, Last: last}
	first := top.AddDate(0, -(page-1)*MonthsPerPage, 0)
	for i := 0; i < MonthsPerPage; i++ {
		m := first.AddDate(0, -i, 0)
		if m.Before(bottom) {
			break
		}
		v.Months = append(v.Months, monthNotices{Month: m})
	}
	// The archive is sorted by date descending: find the page's first
	// notice with a binary search, then walk.
	end := first.AddDate(0, 1, 0)
	i, _ := slices.BinarySearchFunc(archive, end, func(at int32, t time.Time) int {
		if noticeDate(derived.notice(at)).Before(t) {
			return 1
		}
		return -1 // notices on or after end come first
	})
	for ; i < len(archive); i++ {
		n := derived.notice(archive[i])
		k := int(monthsBetween(month(noticeDate(n)), first))
		if k >= len(v.Months) {
			break
		}
		v.Months[k].Notices = append(v.Months[k].Notices, s.view(snap, n, now, false))
	}
	if page > 1 {
		v.Newer = "/history"
		if page > 2 {
			v.Newer += "?page=" + strconv.Itoa(page-1)
		}
	}
	if page < last {
		v.Older = "/history?page=" + strconv.Itoa(page+1)
	}
	v.Title = "History"
	if page > 1 {
		v.Title += fmt.Sprintf(", page %d of %d", page, last)
	}
	s.render(w, http.StatusOK, "history", v)
	return nil
}

// monthsBetween is how many months a is before b (both first days).
func monthsBetween(a, b time.Time) int {
	return (b.Year()-a.Year())*12 + int(b.Month()-a.Month())
}

// metricsView is the metrics page of a component.
type metricsView struct {
	base
	Component   componentRef
	Description string
	Start, End  time.Time
	Uptime      string
	MTTR, MTBF  string
	TotalTime   string
	Downtime    string
	Count       int
	Bars        *barsView
	BadDays     []barView // the days with downtime or incidents, newest first
	Notices     []noticeView
	NoticesHref string // the API's list of the counted notices
	APIHref     string // the same figures from the API
	Ranges      []rangeLink
	Min, Max    string // the date inputs' bounds
}

type rangeLink struct {
	Label, Href string
	Current     bool
}

// Metrics renders the metrics page of a component (Variant A).
func (s *Server) Metrics(w http.ResponseWriter, r *http.Request, snap *snapshot.Snapshot, now time.Time) error {
	if !s.variant.HasMetrics() {
		return statusd.Errorf(statusd.ENotFound, "This status page does not publish component metrics.")
	}
	id, err := statusd.ParseID("component", r.PathValue("id"))
	c := snap.Component(id)
	if err != nil || c == nil {
		return statusd.Errorf(statusd.ENotFound, "There is no component %s.", r.PathValue("id"))
	}
	if !c.MetricsEnabled {
		return statusd.Errorf(statusd.ENotFound, "%s does not publish metrics.", c.Name)
	}
	q := r.URL.Query()
	tf, err := statusd.ParseTimeframe(q.Get("timeframe_start"), q.Get("timeframe_end"), now)
	if err != nil {
		return err
	}
	resp := snap.MetricsResponse(c, tf, now, true)
	v := metricsView{
		base:        s.base(snap, now, "status"),
		Component:   s.ref(c),
		Description: c.Description,
		Start:       tf.Start,
		End:         tf.End,
		Uptime:      resp.PercentageUptime.Words,
		MTTR:        resp.MeanTimeToRecovery.Words,
		MTBF:        resp.MeanTimeBetweenFailures.Words,
		TotalTime:   resp.CalculationData.TotalTime.Words,
		Downtime:    resp.CalculationData.TotalImpactTime.Words,
		Count:       resp.CalculationData.Notices.Count,
		NoticesHref: resp.CalculationData.Notices.Href,
		Min:         statusd.EarliestStart(now).Format(statusd.DateLayout),
		Max:         statusd.Day(now).Format(statusd.DateLayout),
	}
	start, end := tf.Start.Format(statusd.DateLayout), tf.End.Format(statusd.DateLayout)
	path := "/components/" + strconv.FormatInt(c.ID, 10) + "/metrics"
	query := "?timeframe_start=" + start + "&timeframe_end=" + end
	v.APIHref = "/api/v1" + path + query
	v.Bars = bars(snap, c, tf, now, fmt.Sprintf("Uptime of %s, day by day, from %s to %s", c.Name,
		tf.Start.Format("2 Jan 2006"), tf.End.Format("2 Jan 2006")))
	for i := len(v.Bars.Bars) - 1; i >= 0; i-- {
		if b := v.Bars.Bars[i]; b.Down != "" || b.Count > 0 {
			v.BadDays = append(v.BadDays, b)
		}
	}
	for _, n := range snap.CountedNotices(c, tf, now) {
		v.Notices = append(v.Notices, s.view(snap, n, now, false))
	}
	today := statusd.Day(now)
	for _, rg := range []struct {
		label string
		start time.Time
	}{
		{"Past 7 days", today.AddDate(0, 0, -7)},
		{"Past 30 days", today.AddDate(0, 0, -statusd.DefaultMetricsDays)},
		{"Past 90 days", today.AddDate(0, 0, -90)},
		{"Past 12 months", statusd.EarliestStart(now)},
	} {
		v.Ranges = append(v.Ranges, rangeLink{
			Label:   rg.label,
			Href:    path + "?" + url.Values{"timeframe_start": {rg.start.Format(statusd.DateLayout)}, "timeframe_end": {v.Max}}.Encode(),
			Current: rg.start.Equal(tf.Start) && today.Equal(tf.End),
		})
	}
	v.Title = c.Name + " metrics"
	s.render(w, http.StatusOK, "metrics", v)
	return nil
}
