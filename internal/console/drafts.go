package console

// The drafts and signals of CONTRACT C9 in the console. Alerts propose
// notice writes (drafts: a new incident, an update of one, its
// reopening); home lists those waiting, and a person publishes one as it
// stands in one POST, or reviews it first beside what the alerts said
// (their labels, annotations and links, which are never published). A
// notice's page shows its signals and what they propose. Every read and
// write is internal/app's (Sources, Drafts, Draft, Signals, PublishDraft,
// DiscardDraft), with the signed-in person as the actor; viewers read
// the drafts, publishers and owners act on them.

import (
	"cmp"
	"fmt"
	"maps"
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

// lapsedShown is how long home lists a draft that lapsed.
const lapsedShown = 24 * time.Hour

// draftView is a draft as the console shows it.
type draftView struct {
	ID, Version int64
	Kind        string // statusd.DraftIncident, DraftUpdate or DraftReopen
	What        string // the kind in words: "New incident", "Update of notice 12"
	NoticeID    int64  // the notice an update or a reopening is of; 0 for a new incident
	State       string // open, lapsed, published or discarded
	Subject     string
	Content     string
	NoticeState statusd.State
	Components  []string
	Source      string
	// Firing says how long its alerts have fired ("firing for 12
	// minutes"), from the earliest start of those firing; Cleared, when
	// none fires, when they resolved ("all 3 alerts resolved at 10:14
	// UTC"); either may be "".
	Firing, Cleared string
	Warnings        []string
	PublishAt       *time.Time // a publish rule's draft publishes itself then
	Reason          string     // why it was discarded
	Signals         []signalView
}

// signalView is a signal as the console shows it, internal: its key,
// status, labels, annotations and link are the alert's, never published.
type signalView struct {
	ID                  int64
	Key, Status, Source string
	Labels, Annotations []labelView
	// Link is the alert's link when it is http or https; Other one of
	// any other kind, shown as text only.
	Link, Other string
	FirstSeen   time.Time
	StartsAt    *time.Time
	ResolvedAt  *time.Time // nil while it fires
	Pending     bool       // firing within its rule's hold
	Flapping    bool
}

// labelView is one label or annotation.
type labelView struct{ Name, Value string }

// pairs are the entries of m, by name.
func pairs(m map[string]string) []labelView {
	var out []labelView
	for _, k := range slices.Sorted(maps.Keys(m)) {
		out = append(out, labelView{k, m[k]})
	}
	return out
}

// webLink splits an alert's link into one a page may link to (http or
// https, with a host) and any other, shown as text.
func webLink(u string) (link, other string) {
	if p, err := url.Parse(u); err == nil && (p.Scheme == "http" || p.Scheme == "https") && p.Host != "" {
		return u, ""
	}
	return "", u
}

// startOf is when a signal started firing: its alert's start, else when
// statusd first saw it.
func startOf(sig statusd.AdminSignal) time.Time {
	if sig.StartsAt != nil {
		return sig.StartsAt.Time
	}
	return sig.FirstSeenAt.Time
}

// resolvedAt is when a resolved signal resolved: its alert's end, else
// when statusd last heard of it; nil while it fires.
func resolvedAt(sig statusd.AdminSignal) *time.Time {
	if sig.Status == "firing" {
		return nil
	}
	t := sig.LastSeenAt.Time
	if sig.EndsAt != nil {
		t = sig.EndsAt.Time
	}
	return &t
}

// signalViews are the signals as the console shows them, with their
// sources' names.
func signalViews(list []statusd.AdminSignal, sources map[int64]string) []signalView {
	out := make([]signalView, 0, len(list))
	for _, sig := range list {
		v := signalView{ID: sig.ID, Key: sig.Key, Status: sig.Status, Source: sourceName(sources, sig.SourceID),
			Labels: pairs(sig.Labels), Annotations: pairs(sig.Annotations), FirstSeen: sig.FirstSeenAt.Time,
			ResolvedAt: resolvedAt(sig), Pending: sig.Pending, Flapping: sig.Flapping}
		if sig.StartsAt != nil {
			v.StartsAt = &sig.StartsAt.Time
		}
		if sig.URL != "" {
			v.Link, v.Other = webLink(sig.URL)
		}
		out = append(out, v)
	}
	return out
}

// sourceName is the name of source id, or says that it was removed.
func sourceName(sources map[int64]string, id int64) string {
	if name, ok := sources[id]; ok {
		return name
	}
	return fmt.Sprintf("source %d (removed)", id)
}

// sources are the alert sources, and their names by id.
func (s *Server) sources(r *http.Request) ([]statusd.AdminSource, map[int64]string, error) {
	list, err := s.app.Sources(r.Context(), actor(r))
	names := map[int64]string{}
	for _, src := range list {
		names[src.ID] = src.Name
	}
	return list, names, err
}

// clock says when t was, in UTC: its time alone when it is today (by
// now), else its day too.
func clock(t, now time.Time) string {
	t, now = t.UTC(), now.UTC()
	if t.YearDay() == now.YearDay() && t.Year() == now.Year() {
		return t.Format("15:04 UTC")
	}
	return t.Format("Jan 2 15:04 UTC")
}

// draftSignals are a draft's signals: those in it, and those of its
// notice that it names (a proposal to post recovering names the
// notice's signals, which resolved).
func (s *Server) draftSignals(r *http.Request, d statusd.AdminDraft) ([]statusd.AdminSignal, error) {
	list, err := s.app.Signals(r.Context(), actor(r), statusd.SignalFilter{DraftID: d.ID})
	if err != nil || d.NoticeID == nil {
		return list, err
	}
	linked, err := s.app.Signals(r.Context(), actor(r), statusd.SignalFilter{NoticeID: *d.NoticeID})
	for _, sig := range linked {
		if slices.Contains(d.SignalIDs, sig.ID) && !slices.ContainsFunc(list, func(x statusd.AdminSignal) bool { return x.ID == sig.ID }) {
			list = append(list, sig)
		}
	}
	slices.SortFunc(list, func(a, b statusd.AdminSignal) int { return cmp.Compare(a.ID, b.ID) })
	return list, err
}

// kindWords say what a draft writes, by its kind.
var kindWords = map[string]string{statusd.DraftIncident: "New incident", statusd.DraftUpdate: "Update of notice %d",
	statusd.DraftReopen: "Reopening of notice %d"}

// draftView is d as the console shows it, with its signals.
func (s *Server) draftView(r *http.Request, d statusd.AdminDraft, sources map[int64]string) (draftView, error) {
	v := draftView{ID: d.ID, Version: d.Version, Kind: d.Kind, What: kindWords[d.Kind], State: d.State, Subject: d.Subject,
		Content: d.Content, NoticeState: d.NoticeState, Source: sourceName(sources, d.SourceID), Warnings: d.Warnings, Reason: d.Reason}
	if d.NoticeID != nil {
		v.NoticeID = *d.NoticeID
		if d.Kind != statusd.DraftIncident {
			v.What = fmt.Sprintf(v.What, v.NoticeID)
		}
	}
	if d.PublishAt != nil {
		v.PublishAt = &d.PublishAt.Time
	}
	if snap := s.snaps.Current(); snap != nil {
		v.Components = componentNames(snap, d.ComponentIDs)
	}
	list, err := s.draftSignals(r, d)
	if err != nil {
		return v, err
	}
	v.Signals = signalViews(list, sources)
	now := s.now()
	var first, last time.Time
	for _, sig := range list {
		if at := resolvedAt(sig); at == nil {
			if start := startOf(sig); first.IsZero() || start.Before(first) {
				first = start
			}
		} else if at.After(last) {
			last = *at
		}
	}
	switch {
	case !first.IsZero():
		v.Firing = "firing for " + span(now.Sub(first))
	case len(list) == 1:
		v.Cleared = "its alert resolved at " + clock(last, now)
	case len(list) > 1:
		v.Cleared = fmt.Sprintf("all %d alerts resolved at %s", len(list), clock(last, now))
	}
	return v, nil
}

// componentNames are the names of the components ids that the snapshot
// has, in the order of ids.
func componentNames(snap *snapshot.Snapshot, ids []int64) []string {
	var out []string
	for _, id := range ids {
		if c := snap.Component(id); c != nil {
			out = append(out, c.Name)
		}
	}
	return out
}

// ---- home ----

// alertsView is what home shows of the signals: the sources whose
// heartbeat is late, the drafts waiting for a person and those whose
// alerts cleared within a day, before anyone looked.
type alertsView struct {
	Stale          []staleView
	Drafts, Lapsed []draftView
	// Publish: the person may publish and review drafts; Discard: may
	// discard them.
	Publish, Discard bool
	// Discarded is the draft just discarded, 0 for none.
	Discarded int64
}

// staleView is a source whose heartbeat is late.
type staleView struct {
	ID          int64
	Name, Since string
}

// alerts reads what home shows of the signals.
func (s *Server) alerts(r *http.Request) (alertsView, error) {
	v := alertsView{Publish: may(r, app.ActPublishDraft), Discard: may(r, app.ActChangeDraft)}
	v.Discarded, _ = strconv.ParseInt(r.URL.Query().Get("discarded"), 10, 64)
	list, names, err := s.sources(r)
	if err != nil {
		return v, err
	}
	now := s.now()
	for _, src := range list {
		if src.State != statusd.SourceStale {
			continue
		}
		since := src.LastEventAt
		if src.LastHeartbeatAt != nil {
			since = src.LastHeartbeatAt
		}
		v.Stale = append(v.Stale, staleView{ID: src.ID, Name: src.Name, Since: clock(since.Time, now)})
	}
	for _, state := range []string{statusd.DraftOpen, statusd.DraftLapsed} {
		drafts, err := s.app.Drafts(r.Context(), actor(r), state)
		if err != nil {
			return v, err
		}
		for _, d := range drafts {
			if state == statusd.DraftLapsed && now.Sub(d.UpdatedAt.Time) > lapsedShown {
				continue
			}
			dv, err := s.draftView(r, d, names)
			if err != nil {
				return v, err
			}
			if state == statusd.DraftOpen {
				v.Drafts = append(v.Drafts, dv)
			} else {
				v.Lapsed = append(v.Lapsed, dv)
			}
		}
	}
	return v, nil
}

// ---- a notice's signals ----

// proposalView is an open draft of a notice, in words: the question it
// asks and the button that answers yes (publishes it).
type proposalView struct {
	draftView
	Question, Button string
}

// noticeSignals are the signals of notice n and the open drafts of it,
// as its page shows them.
func (s *Server) noticeSignals(r *http.Request, snap *snapshot.Snapshot, n *snapshot.Notice) ([]signalView, []proposalView, error) {
	_, names, err := s.sources(r)
	if err != nil {
		return nil, nil, err
	}
	list, err := s.app.Signals(r.Context(), actor(r), statusd.SignalFilter{NoticeID: n.ID})
	if err != nil {
		return nil, nil, err
	}
	open, err := s.app.Drafts(r.Context(), actor(r), statusd.DraftOpen)
	if err != nil {
		return nil, nil, err
	}
	var proposals []proposalView
	for _, d := range open {
		if d.NoticeID == nil || *d.NoticeID != n.ID {
			continue
		}
		dv, err := s.draftView(r, d, names)
		if err != nil {
			return nil, nil, err
		}
		extra := slices.DeleteFunc(slices.Clone(d.ComponentIDs), func(id int64) bool { return slices.Contains(n.ComponentIDs(), id) })
		proposals = append(proposals, proposal(dv, componentNames(snap, extra)))
	}
	return signalViews(list, names), proposals, nil
}

// proposal words the open draft d of a notice, which would add the
// components named extra.
func proposal(d draftView, extra []string) proposalView {
	p := proposalView{draftView: d}
	switch {
	case d.Kind == statusd.DraftReopen:
		p.Question, p.Button = "Its alerts fire again: reopen this incident?", "Reopen the incident"
	case d.NoticeState == statusd.Recovering && d.Cleared != "":
		p.Question = strings.ToUpper(d.Cleared[:1]) + d.Cleared[1:] + ": post " + d.NoticeState.Word() + "?"
		p.Button = "Post " + d.NoticeState.Word()
	case len(extra) > 0:
		p.Question = "Alerts also name " + statusd.JoinNames(extra) + ": add them to this incident?"
		if len(extra) == 1 {
			p.Question = "An alert also names " + extra[0] + ": add it to this incident?"
		}
		p.Button = "Add " + statusd.JoinNames(extra)
	default:
		p.Question, p.Button = "Its alerts propose an update: post "+d.NoticeState.Word()+"?", "Post "+d.NoticeState.Word()
	}
	return p
}

// ---- the review screen, publish and discard ----

// reviewView is the screen that reviews a draft: the form of the notice
// write it proposes, prefilled, and beside it what its alerts said.
type reviewView struct {
	base
	Draft draftView
	// Open: it may still be published or discarded.
	Open    bool
	Lapsed  bool
	Form    *form // publish, with the changes
	Discard *form
	Subject bool // the form has a subject: a new incident's
	// States are the states offered; nil for none (a reopening is
	// investigating).
	States []statusd.State
	// Picker: the form has the component tree (Components), which a
	// reopening has not: it keeps the incident's.
	Picker     bool
	Components []*htmlkit.Node
}

// draftKeys are the fields of the review form that show problems.
var draftKeys = []string{"subject", "content", "state", "component_ids"}

// draftForm is the review form of d as it stands: notify on, but for a
// draft that lapsed, which writes an incident already over.
func draftForm(d statusd.AdminDraft) *form {
	v := url.Values{"form": {"review"}, "version": {strconv.FormatInt(d.Version, 10)}, "subject": {d.Subject},
		"content": {d.Content}, "state": {string(d.NoticeState)}}
	for _, id := range d.ComponentIDs {
		v.Add("component_ids", strconv.FormatInt(id, 10))
	}
	if d.State != statusd.DraftLapsed {
		v.Set("notify", "on")
	}
	return newForm(v, draftKeys...)
}

// ReviewDraft shows a draft to review: its notice write's form and its
// alerts, marked as not published.
func (s *Server) ReviewDraft(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "draft")
	if err != nil {
		return err
	}
	return s.review(w, r, http.StatusOK, id, nil, "")
}

