package sqlstore

import (
	"errors"
	"fmt"
	"net"
	"testing"

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
