// Package mirror keeps a complete, signed static copy of the public
// surface in storage elsewhere (CONTRACT C10), so that the page outlives
// the infrastructure it reports on: after every change that alters a
// public answer, and at least every heartbeat, the current snapshot's
// answers are rendered in process by the live routes (server.Renderer),
// the changed ones put to each destination (a directory or an S3 bucket,
// Bucket), then mirror.json, signed with Ed25519, then stale files are
// deleted. One process across replicas writes to a destination at a time
// (a lease in the store); a failure is logged in the store, retried with
// backoff, and shown on /readyz and in
// statusd_mirror_last_success_timestamp_seconds. serve --from-mirror serves
// a copy back (Source.Load, Server), and mirror verify checks one (Check).
package mirror

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"sync/atomic"
	"time"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/internal/snapshot"
)

// Defaults of serve's flags (CONTRACT C10).
const (
	DefaultHeartbeat  = 5 * time.Minute
	DefaultStaleAfter = 15 * time.Minute
)

// lease is how long a claim on a destination lasts; it is renewed at a
// third of it while a push runs. When its holder dies, another process
// (or the same one, started again) takes the destination over after it.
const lease = 30 * time.Second

// Snapshots gives the live snapshot; *snapshot.Holder is one.
type Snapshots interface {
	Current() *snapshot.Snapshot
}

// Pin is the snapshot a push renders, for the handler of Config.Render:
// it answers Current and At with the same snapshot.
type Pin struct {
	p atomic.Pointer[snapshot.Snapshot]
}

// Current returns the pinned snapshot.
func (p *Pin) Current() *snapshot.Snapshot { return p.p.Load() }

// At returns the pinned snapshot, whatever the time.
func (p *Pin) At(time.Time) *snapshot.Snapshot { return p.p.Load() }

// Config configures a Mirror.
type Config struct {
	Buckets   []Bucket
	Store     statusd.MirrorStore
	Snapshots Snapshots
	Variant   statusd.Variant
	// Render returns the handler of the public reads on pin
	// (server.Renderer).
	Render func(pin *Pin) http.Handler
	// Heartbeat is the longest time between two manifests
	// (--mirror-heartbeat); StaleAfter the age past which a copy's pages
	// say it may be out of date (--mirror-stale-after).
	Heartbeat, StaleAfter time.Duration
	// Busy, when set, reports that readers are waiting: the rendering
	// then pauses between answers, as the notification sender does.
	Busy func() bool
	Now  func() time.Time
	Log  *slog.Logger
}

// Mirror pushes the copy to its destinations. Run it with Run.
type Mirror struct {
	cfg    Config
	pin    Pin
	render http.Handler
	holder string
	dests  []*dest
}

// dest is a destination and where this process stands with it.
type dest struct {
	Destination
	url    string
	pushed *snapshot.Snapshot // the snapshot of its last manifest from here
	at     time.Time          // when that manifest was written
	retry  time.Time          // no push before it (after a failure)
	// holds says whether this process holds the claim on it, as of
	// claimed, the last time it claimed it.
	holds   bool
	claimed time.Time
}

// New returns a Mirror of cfg.
func New(cfg Config) *Mirror {
	m := &Mirror{cfg: cfg, holder: holderName()}
	m.render = cfg.Render(&m.pin)
	for _, b := range cfg.Buckets {
		url := b.String()
		remember := func(ctx context.Context, keys []string) error { return cfg.Store.Remember(ctx, url, keys) }
		m.dests = append(m.dests, &dest{Destination: Destination{Bucket: b, Remember: remember}, url: url})
	}
	return m
}

// holderName names this process in the destinations' leases.
func holderName() string {
	host, _ := os.Hostname()
	b := make([]byte, 4)
	rand.Read(b)
	return fmt.Sprintf("%s/%d/%s", host, os.Getpid(), hex.EncodeToString(b))
}

