// Package snapshot is the read model of statusd: an immutable view of a page
// at a moment, with every state derived (CONTRACT C3), indexes for the public
// filters, per-component merged impact intervals for metrics (C4), the
// time-independent parts of every response, and ValidUntil, the next moment
// at which a time rule changes it.
//
// A snapshot is built whole from a statusd.Document (Build), or from the
// previous one and what a write changed (With), or again when a time rule
// fires (Retime): the derived parts of every notice that did not change are
// reused, so that a write shows in milliseconds whatever the page's size.
//
// A Snapshot is never modified after it is made; it is safe for concurrent
// use.
package snapshot

import (
	"cmp"
	"iter"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/statusd/statusd"
)

// PageSize is the number of records on a page of a collection (SPEC §8).
const PageSize = 25

// forever stands for the open end of an impact that is still going on.
var forever = time.UnixMilli(1 << 60).UTC()

// Options are the deployment settings that shape responses.
type Options struct {
	Variant statusd.Variant
	// BaseURL, when set, replaces the page's stored url (serve --base-url).
	BaseURL string
}

// Settings are the page's own stored data: its settings and its component
// tree, in position order.
type Settings struct {
	Page       statusd.Page
	Components []statusd.Component
}

// Snapshot is the page as of BuiltAt. See the package documentation.
type Snapshot struct {
	Options
	Doc        Settings
	Version    int64
	BuiltAt    time.Time
	ValidUntil time.Time // zero: no time rule changes the snapshot

	PageURL   string
	PageState statusd.PageState
	// Severity is the worst severity of the current incidents (never the
	// zero value: minor), "" when there is none.
	Severity statusd.Severity
	// UpdatedAt is when the page, a component or a notice last changed
	// (for a notice, statusd.Notice.ChangedAt): the page's updated_at, in
	// the v1 API as in Statuspage v2.
	UpdatedAt time.Time
	page      statusd.PageResource

	AllComponents []*Component // position order
	componentID   map[int64]*Component
	topLevel      []*Component

	// Every notice has a fixed place, its slot, so that the lists below
	// name notices by slot: lists of small numbers, which the garbage
	// collector does not look into, where lists of pointers would be
	// marked again at every collection. base holds the notices of the last
	// snapshot made whole, by value, in list order, and added those derived
	// since (see slot); a snapshot made from the previous one appends the
	// new notices to that one's, until the notices that left them are too
	// many and the indexes are made again (compact).
	base  []Notice
	added []*Notice
	order []int32 // the notices' slots newest first: created_at descending, then id descending
	byID  []int32 // slots by notice id, for lookups by binary search
	// open lists the notices whose impact reaches past the snapshot's moment.
	open []*Notice
	// Automated lists the planned notices that statusd moves on schedule and
	// that have a move left (scheduled or underway).
	Automated []*Notice
	// Scheduled lists the planned notices still scheduled, with a
	// begins_at: those whose reminder may be due (CONTRACT C7).
	Scheduled []*Notice
	// byTypeTimeline indexes notices, in list order, by type and timeline
	// state ("" for any).
	byTypeTimeline map[[2]string][]int32
}

// Component is a component with its derived state and metrics data.
type Component struct {
	*statusd.Component
	State statusd.PageState
	// Severity is the worst severity of the current incidents that list
	// the component or a descendant, as Snapshot.Severity.
	Severity statusd.Severity
	Children []*Component
	resource statusd.ComponentResource
	embedded statusd.EmbeddedComponent
	// counting lists, in list order, the notices that count for the
	// component's metrics (see counts), listing it or a descendant.
	counting []int32             // slots
	raw      [][2]int64          // the counting notices' impacts, in CompareIntervals order
	impacts  statusd.IntervalSet // their union
	hulls    hullIndex
}

