// Package snapshot is the read model of statusd: an immutable view of a page
// built from a statusd.Document at a moment, with every state derived
// (CONTRACT C3), indexes for the public filters, per-component merged impact
// intervals for metrics (C4), the time-independent parts of every response,
// and ValidUntil, the next moment at which a time rule changes it.
//
// A Snapshot is never modified after Build returns; it is safe for concurrent
// use.
package snapshot

import (
	"cmp"
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

// Snapshot is the page as of BuiltAt. See the package documentation.
type Snapshot struct {
	Options
	Doc        *statusd.Document
	Version    int64
	BuiltAt    time.Time
	ValidUntil time.Time // zero: no time rule changes the snapshot

	PageURL   string
	PageState statusd.PageState
	page      statusd.PageResource

	AllComponents []*Component // position order
	componentID   map[int64]*Component
	topLevel      []*Component

	AllNotices []*Notice // newest first: created_at descending, then id descending
	noticeID   map[int64]*Notice
	// open lists the notices whose impact reaches past the snapshot's moment.
	open []*Notice
	// Automated lists the planned notices that statusd moves on schedule and
	// that have a move left (scheduled or underway).
	Automated []*Notice
	// byTypeTimeline indexes notices, in list order, by type and timeline
	// state ("" for any).
	byTypeTimeline map[[2]string][]*Notice
}

// Component is a component with its derived state and metrics data.
type Component struct {
	*statusd.Component
	State    statusd.PageState
	Children []*Component
	resource statusd.ComponentResource
	embedded statusd.EmbeddedComponent
	// counting lists, in list order, the notices that count for the
	// component's metrics: unplanned, not false alarms, listing it or a
	// descendant.
	counting []*Notice
	impacts  statusd.IntervalSet // union of the counting notices' impacts
	hulls    hullIndex
}

// Notice is a notice with its derived fields and precomputed resources.
type Notice struct {
	*statusd.Notice
	Timeline statusd.TimelineState
	// impacts are the notice's impact intervals in Unix milliseconds; an
	// impact still going on ends at forever.
	impacts [][2]int64
	// open is set when the impact reaches past the snapshot's moment, so
	// that it depends on the time of the request.
	open   bool
	entry  statusd.NoticeListEntry
	detail statusd.NoticeDetail
}

// Build derives a snapshot of doc at now. doc must be valid and must not be
// modified afterwards.
func Build(doc *statusd.Document, version int64, now time.Time, opts Options) *Snapshot {
	s := &Snapshot{
		Options:        opts,
		Doc:            doc,
		Version:        version,
		BuiltAt:        now,
		PageURL:        doc.Page.URL,
		PageState:      statusd.DerivePageState(doc.Notices),
		componentID:    make(map[int64]*Component, len(doc.Components)),
		noticeID:       make(map[int64]*Notice, len(doc.Notices)),
		byTypeTimeline: make(map[[2]string][]*Notice),
	}
	if opts.BaseURL != "" {
		s.PageURL = opts.BaseURL
	}
	s.buildComponents()
	s.buildNotices(now)
	s.buildCounting()
	s.page = statusd.PageResource{
		Name:      doc.Page.Name,
		State:     opts.Variant.Name(s.PageState),
		StateText: doc.Page.StateTexts.Text(s.PageState),
		URL:       s.PageURL,
		Links: statusd.PageLinks{
			Components: statusd.Link{Href: "/v1/components", Count: len(s.AllComponents)},
			Notices:    statusd.Link{Href: "/v1/notices", Count: len(s.AllNotices)},
		},
		CreatedAt: statusd.Time{Time: doc.Page.CreatedAt},
		UpdatedAt: statusd.Time{Time: doc.Page.UpdatedAt},
	}
	return s
}

// Expired reports whether a time rule has changed the page since the
// snapshot was built, so that it must be built again.
func (s *Snapshot) Expired(now time.Time) bool {
	return !s.ValidUntil.IsZero() && !now.Before(s.ValidUntil)
}

func (s *Snapshot) link(path string) string {
	return strings.TrimRight(s.PageURL, "/") + path
}

func (s *Snapshot) buildComponents() {
	states := statusd.DeriveComponentStates(s.Doc.Notices)
	s.AllComponents = make([]*Component, len(s.Doc.Components))
	for i := range s.Doc.Components {
		c := &Component{Component: &s.Doc.Components[i], State: states[s.Doc.Components[i].ID]}
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
				Href:  "/api/v1/components?filter[parent_id_eq]=" + strconv.FormatInt(c.ID, 10),
				Count: len(c.Children),
			}},
			CreatedAt: statusd.Time{Time: c.CreatedAt}, UpdatedAt: statusd.Time{Time: c.UpdatedAt},
		}
	}
}