// review renders the review screen of draft id as it is now, with the
// form that failed (which: publish or discard; nil for none). A failed
// publish form is shown as typed, but when the draft moved since it was
// read (409) or the form was home's button, which has no fields: then
// the draft's form as it is now, with the refusal.
func (s *Server) review(w http.ResponseWriter, r *http.Request, status int, id int64, failed *form, which string) error {
	d, err := s.app.Draft(r.Context(), actor(r), id)
	if err != nil {
		return err
	}
	_, names, err := s.sources(r)
	if err != nil {
		return err
	}
	dv, err := s.draftView(r, d, names)
	if err != nil {
		return err
	}
	v := reviewView{base: s.newBase(r, "Review: "+d.Subject), Draft: dv, Open: d.State == statusd.DraftOpen || d.State == statusd.DraftLapsed,
		Lapsed: d.State == statusd.DraftLapsed, Form: draftForm(d),
		Discard: newForm(url.Values{"version": {strconv.FormatInt(d.Version, 10)}}, "reason")}
	switch {
	case failed == nil:
	case which == "publish" && failed.Get("form") == "review" && status != http.StatusConflict:
		v.Form = failed
	case which == "publish":
		v.Form.Problems = failed.Problems
	case status != http.StatusConflict:
		v.Discard = failed
	default:
		v.Discard.Problems = failed.Problems
	}
	switch d.Kind {
	case statusd.DraftIncident:
		v.Subject, v.States = true, app.OpeningStates
	case statusd.DraftUpdate:
		if snap := s.snaps.Current(); snap != nil && d.NoticeID != nil {
			if n := snap.Notice(*d.NoticeID); n != nil {
				v.States = nextStates(n)
			}
		}
	}
	if v.Picker = d.Kind != statusd.DraftReopen; v.Picker {
		v.Components = s.pickers(v.Form, "component_ids")
	}
	return s.render(w, status, "draft", v)
}

