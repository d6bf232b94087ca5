package snapshot

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/statusd/statusd"
)

// mNow is the fixed "now" of the metrics tests: 2028-03-10 12:00:00 UTC.
var mNow = time.Date(2028, 3, 10, 12, 0, 0, 0, time.UTC)

func mTime(s string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		panic(err)
	}
	return t
}

func mI64(v int64) *int64 { return &v }

// mUp is an update in state st at the RFC 3339 time s.
type mUp struct {
	st statusd.State
	at string
}

func mNotice(id int64, typ statusd.NoticeType, comps []int64, ups ...mUp) statusd.Notice {
	n := statusd.Notice{ID: id, Type: typ, Subject: fmt.Sprintf("notice %d", id), ComponentIDs: comps}
	for i, u := range ups {
		t := mTime(u.at)
		n.Updates = append(n.Updates, statusd.Update{ID: id*100 + int64(i), State: u.st, Content: string(u.st), CreatedAt: t, UpdatedAt: t})
	}
	n.CreatedAt, n.UpdatedAt = n.Updates[0].CreatedAt, n.Updates[len(n.Updates)-1].CreatedAt
	return n
}

// mInc is an unplanned notice on comps with the given updates.
func mInc(id int64, comps []int64, ups ...mUp) statusd.Notice {
	return mNotice(id, statusd.Unplanned, comps, ups...)
}

// mSimple is an unplanned notice investigating from start and resolved at end.
func mSimple(id int64, comps []int64, start, end string) statusd.Notice {
	return mInc(id, comps, mUp{statusd.Investigating, start}, mUp{statusd.Resolved, end})
}

func mOverride(n statusd.Notice, secs int64) statusd.Notice {
	n.ImpactSeconds = mI64(secs)
	return n
}

func mPid(id int64) *int64 { return &id }

// mDoc is a page with the component tree
//
//	1 Platform
//	├─ 2 API
//	│  └─ 5 API-EU
//	└─ 3 Web
//	4 Standalone
//
// all with Metrics enabled, and the given notices.
func mDoc(ns ...statusd.Notice) *statusd.Document {
	created := mTime("2026-01-01T00:00:00Z")
	comp := func(id int64, parent *int64, pos int, name string) statusd.Component {
		return statusd.Component{ID: id, ParentID: parent, Position: pos, Name: name, MetricsEnabled: true, CreatedAt: created, UpdatedAt: created}
	}
	return &statusd.Document{
		Page: statusd.Page{Name: "Acme Status", URL: "https://status.acme.test", CreatedAt: created, UpdatedAt: created},
		Components: []statusd.Component{
			comp(1, nil, 1, "Platform"),
			comp(2, mPid(1), 2, "API"),
			comp(5, mPid(2), 3, "API-EU"),
			comp(3, mPid(1), 4, "Web"),
			comp(4, nil, 5, "Standalone"),
		},
		Notices: ns,
	}
}

func mComps(ids ...int64) []int64 { return ids }

