package app

// The intake of signals (CONTRACT C9): what becomes of each alert of a
// hook's body, intakeChunk alerts to a transaction.

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/internal/signals"
)

// Ingest takes the alerts of a hook's body for source src (Authenticate):
// it decodes them and, intakeChunk to a transaction, keeps a signal of
// each (one per source and key, whatever server got it) and groups the
// firing ones into drafts (CONTRACT C9). Nothing public changes. It
// answers what became of each alert.
func (a *App) Ingest(ctx context.Context, src *statusd.Source, body []byte) (statusd.HookResponse, error) {
	batch, err := signals.Decode(signals.Format(src.Format), body)
	if err != nil {
		return statusd.HookResponse{}, err
	}
	out := statusd.HookResponse{Received: len(batch.Alerts), Signals: make([]statusd.HookSignal, 0, len(batch.Alerts))}
	if batch.Test {
		return out, nil
	}
	for chunk := range slices.Chunk(batch.Alerts, intakeChunk) {
		if err := a.takeTurn(ctx); err != nil {
			return statusd.HookResponse{}, err
		}
		start, base := time.Now(), len(out.Signals)
		err = a.write(ctx, func(tx statusd.Tx) error {
			out.Signals = out.Signals[:base]
			in, err := a.intake(tx, src.ID, true)
			if err != nil {
				return err
			}
			if err := in.prefetch(chunk); err != nil {
				return err
			}
			for _, alert := range chunk {
				if err := in.take(alert); err != nil {
					return err
				}
			}
			if err := in.done(); err != nil {
				return err
			}
			out.Signals = append(out.Signals, in.results...)
			return nil
		})
		a.giveWay(ctx, time.Since(start))
		<-a.intakeTurn
		if err != nil {
			return statusd.HookResponse{}, err
		}
	}
	return out, nil
}

// takeTurn waits for the intake's turn: the chunks of every hook's
// alerts are taken one at a time, each with its pause (giveWay), so that
// many hooks at once give way to readers as one does.
func (a *App) takeTurn(ctx context.Context) error {
	select {
	case a.intakeTurn <- struct{}{}:
		return nil
	case <-ctx.Done():
		return statusd.Errorf(statusd.EUnavailable, "the alerts were not taken: %v", ctx.Err())
	}
}

// intakeChunk is how many alerts of a body one transaction takes: a
// storm's bodies of a thousand are taken in several, between which the
// page's readers and writers get their turn (takeTurn, giveWay). Each
// alert stands alone, so a body cut short by a crash is taken whole when
// its sender sends it again (repeats change nothing).
const intakeChunk = 50

// readersFirst is how much longer than a chunk of alerts took the intake
// waits, while readers are busy, before the next (at most maxGiveWay): on
// SQLite the hooks then take about a tenth of the processor from them
// (bench/storm.sh: storms of 1,000 alerts back to back under reads are
// each answered in half a second, and reads keep 0.82 of their pace; at
// 4, 0.72).
const readersFirst = 10

// giveWay waits, while the page's readers are busy (Config.Busy), for
// readersFirst times took, the time the last chunk of alerts took: a
// storm of alerts is answered a little later, and the page keeps
// answering its readers meanwhile, as the notification sender gives way
// to them.
func (a *App) giveWay(ctx context.Context, took time.Duration) {
	if a.busy != nil && a.busy() {
		a.pause(ctx, min(readersFirst*took, maxGiveWay))
	}
}

// maxGiveWay bounds a pause of giveWay: a chunk's time is the processor's
// on SQLite (a few milliseconds), but on PostgreSQL mostly waiting for
// the database's answers, behind the readers, which a pause would only
// lengthen.
const maxGiveWay = 20 * time.Millisecond

// sleep waits for d, or until ctx is done: App.pause.
func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}

// intake is one transaction of signals of a source. It reads what the
// grouping asks of the page once (the open drafts, the notices, which
// notices list a component) and writes each draft it changed once, at
// the end (done): a storm's thousand alerts in one body read and write
// their few drafts once, not a thousand times.
type intake struct {
	tx    statusd.Tx
	src   *statusd.Source
	comps []statusd.Component
	now   time.Time
	// heard is true when the source sent something (Ingest), false when
	// the timers run (SignalTimers).
	heard bool
	// open are the open drafts, read at the first need (openDrafts), and
	// those that opened since; changed are the drafts to write.
	open    []*statusd.Draft
	read    bool
	changed map[int64]*statusd.Draft
	notices map[int64]*statusd.Notice
	listing map[int64][]int64 // component id -> the open notices listing it
	// known are the signals of the alerts taken (prefetch), by key, and
	// nextID and endID the ids reserved for new ones: nextID up to endID.
	known         map[string]*statusd.Signal
	nextID, endID int64
	// touched are the signals to write (touch), results the answers of
	// the alerts taken, and resolved the signals that resolved, settled
	// once the signals are written (settle).
	touched  []*statusd.Signal
	results  []statusd.HookSignal
	resolved []resolution
}