// Run pushes until ctx is done: whenever the snapshot changed, a
// heartbeat is due, or a failed push's retry is.
func (m *Mirror) Run(ctx context.Context) {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		m.Tick(ctx)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// Tick pushes to each destination that needs it, now, rendering the
// snapshot once for all of them.
func (m *Mirror) Tick(ctx context.Context) {
	snap := m.cfg.Snapshots.Current()
	if snap == nil {
		return
	}
	now := m.cfg.Now()
	var due []claimed
	for _, d := range m.dests {
		if c, ok := m.claim(ctx, d, snap, now); ok {
			due = append(due, c)
		}
	}
	if len(due) > 0 {
		m.push(ctx, snap, now, due)
	}
}

// claimed is a destination this process holds the claim on, with its
// state then, and whether a heartbeat is due.
type claimed struct {
	d         *dest
	st        statusd.MirrorState
	heartbeat bool
}

// claim claims d when a push is due or its claim is to be renewed (every
// third of the lease, so that a process that holds none takes the
// destination over within a lease of its holder's death); ok says that
// this process holds the claim and is to push: the snapshot changed, a
// heartbeat is due, files are left to delete, or it just took the
// destination over (and does not know what its last holder wrote).
func (m *Mirror) claim(ctx context.Context, d *dest, snap *snapshot.Snapshot, now time.Time) (c claimed, ok bool) {
	heartbeat := !now.Before(d.at.Add(m.cfg.Heartbeat))
	due := d.pushed != snap || heartbeat
	if now.Before(d.retry) || (!due && now.Sub(d.claimed) < lease/3) {
		return c, false
	}
	st, err := m.cfg.Store.Claim(ctx, d.url, m.holder, now, lease)
	d.claimed = now
	switch {
	case err != nil:
		m.cfg.Log.Warn("mirror: cannot claim the destination", "mirror", d.url, "err", err)
		d.retry = now.Add(statusd.MirrorRetry(1))
		return c, false
	case st == nil:
		// Another process holds it: it pushes; try again later.
		d.holds, d.retry = false, now.Add(lease/3)
		return c, false
	case !d.holds:
		d.holds, d.prev, due = true, nil, true // read the bucket's manifest
	case d.prev != nil && d.prev.Sequence != st.Sequence:
		d.prev = nil // another process wrote since: read the bucket's
	}
	if st.NextAttemptAt.After(now) {
		d.retry = st.NextAttemptAt // a failure's backoff, whoever failed
		return c, false
	}
	d.Stale = st.Stale
	return claimed{d: d, st: *st, heartbeat: heartbeat}, due || len(d.Stale) > 0
}

// push renders snap at now once and pushes it to each destination of
// due, answer by answer.
func (m *Mirror) push(ctx context.Context, snap *snapshot.Snapshot, now time.Time, due []claimed) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	for _, c := range due {
		stop := m.keepClaim(ctx, cancel, c.d.url)
		defer stop()
	}
	pushes := make([]*Push, len(due))
	errs := make([]error, len(due))
	key, err := m.cfg.Store.SigningKey(ctx, now, false)
	stamp := Stamp{GeneratedAt: now, SourceURL: snap.Page().URL, StaleAfter: m.cfg.StaleAfter}
	for i, c := range due {
		switch {
		case err != nil:
			errs[i] = fmt.Errorf("the signing key: %w", err)
		default:
			pushes[i], errs[i] = c.d.Begin(ctx, stamp, key, c.st.Sequence+1)
		}
	}
	m.pin.p.Store(snap)
	pause, status := m.giveWay(), false
	err = Render(ctx, m.render, Targets(snap, m.cfg.Variant), func(a Answer) {
		pause()
		status = status || a.Target == "/api/v1/status"
		for i, p := range pushes {
			if errs[i] == nil {
				errs[i] = p.Add(ctx, a)
			}
		}
	})
	if err == nil && !status {
		// A copy without the page's status would replace the good one.
		err = errors.New("the page's status did not render: nothing is pushed")
	}
	for i, c := range due {
		var res Result
		switch {
		case errs[i] == nil && err != nil:
			errs[i] = err
		case errs[i] == nil:
			res, errs[i] = pushes[i].Finish(ctx, c.heartbeat)
		case pushes[i] != nil:
			res = pushes[i].res
		}
		m.done(ctx, c, snap, now, res, errs[i])
	}
}