func TestMetricsByHand(t *testing.T) {
	const (
		inv = statusd.Investigating
		idf = statusd.Identified
		rec = statusd.Recovering
		res = statusd.Resolved
		fa  = statusd.FalseAlarm
	)
	// The timeframe used most: 2028-02-01..2028-02-10, entirely in the past.
	// Window [2028-02-01T00:00, 2028-02-11T00:00) = 10 days = 864000 s.
	const a1, a2 = "2028-02-01", "2028-02-10"
	hrefA := func(id int) string {
		return fmt.Sprintf("/api/v1/notices?filter%%5Bmetrics_component_id%%5D=%d"+
			"&filter%%5Bimpact_timeframe_overlaps%%5D%%5B%%5D=2028-02-01T00:00:00"+
			"&filter%%5Bimpact_timeframe_overlaps%%5D%%5B%%5D=2028-02-10T23:59:59", id)
	}

	twoChildren := []statusd.Notice{
		mSimple(20, mComps(2), "2028-02-03T00:00:00Z", "2028-02-03T02:00:00Z"), // 7200 s on API
		mSimple(21, mComps(3), "2028-02-03T01:00:00Z", "2028-02-03T04:00:00Z"), // 10800 s on Web
	}
	grandchild := []statusd.Notice{
		mSimple(30, mComps(5), "2028-02-04T00:00:00Z", "2028-02-04T01:00:00Z"), // 3600 s on API-EU
	}

	tests := []struct {
		name       string
		notices    []statusd.Notice
		comp       int64
		start, end string // "" for the default
		total      int64
		impact     int64
		count      int64
		words      string
		mttr, mtbf int64
		href       string
		ids        []int64 // the notices counted, newest first
	}{
		{
			// total 864000; nothing counted: uptime 100, MTTR 0, MTBF = total.
			name: "no notices", comp: 2, start: a1, end: a2,
			total: 864000, impact: 0, count: 0, words: "100.00%", mttr: 0, mtbf: 864000, href: hrefA(2),
		},
		{
			// 10:00-11:30 = 5400 s. 5400/864000 = 0.625 % -> 99.375 -> "99.37%".
			// MTTR 5400/1; MTBF (864000-5400)/1 = 858600.
			name:    "one notice inside the timeframe",
			notices: []statusd.Notice{mSimple(10, mComps(2), "2028-02-05T10:00:00Z", "2028-02-05T11:30:00Z")},
			comp:    2, start: a1, end: a2,
			total: 864000, impact: 5400, count: 1, words: "99.37%", mttr: 5400, mtbf: 858600, href: hrefA(2), ids: []int64{10},
		},
		{
			// 10:00-12:00 and 11:00-13:00: union 10:00-13:00 = 10800 s (not 14400).
			// 10800/864000 = 1.25 % -> "98.75%". MTTR 10800/2 = 5400;
			// MTBF (864000-10800)/2 = 853200/2 = 426600.
			name: "two overlapping notices on one component",
			notices: []statusd.Notice{
				mSimple(10, mComps(2), "2028-02-05T10:00:00Z", "2028-02-05T12:00:00Z"),
				mSimple(11, mComps(2), "2028-02-05T11:00:00Z", "2028-02-05T13:00:00Z"),
			},
			comp: 2, start: a1, end: a2,
			total: 864000, impact: 10800, count: 2, words: "98.75%", mttr: 5400, mtbf: 426600, href: hrefA(2), ids: []int64{11, 10},
		},
		{
			// 10:00:00.000-10:00:01.500 and 11:00:00.000-11:00:01.700: union
			// 3.2 s -> 3 s (rounded on the union, not 1+1). 3/864000 ->
			// 99.99965 -> "99.99%". MTTR 3/2 = 1; MTBF 863997/2 = 431998.
			name: "sub-second impacts are summed before rounding",
			notices: []statusd.Notice{
				mSimple(10, mComps(2), "2028-02-05T10:00:00Z", "2028-02-05T10:00:01.500Z"),
				mSimple(11, mComps(2), "2028-02-05T11:00:00Z", "2028-02-05T11:00:01.700Z"),
			},
			comp: 2, start: a1, end: a2,
			total: 864000, impact: 3, count: 2, words: "99.99%", mttr: 1, mtbf: 431998, href: hrefA(2), ids: []int64{11, 10},
		},
		{
			// API 00:00-02:00 and Web 01:00-04:00 on 3 February: the parent
			// sees the union 00:00-04:00 = 14400 s, count 2.
			// 14400/864000 = 1.6667 % -> 98.3333 -> "98.33%". MTTR 7200;
			// MTBF (864000-14400)/2 = 849600/2 = 424800.
			name: "parent sees the union of its children", notices: twoChildren, comp: 1, start: a1, end: a2,
			total: 864000, impact: 14400, count: 2, words: "98.33%", mttr: 7200, mtbf: 424800, href: hrefA(1), ids: []int64{21, 20},
		},
		{
			// API alone: 7200 s. 7200/864000 = 0.8333 % -> 99.1666 -> "99.16%".
			// MTBF 864000-7200 = 856800.
			name: "first child sees only its own", notices: twoChildren, comp: 2, start: a1, end: a2,
			total: 864000, impact: 7200, count: 1, words: "99.16%", mttr: 7200, mtbf: 856800, href: hrefA(2), ids: []int64{20},
		},
		{
			// Web alone: 10800 s -> "98.75%"; MTBF 864000-10800 = 853200.
			name: "second child sees only its own", notices: twoChildren, comp: 3, start: a1, end: a2,
			total: 864000, impact: 10800, count: 1, words: "98.75%", mttr: 10800, mtbf: 853200, href: hrefA(3), ids: []int64{21},
		},
		{
			// API-EU is a child of API, not listed: nothing.
			name: "grandchild of the parent sees nothing of its uncles", notices: twoChildren, comp: 5, start: a1, end: a2,
			total: 864000, impact: 0, count: 0, words: "100.00%", mttr: 0, mtbf: 864000, href: hrefA(5),
		},
		{
			name: "unrelated top-level component sees nothing", notices: twoChildren, comp: 4, start: a1, end: a2,
			total: 864000, impact: 0, count: 0, words: "100.00%", mttr: 0, mtbf: 864000, href: hrefA(4),
		},
		{
			// 3600 s on API-EU counts for its grandparent too.
			// 3600/864000 = 0.41666 % -> 99.5833 -> "99.58%". MTBF 860400.
			name: "grandchild notice counts for the grandparent", notices: grandchild, comp: 1, start: a1, end: a2,
			total: 864000, impact: 3600, count: 1, words: "99.58%", mttr: 3600, mtbf: 860400, href: hrefA(1), ids: []int64{30},
		},
		{
			name: "grandchild notice counts for the parent", notices: grandchild, comp: 2, start: a1, end: a2,
			total: 864000, impact: 3600, count: 1, words: "99.58%", mttr: 3600, mtbf: 860400, href: hrefA(2), ids: []int64{30},
		},
		{
			name: "grandchild notice not for a sibling branch", notices: grandchild, comp: 3, start: a1, end: a2,
			total: 864000, impact: 0, count: 0, words: "100.00%", mttr: 0, mtbf: 864000, href: hrefA(3),
		},
		{
			// Listing both 1 and 2 counts once for 1: 3600 s, count 1.
			name:    "notice listing a parent and its child counts once",
			notices: []statusd.Notice{mSimple(31, mComps(2, 1), "2028-02-04T00:00:00Z", "2028-02-04T01:00:00Z")},
			comp:    1, start: a1, end: a2,
			total: 864000, impact: 3600, count: 1, words: "99.58%", mttr: 3600, mtbf: 860400, href: hrefA(1), ids: []int64{31},
		},
		{
			// 31 Jan 22:00 - 1 Feb 03:00: only 00:00-03:00 = 10800 s inside.
			// "98.75%"; MTBF 864000-10800 = 853200.
			name:    "notice spanning the timeframe's start",
			notices: []statusd.Notice{mSimple(40, mComps(2), "2028-01-31T22:00:00Z", "2028-02-01T03:00:00Z")},
			comp:    2, start: a1, end: a2,
			total: 864000, impact: 10800, count: 1, words: "98.75%", mttr: 10800, mtbf: 853200, href: hrefA(2), ids: []int64{40},
		},
		{
			// 10 Feb 20:00 - 11 Feb 05:00: only 20:00-24:00 = 14400 s inside.
			// "98.33%"; MTBF 864000-14400 = 849600.
			name:    "notice spanning the timeframe's end",
			notices: []statusd.Notice{mSimple(41, mComps(2), "2028-02-10T20:00:00Z", "2028-02-11T05:00:00Z")},
			comp:    2, start: a1, end: a2,
			total: 864000, impact: 14400, count: 1, words: "98.33%", mttr: 14400, mtbf: 849600, href: hrefA(2), ids: []int64{41},
		},
		{
			// 20 Jan - 20 Feb covers the whole window: 864000 s, "0.00%",
			// MTTR 864000, MTBF 0.
			name:    "notice spanning the whole timeframe",
			notices: []statusd.Notice{mSimple(42, mComps(2), "2028-01-20T00:00:00Z", "2028-02-20T00:00:00Z")},
			comp:    2, start: a1, end: a2,
			total: 864000, impact: 864000, count: 1, words: "0.00%", mttr: 864000, mtbf: 0, href: hrefA(2), ids: []int64{42},
		},
		{
			// [31 Jan 22:00, 1 Feb 00:00) ends where the window starts and
			// [11 Feb 00:00, 02:00) starts where it ends: neither meets it.
			name: "notices touching the window's edges do not count",
			notices: []statusd.Notice{
				mSimple(43, mComps(2), "2028-01-31T22:00:00Z", "2028-02-01T00:00:00Z"),
				mSimple(44, mComps(2), "2028-02-11T00:00:00Z", "2028-02-11T02:00:00Z"),
			},
			comp: 2, start: a1, end: a2,
			total: 864000, impact: 0, count: 0, words: "100.00%", mttr: 0, mtbf: 864000, href: hrefA(2),
		},
		{
			// Starts at 10 Feb 23:59:59.500, inside the href's last second:
			// counted, with 0.5 s inside -> 0 s. MTTR 0/1 = 0; MTBF 864000.
			name:    "notice starting in the timeframe's last second counts",
			notices: []statusd.Notice{mSimple(45, mComps(2), "2028-02-10T23:59:59.500Z", "2028-02-11T01:00:00Z")},
			comp:    2, start: a1, end: a2,
			total: 864000, impact: 0, count: 1, words: "100.00%", mttr: 0, mtbf: 864000, href: hrefA(2), ids: []int64{45},
		},
		{
			// Timeframe 1-10 March ends today: window [1 Mar, 10 Mar 12:00) =
			// 9 d 12 h = 777600+43200 = 820800 s. Open since 08:00, impact up to
			// now = 4 h = 14400 s. (820800-14400)*10000/820800 = 9824.56 ->
			// "98.24%". MTBF 806400.
			name: "incident still open: impact up to now",
			notices: []statusd.Notice{mInc(50, mComps(2),
				mUp{inv, "2028-03-10T08:00:00Z"}, mUp{idf, "2028-03-10T09:00:00Z"})},
			comp: 2, start: "2028-03-01", end: "2028-03-10",
			total: 820800, impact: 14400, count: 1, words: "98.24%", mttr: 14400, mtbf: 806400,
			href: "/api/v1/notices?filter%5Bmetrics_component_id%5D=2&filter%5Bimpact_timeframe_overlaps%5D%5B%5D=2028-03-01T00:00:00&filter%5Bimpact_timeframe_overlaps%5D%5B%5D=2028-03-10T23:59:59",
			ids:  []int64{50},
		},
		{
			// Open since 28 Feb 12:00: the whole window 820800 s is impact.
			name:    "incident open since before the timeframe",
			notices: []statusd.Notice{mInc(51, mComps(2), mUp{inv, "2028-02-28T12:00:00Z"})},
			comp:    2, start: "2028-03-01", end: "2028-03-10",
			total: 820800, impact: 820800, count: 1, words: "0.00%", mttr: 820800, mtbf: 0,
			href: "/api/v1/notices?filter%5Bmetrics_component_id%5D=2&filter%5Bimpact_timeframe_overlaps%5D%5B%5D=2028-03-01T00:00:00&filter%5Bimpact_timeframe_overlaps%5D%5B%5D=2028-03-10T23:59:59",
			ids:  []int64{51},
		},
		{
			name: "false alarm is never counted",
			notices: []statusd.Notice{mInc(60, mComps(2),
				mUp{inv, "2028-02-05T10:00:00Z"}, mUp{idf, "2028-02-05T10:30:00Z"}, mUp{fa, "2028-02-05T11:00:00Z"})},
			comp: 2, start: a1, end: a2,
			total: 864000, impact: 0, count: 0, words: "100.00%", mttr: 0, mtbf: 864000, href: hrefA(2),
		},
		{
			// Real 00:00-01:00 = 3600 s; the false alarm 00:30-02:00 adds
			// nothing. "99.58%"; MTBF 860400.
			name: "false alarm beside a real incident",
			notices: []statusd.Notice{
				mSimple(61, mComps(2), "2028-02-06T00:00:00Z", "2028-02-06T01:00:00Z"),
				mInc(62, mComps(2), mUp{inv, "2028-02-06T00:30:00Z"}, mUp{fa, "2028-02-06T02:00:00Z"}),
			},
			comp: 2, start: a1, end: a2,
			total: 864000, impact: 3600, count: 1, words: "99.58%", mttr: 3600, mtbf: 860400, href: hrefA(2), ids: []int64{61},
		},
		{
			// 10:00-10:45 = 2700 s (recovering ends it, not the 12:00 resolve).
			// 2700/864000 = 0.3125 % -> 99.6875 -> "99.68%". MTBF 861300.
			name: "recovering ends the impact",
			notices: []statusd.Notice{mInc(70, mComps(2),
				mUp{inv, "2028-02-05T10:00:00Z"}, mUp{rec, "2028-02-05T10:45:00Z"}, mUp{res, "2028-02-05T12:00:00Z"})},
			comp: 2, start: a1, end: a2,
			total: 864000, impact: 2700, count: 1, words: "99.68%", mttr: 2700, mtbf: 861300, href: hrefA(2), ids: []int64{70},
		},
		{
			// 10:00-10:20 (1200 s) + 11:00-11:30 (1800 s) = 3000 s, count 1.
			// 3000/864000 = 0.34722 % -> 99.65277 -> "99.65%". MTBF 861000.
			name: "recovering then identified again gives two intervals",
			notices: []statusd.Notice{mInc(71, mComps(2),
				mUp{inv, "2028-02-05T10:00:00Z"}, mUp{rec, "2028-02-05T10:20:00Z"},
				mUp{idf, "2028-02-05T11:00:00Z"}, mUp{res, "2028-02-05T11:30:00Z"})},
			comp: 2, start: a1, end: a2,
			total: 864000, impact: 3000, count: 1, words: "99.65%", mttr: 3000, mtbf: 861000, href: hrefA(2), ids: []int64{71},
		},
		{
			// Impact 31 Jan 10:00-11:00 and 12 Feb 10:00-11:00, recovering in
			// between: the timeframe falls in the gap, nothing counts.
			name: "timeframe inside the gap between two impact intervals",
			notices: []statusd.Notice{mInc(72, mComps(2),
				mUp{idf, "2028-01-31T10:00:00Z"}, mUp{rec, "2028-01-31T11:00:00Z"},
				mUp{idf, "2028-02-12T10:00:00Z"}, mUp{res, "2028-02-12T11:00:00Z"})},
			comp: 2, start: a1, end: a2,
			total: 864000, impact: 0, count: 0, words: "100.00%", mttr: 0, mtbf: 864000, href: hrefA(2),
		},
		{
			// Override 600 s replaces 10:00-18:00. 600/864000 = 0.069444 % ->
			// 99.930555 -> "99.93%". MTBF 863400.
			name:    "impact_seconds override",
			notices: []statusd.Notice{mOverride(mSimple(80, mComps(2), "2028-02-05T10:00:00Z", "2028-02-05T18:00:00Z"), 600)},
			comp:    2, start: a1, end: a2,
			total: 864000, impact: 600, count: 1, words: "99.93%", mttr: 600, mtbf: 863400, href: hrefA(2), ids: []int64{80},
		},
		{
			// Override 0: no impact, so no interval meets the window: count 0.
			name:    "impact_seconds override 0",
			notices: []statusd.Notice{mOverride(mSimple(81, mComps(2), "2028-02-05T10:00:00Z", "2028-02-05T18:00:00Z"), 0)},
			comp:    2, start: a1, end: a2,
			total: 864000, impact: 0, count: 0, words: "100.00%", mttr: 0, mtbf: 864000, href: hrefA(2),
		},
		{
			// Override 7200 s from began_at 10 Feb 23:00: [23:00, 01:00), of
			// which 3600 s are inside. "99.58%"; MTBF 860400.
			name:    "impact_seconds override reaching past the timeframe",
			notices: []statusd.Notice{mOverride(mSimple(82, mComps(2), "2028-02-10T23:00:00Z", "2028-02-10T23:10:00Z"), 7200)},
			comp:    2, start: a1, end: a2,
			total: 864000, impact: 3600, count: 1, words: "99.58%", mttr: 3600, mtbf: 860400, href: hrefA(2), ids: []int64{82},
		},
		{
			name: "planned and general notices never count",
			notices: []statusd.Notice{
				mNotice(90, statusd.Planned, mComps(2), mUp{statusd.Underway, "2028-02-05T10:00:00Z"}, mUp{statusd.Complete, "2028-02-05T12:00:00Z"}),
				mNotice(91, statusd.General, mComps(2), mUp{"", "2028-02-05T10:00:00Z"}),
			},
			comp: 2, start: a1, end: a2,
			total: 864000, impact: 0, count: 0, words: "100.00%", mttr: 0, mtbf: 864000, href: hrefA(2),
		},
		{
			// 10 Mar 2027 .. 10 Mar 2028 (the earliest start): 366 days since
			// 29 Feb 2028 is inside, plus 12 h to now: 31622400+43200 =
			// 31665600 s. 1-2 Jun 2027 = 86400 s, 31 Dec 23:00 - 1 Jan 01:00 =
			// 7200 s; 9 Mar 2027 is before the start. Impact 93600, count 2.
			// (31665600-93600)*10000/31665600 = 315720000000/31665600 =
			// 9970.44 -> "99.70%". MTTR 93600/2 = 46800; MTBF 31572000/2 =
			// 15786000.
			name: "12-month window",
			notices: []statusd.Notice{
				mSimple(100, mComps(2), "2027-03-09T10:00:00Z", "2027-03-09T11:00:00Z"),
				mSimple(101, mComps(2), "2027-06-01T00:00:00Z", "2027-06-02T00:00:00Z"),
				mSimple(102, mComps(2), "2027-12-31T23:00:00Z", "2028-01-01T01:00:00Z"),
			},
			comp: 2, start: "2027-03-10", end: "2028-03-10",
			total: 31665600, impact: 93600, count: 2, words: "99.70%", mttr: 46800, mtbf: 15786000,
			href: "/api/v1/notices?filter%5Bmetrics_component_id%5D=2&filter%5Bimpact_timeframe_overlaps%5D%5B%5D=2027-03-10T00:00:00&filter%5Bimpact_timeframe_overlaps%5D%5B%5D=2028-03-10T23:59:59",
			ids:  []int64{102, 101},
		},
		{
			// Default timeframe 9 Feb .. 10 Mar 2028 ends today: 30 days (leap
			// February) + 12 h = 2592000+43200 = 2635200 s. 29 Feb 12:00-13:00 =
			// 3600 s: 3600/2635200 = 0.13661 % -> 99.86338 -> "99.86%".
			// MTBF 2635200-3600 = 2631600.
			name:    "default timeframe ending today (cut at now)",
			notices: []statusd.Notice{mSimple(110, mComps(2), "2028-02-29T12:00:00Z", "2028-02-29T13:00:00Z")},
			comp:    2,
			total:   2635200, impact: 3600, count: 1, words: "99.86%", mttr: 3600, mtbf: 2631600,
			href: "/api/v1/notices?filter%5Bmetrics_component_id%5D=2&filter%5Bimpact_timeframe_overlaps%5D%5B%5D=2028-02-09T00:00:00&filter%5Bimpact_timeframe_overlaps%5D%5B%5D=2028-03-10T23:59:59",
			ids:  []int64{110},
		},
		{
			// End 20 Mar is echoed but the window stops at now: [5 Mar, 10 Mar
			// 12:00) = 5 d 12 h = 432000+43200 = 475200 s. 6 Mar 00:00-00:30 =
			// 1800 s: 1800/475200 = 0.378787 % -> 99.6212 -> "99.62%".
			// MTBF 475200-1800 = 473400.
			name:    "timeframe ending in the future is cut at now",
			notices: []statusd.Notice{mSimple(120, mComps(2), "2028-03-06T00:00:00Z", "2028-03-06T00:30:00Z")},
			comp:    2, start: "2028-03-05", end: "2028-03-20",
			total: 475200, impact: 1800, count: 1, words: "99.62%", mttr: 1800, mtbf: 473400,
			href: "/api/v1/notices?filter%5Bmetrics_component_id%5D=2&filter%5Bimpact_timeframe_overlaps%5D%5B%5D=2028-03-05T00:00:00&filter%5Bimpact_timeframe_overlaps%5D%5B%5D=2028-03-20T23:59:59",
			ids:  []int64{120},
		},
		{
			// 28 Feb .. 1 Mar 2028 = 3 days (29 Feb exists) = 259200 s.
			// 29 Feb 00:00-06:00 = 21600 s; 29 Feb 23:00 - 1 Mar 01:00 = 7200 s.
			// Impact 28800, count 2. 28800/259200 = 11.111 % -> 88.888 ->
			// "88.88%". MTTR 14400; MTBF (259200-28800)/2 = 115200.
			name: "leap day",
			notices: []statusd.Notice{
				mSimple(130, mComps(2), "2028-02-29T00:00:00Z", "2028-02-29T06:00:00Z"),
				mSimple(131, mComps(2), "2028-02-29T23:00:00Z", "2028-03-01T01:00:00Z"),
			},
			comp: 2, start: "2028-02-28", end: "2028-03-01",
			total: 259200, impact: 28800, count: 2, words: "88.88%", mttr: 14400, mtbf: 115200,
			href: "/api/v1/notices?filter%5Bmetrics_component_id%5D=2&filter%5Bimpact_timeframe_overlaps%5D%5B%5D=2028-02-28T00:00:00&filter%5Bimpact_timeframe_overlaps%5D%5B%5D=2028-03-01T23:59:59",
			ids:  []int64{131, 130},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := Build(mDoc(tc.notices...), 1, mNow, Options{Variant: statusd.VariantA})
			c := s.Component(tc.comp)
			if c == nil {
				t.Fatalf("component %d not found", tc.comp)
			}
			tf, err := statusd.ParseTimeframe(tc.start, tc.end, mNow)
			if err != nil {
				t.Fatalf("ParseTimeframe(%q, %q): %v", tc.start, tc.end, err)
			}
			m := s.Metrics(c, tf, mNow)
			if m.TotalSeconds != tc.total || m.ImpactSeconds != tc.impact || m.Count != tc.count {
				t.Errorf("total, impact, count = %d, %d, %d; want %d, %d, %d",
					m.TotalSeconds, m.ImpactSeconds, m.Count, tc.total, tc.impact, tc.count)
			}
			if got := m.UptimeWords(); got != tc.words {
				t.Errorf("UptimeWords = %q, want %q", got, tc.words)
			}
			if got := m.MTTRSeconds(); got != tc.mttr {
				t.Errorf("MTTR = %d, want %d", got, tc.mttr)
			}
			if got := m.MTBFSeconds(); got != tc.mtbf {
				t.Errorf("MTBF = %d, want %d", got, tc.mtbf)
			}

			r := s.MetricsResponse(c, tf, mNow, true)
			if r.Component.ID != fmt.Sprint(tc.comp) || r.Component.Name != c.Name {
				t.Errorf("component = %+v", r.Component)
			}
			if r.TimeframeStart != tf.Start.Format(statusd.DateLayout) || r.TimeframeEnd != tf.End.Format(statusd.DateLayout) {
				t.Errorf("timeframe = %s..%s", r.TimeframeStart, r.TimeframeEnd)
			}
			wantURL := fmt.Sprintf("https://status.acme.test/components/%d/metrics?timeframe_start=%s&timeframe_end=%s",
				tc.comp, r.TimeframeStart, r.TimeframeEnd)
			if r.URL != wantURL {
				t.Errorf("url = %q, want %q", r.URL, wantURL)
			}
			if r.PercentageUptime.Words != tc.words || r.MeanTimeToRecovery.Seconds != tc.mttr || r.MeanTimeBetweenFailures.Seconds != tc.mtbf {
				t.Errorf("response uptime %q, MTTR %d, MTBF %d; want %q, %d, %d", r.PercentageUptime.Words,
					r.MeanTimeToRecovery.Seconds, r.MeanTimeBetweenFailures.Seconds, tc.words, tc.mttr, tc.mtbf)
			}
			if r.MeanTimeToRecovery.Words != statusd.DurationWords(tc.mttr) || r.MeanTimeBetweenFailures.Words != statusd.DurationWords(tc.mtbf) {
				t.Errorf("duration words %q, %q", r.MeanTimeToRecovery.Words, r.MeanTimeBetweenFailures.Words)
			}
			d := r.CalculationData
			if d == nil {
				t.Fatal("calculation_data_in_timeframe missing with show_calculations")
			}
			if d.TotalTime.Seconds != tc.total || d.TotalImpactTime.Seconds != tc.impact || int64(d.Notices.Count) != tc.count {
				t.Errorf("calculation data total %d impact %d count %d; want %d %d %d",
					d.TotalTime.Seconds, d.TotalImpactTime.Seconds, d.Notices.Count, tc.total, tc.impact, tc.count)
			}
			if d.Notices.Href != tc.href {
				t.Errorf("notices.href =\n  %s\nwant\n  %s", d.Notices.Href, tc.href)
			}
			if tc.count == 0 {
				if r.MeanTimeToRecovery.Calculation == "" || r.MeanTimeBetweenFailures.Calculation == "" {
					t.Errorf("empty calculation strings")
				}
			} else if want := fmt.Sprintf("%d / %d = %d", tc.impact, tc.count, tc.mttr); r.MeanTimeToRecovery.Calculation != want {
				t.Errorf("MTTR calculation %q, want %q", r.MeanTimeToRecovery.Calculation, want)
			}

			// Following the href gives exactly the counted notices (the API
			// reads the upper bound without milliseconds as its whole second).
			got := mFollowHref(s, tc.comp, tf)
			if !slices.Equal(got, tc.ids) {
				t.Errorf("notices behind the href = %v, want %v", got, tc.ids)
			}

			plain := s.MetricsResponse(c, tf, mNow, false)
			if plain.CalculationData != nil || plain.PercentageUptime.Calculation != "" ||
				plain.MeanTimeToRecovery.Calculation != "" || plain.MeanTimeBetweenFailures.Calculation != "" {
				t.Errorf("calculations present without show_calculations: %+v", plain)
			}
		})
	}
}

