// Package sqlstore implements statusd.Store on database/sql: SQLite through a
// pure-Go driver, with embedded, numbered migrations that each run in one
// transaction.
package sqlstore

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/statusd/statusd"

	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

//go:embed migrations
var migrations embed.FS

// Store is a statusd.Store on SQLite. Reads go through a pool of connections;
// writes through a single connection that takes the write lock at BEGIN, so
// that writers queue instead of failing with SQLITE_BUSY.
type Store struct {
	db  *sql.DB // readers
	wdb *sql.DB // the single writer
}

var _ statusd.Store = (*Store)(nil)

// Open opens (creating if needed) the SQLite database at path, in WAL mode,
// and applies pending migrations.
func Open(ctx context.Context, path string) (*Store, error) {
	pragmas := "_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=foreign_keys(1)&_pragma=synchronous(NORMAL)"
	dsn := "file:" + (&url.URL{Path: path}).EscapedPath() + "?" + pragmas
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, err
	}
	wdb, err := sql.Open("sqlite", dsn+"&_txlock=immediate")
	if err != nil {
		db.Close()
		return nil, err
	}
	wdb.SetMaxOpenConns(1)
	s := &Store{db: db, wdb: wdb}
	if err := s.migrate(ctx); err != nil {
		s.Close()
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	return s, nil
}

// Close closes the database.
func (s *Store) Close() error {
	return errors.Join(s.db.Close(), s.wdb.Close())
}

// migrate applies, in order and each in its own transaction, every embedded
// migration whose number is not yet recorded in schema_migrations.
func (s *Store) migrate(ctx context.Context) error {
	if _, err := s.wdb.ExecContext(ctx,
		`CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY)`); err != nil {
		return err
	}
	names, err := fs.Glob(migrations, "migrations/sqlite/*.sql")
	if err != nil {
		return err
	}
	sort.Strings(names)
	for _, name := range names {
		base := name[strings.LastIndex(name, "/")+1:]
		version, err := strconv.Atoi(strings.SplitN(base, "_", 2)[0])
		if err != nil {
			return fmt.Errorf("migration %s: name must start with its number", base)
		}
		body, err := migrations.ReadFile(name)
		if err != nil {
			return err
		}
		err = s.transact(ctx, func(tx *sql.Tx) error {
			var n int
			if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM schema_migrations WHERE version = ?`, version).Scan(&n); err != nil || n > 0 {
				return err
			}
			if _, err := tx.ExecContext(ctx, string(body)); err != nil {
				return fmt.Errorf("migration %s: %w", base, err)
			}
			_, err := tx.ExecContext(ctx, `INSERT INTO schema_migrations (version) VALUES (?)`, version)
			return err
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// transact runs fn in a write transaction, committing when fn returns nil and
// rolling back otherwise.
func (s *Store) transact(ctx context.Context, fn func(*sql.Tx) error) error {
	tx, err := s.wdb.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := fn(tx); err != nil {
		return err
	}
	return tx.Commit()
}

// Version returns the number of writes made to the store.
func (s *Store) Version(ctx context.Context) (int64, error) {
	var v int64
	err := s.db.QueryRowContext(ctx, `SELECT version FROM store_version WHERE id = 1`).Scan(&v)
	return v, err
}

func bumpVersion(ctx context.Context, tx *sql.Tx) error {
	_, err := tx.ExecContext(ctx, `UPDATE store_version SET version = version + 1 WHERE id = 1`)
	return err
}

func ms(t time.Time) int64 { return t.UnixMilli() }

func fromMS(v int64) time.Time { return time.UnixMilli(v).UTC() }

func msPtr(t *time.Time) *int64 {
	if t == nil {
		return nil
	}
	v := ms(*t)
	return &v
}

func fromMSPtr(v sql.NullInt64) *time.Time {
	if !v.Valid {
		return nil
	}
	t := fromMS(v.Int64)
	return &t
}

func nullInt(v sql.NullInt64) *int64 {
	if !v.Valid {
		return nil
	}
	return &v.Int64
}
