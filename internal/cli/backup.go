package cli

import (
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/statusd/statusd/internal/sqlstore"
)

// backupCommand is statusd backup: it writes an online, consistent copy of
// a SQLite database to a new file, while servers keep running on it. For
// PostgreSQL it explains the pg_dump command to use instead.
func (e Env) backupCommand() *cobra.Command {
	var db string
	c := Command("backup [--db PATH] FILE", "an online, consistent copy of a SQLite database")
	WithEnv(c).String(&db, "db", "statusd.db", "the SQLite database `path` to copy (for a postgres:// URL it shows the pg_dump command to use)")
	c.RunE = func(c *cobra.Command, rest []string) error {
		ctx := c.Context()
		if len(rest) != 1 || rest[0] == "-" {
			return UsageError(c, "takes one FILE, the new copy (it is never overwritten)")
		}
		if sqlstore.IsPostgres(db) {
			fmt.Fprint(e.Stderr, sqlstore.PostgresBackupHint(sqlstore.Redact(db)))
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
		fmt.Fprintf(e.Stderr, "backed up %s to %s (%d bytes) in %v\n", db, rest[0], size, time.Since(start).Round(time.Millisecond))
		return nil
	}
	return c
}