// mFollowHref returns the ids of the notices listed by the metrics href of
// component id for tf, as the API filter reads it.
func mFollowHref(s *Snapshot, id int64, tf statusd.Timeframe) []int64 {
	f := NoticeFilter{
		MetricsComponentID: &id,
		Overlaps: &Range{
			From: tf.Start,
			To:   tf.End.Add(24*time.Hour - time.Millisecond), // <end>T23:59:59 to the end of its second
		},
	}
	var ids []int64
	for page := int64(1); ; page++ {
		list, total := s.Notices(f, page, mNow)
		for _, e := range list {
			ids = append(ids, e.ID)
		}
		if len(ids) >= total || len(list) == 0 {
			return ids
		}
	}
}

// TestComponentStateRollsUp checks CONTRACT C3 (revised 2026-11-25): a
// component's state is the worst over itself and its descendants. 5 is
// degraded, so are 2 (its parent) and 1 (its grandparent, whose other
// child 3 is only under maintenance); 4 is alone.
func TestComponentStateRollsUp(t *testing.T) {
	doc := mDoc(
		mInc(1, mComps(5), mUp{statusd.Investigating, "2028-03-10T08:00:00Z"}),
		mNotice(2, statusd.Planned, mComps(3), mUp{statusd.Scheduled, "2028-03-09T08:00:00Z"}, mUp{statusd.Underway, "2028-03-10T08:00:00Z"}),
	)
	s := Build(doc, 1, mNow, Options{Variant: statusd.VariantA})
	want := map[int64]statusd.PageState{
		1: statusd.PageDegraded, 2: statusd.PageDegraded, 5: statusd.PageDegraded,
		3: statusd.PageUnderMaintenance, 4: statusd.PageOperational,
	}
	for id, st := range want {
		if got := s.Component(id).State; got != st {
			t.Errorf("component %d state %q, want %q", id, got, st)
		}
	}
	if s.PageState != statusd.PageDegraded {
		t.Errorf("page state %q, want degraded", s.PageState)
	}
}

