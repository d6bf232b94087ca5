package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/statusd/statusd/internal/sqlstore"
)

// backupCmd writes an online, consistent copy of a SQLite database to a new
// file, while servers keep running on it. For PostgreSQL it explains the
// pg_dump command to use instead.
func backupCmd(ctx context.Context, args []string, getenv func(string) string, stderr io.Writer) error {
	var db string
	fs := newFlagSet("backup", "backup [--db PATH] FILE", getenv, stderr)
	fs.str(&db, "db", "statusd.db", "the SQLite database `path` to copy (for a postgres:// URL it shows the pg_dump command to use)")
	rest, err := fs.parse(args)
	if err != nil {
		return err
	}
	if len(rest) != 1 || rest[0] == "-" {
		return fs.usageErr("takes one FILE, the new copy (it is never overwritten)")
	}
	if sqlstore.IsPostgres(db) {
		fmt.Fprint(stderr, sqlstore.PostgresBackupHint(sqlstore.Redact(db)))
		return errors.New("backup: --db is PostgreSQL; use pg_dump as shown above")
	}
	if _, err := os.Stat(db); err != nil {
		return fmt.Errorf("%s: no such database; give its path with --db", db)
	}
	if _, err := os.Lstat(rest[0]); err == nil {
		return fmt.Errorf("%s exists; backup never overwrites a file: remove it or choose another name", rest[0])
	}
	store, err := sqlstore.Open(ctx, db)
	if err != nil {
		return err
	}
	defer store.Close()
	start := time.Now()
	if err := store.Backup(ctx, rest[0]); err != nil {
		return userError(err)
	}
	size := int64(-1)
	if fi, err := os.Stat(rest[0]); err == nil {
		size = fi.Size()
	}
	fmt.Fprintf(stderr, "backed up %s to %s (%d bytes) in %v\n", db, rest[0], size, time.Since(start).Round(time.Millisecond))
	return nil
}
