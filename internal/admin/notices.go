package admin

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"time"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/internal/httpjson"
	"github.com/statusd/statusd/internal/snapshot"
)

func (s *Server) noticeRepr(snap *snapshot.Snapshot, n *snapshot.Notice) statusd.AdminNotice {
	out := statusd.AdminNotice{NoticeDetail: snap.NoticeDetail(n, s.now()), ComponentIDs: n.ComponentIDs()}
	if out.ComponentIDs == nil {
		out.ComponentIDs = []int64{} // a list, never null
	}
	switch n.Type() {
	case statusd.Planned:
		automate := n.Automate()
		out.Automate = &automate
	case statusd.General:
		out.ExpiresAt = statusd.Field[statusd.Time]{Set: true, Value: statusd.TimePtr(n.ExpiresAt())}
	case statusd.Unplanned:
		out.ImpactSeconds = statusd.Field[int64]{Set: true, Value: n.ImpactSeconds()}
	}
	return out
}

// ListNotices answers a page of the notices.
func (s *Server) ListNotices(w http.ResponseWriter, r *http.Request, _ string) error {
	snap, err := s.current()
	if err != nil {
		return err
	}
	page, err := PageParam(r)
	if err != nil {
		return err
	}
	total := snap.NoticeCount()
	list := []statusd.AdminNotice{}
	if page <= int64(total+snapshot.PageSize-1)/snapshot.PageSize {
		for i := (page - 1) * snapshot.PageSize; i < int64(total) && i < page*snapshot.PageSize; i++ {
			list = append(list, s.noticeRepr(snap, snap.NoticeAt(int(i))))
		}
	}
	meta := listMeta("/notices", nil, page, len(list), total)
	return httpjson.Write(w, r, http.StatusOK, statusd.AdminNoticesResponse{Notices: list, Meta: meta})
}

// GetNotice answers one notice with its updates.
func (s *Server) GetNotice(w http.ResponseWriter, r *http.Request, _ string) error {
	id, err := statusd.ParseID("notice", r.PathValue("id"))
	if err != nil {
		return err
	}
	return s.answerNotice(w, r, http.StatusOK, id)
}

func (s *Server) answerNotice(w http.ResponseWriter, r *http.Request, status int, id int64) error {
	snap, err := s.current()
	if err != nil {
		return err
	}
	n := snap.Notice(id)
	if n == nil {
		return statusd.Errorf(statusd.ENotFound, "notice %d not found", id)
	}
	return httpjson.Write(w, r, status, s.noticeRepr(snap, n))
}

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
}

// firstStates are the states a new notice starts in when none is given.
var firstStates = map[statusd.NoticeType]statusd.State{
	statusd.Unplanned: statusd.Investigating, statusd.Planned: statusd.Scheduled,
}

// CreateNotice publishes a notice (POST /notices): Publish, then the
// notice, 201.
func (s *Server) CreateNotice(w http.ResponseWriter, r *http.Request, actor string) error {
	var body statusd.AdminNoticeRequest
	if err := decode(r, &body); err != nil {
		return err
	}
	id, err := s.Publish(r.Context(), actor, body)
	if err != nil {
		return err
	}
	return s.answerNotice(w, r, http.StatusCreated, id)
}

// Publish publishes the notice of body, by actor, and returns its id.
//
// Publish and the other actions on notices (Edit, AddUpdate, Reopen,
// Remove) are what the admin API's routes do once they have read the
// request, and what the console does for its forms: each validates its
// input, runs in one transaction that the audit log records, and returns
// once the public API shows the write; those that send (Publish,
// AddUpdate, Reopen) store the event for subscribers in that transaction
// unless body.Notify is false.
func (s *Server) Publish(ctx context.Context, actor string, body statusd.AdminNoticeRequest) (int64, error) {
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
	if err := bad.err(); err != nil {
		return 0, err
	}
	state := firstStates[typ]
	if body.State != nil {
		state = statusd.State(*body.State)
		if typ == statusd.General || !statusd.ValidState(typ, state) {
			if err := statusd.CheckTransition(typ, "", state); err != nil {
				return 0, statusd.Errorf(statusd.EInvalidField, "state: %s", statusd.ErrorMessage(err))
			}
		}
	}
	var id int64
	err := s.write(ctx, func(tx statusd.Tx) error {
		comps, err := s.pageComponents(tx)
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
		now := s.now().UTC().Truncate(time.Millisecond)
		n := statusd.Notice{ID: id, Type: typ, TagList: []string{}, ComponentIDs: []int64{}, CreatedAt: now, UpdatedAt: now,
			Updates: []statusd.Update{{ID: uid, State: state, Content: *body.Content, CreatedAt: now, UpdatedAt: now}}}
		var bad problems
		applyNotice(&body, &n, &bad)
		bad.addAll(statusd.ValidateNotice(&n, comps))
		if err := bad.err(); err != nil {
			return err
		}
		if err := tx.PutNotice(&n); err != nil {
			return err
		}
		if err := emit(tx, body.Notify, statusd.NoticeCreated, &n); err != nil {
			return err
		}
		return tx.Audit(s.entry(actor, "notice.create", fmt.Sprintf("notice %d", id), fmt.Sprintf("%s: %s", typ, n.Subject)))
	})
	if err != nil {
		return 0, err
	}
	s.wake(body.Notify)
	return id, nil
}

