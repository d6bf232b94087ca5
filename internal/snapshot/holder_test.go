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
	"github.com/statusd/statusd/bench/large"
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

// followingStore is a countingStore that tells what was written since a
// version (statusd.ChangeReader).
type followingStore struct {
	*countingStore
	changes statusd.ChangeReader
}

func (f followingStore) Since(ctx context.Context, version int64) (statusd.Written, bool, error) {
	return f.changes.Since(ctx, version)
}

// TestHolderFollowsOtherWriters checks that a holder follows writes made
// by another server (another store on the same database) from what they
// changed, without loading the page, and loads it whole after an import.
func TestHolderFollowsOtherWriters(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	path := filepath.Join(t.TempDir(), "f.db")
	writer, err := sqlstore.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { writer.Close() })
	if err := writer.Import(ctx, large.Document(3, 10, now), false); err != nil {
		t.Fatal(err)
	}
	reader, err := sqlstore.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { reader.Close() })
	store := followingStore{&countingStore{Store: reader}, reader}
	h := NewHolder(store, Options{Variant: statusd.VariantA}, func() time.Time { return now }, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err := h.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	// Two writes elsewhere: notice 1 renamed, notice 2 deleted.
	if _, err := writer.Write(ctx, func(tx statusd.Tx) error {
		n, err := tx.Notice(1)
		if err != nil {
			return err
		}
		n.Subject = "renamed elsewhere"
		return tx.PutNotice(n)
	}); err != nil {
		t.Fatal(err)
	}
	w, err := writer.Write(ctx, func(tx statusd.Tx) error { return tx.DeleteNotice(2) })
	if err != nil {
		t.Fatal(err)
	}
	if err := h.refreshIfChanged(ctx); err != nil {
		t.Fatal(err)
	}
	snap := h.Current()
	if got := store.loads.Load(); got != 1 {
		t.Errorf("%d full loads, want 1 (the first): the writes were not followed from the changes", got)
	}
	if snap.Version != w.Version || snap.Notice(1).Subject() != "renamed elsewhere" || snap.Notice(2) != nil || snap.Notice(3) == nil {
		t.Errorf("after following: version %d (want %d), notice 1 %q, notice 2 %v, notice 3 %v",
			snap.Version, w.Version, snap.Notice(1).Subject(), snap.Notice(2), snap.Notice(3))
	}
	// An import leaves no changes: the page is loaded whole.
	doc := large.Document(3, 5, now)
	if err := writer.Import(ctx, doc, true); err != nil {
		t.Fatal(err)
	}
	if err := h.refreshIfChanged(ctx); err != nil {
		t.Fatal(err)
	}
	if got := store.loads.Load(); got != 2 || h.Current().Notice(6) != nil {
		t.Errorf("after an import: %d full loads (want 2), notice 6 %v (want none)", got, h.Current().Notice(6))
	}
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
	if err := sql.Import(ctx, large.Document(3, 10, now), false); err != nil {
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
		if got := h.Current().Notice(1).Subject(); got != wantSubject {
			t.Errorf("%s: notice 1 is %q, want %q", step, got, wantSubject)
		}
	}
	check("first load", 1, h.Current().Notice(1).Subject())

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
