package server_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/internal/testserver"
)

func day(t time.Time) string { return statusd.Day(t).Format("2006-01-02") }

// TestMetricsPastTimeframe checks exact metrics over a timeframe that lies
// wholly in the past: from the day 45 days ago to the day 15 days ago, 31
// days = 2,678,400 s. For API (10, subtree 10, 11, 12) it holds incident 104
// (override: 600 s) and reopened incident 102 (1 h + 1 h = 7,200 s); 103 is a
// false alarm, 100 and 101 are too recent.
func TestMetricsPastTimeframe(t *testing.T) {
	srv, now := fixtureServer(t, "a", options{})
	start, end := day(now.AddDate(0, 0, -45)), day(now.AddDate(0, 0, -15))
	href := func(id int) string {
		return fmt.Sprintf("/api/v1/notices?filter%%5Bmetrics_component_id%%5D=%d&filter%%5Bimpact_timeframe_overlaps%%5D%%5B%%5D=%sT00:00:00&filter%%5Bimpact_timeframe_overlaps%%5D%%5B%%5D=%sT23:59:59", id, start, end)
	}
	url := func(id int) string {
		return fmt.Sprintf("https://status.acme.test/components/%d/metrics?timeframe_start=%s&timeframe_end=%s", id, start, end)
	}
	const total = 31 * 86400
	cases := []struct {
		id            int
		name          string
		impact, count int64
		words         string
		mttr, mtbf    string
		mttrS, mtbfS  int64
		noticeIDs     string
		impactWords   string
	}{
		// 100 - 7800/2678400*100 = 99.7087...; MTTR 7800/2 = 3900 s;
		// MTBF (2678400-7800)/2 = 1335300 s = 15 d 10 h 55 min.
		{10, "API", 7800, 2, "99.70%", "1 hour 5 minutes", "15 days 10 hours 55 minutes", 3900, 1335300, "[104 102]", "2 hours 10 minutes"},
		// Only 104: 600 s. MTBF 2677800 s = 30 d 23 h 50 min.
		{11, "API EU", 600, 1, "99.97%", "10 minutes", "30 days 23 hours 50 minutes", 600, 2677800, "[104]", "10 minutes"},
		// Only 102 (lists 30): 7200 s; 100 - 0.2688... = 99.731...
		{30, "Database", 7200, 1, "99.73%", "2 hours", "30 days 22 hours", 7200, 2671200, "[102]", "2 hours"},
	}
	for _, c := range cases {
		path := fmt.Sprintf("/api/v1/components/%d/metrics?timeframe_start=%s&timeframe_end=%s&show_calculations=true", c.id, start, end)
		r := srv.Get(path, 200)
		pct := 100 - (float64(c.impact)/float64(total))*100
		testserver.AssertJSON(t, path, r.JSON, testserver.Obj{
			"component":       testserver.Obj{"id": fmt.Sprint(c.id), "name": c.name},
			"timeframe_start": start, "timeframe_end": end,
			"percentage_uptime": testserver.Obj{"percent": pct, "words": c.words,
				"calculation": fmt.Sprintf("100 - ((%d / %d) * 100) = %v", c.impact, total, pct)},
			"mean_time_to_recovery": testserver.Obj{"seconds": c.mttrS, "words": c.mttr,
				"calculation": fmt.Sprintf("%d / %d = %d", c.impact, c.count, c.mttrS)},
			"mean_time_between_failures": testserver.Obj{"seconds": c.mtbfS, "words": c.mtbf,
				"calculation": fmt.Sprintf("(%d - %d) / %d = %d", total, c.impact, c.count, c.mtbfS)},
			"url": url(c.id),
			"calculation_data_in_timeframe": testserver.Obj{
				"total_time":        testserver.Obj{"seconds": total, "words": "31 days"},
				"total_impact_time": testserver.Obj{"seconds": c.impact, "words": c.impactWords},
				"notices":           testserver.Obj{"href": href(c.id), "count": c.count},
			},
		})
		// The href, followed on statusd, lists exactly the counted notices.
		nr := srv.Get(href(c.id), 200)
		if got := fmt.Sprint(ids(t, nr, "notices")); got != c.noticeIDs {
			t.Errorf("component %d: href lists %s, want %s", c.id, got, c.noticeIDs)
		}
		// Without show_calculations there are no calculations.
		plain := srv.Get(fmt.Sprintf("/api/v1/components/%d/metrics?timeframe_start=%s&timeframe_end=%s", c.id, start, end), 200)
		m := plain.JSON.(map[string]any)
		if _, ok := m["calculation_data_in_timeframe"]; ok {
			t.Errorf("component %d: calculation_data_in_timeframe without show_calculations", c.id)
		}
		for _, k := range []string{"percentage_uptime", "mean_time_to_recovery", "mean_time_between_failures"} {
			if _, ok := m[k].(map[string]any)["calculation"]; ok {
				t.Errorf("component %d: %s.calculation without show_calculations", c.id, k)
			}
		}
	}
}

