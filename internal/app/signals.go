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
	"maps"
	"slices"
	"strings"
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

// Ingest takes the alerts of a hook's body for source src (Authenticate):
// it decodes them, and in one transaction keeps a signal of each (one per
// source and key, whatever server got it) and groups the firing ones
// into drafts (CONTRACT C9). Nothing public changes. It answers what
// became of each alert.
func (a *App) Ingest(ctx context.Context, src *statusd.Source, body []byte) (statusd.HookResponse, error) {
	batch, err := signals.Decode(signals.Format(src.Format), body)
	if err != nil {
		return statusd.HookResponse{}, err
	}
	out := statusd.HookResponse{Received: len(batch.Alerts), Signals: make([]statusd.HookSignal, 0, len(batch.Alerts))}
	if batch.Test {
		return out, nil
	}
	err = a.write(ctx, func(tx statusd.Tx) error {
		out.Signals = out.Signals[:0]
		in, err := a.intake(tx, src.ID)
		if err != nil {
			return err
		}
		for _, alert := range batch.Alerts {
			res, err := in.take(alert)
			if err != nil {
				return err
			}
			out.Signals = append(out.Signals, res)
		}
		return in.done()
	})
	return out, err
}

// intake is one transaction of signals of a source.
type intake struct {
	a     *App
	tx    statusd.Tx
	src   *statusd.Source
	comps []statusd.Component
	now   time.Time
}

// intake starts the signals of source id in tx.
func (a *App) intake(tx statusd.Tx, id int64) (*intake, error) {
	src, err := sourceIn(tx, id)
	if err != nil {
		return nil, err
	}
	comps, err := pageComponents(tx)
	if err != nil {
		return nil, err
	}
	now := a.stamp()
	src.LastEventAt = &now
	return &intake{a: a, tx: tx, src: src, comps: comps, now: now}, nil
}

// done stores the source, which heard from its sender.
func (in *intake) done() error { return in.tx.PutSource(in.src) }

// rule returns the first rule of the source whose match holds for labels,
// and its index; nil and -1 when none does.
func (in *intake) rule(labels map[string]string) (*statusd.SignalRule, int) {
	for i := range in.src.Rules {
		if statusd.MatchLabels(in.src.Rules[i].Match, labels) {
			return &in.src.Rules[i], i
		}
	}
	return nil, -1
}