// touch notes signal sig to be written at the end (done), once.
func (in *intake) touch(sig *statusd.Signal) {
	if !slices.Contains(in.touched, sig) {
		in.touched = append(in.touched, sig)
	}
}

// intake starts the signals of source id in tx; heard says whether the
// source sent them.
func (a *App) intake(tx statusd.Tx, id int64, heard bool) (*intake, error) {
	src, err := sourceIn(tx, id)
	if err != nil {
		return nil, err
	}
	comps, err := pageComponents(tx)
	if err != nil {
		return nil, err
	}
	in := &intake{tx: tx, src: src, comps: comps, now: a.stamp(), heard: heard,
		changed: map[int64]*statusd.Draft{}, notices: map[int64]*statusd.Notice{}, listing: map[int64][]int64{},
		known: map[string]*statusd.Signal{}}
	if heard {
		src.LastEventAt = &in.now
	}
	return in, nil
}

// done writes the signals taken, in one statement, settles what those
// that resolved leave behind, and writes each draft changed, with a new
// version, and the source when it was heard from.
func (in *intake) done() error {
	if err := in.tx.PutSignals(in.touched...); err != nil {
		return err
	}
	if err := in.settle(); err != nil {
		return err
	}
	for _, id := range slices.Sorted(maps.Keys(in.changed)) {
		d := in.changed[id]
		d.Version++
		d.UpdatedAt = in.now
		if err := in.tx.PutDraft(d); err != nil {
			return err
		}
	}
	if !in.heard {
		return nil
	}
	return in.tx.PutSource(in.src)
}

// prefetch reads, in one query, the signals of the alerts that the
// source already has, and reserves ids for the others.
func (in *intake) prefetch(alerts []signals.Alert) error {
	keys := make([]string, len(alerts))
	for i, a := range alerts {
		keys[i] = a.Key
	}
	list, err := in.tx.Signals(statusd.SignalFilter{SourceID: in.src.ID, Keys: keys})
	if err != nil {
		return err
	}
	// The notices under way of every component the alerts name, in one
	// query.
	var comps []int64
	for _, a := range alerts {
		rule, _ := in.rule(a.Labels)
		comps = append(comps, in.components(rule, a.Labels)...)
	}
	slices.Sort(comps)
	if err := in.readListing(slices.Compact(comps)); err != nil {
		return err
	}
	in.known = make(map[string]*statusd.Signal, len(list))
	for i := range list {
		in.known[list[i].Key] = &list[i]
	}
	if fresh := len(alerts) - len(list); fresh > 0 {
		first, err := in.tx.NextIDs("signals", fresh)
		if err != nil {
			return err
		}
		in.nextID, in.endID = first, first+int64(fresh)
	}
	return nil
}

// openDrafts returns the open drafts, as this transaction changed them.
func (in *intake) openDrafts() ([]*statusd.Draft, error) {
	if !in.read {
		list, err := in.tx.Drafts(statusd.DraftOpen)
		if err != nil {
			return nil, err
		}
		for i := range list {
			in.open = append(in.open, &list[i])
		}
		in.read = true
	}
	return slices.DeleteFunc(slices.Clone(in.open), func(d *statusd.Draft) bool { return d.State != statusd.DraftOpen }), nil
}

// draft returns draft id, as this transaction changed it, or nil.
func (in *intake) draft(id int64) (*statusd.Draft, error) {
	if d := in.changed[id]; d != nil {
		return d, nil
	}
	open, err := in.openDrafts()
	if err != nil {
		return nil, err
	}
	for _, d := range open {
		if d.ID == id {
			return d, nil
		}
	}
	return in.tx.Draft(id)
}

// notice returns notice id, or nil; the page's notices do not change in
// an intake.
func (in *intake) notice(id int64) (*statusd.Notice, error) {
	if n, ok := in.notices[id]; ok {
		return n, nil
	}
	n, err := in.tx.Notice(id)
	in.notices[id] = n
	return n, err
}