// TestMetricsProperties builds random pages and checks the invariants of C4
// and a brute-force recomputation of impact and count.
func TestMetricsProperties(t *testing.T) {
	states := statusd.States(statusd.Unplanned)
	var checked, counted, partial int
	for _, seed := range []uint64{1, 7, 42, 1234, 2028} {
		r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
		for iter := range 300 {
			doc, tf := mRandomPage(r, states)
			ctx := fmt.Sprintf("seed %d iter %d, timeframe %s..%s", seed, iter,
				tf.Start.Format(statusd.DateLayout), tf.End.Format(statusd.DateLayout))
			s := Build(doc, 1, mNow, Options{Variant: statusd.VariantA})
			byID := map[int64]statusd.Metrics{}
			for _, c := range s.AllComponents {
				m := s.Metrics(c, tf, mNow)
				byID[c.ID] = m
				mCheckInvariants(t, ctx, c.ID, m)
				checked++
				if m.Count > 0 {
					counted++
				}
				if m.ImpactSeconds > 0 && m.ImpactSeconds < m.TotalSeconds {
					partial++
				}
				wantImpact, wantCount := mBruteMetrics(doc, c.ID, tf)
				if m.ImpactSeconds != wantImpact || m.Count != wantCount {
					t.Fatalf("%s, component %d: impact %d count %d, brute force %d %d",
						ctx, c.ID, m.ImpactSeconds, m.Count, wantImpact, wantCount)
				}
				if got := int64(len(mFollowHref(s, c.ID, tf))); got != m.Count {
					t.Fatalf("%s, component %d: href lists %d notices, count %d", ctx, c.ID, got, m.Count)
				}
			}
			for _, c := range s.AllComponents {
				if c.ParentID == nil {
					continue
				}
				p, ch := byID[*c.ParentID], byID[c.ID]
				if p.ImpactSeconds < ch.ImpactSeconds || p.Count < ch.Count {
					t.Fatalf("%s: parent %d impact %d count %d < child %d impact %d count %d",
						ctx, *c.ParentID, p.ImpactSeconds, p.Count, c.ID, ch.ImpactSeconds, ch.Count)
				}
			}
		}
	}
	t.Logf("%d component metrics checked, %d with notices counted, %d with partial impact", checked, counted, partial)
}

