package admin

// The signals of CONTRACT C9: the sources (owners), the drafts
// (publishers publish, change and discard them), the signals, and the
// hook each source's sender posts its alerts to.

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strconv"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/internal/app"
	"github.com/statusd/statusd/internal/httpjson"
	"github.com/statusd/statusd/internal/route"
	"github.com/statusd/statusd/internal/signals"
)

// ListSources answers every source: app.Sources.
func (s *Server) ListSources(w http.ResponseWriter, r *http.Request, actor statusd.Actor) error {
	list, err := s.app.Sources(r.Context(), actor)
	if err != nil {
		return err
	}
	return httpjson.Write(w, r, http.StatusOK, statusd.AdminSourcesResponse{Sources: list})
}

// GetSource answers one source: app.Source.
func (s *Server) GetSource(w http.ResponseWriter, r *http.Request, actor statusd.Actor) error {
	return onID(w, r, actor, "source", http.StatusOK, s.app.Source)
}

// CreateSource adds a source (POST /sources): app.AddSource, then the
// source with its token, shown this once, 201.
func (s *Server) CreateSource(w http.ResponseWriter, r *http.Request, actor statusd.Actor) error {
	var body statusd.AdminSourceRequest
	if err := decode(r, &body); err != nil {
		return err
	}
	src, err := s.app.AddSource(r.Context(), actor, body)
	if err != nil {
		return err
	}
	return httpjson.Write(w, r, http.StatusCreated, src)
}

// PatchSource changes a source: app.ChangeSource.
func (s *Server) PatchSource(w http.ResponseWriter, r *http.Request, actor statusd.Actor) error {
	return onIDWith(w, r, actor, "source", http.StatusOK, s.app.ChangeSource)
}

// RotateSource gives a source a new token (POST /sources/{id}/token):
// app.RotateSourceToken, then the source with its token, 201.
func (s *Server) RotateSource(w http.ResponseWriter, r *http.Request, actor statusd.Actor) error {
	return onID(w, r, actor, "source", http.StatusCreated, s.app.RotateSourceToken)
}

