package sqlstore

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/statusd/statusd"
)

// TestClassifyPostgres checks the PostgreSQL faults that the black-box
// tests of cmd/statusd cannot make for real (a full disk under a running
// PostgreSQL, an I/O error): each is a 503 that says which, and an error
// that is no fault of the storage stays what it was.
func TestClassifyPostgres(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want *statusd.Error
	}{
		{&pgconn.PgError{Code: "53100", Message: "could not extend file: No space left on device"}, errDiskFull},
		{&pgconn.PgError{Code: "25006", Message: "cannot execute INSERT in a read-only transaction"}, errReadOnly},
		{&pgconn.PgError{Code: "58030", Message: "could not read block"}, errStorage},
		{&pgconn.PgError{Code: "57P01", Message: "terminating connection due to administrator command"}, errUnreachable},
		{&pgconn.PgError{Code: "08006", Message: "connection failure"}, errUnreachable},
		{&net.OpError{Op: "dial", Net: "tcp", Err: errors.New("connection refused")}, errUnreachable},
		{&pgconn.PgError{Code: "23505", Message: "duplicate key value violates unique constraint"}, nil},
		{&pgconn.PgError{Code: "42P01", Message: "relation does not exist"}, nil},
		{errors.New("a bug"), nil},
	} {
		wrapped := fmt.Errorf("insert: %w", tc.err)
		if got := classify(wrapped); got != tc.want {
			t.Errorf("classify(%v) = %v, want %v", tc.err, got, tc.want)
		}
		got := wrapFault(wrapped, nil)
		switch {
		case tc.want == nil && got != wrapped:
			t.Errorf("wrapFault(%v) = %v, want it unchanged", tc.err, got)
		case tc.want != nil && (statusd.ErrorStatus(statusd.ErrorCode(got)) != 503 || statusd.ErrorMessage(got) != tc.want.Message ||
			!errors.Is(got, tc.err)):
			t.Errorf("wrapFault(%v) = %v, want 503 %q wrapping the error", tc.err, got, tc.want.Message)
		}
	}
}

// TestReadsKeepTheFile replaces the SQLite file under an open store (as a
// restore script might): writes are refused, and reads go on seeing the
// file the store opened, even when each read needs a new connection,
// which would open the other file.
func TestReadsKeepTheFile(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "statusd.db")
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	hash := []byte("the token's hash")
	if err := s.Tokens().Create(ctx, statusd.Token{Name: "ops", Hash: hash, CreatedAt: time.Now()}, nil); err != nil {
		t.Fatal(err)
	}
	// What the store wrote is in the file, not only in its WAL, which a
	// new connection would read on top of the other file.
	if _, err := s.wdb.ExecContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
		t.Fatal(err)
	}
	other, err := Open(ctx, filepath.Join(dir, "other.db"))
	if err != nil {
		t.Fatal(err)
	}
	other.Close()
	if err := os.Rename(filepath.Join(dir, "other.db"), path); err != nil {
		t.Fatal(err)
	}
	s.db.SetMaxIdleConns(0) // every read of the pool opens the path anew
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			tok, err := s.Tokens().Lookup(ctx, hash, time.Now())
			if err != nil || tok == nil || tok.Name != "ops" {
				t.Errorf("Lookup after the file was replaced: %v, %v; want the token ops", tok, err)
			}
		})
	}
	wg.Wait()
	if toks, err := s.Tokens().List(ctx); err != nil || len(toks) != 1 {
		t.Errorf("List after the file was replaced: %v, %v; want one token", toks, err)
	}
	err = s.Tokens().Create(ctx, statusd.Token{Name: "later", Hash: []byte("another"), CreatedAt: time.Now()}, nil)
	if statusd.ErrorCode(err) != statusd.EUnavailable {
		t.Errorf("a write after the file was replaced: %v, want unavailable", err)
	}
}