func mCheckInvariants(t *testing.T, ctx string, id int64, m statusd.Metrics) {
	t.Helper()
	fail := func(format string, args ...any) {
		t.Fatalf("%s, component %d (%+v): %s", ctx, id, m, fmt.Sprintf(format, args...))
	}
	if p := m.UptimePercent(); p < 0 || p > 100 {
		fail("uptime %v outside [0, 100]", p)
	}
	if w := m.UptimeWords(); !strings.HasSuffix(w, "%") || len(w) < 5 {
		fail("uptime words %q", w)
	}
	if m.ImpactSeconds < 0 || m.ImpactSeconds > m.TotalSeconds {
		fail("impact %d outside [0, total %d]", m.ImpactSeconds, m.TotalSeconds)
	}
	if m.Count == 0 {
		if m.MTTRSeconds() != 0 || m.MTBFSeconds() != m.TotalSeconds {
			fail("count 0 but MTTR %d MTBF %d", m.MTTRSeconds(), m.MTBFSeconds())
		}
		return
	}
	mttr, mtbf, n := m.MTTRSeconds(), m.MTBFSeconds(), m.Count
	if !(mttr*n <= m.ImpactSeconds && m.ImpactSeconds < mttr*n+n) {
		fail("MTTR %d * count %d does not bound impact %d", mttr, n, m.ImpactSeconds)
	}
	if up := m.TotalSeconds - m.ImpactSeconds; !(mtbf*n <= up && up < mtbf*n+n) {
		fail("MTBF %d * count %d + impact %d is not within count of total %d", mtbf, n, m.ImpactSeconds, m.TotalSeconds)
	}
}