// Build derives a snapshot of doc at now. doc must be valid and must not be
// modified afterwards.
func Build(doc *statusd.Document, version int64, now time.Time, opts Options) *Snapshot {
	settings := Settings{Page: doc.Page, Components: doc.Components}
	// One array holds every derived notice: the collector then marks one
	// object where it would mark 100,000, at every cycle.
	derived := make([]Notice, len(doc.Notices))
	var room size
	for i := range doc.Notices {
		room = room.plus(sizeOf(&doc.Notices[i]))
	}
	a := newArena(room)
	order := make([]int32, len(doc.Notices))
	for i := range doc.Notices {
		derive(&derived[i], doc.Notices[i], now, a)
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(i, j int32) int { return newestFirst(&derived[i], &derived[j]) })
	permute(derived, order)
	return assembleWhole(settings, derived, version, now, opts)
}

// permute puts the notices in the order given by the positions in order,
// in place, and leaves order as it found it.
func permute(notices []Notice, order []int32) {
	for start := range order {
		if order[start] < 0 {
			continue // moved with an earlier cycle
		}
		held := notices[start]
		i := start
		for {
			from := int(order[i])
			order[i] = ^order[i] // moved
			if from == start {
				notices[i] = held
				break
			}
			notices[i] = notices[from]
			i = from
		}
	}
	for i := range order {
		order[i] = ^order[i]
	}
}

func pageURL(p statusd.Page, opts Options) string {
	if opts.BaseURL != "" {
		return opts.BaseURL
	}
	return p.URL
}

func newestFirst(a, b *Notice) int {
	return cmp.Or(b.created.compare(a.created), cmp.Compare(b.ID, a.ID))
}

func byNoticeID(a, b *Notice) int { return cmp.Compare(a.ID, b.ID) }

// maxDelta is the largest change applied to the previous indexes.
const maxDelta = 256

// compact reports whether the slots hold so many notices that have left the
// snapshot that the indexes should be made again, without them.
func compact(slots, notices int) bool { return slots-notices > notices/4+maxDelta }

// delta is what changed between two lists of notices: the derived notices
// taken out and put in.
type delta struct {
	removed, added []*Notice
}

// newSnapshot is a snapshot of settings at now, without notices yet.
func newSnapshot(settings Settings, version int64, now time.Time, opts Options) *Snapshot {
	return &Snapshot{
		Options:     opts,
		Doc:         settings,
		Version:     version,
		BuiltAt:     now,
		PageURL:     pageURL(settings.Page, opts),
		componentID: make(map[int64]*Component, len(settings.Components)),
	}
}

// assemble makes a snapshot of notices (newest first) and settings at now,
// from prev and d (prev's notices with d applied are notices, and the
// component tree is prev's): the indexes are prev's with d applied, in time
// proportional to the change rather than to the page. Without d, or past
// a few hundred notices changed, where applying a change one notice at a
// time costs more than indexing again, the snapshot is made whole.
func assemble(settings Settings, notices []*Notice, version int64, now time.Time, opts Options,
	prev *Snapshot, d *delta) *Snapshot {
	if d == nil || len(d.removed)+len(d.added) > maxDelta || compact(prev.slots()+len(d.added), len(notices)) {
		base := make([]Notice, len(notices))
		for i, n := range notices {
			base[i] = *n
		}
		return assembleWhole(settings, base, version, now, opts)
	}
	s := newSnapshot(settings, version, now, opts)
	s.base = prev.base
	// Clipped, so that two snapshots made from prev never share the
	// appended slots.
	s.added = append(slices.Clip(prev.added), d.added...)
	added := make([]int32, len(d.added))
	for i, n := range d.added {
		added[i] = int32(prev.slots() + i)
		n.slot = added[i]
	}
	s.order = make([]int32, len(notices))
	for i, n := range notices {
		s.order[i] = n.slot
	}
	s.applyIndexes(prev, d, added)
	states, current := s.indexNotices()
	s.buildComponents(states, current)
	s.applyCounting(prev, d, added)
	s.finish()
	return s
}

// assembleWhole makes a snapshot of notices, in list order (newest first),
// and settings at now, indexing them whole. It keeps notices, and sets
// their slots.
func assembleWhole(settings Settings, notices []Notice, version int64, now time.Time, opts Options) *Snapshot {
	s := newSnapshot(settings, version, now, opts)
	s.base = notices
	s.order = make([]int32, len(notices))
	s.byTypeTimeline = make(map[[2]string][]int32)
	for i := range notices {
		n := &notices[i]
		n.slot = int32(i)
		s.order[i] = int32(i)
		for _, key := range typeTimelineKeys(n) {
			s.byTypeTimeline[key] = append(s.byTypeTimeline[key], int32(i))
		}
	}
	s.byID = slices.Clone(s.order)
	slices.SortFunc(s.byID, func(a, b int32) int { return byNoticeID(&notices[a], &notices[b]) })
	states, current := s.indexNotices()
	s.buildComponents(states, current)
	s.buildCounting()
	s.finish()
	return s
}

