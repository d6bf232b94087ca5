package main

import (
	"time"

	"github.com/statusd/statusd"
)

// The fixture below is timed relative to now. Its expectations (fixtureWant)
// are worked out by hand from SPEC §2-§3 and CONTRACT C3, C4; comments give
// the reasoning.

func ptr[T any](v T) *T { return &v }

func upd(state statusd.State, at time.Time, content string) statusd.Update {
	return statusd.Update{State: state, Content: content, CreatedAt: at, UpdatedAt: at}
}

var pageCreated = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// fixture builds the page:
//
//	components, in position order: 20 Dashboard, 10 API (metrics), 12 API US
//	(child of 10), 11 API EU (child of 10, metrics), 30 Database (metrics),
//	31 Replica (child of 30)
func fixture(now time.Time) *statusd.Document {
	h := func(n float64) time.Time { return now.Add(time.Duration(n * float64(time.Hour))) }
	d := func(n float64) time.Time { return h(24 * n) }
	comp := func(id int64, parent *int64, pos int, name, desc string, metrics bool) statusd.Component {
		return statusd.Component{ID: id, ParentID: parent, Position: pos, Name: name, Description: desc,
			MetricsEnabled: metrics, CreatedAt: pageCreated, UpdatedAt: pageCreated.Add(time.Hour)}
	}
	notice := func(id int64, typ statusd.NoticeType, subject string, comps []int64, tags []string, ups ...statusd.Update) statusd.Notice {
		return statusd.Notice{ID: id, Type: typ, Subject: subject, ComponentIDs: comps, TagList: tags,
			CreatedAt: ups[0].CreatedAt, UpdatedAt: ups[len(ups)-1].CreatedAt, Updates: ups}
	}
	planned := func(n statusd.Notice, begins, ends time.Time) statusd.Notice {
		n.BeginsAt, n.EndsAt = &begins, &ends
		return n
	}
	general := func(n statusd.Notice, expires *time.Time) statusd.Notice {
		n.ExpiresAt = expires
		return n
	}
	override := notice(104, statusd.Unplanned, "Slow EU responses", []int64{11}, []string{},
		upd(statusd.Investigating, d(-20), "Investigating slow responses."),
		upd(statusd.Resolved, d(-20).Add(4*time.Hour), "Resolved."))
	override.ImpactSeconds = ptr(int64(600))
	doc := &statusd.Document{
		Page: statusd.Page{Name: "Acme Status", URL: "https://status.acme.test",
			CreatedAt: pageCreated, UpdatedAt: pageCreated.Add(24 * time.Hour)},
		Components: []statusd.Component{
			comp(20, nil, 1, "Dashboard", "Web dashboard", false),
			comp(10, nil, 2, "API", "Public REST API", true),
			comp(12, ptr(int64(10)), 3, "API US", "API in the US", false),
			comp(11, ptr(int64(10)), 4, "API EU", "API in the EU", true),
			comp(30, nil, 5, "Database", "Primary database", true),
			comp(31, ptr(int64(30)), 6, "Replica", "Read replica", false),
		},
		Notices: []statusd.Notice{
			notice(100, statusd.Unplanned, "API errors", []int64{11}, []string{"api"},
				upd(statusd.Investigating, h(-2), "We are looking into errors."),
				upd(statusd.Identified, h(-1), "A bad deploy; rolling back.")),
			notice(101, statusd.Unplanned, "Replica lag", []int64{31}, []string{},
				upd(statusd.Investigating, d(-3), "Replica is lagging."),
				upd(statusd.Recovering, d(-3).Add(30*time.Minute), "Catching up."),
				upd(statusd.Resolved, d(-3).Add(time.Hour), "Caught up.")),
			notice(102, statusd.Unplanned, "Outage, reopened", []int64{30, 10}, []string{"db", "api"},
				upd(statusd.Investigating, d(-40), "Down."),
				upd(statusd.Resolved, d(-40).Add(time.Hour), "Back."),
				upd(statusd.Investigating, d(-40).Add(2*time.Hour), "Down again."),
				upd(statusd.Identified, d(-40).Add(150*time.Minute), "Found it."),
				upd(statusd.Resolved, d(-40).Add(3*time.Hour), "Fixed."),
				upd(statusd.Resolved, d(-40).Add(190*time.Minute), "Post-mortem follows.")),
			notice(103, statusd.Unplanned, "US alarm", []int64{12}, []string{},
				upd(statusd.Investigating, d(-10), "Alarm fired."),
				upd(statusd.FalseAlarm, d(-10).Add(20*time.Minute), "False alarm.")),
			override,
			notice(105, statusd.Unplanned, "Dashboard slow", []int64{20}, []string{"web"},
				upd(statusd.Investigating, h(-5), "Slow."),
				upd(statusd.Recovering, h(-4), "Recovering.")),
			planned(notice(200, statusd.Planned, "Database upgrade", []int64{30, 20}, []string{"db"},
				upd(statusd.Scheduled, d(-2), "Scheduled."),
				upd(statusd.Underway, h(-1), "Started.")), h(-1), h(1)),
			planned(notice(201, statusd.Planned, "API maintenance", []int64{10}, []string{},
				upd(statusd.Scheduled, d(-1), "Planned.")), d(2), d(2).Add(2*time.Hour)),
			planned(notice(202, statusd.Planned, "Network work", []int64{}, []string{},
				upd(statusd.Scheduled, d(-6), "Planned."),
				upd(statusd.Underway, d(-5), "Started."),
				upd(statusd.Complete, d(-5).Add(time.Hour), "Done.")), d(-5), d(-5).Add(time.Hour)),
			planned(notice(203, statusd.Planned, "Cancelled work", []int64{31}, []string{},
				upd(statusd.Scheduled, d(-30), "Planned."),
				upd(statusd.Cancelled, d(-29), "Cancelled.")), d(-28), d(-28).Add(time.Hour)),
			planned(notice(204, statusd.Planned, "Twice underway", []int64{30}, []string{},
				upd(statusd.Scheduled, d(-60), "Planned."),
				upd(statusd.Underway, d(-50), "Started."),
				upd(statusd.Scheduled, d(-50).Add(10*time.Minute), "Postponed."),
				upd(statusd.Underway, d(-49), "Started again."),
				upd(statusd.Complete, d(-49).Add(time.Hour), "Done.")), d(-50), d(-49).Add(time.Hour)),
			general(notice(300, statusd.General, "Welcome", []int64{}, []string{"news"},
				upd("", d(-1), "Our new status page.")), nil),
			general(notice(301, statusd.General, "Office move", []int64{}, []string{},
				upd("", d(-70), "We move.")), ptr(d(1))),
			general(notice(302, statusd.General, "Holiday support", []int64{20}, []string{},
				upd("", d(-9), "Reduced support.")), ptr(d(-2))),
			general(notice(303, statusd.General, "Old news", []int64{}, []string{},
				upd("", d(-35), "Old.")), ptr(d(-30))),
		},
	}
	return doc
}