// draftOf is the draft of r's path, or a 404.
func (s *Server) draftOf(r *http.Request) (statusd.AdminDraft, error) {
	id, err := pathID(r, "draft")
	if err != nil {
		return statusd.AdminDraft{}, err
	}
	return s.app.Draft(r.Context(), actor(r), id)
}

// version reads the draft's version that the form was made with.
func (f *form) version() *int64 {
	v, err := strconv.ParseInt(f.Get("version"), 10, 64)
	if err != nil {
		f.problem("", "The form does not say which version of the draft you read; open the draft again.")
		return nil
	}
	return &v
}

// draftRequest reads the publish form of draft d: home's button sends
// its version alone; the review form, the changes its fields hold.
func (f *form) draftRequest(d statusd.AdminDraft) statusd.AdminDraftRequest {
	body := statusd.AdminDraftRequest{Version: f.version(), Notify: f.check("notify")}
	if f.Get("form") != "review" {
		return body
	}
	if d.Kind == statusd.DraftIncident {
		body.Subject = f.text("subject")
	}
	body.Content = f.text("content")
	if d.Kind != statusd.DraftReopen {
		body.NoticeState = f.text("state")
		body.ComponentIDs = f.ids("component_ids")
	}
	return body
}

// draftDone is what the notice's page says once a draft is published, by
// its kind.
var draftDone = map[string]string{statusd.DraftIncident: "published", statusd.DraftUpdate: "updated", statusd.DraftReopen: "reopened"}