// notifying reports whether a write's body leaves subscribers to be told
// ("notify" true or left out).
func notifying(notify *bool) bool { return notify == nil || *notify }

// emit stores, in the write's transaction, the event of n's last update
// for subscribers (CONTRACT C7), unless the body said "notify": false.
func emit(tx statusd.Tx, notify *bool, kind statusd.EventKind, n *statusd.Notice) error {
	if !notifying(notify) {
		return nil
	}
	return tx.Emit(statusd.Event{Kind: kind, NoticeID: n.ID, UpdateID: n.Updates[len(n.Updates)-1].ID,
		ComponentIDs: slices.Clone(n.ComponentIDs)})
}

// wake has the sender look at once for the events a committed write
// stored.
func (s *Server) wake(notify *bool) {
	if notifying(notify) && s.notifier != nil {
		s.notifier.Wake()
	}
}

// pageComponents returns the components, or 404 when there is no page.
func (s *Server) pageComponents(tx statusd.Tx) ([]statusd.Component, error) {
	if _, err := tx.Page(); err != nil {
		return nil, err
	}
	return tx.Components()
}

// changeNotice runs fn on notice id inside one transaction, validates the
// result, stores it and records action in the audit log.
func (s *Server) changeNotice(ctx context.Context, actor, action string, id int64,
	fn func(tx statusd.Tx, n *statusd.Notice, now time.Time) (detail string, err error)) error {
	return s.write(ctx, func(tx statusd.Tx) error {
		n, err := noticeIn(tx, id)
		if err != nil {
			return err
		}
		comps, err := tx.Components()
		if err != nil {
			return err
		}
		now := s.now().UTC().Truncate(time.Millisecond)
		if last := n.Updates[len(n.Updates)-1].CreatedAt; now.Before(last) {
			now = last // update times never go backwards, whatever the clock does
		}
		detail, err := fn(tx, n, now)
		if err != nil {
			return err
		}
		n.UpdatedAt = now
		var bad problems
		bad.addAll(statusd.ValidateNotice(n, comps))
		if err := bad.err(); err != nil {
			return err
		}
		if err := tx.PutNotice(n); err != nil {
			return err
		}
		return tx.Audit(s.entry(actor, action, fmt.Sprintf("notice %d", id), detail))
	})
}

// onNotice serves a route on the notice of the path: it reads the id and
// the body, runs do and answers the notice with status.
func onNotice[B any](s *Server, w http.ResponseWriter, r *http.Request, actor string, status int,
	do func(ctx context.Context, actor string, id int64, body B) error) error {
	id, err := statusd.ParseID("notice", r.PathValue("id"))
	if err != nil {
		return err
	}
	var body B
	if err := decode(r, &body); err != nil {
		return err
	}
	if err := do(r.Context(), actor, id, body); err != nil {
		return err
	}
	return s.answerNotice(w, r, status, id)
}

// PatchNotice edits a notice (PATCH /notices/{id}): Edit.
func (s *Server) PatchNotice(w http.ResponseWriter, r *http.Request, actor string) error {
	return onNotice(s, w, r, actor, http.StatusOK, s.Edit)
}

// Edit changes notice id's subject, components, tags, schedule or
// expiry as body says; it sends nothing.
func (s *Server) Edit(ctx context.Context, actor string, id int64, body statusd.AdminNoticeRequest) error {
	var bad problems
	bad.refuse("cannot be changed here; post an update with POST /admin/api/v1/notices/{id}/updates",
		setField{"type", body.Type != nil}, setField{"state", body.State != nil}, setField{"content", body.Content != nil})
	bad.refuse("an edit sends nothing to subscribers; leave notify out (only new notices, updates and reopens are sent)",
		setField{"notify", body.Notify != nil})
	bad.requireText("subject", body.Subject, false)
	if err := bad.err(); err != nil {
		return err
	}
	return s.changeNotice(ctx, actor, "notice.update", id, func(_ statusd.Tx, n *statusd.Notice, _ time.Time) (string, error) {
		var bad problems
		applyNotice(&body, n, &bad)
		return "changed " + n.Subject, bad.err()
	})
}

