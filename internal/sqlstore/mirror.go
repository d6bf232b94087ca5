package sqlstore

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"database/sql"
	"encoding/json"
	"errors"
	"time"

	"github.com/statusd/statusd"
)

// Mirror returns the store's keeper of the mirror's key and destinations
// (CONTRACT C10). Its transactions leave the page alone: no page writer's
// lock, no version change.
func (s *Store) Mirror() statusd.MirrorStore { return mirrorStore{s} }

type mirrorStore struct{ s *Store }

var _ statusd.MirrorStore = mirrorStore{}

// keepPushes is how many lines of the mirror's log are kept.
const keepPushes = 1000

func (m mirrorStore) SigningKey(ctx context.Context, now time.Time, rotate bool) (ed25519.PrivateKey, error) {
	var seed []byte
	err := m.s.outbox(ctx, func(t tx) error {
		err := t.row(`SELECT seed FROM mirror_keys ORDER BY id DESC LIMIT 1`).Scan(&seed)
		switch {
		case err == nil && !rotate:
			return nil
		case err != nil && !errors.Is(err, sql.ErrNoRows):
			return err
		}
		seed = make([]byte, ed25519.SeedSize)
		rand.Read(seed)
		_, err = t.exec(`INSERT INTO mirror_keys (seed, created_at) VALUES (?, ?)`, seed, ms(now))
		return err
	})
	if err != nil {
		return nil, err
	}
	return ed25519.NewKeyFromSeed(seed), nil
}

const mirrorColumns = `url, sequence, last_success_at, last_attempt_at, failures, last_error, next_attempt_at, stale`

type mirrorRow struct {
	s                statusd.MirrorState
	success, attempt sql.NullInt64
	next             int64
	stale            string
}

func (r *mirrorRow) dest() []any {
	return []any{&r.s.URL, &r.s.Sequence, &r.success, &r.attempt, &r.s.Failures, &r.s.LastError, &r.next, &r.stale}
}

func (r *mirrorRow) value() (statusd.MirrorState, error) {
	s := r.s
	s.LastSuccessAt, s.LastAttemptAt = fromMSPtr(r.success), fromMSPtr(r.attempt)
	if r.next != 0 {
		s.NextAttemptAt = fromMS(r.next)
	}
	return s, json.Unmarshal([]byte(r.stale), &s.Stale)
}

func (m mirrorStore) Claim(ctx context.Context, url, holder string, now time.Time, lease time.Duration) (*statusd.MirrorState, error) {
	var got *statusd.MirrorState
	err := m.s.outbox(ctx, func(t tx) error {
		if _, err := t.exec(`INSERT INTO mirror_destinations (url) VALUES (?) ON CONFLICT (url) DO NOTHING`, url); err != nil {
			return err
		}
		res, err := t.exec(`UPDATE mirror_destinations SET holder = ?, lease_until = ? WHERE url = ? AND (holder = ? OR lease_until < ?)`,
			holder, ms(now.Add(lease)), url, holder, ms(now))
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			return err
		}
		got, err = scanOne(t.row(`SELECT `+mirrorColumns+` FROM mirror_destinations WHERE url = ?`, url), &mirrorRow{})
		return err
	})
	return got, err
}

// staleJSON is the stale column of keys: a JSON list, [] for none.
func staleJSON(keys []string) (string, error) {
	if keys == nil {
		keys = []string{}
	}
	b, err := json.Marshal(keys)
	return string(b), err
}

func (m mirrorStore) Remember(ctx context.Context, url string, keys []string) error {
	stale, err := staleJSON(keys)
	if err != nil {
		return err
	}
	return m.s.outbox(ctx, func(t tx) error {
		_, err := t.exec(`UPDATE mirror_destinations SET stale = ? WHERE url = ?`, stale, url)
		return err
	})
}

func (m mirrorStore) Record(ctx context.Context, p statusd.MirrorPush) (*statusd.MirrorState, error) {
	var got statusd.MirrorState
	err := m.s.outbox(ctx, func(t tx) error {
		if _, err := t.exec(`INSERT INTO mirror_destinations (url) VALUES (?) ON CONFLICT (url) DO NOTHING`, p.URL); err != nil {
			return err
		}
		cur, err := scanOne(t.row(`SELECT `+mirrorColumns+` FROM mirror_destinations WHERE url = ?`, p.URL), &mirrorRow{})
		if err != nil {
			return err
		}
		got = cur.After(p)
		var next int64
		if !got.NextAttemptAt.IsZero() {
			next = ms(got.NextAttemptAt)
		}
		stale, err := staleJSON(got.Stale)
		if err != nil {
			return err
		}
		if _, err := t.exec(`UPDATE mirror_destinations SET sequence = ?, last_success_at = ?, last_attempt_at = ?, failures = ?,
			last_error = ?, next_attempt_at = ?, stale = ? WHERE url = ?`,
			got.Sequence, msPtr(got.LastSuccessAt), msPtr(got.LastAttemptAt), got.Failures, got.LastError, next, stale, p.URL); err != nil {
			return err
		}
		if _, err := t.exec(`INSERT INTO mirror_pushes (url, sequence, started_at, finished_at, error, files_put, bytes_put, files_deleted)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, p.URL, p.Sequence, ms(p.StartedAt), ms(p.FinishedAt), p.Error, p.FilesPut, p.BytesPut, p.FilesDeleted); err != nil {
			return err
		}
		_, err = t.exec(`DELETE FROM mirror_pushes WHERE id <= (SELECT max(id) FROM mirror_pushes) - ?`, keepPushes)
		return err
	})
	return &got, err
}

func (m mirrorStore) States(ctx context.Context) ([]statusd.MirrorState, error) {
	var out []statusd.MirrorState
	err := m.s.read(ctx, func(t tx) error {
		return eachRow(t, func(rows *sql.Rows) error {
			var r mirrorRow
			if err := rows.Scan(r.dest()...); err != nil {
				return err
			}
			s, _ := r.value()
			out = append(out, s)
			return nil
		}, `SELECT `+mirrorColumns+` FROM mirror_destinations ORDER BY url`)
	})
	return out, err
}

func (m mirrorStore) Pushes(ctx context.Context, limit int) ([]statusd.MirrorPush, error) {
	var out []statusd.MirrorPush
	err := m.s.read(ctx, func(t tx) error {
		return eachRow(t, func(rows *sql.Rows) error {
			var p statusd.MirrorPush
			var started, finished int64
			if err := rows.Scan(&p.URL, &p.Sequence, &started, &finished, &p.Error, &p.FilesPut, &p.BytesPut, &p.FilesDeleted); err != nil {
				return err
			}
			p.StartedAt, p.FinishedAt = fromMS(started), fromMS(finished)
			out = append(out, p)
			return nil
		}, `SELECT url, sequence, started_at, finished_at, error, files_put, bytes_put, files_deleted
			FROM mirror_pushes ORDER BY id DESC LIMIT ?`, limit)
	})
	return out, err
}