// done records what the push to c did.
func (m *Mirror) done(ctx context.Context, c claimed, snap *snapshot.Snapshot, start time.Time, res Result, err error) {
	d := c.d
	p := statusd.MirrorPush{URL: d.url, Sequence: res.Sequence, StartedAt: start, FinishedAt: m.cfg.Now(),
		FilesPut: res.FilesPut, BytesPut: res.BytesPut, FilesDeleted: res.FilesDeleted}
	if err != nil {
		p.Error = err.Error()
		m.cfg.Log.Warn("mirror: push failed", "mirror", d.url, "err", err, "files_put", res.FilesPut)
	}
	if err == nil && !res.Wrote && res.FilesDeleted == 0 {
		d.pushed = snap
		return
	}
	rctx, rcancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer rcancel()
	if _, rerr := m.cfg.Store.Record(rctx, p); rerr != nil {
		m.cfg.Log.Warn("mirror: cannot record the push", "mirror", d.url, "err", rerr)
	}
	if err != nil {
		d.retry = p.FinishedAt.Add(statusd.MirrorRetry(c.st.Failures + 1))
		return
	}
	d.pushed, d.at, d.retry = snap, p.FinishedAt, time.Time{}
	m.cfg.Log.Info("mirror: pushed", "mirror", d.url, "sequence", res.Sequence, "files_put", res.FilesPut,
		"bytes_put", res.BytesPut, "files_deleted", res.FilesDeleted, "took", p.FinishedAt.Sub(start))
}

// giveWay returns the pause between answers: while readers are waiting
// (Config.Busy), every 32 answers are followed by ten times their time,
// at most 20 ms, so that a push takes the machine's spare time.
func (m *Mirror) giveWay() func() {
	if m.cfg.Busy == nil {
		return nil
	}
	n, since := 0, time.Now()
	return func() {
		if n++; n%32 != 0 {
			return
		}
		if m.cfg.Busy() {
			time.Sleep(min(10*time.Since(since), 20*time.Millisecond))
		}
		since = time.Now()
	}
}

// keepClaim renews the claim on url while a push runs, cancelling it
// (cancel) when the claim is lost; stop ends it.
func (m *Mirror) keepClaim(ctx context.Context, cancel func(), url string) (stop func()) {
	done := make(chan struct{})
	go func() {
		t := time.NewTicker(lease / 3)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
			}
			st, err := m.cfg.Store.Claim(ctx, url, m.holder, m.cfg.Now(), lease)
			if err == nil && st == nil {
				m.cfg.Log.Warn("mirror: another process took the destination; this push stops", "mirror", url)
				cancel()
				return
			}
		}
	}()
	return func() { close(done) }
}

// Notes are /readyz's notes of the destinations whose last push failed
// (health.Checker.WithNotes), whichever replica pushed.
func (m *Mirror) Notes(ctx context.Context) []string {
	states, err := m.States(ctx)
	if err != nil {
		return []string{"mirror: the destinations' state cannot be read: " + err.Error()}
	}
	var notes []string
	for _, st := range states {
		if st.Failures == 0 {
			continue
		}
		since := "never"
		if st.LastSuccessAt != nil {
			since = st.LastSuccessAt.UTC().Format("2006-01-02 15:04:05 UTC")
		}
		notes = append(notes, fmt.Sprintf("mirror %s: %d pushes failed (last success: %s): %s", st.URL, st.Failures, since, st.LastError))
	}
	return notes
}

// States are the states of this process's destinations, from the store.
func (m *Mirror) States(ctx context.Context) ([]statusd.MirrorState, error) {
	all, err := m.cfg.Store.States(ctx)
	if err != nil {
		return nil, err
	}
	var out []statusd.MirrorState
	for _, st := range all {
		for _, d := range m.dests {
			if d.url == st.URL {
				out = append(out, st)
			}
		}
	}
	return out, nil
}
