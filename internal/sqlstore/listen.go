package sqlstore

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
)

// Changes announces committed writes on PostgreSQL through LISTEN/NOTIFY on
// a connection of its own, made again after it is lost. SQLite has no such
// announcements: it returns nil.
func (s *Store) Changes(ctx context.Context) <-chan struct{} {
	if s.d != postgresDialect {
		return nil
	}
	ch := make(chan struct{}, 1)
	signal := func() {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
	go func() {
		for ctx.Err() == nil {
			conn, err := pgx.Connect(ctx, s.dsn)
			if err == nil {
				if _, err = conn.Exec(ctx, "LISTEN "+notifyChannel); err == nil {
					signal() // writes may have been missed while not listening
				}
				for err == nil {
					if _, err = conn.WaitForNotification(ctx); err == nil {
						signal()
					}
				}
				conn.Close(context.Background())
			}
			select {
			case <-ctx.Done():
			case <-time.After(time.Second):
			}
		}
	}()
	return ch
}
