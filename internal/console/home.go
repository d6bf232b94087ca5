package console

import (
	"cmp"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/internal/htmlkit"
	"github.com/statusd/statusd/internal/snapshot"
)

// homeView is what the home screen shows: the sources whose heartbeat is
// late, the page's state, the drafts that alerts made, the component
// tree, the open incidents, the maintenance to come and the health of the
// deliveries.
type homeView struct {
	base
	Published  bool   // a page exists
	PageURL    string // the public page's, for links to its notices
	State      statusd.PageState
	StateText  string
	Components []*htmlkit.Node
	Incidents  []incidentView
	// Underway and Upcoming are the maintenance going on and to come.
	Underway, Upcoming maintenanceList
	// Pending and Failed count the deliveries in those states.
	Pending, Failed int
	// Alerts are the late sources and the drafts waiting (CONTRACT C9).
	Alerts alertsView
}

type incidentView struct {
	ID         int64
	Subject    string
	State      statusd.State
	LastUpdate time.Time
	Ago        string // since LastUpdate, in words
}

// maintenanceList is maintenance, each linked to its screen and to the
// public page at PageURL.
type maintenanceList struct {
	PageURL string
	Items   []maintenanceView
}

type maintenanceView struct {
	ID               int64
	Subject          string
	BeginsAt, EndsAt *time.Time
}

// Home shows the home screen.
func (s *Server) Home(w http.ResponseWriter, r *http.Request) error {
	v := homeView{base: s.newBase(r, "Home")}
	var err error
	if v.Pending, err = s.deliveries(r, statusd.DeliveryPending); err != nil {
		return err
	}
	if v.Failed, err = s.deliveries(r, statusd.DeliveryFailed); err != nil {
		return err
	}
	if v.Alerts, err = s.alerts(r); err != nil {
		return err
	}
	snap, now := s.snaps.Current(), s.now()
	if snap == nil {
		return s.render(w, http.StatusOK, "home", v)
	}
	v.Published, v.PageURL, v.State, v.StateText = true, strings.TrimSuffix(snap.Page().URL, "/"), snap.PageState, snap.Page().StateText
	v.Components = htmlkit.Tree(snap, nil)
	for _, n := range snap.Find(statusd.Unplanned, statusd.Present, now) {
		last := lastUpdate(n)
		v.Incidents = append(v.Incidents, incidentView{ID: n.ID, Subject: n.Subject(), State: n.State(), LastUpdate: last, Ago: ago(now.Sub(last))})
	}
	v.Underway = maintenanceOf(snap.Find(statusd.Planned, statusd.Present, now), v.PageURL)
	v.Upcoming = maintenanceOf(snap.Find(statusd.Planned, statusd.Future, now), v.PageURL)
	return s.render(w, http.StatusOK, "home", v)
}

// maintenanceOf lists maintenance notices by when they begin.
func maintenanceOf(notices []*snapshot.Notice, pageURL string) maintenanceList {
	l := maintenanceList{PageURL: pageURL}
	for _, n := range notices {
		l.Items = append(l.Items, maintenanceView{ID: n.ID, Subject: n.Subject(), BeginsAt: n.BeginsAt(), EndsAt: n.EndsAt()})
	}
	slices.SortStableFunc(l.Items, func(a, b maintenanceView) int {
		return cmp.Compare(a.BeginsAt.UnixMilli(), b.BeginsAt.UnixMilli())
	})
	return l
}

// deliveries counts the deliveries in a state.
func (s *Server) deliveries(r *http.Request, state statusd.DeliveryState) (int, error) {
	_, n, err := s.subs.Deliveries(r.Context(), statusd.DeliveryFilter{State: state}, 1, 1)
	return n, err
}

// lastUpdate is when the newest update of a notice was posted.
func lastUpdate(n *snapshot.Notice) time.Time {
	last := n.CreatedAt()
	for _, u := range n.Full().Updates {
		if u.CreatedAt.After(last) {
			last = u.CreatedAt
		}
	}
	return last
}

// ago says how long ago d was, rounded down, in words: "3 minutes ago".
func ago(d time.Duration) string {
	if d < time.Minute {
		return "less than a minute ago"
	}
	return span(d) + " ago"
}

// span says how long d is, rounded down, in words: "3 minutes", minutes
// up to two hours, hours up to two days, then days.
func span(d time.Duration) string {
	plural := func(n int, unit string) string {
		if n == 1 {
			return "1 " + unit
		}
		return fmt.Sprintf("%d %ss", n, unit)
	}
	switch {
	case d < time.Minute:
		return "less than a minute"
	case d < 2*time.Hour:
		return plural(int(d/time.Minute), "minute")
	case d < 48*time.Hour:
		return plural(int(d/time.Hour), "hour")
	}
	return plural(int(d/(24*time.Hour)), "day")
}
