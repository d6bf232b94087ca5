package server_test

import (
	"time"
)

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