// mRandomPage returns a random component forest and random notices, all in
// the past of mNow, and a random valid timeframe.
func mRandomPage(r *rand.Rand, states []statusd.State) (*statusd.Document, statusd.Timeframe) {
	created := mTime("2026-01-01T00:00:00Z")
	doc := &statusd.Document{Page: statusd.Page{Name: "p", URL: "https://p.test", CreatedAt: created, UpdatedAt: created}}
	nc := 1 + r.IntN(7)
	for i := 1; i <= nc; i++ {
		c := statusd.Component{ID: int64(i), Position: i, Name: fmt.Sprint("c", i), MetricsEnabled: true, CreatedAt: created, UpdatedAt: created}
		if i > 1 && r.IntN(3) > 0 {
			c.ParentID = mPid(int64(1 + r.IntN(i-1)))
		}
		doc.Components = append(doc.Components, c)
	}
	earliest := statusd.EarliestStart(mNow)
	span := mNow.Sub(earliest) + 20*24*time.Hour
	nn := r.IntN(12)
	for id := int64(1); id <= int64(nn); id++ {
		n := statusd.Notice{ID: id, Type: statusd.Unplanned, Subject: "n"}
		switch r.IntN(10) {
		case 0:
			n.Type = statusd.Planned
		case 1:
			n.Type = statusd.General
		}
		for range r.IntN(4) {
			n.ComponentIDs = append(n.ComponentIDs, int64(1+r.IntN(nc)))
		}
		// Stored times have millisecond precision.
		at := earliest.Add(-20 * 24 * time.Hour).Add(time.Duration(r.Int64N(int64(span)))).Truncate(time.Millisecond)
		k := 1 + r.IntN(6)
		for j := 0; j < k && !at.After(mNow); j++ {
			var st statusd.State
			switch n.Type {
			case statusd.Unplanned:
				st = states[r.IntN(len(states))]
			case statusd.Planned:
				st = statusd.States(statusd.Planned)[r.IntN(4)]
			}
			n.Updates = append(n.Updates, statusd.Update{ID: id*10 + int64(j), State: st, Content: "x", CreatedAt: at, UpdatedAt: at})
			// Steps from a millisecond to several days.
			at = at.Add(time.Duration(r.Int64N(int64(time.Millisecond) << uint(r.IntN(29)))).Truncate(time.Millisecond))
		}
		if n.Type == statusd.Unplanned && r.IntN(8) == 0 {
			n.ImpactSeconds = mI64(r.Int64N(300000))
		}
		n.CreatedAt, n.UpdatedAt = n.Updates[0].CreatedAt, n.Updates[len(n.Updates)-1].CreatedAt
		doc.Notices = append(doc.Notices, n)
	}
	today := statusd.Day(mNow)
	days := int(today.Sub(earliest).Hours() / 24)
	start := earliest.AddDate(0, 0, r.IntN(days+1))
	end := start.AddDate(0, 0, r.IntN(int(today.Sub(start).Hours()/24)+20))
	tf, err := statusd.ParseTimeframe(start.Format(statusd.DateLayout), end.Format(statusd.DateLayout), mNow)
	if err != nil {
		panic(err)
	}
	return doc, tf
}