// finish makes the page resource, once the rest is made.
func (s *Snapshot) finish() {
	s.page = statusd.PageResource{
		Name:      s.Doc.Page.Name,
		State:     s.Variant.Name(s.PageState),
		StateText: s.Doc.Page.StateTexts.Text(s.PageState),
		URL:       s.PageURL,
		Links: statusd.PageLinks{
			Self:       statusd.APIRoot,
			Components: statusd.Link{Href: "/v1/components", Count: len(s.AllComponents)},
			Notices:    statusd.Link{Href: "/v1/notices", Count: len(s.order)},
		},
		CreatedAt: statusd.Time{Time: s.Doc.Page.CreatedAt},
		UpdatedAt: statusd.Time{Time: s.UpdatedAt},
	}
}

// slot returns the notice in a slot.
func (s *Snapshot) slot(i int32) *Notice {
	if int(i) < len(s.base) {
		return &s.base[i]
	}
	return s.added[int(i)-len(s.base)]
}

// slots is the number of slots, taken by notices or left by them.
func (s *Snapshot) slots() int { return len(s.base) + len(s.added) }

// AllNotices iterates over every notice, newest first (created_at
// descending, then id descending), with its position in that order.
func (s *Snapshot) AllNotices() iter.Seq2[int, *Notice] {
	return func(yield func(int, *Notice) bool) {
		for i, slot := range s.order {
			if !yield(i, s.slot(slot)) {
				return
			}
		}
	}
}

// NoticeCount is the number of notices.
func (s *Snapshot) NoticeCount() int { return len(s.order) }

// NoticeAt returns the notice at position i of AllNotices.
func (s *Snapshot) NoticeAt(i int) *Notice { return s.slot(s.order[i]) }

// typeTimelineKeys are the keys under which byTypeTimeline lists n.
func typeTimelineKeys(n *Notice) [4][2]string {
	typ, tl := string(n.Type()), string(n.Timeline())
	return [4][2]string{{"", ""}, {typ, ""}, {"", tl}, {typ, tl}}
}

// applyIndexes makes s's id and type/timeline indexes from prev's and d,
// whose added notices are in the slots added, copying only the lists d
// touches.
func (s *Snapshot) applyIndexes(prev *Snapshot, d *delta, added []int32) {
	s.byID = slices.Clone(prev.byID)
	s.byTypeTimeline = maps.Clone(prev.byTypeTimeline)
	copied := map[[2]string]bool{}
	list := func(key [2]string) []int32 {
		if !copied[key] {
			copied[key] = true
			s.byTypeTimeline[key] = slices.Clone(s.byTypeTimeline[key])
		}
		return s.byTypeTimeline[key]
	}
	for _, n := range d.removed {
		s.byID = s.deleteSlot(s.byID, n, byNoticeID)
		for _, key := range typeTimelineKeys(n) {
			s.byTypeTimeline[key] = s.deleteSlot(list(key), n, newestFirst)
		}
	}
	for i, n := range d.added {
		s.byID = s.insertSlot(s.byID, added[i], byNoticeID)
		for _, key := range typeTimelineKeys(n) {
			s.byTypeTimeline[key] = s.insertSlot(list(key), added[i], newestFirst)
		}
	}
}

// search finds n in list, a list of slots in order.
func (s *Snapshot) search(list []int32, n *Notice, order func(a, b *Notice) int) (int, bool) {
	return slices.BinarySearchFunc(list, n, func(slot int32, n *Notice) int { return order(s.slot(slot), n) })
}

func (s *Snapshot) insertSlot(list []int32, slot int32, order func(a, b *Notice) int) []int32 {
	i, _ := s.search(list, s.slot(slot), order)
	return slices.Insert(list, i, slot)
}

