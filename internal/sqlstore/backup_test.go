package sqlstore

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/internal/storetest"
	"github.com/statusd/statusd/internal/testenv"
)

// TestBackup checks that a backup is a whole database that loads the same
// page, passes SQLite's integrity check, never overwrites a file and
// leaves no temporary file behind.
func TestBackup(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s, err := Open(ctx, filepath.Join(dir, "live.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Import(ctx, storetest.Sample(), false); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "copy.db")
	if err := s.Backup(ctx, path); err != nil {
		t.Fatalf("Backup: %v", err)
	}
	copied, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer copied.Close()
	want, wv, err := s.Load(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got, gv, err := copied.Load(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) || gv != wv {
		t.Errorf("the copy loads another page (version %d, want %d)", gv, wv)
	}
	var check string
	if err := copied.db.QueryRowContext(ctx, `PRAGMA integrity_check`).Scan(&check); err != nil || check != "ok" {
		t.Errorf("integrity_check of the copy: %q %v", check, err)
	}

	before, _ := os.ReadFile(path)
	err = s.Backup(ctx, path)
	if statusd.ErrorCode(err) != statusd.EConflict {
		t.Errorf("Backup over an existing file: %v, want conflict", err)
	}
	if after, _ := os.ReadFile(path); string(after) != string(before) {
		t.Errorf("a refused Backup changed the existing file")
	}
	if err := s.Backup(ctx, filepath.Join(dir, "no", "such", "dir.db")); err == nil {
		t.Errorf("Backup into a missing directory succeeded")
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), ".partial-") {
			t.Errorf("a temporary file was left behind: %s", e.Name())
		}
	}
}

// TestBackupPostgres checks that a PostgreSQL store refuses, pointing at
// pg_dump.
func TestBackupPostgres(t *testing.T) {
	s, err := Open(context.Background(), testenv.Postgres(t))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	err = s.Backup(context.Background(), filepath.Join(t.TempDir(), "x.db"))
	if statusd.ErrorCode(err) != statusd.EInvalidParameter || !strings.Contains(err.Error(), "pg_dump") {
		t.Errorf("Backup of PostgreSQL: %v", err)
	}
	if hint := PostgresBackupHint("postgres://u@h/db"); !strings.Contains(hint, "pg_dump --format=custom") ||
		!strings.Contains(hint, "pg_restore") {
		t.Errorf("hint: %s", hint)
	}
}
