package console

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/internal/app"
	"github.com/statusd/statusd/internal/htmlkit"
	"github.com/statusd/statusd/internal/snapshot"
)

// cloneValues is a copy of v.
func cloneValues(v url.Values) url.Values {
	out := url.Values{}
	for k, list := range v {
		out[k] = slices.Clone(list)
	}
	return out
}

// kind is one of the three screens that publish a notice.
type kind struct {
	typ    statusd.NoticeType
	screen string // its template
	title  string
	fields []string // besides subject, content and component_ids
	// defaults are the values of a new form.
	defaults url.Values
}

var (
	incident = kind{statusd.Unplanned, "incident", "Declare an incident", []string{"state", "impact", "notify"},
		url.Values{"state": {string(statusd.Investigating)}, "impact": {string(statusd.SeverityMinor)}, "notify": {"on"}}}
	maintenance = kind{statusd.Planned, "maintenance", "Schedule maintenance", []string{"begins_at", "ends_at", "automate", "notify"},
		url.Values{"automate": {"on"}, "notify": {"on"}}}
	announcement = kind{statusd.General, "announcement", "Announce", []string{"expires_at", "notify"},
		url.Values{"notify": {"on"}}}
)

// typeFields are the fields that only a notice type has, which an edit
// changes too.
var typeFields = map[statusd.NoticeType][]string{
	statusd.Unplanned: {"impact"},
	statusd.Planned:   {"begins_at", "ends_at", "automate"},
	statusd.General:   {"expires_at"},
}

// notice reads the fields of f into the body of a notice of type typ:
// what Edit changes, and, when publishing, also the type, the first
// update and whether to notify.
func (f *form) notice(typ statusd.NoticeType, publishing bool) statusd.AdminNoticeRequest {
	b := statusd.AdminNoticeRequest{Subject: f.text("subject"), ComponentIDs: f.ids("component_ids")}
	if publishing {
		t := string(typ)
		b.Type, b.Content, b.Notify = &t, f.text("content"), f.check("notify")
		if typ == statusd.Unplanned {
			b.State = f.text("state")
		}
		// An incident's or an announcement's subject left empty is its
		// message's first sentence, as on the command line.
		if typ != statusd.Planned && strings.TrimSpace(f.Get("subject")) == "" && b.Content != nil {
			subject := statusd.SubjectOf(*b.Content)
			b.Subject = &subject
		}
	}
	switch typ {
	case statusd.Unplanned:
		b.Impact = f.text("impact")
	case statusd.Planned:
		b.BeginsAt, b.EndsAt, b.Automate = f.time("begins_at"), f.time("ends_at"), f.check("automate")
	case statusd.General:
		b.ExpiresAt = f.time("expires_at")
	}
	return b
}

// pickers is the component tree as checkboxes, those of the form's field
// checked.
func (s *Server) pickers(f *form, field string) []*htmlkit.Node {
	snap := s.snaps.Current()
	if snap == nil {
		return nil
	}
	return htmlkit.Tree(snap, func(id int64) bool { return f.HasValue(field, id) })
}

// newNoticeView is a screen that publishes a notice.
type newNoticeView struct {
	base
	Form       *form
	Components []*htmlkit.Node
	States     []statusd.State // an incident's first states
	Reminder   string          // before a maintenance begins; "" for none
}

// IncidentForm shows the form that declares an incident.
func (s *Server) IncidentForm(w http.ResponseWriter, r *http.Request) error {
	return s.newNotice(w, r, http.StatusOK, incident, nil)
}

// DeclareIncident publishes the incident of the form.
func (s *Server) DeclareIncident(w http.ResponseWriter, r *http.Request) error {
	return s.publish(w, r, incident)
}

// MaintenanceForm shows the form that schedules maintenance.
func (s *Server) MaintenanceForm(w http.ResponseWriter, r *http.Request) error {
	return s.newNotice(w, r, http.StatusOK, maintenance, nil)
}

// ScheduleMaintenance publishes the maintenance of the form.
func (s *Server) ScheduleMaintenance(w http.ResponseWriter, r *http.Request) error {
	return s.publish(w, r, maintenance)
}

// AnnouncementForm shows the form that publishes an announcement.
func (s *Server) AnnouncementForm(w http.ResponseWriter, r *http.Request) error {
	return s.newNotice(w, r, http.StatusOK, announcement, nil)
}

