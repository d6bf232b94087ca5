package web

import (
	"cmp"
	"embed"
	"html/template"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/internal/htmlkit"
	"github.com/statusd/statusd/internal/snapshot"
)

//go:embed templates/*.html
var templateFS embed.FS

// pages are the page's templates, parsed once, when the program starts,
// each with the layout, the partials and the kit's.
var pages = htmlkit.Parse(htmlkit.Site{Files: templateFS, Shared: []string{"templates/layout.html", "templates/partials.html"},
	Pages: []string{"index", "notice", "history", "metrics", "subscribe", "manage", "message"}, Funcs: funcs, Scripts: true})

var funcs = template.FuncMap{
	"asset":    assets.URL,
	"datetime": func(t time.Time) string { return t.UTC().Format(statusd.TimeLayout) },
	"when":     func(t time.Time) string { return t.UTC().Format("2 Jan 2006, 15:04 UTC") },
	"date":     func(t time.Time) string { return t.UTC().Format("2 Jan 2006") },
	"isoDate":  func(t time.Time) string { return t.UTC().Format(statusd.DateLayout) },
	"month":    func(t time.Time) string { return t.UTC().Format("January 2006") },
	"plural": func(n int, one, many string) string {
		if n == 1 {
			return "1 " + one
		}
		return strconv.Itoa(n) + " " + many
	},
}

// base is what the layout needs on every page.
type base struct {
	Title   string // the page's own title; the page name follows it
	Name    string // the status page's name
	Nav     string // the current section: "status", "history" or "subscribe"
	Refresh bool   // an incident is open or maintenance underway
	// Updated is when the page was made; zero on pages without times,
	// which do not say it.
	Updated time.Time
	// Subscribe links to SubscribeURL: email subscription is on.
	Subscribe    bool
	SubscribeURL string
	// Manifest is where a mirrored page finds its copy's mirror.json
	// (Config.Mirror); "" on the live page.
	Manifest string
	// Empty: no page is published, so every page of the site answers 503
	// and the layout links to none.
	Empty bool
}

// base returns the layout's data for a page; snap may be nil.
func (s *Server) base(snap *snapshot.Snapshot, now time.Time, nav string) base {
	b := base{Name: "Status", Nav: nav, Updated: now, Subscribe: s.subscribe, SubscribeURL: "/subscribe"}
	if snap == nil {
		b.Empty = true
		return b
	}
	b.Name = snap.Doc.Page.Name
	if s.mirror {
		b.Manifest = "/mirror.json"
		b.SubscribeURL = strings.TrimSuffix(snap.Page().URL, "/") + "/subscribe"
	}
	b.Refresh = snap.PageState != statusd.PageOperational || len(snap.Find(statusd.Unplanned, statusd.Present, now)) > 0
	return b
}

// noticeView is a notice as the pages show it.
type noticeView struct {
	ID                 int64
	Href               string
	Subject            string
	Type               string // the type's word
	State              string // the state's word; for general notices the type's
	Class              string
	BeganAt, EndedAt   *time.Time
	BeginsAt, EndsAt   *time.Time
	CreatedAt          time.Time
	Date               time.Time // what the archive files it under
	Impact             string    // Variant A, unplanned: the impact in words
	ImpactSeconds      int64
	Current            bool // a current incident: its impact still grows
	Tags               []string
	Latest             updateView
	Updates            []updateView // newest first; only on the notice page
	Components         []componentRef
	Open, Future, Past bool
}

type updateView struct {
	State     string // the state's word; empty on general notices
	Class     string
	Content   string
	CreatedAt time.Time
}

// componentRef is a component named by a notice.
type componentRef struct {
	ID       int64
	Position int
	Name     string
	State    statusd.PageState
	Href     string
}