// readListing reads the notices under way that list any of comps
// (Tx.OpenListing), for openListing.
func (in *intake) readListing(comps []int64) error {
	list, err := in.tx.OpenListing(comps)
	if err != nil {
		return err
	}
	for _, c := range comps {
		in.listing[c] = []int64{}
	}
	for i := range list {
		n := &list[i]
		in.notices[n.ID] = n
		for _, c := range n.ComponentIDs {
			if ids, ok := in.listing[c]; ok {
				in.listing[c] = append(ids, n.ID)
			}
		}
	}
	return nil
}

// openListing returns the ids of the notices under way that list any of
// the components, in id order.
func (in *intake) openListing(comps []int64) ([]int64, error) {
	var all []int64
	for _, c := range comps {
		if _, ok := in.listing[c]; !ok {
			if err := in.readListing([]int64{c}); err != nil {
				return nil, err
			}
		}
		all = append(all, in.listing[c]...)
	}
	slices.Sort(all)
	return slices.Compact(all), nil
}

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
func (in *intake) take(alert signals.Alert) error {
	res, err := in.answer(alert)
	in.results = append(in.results, res)
	return err
}

// answer keeps one alert (touch) and answers what became of it.
func (in *intake) answer(alert signals.Alert) (statusd.HookSignal, error) {
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
	var err error
	sig := in.known[alert.Key]
	if sig == nil {
		if alert.Status == signals.Unchanged {
			res.Action = statusd.HookIgnored // nothing known of it, and it says nothing
			return res, nil
		}
		if in.nextID >= in.endID {
			return res, fmt.Errorf("intake: no id reserved for the signal %q", alert.Key) // prefetch reserves one an alert
		}
		id := in.nextID
		in.nextID++
		sig = &statusd.Signal{ID: id, SourceID: in.src.ID, Key: alert.Key, FirstSeenAt: in.now}
		in.known[alert.Key] = sig // a key twice in one body is one signal
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
			until := in.now.Add(time.Duration(rule.Hold))
			sig.HeldUntil = &until
			res.Action = statusd.HookPending
			break
		}
		if res.Action, err = in.group(sig, rule); err != nil {
			return res, err
		}
	default:
		res.Action = in.resolve(sig)
	}
	res.DraftID = sig.DraftID
	in.touch(sig)
	return res, nil
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
	sig.HeldUntil = nil
	listing, err := in.openListing(sig.ComponentIDs)
	if err != nil {
		return "", err
	}
	var incident *statusd.Notice
	for _, id := range listing {
		n, err := in.notice(id)
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
			in.keep(d, sig)
		}
		return statusd.HookAttached, nil
	}
	open, err := in.openDrafts()
	if err != nil {
		return "", err
	}
	for _, d := range open {
		sameGroup := d.SourceID == in.src.ID && d.Group != "" && d.Group == sig.Group
		near := in.now.Sub(d.CreatedAt) <= JoinWindow && len(missing(sig.ComponentIDs, d.ComponentIDs)) < len(sig.ComponentIDs)
		if d.Kind != statusd.DraftIncident || !sameGroup && !near {
			continue
		}
		d.ComponentIDs = union(d.ComponentIDs, sig.ComponentIDs)
		if !d.Edited {
			d.Subject, d.Content = in.texts(rule, d.ComponentIDs, sig)
		}
		in.keep(d, sig)
		return statusd.HookAttached, nil
	}
	if sig.DraftID != nil {
		// A key that fires again soon after its draft lapsed (a flap)
		// opens that draft again rather than make another.
		d, err := in.draft(*sig.DraftID)
		if err != nil {
			return "", err
		}
		if d != nil && d.State == statusd.DraftLapsed && d.Kind == statusd.DraftIncident && in.now.Sub(d.UpdatedAt) <= statusd.FlapWindow {
			d.State = statusd.DraftOpen
			in.opened(d)
			in.keep(d, sig)
			return statusd.HookDrafted, nil
		}
	}
	if sig.NoticeID != nil {
		n, err := in.notice(*sig.NoticeID)
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
			in.keep(d, sig)
			return statusd.HookDrafted, nil
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
		d.PublishAt = &at // its hold is over: SignalTimers publishes it, within the rule's cooldown
	}
	sig.NoticeID = nil
	in.opened(d)
	in.keep(d, sig)
	return statusd.HookDrafted, nil
}

// opened counts draft d among the open ones.
func (in *intake) opened(d *statusd.Draft) {
	if !slices.Contains(in.open, d) {
		in.open = append(in.open, d)
	}
}

// texts renders a draft's subject and content for the rule and a signal.
func (in *intake) texts(rule *statusd.SignalRule, comps []int64, sig *statusd.Signal) (string, string) {
	return statusd.DraftTexts(rule, in.names(comps), sig.Labels, sig.Annotations)
}