func (s *Snapshot) deleteSlot(list []int32, n *Notice, order func(a, b *Notice) int) []int32 {
	if i, ok := s.search(list, n, order); ok {
		return slices.Delete(list, i, i+1)
	}
	return list
}

// notices returns the notices in the slots.
func (s *Snapshot) notices(slots []int32) []*Notice {
	out := make([]*Notice, len(slots))
	for i, slot := range slots {
		out[i] = s.slot(slot)
	}
	return out
}

// indexNotices fills the notice indexes, the page state, UpdatedAt and
// ValidUntil, and returns the component states (CONTRACT C3) and the
// current incidents.
func (s *Snapshot) indexNotices() (states map[int64]statusd.PageState, current []*Notice) {
	var first *Notice // the first to change by itself
	var changed instant
	var making []*Notice // those that make a state (statusd.DeriveStates)
	for _, n := range s.AllNotices() {
		if n.changed.compare(changed) > 0 {
			changed = n.changed
		}
		if n.hasNext && (first == nil || n.next.compare(first.next) < 0) {
			first = n
		}
		if n.open {
			s.open = append(s.open, n)
		}
		if n.IsCurrentIncident() {
			current = append(current, n)
		}
		if n.IsCurrentIncident() || n.IsUnderway() {
			making = append(making, n)
		}
		if n.Type() == statusd.Planned && n.Automate() && (n.IsUnderway() || n.State() == statusd.Scheduled) {
			s.Automated = append(s.Automated, n)
		}
		if n.Type() == statusd.Planned && n.State() == statusd.Scheduled && n.BeginsAt() != nil {
			s.Scheduled = append(s.Scheduled, n)
		}
	}
	if first != nil {
		s.ValidUntil = first.nextChange()
	}
	s.UpdatedAt = statusd.Latest(s.Doc.Page.UpdatedAt, changed.time())
	for _, c := range s.Doc.Components {
		s.UpdatedAt = statusd.Latest(s.UpdatedAt, c.UpdatedAt)
	}
	page, states := statusd.DeriveStates(s.Doc.Components, func(yield func(statusd.StateNotice, []int64) bool) {
		for _, n := range making {
			if !yield(n, n.ComponentIDs()) {
				return
			}
		}
	})
	s.PageState = page
	return states, current
}

// Expired reports whether a time rule has changed the page since the
// snapshot was built, so that it must be made again (Retime).
func (s *Snapshot) Expired(now time.Time) bool {
	return !s.ValidUntil.IsZero() && !now.Before(s.ValidUntil)
}

func link(pageURL, path string) string {
	return strings.TrimRight(pageURL, "/") + path
}

func (s *Snapshot) link(path string) string { return link(s.PageURL, path) }

// buildComponents makes the component tree, with each component's state
// and the severity of the current incidents.
func (s *Snapshot) buildComponents(states map[int64]statusd.PageState, current []*Notice) {
	comps := s.Doc.Components
	s.AllComponents = make([]*Component, len(comps))
	for i := range comps {
		c := &Component{Component: &comps[i], State: states[comps[i].ID]}
		if c.State == "" {
			c.State = statusd.PageOperational
		}
		s.AllComponents[i] = c
		s.componentID[c.ID] = c
	}
	slices.SortFunc(s.AllComponents, byPosition)
	for _, c := range s.AllComponents {
		if c.ParentID == nil {
			s.topLevel = append(s.topLevel, c)
		} else if p := s.componentID[*c.ParentID]; p != nil {
			p.Children = append(p.Children, c)
		}
	}
	worst := statusd.DeriveSeverities(comps, func(yield func(statusd.Severity, []int64) bool) {
		for _, n := range current {
			s.Severity = worse(s.Severity, n.Severity().Level())
			if !yield(n.Severity(), n.ComponentIDs()) {
				return
			}
		}
	})
	for _, c := range s.AllComponents {
		c.Severity = worst[c.ID]
	}
	for _, c := range s.AllComponents {
		state := s.Variant.Name(c.State)
		c.embedded = statusd.EmbeddedComponent{
			ID: c.ID, State: state, Name: c.Name, Description: c.Description, ParentID: c.ParentID,
			CreatedAt: statusd.Time{Time: c.CreatedAt}, UpdatedAt: statusd.Time{Time: c.UpdatedAt},
		}
		c.resource = statusd.ComponentResource{
			ID: c.ID, State: state, Name: c.Name, Description: c.Description, ParentID: c.ParentID,
			Position: c.Position,
			Links: statusd.ComponentLinks{Children: statusd.Link{
				Href:  "/api/v1/components?filter%5Bparent_id_eq%5D=" + strconv.FormatInt(c.ID, 10),
				Count: len(c.Children),
			}},
			CreatedAt: statusd.Time{Time: c.CreatedAt}, UpdatedAt: statusd.Time{Time: c.UpdatedAt},
		}
	}
}

