package app

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/statusd/statusd"
)

// applyNotice copies the settable fields of the body onto n, noting
// problems of fields that do not belong to n's type.
func applyNotice(b *statusd.AdminNoticeRequest, n *statusd.Notice, bad *problems) {
	if b.Subject != nil {
		n.Subject = *b.Subject
	}
	if b.ComponentIDs != nil {
		n.ComponentIDs = slices.Clone(*b.ComponentIDs)
	}
	if b.TagList != nil {
		n.TagList = slices.Clone(*b.TagList)
	}
	only := func(key string, set bool, owner statusd.NoticeType) bool {
		if set && n.Type != owner {
			bad.add(key, "only %s notices have %s", owner, key)
			return false
		}
		return set
	}
	optTime := func(key string, f statusd.Field[string]) *time.Time {
		if f.Value == nil {
			return nil
		}
		return bad.timestamp(key, *f.Value)
	}
	if only("begins_at", b.BeginsAt.Set, statusd.Planned) {
		n.BeginsAt = optTime("begins_at", b.BeginsAt)
	}
	if only("ends_at", b.EndsAt.Set, statusd.Planned) {
		n.EndsAt = optTime("ends_at", b.EndsAt)
	}
	if only("automate", b.Automate != nil, statusd.Planned) {
		n.Automate = *b.Automate
	}
	if only("expires_at", b.ExpiresAt.Set, statusd.General) {
		n.ExpiresAt = optTime("expires_at", b.ExpiresAt)
	}
	if only("impact_seconds", b.ImpactSeconds.Set, statusd.Unplanned) {
		n.ImpactSeconds = b.ImpactSeconds.Value
	}
	if only("impact", b.Impact != nil, statusd.Unplanned) {
		if s, err := statusd.ParseSeverity(*b.Impact); err != nil {
			bad.add("impact", "%v", err)
		} else {
			n.Severity = s
		}
	}
}

// firstStates are the states a new notice starts in when none is given.
var firstStates = map[statusd.NoticeType]statusd.State{
	statusd.Unplanned: statusd.Investigating, statusd.Planned: statusd.Scheduled,
}

// OpeningStates are the states an incident may be published in, the one
// rule of the admin API, the console's form and the command line: it
// opens investigating or identified, and moves on with updates.
var OpeningStates = []statusd.State{statusd.Investigating, statusd.Identified}

// OpeningWords are OpeningStates in words: "investigating or identified".
func OpeningWords() string { return oneOf(OpeningStates) }

// Publish publishes the notice of body, by actor, and returns its id.
//
// The actions on notices (Publish, Edit, AddUpdate, Reopen, DeleteNotice)
// each validate their input, run in one transaction that the audit log
// records, and return once the public API shows the write; those that
// send (Publish, AddUpdate, Reopen) store the event for subscribers in
// that transaction unless body.Notify is false.
func (a *App) Publish(ctx context.Context, actor statusd.Actor, body statusd.AdminNoticeRequest) (int64, error) {
	return a.publish(ctx, actor, body, nil)
}

// draftPart is what a publication of a draft does besides the
// equivalent notice write, in its transaction (PublishDraft): do, with
// the notice as it will be stored; and, for a draft that lapsed, the
// times of the closed incident it writes.
type draftPart struct {
	do     func(tx statusd.Tx, n *statusd.Notice) error
	closed *[2]time.Time
}

// resolvedText is the content of the update that closes an incident
// published from a lapsed draft.
const resolvedText = "This incident has been resolved."