// TestMetricsDefaultTimeframe checks the defaults (30 days ago to today, cut
// at now) with the still open incident 100 counting up to now.
func TestMetricsDefaultTimeframe(t *testing.T) {
	srv, now := fixtureServer(t, "a", options{})
	before := time.Now()
	r := srv.Get("/api/v1/components/11/metrics?show_calculations=1", 200)
	after := time.Now()
	today := statusd.Day(before)
	from := today.AddDate(0, 0, -30)
	if got := testserver.At(t, r.JSON, "timeframe_start"); got != from.Format("2006-01-02") {
		t.Errorf("timeframe_start %v", got)
	}
	if got := testserver.At(t, r.JSON, "timeframe_end"); got != today.Format("2006-01-02") {
		t.Errorf("timeframe_end %v", got)
	}
	// 104 (600 s) and 100 (from 2 h before the fixture's now up to now).
	if got := testserver.At(t, r.JSON, "calculation_data_in_timeframe.notices.count"); got != float64(2) {
		t.Errorf("count %v, want 2", got)
	}
	impact := int64(testserver.At(t, r.JSON, "calculation_data_in_timeframe.total_impact_time.seconds").(float64))
	if lo, hi := int64(600+7200+before.Sub(now).Seconds()), int64(600+7200+after.Sub(now).Seconds())+1; impact < lo || impact > hi {
		t.Errorf("impact %d s, want in [%d, %d]", impact, lo, hi)
	}
	total := int64(testserver.At(t, r.JSON, "calculation_data_in_timeframe.total_time.seconds").(float64))
	if lo, hi := int64(before.Sub(from).Seconds()), int64(after.Sub(from).Seconds())+1; total < lo || total > hi {
		t.Errorf("total %d s, want in [%d, %d]", total, lo, hi)
	}
	// metrics_summary on the component list covers the same timeframe.
	list := srv.Get("/api/v1/components?filter[parent_id_eq]=10", 200)
	summary := testserver.At(t, list.JSON, "components.1.metrics_summary")
	if testserver.At(t, summary, "timeframe_start") != from.Format("2006-01-02") || testserver.At(t, summary, "url") != "https://status.acme.test/components/11/metrics" {
		t.Errorf("metrics_summary %v", summary)
	}
	pct := testserver.At(t, summary, "percentage_uptime.percent").(float64)
	if want := 100 - float64(impact)/float64(total)*100; pct < want-0.001 || pct > want+0.001 {
		t.Errorf("summary uptime %v, want about %v", pct, want)
	}
}

// TestMetricsErrors checks every refusal of CONTRACT C4.
func TestMetricsErrors(t *testing.T) {
	srv, now := fixtureServer(t, "a", options{})
	today := statusd.Day(now)
	earliest := statusd.EarliestStart(now)
	cases := []struct{ query, names string }{
		{"timeframe_start=2026-13-01", "timeframe_start"},
		{"timeframe_start=yesterday", "timeframe_start"},
		{"timeframe_start=2026-1-1", "timeframe_start"},
		{"timeframe_end=2026-02-30", "timeframe_end"},
		{"timeframe_start=" + today.AddDate(0, 0, -3).Format("2006-01-02") + "&timeframe_end=" + today.AddDate(0, 0, -4).Format("2006-01-02"), "timeframe_start"},
		{"timeframe_start=" + today.AddDate(0, 0, 1).Format("2006-01-02") + "&timeframe_end=" + today.AddDate(0, 0, 5).Format("2006-01-02"), "timeframe_start"},
		{"timeframe_start=" + earliest.AddDate(0, 0, -1).Format("2006-01-02"), "timeframe_start"},
		{"show_calculations=maybe", "show_calculations"},
	}
	for _, c := range cases {
		path := "/api/v1/components/10/metrics?" + c.query
		r := srv.Do(http.MethodGet, path)
		testserver.AssertErrorBody(t, path, r, 400, "invalid_parameter")
		if msg, _ := testserver.At(t, r.JSON, "error.message").(string); !strings.Contains(msg, c.names) {
			t.Errorf("%s: message %q does not name %s", path, msg, c.names)
		}
	}
	// The earliest start is allowed; an end in the future is echoed.
	future := today.AddDate(0, 0, 10).Format("2006-01-02")
	path := "/api/v1/components/10/metrics?timeframe_start=" + earliest.Format("2006-01-02") + "&timeframe_end=" + future
	r := srv.Get(path, 200)
	if got := testserver.At(t, r.JSON, "timeframe_end"); got != future {
		t.Errorf("timeframe_end %v, want %s echoed", got, future)
	}
	if got := testserver.At(t, r.JSON, "url").(string); !strings.HasSuffix(got, "&timeframe_end="+future) {
		t.Errorf("url %v", got)
	}
	testserver.AssertErrorBody(t, "unknown component", srv.Do(http.MethodGet, "/api/v1/components/4242/metrics"), 404, "not_found")
	testserver.AssertErrorBody(t, "metrics off", srv.Do(http.MethodGet, "/api/v1/components/12/metrics"), 404, "metrics_disabled")
}