// PostUpdate adds an update to a notice (POST /notices/{id}/updates):
// AddUpdate, then the notice, 201.
func (s *Server) PostUpdate(w http.ResponseWriter, r *http.Request, actor string) error {
	return onNotice(s, w, r, actor, http.StatusCreated, s.AddUpdate)
}

// AddUpdate adds the update of body to notice id: its state (the
// notice's own when left out) must follow from the notice's.
func (s *Server) AddUpdate(ctx context.Context, actor string, id int64, body statusd.AdminUpdateRequest) error {
	var bad problems
	bad.requireText("content", body.Content, true)
	if err := bad.err(); err != nil {
		return err
	}
	err := s.changeNotice(ctx, actor, "notice.post_update", id, func(tx statusd.Tx, n *statusd.Notice, now time.Time) (string, error) {
		state := n.State()
		if body.State != nil {
			state = statusd.State(*body.State)
		}
		if err := statusd.CheckTransition(n.Type, n.State(), state); err != nil {
			return "", err
		}
		return string(state), addUpdate(tx, n, state, &body, now)
	})
	if err == nil {
		s.wake(body.Notify)
	}
	return err
}

// PostReopen reopens a resolved incident (POST /notices/{id}/reopen):
// Reopen, then the notice, 201.
func (s *Server) PostReopen(w http.ResponseWriter, r *http.Request, actor string) error {
	return onNotice(s, w, r, actor, http.StatusCreated, s.Reopen)
}

// Reopen reopens resolved incident id with the update of body, in state
// investigating.
func (s *Server) Reopen(ctx context.Context, actor string, id int64, body statusd.AdminUpdateRequest) error {
	var bad problems
	bad.requireText("content", body.Content, true)
	if body.State != nil {
		bad.add("state", "a reopened incident is investigating; leave state out")
	}
	if err := bad.err(); err != nil {
		return err
	}
	err := s.changeNotice(ctx, actor, "notice.reopen", id, func(tx statusd.Tx, n *statusd.Notice, now time.Time) (string, error) {
		if err := statusd.CheckReopen(n); err != nil {
			return "", err
		}
		return "reopened", addUpdate(tx, n, statusd.Investigating, &body, now)
	})
	if err == nil {
		s.wake(body.Notify)
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
	return emit(tx, body.Notify, statusd.NoticeUpdated, n)
}

// DeleteNotice removes a notice (DELETE /notices/{id}): Remove, then 204.
func (s *Server) DeleteNotice(w http.ResponseWriter, r *http.Request, actor string) error {
	id, err := statusd.ParseID("notice", r.PathValue("id"))
	if err != nil {
		return err
	}
	if err := s.Remove(r.Context(), actor, id); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// Remove deletes notice id and its updates; it sends nothing.
func (s *Server) Remove(ctx context.Context, actor string, id int64) error {
	return s.write(ctx, func(tx statusd.Tx) error {
		n, err := noticeIn(tx, id)
		if err != nil {
			return err
		}
		if err := tx.DeleteNotice(id); err != nil {
			return err
		}
		return tx.Audit(s.entry(actor, "notice.delete", fmt.Sprintf("notice %d", id), n.Subject))
	})
}

// Audit answers the audit log: AuditPage.
func (s *Server) Audit(w http.ResponseWriter, r *http.Request, _ string) error {
	page, err := PageParam(r)
	if err != nil {
		return err
	}
	list, total, err := s.AuditPage(r.Context(), page)
	if err != nil {
		return err
	}
	meta := listMeta("/audit", nil, page, len(list), total)
	return httpjson.Write(w, r, http.StatusOK, statusd.AdminAuditResponse{Audit: list, Meta: meta})
}

// AuditPage returns page (from 1) of the audit log, newest first, 25 a
// page, and the count of all its entries.
func (s *Server) AuditPage(ctx context.Context, page int64) ([]statusd.AdminAuditEntry, int, error) {
	entries, total, err := s.store.Audit(ctx, int(page), snapshot.PageSize)
	if err != nil {
		return nil, 0, err
	}
	list := make([]statusd.AdminAuditEntry, len(entries))
	for i, e := range entries {
		list[i] = statusd.AdminAuditEntryOf(e)
	}
	return list, total, nil
}
