package app

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/statusd/statusd"
)

// Drafts returns the drafts in state ("": all), by id.
func (a *App) Drafts(ctx context.Context, actor statusd.Actor, state string) ([]statusd.AdminDraft, error) {
	if err := May(actor, ActRead); err != nil {
		return nil, err
	}
	var list []statusd.Draft
	err := a.store.Signals().Read(ctx, func(r statusd.SignalReads) (err error) { list, err = r.Drafts(state); return err })
	out := make([]statusd.AdminDraft, len(list))
	for i := range list {
		out[i] = statusd.AdminDraftOf(&list[i])
	}
	return out, err
}

// Draft returns draft id, or a 404.
func (a *App) Draft(ctx context.Context, actor statusd.Actor, id int64) (statusd.AdminDraft, error) {
	if err := May(actor, ActRead); err != nil {
		return statusd.AdminDraft{}, err
	}
	var d *statusd.Draft
	err := a.store.Signals().Read(ctx, func(r statusd.SignalReads) (err error) { d, err = draftIn(r, id); return err })
	if err != nil {
		return statusd.AdminDraft{}, err
	}
	return statusd.AdminDraftOf(d), nil
}

// Signals returns the signals f selects, by id.
func (a *App) Signals(ctx context.Context, actor statusd.Actor, f statusd.SignalFilter) ([]statusd.AdminSignal, error) {
	if err := May(actor, ActRead); err != nil {
		return nil, err
	}
	var list []statusd.Signal
	err := a.store.Signals().Read(ctx, func(r statusd.SignalReads) (err error) { list, err = r.Signals(f); return err })
	out := make([]statusd.AdminSignal, len(list))
	for i := range list {
		out[i] = statusd.AdminSignalOf(&list[i], a.now())
	}
	return out, err
}

// draftIn returns draft id, or a 404.
func draftIn(r statusd.SignalReads, id int64) (*statusd.Draft, error) {
	d, err := r.Draft(id)
	if err == nil && d == nil {
		err = statusd.Errorf(statusd.ENotFound, "draft %d not found", id)
	}
	return d, err
}

// current returns draft id as tx holds it, or a 409 when the version
// read is not its own (another change came first), or when it can no
// longer be published (publishing true) or changed.
func current(tx statusd.Tx, id int64, version *int64, publishing bool) (*statusd.Draft, error) {
	d, err := draftIn(tx, id)
	if err != nil {
		return nil, err
	}
	switch {
	case version == nil:
		return nil, statusd.Invalid(statusd.EInvalidField, []statusd.Problem{{Path: "version", Message: "is required: the draft's version as you read it"}})
	case *version != d.Version:
		return nil, statusd.Errorf(statusd.EConflict, "draft %d changed since you read it (version %d, now %d): read it again", id, *version, d.Version)
	case publishing && !d.Publishable(), !publishing && d.State != statusd.DraftOpen:
		return nil, statusd.Errorf(statusd.EConflict, "draft %d is %s: it can no longer be changed", id, d.State)
	}
	return d, nil
}

// checkDraft notes the problems of a draft as a person changed it: its
// notice state must be one its kind of write may give (an incident opens
// investigating or identified, a reopening is investigating, an update
// takes any state of an incident), and its components must exist.
func checkDraft(d *statusd.Draft, exists func(id int64) bool, bad *problems) {
	states := statusd.States(statusd.Unplanned)
	switch d.Kind {
	case statusd.DraftIncident:
		states = OpeningStates
	case statusd.DraftReopen:
		states = []statusd.State{statusd.Investigating}
	}
	if !slices.Contains(states, d.NoticeState) {
		bad.add("notice_state", "%q is not a state this %s draft can publish (%s)", d.NoticeState, d.Kind, oneOf(states))
	}
	for i, id := range d.ComponentIDs {
		if !exists(id) {
			bad.add(fmt.Sprintf("component_ids[%d]", i), "no component has id %d", id)
		}
	}
}

// applyDraft copies the body's changes onto d, noting the problems.
func applyDraft(body *statusd.AdminDraftRequest, d *statusd.Draft, bad *problems) {
	bad.requireText("subject", body.Subject, false)
	bad.requireText("content", body.Content, false)
	bad.bound("subject", body.Subject, statusd.MaxSubject)
	bad.bound("content", body.Content, statusd.MaxContent)
	if body.Subject != nil {
		d.Subject, d.Edited = *body.Subject, true
	}
	if body.Content != nil {
		d.Content, d.Edited = *body.Content, true
	}
	if body.NoticeState != nil {
		d.NoticeState = statusd.State(*body.NoticeState)
	}
	if body.ComponentIDs != nil {
		d.ComponentIDs = slices.Clone(*body.ComponentIDs)
	}
}