// Announce publishes the announcement of the form.
func (s *Server) Announce(w http.ResponseWriter, r *http.Request) error {
	return s.publish(w, r, announcement)
}

// newNotice shows the form of k, new (f nil) or as sent with its problems.
func (s *Server) newNotice(w http.ResponseWriter, r *http.Request, status int, k kind, f *form) error {
	if f == nil {
		f = newForm(cloneValues(k.defaults))
		// The only component of a page is the one an incident or a
		// maintenance concerns (an announcement may concern none).
		if snap := s.snaps.Current(); snap != nil && len(snap.AllComponents) == 1 && k.typ != statusd.General {
			f.Values.Set("component_ids", strconv.FormatInt(snap.AllComponents[0].ID, 10))
		}
	}
	v := newNoticeView{base: s.newBase(r, k.title), Form: f, Components: s.pickers(f, "component_ids")}
	if k.typ == statusd.Unplanned {
		v.States = app.OpeningStates
	}
	if s.reminder > 0 {
		v.Reminder = duration(s.reminder)
	}
	return s.render(w, status, k.screen, v)
}

// publish publishes the notice of k's form (Publish) and sends the person
// to its page (303), or shows the form again with its problems (422).
func (s *Server) publish(w http.ResponseWriter, r *http.Request, k kind) error {
	var id int64
	var ids []int64
	return submit(w, r, append([]string{"subject", "content", "component_ids"}, k.fields...), func(f *form) (err error) {
		if body := f.notice(k.typ, true); !f.Failed() {
			id, err = s.app.Publish(r.Context(), actor(r), body)
			ids = *body.ComponentIDs
		}
		return err
	}, func(status int, f *form) error {
		return s.newNotice(w, r, status, k, f)
	}, func() error { return done(w, r, id, "published", ids) })
}

// done sends the person to notice id's page, which says what was done
// (doneWords) and the public page's new state, with the components ids.
func done(w http.ResponseWriter, r *http.Request, id int64, what string, ids []int64) error {
	return changed(w, r, fmt.Sprintf("/notices/%d", id), what, ids...)()
}

// resolving is the state that closes a notice of each type as planned.
var resolving = map[statusd.NoticeType]statusd.State{statusd.Unplanned: statusd.Resolved, statusd.Planned: statusd.Complete}

// closeButtons say what the resolve form's button does, by state.
var closeButtons = map[statusd.State]string{statusd.Resolved: "Resolve the incident", statusd.Complete: "Complete the maintenance"}

// noticeView is a notice's page.
type noticeView struct {
	base
	ID         int64
	Type       statusd.NoticeType
	Subject    string
	State      statusd.State
	Components []string
	BeginsAt   *time.Time
	EndsAt     *time.Time
	ExpiresAt  *time.Time
	Automate   bool
	Updates    []statusd.Update // newest first
	Public     string           // the notice on the public page
	Next       []statusd.State  // the states an update may move it to
	Updatable  bool             // it takes updates: it has next states, or no states at all
	Update     *form
	Close      *closeView // resolve an open notice, or reopen a closed incident; nil for neither
	// Signals are the alerts linked to it, internal; Proposals the open
	// drafts of it, each in words; Publish and Discard, whether the
	// person may publish or discard them. Discarded is a draft just
	// discarded (0: none).
	Signals          []signalView
	Proposals        []proposalView
	Publish, Discard bool
	Discarded        int64
}

// closeView is the form that resolves a notice (an update in the state
// that closes it) or reopens a resolved incident; a notice can have one
// or the other, never both.
type closeView struct {
	Heading string
	Path    string // under the notice's
	Which   string // the form's name: resolve or reopen
	State   statusd.State
	Button  string
	Form    *form
}

// noticeID is the notice of r's path, and the snapshot that has it; 404
// when there is none.
func (s *Server) noticeID(r *http.Request) (*snapshot.Snapshot, *snapshot.Notice, error) {
	id, err := statusd.ParseID("notice", r.PathValue("id"))
	if err != nil {
		return nil, nil, err
	}
	snap := s.snaps.Current()
	var n *snapshot.Notice
	if snap != nil {
		n = snap.Notice(id)
	}
	if n == nil {
		return nil, nil, statusd.Errorf(statusd.ENotFound, "There is no notice %d: it may have been deleted.", id)
	}
	return snap, n, nil
}

