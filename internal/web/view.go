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
	"github.com/statusd/statusd/internal/snapshot"
)

//go:embed templates/*.html
var templateFS embed.FS

// pages holds one template set per page, each with the layout and the
// partials; they are parsed once, when the program starts.
var pages = func() map[string]*template.Template {
	out := map[string]*template.Template{}
	for _, name := range []string{"index", "notice", "history", "metrics", "error", "subscribe", "manage", "message"} {
		out[name] = template.Must(Badges(template.New(name).Funcs(funcs)).ParseFS(templateFS,
			"templates/layout.html", "templates/partials.html", "templates/"+name+".html"))
	}
	return out
}()

var funcs = template.FuncMap{
	"asset":    assetURL,
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

// Badges adds to t the templates of the look of states that the status
// page and the console share (templates/badges.html), and the functions
// they use: "sprite", the icons, once in a page's body; "icon", one of
// them by name; "bigicon", a page state's icon in a banner; "badge", a
// badge of a class and a word; "state", a page or component state
// (statusd.PageState) as a badge of its icon and word in its colours;
// "nstate", a notice's state (statusd.State) as one. The console adds them to its screens, so that
// an operator sees states as the public page shows them.
func Badges(t *template.Template) *template.Template {
	return template.Must(t.Funcs(badgeFuncs).ParseFS(templateFS, "templates/badges.html"))
}

// badgeFuncs are the functions of templates/badges.html.
var badgeFuncs = template.FuncMap{
	"stateWord":        stateWord,
	"stateClass":       stateClass,
	"noticeStateClass": noticeStateClass,
	"badge":            func(class, word string) badgeView { return badgeView{Class: class, Word: word} },
}

// badgeView is a badge: its class (s-Class, and the icon i-Class) and word.
type badgeView struct{ Class, Word string }

// base is what the layout needs on every page.
type base struct {
	Title   string // the page's own title; the page name follows it
	Name    string // the status page's name
	Nav     string // the current section: "status", "history" or "subscribe"
	Refresh bool   // an incident is open or maintenance underway
	// Updated is when the page was made; zero on pages without times,
	// which do not say it.
	Updated time.Time
	// Subscribe links to /subscribe: email subscription is on.
	Subscribe bool
}

// base returns the layout's data for a page; snap may be nil.
func (s *Server) base(snap *snapshot.Snapshot, now time.Time, nav string) base {
	b := base{Name: "Status", Nav: nav, Updated: now, Subscribe: s.subscribe}
	if snap == nil {
		return b
	}
	b.Name = snap.Doc.Page.Name
	b.Refresh = snap.PageState != statusd.PageOperational || len(snap.Find(statusd.Unplanned, statusd.Present, now)) > 0
	return b
}

// stateWord names a page or component state for a reader.
func stateWord(st statusd.PageState) string {
	switch st {
	case statusd.PageDegraded:
		return "Degraded"
	case statusd.PageUnderMaintenance:
		return "Under maintenance"
	}
	return "Operational"
}

// stateClass is the CSS class of a page or component state.
func stateClass(st statusd.PageState) string {
	switch st {
	case statusd.PageDegraded:
		return "degraded"
	case statusd.PageUnderMaintenance:
		return "maintenance"
	}
	return "operational"
}

// noticeStateClass is the CSS class of a notice's badge, and so which icon
// it shows beside its word.
func noticeStateClass(st statusd.State) string {
	switch st {
	case statusd.Investigating, statusd.Identified:
		return "degraded"
	case statusd.Recovering:
		return "recovering"
	case statusd.Underway:
		return "maintenance"
	case statusd.Scheduled:
		return "scheduled"
	case statusd.Resolved, statusd.FalseAlarm, statusd.Complete, statusd.Cancelled:
		return "resolved"
	}
	return "info"
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
		v.State, v.Class = n.State().Word(), noticeStateClass(n.State())
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
		v.State, v.Class = u.State.Word(), noticeStateClass(u.State)
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