// worse returns the worse of a and b, where "" is none.
func worse(a, b statusd.Severity) statusd.Severity {
	if a == "" || b.Rank() > a.Rank() {
		return b
	}
	return a
}

// fields are the notice's fields as the API shows them at now (SPEC §2).
func (s *Snapshot) fields(n *Notice, now time.Time) statusd.NoticeFields {
	id := strconv.FormatInt(n.ID, 10)
	typ := n.Type()
	f := statusd.NoticeFields{
		ID:            n.ID,
		Type:          string(typ),
		TimelineState: string(n.Timeline()),
		Subject:       n.Subject(),
		URL:           s.link("/notices/" + id),
		CreatedAt:     statusd.Time{Time: n.CreatedAt()},
		UpdatedAt:     statusd.Time{Time: n.UpdatedAt()},
		TagList:       n.TagList(),
		Links:         statusd.NoticeLinks{Self: "/api/notices/" + id},
	}
	if f.TagList == nil {
		f.TagList = []string{}
	}
	if typ != statusd.General {
		f.State = statusd.Some(string(n.State()))
		f.BeganAt = optTime(n.began, n.hasBegan)
		f.EndedAt = optTime(n.ended, n.hasEnded)
	}
	if typ == statusd.Planned {
		f.BeginsAt, f.EndsAt = statusd.TimePtr(n.BeginsAt()), statusd.TimePtr(n.EndsAt())
	}
	if typ == statusd.Unplanned && s.Variant.HasMetrics() {
		f.ImpactTime = duration(n.ImpactSecondsAt(now))
	}
	return f
}

func updateResource(u statusd.Update) statusd.UpdateResource {
	r := statusd.UpdateResource{ID: u.ID, Content: u.Content,
		CreatedAt: statusd.Time{Time: u.CreatedAt}, UpdatedAt: statusd.Time{Time: u.UpdatedAt}}
	if u.State != "" {
		st := string(u.State)
		r.State = &st
	}
	return r
}

// Entry returns the notice as the notices list shows it at now.
func (s *Snapshot) Entry(n *Notice, now time.Time) statusd.NoticeListEntry {
	latest := updateResource(n.Latest())
	latest.ID = 0
	return statusd.NoticeListEntry{NoticeFields: s.fields(n, now), LatestUpdate: latest}
}

// NoticeDetail returns the detail of a notice at now.
func (s *Snapshot) NoticeDetail(n *Notice, now time.Time) statusd.NoticeDetail {
	updates := make([]statusd.UpdateResource, n.updateCount())
	for i, u := range n.Updates() {
		updates[i] = updateResource(u)
	}
	return statusd.NoticeDetail{NoticeFields: s.fields(n, now), Components: s.embedded(n.ComponentIDs()), Updates: updates}
}

// embedded returns the listed components as a notice detail embeds them,
// in position order.
func (s *Snapshot) embedded(ids []int64) []statusd.EmbeddedComponent {
	listed := make([]*Component, 0, len(ids))
	for _, id := range ids {
		if c := s.componentID[id]; c != nil {
			listed = append(listed, c)
		}
	}
	slices.SortFunc(listed, byPosition)
	out := make([]statusd.EmbeddedComponent, len(listed))
	for i, c := range listed {
		out[i] = c.embedded
	}
	return out
}

// byPosition orders components for display: position, then id.
func byPosition(a, b *Component) int {
	return cmp.Or(cmp.Compare(a.Position, b.Position), cmp.Compare(a.ID, b.ID))
}