// Notice shows a notice's page.
func (s *Server) Notice(w http.ResponseWriter, r *http.Request) error {
	return s.noticePage(w, r, http.StatusOK, nil)
}

// noticePage shows the notice of the path, with the form that failed
// (nil: none) in place of its empty one.
func (s *Server) noticePage(w http.ResponseWriter, r *http.Request, status int, failed *form) error {
	snap, n, err := s.noticeID(r)
	if err != nil {
		return err
	}
	v := noticeView{base: s.newBase(r, n.Subject()), ID: n.ID, Type: n.Type(), Subject: n.Subject(), State: n.State(),
		BeginsAt: n.BeginsAt(), EndsAt: n.EndsAt(), ExpiresAt: n.ExpiresAt(), Automate: n.Automate(),
		Public: fmt.Sprintf("%s/notices/%d", strings.TrimSuffix(snap.Page().URL, "/"), n.ID),
		Update: newForm(url.Values{"state": {string(n.State())}, "notify": {"on"}})}
	if v.Outcome != nil {
		v.Outcome.Link, v.Outcome.LinkText = v.Public, "See this notice on the public page"
	}
	v.Components = componentNames(snap, n.ComponentIDs())
	v.Updates = slices.Clone(n.Full().Updates)
	slices.Reverse(v.Updates)
	v.Next = nextStates(n)
	if v.Signals, v.Proposals, err = s.noticeSignals(r, snap, n); err != nil {
		return err
	}
	v.Publish, v.Discard = may(r, app.ActPublishDraft), may(r, app.ActChangeDraft)
	v.Discarded, _ = strconv.ParseInt(r.URL.Query().Get("discarded"), 10, 64)
	v.Updatable = len(v.Next) > 0 || n.Type() == statusd.General
	full := n.Full()
	switch to := resolving[n.Type()]; {
	case to != "" && to != n.State() && slices.Contains(v.Next, to):
		v.Close = &closeView{Heading: "Resolve", Path: "updates", Which: "resolve", State: to, Button: closeButtons[to]}
	case statusd.CheckReopen(&full) == nil:
		v.Close = &closeView{Heading: "Reopen", Path: "reopen", Which: "reopen", Button: "Reopen the incident"}
	}
	if v.Close != nil {
		v.Close.Form = newForm(url.Values{"notify": {"on"}})
	}
	switch {
	case failed == nil:
	case v.Close != nil && failed.Get("form") == v.Close.Which:
		v.Close.Form = failed
	default:
		v.Update = failed
	}
	return s.render(w, status, "notice", v)
}

// nextStates are the states an update may move notice n to.
func nextStates(n *snapshot.Notice) []statusd.State {
	var next []statusd.State
	for _, to := range statusd.States(n.Type()) {
		if statusd.CheckTransition(n.Type(), n.State(), to) == nil {
			next = append(next, to)
		}
	}
	return next
}

// PostUpdate posts the update of the page's update or resolve form
// (AddUpdate).
func (s *Server) PostUpdate(w http.ResponseWriter, r *http.Request) error {
	return s.updateWith(w, r, s.app.AddUpdate)
}

// Reopen reopens a resolved incident with the reopen form's update
// (Reopen).
func (s *Server) Reopen(w http.ResponseWriter, r *http.Request) error {
	return s.updateWith(w, r, s.app.Reopen)
}

// updateWith runs action with the update of the form, then shows the
// notice; the form again, 422, with its problems.
func (s *Server) updateWith(w http.ResponseWriter, r *http.Request,
	action func(ctx context.Context, actor statusd.Actor, id int64, body statusd.AdminUpdateRequest) error) error {
	_, n, err := s.noticeID(r)
	if err != nil {
		return err
	}
	return submit(w, r, []string{"state", "content", "notify"}, func(f *form) error {
		body := statusd.AdminUpdateRequest{State: f.text("state"), Content: f.text("content"), Notify: f.check("notify")}
		return action(r.Context(), actor(r), n.ID, body)
	}, func(status int, f *form) error {
		return s.noticePage(w, r, status, f)
	}, func() error {
		what := "updated"
		switch f := r.PostForm; {
		case f.Get("form") == "reopen":
			what = "reopened"
		case f.Get("state") != "" && statusd.State(f.Get("state")) == resolving[n.Type()]:
			what = "resolved"
		}
		return done(w, r, n.ID, what, n.ComponentIDs())
	})
}