// components returns the ids of the components an alert names: the
// rule's, or those of its component label, else of the labels
// statusd_component or component (comma-separated keys or ids). A name
// that is no component's is left out.
func (in *intake) components(rule *statusd.SignalRule, labels map[string]string) []int64 {
	var refs []string
	switch {
	case rule != nil && len(rule.Components) > 0:
		refs = rule.Components
	case rule != nil && rule.ComponentLabel != "":
		refs = strings.Split(labels[rule.ComponentLabel], ",")
	default:
		refs = strings.Split(cmp.Or(labels["statusd_component"], labels["component"]), ",")
	}
	var ids []int64
	for _, ref := range refs {
		if id, ok := statusd.ComponentRef(in.comps, strings.TrimSpace(ref)); ok && !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	return ids
}

// names returns the names of components ids, in the page's order.
func (in *intake) names(ids []int64) []string {
	var out []string
	for _, c := range in.comps {
		if slices.Contains(ids, c.ID) {
			out = append(out, c.Name)
		}
	}
	return out
}

// take keeps one alert and answers what became of it.
func (in *intake) take(alert signals.Alert) (statusd.HookSignal, error) {
	res := statusd.HookSignal{Key: alert.Key, Status: string(alert.Status), ComponentIDs: []int64{}}
	if hb := in.src.Heartbeat; hb != nil && statusd.MatchLabels(hb.Match, alert.Labels) {
		in.src.LastHeartbeatAt = &in.now
		res.Action = statusd.HookHeartbeat
		return res, nil
	}
	rule, index := in.rule(alert.Labels)
	if rule != nil && rule.Action == statusd.RuleIgnore {
		res.Action = statusd.HookIgnored
		return res, nil
	}
	sig, err := in.tx.Signal(in.src.ID, alert.Key)
	if err != nil {
		return res, err
	}
	if sig == nil {
		if alert.Status == signals.Unchanged {
			res.Action = statusd.HookIgnored // nothing known of it, and it says nothing
			return res, nil
		}
		id, err := in.tx.NextID("signals")
		if err != nil {
			return res, err
		}
		sig = &statusd.Signal{ID: id, SourceID: in.src.ID, Key: alert.Key, FirstSeenAt: in.now}
	}
	was := sig.Status
	sig.LastSeenAt = in.now
	changed := alert.Status != signals.Unchanged && string(alert.Status) != was
	switch {
	case changed && alert.Status == signals.Firing:
		// A firing alert is mapped anew: its labels may have changed.
		sig.Labels, sig.Annotations, sig.URL, sig.Group = alert.Labels, alert.Annotations, alert.URL, alert.Group
		sig.StartsAt, sig.EndsAt = optTime(alert.StartsAt), nil
		sig.Rule, sig.ComponentIDs = index, in.components(rule, alert.Labels)
	case changed:
		// A resolved one keeps what it fired with: senders often send
		// no labels with it (a script's {"dedup_key", "status"}).
		if sig.Labels == nil {
			sig.Labels, sig.Annotations, sig.URL, sig.Group, sig.Rule = alert.Labels, alert.Annotations, alert.URL, alert.Group, index
			sig.ComponentIDs = in.components(rule, alert.Labels)
			sig.StartsAt = optTime(alert.StartsAt)
		}
		sig.EndsAt = optTime(alert.EndsAt)
	}
	if changed {
		sig.Status = string(alert.Status)
	}
	res.Status, res.ComponentIDs = sig.Status, nonNilIDs(sig.ComponentIDs)
	switch {
	case !changed:
		res.Action = statusd.HookUnchanged
	case len(sig.ComponentIDs) == 0 && sig.Status == string(signals.Firing):
		res.Action = statusd.HookUnmapped
	case sig.Status == string(signals.Firing):
		sig.FiringSince = &in.now
		if rule != nil && rule.Hold > 0 {
			sig.Pending = true
			res.Action = statusd.HookPending
			break
		}
		if res.Action, err = in.group(sig, rule); err != nil {
			return res, err
		}
	default:
		if res.Action, err = in.resolve(sig); err != nil {
			return res, err
		}
	}
	res.DraftID = sig.DraftID
	return res, in.tx.PutSignal(sig)
}

// optTime is t, or nil for the zero time.
func optTime(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}

// nonNilIDs is ids, or an empty list for nil.
func nonNilIDs(ids []int64) []int64 {
	if ids == nil {
		return []int64{}
	}
	return ids
}

// group places a firing signal, its hold over (C9's grouping): in an
// underway maintenance or an open incident that lists one of its
// components, in an open draft of its source and group or naming one of
// its components made within JoinWindow, in its own draft again when
// that lapsed within FlapWindow, in a draft reopening the incident it was
// in when that resolved within ReopenWindow, or else in a new incident
// draft.
func (in *intake) group(sig *statusd.Signal, rule *statusd.SignalRule) (string, error) {
	sig.Pending = false
	listing, err := in.tx.NoticesListing(sig.ComponentIDs)
	if err != nil {
		return "", err
	}
	var incident *statusd.Notice
	for _, id := range listing {
		n, err := in.tx.Notice(id)
		if err != nil {
			return "", err
		}
		switch {
		case n.IsUnderway():
			sig.NoticeID, sig.DraftID = &n.ID, nil
			return statusd.HookAttached, nil
		case n.Type == statusd.Unplanned && !statusd.IsClosed(n.Type, n.State()) && incident == nil:
			incident = n
		}
	}
	if incident != nil {
		sig.NoticeID = &incident.ID
		sig.DraftID = nil
		if extra := missing(sig.ComponentIDs, incident.ComponentIDs); len(extra) > 0 {
			d, err := in.proposal(incident, statusd.DraftUpdate)
			if err != nil {
				return "", err
			}
			d.ComponentIDs = union(d.ComponentIDs, extra)
			d.Content = "We are also seeing problems with " + statusd.JoinNames(in.names(extra)) + "."
			if err := in.keep(d, sig); err != nil {
				return "", err
			}
		}
		return statusd.HookAttached, nil
	}
	drafts, err := in.tx.Drafts(statusd.DraftOpen)
	if err != nil {
		return "", err
	}
	for i := range drafts {
		d := &drafts[i]
		sameGroup := d.SourceID == in.src.ID && d.Group != "" && d.Group == sig.Group
		near := in.now.Sub(d.CreatedAt) <= JoinWindow && len(missing(sig.ComponentIDs, d.ComponentIDs)) < len(sig.ComponentIDs)
		if d.Kind != statusd.DraftIncident || !sameGroup && !near {
			continue
		}
		d.ComponentIDs = union(d.ComponentIDs, sig.ComponentIDs)
		if !d.Edited {
			d.Subject, d.Content = in.texts(rule, d.ComponentIDs, sig)
		}
		return statusd.HookAttached, in.keep(d, sig)
	}
	if sig.DraftID != nil {
		// A key that fires again soon after its draft lapsed (a flap)
		// opens that draft again rather than make another.
		d, err := in.tx.Draft(*sig.DraftID)
		if err != nil {
			return "", err
		}
		if d != nil && d.State == statusd.DraftLapsed && d.Kind == statusd.DraftIncident && in.now.Sub(d.UpdatedAt) <= statusd.FlapWindow {
			d.State = statusd.DraftOpen
			return statusd.HookDrafted, in.keep(d, sig)
		}
	}
	if sig.NoticeID != nil {
		n, err := in.tx.Notice(*sig.NoticeID)
		if err != nil {
			return "", err
		}
		if n != nil && n.Type == statusd.Unplanned && statusd.IsClosed(n.Type, n.State()) && in.now.Sub(n.Updates[len(n.Updates)-1].CreatedAt) <= ReopenWindow {
			d, err := in.proposal(n, statusd.DraftReopen)
			if err != nil {
				return "", err
			}
			d.NoticeState = statusd.Investigating
			d.ComponentIDs = union(d.ComponentIDs, sig.ComponentIDs)
			d.Content = "The problem with " + statusd.JoinNames(in.names(d.ComponentIDs)) + " is back; we are investigating."
			return statusd.HookDrafted, in.keep(d, sig)
		}
	}
	id, err := in.tx.NextID("drafts")
	if err != nil {
		return "", err
	}
	d := &statusd.Draft{ID: id, Kind: statusd.DraftIncident, State: statusd.DraftOpen, SourceID: in.src.ID, Group: sig.Group,
		NoticeState: statusd.Investigating, ComponentIDs: slices.Clone(sig.ComponentIDs), Rule: sig.Rule, CreatedAt: in.now}
	d.Subject, d.Content = in.texts(rule, d.ComponentIDs, sig)
	if rule != nil && rule.Action == statusd.RulePublish {
		at := in.now
		d.PublishAt = &at // its hold is over: Tick publishes it, within the rule's cooldown
	}
	sig.NoticeID = nil
	return statusd.HookDrafted, in.keep(d, sig)
}

// texts renders a draft's subject and content for the rule and a signal.
func (in *intake) texts(rule *statusd.SignalRule, comps []int64, sig *statusd.Signal) (string, string) {
	return statusd.DraftTexts(rule, in.names(comps), sig.Labels, sig.Annotations)
}

// proposal returns the open draft of kind (update or reopen) for notice
// n, or a new one, to be kept (keep).
func (in *intake) proposal(n *statusd.Notice, kind string) (*statusd.Draft, error) {
	drafts, err := in.tx.Drafts(statusd.DraftOpen)
	if err != nil {
		return nil, err
	}
	for i := range drafts {
		if d := &drafts[i]; d.Kind == kind && d.NoticeID != nil && *d.NoticeID == n.ID {
			return d, nil
		}
	}
	id, err := in.tx.NextID("drafts")
	if err != nil {
		return nil, err
	}
	return &statusd.Draft{ID: id, Kind: kind, State: statusd.DraftOpen, NoticeID: &n.ID, SourceID: in.src.ID, Subject: n.Subject,
		NoticeState: n.State(), ComponentIDs: slices.Clone(n.ComponentIDs), Rule: -1, CreatedAt: in.now}, nil
}

// keep stores draft d with signal sig in it, a warning when sig is
// flapping, and a new version.
func (in *intake) keep(d *statusd.Draft, sig *statusd.Signal) error {
	sig.DraftID = &d.ID
	if !slices.Contains(d.SignalIDs, sig.ID) {
		d.SignalIDs = append(d.SignalIDs, sig.ID)
	}
	if sig.Flapping(in.now) {
		w := fmt.Sprintf("%s is flapping: it resolved %d times in %v", sig.Key, len(sig.Resolves), statusd.FlapWindow)
		if !slices.ContainsFunc(d.Warnings, func(s string) bool { return strings.HasPrefix(s, sig.Key+" is flapping") }) {
			d.Warnings = append(d.Warnings, w)
		}
	}
	d.Version++
	d.UpdatedAt = in.now
	return in.tx.PutDraft(d)
}

// resolve handles a signal that resolved: a draft whose signals all
// resolved lapses (or, for a proposal of new components, is dropped); a
// published incident whose signals all resolved gets a proposal to post
// recovering.
func (in *intake) resolve(sig *statusd.Signal) (string, error) {
	sig.Resolves = append(slices.DeleteFunc(sig.Resolves, func(t time.Time) bool { return in.now.Sub(t) > statusd.FlapWindow }), in.now)
	if sig.Pending {
		sig.Pending = false // it cleared within its hold: nothing to draft
		return statusd.HookUnchanged, nil
	}
	if sig.DraftID != nil {
		d, err := in.tx.Draft(*sig.DraftID)
		if err != nil {
			return "", err
		}
		if d != nil && d.State == statusd.DraftOpen && d.Kind != statusd.DraftUpdate {
			all, err := in.allResolved(statusd.SignalFilter{DraftID: d.ID}, sig)
			if err != nil || !all {
				return statusd.HookUnchanged, err
			}
			d.State = statusd.DraftLapsed
			d.Version++
			d.UpdatedAt = in.now
			return statusd.HookLapsed, in.tx.PutDraft(d)
		}
	}
	if sig.NoticeID == nil {
		return statusd.HookUnchanged, nil
	}
	n, err := in.tx.Notice(*sig.NoticeID)
	if err != nil || n == nil || n.Type != statusd.Unplanned || statusd.IsClosed(n.Type, n.State()) || n.State() == statusd.Recovering {
		return statusd.HookUnchanged, err
	}
	if all, err := in.allResolved(statusd.SignalFilter{NoticeID: n.ID}, sig); err != nil || !all {
		return statusd.HookUnchanged, err
	}
	linked, err := in.tx.Signals(statusd.SignalFilter{NoticeID: n.ID})
	if err != nil {
		return "", err
	}
	ids := make([]int64, len(linked))
	for i, s := range linked {
		ids[i] = s.ID
	}
	d, err := in.proposal(n, statusd.DraftUpdate)
	if err != nil {
		return "", err
	}
	d.NoticeState = statusd.Recovering
	cleared := in.now
	if sig.EndsAt != nil && !sig.EndsAt.After(in.now) {
		cleared = *sig.EndsAt // as the sender saw it, as the console says it
	}
	d.Content = fmt.Sprintf("The alerts behind this incident cleared at %s; we are watching the recovery.", cleared.UTC().Format("15:04 MST"))
	d.SignalIDs = union(d.SignalIDs, ids)
	d.Version++
	d.UpdatedAt = in.now
	return statusd.HookProposed, in.tx.PutDraft(d)
}

// allResolved reports whether no signal that f selects is firing but
// sig, which resolved now and is not stored yet.
func (in *intake) allResolved(f statusd.SignalFilter, sig *statusd.Signal) (bool, error) {
	f.Status = string(signals.Firing)
	firing, err := in.tx.Signals(f)
	return !slices.ContainsFunc(firing, func(s statusd.Signal) bool { return s.ID != sig.ID }), err
}

// missing returns the ids of want that have lacks.
func missing(want, have []int64) []int64 {
	var out []int64
	for _, id := range want {
		if !slices.Contains(have, id) {
			out = append(out, id)
		}
	}
	return out
}

// union returns the ids of a and b, each once, in order.
func union(a, b []int64) []int64 {
	set := map[int64]bool{}
	for _, id := range slices.Concat(a, b) {
		set[id] = true
	}
	return slices.Sorted(maps.Keys(set))
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
