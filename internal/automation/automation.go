// Package automation moves automated maintenance on schedule: a planned
// notice with automate set goes underway at begins_at and complete at
// ends_at, each with an update posted by statusd itself (statusd.System)
// through the same action as an operator's, app.AddUpdate, and told to
// subscribers. The action checks again, in its transaction, that the move
// is still due, so that it happens exactly once even when several servers
// share one database. It also reminds subscribers of scheduled maintenance
// a set time before it begins, once per begins_at (CONTRACT C7,
// app.Remind), and runs the timers of the signals (CONTRACT C9,
// app.SignalTimers: holds and publish rules), once across servers too.
package automation

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/internal/app"
	"github.com/statusd/statusd/internal/snapshot"
)

// Interval is how often the runner looks for moves that are due.
const Interval = 200 * time.Millisecond

var contents = map[statusd.State]string{
	statusd.Underway: "The scheduled maintenance has begun.",
	statusd.Complete: "The scheduled maintenance is complete.",
}

// Runner moves automated maintenance and sends reminders.
type Runner struct {
	// App posts the moves and stores the reminders.
	App       *app.App
	Snapshots *snapshot.Holder
	Now       func() time.Time
	Log       *slog.Logger
	// Reminder is how long before begins_at a scheduled maintenance's
	// reminder goes (--maintenance-reminder); 0 sends none.
	Reminder time.Duration

	mu       sync.Mutex
	reminded map[string]bool // the reminders' keys stored by this runner
}

// Run looks for due moves every Interval until ctx is done.
func (r *Runner) Run(ctx context.Context) {
	t := time.NewTicker(Interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if err := r.Tick(ctx); err != nil && ctx.Err() == nil {
			r.Log.Warn("maintenance automation", "err", err)
		}
		if err := r.App.SignalTimers(ctx); err != nil && ctx.Err() == nil {
			r.Log.Warn("signal timers", "err", err)
		}
	}
}

// Tick makes every move that is due now.
func (r *Runner) Tick(ctx context.Context) error {
	snap := r.Snapshots.Current()
	if snap == nil {
		return nil
	}
	now := r.Now()
	for _, n := range snap.Automated {
		if _, due := n.AutomationDue(now); !due {
			continue
		}
		if err := r.move(ctx, n.ID); err != nil {
			return err
		}
	}
	return r.remind(ctx, snap, now)
}

// remind stores the reminder of every scheduled maintenance that begins
// within Reminder of now. A maintenance whose last update is that recent
// gets none: its subscribers just heard of it. The event's key makes it
// once per begins_at across servers; reminded spares the store a write
// per tick.
func (r *Runner) remind(ctx context.Context, snap *snapshot.Snapshot, now time.Time) error {
	if r.Reminder <= 0 {
		return nil
	}
	for _, n := range snap.Scheduled {
		begins := *n.BeginsAt()
		from := begins.Add(-r.Reminder)
		updates := n.Updates()
		if now.Before(from) || !now.Before(begins) || !updates[len(updates)-1].CreatedAt.Before(from) {
			continue
		}
		key := statusd.ReminderKey(n.ID, begins)
		if r.remembers(key) {
			continue
		}
		if err := r.App.Remind(ctx, statusd.System, n.ID, n.ComponentIDs(), begins, now); err != nil {
			return err
		}
		r.remember(key)
	}
	return nil
}

// move posts the due moves of notice id, each by statusd itself through
// app.AddUpdate, which makes it only if it is still due when its
// transaction reads the notice (else ErrNotDue: another server made it).
// A maintenance whose whole window passed while no server ran goes
// underway and complete at once.
func (r *Runner) move(ctx context.Context, id int64) error {
	for {
		n := r.Snapshots.Current().Notice(id)
		if n == nil {
			return nil
		}
		next, due := n.AutomationDue(r.Now())
		if !due {
			return nil
		}
		state, content := string(next), contents[next]
		err := r.App.AddUpdate(ctx, statusd.System, id, statusd.AdminUpdateRequest{State: &state, Content: &content})
		switch {
		case errors.Is(err, app.ErrNotDue), statusd.ErrorCode(err) == statusd.ENotFound:
			return nil
		case err != nil:
			return err
		}
	}
}

// remembers reports whether this runner stored the reminder of key; Tick
// may run in several goroutines at once.
func (r *Runner) remembers(key string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.reminded[key]
}

func (r *Runner) remember(key string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.reminded == nil {
		r.reminded = map[string]bool{}
	}
	r.reminded[key] = true
}