// PublishDraft publishes a draft (app.PublishDraft), from home's button
// as it stands or with the review form's changes, telling subscribers
// when notify is sent; then the notice's page says what was done and the
// public page's new state. A refusal shows the review screen again.
func (s *Server) PublishDraft(w http.ResponseWriter, r *http.Request) error {
	d, err := s.draftOf(r)
	if err != nil {
		return err
	}
	var published statusd.AdminDraft
	var noticeID int64
	return submit(w, r, draftKeys, func(f *form) (err error) {
		if body := f.draftRequest(d); !f.Failed() {
			published, noticeID, err = s.app.PublishDraft(r.Context(), actor(r), d.ID, body)
		}
		return err
	}, func(status int, f *form) error {
		return s.review(w, r, status, d.ID, f, "publish")
	}, func() error { return done(w, r, noticeID, draftDone[published.Kind], published.ComponentIDs) })
}

// DiscardDraft discards a draft, for the reason given
// (app.DiscardDraft), and goes back where the form was: the notice's page
// for a proposal shown there, else home, which says so.
func (s *Server) DiscardDraft(w http.ResponseWriter, r *http.Request) error {
	d, err := s.draftOf(r)
	if err != nil {
		return err
	}
	return submit(w, r, []string{"reason"}, func(f *form) (err error) {
		if version := f.version(); !f.Failed() {
			_, err = s.app.DiscardDraft(r.Context(), actor(r), d.ID, statusd.AdminDiscardRequest{Version: version,
				Reason: strings.TrimSpace(f.Get("reason"))})
		}
		return err
	}, func(status int, f *form) error {
		return s.review(w, r, status, d.ID, f, "discard")
	}, func() error {
		if r.PostForm.Get("from") == "notice" && d.NoticeID != nil {
			return back(w, r, fmt.Sprintf("/notices/%d?discarded=%d", *d.NoticeID, d.ID))()
		}
		return back(w, r, fmt.Sprintf("?discarded=%d", d.ID))()
	})
}
