package snapshot

import (
	"cmp"
	"time"
	"unsafe"

	"github.com/statusd/statusd"
)

// Notice is a notice with its derived timeline state and impacts. It
// depends on the notice alone (and the moment), never on other notices or
// components, so that snapshots can share it.
//
// A page holds up to hundreds of thousands of notices, and every cycle of
// the garbage collector looks at each pointer they hold: as statusd.Notice
// values (strings, slices, times) they made up most of what a collection
// marked, work that slows requests down while it runs on a busy core. So a
// Notice holds numbers only, but for one pointer, to the arena that keeps
// its texts, component ids, updates and impacts: times as instants,
// enumerations as indexes, its parts in the arena as spans. Its methods
// answer what the fields and methods of statusd.Notice tell. Times are in
// UTC.
//
// One pointer, and not two: the collector scans an array of structs with a
// single pointer each several times faster than one whose structs hold a
// second, even a nil one.
//
// Kept because measured (the 100,000 notices of bench/run.sh):
// with a Notice holding its statusd.Notice instead, the resident memory
// after warm-up was 319 MB against 165 (bench/run.sh; target 300 MB), the
// live heap 131 MB against 88 (GODEBUG=gctrace=1), one whole collection
// 8.6 ms against 0.9 (go test ./internal/api -run '^$' -bench Collect),
// and /api/v1/status, plain and 304, 3-10% slower (wrk, interleaved).
type Notice struct {
	arena *arena
	// ID is the notice's id.
	ID int64
	// whole is where the arena keeps the notice as given, plus one; 0: it
	// does not. See arena.whole.
	whole int32
	// slot is the notice's place in the snapshots that hold it (see
	// Snapshot.slot).
	slot int32

	typ      uint8 // an index in noticeTypes
	timeline uint8 // an index in timelineStates
	state    uint8 // an index in states
	severity uint8 // an index in severities
	automate bool
	// open is set when the impact reaches past the moment the notice was
	// derived, so that it depends on the time of the request.
	open                        bool
	currentIncident, underway   bool
	hasBegan, hasEnded, hasNext bool
	hasBeginsAt, hasEndsAt      bool
	hasExpiresAt, hasImpactSet  bool
	created, updated            instant
	changed                     instant // see ChangedAt
	beginsAt, endsAt, expiresAt instant
	began, ended                instant
	next                        instant // when the timeline state changes by itself (hasNext)
	impactSet                   int64   // the impact_seconds the notice sets (hasImpactSet)
	impactEnded                 int64   // ImpactSecondsAt of any moment after the impacts end
	subject, tags, components   span    // in text, tags and ints
	updates, impactSpan         span    // in records and intervals
	contents                    int     // where the update contents start in text; records end relative to it
	changes                     int     // where the updates' changes start in ints (updateRecord.changes)
}

// instant is a time in UTC without the pointer of time.Time: seconds and
// nanoseconds since 1970.
type instant struct {
	sec int64
	ns  int32
}

func instantOf(t time.Time) instant { return instant{t.Unix(), int32(t.Nanosecond())} }

func (i instant) time() time.Time { return time.Unix(i.sec, int64(i.ns)).UTC() }

func (i instant) compare(j instant) int {
	return cmp.Or(cmp.Compare(i.sec, j.sec), cmp.Compare(i.ns, j.ns))
}

// optional returns the instant as a *time.Time, nil unless ok.
func (i instant) optional(ok bool) *time.Time {
	if !ok {
		return nil
	}
	t := i.time()
	return &t
}

// optionalInstant returns *t as an instant, and whether t is set.
func optionalInstant(t *time.Time) (instant, bool) {
	if t == nil {
		return instant{}, false
	}
	return instantOf(*t), true
}

// span is the range [start, end) of an array of an arena.
type span struct{ start, end int }

func (s span) len() int { return s.end - s.start }

// arena keeps the variable parts of notices, each kind in one array
// without pointers. Build derives a whole page into one arena; a notice
// derived after a write has its own. Nothing in an arena is written again
// once a notice holds it.
type arena struct {
	text      []byte
	tags      []span // in text
	ints      []int64
	records   []updateRecord
	intervals [][2]int64 // in Unix milliseconds
	// whole keeps the notices as given that their compact form cannot give
	// back exactly: a type or a state statusd does not know, or update
	// contents past 4 GB. It is empty on a valid page.
	whole []statusd.Notice
}

// size is room in an arena: lengths of its arrays.
type size struct{ text, tags, ints, records, intervals int }

func (s size) plus(t size) size {
	return size{s.text + t.text, s.tags + t.tags, s.ints + t.ints, s.records + t.records, s.intervals + t.intervals}
}

// sizeOf returns the room src takes in an arena, but for its impacts, of
// which it counts one.
func sizeOf(src *statusd.Notice) size {
	s := size{text: len(src.Subject), tags: len(src.TagList), ints: len(src.ComponentIDs), records: len(src.Updates), intervals: 1}
	for _, t := range src.TagList {
		s.text += len(t)
	}
	for _, u := range src.Updates {
		s.text += len(u.Content)
		s.ints += 3 * len(u.Changes)
	}
	return s
}