func optTime(t instant, ok bool) statusd.Field[statusd.Time] {
	if !ok {
		return statusd.Null[statusd.Time]()
	}
	return statusd.Some(statusd.Time{Time: t.time()})
}

func duration(seconds int64) *statusd.Duration {
	return &statusd.Duration{Seconds: seconds, Words: statusd.DurationWords(seconds)}
}

// counts reports whether a notice counts for the metrics of the components
// it lists and their ancestors: an unplanned notice with an impact. A false
// alarm has none, nor has a notice whose impact_seconds is 0 (CONTRACT C4),
// nor one that was never current.
func counts(n *Notice) bool {
	return n.Type() == statusd.Unplanned && len(n.impacts()) > 0
}

// ancestors returns the components whose counting notices include n: the
// ones it lists and their ancestors, each once.
func (s *Snapshot) ancestors(n *Notice) []*Component {
	if !counts(n) {
		return nil
	}
	var out []*Component
	for _, id := range n.ComponentIDs() {
		for c := s.componentID[id]; c != nil && !slices.Contains(out, c); c = s.parent(c) {
			out = append(out, c)
		}
	}
	return out
}

// buildCounting gives every component the notices that count for its
// metrics, in list order, and their merged impacts. It runs on a snapshot
// indexed whole, whose slots are its notices in list order.
func (s *Snapshot) buildCounting() {
	for i := range s.base {
		n := &s.base[i]
		for _, c := range s.ancestors(n) {
			c.counting = append(c.counting, int32(i))
			c.raw = append(c.raw, n.impacts()...)
		}
	}
	for _, c := range s.AllComponents {
		slices.SortFunc(c.raw, statusd.CompareIntervals)
		c.impacts = statusd.NewIntervalSet(c.raw)
		c.hulls = newHullIndex(s.notices(c.counting))
	}
}

// applyCounting takes every component's metrics data from prev, and applies
// d, whose added notices are in the slots added, to the components it
// touches.
func (s *Snapshot) applyCounting(prev *Snapshot, d *delta, added []int32) {
	touched := map[*Component]bool{}
	for _, c := range s.AllComponents {
		old := prev.componentID[c.ID]
		c.counting, c.raw, c.impacts, c.hulls = old.counting, old.raw, old.impacts, old.hulls
	}
	touch := func(c *Component) {
		if !touched[c] {
			touched[c] = true
			c.counting, c.raw, c.hulls = slices.Clone(c.counting), slices.Clone(c.raw), c.hulls.clone()
		}
	}
	for _, n := range d.removed {
		for _, c := range s.ancestors(n) {
			touch(c)
			c.counting = s.deleteSlot(c.counting, n, newestFirst)
			for _, iv := range n.impacts() {
				if i, ok := slices.BinarySearchFunc(c.raw, iv, statusd.CompareIntervals); ok {
					c.raw = slices.Delete(c.raw, i, i+1)
				}
			}
			c.hulls.remove(n)
		}
	}
	for i, n := range d.added {
		for _, c := range s.ancestors(n) {
			touch(c)
			c.counting = s.insertSlot(c.counting, added[i], newestFirst)
			for _, iv := range n.impacts() {
				i, _ := slices.BinarySearchFunc(c.raw, iv, statusd.CompareIntervals)
				c.raw = slices.Insert(c.raw, i, iv)
			}
			c.hulls.add(n)
		}
	}
	for c := range touched {
		c.impacts = statusd.NewIntervalSet(c.raw)
	}
}

func (s *Snapshot) parent(c *Component) *Component {
	if c.ParentID == nil {
		return nil
	}
	return s.componentID[*c.ParentID]
}

// Component returns the component with the id, or nil.
func (s *Snapshot) Component(id int64) *Component { return s.componentID[id] }

// Notice returns the notice with the id, or nil.
func (s *Snapshot) Notice(id int64) *Notice {
	i, ok := slices.BinarySearchFunc(s.byID, id, func(slot int32, id int64) int { return cmp.Compare(s.slot(slot).ID, id) })
	if !ok {
		return nil
	}
	return s.slot(s.byID[i])
}