// editView is the screen that edits a notice.
type editView struct {
	base
	ID         int64
	Type       statusd.NoticeType
	Subject    string // as it is
	Form       *form
	Components []*htmlkit.Node
}

// EditForm shows the form that edits a notice's subject, components and
// schedule or expiry.
func (s *Server) EditForm(w http.ResponseWriter, r *http.Request) error {
	_, n, err := s.noticeID(r)
	if err != nil {
		return err
	}
	v := url.Values{"subject": {n.Subject()}, "begins_at": {formTime(n.BeginsAt())}, "ends_at": {formTime(n.EndsAt())},
		"expires_at": {formTime(n.ExpiresAt())}, "impact": {string(n.Severity().Level())}}
	for _, id := range n.ComponentIDs() {
		v.Add("component_ids", strconv.FormatInt(id, 10))
	}
	if n.Automate() {
		v.Set("automate", "on")
	}
	return s.editPage(w, r, http.StatusOK, n, newForm(v))
}

func (s *Server) editPage(w http.ResponseWriter, r *http.Request, status int, n *snapshot.Notice, f *form) error {
	return s.render(w, status, "edit", editView{base: s.newBase(r, "Edit "+n.Subject()), ID: n.ID, Type: n.Type(),
		Subject: n.Subject(), Form: f, Components: s.pickers(f, "component_ids")})
}

// Edit saves the edit form (Edit).
func (s *Server) Edit(w http.ResponseWriter, r *http.Request) error {
	_, n, err := s.noticeID(r)
	if err != nil {
		return err
	}
	// The components it lists before and after: both may change state.
	ids := slices.Clone(n.ComponentIDs())
	return submit(w, r, append([]string{"subject", "component_ids"}, typeFields[n.Type()]...), func(f *form) (err error) {
		if body := f.notice(n.Type(), false); !f.Failed() {
			err = s.app.Edit(r.Context(), actor(r), n.ID, body)
			ids = append(ids, *body.ComponentIDs...)
		}
		return err
	}, func(status int, f *form) error {
		return s.editPage(w, r, status, n, f)
	}, func() error { return done(w, r, n.ID, "edited", ids) })
}

// deleteView is the screen that confirms a deletion, and then says that
// it is done.
type deleteView struct {
	base
	ID      int64
	Type    statusd.NoticeType
	Subject string
	Updates int
	Deleted bool
}

// DeleteForm asks to confirm the deletion of a notice, saying what goes.
func (s *Server) DeleteForm(w http.ResponseWriter, r *http.Request) error {
	_, n, err := s.noticeID(r)
	if err != nil {
		return err
	}
	return s.render(w, http.StatusOK, "delete", deleteView{base: s.newBase(r, "Delete "+n.Subject()), ID: n.ID,
		Type: n.Type(), Subject: n.Subject(), Updates: len(n.Full().Updates)})
}

// Delete deletes a notice (Remove) and says so, with the public page's
// new state.
func (s *Server) Delete(w http.ResponseWriter, r *http.Request) error {
	_, n, err := s.noticeID(r)
	if err != nil {
		return err
	}
	if err := s.app.DeleteNotice(r.Context(), actor(r), n.ID); err != nil {
		return err
	}
	v := deleteView{base: s.newBase(r, "Deleted "+n.Subject()), ID: n.ID, Type: n.Type(), Subject: n.Subject(), Deleted: true}
	v.Outcome = s.outcome(doneWords["deleted"], n.ComponentIDs())
	return s.render(w, http.StatusOK, "delete", v)
}

// duration says d in words: "1 hour", "30 minutes", "1h30m0s".
func duration(d time.Duration) string {
	unit := func(n int64, word string) string {
		if n == 1 {
			return "1 " + word
		}
		return fmt.Sprintf("%d %ss", n, word)
	}
	switch {
	case d%time.Hour == 0:
		return unit(int64(d/time.Hour), "hour")
	case d%time.Minute == 0 && d < time.Hour:
		return unit(int64(d/time.Minute), "minute")
	}
	return d.String()
}
