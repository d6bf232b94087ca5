package statusd

import (
	"iter"
	"maps"
	"reflect"
	"testing"
	"time"
)

// Shared helpers of the package's tests (state, impact and metrics).

// tBase is the reference moment of the tests: 2028-03-01 10:00:00 UTC.
var tBase = time.Date(2028, 3, 1, 10, 0, 0, 0, time.UTC)

// tAt returns tBase plus the given number of minutes.
func tAt(minutes int) time.Time { return tBase.Add(time.Duration(minutes) * time.Minute) }

// tPtr returns a pointer to t.
func tPtr(t time.Time) *time.Time { return &t }

// tI64 returns a pointer to v.
func tI64(v int64) *int64 { return &v }

// tUp is an update in state s posted at when.
func tUp(s State, when time.Time) Update {
	return Update{State: s, Content: "update " + string(s), CreatedAt: when, UpdatedAt: when}
}

func tNotice(typ NoticeType, comps []int64, ups ...Update) *Notice {
	n := &Notice{ID: 1, Type: typ, Subject: "s", ComponentIDs: comps, Updates: ups}
	if len(ups) > 0 {
		n.CreatedAt, n.UpdatedAt = ups[0].CreatedAt, ups[len(ups)-1].CreatedAt
	}
	return n
}

func tIncident(ups ...Update) *Notice    { return tNotice(Unplanned, nil, ups...) }
func tMaintenance(ups ...Update) *Notice { return tNotice(Planned, nil, ups...) }

// tGeneral is a general notice posted at tBase that expires at expires (nil:
// never).
func tGeneral(expires *time.Time) *Notice {
	n := tNotice(General, nil, tUp("", tBase))
	n.ExpiresAt = expires
	return n
}

func tFmtTimePtr(t *time.Time) string {
	if t == nil {
		return "nil"
	}
	return t.Format(time.RFC3339Nano)
}

func tSameTimePtr(a, b *time.Time) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return a.Equal(*b)
}