// ChangeDraft changes an open draft's texts, notice state or components,
// given the version the person read (409 when it moved since).
func (a *App) ChangeDraft(ctx context.Context, actor statusd.Actor, id int64, body statusd.AdminDraftRequest) (statusd.AdminDraft, error) {
	if err := May(actor, ActChangeDraft); err != nil {
		return statusd.AdminDraft{}, err
	}
	var bad problems
	bad.refuse("is given when publishing: POST /admin/api/v1/drafts/{id}/publish", setField{"notify", body.Notify != nil})
	var d *statusd.Draft
	err := a.write(ctx, func(tx statusd.Tx) (err error) {
		if d, err = current(tx, id, body.Version, false); err != nil {
			return err
		}
		comps, err := tx.Components()
		if err != nil {
			return err
		}
		applyDraft(&body, d, &bad)
		checkDraft(d, func(id int64) bool { _, ok := statusd.ComponentRef(comps, fmt.Sprint(id)); return ok }, &bad)
		if err := bad.err(); err != nil {
			return err
		}
		d.Version++
		d.UpdatedAt = a.stamp()
		if err := tx.PutDraft(d); err != nil {
			return err
		}
		return tx.Audit(a.entry(actor, "draft.update", draftTarget(id), d.Subject))
	})
	if err != nil {
		return statusd.AdminDraft{}, err
	}
	return statusd.AdminDraftOf(d), nil
}

// DiscardDraft discards an open or lapsed draft, for reason; its signals
// stay.
func (a *App) DiscardDraft(ctx context.Context, actor statusd.Actor, id int64, body statusd.AdminDiscardRequest) (statusd.AdminDraft, error) {
	if err := May(actor, ActChangeDraft); err != nil {
		return statusd.AdminDraft{}, err
	}
	var d *statusd.Draft
	err := a.write(ctx, func(tx statusd.Tx) (err error) {
		if d, err = current(tx, id, body.Version, true); err != nil {
			return err
		}
		d.State, d.Reason, d.PublishAt = statusd.DraftDiscarded, body.Reason, nil
		d.Version++
		d.UpdatedAt = a.stamp()
		if err := tx.PutDraft(d); err != nil {
			return err
		}
		return tx.Audit(a.entry(actor, "draft.discard", draftTarget(id), d.Subject))
	})
	if err != nil {
		return statusd.AdminDraft{}, err
	}
	return statusd.AdminDraftOf(d), nil
}

// PublishDraft publishes draft id, open or lapsed, as the version the
// person read says (409 when it moved since, or when it was published or
// discarded): a new incident, an update of its incident, or its
// reopening, with the body's changes, in the same transaction, events
// and audit entry as the equivalent notice write (Publish, AddUpdate,
// Reopen), the draft marked published with the notice's id, its signals
// linked to the notice. A lapsed incident draft writes a closed incident
// from its alerts' first start to their last end.
func (a *App) PublishDraft(ctx context.Context, actor statusd.Actor, id int64, body statusd.AdminDraftRequest) (statusd.AdminDraft, int64, error) {
	if err := May(actor, ActPublishDraft); err != nil {
		return statusd.AdminDraft{}, 0, err
	}
	return a.publishDraft(ctx, actor, id, body, nil)
}