// DeleteSource removes a source: app.RemoveSource, then 204.
func (s *Server) DeleteSource(w http.ResponseWriter, r *http.Request, actor statusd.Actor) error {
	id, err := statusd.ParseID("source", r.PathValue("id"))
	if err != nil {
		return err
	}
	if err := s.app.RemoveSource(r.Context(), actor, id); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// ListSignals answers the signals that the query selects (source_id,
// status, unmapped=true): app.Signals.
func (s *Server) ListSignals(w http.ResponseWriter, r *http.Request, actor statusd.Actor) error {
	f, err := app.SignalFilterOf(r.URL.Query())
	if err != nil {
		return err
	}
	list, err := s.app.Signals(r.Context(), actor, f)
	if err != nil {
		return err
	}
	return httpjson.Write(w, r, http.StatusOK, statusd.AdminSignalsResponse{Signals: list})
}

// ListDrafts answers the drafts of a state (?state=; all when left out):
// app.Drafts.
func (s *Server) ListDrafts(w http.ResponseWriter, r *http.Request, actor statusd.Actor) error {
	state, err := app.DraftStateOf(r.URL.Query())
	if err != nil {
		return err
	}
	list, err := s.app.Drafts(r.Context(), actor, state)
	if err != nil {
		return err
	}
	return httpjson.Write(w, r, http.StatusOK, statusd.AdminDraftsResponse{Drafts: list})
}

// GetDraft answers one draft: app.Draft.
func (s *Server) GetDraft(w http.ResponseWriter, r *http.Request, actor statusd.Actor) error {
	return onID(w, r, actor, "draft", http.StatusOK, s.app.Draft)
}

// PatchDraft changes an open draft: app.ChangeDraft.
func (s *Server) PatchDraft(w http.ResponseWriter, r *http.Request, actor statusd.Actor) error {
	return onIDWith(w, r, actor, "draft", http.StatusOK, s.app.ChangeDraft)
}

// PublishDraft publishes a draft (POST /drafts/{id}/publish):
// app.PublishDraft, then the draft and the notice it wrote, 201.
func (s *Server) PublishDraft(w http.ResponseWriter, r *http.Request, actor statusd.Actor) error {
	id, err := statusd.ParseID("draft", r.PathValue("id"))
	if err != nil {
		return err
	}
	var body statusd.AdminDraftRequest
	if err := decode(r, &body); err != nil {
		return err
	}
	d, noticeID, err := s.app.PublishDraft(r.Context(), actor, id, body)
	if err != nil {
		return err
	}
	snap, err := s.app.Snapshot()
	if err != nil {
		return err
	}
	n := snap.Notice(noticeID)
	if n == nil {
		return statusd.Errorf(statusd.ENotFound, "notice %d not found", noticeID) // deleted meanwhile
	}
	return httpjson.Write(w, r, http.StatusCreated, statusd.AdminPublishedDraft{Draft: d, Notice: s.noticeRepr(snap, n)})
}

// DiscardDraft discards a draft (POST /drafts/{id}/discard):
// app.DiscardDraft, then the draft.
func (s *Server) DiscardDraft(w http.ResponseWriter, r *http.Request, actor statusd.Actor) error {
	return onIDWith(w, r, actor, "draft", http.StatusOK, s.app.DiscardDraft)
}

// Hook takes a source's alerts (POST /hooks/v1/{id}, CONTRACT C9): the
// source's token as a bearer token (401 alike for an unknown source and
// a wrong one), at most 10 requests a second per source (burst 50; 429),
// a body of at most 1 MiB (413) in the source's format (400, 422, 413
// over 1,000 alerts), stored before the answer: 202 with what became of
// each alert.
func (s *Server) Hook(w http.ResponseWriter, r *http.Request) error {
	w.Header().Set("Cache-Control", "no-store")
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	token := route.BearerToken(r)
	if err != nil || token == "" {
		return app.ErrHookUnauthorized
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, signals.MaxBody))
	var maxErr *http.MaxBytesError
	switch {
	case errors.As(err, &maxErr):
		return statusd.Errorf(statusd.ETooLarge, "the body is over %d bytes; a hook takes at most 1 MiB and %d alerts", signals.MaxBody, signals.MaxAlerts)
	case err != nil:
		return statusd.Errorf(statusd.EInvalidBody, "the body could not be read: %v", err)
	}
	hook := app.Hook{SourceID: id, Token: token, Body: body,
		Signature: r.Header.Get(signals.SignatureHeader), Timestamp: r.Header.Get(signals.TimestampHeader)}
	src, err := s.app.Authenticate(r.Context(), &hook)
	if err != nil {
		return err
	}
	if res := s.hooks.Allow(strconv.FormatInt(id, 10), s.now()); !res.OK {
		return route.Retry(statusd.Errorf(statusd.ERateLimited, "over %d requests a second for this source; retry in %d second(s)", hookRate, res.Retry), res.Retry)
	}
	out, err := s.app.Ingest(r.Context(), src, body)
	if err != nil {
		return err
	}
	return httpjson.Write(w, r, http.StatusAccepted, out)
}

// onID answers a request on one object, the kind's {id} of the path:
// act's answer, with status.
func onID[R any](w http.ResponseWriter, r *http.Request, actor statusd.Actor, kind string, status int,
	act func(context.Context, statusd.Actor, int64) (R, error)) error {
	return onIDWith(w, r, actor, kind, status, func(ctx context.Context, actor statusd.Actor, id int64, _ struct{}) (R, error) {
		return act(ctx, actor, id)
	})
}

// onIDWith answers a request on one object, the kind's {id} of the path,
// with a JSON body B (none for struct{}): act's answer, with status.
func onIDWith[B, R any](w http.ResponseWriter, r *http.Request, actor statusd.Actor, kind string, status int,
	act func(context.Context, statusd.Actor, int64, B) (R, error)) error {
	id, err := statusd.ParseID(kind, r.PathValue("id"))
	if err != nil {
		return err
	}
	var body B
	if _, none := any(body).(struct{}); !none {
		if err := decode(r, &body); err != nil {
			return err
		}
	}
	out, err := act(r.Context(), actor, id, body)
	if err != nil {
		return err
	}
	return httpjson.Write(w, r, status, out)
}
