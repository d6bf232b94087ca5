package testserver

import (
	"time"

	"github.com/statusd/statusd"
)

// The fixture below is timed relative to now. Its expectations
// (fixtureWant, in internal/server's tests) are worked out by hand from
// SPEC §2-§3 and CONTRACT C3, C4; comments give the reasoning.

// Ptr is a pointer to a copy of v.
func Ptr[T any](v T) *T { return &v }

// Upd is an update of a notice in the state, at the time, that says content.
func Upd(state statusd.State, at time.Time, content string) statusd.Update {
	return statusd.Update{State: state, Content: content, CreatedAt: at, UpdatedAt: at}
}

// PageCreated is when the fixture's page and components were created.
var PageCreated = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// Fixture builds the page:
//
//	components, in position order: 20 Dashboard, 10 API (metrics), 12 API US
//	(child of 10), 11 API EU (child of 10, metrics), 30 Database (metrics),
//	31 Replica (child of 30)
func Fixture(now time.Time) *statusd.Document {
	h := func(n float64) time.Time { return now.Add(time.Duration(n * float64(time.Hour))) }
	d := func(n float64) time.Time { return h(24 * n) }
	comp := func(id int64, parent *int64, pos int, name, desc string, metrics bool) statusd.Component {
		return statusd.Component{ID: id, ParentID: parent, Position: pos, Name: name, Description: desc,
			MetricsEnabled: metrics, CreatedAt: PageCreated, UpdatedAt: PageCreated.Add(time.Hour)}
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
		Upd(statusd.Investigating, d(-20), "Investigating slow responses."),
		Upd(statusd.Resolved, d(-20).Add(4*time.Hour), "Resolved."))
	override.ImpactSeconds = Ptr(int64(600))
	doc := &statusd.Document{
		Page: statusd.Page{Name: "Acme Status", URL: "https://status.acme.test",
			CreatedAt: PageCreated, UpdatedAt: PageCreated.Add(24 * time.Hour)},
		Components: []statusd.Component{
			comp(20, nil, 1, "Dashboard", "Web dashboard", false),
			comp(10, nil, 2, "API", "Public REST API", true),
			comp(12, Ptr(int64(10)), 3, "API US", "API in the US", false),
			comp(11, Ptr(int64(10)), 4, "API EU", "API in the EU", true),
			comp(30, nil, 5, "Database", "Primary database", true),
			comp(31, Ptr(int64(30)), 6, "Replica", "Read replica", false),
		},
		Notices: []statusd.Notice{
			notice(100, statusd.Unplanned, "API errors", []int64{11}, []string{"api"},
				Upd(statusd.Investigating, h(-2), "We are looking into errors."),
				Upd(statusd.Identified, h(-1), "A bad deploy; rolling back.")),
			notice(101, statusd.Unplanned, "Replica lag", []int64{31}, []string{},
				Upd(statusd.Investigating, d(-3), "Replica is lagging."),
				Upd(statusd.Recovering, d(-3).Add(30*time.Minute), "Catching up."),
				Upd(statusd.Resolved, d(-3).Add(time.Hour), "Caught up.")),
			notice(102, statusd.Unplanned, "Outage, reopened", []int64{30, 10}, []string{"db", "api"},
				Upd(statusd.Investigating, d(-40), "Down."),
				Upd(statusd.Resolved, d(-40).Add(time.Hour), "Back."),
				Upd(statusd.Investigating, d(-40).Add(2*time.Hour), "Down again."),
				Upd(statusd.Identified, d(-40).Add(150*time.Minute), "Found it."),
				Upd(statusd.Resolved, d(-40).Add(3*time.Hour), "Fixed."),
				Upd(statusd.Resolved, d(-40).Add(190*time.Minute), "Post-mortem follows.")),
			notice(103, statusd.Unplanned, "US alarm", []int64{12}, []string{},
				Upd(statusd.Investigating, d(-10), "Alarm fired."),
				Upd(statusd.FalseAlarm, d(-10).Add(20*time.Minute), "False alarm.")),
			override,
			notice(105, statusd.Unplanned, "Dashboard slow", []int64{20}, []string{"web"},
				Upd(statusd.Investigating, h(-5), "Slow."),
				Upd(statusd.Recovering, h(-4), "Recovering.")),
			planned(notice(200, statusd.Planned, "Database upgrade", []int64{30, 20}, []string{"db"},
				Upd(statusd.Scheduled, d(-2), "Scheduled."),
				Upd(statusd.Underway, h(-1), "Started.")), h(-1), h(1)),
			planned(notice(201, statusd.Planned, "API maintenance", []int64{10}, []string{},
				Upd(statusd.Scheduled, d(-1), "Planned.")), d(2), d(2).Add(2*time.Hour)),
			planned(notice(202, statusd.Planned, "Network work", []int64{}, []string{},
				Upd(statusd.Scheduled, d(-6), "Planned."),
				Upd(statusd.Underway, d(-5), "Started."),
				Upd(statusd.Complete, d(-5).Add(time.Hour), "Done.")), d(-5), d(-5).Add(time.Hour)),
			planned(notice(203, statusd.Planned, "Cancelled work", []int64{31}, []string{},
				Upd(statusd.Scheduled, d(-30), "Planned."),
				Upd(statusd.Cancelled, d(-29), "Cancelled.")), d(-28), d(-28).Add(time.Hour)),
			planned(notice(204, statusd.Planned, "Twice underway", []int64{30}, []string{},
				Upd(statusd.Scheduled, d(-60), "Planned."),
				Upd(statusd.Underway, d(-50), "Started."),
				Upd(statusd.Scheduled, d(-50).Add(10*time.Minute), "Postponed."),
				Upd(statusd.Underway, d(-49), "Started again."),
				Upd(statusd.Complete, d(-49).Add(time.Hour), "Done.")), d(-50), d(-49).Add(time.Hour)),
			general(notice(300, statusd.General, "Welcome", []int64{}, []string{"news"},
				Upd("", d(-1), "Our new status page.")), nil),
			general(notice(301, statusd.General, "Office move", []int64{}, []string{},
				Upd("", d(-70), "We move.")), Ptr(d(1))),
			general(notice(302, statusd.General, "Holiday support", []int64{20}, []string{},
				Upd("", d(-9), "Reduced support.")), Ptr(d(-2))),
			general(notice(303, statusd.General, "Old news", []int64{}, []string{},
				Upd("", d(-35), "Old.")), Ptr(d(-30))),
		},
	}
	return doc
}
