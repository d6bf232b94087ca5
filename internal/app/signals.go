package app

// The signals of CONTRACT C9: the sources that send alerts, the hook that
// takes them (Ingest), the drafts they make, which a person publishes,
// edits or discards, and the timers (Tick) that draft a held signal and
// publish a publish rule's draft once, whatever server runs them.

import (
	"cmp"
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"fmt"
	"slices"
	"time"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/internal/signals"
)

// The windows of C9's grouping: a signal joins a draft naming one of its
// components made within JoinWindow; one whose incident resolved within
// ReopenWindow drafts its reopening.
const (
	JoinWindow   = 10 * time.Minute
	ReopenWindow = 15 * time.Minute
)

// sourceTarget names a source in the audit log; draftTarget a draft.
func sourceTarget(id int64) string { return fmt.Sprintf("source %d", id) }
func draftTarget(id int64) string  { return fmt.Sprintf("draft %d", id) }

// newSourceToken returns a source's token, "sgn_" and base64url of 32
// random bytes, and its hash.
func newSourceToken() (string, []byte) {
	b := make([]byte, 32)
	rand.Read(b)
	secret := "sgn_" + base64.RawURLEncoding.EncodeToString(b)
	return secret, statusd.SecretHash(secret)
}

// Sources returns every source, by id.
func (a *App) Sources(ctx context.Context, actor statusd.Actor) ([]statusd.AdminSource, error) {
	if err := May(actor, ActRead); err != nil {
		return nil, err
	}
	var list []statusd.Source
	err := a.store.Signals().Read(ctx, func(r statusd.SignalReads) (err error) { list, err = r.Sources(); return err })
	out := make([]statusd.AdminSource, len(list))
	for i := range list {
		out[i] = statusd.AdminSourceOf(&list[i], a.now())
	}
	return out, err
}

// Source returns source id, or a 404.
func (a *App) Source(ctx context.Context, actor statusd.Actor, id int64) (statusd.AdminSource, error) {
	if err := May(actor, ActRead); err != nil {
		return statusd.AdminSource{}, err
	}
	var s *statusd.Source
	err := a.store.Signals().Read(ctx, func(r statusd.SignalReads) (err error) { s, err = sourceIn(r, id); return err })
	if err != nil {
		return statusd.AdminSource{}, err
	}
	return statusd.AdminSourceOf(s, a.now()), nil
}

// sourceIn returns source id, or a 404.
func sourceIn(r statusd.SignalReads, id int64) (*statusd.Source, error) {
	s, err := r.Source(id)
	if err == nil && s == nil {
		err = statusd.Errorf(statusd.ENotFound, "source %d not found", id)
	}
	return s, err
}

// applySource copies the settings of body onto s.
func applySource(body *statusd.AdminSourceRequest, s *statusd.Source) {
	if body.Name != nil {
		s.Name = *body.Name
	}
	if body.Rules != nil {
		s.Rules = slices.Clone(*body.Rules)
	}
	if body.Heartbeat.Set {
		s.Heartbeat = body.Heartbeat.Value
	}
	if body.Secret != nil {
		s.Secret = *body.Secret
	}
}

// AddSource makes a source of body and returns it with its token, shown
// this once.
func (a *App) AddSource(ctx context.Context, actor statusd.Actor, body statusd.AdminSourceRequest) (statusd.AdminSource, error) {
	if err := May(actor, ActManageSources); err != nil {
		return statusd.AdminSource{}, err
	}
	token, hash := newSourceToken()
	s := statusd.Source{Format: "", TokenHash: hash, CreatedAt: a.stamp()}
	if body.Format != nil {
		s.Format = *body.Format
	}
	applySource(&body, &s)
	if err := statusd.Invalid(statusd.EInvalidField, statusd.CheckSource(&s)); err != nil {
		return statusd.AdminSource{}, err
	}
	err := a.write(ctx, func(tx statusd.Tx) (err error) {
		if s.ID, err = tx.NextID("sources"); err != nil {
			return err
		}
		if err := tx.PutSource(&s); err != nil {
			return err
		}
		return tx.Audit(a.entry(actor, "source.create", sourceTarget(s.ID), s.Format+": "+s.Name))
	})
	out := statusd.AdminSourceOf(&s, a.now())
	out.Token = token
	return out, err
}