// noticeWant is what a notice must look like, worked out by hand.
type noticeWant struct {
	id       int64
	typ      string
	timeline string
	state    string // "" for general
	subject  string
	began    *time.Time
	ended    *time.Time
	begins   *time.Time // planned only
	ends     *time.Time
	created  time.Time
	updated  time.Time
	impact   int64  // seconds, unplanned only; -1 when still growing
	words    string // impact in words
	tags     []string
	comps    []int64 // embedded components, in position order
}

// fixtureWant lists the fixture's notices newest first (created_at
// descending, then id descending: 300 and 201 share created_at).
func fixtureWant(now time.Time) []noticeWant {
	h := func(n float64) time.Time { return now.Add(time.Duration(n * float64(time.Hour))) }
	d := func(n float64) time.Time { return h(24 * n) }
	p := func(t time.Time) *time.Time { return &t }
	return []noticeWant{
		// Current incident: began at its first update, still open; impact
		// from 2 hours ago up to now.
		{id: 100, typ: "unplanned", timeline: "present", state: "identified", subject: "API errors",
			began: p(h(-2)), created: h(-2), updated: h(-1), impact: -1, tags: []string{"api"}, comps: []int64{11}},
		// Recovering is present but not current; impact 1 hour.
		{id: 105, typ: "unplanned", timeline: "present", state: "recovering", subject: "Dashboard slow",
			began: p(h(-5)), created: h(-5), updated: h(-4), impact: 3600, words: "1 hour", tags: []string{"web"}, comps: []int64{20}},
		{id: 300, typ: "general", timeline: "present", subject: "Welcome", created: d(-1), updated: d(-1),
			tags: []string{"news"}, comps: []int64{}},
		// Scheduled: future, not begun.
		{id: 201, typ: "planned", timeline: "future", state: "scheduled", subject: "API maintenance",
			begins: p(d(2)), ends: p(d(2).Add(2 * time.Hour)), created: d(-1), updated: d(-1), tags: []string{}, comps: []int64{10}},
		// Underway: began when it entered underway.
		{id: 200, typ: "planned", timeline: "present", state: "underway", subject: "Database upgrade",
			began: p(h(-1)), begins: p(h(-1)), ends: p(h(1)), created: d(-2), updated: h(-1), tags: []string{"db"}, comps: []int64{20, 30}},
		// Ended 3 days ago (< 7): past_recent; impact investigating to recovering, 30 minutes.
		{id: 101, typ: "unplanned", timeline: "past_recent", state: "resolved", subject: "Replica lag",
			began: p(d(-3)), ended: p(d(-3).Add(time.Hour)), created: d(-3), updated: d(-3).Add(time.Hour),
			impact: 1800, words: "30 minutes", tags: []string{}, comps: []int64{31}},
		{id: 202, typ: "planned", timeline: "past_recent", state: "complete", subject: "Network work",
			began: p(d(-5)), ended: p(d(-5).Add(time.Hour)), begins: p(d(-5)), ends: p(d(-5).Add(time.Hour)),
			created: d(-6), updated: d(-5).Add(time.Hour), tags: []string{}, comps: []int64{}},
		// Expired 2 days ago.
		{id: 302, typ: "general", timeline: "past_recent", subject: "Holiday support", created: d(-9), updated: d(-9),
			tags: []string{}, comps: []int64{20}},
		// False alarm: ended when it became one, no impact.
		{id: 103, typ: "unplanned", timeline: "past_distant", state: "false_alarm", subject: "US alarm",
			began: p(d(-10)), ended: p(d(-10).Add(20 * time.Minute)), created: d(-10), updated: d(-10).Add(20 * time.Minute),
			impact: 0, words: "0 seconds", tags: []string{}, comps: []int64{12}},
		// The impact_seconds override replaces the 4 hours.
		{id: 104, typ: "unplanned", timeline: "past_distant", state: "resolved", subject: "Slow EU responses",
			began: p(d(-20)), ended: p(d(-20).Add(4 * time.Hour)), created: d(-20), updated: d(-20).Add(4 * time.Hour),
			impact: 600, words: "10 minutes", tags: []string{}, comps: []int64{11}},
		// Cancelled before it began.
		{id: 203, typ: "planned", timeline: "past_distant", state: "cancelled", subject: "Cancelled work",
			ended: p(d(-29)), begins: p(d(-28)), ends: p(d(-28).Add(time.Hour)), created: d(-30), updated: d(-29),
			tags: []string{}, comps: []int64{31}},
		{id: 303, typ: "general", timeline: "past_distant", subject: "Old news", created: d(-35), updated: d(-35),
			tags: []string{}, comps: []int64{}},
		// Reopened: ended when the final run of resolved began (3h); impact
		// 0-1h and 2h-3h.
		{id: 102, typ: "unplanned", timeline: "past_distant", state: "resolved", subject: "Outage, reopened",
			began: p(d(-40)), ended: p(d(-40).Add(3 * time.Hour)), created: d(-40), updated: d(-40).Add(190 * time.Minute),
			impact: 7200, words: "2 hours", tags: []string{"db", "api"}, comps: []int64{10, 30}},
		// Underway twice: began the first time.
		{id: 204, typ: "planned", timeline: "past_distant", state: "complete", subject: "Twice underway",
			began: p(d(-50)), ended: p(d(-49).Add(time.Hour)), begins: p(d(-50)), ends: p(d(-49).Add(time.Hour)),
			created: d(-60), updated: d(-49).Add(time.Hour), tags: []string{}, comps: []int64{30}},
		{id: 301, typ: "general", timeline: "present", subject: "Office move", created: d(-70), updated: d(-70),
			tags: []string{}, comps: []int64{}},
	}
}