func newArena(s size) *arena {
	return &arena{
		text: make([]byte, 0, s.text), tags: make([]span, 0, s.tags), ints: make([]int64, 0, s.ints),
		records: make([]updateRecord, 0, s.records), intervals: make([][2]int64, 0, s.intervals),
	}
}

func (a *arena) addText(s string) span {
	start := len(a.text)
	a.text = append(a.text, s...)
	return span{start, len(a.text)}
}

// str returns the text in s. Its bytes are never written again (the way
// strings.Builder makes its string).
func (a *arena) str(s span) string {
	if s.len() == 0 {
		return ""
	}
	return unsafe.String(&a.text[s.start], s.len())
}

// noticeTypes, timelineStates and severities are what Notice's indexes
// name.
var (
	noticeTypes    = []statusd.NoticeType{"", statusd.Unplanned, statusd.Planned, statusd.General}
	timelineStates = []statusd.TimelineState{"", statusd.Future, statusd.Present, statusd.PastRecent, statusd.PastDistant}
	severities     = []statusd.Severity{"", statusd.SeverityMinor, statusd.SeverityMajor, statusd.SeverityCritical}
)

// indexOf returns the index of v in list, and whether it is there.
func indexOf[T comparable](list []T, v T) (uint8, bool) {
	for i, w := range list {
		if w == v {
			return uint8(i), true
		}
	}
	return 0, false
}

// newNotice derives a notice at now, in an arena of its own. Its resources
// are made per request (and then cached as bytes), so that a page of
// 100,000 notices costs little memory and starts fast.
func newNotice(src statusd.Notice, now time.Time) *Notice {
	n := new(Notice)
	derive(n, src, now, newArena(sizeOf(&src)))
	return n
}

// derive fills n with src derived at now, its parts appended to a.
func derive(n *Notice, src statusd.Notice, now time.Time, a *arena) {
	*n = Notice{ID: src.ID, arena: a, automate: src.Automate,
		created: instantOf(src.CreatedAt), updated: instantOf(src.UpdatedAt), changed: instantOf(src.ChangedAt()),
		currentIncident: src.IsCurrentIncident(), underway: src.IsUnderway(),
		impactEnded: src.ImpactSecondsAt(forever)}
	n.subject = a.addText(src.Subject)
	n.tags.start = len(a.tags)
	for _, t := range src.TagList {
		a.tags = append(a.tags, a.addText(t))
	}
	n.tags.end = len(a.tags)
	n.components = span{len(a.ints), len(a.ints) + len(src.ComponentIDs)}
	a.ints = append(a.ints, src.ComponentIDs...)
	if src.ImpactSeconds != nil {
		n.impactSet, n.hasImpactSet = *src.ImpactSeconds, true
	}
	n.beginsAt, n.hasBeginsAt = optionalInstant(src.BeginsAt)
	n.endsAt, n.hasEndsAt = optionalInstant(src.EndsAt)
	n.expiresAt, n.hasExpiresAt = optionalInstant(src.ExpiresAt)
	n.began, n.hasBegan = optionalInstant(src.BeganAt())
	n.ended, n.hasEnded = optionalInstant(src.EndedAt())

	timeline, next := src.Timeline(now)
	n.timeline, _ = indexOf(timelineStates, timeline)
	n.next, n.hasNext = instantOf(next), !next.IsZero()
	n.impactSpan.start = len(a.intervals)
	for _, iv := range src.Impact(forever) {
		a.intervals = append(a.intervals, [2]int64{iv.Start.UnixMilli(), iv.End.UnixMilli()})
	}
	n.impactSpan.end = len(a.intervals)
	// An impact still going on, or (from updates dated in the future) one
	// that ends after now, is measured per request against now.
	imp := n.impacts()
	n.open = len(imp) > 0 && imp[len(imp)-1][1] > now.UnixMilli()

	typ, knownType := indexOf(noticeTypes, src.Type)
	state, knownState := indexOf(states, src.State())
	severity, knownSeverity := indexOf(severities, src.Severity)
	n.typ, n.state, n.severity = typ, state, severity
	if !knownType || !knownState || !knownSeverity || !n.addUpdates(src.Updates) {
		a.whole = append(a.whole, src)
		n.whole = int32(len(a.whole))
	}
}

// kept returns the notice as given, when the arena keeps it, or nil.
func (n *Notice) kept() *statusd.Notice {
	if n.whole == 0 {
		return nil
	}
	return &n.arena.whole[n.whole-1]
}

// impacts returns the notice's impact intervals in Unix milliseconds; an
// impact still going on ends at forever.
func (n *Notice) impacts() [][2]int64 {
	return n.arena.intervals[n.impactSpan.start:n.impactSpan.end:n.impactSpan.end]
}

// nextChange returns when the timeline state changes by itself; zero:
// never.
func (n *Notice) nextChange() time.Time {
	if !n.hasNext {
		return time.Time{}
	}
	return n.next.time()
}

