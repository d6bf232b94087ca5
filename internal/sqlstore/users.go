package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/statusd/statusd"
)

// Users returns the store's keeper of the console's users, setup links and
// sessions (CONTRACT C8). Like the subscribers, its transactions leave the
// page alone: no page writer's lock, no version change.
func (s *Store) Users() statusd.UserStore { return userStore{s} }

type userStore struct{ s *Store }

var _ statusd.UserStore = userStore{}

// userColumns are a user's columns, for userRow.
const userColumns = `u.id, u.email, u.role, u.password_hash, u.created_at, u.updated_at`

// userRow holds the scan of userColumns.
type userRow struct {
	u                statusd.User
	role             string
	created, updated int64
}

func (r *userRow) dest() []any {
	return []any{&r.u.ID, &r.u.Email, &r.role, &r.u.PasswordHash, &r.created, &r.updated}
}

func (r *userRow) value() (statusd.User, error) {
	u := r.u
	u.Role, u.CreatedAt, u.UpdatedAt = statusd.Role(r.role), fromMS(r.created), fromMS(r.updated)
	return u, nil
}

// getUser returns the one user the condition (on u.) chooses, or nil.
func getUser(t tx, cond string, args ...any) (*statusd.User, error) {
	return scanOne(t.row(`SELECT `+userColumns+` FROM users u WHERE `+cond, args...), &userRow{})
}

func noUser(id int64) error { return statusd.Errorf(statusd.ENotFound, "no user has id %d", id) }

// noSetup is the answer to a setup link that is not valid.
var noSetup = statusd.Errorf(statusd.ENotFound, "this setup link is not valid (any more); ask an owner for a new one (statusd user reset)")

// putSetup replaces the setup link of a user.
func putSetup(t tx, userID int64, setup []byte, expires time.Time) error {
	if _, err := t.exec(`DELETE FROM user_setups WHERE user_id = ?`, userID); err != nil {
		return err
	}
	_, err := t.exec(`INSERT INTO user_setups (hash, user_id, expires_at) VALUES (?, ?, ?)`, setup, userID, ms(expires))
	return err
}

func (us userStore) Add(ctx context.Context, u *statusd.User, setup []byte, expires time.Time, e *statusd.AuditEntry) error {
	return us.s.outbox(ctx, func(t tx) error {
		var id int64
		err := t.row(`INSERT INTO users (email, role, password_hash, created_at, updated_at) VALUES (?, ?, ?, ?, ?)
			ON CONFLICT (email) DO NOTHING RETURNING id`,
			u.Email, string(u.Role), u.PasswordHash, ms(u.CreatedAt), ms(u.UpdatedAt)).Scan(&id)
		if errors.Is(err, sql.ErrNoRows) {
			return statusd.Errorf(statusd.EConflict, "a user with the email %s exists", u.Email)
		}
		if err != nil {
			return err
		}
		u.ID = id
		if setup != nil {
			if err := putSetup(t, id, setup, expires); err != nil {
				return err
			}
		}
		if e == nil {
			return nil
		}
		entry := *e
		if entry.Target == "" {
			entry.Target = fmt.Sprintf("user %d", id)
		}
		return audit(t, entry)
	})
}

func (us userStore) Get(ctx context.Context, id int64) (*statusd.User, error) {
	return readOne(us.s, ctx, noUser(id), func(t tx) (*statusd.User, error) { return getUser(t, `u.id = ?`, id) })
}

func (us userStore) ByEmail(ctx context.Context, email string) (*statusd.User, error) {
	return readOne(us.s, ctx, nil, func(t tx) (*statusd.User, error) { return getUser(t, `u.email = ?`, email) })
}

func (us userStore) List(ctx context.Context) ([]statusd.User, error) {
	var out []statusd.User
	err := us.s.read(ctx, func(t tx) error {
		rows, err := t.query(`SELECT ` + userColumns + ` FROM users u ORDER BY u.id`)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			u, err := scanRow(rows, &userRow{})
			if err != nil {
				return err
			}
			out = append(out, u)
		}
		return rows.Err()
	})
	return out, unavailable(err)
}

// userExists fails with noUser unless the user is there.
func userExists(t tx, id int64) error {
	u, err := getUser(t, `u.id = ?`, id)
	if err == nil && u == nil {
		return noUser(id)
	}
	return err
}

func (us userStore) Delete(ctx context.Context, id int64, e statusd.AuditEntry) error {
	return us.s.outbox(ctx, func(t tx) error {
		if err := userExists(t, id); err != nil {
			return err
		}
		for _, q := range []string{`DELETE FROM sessions WHERE user_id = ?`, `DELETE FROM user_setups WHERE user_id = ?`,
			`DELETE FROM users WHERE id = ?`} {
			if _, err := t.exec(q, id); err != nil {
				return err
			}
		}
		return audit(t, e)
	})
}