// view builds the notice's view at now; withUpdates adds every update.
func (s *Server) view(snap *snapshot.Snapshot, n *snapshot.Notice, now time.Time, withUpdates bool) noticeView {
	v := noticeView{
		ID:        n.ID,
		Href:      "/notices/" + strconv.FormatInt(n.ID, 10),
		Subject:   n.Subject(),
		Type:      n.Type().Word(),
		BeganAt:   n.BeganAt(),
		EndedAt:   n.EndedAt(),
		BeginsAt:  n.BeginsAt(),
		EndsAt:    n.EndsAt(),
		CreatedAt: n.CreatedAt(),
		Date:      noticeDate(n),
		Tags:      n.TagList(),
		Open:      n.Timeline() == statusd.Present,
		Current:   n.IsCurrentIncident(),
		Future:    n.Timeline() == statusd.Future,
		Past:      n.Timeline() == statusd.PastRecent || n.Timeline() == statusd.PastDistant,
	}
	if n.Type() == statusd.General {
		v.State, v.Class = v.Type, "info"
		v.BeganAt, v.EndedAt = nil, nil
	} else {
		v.State, v.Class = n.State().Word(), htmlkit.NoticeStateClass(n.State())
	}
	if n.Type() == statusd.Unplanned && s.variant.HasMetrics() {
		if imp := snap.Entry(n, now).ImpactTime; imp != nil {
			v.Impact, v.ImpactSeconds = imp.Words, imp.Seconds
		}
	}
	v.Latest = updateOf(n.Latest())
	if withUpdates {
		updates := n.Updates()
		for i := len(updates) - 1; i >= 0; i-- {
			v.Updates = append(v.Updates, updateOf(updates[i]))
		}
	}
	for _, id := range n.ComponentIDs() {
		if c := snap.Component(id); c != nil {
			v.Components = append(v.Components, s.ref(c))
		}
	}
	// Position order, as everywhere else.
	slices.SortFunc(v.Components, func(a, b componentRef) int {
		return cmp.Or(cmp.Compare(a.Position, b.Position), cmp.Compare(a.ID, b.ID))
	})
	return v
}

func updateOf(u statusd.Update) updateView {
	v := updateView{Content: u.Content, CreatedAt: u.CreatedAt}
	if u.State != "" {
		v.State, v.Class = u.State.Word(), htmlkit.NoticeStateClass(u.State)
	}
	return v
}

// ref names a component, linking to its metrics page when it has one and
// to its place on the status page otherwise.
func (s *Server) ref(c *snapshot.Component) componentRef {
	r := componentRef{ID: c.ID, Position: c.Position, Name: c.Name, State: c.State, Href: "/#component-" + strconv.FormatInt(c.ID, 10)}
	if s.variant.HasMetrics() && c.MetricsEnabled {
		r.Href = "/components/" + strconv.FormatInt(c.ID, 10) + "/metrics"
	}
	return r
}

// noticeDate is the moment the archive files a notice under: when it began,
// else (planned) when it was scheduled to begin, else when it was posted.
func noticeDate(n *snapshot.Notice) time.Time {
	if t := n.BeganAt(); t != nil {
		return *t
	}
	if t := n.BeginsAt(); t != nil {
		return *t
	}
	return n.CreatedAt()
}

// derived is what the pages compute once per snapshot. Its lists hold
// positions in the snapshot's AllNotices rather than pointers: they live as
// long as the snapshot, and the garbage collector would look at each of
// their pointers, two per notice, at every cycle.
type derived struct {
	snap *snapshot.Snapshot
	// archive holds every notice that is not in the future, by noticeDate
	// descending, then id descending.
	archive []int32
	// feed holds every notice by updated_at descending, then id descending.
	feed []int32
}

// notice is the notice at position i of the snapshot's AllNotices.
func (d *derived) notice(i int32) *snapshot.Notice { return d.snap.NoticeAt(int(i)) }

func (s *Server) derive(snap *snapshot.Snapshot) *derived {
	if d := s.derived.Load(); d != nil && d.snap == snap {
		return d
	}
	d := &derived{snap: snap, feed: make([]int32, snap.NoticeCount())}
	for i, n := range snap.AllNotices() {
		d.feed[i] = int32(i)
		if n.Timeline() != statusd.Future {
			d.archive = append(d.archive, int32(i))
		}
	}
	slices.SortFunc(d.archive, func(i, j int32) int {
		a, b := d.notice(i), d.notice(j)
		return cmp.Or(noticeDate(b).Compare(noticeDate(a)), cmp.Compare(b.ID, a.ID))
	})
	slices.SortFunc(d.feed, func(i, j int32) int {
		a, b := d.notice(i), d.notice(j)
		return cmp.Or(b.UpdatedAt().Compare(a.UpdatedAt()), cmp.Compare(b.ID, a.ID))
	})
	s.derived.Store(d)
	return d
}

// joinLines joins texts for a data attribute, one a line.
func joinLines(lines []string) string { return strings.Join(lines, "\n") }