func (s *Snapshot) buildNotices(now time.Time) {
	s.AllNotices = make([]*Notice, len(s.Doc.Notices))
	for i := range s.Doc.Notices {
		n := &Notice{Notice: &s.Doc.Notices[i]}
		var next time.Time
		n.Timeline, next = n.Notice.Timeline(now)
		if !next.IsZero() && (s.ValidUntil.IsZero() || next.Before(s.ValidUntil)) {
			s.ValidUntil = next
		}
		for _, iv := range n.Impact(forever) {
			n.impacts = append(n.impacts, [2]int64{iv.Start.UnixMilli(), iv.End.UnixMilli()})
		}
		// An impact still going on, or (from updates dated in the future)
		// one that ends after now, is measured per request against now.
		n.open = len(n.impacts) > 0 && n.impacts[len(n.impacts)-1][1] > now.UnixMilli()
		s.AllNotices[i] = n
		s.noticeID[n.ID] = n
		if n.open {
			s.open = append(s.open, n)
		}
		if st := n.State(); n.Automate && n.Type == statusd.Planned && (st == statusd.Scheduled || st == statusd.Underway) {
			s.Automated = append(s.Automated, n)
		}
	}
	slices.SortFunc(s.AllNotices, func(a, b *Notice) int {
		return cmp.Or(b.CreatedAt.Compare(a.CreatedAt), cmp.Compare(b.ID, a.ID))
	})
	for _, n := range s.AllNotices {
		for _, t := range []string{"", string(n.Type)} {
			for _, tl := range []string{"", string(n.Timeline)} {
				key := [2]string{t, tl}
				s.byTypeTimeline[key] = append(s.byTypeTimeline[key], n)
			}
		}
		s.buildNoticeResources(n)
	}
}

func (s *Snapshot) buildNoticeResources(n *Notice) {
	f := statusd.NoticeFields{
		ID:            n.ID,
		Type:          string(n.Type),
		TimelineState: string(n.Timeline),
		Subject:       n.Subject,
		URL:           s.link("/notices/" + strconv.FormatInt(n.ID, 10)),
		CreatedAt:     statusd.Time{Time: n.CreatedAt},
		UpdatedAt:     statusd.Time{Time: n.UpdatedAt},
		TagList:       n.TagList,
		Links:         statusd.NoticeLinks{Self: "/api/notices/" + strconv.FormatInt(n.ID, 10)},
	}
	if f.TagList == nil {
		f.TagList = []string{}
	}
	if n.Type != statusd.General {
		f.State = statusd.Some(string(n.State()))
		f.BeganAt = optTime(n.BeganAt())
		f.EndedAt = optTime(n.EndedAt())
	}
	if n.Type == statusd.Planned {
		f.BeginsAt, f.EndsAt = statusd.TimePtr(n.BeginsAt), statusd.TimePtr(n.EndsAt)
	}
	if n.Type == statusd.Unplanned && s.Variant.HasMetrics() && !n.open {
		f.ImpactTime = duration(n.ImpactSecondsAt(forever))
	}
	updates := make([]statusd.UpdateResource, len(n.Updates))
	for i, u := range n.Updates {
		updates[i] = statusd.UpdateResource{ID: u.ID, Content: u.Content,
			CreatedAt: statusd.Time{Time: u.CreatedAt}, UpdatedAt: statusd.Time{Time: u.UpdatedAt}}
		if u.State != "" {
			st := string(u.State)
			updates[i].State = &st
		}
	}
	latest := updates[len(updates)-1]
	latest.ID = 0
	n.entry = statusd.NoticeListEntry{NoticeFields: f, LatestUpdate: latest}
	listed := make([]*Component, 0, len(n.ComponentIDs))
	for _, id := range n.ComponentIDs {
		if c := s.componentID[id]; c != nil {
			listed = append(listed, c)
		}
	}
	slices.SortFunc(listed, byPosition)
	n.detail = statusd.NoticeDetail{NoticeFields: f, Components: make([]statusd.EmbeddedComponent, len(listed)), Updates: updates}
	for i, c := range listed {
		n.detail.Components[i] = c.embedded
	}
}

// byPosition orders components for display: position, then id.
func byPosition(a, b *Component) int {
	return cmp.Or(cmp.Compare(a.Position, b.Position), cmp.Compare(a.ID, b.ID))
}

func optTime(t *time.Time) statusd.Field[statusd.Time] {
	if t == nil {
		return statusd.Null[statusd.Time]()
	}
	return statusd.Some(statusd.Time{Time: *t})
}

func duration(seconds int64) *statusd.Duration {
	return &statusd.Duration{Seconds: seconds, Words: statusd.DurationWords(seconds)}
}

// buildCounting gives every component the notices that count for its
// metrics, in list order, and their merged impacts.
func (s *Snapshot) buildCounting() {
	for _, n := range s.AllNotices {
		if n.Type != statusd.Unplanned || n.State() == statusd.FalseAlarm {
			continue
		}
		seen := map[int64]bool{}
		for _, id := range n.ComponentIDs {
			for c := s.componentID[id]; c != nil && !seen[c.ID]; c = s.parent(c) {
				seen[c.ID] = true
				c.counting = append(c.counting, n)
			}
		}
	}
	for _, c := range s.AllComponents {
		var ivs [][2]int64
		for _, n := range c.counting {
			ivs = append(ivs, n.impacts...)
		}
		c.impacts = statusd.NewIntervalSet(ivs)
		c.hulls = newHullIndex(c.counting)
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
func (s *Snapshot) Notice(id int64) *Notice { return s.noticeID[id] }