// Type is the notice's type.
func (n *Notice) Type() statusd.NoticeType {
	if w := n.kept(); w != nil {
		return w.Type
	}
	return noticeTypes[n.typ]
}

// Timeline is the notice's timeline state at the moment it was derived.
func (n *Notice) Timeline() statusd.TimelineState { return timelineStates[n.timeline] }

// Subject is the notice's subject.
func (n *Notice) Subject() string { return n.arena.str(n.subject) }

// TagList returns the notice's tags, nil when it has none.
func (n *Notice) TagList() []string {
	if n.tags.len() == 0 {
		return nil
	}
	out := make([]string, n.tags.len())
	for i, t := range n.arena.tags[n.tags.start:n.tags.end] {
		out[i] = n.arena.str(t)
	}
	return out
}

// ComponentIDs returns the ids of the components the notice lists, nil
// when it lists none. The caller must not modify them.
func (n *Notice) ComponentIDs() []int64 {
	if n.components.len() == 0 {
		return nil
	}
	return n.arena.ints[n.components.start:n.components.end:n.components.end]
}

// ImpactSeconds is the impact the notice sets, overriding the computed
// one; nil when it sets none.
func (n *Notice) ImpactSeconds() *int64 {
	if !n.hasImpactSet {
		return nil
	}
	v := n.impactSet
	return &v
}

// Severity is how badly an unplanned notice hurts (zero: minor).
func (n *Notice) Severity() statusd.Severity {
	if w := n.kept(); w != nil {
		return w.Severity
	}
	return severities[n.severity]
}

// BeginsAt is when a planned notice is scheduled to begin.
func (n *Notice) BeginsAt() *time.Time { return n.beginsAt.optional(n.hasBeginsAt) }

// EndsAt is when a planned notice is scheduled to end.
func (n *Notice) EndsAt() *time.Time { return n.endsAt.optional(n.hasEndsAt) }

// ExpiresAt is when a general notice ends; nil: never.
func (n *Notice) ExpiresAt() *time.Time { return n.expiresAt.optional(n.hasExpiresAt) }

// Automate reports whether statusd moves a planned notice on schedule.
func (n *Notice) Automate() bool { return n.automate }

// CreatedAt is when the notice was created.
func (n *Notice) CreatedAt() time.Time { return n.created.time() }

// UpdatedAt is when the notice was last changed.
func (n *Notice) UpdatedAt() time.Time { return n.updated.time() }

// ChangedAt is the latest of the notice's updated_at and its updates'
// times (statusd.Notice.ChangedAt).
func (n *Notice) ChangedAt() time.Time { return n.changed.time() }

// Full returns the notice with its updates, as statusd.Notice.
func (n *Notice) Full() statusd.Notice {
	if w := n.kept(); w != nil {
		return *w
	}
	return statusd.Notice{
		ID: n.ID, Type: n.Type(), Subject: n.Subject(), TagList: n.TagList(), ComponentIDs: n.ComponentIDs(),
		ImpactSeconds: n.ImpactSeconds(), Severity: n.Severity(), BeginsAt: n.BeginsAt(), EndsAt: n.EndsAt(), Automate: n.automate,
		ExpiresAt: n.ExpiresAt(), CreatedAt: n.CreatedAt(), UpdatedAt: n.UpdatedAt(), Updates: n.Updates(),
	}
}

// The methods below are those of statusd.Notice, answered from what derive
// worked out, or from the notice made whole again. TestNoticeMethods fails
// when statusd.Notice gains a method that is not answered here.

// State is statusd.Notice.State.
func (n *Notice) State() statusd.State {
	if w := n.kept(); w != nil {
		return w.State()
	}
	return states[n.state]
}

// IsCurrentIncident is statusd.Notice.IsCurrentIncident.
func (n *Notice) IsCurrentIncident() bool { return n.currentIncident }

// IsUnderway is statusd.Notice.IsUnderway.
func (n *Notice) IsUnderway() bool { return n.underway }

// BeganAt is statusd.Notice.BeganAt.
func (n *Notice) BeganAt() *time.Time { return n.began.optional(n.hasBegan) }

// EndedAt is statusd.Notice.EndedAt.
func (n *Notice) EndedAt() *time.Time { return n.ended.optional(n.hasEnded) }

// Impact is statusd.Notice.Impact.
func (n *Notice) Impact(now time.Time) []statusd.Interval {
	f := n.Full()
	return f.Impact(now)
}

// ImpactSecondsAt is statusd.Notice.ImpactSecondsAt. Once every impact
// has ended, it no longer moves with the clock.
func (n *Notice) ImpactSecondsAt(now time.Time) int64 {
	if imp := n.impacts(); len(imp) == 0 || now.UnixMilli() > imp[len(imp)-1][1] {
		return n.impactEnded
	}
	f := n.Full()
	return f.ImpactSecondsAt(now)
}

// AutomationDue is statusd.Notice.AutomationDue.
func (n *Notice) AutomationDue(now time.Time) (statusd.State, bool) {
	f := n.Full()
	return f.AutomationDue(now)
}