// publish is Publish, and then, when it is not nil, the draft's part
// (then): a draft that lapsed sets closed, the first start and the last
// end of its alerts, and the incident is written closed, resolved then.
func (a *App) publish(ctx context.Context, actor statusd.Actor, body statusd.AdminNoticeRequest, then *draftPart) (int64, error) {
	if err := May(actor, ActPublish); err != nil {
		return 0, err
	}
	var bad problems
	typ := statusd.NoticeType("")
	switch {
	case body.Type == nil:
		bad.add("type", "is required: unplanned, planned or general")
	case !statusd.NoticeType(*body.Type).Valid():
		bad.add("type", "%q is not a notice type (unplanned, planned, general)", *body.Type)
	default:
		typ = statusd.NoticeType(*body.Type)
	}
	bad.requireText("subject", body.Subject, true)
	bad.requireText("content", body.Content, true)
	bad.bound("subject", body.Subject, statusd.MaxSubject)
	bad.bound("content", body.Content, statusd.MaxContent)
	if typ == "" {
		return 0, bad.err() // the type decides which other fields belong
	}
	// The problems of the fields read here are named with those the
	// transaction finds, all at once; stand-ins take the refused values'
	// places, so that no rule names them twice.
	content := "-"
	if body.Content != nil && !bad.has("content") {
		content = *body.Content
	}
	state := firstStates[typ]
	if body.State != nil {
		s := statusd.State(*body.State)
		if typ == statusd.General || !statusd.ValidState(typ, s) {
			if err := statusd.CheckTransition(typ, "", s); err != nil {
				bad.add("state", "%s", statusd.ErrorMessage(err))
				s = state
			}
		}
		if typ == statusd.Unplanned && s != state && !slices.Contains(OpeningStates, s) {
			bad.add("state", "an incident opens %s; post %s as an update once it is open", OpeningWords(), s)
			s = state
		}
		state = s
	}
	var id int64
	err := a.write(ctx, func(tx statusd.Tx) error {
		comps, err := pageComponents(tx)
		if err != nil {
			return err
		}
		if id, err = tx.NextID("notices"); err != nil {
			return err
		}
		uid, err := tx.NextID("updates")
		if err != nil {
			return err
		}
		now := a.stamp()
		n := statusd.Notice{ID: id, Type: typ, TagList: []string{}, ComponentIDs: []int64{}, CreatedAt: now, UpdatedAt: now,
			Updates: []statusd.Update{{ID: uid, State: state, Content: content, CreatedAt: now, UpdatedAt: now}}}
		all := slices.Clone(bad)
		applyNotice(&body, &n, &all)
		if bad.has("subject") {
			n.Subject = "-"
		}
		if then != nil && then.closed != nil {
			first, last := then.closed[0], then.closed[1]
			end, err := tx.NextID("updates")
			if err != nil {
				return err
			}
			n.CreatedAt, n.Updates[0].CreatedAt, n.Updates[0].UpdatedAt = first, first, first
			n.Updates = append(n.Updates, statusd.Update{ID: end, State: statusd.Resolved, Content: resolvedText, CreatedAt: last, UpdatedAt: last})
		}
		all = append(all, statusd.ValidateNotice(&n, comps)...)
		if err := all.err(); err != nil {
			return err
		}
		if then != nil {
			if err := then.do(tx, &n); err != nil {
				return err
			}
		}
		changes, err := noticeChanges(tx, comps, nil, &n)
		if err != nil {
			return err
		}
		record(nil, &n, body.Notify, changes)
		if err := tx.PutNotice(&n); err != nil {
			return err
		}
		if err := emit(tx, body.Notify, statusd.NoticeCreated, &n, now); err != nil {
			return err
		}
		if err := emitChanges(tx, body.Notify, changes, now); err != nil {
			return err
		}
		return tx.Audit(a.entry(actor, "notice.create", noticeTarget(id), fmt.Sprintf("%s: %s", typ, n.Subject)))
	})
	if err != nil {
		return 0, err
	}
	a.wake(body.Notify)
	return id, nil
}

// pageComponents returns the components, or 404 when there is no page.
func pageComponents(tx statusd.Tx) ([]statusd.Component, error) {
	if _, err := tx.Page(); err != nil {
		return nil, err
	}
	return tx.Components()
}

// noticeTarget names a notice in the audit log.
func noticeTarget(id int64) string { return fmt.Sprintf("notice %d", id) }

// notifying reports whether a write's body leaves subscribers to be told
// ("notify" true or left out).
func notifying(notify *bool) bool { return notify == nil || *notify }

// emit stores, in the write's transaction, the event of n's last update
// for subscribers (CONTRACT C7), unless the body said "notify": false.
func emit(tx statusd.Tx, notify *bool, kind statusd.EventKind, n *statusd.Notice, now time.Time) error {
	if !notifying(notify) {
		return nil
	}
	return tx.Emit(statusd.Event{Kind: kind, NoticeID: n.ID, UpdateID: n.Updates[len(n.Updates)-1].ID,
		ComponentIDs: slices.Clone(n.ComponentIDs), CreatedAt: now})
}