func TestNoticeState(t *testing.T) {
	tests := []struct {
		name string
		n    *Notice
		want State
	}{
		{"no updates", tIncident(), ""},
		{"single investigating", tIncident(tUp(Investigating, tAt(0))), Investigating},
		{"newest update wins", tIncident(tUp(Investigating, tAt(0)), tUp(Identified, tAt(10)), tUp(Resolved, tAt(20))), Resolved},
		{"words-only update repeats state", tIncident(tUp(Investigating, tAt(0)), tUp(Identified, tAt(10)), tUp(Identified, tAt(20))), Identified},
		{"reopened", tIncident(tUp(Investigating, tAt(0)), tUp(Resolved, tAt(10)), tUp(Investigating, tAt(20))), Investigating},
		{"false alarm", tIncident(tUp(Investigating, tAt(0)), tUp(FalseAlarm, tAt(5))), FalseAlarm},
		{"planned scheduled", tMaintenance(tUp(Scheduled, tAt(0))), Scheduled},
		{"planned underway", tMaintenance(tUp(Scheduled, tAt(0)), tUp(Underway, tAt(60))), Underway},
		{"planned cancelled", tMaintenance(tUp(Scheduled, tAt(0)), tUp(Cancelled, tAt(30))), Cancelled},
		{"general has no state", tGeneral(nil), ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.n.State(); got != tc.want {
				t.Errorf("State() = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestNoticeBeganAt(t *testing.T) {
	tests := []struct {
		name string
		n    *Notice
		want *time.Time
	}{
		{"unplanned: first update", tIncident(tUp(Investigating, tAt(0)), tUp(Identified, tAt(10)), tUp(Resolved, tAt(60))), tPtr(tAt(0))},
		{"unplanned: first update identified", tIncident(tUp(Identified, tAt(5)), tUp(Resolved, tAt(60))), tPtr(tAt(5))},
		{"unplanned: first update already resolved", tIncident(tUp(Resolved, tAt(7))), tPtr(tAt(7))},
		{"unplanned: reopened keeps first update", tIncident(tUp(Investigating, tAt(0)), tUp(Resolved, tAt(10)), tUp(Investigating, tAt(20))), tPtr(tAt(0))},
		{"unplanned: no updates", tIncident(), nil},
		{"planned: scheduled only is null", tMaintenance(tUp(Scheduled, tAt(0))), nil},
		{"planned: scheduled, scheduled is null", tMaintenance(tUp(Scheduled, tAt(0)), tUp(Scheduled, tAt(5))), nil},
		{"planned: when it entered underway", tMaintenance(tUp(Scheduled, tAt(0)), tUp(Underway, tAt(60)), tUp(Complete, tAt(120))), tPtr(tAt(60))},
		{"planned: first update underway", tMaintenance(tUp(Underway, tAt(3)), tUp(Complete, tAt(120))), tPtr(tAt(3))},
		{"planned: underway twice in a row gives the first", tMaintenance(tUp(Scheduled, tAt(0)), tUp(Underway, tAt(60)), tUp(Underway, tAt(90)), tUp(Complete, tAt(120))), tPtr(tAt(60))},
		{"planned: underway, back to scheduled, underway gives the first", tMaintenance(tUp(Scheduled, tAt(0)), tUp(Underway, tAt(60)), tUp(Scheduled, tAt(70)), tUp(Underway, tAt(80))), tPtr(tAt(60))},
		{"planned: cancelled before underway is null", tMaintenance(tUp(Scheduled, tAt(0)), tUp(Cancelled, tAt(30))), nil},
		{"planned: complete without underway is null", tMaintenance(tUp(Scheduled, tAt(0)), tUp(Complete, tAt(30))), nil},
		{"general: none", tGeneral(nil), nil},
		{"general with expiry: none", tGeneral(tPtr(tAt(60))), nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.n.BeganAt(); !tSameTimePtr(got, tc.want) {
				t.Errorf("BeganAt() = %s, want %s", tFmtTimePtr(got), tFmtTimePtr(tc.want))
			}
		})
	}
}

func TestNoticeEndedAt(t *testing.T) {
	tests := []struct {
		name string
		n    *Notice
		want *time.Time
	}{
		{"unplanned: open investigating", tIncident(tUp(Investigating, tAt(0))), nil},
		{"unplanned: identified", tIncident(tUp(Investigating, tAt(0)), tUp(Identified, tAt(5))), nil},
		{"unplanned: recovering is still open", tIncident(tUp(Investigating, tAt(0)), tUp(Recovering, tAt(30))), nil},
		{"unplanned: resolved once", tIncident(tUp(Investigating, tAt(0)), tUp(Resolved, tAt(60))), tPtr(tAt(60))},
		{"unplanned: resolved, resolved again later gives the first of the final run",
			tIncident(tUp(Investigating, tAt(0)), tUp(Resolved, tAt(60)), tUp(Resolved, tAt(200))), tPtr(tAt(60))},
		{"unplanned: resolved, reopened, resolved gives the last run",
			tIncident(tUp(Investigating, tAt(0)), tUp(Resolved, tAt(60)), tUp(Investigating, tAt(100)), tUp(Resolved, tAt(150))), tPtr(tAt(150))},
		{"unplanned: resolved, reopened, resolved twice gives the start of the last run",
			tIncident(tUp(Investigating, tAt(0)), tUp(Resolved, tAt(60)), tUp(Identified, tAt(100)), tUp(Resolved, tAt(150)), tUp(Resolved, tAt(170))), tPtr(tAt(150))},
		{"unplanned: reopened and still open", tIncident(tUp(Investigating, tAt(0)), tUp(Resolved, tAt(60)), tUp(Investigating, tAt(100))), nil},
		{"unplanned: resolved then false_alarm form one run",
			tIncident(tUp(Investigating, tAt(0)), tUp(Resolved, tAt(60)), tUp(FalseAlarm, tAt(90))), tPtr(tAt(60))},
		{"unplanned: false alarm", tIncident(tUp(Investigating, tAt(0)), tUp(FalseAlarm, tAt(5))), tPtr(tAt(5))},
		{"unplanned: first update already resolved", tIncident(tUp(Resolved, tAt(7))), tPtr(tAt(7))},
		{"unplanned: recovering then resolved", tIncident(tUp(Investigating, tAt(0)), tUp(Recovering, tAt(20)), tUp(Resolved, tAt(40))), tPtr(tAt(40))},
		{"unplanned: no updates", tIncident(), nil},
		{"planned: scheduled", tMaintenance(tUp(Scheduled, tAt(0))), nil},
		{"planned: underway", tMaintenance(tUp(Scheduled, tAt(0)), tUp(Underway, tAt(60))), nil},
		{"planned: complete", tMaintenance(tUp(Scheduled, tAt(0)), tUp(Underway, tAt(60)), tUp(Complete, tAt(120))), tPtr(tAt(120))},
		{"planned: complete twice gives the first", tMaintenance(tUp(Underway, tAt(60)), tUp(Complete, tAt(120)), tUp(Complete, tAt(130))), tPtr(tAt(120))},
		{"planned: cancelled before underway ends at the cancel", tMaintenance(tUp(Scheduled, tAt(0)), tUp(Cancelled, tAt(30))), tPtr(tAt(30))},
		{"planned: complete, underway again, complete gives the last run",
			tMaintenance(tUp(Underway, tAt(0)), tUp(Complete, tAt(30)), tUp(Underway, tAt(40)), tUp(Complete, tAt(50))), tPtr(tAt(50))},
		{"general: none", tGeneral(nil), nil},
		{"general with expiry: none", tGeneral(tPtr(tAt(60))), nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.n.EndedAt(); !tSameTimePtr(got, tc.want) {
				t.Errorf("EndedAt() = %s, want %s", tFmtTimePtr(got), tFmtTimePtr(tc.want))
			}
		})
	}
}

func TestNoticeTimeline(t *testing.T) {
	const ms = time.Millisecond
	week := 7 * 24 * time.Hour
	resolvedAt := tAt(60)
	resolved := tIncident(tUp(Investigating, tAt(0)), tUp(Resolved, resolvedAt))
	expiry := tAt(120)
	tests := []struct {
		name     string
		n        *Notice
		now      time.Time
		want     TimelineState
		wantNext time.Time // zero: never changes by itself
	}{
		{"unplanned investigating is present", tIncident(tUp(Investigating, tAt(0))), tAt(10), Present, time.Time{}},
		{"unplanned identified is present", tIncident(tUp(Investigating, tAt(0)), tUp(Identified, tAt(5))), tAt(10), Present, time.Time{}},
		{"unplanned recovering is present", tIncident(tUp(Investigating, tAt(0)), tUp(Recovering, tAt(5))), tAt(10), Present, time.Time{}},
		{"unplanned open for months is still present", tIncident(tUp(Investigating, tAt(0))), tAt(0).Add(200 * 24 * time.Hour), Present, time.Time{}},
		{"resolved just now is past_recent", resolved, resolvedAt, PastRecent, resolvedAt.Add(week)},
		{"resolved an hour ago is past_recent", resolved, resolvedAt.Add(time.Hour), PastRecent, resolvedAt.Add(week)},
		{"resolved 7 days minus 1ms ago is past_recent", resolved, resolvedAt.Add(week - ms), PastRecent, resolvedAt.Add(week)},
		{"resolved exactly 7 days ago is past_distant", resolved, resolvedAt.Add(week), PastDistant, time.Time{}},
		{"resolved 7 days and 1ms ago is past_distant", resolved, resolvedAt.Add(week + ms), PastDistant, time.Time{}},
		{"resolved a year ago is past_distant", resolved, resolvedAt.Add(365 * 24 * time.Hour), PastDistant, time.Time{}},
		{"false alarm is past_recent", tIncident(tUp(Investigating, tAt(0)), tUp(FalseAlarm, tAt(5))), tAt(10), PastRecent, tAt(5).Add(week)},
		{"resolved twice counts from the first of the final run",
			tIncident(tUp(Investigating, tAt(0)), tUp(Resolved, tAt(60)), tUp(Resolved, tAt(60).Add(3*24*time.Hour))),
			tAt(60).Add(week), PastDistant, time.Time{}},
		{"resolved, reopened, resolved counts from the last run",
			tIncident(tUp(Investigating, tAt(0)), tUp(Resolved, tAt(60)), tUp(Investigating, tAt(60).Add(5*24*time.Hour)), tUp(Resolved, tAt(60).Add(6*24*time.Hour))),
			tAt(60).Add(week + time.Hour), PastRecent, tAt(60).Add(6*24*time.Hour + week)},
		{"planned scheduled is future", tMaintenance(tUp(Scheduled, tAt(0))), tAt(10), Future, time.Time{}},
		{"planned underway is present", tMaintenance(tUp(Scheduled, tAt(0)), tUp(Underway, tAt(60))), tAt(70), Present, time.Time{}},
		{"planned complete is past_recent", tMaintenance(tUp(Underway, tAt(0)), tUp(Complete, tAt(60))), tAt(70), PastRecent, tAt(60).Add(week)},
		{"planned complete 7 days ago is past_distant", tMaintenance(tUp(Underway, tAt(0)), tUp(Complete, tAt(60))), tAt(60).Add(week), PastDistant, time.Time{}},
		{"planned cancelled before underway is past_recent from the cancel",
			tMaintenance(tUp(Scheduled, tAt(0)), tUp(Cancelled, tAt(30))), tAt(40), PastRecent, tAt(30).Add(week)},
		{"general without expiry is present", tGeneral(nil), tAt(10), Present, time.Time{}},
		{"general without expiry is present forever", tGeneral(nil), tAt(0).Add(10 * 365 * 24 * time.Hour), Present, time.Time{}},
		{"general before expires_at is present until it", tGeneral(tPtr(expiry)), tAt(10), Present, expiry},
		{"general 1ms before expires_at is present", tGeneral(tPtr(expiry)), expiry.Add(-ms), Present, expiry},
		{"general at expires_at is past_recent", tGeneral(tPtr(expiry)), expiry, PastRecent, expiry.Add(week)},
		{"general after expires_at is past_recent", tGeneral(tPtr(expiry)), expiry.Add(time.Hour), PastRecent, expiry.Add(week)},
		{"general 7 days minus 1ms after expiry is past_recent", tGeneral(tPtr(expiry)), expiry.Add(week - ms), PastRecent, expiry.Add(week)},
		{"general exactly 7 days after expiry is past_distant", tGeneral(tPtr(expiry)), expiry.Add(week), PastDistant, time.Time{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, next := tc.n.Timeline(tc.now)
			if got != tc.want {
				t.Errorf("Timeline(%s) state = %q, want %q", tc.now.Format(time.RFC3339Nano), got, tc.want)
			}
			if !next.Equal(tc.wantNext) {
				t.Errorf("Timeline(%s) next = %s, want %s", tc.now.Format(time.RFC3339Nano),
					next.Format(time.RFC3339Nano), tc.wantNext.Format(time.RFC3339Nano))
			}
			if !next.IsZero() && !next.After(tc.now) {
				t.Errorf("next change %s is not after now %s", next, tc.now)
			}
			if !next.IsZero() {
				// At the announced moment the state really changes, and
				// just before it, it does not.
				if before, _ := tc.n.Timeline(next.Add(-ms)); before != got {
					t.Errorf("state 1ms before next change = %q, want %q", before, got)
				}
				if after, _ := tc.n.Timeline(next); after == got {
					t.Errorf("state at next change is still %q", after)
				}
			}
		})
	}
}

func TestNoticeIsCurrentIncidentAndIsUnderway(t *testing.T) {
	tests := []struct {
		name        string
		n           *Notice
		wantCurrent bool
		wantUnder   bool
	}{
		{"investigating", tIncident(tUp(Investigating, tAt(0))), true, false},
		{"identified", tIncident(tUp(Investigating, tAt(0)), tUp(Identified, tAt(5))), true, false},
		{"recovering is not current", tIncident(tUp(Investigating, tAt(0)), tUp(Recovering, tAt(5))), false, false},
		{"resolved", tIncident(tUp(Investigating, tAt(0)), tUp(Resolved, tAt(5))), false, false},
		{"false alarm", tIncident(tUp(Investigating, tAt(0)), tUp(FalseAlarm, tAt(5))), false, false},
		{"reopened after resolved", tIncident(tUp(Investigating, tAt(0)), tUp(Resolved, tAt(5)), tUp(Investigating, tAt(9))), true, false},
		{"back from recovering to identified", tIncident(tUp(Investigating, tAt(0)), tUp(Recovering, tAt(5)), tUp(Identified, tAt(9))), true, false},
		{"unplanned without updates", tIncident(), false, false},
		{"planned scheduled", tMaintenance(tUp(Scheduled, tAt(0))), false, false},
		{"planned underway", tMaintenance(tUp(Scheduled, tAt(0)), tUp(Underway, tAt(5))), false, true},
		{"planned complete", tMaintenance(tUp(Underway, tAt(0)), tUp(Complete, tAt(5))), false, false},
		{"planned cancelled", tMaintenance(tUp(Scheduled, tAt(0)), tUp(Cancelled, tAt(5))), false, false},
		{"general", tGeneral(nil), false, false},
		// A planned notice can never carry an unplanned state, but the type
		// decides even if one did.
		{"planned notice carrying investigating", tMaintenance(tUp(Investigating, tAt(0))), false, false},
		{"unplanned notice carrying underway", tIncident(tUp(Underway, tAt(0))), false, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.n.IsCurrentIncident(); got != tc.wantCurrent {
				t.Errorf("IsCurrentIncident() = %v, want %v", got, tc.wantCurrent)
			}
			if got := tc.n.IsUnderway(); got != tc.wantUnder {
				t.Errorf("IsUnderway() = %v, want %v", got, tc.wantUnder)
			}
		})
	}
}

func tNotices(ns ...*Notice) []Notice {
	out := make([]Notice, len(ns))
	for i, n := range ns {
		out[i] = *n
		out[i].ID = int64(i + 1)
	}
	return out
}

func tWithComps(n *Notice, ids ...int64) *Notice {
	n.ComponentIDs = ids
	return n
}

// tListed yields the notices with the components they list, as DeriveStates
// takes them.
func tListed(ns []Notice) iter.Seq2[StateNotice, []int64] {
	return func(yield func(StateNotice, []int64) bool) {
		for i := range ns {
			if !yield(&ns[i], ns[i].ComponentIDs) {
				return
			}
		}
	}
}

func TestDerivePageState(t *testing.T) {
	open := func() *Notice { return tIncident(tUp(Investigating, tAt(0))) }
	identified := func() *Notice { return tIncident(tUp(Investigating, tAt(0)), tUp(Identified, tAt(5))) }
	recovering := func() *Notice { return tIncident(tUp(Investigating, tAt(0)), tUp(Recovering, tAt(5))) }
	resolved := func() *Notice { return tIncident(tUp(Investigating, tAt(0)), tUp(Resolved, tAt(5))) }
	underway := func() *Notice { return tMaintenance(tUp(Scheduled, tAt(0)), tUp(Underway, tAt(5))) }
	scheduled := func() *Notice { return tMaintenance(tUp(Scheduled, tAt(0))) }
	complete := func() *Notice { return tMaintenance(tUp(Underway, tAt(0)), tUp(Complete, tAt(5))) }
	tests := []struct {
		name string
		ns   []Notice
		want PageState
	}{
		{"no notices", nil, PageOperational},
		{"only a general notice", tNotices(tGeneral(nil)), PageOperational},
		{"resolved incident", tNotices(resolved()), PageOperational},
		{"recovering incident is not current", tNotices(recovering()), PageOperational},
		{"scheduled maintenance", tNotices(scheduled()), PageOperational},
		{"complete maintenance", tNotices(complete()), PageOperational},
		{"investigating incident", tNotices(open()), PageDegraded},
		{"identified incident", tNotices(identified()), PageDegraded},
		{"underway maintenance", tNotices(underway()), PageUnderMaintenance},
		{"maintenance listed before incident: degraded wins", tNotices(underway(), open()), PageDegraded},
		{"incident listed before maintenance: degraded wins", tNotices(identified(), underway()), PageDegraded},
		{"recovering incident and underway maintenance", tNotices(recovering(), underway()), PageUnderMaintenance},
		{"many closed notices", tNotices(resolved(), complete(), recovering(), scheduled(), tGeneral(nil)), PageOperational},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got, _ := DeriveStates(nil, tListed(tc.ns)); got != tc.want {
				t.Errorf("DeriveStates() page = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestDeriveComponentStates(t *testing.T) {
	open := func(ids ...int64) *Notice { return tWithComps(tIncident(tUp(Investigating, tAt(0))), ids...) }
	recovering := func(ids ...int64) *Notice {
		return tWithComps(tIncident(tUp(Investigating, tAt(0)), tUp(Recovering, tAt(5))), ids...)
	}
	resolved := func(ids ...int64) *Notice {
		return tWithComps(tIncident(tUp(Investigating, tAt(0)), tUp(Resolved, tAt(5))), ids...)
	}
	underway := func(ids ...int64) *Notice {
		return tWithComps(tMaintenance(tUp(Scheduled, tAt(0)), tUp(Underway, tAt(5))), ids...)
	}
	scheduled := func(ids ...int64) *Notice { return tWithComps(tMaintenance(tUp(Scheduled, tAt(0))), ids...) }
	const (
		deg   = PageDegraded
		maint = PageUnderMaintenance
	)
	// The tree of the roll-up cases (CONTRACT C3: a component's state is
	// the worst over itself and its descendants):
	//
	//	1
	//	├── 11
	//	│   └── 111
	//	└── 12
	//	2
	//	└── 21
	comp := func(id int64, parent ...int64) Component {
		c := Component{ID: id}
		if len(parent) > 0 {
			c.ParentID = &parent[0]
		}
		return c
	}
	tree := []Component{comp(1), comp(11, 1), comp(111, 11), comp(12, 1), comp(2), comp(21, 2)}
	tests := []struct {
		name string
		tree []Component
		ns   []Notice
		want map[int64]PageState
	}{
		{"no notices", nil, nil, map[int64]PageState{}},
		{"incident lists two components", nil, tNotices(open(1, 2)), map[int64]PageState{1: deg, 2: deg}},
		{"maintenance lists a component", nil, tNotices(underway(3)), map[int64]PageState{3: maint}},
		{"degraded wins over maintenance (maintenance first)", nil, tNotices(underway(1, 2), open(1)), map[int64]PageState{1: deg, 2: maint}},
		{"degraded wins over maintenance (incident first)", nil, tNotices(open(1), underway(1, 2)), map[int64]PageState{1: deg, 2: maint}},
		{"recovering incident is not current", nil, tNotices(recovering(1)), map[int64]PageState{}},
		{"recovering incident does not beat maintenance", nil, tNotices(recovering(1), underway(1)), map[int64]PageState{1: maint}},
		{"resolved incident", nil, tNotices(resolved(1)), map[int64]PageState{}},
		{"scheduled maintenance", nil, tNotices(scheduled(1)), map[int64]PageState{}},
		{"general notice listing components changes nothing", nil, tNotices(tWithComps(tGeneral(nil), 1)), map[int64]PageState{}},
		// Without a tree, a child listed alone (11, child of 1) changes
		// only itself.
		{"no tree: only the listed components", nil, tNotices(open(11), underway(12)), map[int64]PageState{11: deg, 12: maint}},
		{"incident without components", nil, tNotices(open()), map[int64]PageState{}},
		{"a degraded grandchild degrades its ancestors only", tree, tNotices(open(111)),
			map[int64]PageState{111: deg, 11: deg, 1: deg}},
		{"maintenance on a child puts its group under maintenance", tree, tNotices(underway(21)),
			map[int64]PageState{21: maint, 2: maint}},
		{"a degraded child wins over its group's own maintenance", tree, tNotices(underway(1), open(12)),
			map[int64]PageState{1: deg, 12: deg}},
		{"a degraded child wins, whatever the order", tree, tNotices(open(12), underway(1)),
			map[int64]PageState{1: deg, 12: deg}},
		{"a group's own degradation stays over a child's maintenance", tree, tNotices(open(1), underway(11)),
			map[int64]PageState{1: deg, 11: maint}},
		{"siblings: maintenance, then degraded", tree, tNotices(underway(11), open(12)),
			map[int64]PageState{1: deg, 11: maint, 12: deg}},
		{"closed notices roll nothing up", tree, tNotices(resolved(111)), map[int64]PageState{}},
		{"a group's state does not go down to its children", tree, tNotices(open(2)), map[int64]PageState{2: deg}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, got := DeriveStates(tc.tree, tListed(tc.ns))
			if !maps.Equal(got, tc.want) {
				t.Errorf("DeriveStates() components = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestNoticeChangedAt(t *testing.T) {
	n := tIncident(tUp(Investigating, tAt(0)), tUp(Resolved, tAt(30)))
	n.UpdatedAt = tAt(40)
	if got := n.ChangedAt(); !got.Equal(tAt(40)) {
		t.Errorf("notice updated last: ChangedAt %v, want %v", got, tAt(40))
	}
	n.Updates[0].UpdatedAt = tAt(50) // the first update edited later
	if got := n.ChangedAt(); !got.Equal(tAt(50)) {
		t.Errorf("update edited last: ChangedAt %v, want %v", got, tAt(50))
	}
	n.Updates[1].CreatedAt, n.Updates[1].UpdatedAt = tAt(60), tAt(60)
	if got := n.ChangedAt(); !got.Equal(tAt(60)) {
		t.Errorf("update posted last: ChangedAt %v, want %v", got, tAt(60))
	}
}

// TestWords: every state and every notice type has a word for readers,
// and no two states share one.
func TestWords(t *testing.T) {
	seen := map[string]State{}
	for _, typ := range NoticeTypes {
		if typ.Word() == "" {
			t.Errorf("type %s has no word", typ)
		}
		for _, s := range States(typ) {
			w := s.Word()
			if w == "" || seen[w] != "" {
				t.Errorf("state %s: word %q (also %q's)", s, w, seen[w])
			}
			seen[w] = s
		}
	}
	if Underway.Word() != "In progress" || State("").Word() != "" {
		t.Errorf("underway %q, general %q", Underway.Word(), State("").Word())
	}
}

// TestDeriveSeverities: a component takes the worst severity of the
// current incidents that list it or a descendant; one that none lists is
// missing. The tree: 1 > 2 > 3, and 4 alone.
func TestDeriveSeverities(t *testing.T) {
	one, two := int64(1), int64(2)
	comps := []Component{{ID: 1}, {ID: 2, ParentID: &one}, {ID: 3, ParentID: &two}, {ID: 4}}
	type incident struct {
		sev Severity
		ids []int64
	}
	for _, tc := range []struct {
		name      string
		incidents []incident
		want      map[int64]Severity
	}{
		{"none", nil, map[int64]Severity{}},
		{"a minor one on 3 (the zero severity is minor) reaches its ancestors", []incident{{"", []int64{3}}},
			map[int64]Severity{1: SeverityMinor, 2: SeverityMinor, 3: SeverityMinor}},
		{"minor on 3, major on 2, critical on 4", []incident{{SeverityMinor, []int64{3}}, {SeverityMajor, []int64{2}}, {SeverityCritical, []int64{4}}},
			map[int64]Severity{1: SeverityMajor, 2: SeverityMajor, 3: SeverityMinor, 4: SeverityCritical}},
		{"critical on 3 first, then minor on 1 lowers nothing", []incident{{SeverityCritical, []int64{3}}, {SeverityMinor, []int64{1}}},
			map[int64]Severity{1: SeverityCritical, 2: SeverityCritical, 3: SeverityCritical}},
		{"minor on 1 first, then critical on 3 raises the way up", []incident{{SeverityMinor, []int64{1}}, {SeverityCritical, []int64{3, 4}}},
			map[int64]Severity{1: SeverityCritical, 2: SeverityCritical, 3: SeverityCritical, 4: SeverityCritical}},
	} {
		got := DeriveSeverities(comps, func(yield func(Severity, []int64) bool) {
			for _, in := range tc.incidents {
				if !yield(in.sev, in.ids) {
					return
				}
			}
		})
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}
