package snapshot

import (
	"context"
	"io"
	"log/slog"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/internal/demo"
	"github.com/statusd/statusd/internal/sqlstore"
)

// countingStore is a real store that counts the full loads made from it.
type countingStore struct {
	statusd.Store
	loads atomic.Int64
}

func (c *countingStore) Load(ctx context.Context) (*statusd.Document, int64, error) {
	c.loads.Add(1)
	return c.Store.Load(ctx)
}

// TestHolderFollowsEachWriteOnce checks that a write is followed once,
// whichever of the writer's Apply and the version check of Watch comes
// first: the second finds the snapshot current and loads nothing.
func TestHolderFollowsEachWriteOnce(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	sql, err := sqlstore.Open(ctx, filepath.Join(t.TempDir(), "h.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sql.Close() })
	if err := sql.Import(ctx, demo.Large(3, 10, now), false); err != nil {
		t.Fatal(err)
	}
	store := &countingStore{Store: sql}
	h := NewHolder(store, Options{Variant: statusd.VariantA}, func() time.Time { return now }, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err := h.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	rename := func(subject string) statusd.Written {
		t.Helper()
		w, err := store.Write(ctx, func(tx statusd.Tx) error {
			n, err := tx.Notice(1)
			if err != nil {
				return err
			}
			n.Subject = subject
			return tx.PutNotice(n)
		})
		if err != nil {
			t.Fatal(err)
		}
		return w
	}
	check := func(step string, wantLoads int64, wantSubject string) {
		t.Helper()
		if got := store.loads.Load(); got != wantLoads {
			t.Errorf("%s: %d full loads in all, want %d", step, got, wantLoads)
		}
		if got := h.Current().Notice(1).Subject; got != wantSubject {
			t.Errorf("%s: notice 1 is %q, want %q", step, got, wantSubject)
		}
	}
	check("first load", 1, h.Current().Notice(1).Subject)

	// Apply first: incremental, then the version check finds nothing new.
	w := rename("applied first")
	if err := h.Apply(ctx, w); err != nil {
		t.Fatal(err)
	}
	check("Apply", 1, "applied first")
	if err := h.refreshIfChanged(ctx); err != nil {
		t.Fatal(err)
	}
	check("version check after Apply", 1, "applied first")

	// The version check first: one full load, then Apply has nothing to do.
	w = rename("reloaded first")
	if err := h.refreshIfChanged(ctx); err != nil {
		t.Fatal(err)
	}
	check("version check", 2, "reloaded first")
	if err := h.Apply(ctx, w); err != nil {
		t.Fatal(err)
	}
	check("Apply after the version check", 2, "reloaded first")
}