// ChangeSource changes source id's name, rules, heartbeat or secret.
func (a *App) ChangeSource(ctx context.Context, actor statusd.Actor, id int64, body statusd.AdminSourceRequest) (statusd.AdminSource, error) {
	if err := May(actor, ActManageSources); err != nil {
		return statusd.AdminSource{}, err
	}
	var s *statusd.Source
	err := a.write(ctx, func(tx statusd.Tx) (err error) {
		if s, err = sourceIn(tx, id); err != nil {
			return err
		}
		var bad problems
		if body.Format != nil && *body.Format != s.Format {
			bad.add("format", "cannot change: a source keeps its format; add another source")
		}
		applySource(&body, s)
		bad = append(bad, statusd.CheckSource(s)...)
		if err := bad.err(); err != nil {
			return err
		}
		if err := tx.PutSource(s); err != nil {
			return err
		}
		return tx.Audit(a.entry(actor, "source.update", sourceTarget(id), s.Name))
	})
	if err != nil {
		return statusd.AdminSource{}, err
	}
	return statusd.AdminSourceOf(s, a.now()), nil
}

// RotateSourceToken gives source id a new token, returned this once; the
// old one stops working at once.
func (a *App) RotateSourceToken(ctx context.Context, actor statusd.Actor, id int64) (statusd.AdminSource, error) {
	if err := May(actor, ActManageSources); err != nil {
		return statusd.AdminSource{}, err
	}
	token, hash := newSourceToken()
	var s *statusd.Source
	err := a.write(ctx, func(tx statusd.Tx) (err error) {
		if s, err = sourceIn(tx, id); err != nil {
			return err
		}
		s.TokenHash = hash
		if err := tx.PutSource(s); err != nil {
			return err
		}
		return tx.Audit(a.entry(actor, "source.rotate", sourceTarget(id), s.Name))
	})
	if err != nil {
		return statusd.AdminSource{}, err
	}
	out := statusd.AdminSourceOf(s, a.now())
	out.Token = token
	return out, nil
}

// RemoveSource deletes source id and its signals; its drafts stay.
func (a *App) RemoveSource(ctx context.Context, actor statusd.Actor, id int64) error {
	if err := May(actor, ActManageSources); err != nil {
		return err
	}
	return a.write(ctx, func(tx statusd.Tx) error {
		s, err := sourceIn(tx, id)
		if err != nil {
			return err
		}
		if err := tx.DeleteSource(id); err != nil {
			return err
		}
		return tx.Audit(a.entry(actor, "source.delete", sourceTarget(id), s.Name))
	})
}

// Hook is one request to a source's hook: the source's id from the path,
// the bearer token, the body, and Grafana's signature headers.
type Hook struct {
	SourceID             int64
	Token                string
	Body                 []byte
	Signature, Timestamp string
}

// ErrHookUnauthorized is the one answer of a hook to an unknown source,
// a wrong token and none.
var ErrHookUnauthorized = statusd.Errorf(statusd.EUnauthorized,
	"a valid source token is required: send Authorization: Bearer sgn_... (from statusd source add or rotate) to the source's own hook URL")

// Authenticate returns the source of a hook when its token is the
// source's, else the one 401 for an unknown source and a wrong token.
func (a *App) Authenticate(ctx context.Context, h *Hook) (*statusd.Source, error) {
	var s *statusd.Source
	err := a.store.Signals().Read(ctx, func(r statusd.SignalReads) (err error) { s, err = r.Source(h.SourceID); return err })
	if err != nil {
		return nil, err
	}
	if s == nil || subtle.ConstantTimeCompare(statusd.SecretHash(h.Token), s.TokenHash) != 1 {
		return nil, ErrHookUnauthorized
	}
	if s.Format == string(signals.Grafana) && s.Secret != "" {
		if err := signals.VerifyGrafana(s.Secret, h.Body, h.Signature, h.Timestamp, a.now()); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// SourceStates returns each source's name and state (never, ok or
// stale), by id, for the metrics and /readyz: statusd's own reads, with
// no actor.
func (a *App) SourceStates(ctx context.Context) ([]statusd.AdminSource, error) {
	return a.Sources(ctx, statusd.System)
}

// StaleNotes are the notes of /readyz on the sources whose heartbeat is
// late: "source Prometheus is stale: no heartbeat since 10:02:05 UTC".
// A store that cannot be read leaves none: /readyz says so itself.
func (a *App) StaleNotes(ctx context.Context) []string {
	list, err := a.SourceStates(ctx)
	if err != nil {
		return nil
	}
	var notes []string
	for _, s := range list {
		if s.State != statusd.SourceStale {
			continue
		}
		since := "it was made"
		if last := cmp.Or(s.LastHeartbeatAt, s.LastEventAt); last != nil {
			since = last.UTC().Format("2006-01-02 15:04:05 UTC")
		}
		notes = append(notes, fmt.Sprintf("source %s is stale: no heartbeat since %s", s.Name, since))
	}
	return notes
}
