package admin

import (
	"context"
	"net/http"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/internal/app"
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
		out.Impact = n.Severity().Level()
	}
	return out
}

// ListNotices answers a page of the notices.
func (s *Server) ListNotices(w http.ResponseWriter, r *http.Request, _ statusd.Actor) error {
	snap, err := s.app.Snapshot()
	if err != nil {
		return err
	}
	page, err := app.PageOf(r.URL.Query())
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
func (s *Server) GetNotice(w http.ResponseWriter, r *http.Request, _ statusd.Actor) error {
	id, err := statusd.ParseID("notice", r.PathValue("id"))
	if err != nil {
		return err
	}
	return s.answerNotice(w, r, http.StatusOK, id)
}

func (s *Server) answerNotice(w http.ResponseWriter, r *http.Request, status int, id int64) error {
	snap, err := s.app.Snapshot()
	if err != nil {
		return err
	}
	n := snap.Notice(id)
	if n == nil {
		return statusd.Errorf(statusd.ENotFound, "notice %d not found", id)
	}
	return httpjson.Write(w, r, status, s.noticeRepr(snap, n))
}

// CreateNotice publishes a notice (POST /notices): app.Publish, then the
// notice, 201.
func (s *Server) CreateNotice(w http.ResponseWriter, r *http.Request, actor statusd.Actor) error {
	var body statusd.AdminNoticeRequest
	if err := decode(r, &body); err != nil {
		return err
	}
	id, err := s.app.Publish(r.Context(), actor, body)
	if err != nil {
		return err
	}
	return s.answerNotice(w, r, http.StatusCreated, id)
}

// onNotice serves a route on the notice of the path: it reads the id and
// the body, runs do and answers the notice with status.
func onNotice[B any](s *Server, w http.ResponseWriter, r *http.Request, actor statusd.Actor, status int,
	do func(ctx context.Context, actor statusd.Actor, id int64, body B) error) error {
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

// PatchNotice edits a notice (PATCH /notices/{id}): app.Edit.
func (s *Server) PatchNotice(w http.ResponseWriter, r *http.Request, actor statusd.Actor) error {
	return onNotice(s, w, r, actor, http.StatusOK, s.app.Edit)
}

// PostUpdate adds an update to a notice (POST /notices/{id}/updates):
// app.AddUpdate, then the notice, 201.
func (s *Server) PostUpdate(w http.ResponseWriter, r *http.Request, actor statusd.Actor) error {
	return onNotice(s, w, r, actor, http.StatusCreated, s.app.AddUpdate)
}

// PostReopen reopens a resolved incident (POST /notices/{id}/reopen):
// app.Reopen, then the notice, 201.
func (s *Server) PostReopen(w http.ResponseWriter, r *http.Request, actor statusd.Actor) error {
	return onNotice(s, w, r, actor, http.StatusCreated, s.app.Reopen)
}

// DeleteNotice removes a notice (DELETE /notices/{id}): app.DeleteNotice,
// then 204.
func (s *Server) DeleteNotice(w http.ResponseWriter, r *http.Request, actor statusd.Actor) error {
	id, err := statusd.ParseID("notice", r.PathValue("id"))
	if err != nil {
		return err
	}
	if err := s.app.DeleteNotice(r.Context(), actor, id); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// Audit answers the audit log: app.AuditPage.
func (s *Server) Audit(w http.ResponseWriter, r *http.Request, actor statusd.Actor) error {
	page, err := app.PageOf(r.URL.Query())
	if err != nil {
		return err
	}
	list, total, err := s.app.AuditPage(r.Context(), actor, page)
	if err != nil {
		return err
	}
	meta := listMeta("/audit", nil, page, len(list), total)
	return httpjson.Write(w, r, http.StatusOK, statusd.AdminAuditResponse{Audit: list, Meta: meta})
}