// publishDraft is PublishDraft; rule, when not nil, is the index of the
// publish rule that publishes the draft by itself: refused with
// errCooldown when the rule published within its cooldown, else noted as
// its last publication in the same transaction.
func (a *App) publishDraft(ctx context.Context, actor statusd.Actor, id int64, body statusd.AdminDraftRequest, rule *int) (statusd.AdminDraft, int64, error) {
	// The draft as it is now, to know which write publishes it; the
	// write reads it again, and refuses when it moved meanwhile.
	var seen *statusd.Draft
	err := a.store.Signals().Read(ctx, func(r statusd.SignalReads) (err error) { seen, err = draftIn(r, id); return err })
	if err != nil {
		return statusd.AdminDraft{}, 0, err
	}
	snap, err := a.Snapshot()
	if err != nil {
		return statusd.AdminDraft{}, 0, err
	}
	var bad problems
	view := *seen
	applyDraft(&body, &view, &bad)
	checkDraft(&view, func(id int64) bool { return snap.Component(id) != nil }, &bad)
	if err := bad.err(); err != nil {
		return statusd.AdminDraft{}, 0, err
	}
	var published statusd.Draft
	part := &draftPart{do: func(tx statusd.Tx, n *statusd.Notice) error {
		d, err := current(tx, id, body.Version, true)
		if err != nil {
			return err
		}
		if rule != nil {
			if err := a.cooldown(tx, d.SourceID, *rule); err != nil {
				return err
			}
		}
		if d.Kind == statusd.DraftUpdate {
			n.ComponentIDs = slices.Clone(view.ComponentIDs)
		}
		if err := linkSignals(tx, d, n.ID); err != nil {
			return err
		}
		d.State, d.NoticeID, d.PublishAt = statusd.DraftPublished, &n.ID, nil
		d.Subject, d.Content, d.NoticeState, d.ComponentIDs = view.Subject, view.Content, view.NoticeState, view.ComponentIDs
		d.Version++
		d.UpdatedAt = a.stamp()
		published = *d
		return tx.PutDraft(d)
	}}
	state, content := string(view.NoticeState), view.Content
	var noticeID int64
	switch seen.Kind {
	case statusd.DraftIncident:
		if seen.State == statusd.DraftLapsed {
			if part.closed, err = a.lapsedSpan(ctx, seen); err != nil {
				return statusd.AdminDraft{}, 0, err
			}
		}
		typ := string(statusd.Unplanned)
		noticeID, err = a.publish(ctx, actor, statusd.AdminNoticeRequest{Type: &typ, Subject: &view.Subject, Content: &content,
			State: &state, ComponentIDs: &view.ComponentIDs, Notify: body.Notify}, part)
	case statusd.DraftUpdate:
		noticeID = *seen.NoticeID
		err = a.addUpdate(ctx, actor, noticeID, statusd.AdminUpdateRequest{Content: &content, State: &state, Notify: body.Notify}, part)
	case statusd.DraftReopen:
		noticeID = *seen.NoticeID
		err = a.reopen(ctx, actor, noticeID, statusd.AdminUpdateRequest{Content: &content, Notify: body.Notify}, part)
	}
	if err != nil {
		return statusd.AdminDraft{}, 0, err
	}
	a.wake(body.Notify)
	return statusd.AdminDraftOf(&published), noticeID, nil
}

// errCooldown refuses a publish rule's publication within its cooldown.
var errCooldown = statusd.Errorf(statusd.EConflict, "the rule published within its cooldown")

// cooldown refuses, with errCooldown, a publication by rule of source id
// within the rule's cooldown of its last, and otherwise notes this one.
func (a *App) cooldown(tx statusd.Tx, id int64, rule int) error {
	s, err := sourceIn(tx, id)
	if err != nil {
		return err
	}
	if rule >= len(s.Rules) {
		return errCooldown // the rule is gone: a person decides
	}
	wait := time.Duration(s.Rules[rule].Cooldown)
	if wait == 0 {
		wait = statusd.DefaultCooldown
	}
	if last, ok := s.Published[rule]; ok && a.now().Sub(last) < wait {
		return errCooldown
	}
	if s.Published == nil {
		s.Published = map[int]time.Time{}
	}
	s.Published[rule] = a.stamp()
	return tx.PutSource(s)
}

// linkSignals links the signals of draft d to notice id: their later
// resolution proposes the notice's recovery.
func linkSignals(tx statusd.Tx, d *statusd.Draft, id int64) error {
	list, err := tx.Signals(statusd.SignalFilter{DraftID: d.ID})
	if err != nil {
		return err
	}
	for i := range list {
		list[i].NoticeID = &id
		if err := tx.PutSignals(&list[i]); err != nil {
			return err
		}
	}
	return nil
}

