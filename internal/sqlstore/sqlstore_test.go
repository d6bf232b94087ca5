package sqlstore

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/internal/storetest"
)

func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) statusd.Store {
		s, err := Open(context.Background(), filepath.Join(t.TempDir(), "test.db"))
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}

// TestReopen checks that migrations run once: a second Open of the same
// file finds the schema in place and the data intact.
func TestReopen(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "test.db")
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Import(ctx, storetest.Sample(), false); err != nil {
		t.Fatal(err)
	}
	s.Close()
	s, err = Open(ctx, path)
	if err != nil {
		t.Fatalf("second Open: %v", err)
	}
	defer s.Close()
	files, err := fs.Glob(migrations, "migrations/sqlite/*.sql")
	if err != nil {
		t.Fatal(err)
	}
	var n int
	if err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM schema_migrations`).Scan(&n); err != nil || n != len(files) {
		t.Errorf("schema_migrations has %d rows (%v), want one a migration: %d", n, err, len(files))
	}
	doc, _, err := s.Load(ctx)
	if err != nil || doc == nil || len(doc.Notices) != 3 {
		t.Errorf("after reopen: %v, %v", doc, err)
	}
}

// TestOpenRefusesAFileThatIsNotADatabase checks the error a user sees.
func TestOpenRefusesAFileThatIsNotADatabase(t *testing.T) {
	path := filepath.Join(t.TempDir(), "junk.db")
	if err := writeFile(path, "this is not sqlite, just text that is long enough to have a header........"); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(context.Background(), path); err == nil {
		t.Fatal("Open of a text file succeeded")
	}
}

func writeFile(path, content string) error {
	return os.WriteFile(path, []byte(content), 0o600)
}

func TestIntColumns(t *testing.T) {
	var c intColumn
	if err := c.Scan(int64(-42)); err != nil || c != -42 {
		t.Errorf("intColumn.Scan(-42): %v, %v", c, err)
	}
	if err := c.Scan("42"); err == nil {
		t.Error("intColumn.Scan of a string: no error")
	}
	if err := c.Scan(nil); err == nil {
		t.Error("intColumn.Scan of NULL: no error")
	}
	n := nullIntColumn{Int64: 7, Valid: true}
	if err := n.Scan(nil); err != nil || n.Valid || n.Int64 != 0 {
		t.Errorf("nullIntColumn.Scan(NULL): %+v, %v", n, err)
	}
	if err := n.Scan(int64(1 << 40)); err != nil || !n.Valid || n.Int64 != 1<<40 {
		t.Errorf("nullIntColumn.Scan(2^40): %+v, %v", n, err)
	}
	if err := n.Scan([]byte("7")); err == nil {
		t.Error("nullIntColumn.Scan of bytes: no error")
	}
}
