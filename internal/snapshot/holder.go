package snapshot

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/statusd/statusd"
)

// Holder keeps the current snapshot of a store's page. Readers get it with
// Current, which never touches the store; Refresh loads the page again after
// a write, Watch notices writes made by other processes, and a snapshot whose
// time rules have changed is rebuilt from memory on first use. A Holder is
// safe for concurrent use.
type Holder struct {
	store statusd.Store
	opts  Options
	now   func() time.Time
	log   *slog.Logger

	// OnBuild, when set (before the holder is used), is told how long each
	// new snapshot took to make, for metrics.
	OnBuild func(time.Duration)

	cur     atomic.Pointer[Snapshot]
	version atomic.Int64 // the store version last loaded, -1 before the first load
	mu      sync.Mutex   // serialises builds
}

// NewHolder returns a Holder for the store; now is the clock.
func NewHolder(store statusd.Store, opts Options, now func() time.Time, log *slog.Logger) *Holder {
	h := &Holder{store: store, opts: opts, now: now, log: log}
	h.version.Store(-1)
	return h
}

// Current returns the snapshot valid now, or nil when the store holds no
// page yet. It reads the clock only when the snapshot changes by itself at
// some moment (a clock read is a good part of a cached answer's cost).
func (h *Holder) Current() *Snapshot {
	if s := h.cur.Load(); s == nil || s.ValidUntil.IsZero() {
		return s
	}
	return h.At(h.now())
}

// At returns the snapshot valid at now, a moment just read from the
// holder's clock (so that a caller that needs the time anyway reads it
// once), or nil when the store holds no page yet.
func (h *Holder) At(now time.Time) *Snapshot {
	s := h.cur.Load()
	if s == nil || !s.Expired(now) {
		return s
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if s2 := h.cur.Load(); s2 != s {
		return s2
	}
	start := time.Now()
	s = s.Retime(now)
	h.cur.Store(s)
	h.built(start)
	return s
}

// Apply follows a write made through this holder's store: when nothing
// else was written since the current snapshot, the next one is made from it
// and the write (milliseconds, whatever the page's size); otherwise the
// page is loaded again.
func (h *Holder) Apply(ctx context.Context, w statusd.Written) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	cur := h.cur.Load()
	switch v := h.version.Load(); {
	case v >= w.Version && cur != nil:
		return nil // a reload (Watch) got there first
	case cur == nil || v != w.Version-1:
		return h.refresh(ctx)
	}
	h.with(cur, w, "snapshot updated")
	return nil
}

// with swaps in the snapshot made from cur and what w wrote. h.mu must be
// held.
func (h *Holder) with(cur *Snapshot, w statusd.Written, logMessage string) {
	start := time.Now()
	h.cur.Store(cur.With(w, h.now()))
	h.version.Store(w.Version)
	h.built(start)
	h.log.Debug(logMessage, "version", w.Version, "notices", len(w.Notices), "took", time.Since(start))
}

// Refresh loads the page from the store and swaps in a new snapshot.
func (h *Holder) Refresh(ctx context.Context) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.refresh(ctx)
}

func (h *Holder) refresh(ctx context.Context) error {
	doc, version, err := h.store.Load(ctx)
	if err != nil {
		return err
	}
	defer h.version.Store(version)
	if doc == nil {
		h.cur.Store(nil)
		return nil
	}
	start := time.Now()
	h.cur.Store(Build(doc, version, h.now(), h.opts))
	h.built(start)
	h.log.Debug("snapshot built", "version", version, "notices", len(doc.Notices), "took", time.Since(start))
	return nil
}

func (h *Holder) built(start time.Time) {
	if h.OnBuild != nil {
		h.OnBuild(time.Since(start))
	}
}

// Watch refreshes the snapshot when the store's version changes, until ctx
// is done: at once when the store announces writes (statusd.ChangeNotifier),
// and by a check every interval in any case, the fallback for a missed
// announcement. Errors are logged, not fatal: the last snapshot keeps being
// served.
func (h *Holder) Watch(ctx context.Context, interval time.Duration) {
	var changes <-chan struct{}
	if n, ok := h.store.(statusd.ChangeNotifier); ok {
		changes = n.Changes(ctx)
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	failing := false // log a failure once, and the recovery once
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-changes:
		}
		err := h.refreshIfChanged(ctx)
		switch {
		case ctx.Err() != nil:
			return
		case err != nil && !failing:
			h.log.Warn("the store cannot be read; serving the last snapshot", "err", err)
		case err == nil && failing:
			h.log.Info("the store can be read again")
		}
		failing = err != nil
	}
}

func (h *Holder) refreshIfChanged(ctx context.Context) error {
	v, err := h.store.Version(ctx)
	if err != nil || v == h.version.Load() {
		return err
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	// A write through this holder may have been applied while waiting: a
	// full reload would then be wasted (seconds, on a large page under
	// load, holding up the next write's Apply).
	if h.version.Load() >= v {
		return nil
	}
	return h.follow(ctx)
}

// follow brings the snapshot up to the store's version: from what was
// written since, when the store can tell (statusd.ChangeReader), else by
// loading the page.
func (h *Holder) follow(ctx context.Context) error {
	cr, ok := h.store.(statusd.ChangeReader)
	cur := h.cur.Load()
	if !ok || cur == nil {
		return h.refresh(ctx)
	}
	w, ok, err := cr.Since(ctx, h.version.Load())
	switch {
	case err != nil:
		return err
	case !ok:
		return h.refresh(ctx)
	}
	h.with(cur, w, "snapshot followed the store")
	return nil
}

// Fixed is a snapshot that never changes, where a Holder's methods are
// asked for (Current, At): what a handler's tests serve, without a store.
type Fixed struct{ Snapshot *Snapshot }

// Current returns the snapshot.
func (f Fixed) Current() *Snapshot { return f.Snapshot }

// At returns the snapshot, whatever the time.
func (f Fixed) At(time.Time) *Snapshot { return f.Snapshot }