// lapsedSpan is the first start and the last end of a lapsed draft's
// signals (when each was first and last seen, where the sender gave no
// time): the times of the closed incident its publication writes.
func (a *App) lapsedSpan(ctx context.Context, d *statusd.Draft) (*[2]time.Time, error) {
	var list []statusd.Signal
	err := a.store.Signals().Read(ctx, func(r statusd.SignalReads) (err error) {
		list, err = r.Signals(statusd.SignalFilter{DraftID: d.ID})
		return err
	})
	if err != nil {
		return nil, err
	}
	if len(list) == 0 {
		return &[2]time.Time{d.CreatedAt, d.UpdatedAt}, nil
	}
	var span *[2]time.Time
	for _, s := range list {
		start, end := s.FirstSeenAt, s.LastSeenAt
		if s.StartsAt != nil && s.StartsAt.Before(start) {
			start = *s.StartsAt
		}
		if s.EndsAt != nil && !s.EndsAt.After(end) {
			end = *s.EndsAt
		}
		switch {
		case span == nil:
			span = &[2]time.Time{start, end}
		case start.Before(span[0]):
			span[0] = start
		}
		if end.After(span[1]) {
			span[1] = end
		}
	}
	return span, nil
}

// SignalTimers runs the timers of the signals once, whatever server runs it:
// signals whose hold is over are grouped (a hold's end is recorded in the
// same transaction, so another server finds nothing left to do); the
// drafts of publish rules whose time came are published, within their
// rule's cooldown, by signals:<source name> (a draft's version makes sure
// one server publishes it).
func (a *App) SignalTimers(ctx context.Context) error {
	now := a.now()
	held := statusd.SignalFilter{Status: "firing", HeldBy: now}
	// Most ticks find nothing to do: a read of two indexes says so,
	// without a write.
	var due []statusd.Draft
	idle := true
	err := a.store.Signals().Read(ctx, func(r statusd.SignalReads) error {
		n, err := r.SignalCount(held)
		if err != nil {
			return err
		}
		due, err = r.DueDrafts(now)
		idle = n == 0 && len(due) == 0
		return err
	})
	if err != nil || idle {
		return err
	}
	err = a.write(ctx, func(tx statusd.Tx) error {
		list, err := tx.Signals(held)
		if err != nil {
			return err
		}
		sources := map[int64]*intake{}
		for i := range list {
			sig := &list[i]
			in := sources[sig.SourceID]
			if in == nil {
				if in, err = a.intake(tx, sig.SourceID, false); err != nil {
					return err
				}
				sources[sig.SourceID] = in
			}
			var rule *statusd.SignalRule
			if sig.Rule >= 0 && sig.Rule < len(in.src.Rules) {
				rule = &in.src.Rules[sig.Rule]
			}
			if _, err := in.group(sig, rule); err != nil {
				return err
			}
			in.touch(sig)
		}
		for _, id := range slices.Sorted(maps.Keys(sources)) {
			if err := sources[id].done(); err != nil {
				return err
			}
		}
		due, err = tx.DueDrafts(now)
		return err
	})
	if err != nil {
		return err
	}
	for _, d := range due {
		if err := a.autoPublish(ctx, d); err != nil && statusd.ErrorCode(err) != statusd.EConflict {
			return err
		}
	}
	return nil
}

// autoPublish publishes a publish rule's draft as signals:<source name>,
// telling subscribers only when the rule says so; within the rule's
// cooldown the draft stays for a person, with a warning that says why.
func (a *App) autoPublish(ctx context.Context, d statusd.Draft) error {
	var src *statusd.Source
	err := a.store.Signals().Read(ctx, func(r statusd.SignalReads) (err error) { src, err = r.Source(d.SourceID); return err })
	if err != nil || src == nil || d.Rule < 0 || d.Rule >= len(src.Rules) {
		return err
	}
	rule := src.Rules[d.Rule]
	notify := rule.Notify != nil && *rule.Notify
	actor := statusd.Actor{Name: "signals:" + src.Name, Role: statusd.Publisher, Kind: statusd.BySystem}
	_, _, err = a.publishDraft(ctx, actor, d.ID, statusd.AdminDraftRequest{Version: &d.Version, Notify: &notify}, &d.Rule)
	if !errors.Is(err, errCooldown) {
		return err
	}
	return a.write(ctx, func(tx statusd.Tx) error {
		cur, err := current(tx, d.ID, &d.Version, true)
		if err != nil {
			return err
		}
		cur.PublishAt = nil
		cur.Warnings = append(cur.Warnings, "not published by itself: its rule published another draft within its cooldown")
		cur.Version++
		cur.UpdatedAt = a.stamp()
		return tx.PutDraft(cur)
	})
}