// changeNotice runs fn on notice id inside one transaction, validates the
// result, stores it, stores the updates of the components whose states it
// changed (unless notify is false), and records action in the audit log.
func (a *App) changeNotice(ctx context.Context, actor statusd.Actor, action string, id int64, notify *bool,
	fn func(tx statusd.Tx, n *statusd.Notice, now time.Time) (detail string, err error)) error {
	return a.write(ctx, func(tx statusd.Tx) error {
		n, err := noticeIn(tx, id)
		if err != nil {
			return err
		}
		comps, err := tx.Components()
		if err != nil {
			return err
		}
		now := a.stamp()
		if last := n.Updates[len(n.Updates)-1].CreatedAt; now.Before(last) {
			now = last // update times never go backwards, whatever the clock does
		}
		was := *n
		was.Updates, was.ComponentIDs = slices.Clone(n.Updates), slices.Clone(n.ComponentIDs)
		detail, err := fn(tx, n, now)
		if err != nil {
			return err
		}
		n.UpdatedAt = now
		if err := statusd.Invalid(statusd.EInvalidField, statusd.ValidateNotice(n, comps)); err != nil {
			return err
		}
		changes, err := noticeChanges(tx, comps, &was, n)
		if err != nil {
			return err
		}
		record(&was, n, notify, changes)
		if err := tx.PutNotice(n); err != nil {
			return err
		}
		if err := emitChanges(tx, notify, changes, now); err != nil {
			return err
		}
		return tx.Audit(a.entry(actor, action, noticeTarget(id), detail))
	})
}

// Edit changes notice id's subject, components, tags, schedule or
// expiry as body says; it sends nothing but the updates of the components
// whose states it changed.
func (a *App) Edit(ctx context.Context, actor statusd.Actor, id int64, body statusd.AdminNoticeRequest) error {
	if err := May(actor, ActEdit); err != nil {
		return err
	}
	var bad problems
	bad.refuse("cannot be changed here; post an update with POST /admin/api/v1/notices/{id}/updates",
		setField{"type", body.Type != nil}, setField{"state", body.State != nil}, setField{"content", body.Content != nil})
	bad.refuse("an edit sends nothing to subscribers; leave notify out (only new notices, updates and reopens are sent)",
		setField{"notify", body.Notify != nil})
	bad.requireText("subject", body.Subject, false)
	bad.bound("subject", body.Subject, statusd.MaxSubject)
	if err := bad.err(); err != nil {
		return err
	}
	err := a.changeNotice(ctx, actor, "notice.update", id, nil, func(_ statusd.Tx, n *statusd.Notice, _ time.Time) (string, error) {
		var bad problems
		applyNotice(&body, n, &bad)
		return "changed " + n.Subject, bad.err()
	})
	if err == nil {
		a.wake(nil) // its components' updates, should it have changed their states
	}
	return err
}

// AddUpdate adds the update of body to notice id: its state (the
// notice's own when left out) must follow from the notice's, and a state
// given that is the notice's current final one is a 409 that writes and
// sends nothing (statusd.CheckRepeat).
//
// Statusd itself (statusd.System) posts the moves of automated
// maintenance through it: such a move is made only while it is due
// (statusd.Notice.AutomationDue) when the transaction reads the notice,
// so that of several servers only one makes it (the others get
// ErrNotDue), and the audit log calls it notice.automate.
func (a *App) AddUpdate(ctx context.Context, actor statusd.Actor, id int64, body statusd.AdminUpdateRequest) error {
	if err := May(actor, ActAddUpdate); err != nil {
		return err
	}
	var bad problems
	bad.requireText("content", body.Content, true)
	bad.bound("content", body.Content, statusd.MaxContent)
	if err := bad.err(); err != nil {
		return err
	}
	return a.addUpdate(ctx, actor, id, body, nil)
}

// addUpdate is AddUpdate, and then the draft's part, when it is not nil,
// before the update is added.
func (a *App) addUpdate(ctx context.Context, actor statusd.Actor, id int64, body statusd.AdminUpdateRequest, then *draftPart) error {
	action := "notice.post_update"
	if actor.Kind == statusd.BySystem && then == nil {
		action = "notice.automate"
	}
	err := a.changeNotice(ctx, actor, action, id, body.Notify, func(tx statusd.Tx, n *statusd.Notice, now time.Time) (string, error) {
		if then != nil {
			if err := then.do(tx, n); err != nil {
				return "", err
			}
		}
		state := n.State()
		if body.State != nil {
			state = statusd.State(*body.State)
		}
		// A move of statusd's own that another server made first is not
		// due any more; checked before the repeat rule, which would call
		// it a person's conflict.
		if next, due := n.AutomationDue(now); action == "notice.automate" && (!due || next != state) {
			return "", ErrNotDue
		}
		if body.State != nil {
			if err := statusd.CheckRepeat(n, state); err != nil {
				return "", err
			}
		}
		if err := statusd.CheckTransition(n.Type, n.State(), state); err != nil {
			return "", err
		}
		return string(state), addUpdate(tx, n, state, &body, now)
	})
	if err == nil {
		a.wake(body.Notify)
	}
	return err
}

