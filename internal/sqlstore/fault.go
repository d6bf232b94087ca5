package sqlstore

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/statusd/statusd"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// The storage faults: a database that cannot be used, each answered 503
// unavailable with a message that tells an operator which, and what to do.
// A Store's own fault, its file removed or replaced, is Store.replaced.
var (
	errDiskFull = statusd.Errorf(statusd.EUnavailable,
		"the database disk is full: writes are refused until space is freed on it")
	errReadOnly = statusd.Errorf(statusd.EUnavailable,
		"the database is read-only: writes are refused until statusd may write it again (file permissions or attributes, a read-only mount, a PostgreSQL server that refuses writes)")
	errStorage = statusd.Errorf(statusd.EUnavailable,
		"the database's storage fails (an I/O error, or its file cannot be opened): writes are refused; check the disk and the server's log")
	errUnreachable = statusd.Errorf(statusd.EUnavailable,
		"the database cannot be reached; try again shortly")
)

// classify returns the storage fault that err, from SQLite or PostgreSQL,
// is, or nil when it is none: a mistake in a query, a constraint, a bug.
func classify(err error) *statusd.Error {
	var lite *sqlite.Error
	if errors.As(err, &lite) {
		switch lite.Code() & 0xff { // the primary code of an extended one
		case sqlite3.SQLITE_FULL:
			return errDiskFull
		case sqlite3.SQLITE_READONLY:
			return errReadOnly
		case sqlite3.SQLITE_IOERR, sqlite3.SQLITE_CANTOPEN:
			return errStorage
		}
		return nil
	}
	var pg *pgconn.PgError
	if errors.As(err, &pg) {
		switch pg.Code {
		case "53100": // disk_full
			return errDiskFull
		case "25006": // read_only_sql_transaction: a standby, or default_transaction_read_only
			return errReadOnly
		case "58030": // io_error
			return errStorage
		case "57P01", "57P02", "57P03": // admin_shutdown, crash_shutdown, cannot_connect_now
			return errUnreachable
		}
		if strings.HasPrefix(pg.Code, "08") { // connection_exception
			return errUnreachable
		}
		return nil
	}
	var netErr net.Error
	if errors.As(err, &netErr) {
		return errUnreachable
	}
	return nil
}

// wrapFault marks err, when it is a storage fault, as that fault (so a
// 503 unavailable that says which), and otherwise as unknown when that is
// not nil. An *statusd.Error and a cancelled request stay as they are.
func wrapFault(err error, unknown *statusd.Error) error {
	if err == nil || errors.Is(err, context.Canceled) {
		return err
	}
	var serr *statusd.Error
	if errors.As(err, &serr) {
		return err
	}
	f := classify(err)
	if f == nil {
		f = unknown
	}
	if f == nil {
		return err
	}
	return fmt.Errorf("%w: %w", f, err)
}

// unavailable marks a failure to reach or use the database as 503
// unavailable, so that callers can tell it from a refusal: as its storage
// fault, or else as a database that cannot be reached.
func unavailable(err error) error { return wrapFault(err, errUnreachable) }

// faultOf returns the storage fault err was marked as by wrapFault, or nil.
func faultOf(err error) *statusd.Error {
	var serr *statusd.Error
	if errors.As(err, &serr) && serr.Code == statusd.EUnavailable {
		return serr
	}
	return nil
}

// checkFile returns Store.replaced when the SQLite database file at the
// store's path is no longer the one it opened: removed (the store still
// writes the removed file, which is gone at the next start) or replaced.
func (s *Store) checkFile() error {
	if s.file == nil {
		return nil // PostgreSQL
	}
	if now, err := os.Stat(s.path); err != nil || !os.SameFile(now, s.file) {
		return s.replaced
	}
	return nil
}

// noteWrite records how a write ended, for CheckWrites, and logs each
// change: a storage fault at error level, writes working again at info. A
// write refused for any other reason says nothing of the storage.
func (s *Store) noteWrite(err error) {
	f := faultOf(err)
	if err != nil && f == nil {
		return
	}
	s.mu.Lock()
	was := s.fault
	s.fault = f
	s.mu.Unlock()
	switch {
	case f == was:
	case f != nil:
		s.log.Error("database writes fail", "err", err) // the fault's message, then the database's error
	default:
		s.log.Info("database writes work again")
	}
}

// CheckWrites returns nil when writes work, else the storage fault (an
// *statusd.Error, 503 unavailable) that makes them fail. While the last
// write failed, or when the database file was removed, it tries a write
// that changes nothing, so that a fault that went away is noticed without
// waiting for a real write.
func (s *Store) CheckWrites(ctx context.Context) error {
	s.mu.Lock()
	f := s.fault
	s.mu.Unlock()
	if f == nil && s.checkFile() == nil {
		return nil
	}
	return s.transact(ctx, func(t tx) error {
		// Setting a value to itself writes nothing in SQLite: change it,
		// then back, which writes its page as any write does.
		for _, q := range []string{`UPDATE store_version SET version = version + 1 WHERE id = 1`,
			`UPDATE store_version SET version = version - 1 WHERE id = 1`} {
			if _, err := t.exec(q); err != nil {
				return err
			}
		}
		return nil
	})
}
