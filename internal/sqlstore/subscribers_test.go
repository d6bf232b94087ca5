package sqlstore

import (
	"context"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/internal/testenv"
)

// TestAddressKeyMigration: email addresses stored before migration 6 that
// differ only in case stay apart (the later ones' keys take their id),
// and a request in any case finds the first; a URL's key is the URL.
func TestAddressKeyMigration(t *testing.T) {
	// The database as migration 5 left it, with four subscribers.
	migrateAgain(t, []string{
		`DROP INDEX subscribers_address_key`,
		`ALTER TABLE subscribers DROP COLUMN address_key`,
		`DELETE FROM schema_migrations WHERE version = 6`,
		`INSERT INTO subscribers (id, channel, address, state, token, created_at, updated_at) VALUES
					(1, 'email', 'Bob@Example.com', 'active', 't1', 0, 0),
					(2, 'email', 'bob@example.com', 'active', 't2', 0, 0),
					(3, 'webhook', 'https://Hooks.example.com/A', 'active', 't3', 0, 0),
					(4, 'email', 'BOB@EXAMPLE.COM', 'active', 't4', 0, 0)`,
	}, func(t *testing.T, s *Store) {
		ctx := context.Background()
		for id, want := range map[int]string{1: "bob@example.com", 2: "bob@example.com #2", 3: "https://Hooks.example.com/A", 4: "bob@example.com #4"} {
			var key string
			if err := s.db.QueryRowContext(ctx, `SELECT address_key FROM subscribers WHERE id = `+strconv.Itoa(id)).Scan(&key); err != nil || key != want {
				t.Errorf("subscriber %d's key %q (%v), want %q", id, key, err, want)
			}
		}
		ss := s.Subscribers()
		if err := ss.Request(ctx, "bOb@example.COM", nil, time.Now()); err != nil {
			t.Fatal(err)
		}
		if _, total, err := ss.List(ctx, statusd.SubscriberFilter{}, 1, 10); err != nil || total != 4 {
			t.Errorf("after a request: %d subscribers (%v), want still 4", total, err)
		}
		// A subscriber left apart can still be changed, its address
		// as it is (an unsubscription, say).
		if _, err := ss.Change(ctx, 2, func(s *statusd.Subscriber) error {
			s.State = statusd.SubscriberUnsubscribed
			return nil
		}, nil); err != nil {
			t.Errorf("unsubscribing subscriber 2: %v", err)
		}
	})
}

// migrateAgain puts a new database, on SQLite and on PostgreSQL, back as
// it was before a migration, with statements (that undo it, then add
// rows), opens it again, which migrates it, and runs test on it.
func migrateAgain(t *testing.T, statements []string, test func(t *testing.T, s *Store)) {
	for name, target := range map[string]func(t *testing.T) string{
		"sqlite":   func(t *testing.T) string { return filepath.Join(t.TempDir(), "again.db") },
		"postgres": func(t *testing.T) string { return testenv.Postgres(t) },
	} {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			target := target(t)
			s, err := Open(ctx, target)
			if err != nil {
				t.Fatal(err)
			}
			for _, q := range statements {
				if _, err := s.wdb.ExecContext(ctx, q); err != nil {
					t.Fatalf("%s: %v", q, err)
				}
			}
			s.Close()
			if s, err = Open(ctx, target); err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			test(t, s)
		})
	}
}