// proposal returns the open draft of kind (update or reopen) for notice
// n, or a new one, to be kept (keep).
func (in *intake) proposal(n *statusd.Notice, kind string) (*statusd.Draft, error) {
	open, err := in.openDrafts()
	if err != nil {
		return nil, err
	}
	for _, d := range open {
		if d.Kind == kind && d.NoticeID != nil && *d.NoticeID == n.ID {
			return d, nil
		}
	}
	id, err := in.tx.NextID("drafts")
	if err != nil {
		return nil, err
	}
	d := &statusd.Draft{ID: id, Kind: kind, State: statusd.DraftOpen, NoticeID: &n.ID, SourceID: in.src.ID, Subject: n.Subject,
		NoticeState: n.State(), ComponentIDs: slices.Clone(n.ComponentIDs), Rule: -1, CreatedAt: in.now}
	in.opened(d)
	return d, nil
}

// keep puts signal sig in draft d, with a warning when sig is flapping;
// d is written at the end (done).
func (in *intake) keep(d *statusd.Draft, sig *statusd.Signal) {
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
	in.changed[d.ID] = d
}

// resolve handles a signal that resolved: a draft whose signals all
// resolved lapses (or, for a proposal of new components, is dropped); a
// published incident whose signals all resolved gets a proposal to post
// recovering.
func (in *intake) resolve(sig *statusd.Signal) string {
	sig.Resolves = append(slices.DeleteFunc(sig.Resolves, func(t time.Time) bool { return in.now.Sub(t) > statusd.FlapWindow }), in.now)
	if sig.HeldUntil != nil {
		sig.HeldUntil = nil // it cleared within its hold: nothing to draft
		return statusd.HookUnchanged
	}
	in.resolved = append(in.resolved, resolution{len(in.results), sig})
	return statusd.HookUnchanged // unless settle finds it the last of its draft or incident
}

// resolution is a signal that resolved, and the index of its answer.
type resolution struct {
	i   int
	sig *statusd.Signal
}

// settle looks, once the chunk's signals are written, at what each
// signal that resolved leaves behind, the last to resolve first, so that
// the answer of the last of a draft's or an incident's says lapsed or
// proposed.
func (in *intake) settle() error {
	type target struct{ draft, notice int64 }
	settled := map[target]bool{}
	for _, r := range slices.Backward(in.resolved) {
		var t target
		if r.sig.DraftID != nil {
			t.draft = *r.sig.DraftID
		}
		if r.sig.NoticeID != nil {
			t.notice = *r.sig.NoticeID
		}
		if settled[t] {
			continue // the draft or incident of a later one: settled
		}
		settled[t] = true
		action, err := in.cleared(r.sig)
		if err != nil {
			return err
		}
		if action != statusd.HookUnchanged {
			in.results[r.i].Action = action
		}
	}
	return nil
}

// cleared is what a signal that resolved leaves behind: its draft, when
// every signal of it resolved, lapses; its published incident, when every
// signal of it resolved, gets a proposal to post recovering.
func (in *intake) cleared(sig *statusd.Signal) (string, error) {
	if sig.DraftID != nil {
		d, err := in.draft(*sig.DraftID)
		if err != nil {
			return "", err
		}
		if d != nil && d.State == statusd.DraftOpen && d.Kind != statusd.DraftUpdate {
			all, err := in.allResolved(statusd.SignalFilter{DraftID: d.ID})
			if err != nil || !all {
				return statusd.HookUnchanged, err
			}
			d.State = statusd.DraftLapsed
			in.changed[d.ID] = d
			return statusd.HookLapsed, nil
		}
	}
	if sig.NoticeID == nil {
		return statusd.HookUnchanged, nil
	}
	n, err := in.notice(*sig.NoticeID)
	if err != nil || n == nil || n.Type != statusd.Unplanned || statusd.IsClosed(n.Type, n.State()) || n.State() == statusd.Recovering {
		return statusd.HookUnchanged, err
	}
	if all, err := in.allResolved(statusd.SignalFilter{NoticeID: n.ID}); err != nil || !all {
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
	in.changed[d.ID] = d
	return statusd.HookProposed, nil
}

// allResolved reports whether no signal that f selects is firing, as
// the chunk's signals are written (settle).
func (in *intake) allResolved(f statusd.SignalFilter) (bool, error) {
	f.Status = string(signals.Firing)
	n, err := in.tx.SignalCount(f)
	return n == 0, err
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