// TestImpactOverlapFilter checks filter[impact_timeframe_overlaps][] alone:
// unplanned notices whose impact [s, e) meets the closed range [A, B].
func TestImpactOverlapFilter(t *testing.T) {
	srv, now := fixtureServer(t, "a", options{})
	f := func(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05") }
	q := func(a, b string) string {
		return "/api/v1/notices?filter[impact_timeframe_overlaps][]=" + a + "&filter[impact_timeframe_overlaps][]=" + b
	}
	d40 := now.AddDate(0, 0, -40)
	cases := []struct {
		path string
		want string
	}{
		// 101's impact is [N-3d, N-3d+30m): A at its end does not meet it
		// (e > A fails), B at its start does (s <= B).
		{q(f(now.AddDate(0, 0, -3).Add(30*time.Minute)), f(now.AddDate(0, 0, -3).Add(40*time.Minute))), "[]"},
		{q(f(now.AddDate(0, 0, -4)), f(now.AddDate(0, 0, -3))), "[101]"},
		{q(f(now.AddDate(0, 0, -4)), f(now.AddDate(0, 0, -3).Add(-time.Second))), "[]"},
		// Inside 102's gap between its two impacts [1h, 2h): no match.
		{q(f(d40.Add(70*time.Minute)), f(d40.Add(110*time.Minute))), "[]"},
		{q(f(d40.Add(70*time.Minute)), f(d40.Add(2*time.Hour))), "[102]"},
		// The open incident 100 counts up to now; false alarm 103 never.
		{q(f(now.AddDate(0, 0, -11)), f(now.Add(time.Hour))), "[100 105 101]"},
		// Milliseconds and a Z are accepted.
		{q(f(now.AddDate(0, 0, -4))+".000Z", f(now.AddDate(0, 0, -3))+".000Z"), "[101]"},
		{q(f(now.AddDate(0, 0, -4))+"Z", f(now.AddDate(0, 0, -3).Add(-time.Second))+".999"), "[]"},
	}
	for _, c := range cases {
		if got := fmt.Sprint(ids(t, srv.Get(c.path, 200), "notices")); got != c.want {
			t.Errorf("%s: %s, want %s", c.path, got, c.want)
		}
	}
}

// TestMetricsFilterSkipsNoImpact checks CONTRACT C4's "0 means no impact":
// a notice whose impact_seconds is 0, like one that was never current, never
// counts, so filter[metrics_component_id] alone does not list it, and the
// metrics' notices.count and href agree.
func TestMetricsFilterSkipsNoImpact(t *testing.T) {
	now := time.Now().UTC().Truncate(time.Second)
	doc := testserver.Fixture(now)
	d5 := now.AddDate(0, 0, -5)
	zero := statusd.Notice{ID: 106, Type: statusd.Unplanned, Subject: "No impact", ComponentIDs: []int64{11}, TagList: []string{},
		ImpactSeconds: testserver.Ptr(int64(0)), CreatedAt: d5, UpdatedAt: d5.Add(time.Hour),
		Updates: []statusd.Update{testserver.Upd(statusd.Investigating, d5, "Looking."), testserver.Upd(statusd.Resolved, d5.Add(time.Hour), "Fine.")}}
	never := statusd.Notice{ID: 107, Type: statusd.Unplanned, Subject: "Already fixed", ComponentIDs: []int64{12}, TagList: []string{},
		CreatedAt: d5.Add(2 * time.Hour), UpdatedAt: d5.Add(2 * time.Hour),
		Updates: []statusd.Update{testserver.Upd(statusd.Resolved, d5.Add(2*time.Hour), "Fixed before we told you.")}}
	doc.Notices = append(doc.Notices, zero, never)
	srv := startServer(t, doc, options{variant: statusd.VariantA})
	// By hand, as TestNoticeFilters has them: 106 and 107 add nothing.
	for id, want := range map[int]string{10: "[100 104 102]", 11: "[100 104]", 12: "[]"} {
		path := fmt.Sprintf("/api/v1/notices?filter[metrics_component_id]=%d", id)
		if got := fmt.Sprint(ids(t, srv.Get(path, 200), "notices")); got != want {
			t.Errorf("%s: %s, want %s", path, got, want)
		}
	}
	// The default timeframe holds 100 and 104 for 11 (106 is 5 days old).
	r := srv.Get("/api/v1/components/11/metrics?show_calculations=true", 200)
	if got := testserver.At(t, r.JSON, "calculation_data_in_timeframe.notices.count"); got != float64(2) {
		t.Errorf("notices.count %v, want 2", got)
	}
	href := testserver.At(t, r.JSON, "calculation_data_in_timeframe.notices.href").(string)
	if got := fmt.Sprint(ids(t, srv.Get(href, 200), "notices")); got != "[100 104]" {
		t.Errorf("%s lists %s, want [100 104]", href, got)
	}
	// The notice itself still shows its impact of 0.
	if got := testserver.At(t, srv.Get("/api/v1/notices/106", 200).JSON, "notice.impact_time"); fmt.Sprint(got) != fmt.Sprint(map[string]any{"seconds": 0.0, "words": "0 seconds"}) {
		t.Errorf("impact_time of 106: %v", got)
	}
}