// Reopen reopens resolved incident id with the update of body, in state
// investigating.
func (a *App) Reopen(ctx context.Context, actor statusd.Actor, id int64, body statusd.AdminUpdateRequest) error {
	if err := May(actor, ActReopen); err != nil {
		return err
	}
	var bad problems
	bad.requireText("content", body.Content, true)
	bad.bound("content", body.Content, statusd.MaxContent)
	if body.State != nil {
		bad.add("state", "a reopened incident is investigating; leave state out")
	}
	if err := bad.err(); err != nil {
		return err
	}
	return a.reopen(ctx, actor, id, body, nil)
}

// reopen is Reopen, and then the draft's part, when it is not nil, before
// the update is added.
func (a *App) reopen(ctx context.Context, actor statusd.Actor, id int64, body statusd.AdminUpdateRequest, then *draftPart) error {
	err := a.changeNotice(ctx, actor, "notice.reopen", id, body.Notify, func(tx statusd.Tx, n *statusd.Notice, now time.Time) (string, error) {
		if err := statusd.CheckReopen(n); err != nil {
			return "", err
		}
		if then != nil {
			if err := then.do(tx, n); err != nil {
				return "", err
			}
		}
		return "reopened", addUpdate(tx, n, statusd.Investigating, &body, now)
	})
	if err == nil {
		a.wake(body.Notify)
	}
	return err
}

// noticeIn returns the notice with the id in tx, or a 404.
func noticeIn(tx statusd.Tx, id int64) (*statusd.Notice, error) {
	n, err := tx.Notice(id)
	if err == nil && n == nil {
		err = statusd.Errorf(statusd.ENotFound, "notice %d not found", id)
	}
	return n, err
}

// addUpdate appends the update of the body, in state, with the next free
// update id, to n, and stores its event for subscribers unless the body
// said "notify": false.
func addUpdate(tx statusd.Tx, n *statusd.Notice, state statusd.State, body *statusd.AdminUpdateRequest, now time.Time) error {
	id, err := tx.NextID("updates")
	if err != nil {
		return err
	}
	n.Updates = append(n.Updates, statusd.Update{ID: id, State: state, Content: *body.Content, CreatedAt: now, UpdatedAt: now})
	return emit(tx, body.Notify, statusd.NoticeUpdated, n, now)
}

// DeleteNotice deletes notice id and its updates; it sends nothing but
// the updates of the components whose states it changed.
func (a *App) DeleteNotice(ctx context.Context, actor statusd.Actor, id int64) error {
	if err := May(actor, ActDeleteNotice); err != nil {
		return err
	}
	err := a.write(ctx, func(tx statusd.Tx) error {
		n, err := noticeIn(tx, id)
		if err != nil {
			return err
		}
		if err := tx.DeleteNotice(id); err != nil {
			return err
		}
		comps, err := tx.Components()
		if err != nil {
			return err
		}
		changes, err := noticeChanges(tx, comps, n, nil)
		if err != nil {
			return err
		}
		if err := emitChanges(tx, nil, changes, a.stamp()); err != nil {
			return err
		}
		return tx.Audit(a.entry(actor, "notice.delete", noticeTarget(id), n.Subject))
	})
	if err == nil {
		a.wake(nil)
	}
	return err
}

// Remind stores, for statusd itself, the reminder of scheduled
// maintenance id, which lists components and begins at begins (CONTRACT
// C7), at now, once per begins_at however many servers ask (its event's
// key), and wakes the sender.
func (a *App) Remind(ctx context.Context, actor statusd.Actor, id int64, components []int64, begins, now time.Time) error {
	if err := May(actor, ActRemind); err != nil {
		return err
	}
	_, err := a.store.Subscribers().Emit(ctx, statusd.Event{Kind: statusd.MaintenanceReminder, NoticeID: id,
		ComponentIDs: components, Key: statusd.ReminderKey(id, begins), CreatedAt: now})
	if err == nil {
		a.wake(nil)
	}
	return err
}

// AuditPage returns page (from 1) of the audit log, newest first, 25 a
// page, and the count of all its entries.
func (a *App) AuditPage(ctx context.Context, actor statusd.Actor, page int64) ([]statusd.AdminAuditEntry, int, error) {
	if err := May(actor, ActRead); err != nil {
		return nil, 0, err
	}
	entries, total, err := a.store.Audit(ctx, int(page), pageSize)
	if err != nil {
		return nil, 0, err
	}
	list := make([]statusd.AdminAuditEntry, len(entries))
	for i, e := range entries {
		list[i] = statusd.AdminAuditEntryOf(e)
	}
	return list, total, nil
}