func (us userStore) Reset(ctx context.Context, id int64, setup []byte, expires time.Time, e statusd.AuditEntry) (*statusd.User, error) {
	var out *statusd.User
	err := us.s.outbox(ctx, func(t tx) error {
		if err := userExists(t, id); err != nil {
			return err
		}
		if _, err := t.exec(`DELETE FROM sessions WHERE user_id = ?`, id); err != nil {
			return err
		}
		if _, err := t.exec(`UPDATE users SET password_hash = '', updated_at = ? WHERE id = ?`, ms(e.At), id); err != nil {
			return err
		}
		if err := putSetup(t, id, setup, expires); err != nil {
			return err
		}
		var err error
		out, err = getUser(t, `u.id = ?`, id)
		if err != nil {
			return err
		}
		return audit(t, e)
	})
	return out, err
}

// setupCond chooses the user of an unexpired setup link.
const setupCond = `u.id = (SELECT user_id FROM user_setups WHERE hash = ? AND expires_at > ?)`

func (us userStore) SetupUser(ctx context.Context, setup []byte, now time.Time) (*statusd.User, error) {
	return readOne(us.s, ctx, noSetup, func(t tx) (*statusd.User, error) { return getUser(t, setupCond, setup, ms(now)) })
}

func (us userStore) Setup(ctx context.Context, setup []byte, passwordHash string, now time.Time) (*statusd.User, error) {
	var out *statusd.User
	err := us.s.outbox(ctx, func(t tx) error {
		u, err := getUser(t, setupCond, setup, ms(now))
		if err != nil {
			return err
		}
		if u == nil {
			return noSetup
		}
		if _, err := t.exec(`DELETE FROM user_setups WHERE user_id = ?`, u.ID); err != nil {
			return err
		}
		if _, err := t.exec(`UPDATE users SET password_hash = ?, updated_at = ? WHERE id = ?`, passwordHash, ms(now), u.ID); err != nil {
			return err
		}
		u.PasswordHash, u.UpdatedAt = passwordHash, fromMS(ms(now))
		out = u
		return audit(t, statusd.AuditEntry{At: now, Actor: u.Email, Action: "user.setup", Target: fmt.Sprintf("user %d", u.ID),
			Detail: "set a password"})
	})
	return out, err
}

// StartSession also removes the sessions that have ended by being idle,
// so that the table holds only live ones and a few more.
func (us userStore) StartSession(ctx context.Context, userID int64, session []byte, now time.Time) error {
	return us.s.outbox(ctx, func(t tx) error {
		if _, err := t.exec(`DELETE FROM sessions WHERE last_seen <= ?`, ms(now.Add(-statusd.SessionIdle))); err != nil {
			return err
		}
		_, err := t.exec(`INSERT INTO sessions (hash, user_id, created_at, last_seen) VALUES (?, ?, ?, ?)`,
			session, userID, ms(now), ms(now))
		return err
	})
}

// seenEvery is how stale a session's last_seen may be before a request
// writes it again.
const seenEvery = time.Minute

func (us userStore) Session(ctx context.Context, session []byte, now time.Time) (*statusd.User, error) {
	var u *statusd.User
	var seen int64
	err := us.s.read(ctx, func(t tx) error {
		row := &userRow{}
		err := t.row(`SELECT `+userColumns+`, s.last_seen FROM sessions s JOIN users u ON u.id = s.user_id
			WHERE s.hash = ? AND s.last_seen > ?`, session, ms(now.Add(-statusd.SessionIdle))).Scan(append(row.dest(), &seen)...)
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		if err != nil {
			return err
		}
		v, err := row.value()
		u = &v
		return err
	})
	if err != nil || u == nil {
		return nil, unavailable(err)
	}
	if now.Sub(fromMS(seen)) >= seenEvery {
		// Best effort: a disk that is full or read-only refuses writes,
		// not the reads of a person signed in. The session lasts from
		// its last use written, and a later request writes it again.
		err = us.s.outbox(ctx, func(t tx) error {
			_, err := t.exec(`UPDATE sessions SET last_seen = ? WHERE hash = ?`, ms(now), session)
			return err
		})
		if err != nil {
			us.s.log.Warn("a console session's last use was not written; a later request will write it", "err", err)
		}
	}
	return u, nil
}

func (us userStore) EndSession(ctx context.Context, session []byte) error {
	return us.s.outbox(ctx, func(t tx) error {
		_, err := t.exec(`DELETE FROM sessions WHERE hash = ?`, session)
		return err
	})
}
