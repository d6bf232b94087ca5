// Package automation moves automated maintenance on schedule: a planned
// notice with automate set goes underway at begins_at and complete at
// ends_at, each with an update written by statusd and told to subscribers.
// Each move is one store transaction that checks again that it is still
// due, so that it happens exactly once even when several servers share one
// database. It also reminds subscribers of scheduled maintenance a set
// time before it begins, once per begins_at (CONTRACT C7).
package automation

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/internal/snapshot"
)

// Interval is how often the runner looks for moves that are due.
const Interval = 200 * time.Millisecond

// Actor is the name under which automation writes the audit log.
const Actor = "statusd"

var contents = map[statusd.State]string{
	statusd.Underway: "The scheduled maintenance has begun.",
	statusd.Complete: "The scheduled maintenance is complete.",
}

// Runner moves automated maintenance and sends reminders.
type Runner struct {
	Store     statusd.Store
	Snapshots *snapshot.Holder
	Now       func() time.Time
	Log       *slog.Logger
	// Reminder is how long before begins_at a scheduled maintenance's
	// reminder goes (--maintenance-reminder); 0 sends none.
	Reminder time.Duration
	// Wake, when set, is called after events were stored, so that they
	// are sent at once.
	Wake func()

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
		w, err := r.move(ctx, n.ID)
		if err != nil {
			return err
		}
		if err := r.Snapshots.Apply(ctx, w); err != nil {
			return err
		}
		r.wake()
	}
	return r.remind(ctx, snap, now)
}

func (r *Runner) wake() {
	if r.Wake != nil {
		r.Wake()
	}
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
		_, err := r.Store.Subscribers().Emit(ctx, statusd.Event{Kind: statusd.MaintenanceReminder, NoticeID: n.ID,
			ComponentIDs: n.ComponentIDs(), Key: key, CreatedAt: now})
		if err != nil {
			return err
		}
		r.remember(key)
		r.wake()
	}
	return nil
}

// move makes the due moves of one notice in one transaction, reading it
// again there, so that another server's move is not made twice.
func (r *Runner) move(ctx context.Context, id int64) (statusd.Written, error) {
	return r.Store.Write(ctx, func(tx statusd.Tx) error {
		n, err := tx.Notice(id)
		if err != nil || n == nil {
			return err
		}
		now := r.Now().UTC().Truncate(time.Millisecond)
		if last := n.Updates[len(n.Updates)-1].CreatedAt; now.Before(last) {
			now = last
		}
		// A maintenance whose whole window passed while no server ran goes
		// underway and complete at once.
		for {
			next, due := n.AutomationDue(now)
			if !due {
				break
			}
			uid, err := tx.NextID("updates")
			if err != nil {
				return err
			}
			n.Updates = append(n.Updates, statusd.Update{ID: uid, State: next, Content: contents[next], CreatedAt: now, UpdatedAt: now})
			n.UpdatedAt = now
			if err := tx.PutNotice(n); err != nil {
				return err
			}
			if err := tx.Emit(statusd.Event{Kind: statusd.NoticeUpdated, NoticeID: id, UpdateID: uid,
				ComponentIDs: n.ComponentIDs, CreatedAt: now}); err != nil {
				return err
			}
			if err := tx.Audit(statusd.AuditEntry{At: now, Actor: Actor, Action: "notice.automate",
				Target: fmt.Sprintf("notice %d", id), Detail: string(next)}); err != nil {
				return err
			}
		}
		return nil
	})
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
