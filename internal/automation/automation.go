// Package automation moves automated maintenance on schedule: a planned
// notice with automate set goes underway at begins_at and complete at
// ends_at, each with an update written by statusd. Each move is one store
// transaction that checks again that it is still due, so that it happens
// exactly once even when several servers share one database.
package automation

import (
	"context"
	"fmt"
	"log/slog"
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

// Runner moves automated maintenance.
type Runner struct {
	Store     statusd.Store
	Snapshots *snapshot.Holder
	Now       func() time.Time
	Log       *slog.Logger
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
			if err := tx.Audit(statusd.AuditEntry{At: now, Actor: Actor, Action: "notice.automate",
				Target: fmt.Sprintf("notice %d", id), Detail: string(next)}); err != nil {
				return err
			}
		}
		return nil
	})
}
