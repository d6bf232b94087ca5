package sqlstore

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/statusd/statusd"
)

// TestFoldAddressesMigration: email subscribers stored before migrations 6 and 12
// whose addresses differ only in case become one, the one that hears most
// (active before pending before unsubscribed), with its deliveries; the
// others' deliveries and confirmation events go with them, and a request
// in any case finds the one kept.
func TestFoldAddressesMigration(t *testing.T) {
	// The database as migration 5 left it: Bob three times (1 pending, 2
	// active, 4 unsubscribed), a webhook, and Ann.
	migrateAgain(t, []string{
		`DROP INDEX subscribers_address_key`,
		`ALTER TABLE subscribers DROP COLUMN address_key`,
		`DELETE FROM schema_migrations WHERE version IN (6, 12)`,
		`INSERT INTO subscribers (id, channel, address, state, token, created_at, updated_at) VALUES
			(1, 'email', 'Bob@Example.com', 'pending', 't1', 0, 0),
			(2, 'email', 'bob@example.com', 'active', 't2', 0, 0),
			(3, 'webhook', 'https://Hooks.example.com/A', 'active', 't3', 0, 0),
			(4, 'email', 'BOB@EXAMPLE.COM', 'unsubscribed', 't4', 0, 0),
			(5, 'email', 'ann@example.com', 'active', 't5', 0, 0)`,
		`INSERT INTO events (id, kind, subscriber_id, created_at) VALUES (1, 'subscription.confirm', 1, 0), (2, 'notice.created', 0, 0)`,
		`INSERT INTO deliveries (event_id, subscriber_id, state, created_at) VALUES (1, 1, 'pending', 0), (2, 2, 'pending', 0),
			(2, 3, 'pending', 0), (2, 4, 'delivered', 0), (2, 5, 'pending', 0)`,
	}, func(t *testing.T, s *Store) {
		ctx := context.Background()
		ints := func(q string) []int64 {
			t.Helper()
			rows, err := s.db.QueryContext(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			defer rows.Close()
			var out []int64
			for rows.Next() {
				var v int64
				if err := rows.Scan(&v); err != nil {
					t.Fatal(err)
				}
				out = append(out, v)
			}
			return out
		}
		if got := ints(`SELECT id FROM subscribers ORDER BY id`); !slices.Equal(got, []int64{2, 3, 5}) {
			t.Errorf("subscribers %v, want [2 3 5]: Bob once, the active one", got)
		}
		if got := ints(`SELECT subscriber_id FROM deliveries ORDER BY subscriber_id`); !slices.Equal(got, []int64{2, 3, 5}) {
			t.Errorf("deliveries to %v, want [2 3 5]", got)
		}
		if got := ints(`SELECT id FROM events ORDER BY id`); !slices.Equal(got, []int64{2}) {
			t.Errorf("events %v, want [2]: the confirmation of the folded one gone", got)
		}
		var key string
		if err := s.db.QueryRowContext(ctx, `SELECT address_key FROM subscribers WHERE id = 2`).Scan(&key); err != nil || key != "bob@example.com" {
			t.Errorf("the key kept %q (%v), want bob@example.com", key, err)
		}
		ss := s.Subscribers()
		if err := ss.Request(ctx, "bOb@example.COM", nil, time.Now()); err != nil {
			t.Fatal(err)
		}
		if _, total, err := ss.List(ctx, statusd.SubscriberFilter{}, 1, 10); err != nil || total != 3 {
			t.Errorf("after a request: %d subscribers (%v), want still 3", total, err)
		}
	})
}

// TestNoticeStateMigration: notices stored before migration 13 get the
// state of their newest update (by seq, not by id or time), or none.
func TestNoticeStateMigration(t *testing.T) {
	// The database as migration 12 left it: notice 1 resolved after it
	// was investigated, 2 identified (its newest update, seq 1, has the
	// lower id), 3 a general notice without updates, 4 an update that
	// only adds words after investigating.
	migrateAgain(t, []string{
		`DROP INDEX notices_state`,
		`ALTER TABLE notices DROP COLUMN state`,
		`DELETE FROM schema_migrations WHERE version = 13`,
		`INSERT INTO notices (id, type, subject, created_at, updated_at) VALUES
			(1, 'unplanned', 'a', 0, 0), (2, 'unplanned', 'b', 0, 0), (3, 'general', 'c', 0, 0), (4, 'unplanned', 'd', 0, 0)`,
		`INSERT INTO updates (id, notice_id, seq, state, content, created_at, updated_at) VALUES
			(10, 1, 0, 'investigating', 'x', 0, 0), (11, 1, 1, 'resolved', 'x', 0, 0),
			(21, 2, 0, 'investigating', 'x', 0, 0), (20, 2, 1, 'identified', 'x', 0, 0),
			(40, 4, 0, 'investigating', 'x', 0, 0), (41, 4, 1, NULL, 'x', 0, 0)`,
	}, func(t *testing.T, s *Store) {
		rows, err := s.db.QueryContext(context.Background(), `SELECT id, COALESCE(state, '-') FROM notices ORDER BY id`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var got []string
		for rows.Next() {
			var id int64
			var state string
			if err := rows.Scan(&id, &state); err != nil {
				t.Fatal(err)
			}
			got = append(got, fmt.Sprint(id, state))
		}
		if want := []string{"1resolved", "2identified", "3-", "4-"}; !slices.Equal(got, want) {
			t.Errorf("notices' states %v, want %v", got, want)
		}
	})
}

// TestComponentKeyAndTokenRoleMigration: components stored before
// migration 14 have no key, and tokens act as owners, as every token did;
// after it, keys are unique but any number of components has none.
func TestComponentKeyAndTokenRoleMigration(t *testing.T) {
	// The database as migration 13 left it: two components, a token.
	migrateAgain(t, []string{
		`DROP INDEX components_key`,
		`ALTER TABLE components DROP COLUMN key`,
		`ALTER TABLE tokens DROP COLUMN role`,
		`DELETE FROM schema_migrations WHERE version = 14`,
		`INSERT INTO page (id, name, url, created_at, updated_at) VALUES (1, 'Acme', 'https://status.acme.test', 0, 0)`,
		`INSERT INTO components (id, position, name, created_at, updated_at) VALUES (1, 1, 'API', 0, 0), (2, 2, 'DB', 0, 0)`,
		`INSERT INTO tokens (name, hash, created_at) VALUES ('ci', 'h', 0)`,
	}, func(t *testing.T, s *Store) {
		ctx := context.Background()
		doc, _, err := s.Load(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(doc.Components) != 2 || doc.Components[0].Key != "" || doc.Components[1].Key != "" {
			t.Errorf("components %+v, want 1 and 2 without keys", doc.Components)
		}
		if list, err := s.Tokens().List(ctx); err != nil || len(list) != 1 || list[0].Role != statusd.Owner {
			t.Errorf("tokens %+v, %v; want ci, an owner", list, err)
		}
		if _, err := s.wdb.ExecContext(ctx, `UPDATE components SET key = 'api' WHERE id = 1`); err != nil {
			t.Fatal(err)
		}
		if _, err := s.wdb.ExecContext(ctx, `UPDATE components SET key = 'api' WHERE id = 2`); err == nil {
			t.Error("two components got the key api")
		}
	})
}