// mBruteMetrics recomputes impact seconds and count of component id straight
// from CONTRACT C4, with a plain sort-and-sweep union.
func mBruteMetrics(doc *statusd.Document, id int64, tf statusd.Timeframe) (impact, count int64) {
	parent := map[int64]*int64{}
	for _, c := range doc.Components {
		parent[c.ID] = c.ParentID
	}
	isSelfOrDescendant := func(x int64) bool {
		for seen := 0; seen <= len(doc.Components); seen++ {
			if x == id {
				return true
			}
			p := parent[x]
			if p == nil {
				return false
			}
			x = *p
		}
		return false
	}
	from := tf.Start
	dayAfter := tf.End.AddDate(0, 0, 1)
	to := dayAfter
	if mNow.Before(to) {
		to = mNow
	}
	var clipped []statusd.Interval
	for i := range doc.Notices {
		n := &doc.Notices[i]
		if n.Type != statusd.Unplanned || n.State() == statusd.FalseAlarm || !slices.ContainsFunc(n.ComponentIDs, isSelfOrDescendant) {
			continue
		}
		meets := false
		for _, iv := range n.Impact(mNow) {
			if iv.Start.Before(dayAfter) && iv.End.After(from) {
				meets = true
			}
			s, e := iv.Start, iv.End
			if s.Before(from) {
				s = from
			}
			if e.After(to) {
				e = to
			}
			if e.After(s) {
				clipped = append(clipped, statusd.Interval{Start: s, End: e})
			}
		}
		if meets {
			count++
		}
	}
	slices.SortFunc(clipped, func(a, b statusd.Interval) int { return a.Start.Compare(b.Start) })
	var total time.Duration
	var cur statusd.Interval
	for i, iv := range clipped {
		switch {
		case i == 0:
			cur = iv
		case !iv.Start.After(cur.End):
			if iv.End.After(cur.End) {
				cur.End = iv.End
			}
		default:
			total += cur.End.Sub(cur.Start)
			cur = iv
		}
	}
	if len(clipped) > 0 {
		total += cur.End.Sub(cur.Start)
	}
	return int64(total / time.Second), count
}
