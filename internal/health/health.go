// Package health answers the probes of load balancers and orchestrators:
// /healthz (the process is alive) and /readyz (it has a page to serve and
// its database answers). Neither is rate limited nor shed; both answer
// JSON and are never cached.
package health

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/internal/httpjson"
	"github.com/statusd/statusd/internal/snapshot"
)

// DefaultTimeout is how long /readyz waits for the database.
const DefaultTimeout = time.Second

// Store is what /readyz asks of the store; *sqlstore.Store is one.
type Store interface {
	Version(ctx context.Context) (int64, error)
	// CheckWrites returns nil when writes work, else an error whose
	// statusd.ErrorMessage says why not, fit to show anyone.
	CheckWrites(ctx context.Context) error
}

// Snapshots is where /readyz looks for a loaded page; *snapshot.Holder is
// one.
type Snapshots interface {
	Current() *snapshot.Snapshot
}

// Checker answers the probes. It is safe for concurrent use.
type Checker struct {
	snaps   Snapshots
	store   Store
	timeout time.Duration
	log     *slog.Logger
	notes   func() []string // nil: none
	failing atomic.Bool     // the last /readyz was degraded: log changes only
}

// New returns a Checker; a timeout of 0 means DefaultTimeout.
func New(snaps Snapshots, store Store, timeout time.Duration, log *slog.Logger) *Checker {
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Checker{snaps: snaps, store: store, timeout: timeout, log: log}
}

// WithNotes has /readyz name, in its notes, the trouble that notes
// reports of background work (the mail relay's, notify.Mailer.Trouble):
// worth an operator's look, but no reason to stop sending readers to the
// process, which serves them as well. It returns c.
func (c *Checker) WithNotes(notes func() []string) *Checker {
	c.notes = notes
	return c
}

// Answer is the body of both probes.
type Answer struct {
	Status  string   `json:"status"` // "ok" or "degraded"
	Reasons []string `json:"reasons,omitempty"`
	// Notes name background trouble that leaves the process ready
	// (WithNotes).
	Notes []string `json:"notes,omitempty"`
}

// Healthz answers 200 {"status":"ok"} while the process can answer at all.
func (c *Checker) Healthz(w http.ResponseWriter, r *http.Request) error {
	w.Header().Set("Cache-Control", "no-store")
	return httpjson.Write(w, r, http.StatusOK, Answer{Status: "ok"})
}

// Readyz answers 200 {"status":"ok"} when a snapshot of the page is loaded,
// the database answers a version query within the timeout and its writes
// work; otherwise 503 {"status":"degraded","reasons":[...]}. Either
// carries "notes" while background work is in trouble (WithNotes). While
// degraded, the public pages and API keep serving the last snapshot. The
// reasons never carry the database's own error, which may name hosts and
// users: that is logged, once when the probe turns degraded.
func (c *Checker) Readyz(w http.ResponseWriter, r *http.Request) error {
	w.Header().Set("Cache-Control", "no-store")
	var reasons []string
	if c.snaps.Current() == nil {
		reasons = append(reasons, "no page has been published yet: nothing to serve")
	}
	ctx, cancel := context.WithTimeout(r.Context(), c.timeout)
	_, err := c.store.Version(ctx)
	timedOut := errors.Is(err, context.DeadlineExceeded) || errors.Is(ctx.Err(), context.DeadlineExceeded)
	switch {
	case err == nil:
		if err = c.store.CheckWrites(ctx); err != nil {
			reasons = append(reasons, statusd.ErrorMessage(err))
		}
	case timedOut:
		reasons = append(reasons, "the database did not answer within "+c.timeout.String())
	default:
		reasons = append(reasons, "the database cannot be read")
	}
	cancel()
	var notes []string
	if c.notes != nil {
		notes = c.notes()
	}
	if len(reasons) > 0 {
		if !c.failing.Swap(true) {
			c.log.Warn("not ready", "reasons", reasons, "err", err)
		}
		return httpjson.Write(w, r, http.StatusServiceUnavailable, Answer{Status: "degraded", Reasons: reasons, Notes: notes})
	}
	if c.failing.Swap(false) {
		c.log.Info("ready again")
	}
	return httpjson.Write(w, r, http.StatusOK, Answer{Status: "ok", Notes: notes})
}
