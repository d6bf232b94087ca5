package sqlstore

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/statusd/statusd"
)

// Backup writes an online, consistent copy of a SQLite store to a new file
// at path with VACUUM INTO, on a read connection: writers carry on while it
// runs, and the copy is the database as of one moment (one read
// transaction), tokens and audit log included. The copy is written to a
// temporary file beside path, synced, and only then given its name, so that
// path never holds half a copy. Backup refuses to overwrite an existing
// file (statusd.EConflict). A PostgreSQL store is refused with
// statusd.EInvalidParameter: back it up with pg_dump (PostgresBackupHint).
// Backup is safe for concurrent use.
func (s *Store) Backup(ctx context.Context, path string) error {
	if s.d != sqliteDialect {
		return statusd.Errorf(statusd.EInvalidParameter, "backup copies SQLite databases only; back up PostgreSQL with pg_dump")
	}
	if _, err := os.Lstat(path); err == nil {
		return statusd.Errorf(statusd.EConflict, "%s exists; backup never overwrites a file: remove it or choose another name", path)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	dir := filepath.Dir(path)
	tmp := filepath.Join(dir, "."+filepath.Base(path)+".partial-"+strconv.FormatInt(time.Now().UnixNano(), 36))
	defer os.Remove(tmp) // after a failure, and after the link below
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return unavailable(err)
	}
	_, err = conn.ExecContext(ctx, `VACUUM INTO ?`, tmp)
	conn.Close()
	if err != nil {
		return fmt.Errorf("backup into %s: %w", path, err)
	}
	if err := syncFile(tmp); err != nil {
		return fmt.Errorf("backup into %s: %w", path, err)
	}
	// A hard link gives the copy its name only if the name is still free;
	// where links are not supported, a rename after a last check.
	if err := os.Link(tmp, path); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return statusd.Errorf(statusd.EConflict, "%s exists; backup never overwrites a file: remove it or choose another name", path)
		}
		if _, serr := os.Lstat(path); serr == nil {
			return statusd.Errorf(statusd.EConflict, "%s exists; backup never overwrites a file: remove it or choose another name", path)
		}
		if err := os.Rename(tmp, path); err != nil {
			return err
		}
	}
	return syncFile(dir)
}

// syncFile flushes a file, or a directory's entries, to stable storage.
func syncFile(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Sync()
}

// PostgresBackupHint is how to back up and restore a PostgreSQL store, for
// the message of statusd backup; url is shown as given (redact it first).
func PostgresBackupHint(url string) string {
	return "statusd backup copies SQLite databases; for PostgreSQL use pg_dump, which takes a consistent copy while statusd runs:\n\n" +
		"    pg_dump --format=custom --file=statusd.dump '" + url + "'\n\n" +
		"and restore it, with every statusd stopped, into an empty database:\n\n" +
		"    pg_restore --clean --if-exists --no-owner --dbname='" + url + "' statusd.dump\n"
}
