package sqlstore

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/statusd/statusd"
)

// Write runs fn in one write transaction, bumps the version when it
// commits, and reads back what it wrote.
func (s *Store) Write(ctx context.Context, fn func(statusd.Tx) error) (statusd.Written, error) {
	var w statusd.Written
	err := s.transact(ctx, func(t tx) error {
		x := &sqlTx{t: t, signalReads: signalReads{t}, notices: map[int64]bool{}}
		if err := fn(x); err != nil {
			return err
		}
		if !x.page && !x.components && len(x.notices) == 0 {
			// Nothing public (the signals, an audit entry, an event):
			// no reader has anything to reload.
			var err error
			w, err = x.written()
			return err
		}
		if err := bumpVersion(t); err != nil {
			return err
		}
		var err error
		if w, err = x.written(); err != nil {
			return err
		}
		return x.recordChange(w.Version)
	})
	return w, err
}

// keptChanges is how many writes the changes table remembers, and
// followedNotices how many written notices Since gives at most: a follower
// further behind loads the whole page, which is then as quick.
const (
	keptChanges     = 256
	followedNotices = 256
)

// recordChange notes in the changes table what the write that made version
// wrote, and forgets the oldest.
func (t *sqlTx) recordChange(version int64) error {
	ids := make([]int64, 0, len(t.notices))
	for id := range t.notices {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	notices, err := json.Marshal(ids)
	if err != nil {
		return err
	}
	if _, err := t.t.exec(`INSERT INTO changes (version, page, components, notices) VALUES (?, ?, ?, ?)`,
		version, boolInt(t.page), boolInt(t.components), string(notices)); err != nil {
		return err
	}
	_, err = t.t.exec(`DELETE FROM changes WHERE version <= ?`, version-keptChanges)
	return err
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Since returns, as one Written, the current state of everything written
// after version, in one read transaction; false when it cannot tell: the
// writes are no longer remembered, a page was imported since, or they
// wrote more notices than following them would be worth.
func (s *Store) Since(ctx context.Context, version int64) (statusd.Written, bool, error) {
	var w statusd.Written
	ok := false
	err := s.read(ctx, func(t tx) error {
		if err := t.row(`SELECT version FROM store_version WHERE id = 1`).Scan(&w.Version); err != nil {
			return err
		}
		rows, err := t.query(`SELECT version, page, components, notices FROM changes WHERE version > ? ORDER BY version`, version)
		if err != nil {
			return err
		}
		defer rows.Close()
		var page, components bool
		ids := map[int64]bool{}
		next := version + 1
		for rows.Next() {
			var v int64
			var p, c int
			var notices string
			if err := rows.Scan(&v, &p, &c, &notices); err != nil {
				return err
			}
			if v != next {
				return nil // a write not remembered, or an import
			}
			next++
			var written []int64
			if err := json.Unmarshal([]byte(notices), &written); err != nil {
				return fmt.Errorf("changes of version %d: %w", v, err)
			}
			for _, id := range written {
				ids[id] = true
			}
			page, components = page || p == 1, components || c == 1
		}
		if err := rows.Err(); err != nil {
			return err
		}
		rows.Close()
		if next != w.Version+1 || len(ids) > followedNotices {
			return nil
		}
		if page {
			if w.Page, err = loadPage(t); err != nil {
				return err
			}
		}
		if w.ComponentsChanged = components; components {
			if w.Components, err = loadComponents(t); err != nil {
				return err
			}
		}
		w.Notices = map[int64]*statusd.Notice{}
		for id := range ids {
			w.Notices[id] = nil // deleted, unless loaded below
		}
		if len(ids) > 0 {
			notices, err := loadNotices(t, slices.Collect(maps.Keys(ids)))
			if err != nil {
				return err
			}
			for i := range notices {
				w.Notices[notices[i].ID] = &notices[i]
			}
		}
		ok = true
		return nil
	})
	if err != nil {
		return statusd.Written{}, false, unavailable(err)
	}
	return w, ok, nil
}

// sqlTx is a statusd.Tx on a database/sql transaction. It notes what is
// written, to read it back at the end.
type sqlTx struct {
	t tx
	signalReads
	page, components bool
	notices          map[int64]bool
}

// written reads back, inside the transaction, everything it wrote.
func (t *sqlTx) written() (statusd.Written, error) {
	w := statusd.Written{Notices: map[int64]*statusd.Notice{}, ComponentsChanged: t.components}
	if err := t.t.row(`SELECT version FROM store_version WHERE id = 1`).Scan(&w.Version); err != nil {
		return w, err
	}
	var err error
	if t.page {
		if w.Page, err = loadPage(t.t); err != nil {
			return w, err
		}
	}
	if t.components {
		if w.Components, err = loadComponents(t.t); err != nil {
			return w, err
		}
	}
	for id := range t.notices {
		if w.Notices[id], err = t.Notice(id); err != nil {
			return w, err
		}
	}
	return w, nil
}

func (t *sqlTx) Page() (*statusd.Page, error) {
	p, err := loadPage(t.t)
	if err == nil && p == nil {
		err = statusd.NoPage(statusd.ENotFound)
	}
	return p, err
}

func (t *sqlTx) PutPage(p *statusd.Page) error {
	t.page = true
	return putPage(t.t, p)
}

func (t *sqlTx) Components() ([]statusd.Component, error) { return loadComponents(t.t) }

func (t *sqlTx) PutComponent(c *statusd.Component) error {
	t.components = true
	return putComponent(t.t, c)
}

func (t *sqlTx) DeleteComponents(ids []int64) error {
	t.components = true
	// The notices that list them lose their links: they change too.
	listing, err := t.NoticesListing(ids)
	if err != nil {
		return err
	}
	for _, nid := range listing {
		t.notices[nid] = true
	}
	for _, id := range ids {
		if _, err := t.t.exec(`UPDATE components SET parent_id = NULL WHERE id = ?`, id); err != nil {
			return err
		}
	}
	for _, id := range ids {
		if _, err := t.t.exec(`DELETE FROM components WHERE id = ?`, id); err != nil {
			return err
		}
	}
	return nil
}

func (t *sqlTx) NoticesListing(componentIDs []int64) ([]int64, error) {
	listing := map[int64]bool{}
	for _, id := range componentIDs {
		rows, err := t.t.query(`SELECT notice_id FROM notice_components WHERE component_id = ?`, id)
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			var nid int64
			if err := rows.Scan(&nid); err != nil {
				rows.Close()
				return nil, err
			}
			listing[nid] = true
		}
		if err := errors.Join(rows.Err(), rows.Close()); err != nil {
			return nil, err
		}
	}
	return slices.Sorted(maps.Keys(listing)), nil
}

func (t *sqlTx) CurrentListing(componentIDs []int64) ([]statusd.Notice, error) {
	return t.listingIn(`'investigating', 'identified', 'underway'`, componentIDs)
}

func (t *sqlTx) OpenListing(componentIDs []int64) ([]statusd.Notice, error) {
	return t.listingIn(`'investigating', 'identified', 'recovering', 'underway'`, componentIDs)
}

// listingIn returns, with their updates, in id order, the notices that
// list any of the components and whose newest update is in one of states
// (an SQL list of literals).
func (t *sqlTx) listingIn(states string, componentIDs []int64) ([]statusd.Notice, error) {
	if len(componentIDs) == 0 {
		return nil, nil
	}
	rows, err := t.t.query(`SELECT n.id FROM notices n WHERE n.state IN (`+states+`)
		AND EXISTS (SELECT 1 FROM notice_components nc WHERE nc.notice_id = n.id AND nc.component_id`+t.t.d.inIDs+`)
		ORDER BY n.id`, idsJSON(componentIDs))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	ids := []int64{}
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	if err := errors.Join(rows.Err(), rows.Close()); err != nil {
		return nil, err
	}
	return loadNotices(t.t, ids)
}

func (t *sqlTx) Notice(id int64) (*statusd.Notice, error) {
	ns, err := loadNotices(t.t, []int64{id})
	if err != nil || len(ns) == 0 {
		return nil, err
	}
	return &ns[0], nil
}

func (t *sqlTx) PutNotice(n *statusd.Notice) error {
	t.notices[n.ID] = true
	if err := t.DeleteNotice(n.ID); err != nil {
		return err
	}
	w, err := newNoticeWriter(t.t)
	if err != nil {
		return err
	}
	defer w.close()
	return w.insert(n)
}

func (t *sqlTx) DeleteNotice(id int64) error {
	t.notices[id] = true
	for _, q := range []string{`DELETE FROM updates WHERE notice_id = ?`, `DELETE FROM notice_components WHERE notice_id = ?`,
		`DELETE FROM notices WHERE id = ?`} {
		if _, err := t.t.exec(q, id); err != nil {
			return err
		}
	}
	return nil
}

var idTables = map[string]bool{"components": true, "notices": true, "updates": true, "sources": true, "signals": true, "drafts": true}

func (t *sqlTx) NextID(kind string) (int64, error) { return t.NextIDs(kind, 1) }

func (t *sqlTx) NextIDs(kind string, n int) (int64, error) {
	if !idTables[kind] || n < 1 {
		return 0, fmt.Errorf("NextIDs: unknown kind %q, or %d ids", kind, n)
	}
	var largest, high int64
	if err := t.t.row(`SELECT COALESCE(MAX(id), 0) FROM ` + kind).Scan(&largest); err != nil {
		return 0, err
	}
	err := t.t.row(`SELECT high FROM id_high_water WHERE kind = ?`, kind).Scan(&high)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return 0, err
	}
	next := max(largest, high) + 1
	_, err = t.t.exec(`INSERT INTO id_high_water (kind, high) VALUES (?, ?)
		ON CONFLICT (kind) DO UPDATE SET high = excluded.high`, kind, next+int64(n)-1)
	return next, err
}

func (t *sqlTx) Audit(e statusd.AuditEntry) error { return audit(t.t, e) }

// Emit stores the event in the page write's transaction: the outbox.
func (t *sqlTx) Emit(e statusd.Event) error {
	_, err := emit(t.t, e)
	return err
}

// auditIf records e, unless it is nil.
func auditIf(t tx, e *statusd.AuditEntry) error {
	if e == nil {
		return nil
	}
	return audit(t, *e)
}

func audit(t tx, e statusd.AuditEntry) error {
	_, err := t.exec(`INSERT INTO audit (at, actor, action, target, detail) VALUES (?, ?, ?, ?, ?)`,
		ms(e.At), e.Actor, e.Action, e.Target, e.Detail)
	return err
}

// Audit returns a page of the audit log, newest first.
func (s *Store) Audit(ctx context.Context, page, perPage int) ([]statusd.AuditEntry, int, error) {
	q := listQuery{columns: `id, at, actor, action, target, detail`, from: `audit`, count: `audit`, order: `id DESC`}
	return paged(s, ctx, q, page, perPage, func(rows *sql.Rows) (statusd.AuditEntry, error) {
		var e statusd.AuditEntry
		var at int64
		err := rows.Scan(&e.ID, &at, &e.Actor, &e.Action, &e.Target, &e.Detail)
		e.At = fromMS(at)
		return e, err
	})
}

// Tokens returns the store's token keeper.
func (s *Store) Tokens() statusd.TokenStore { return tokenStore{s} }

type tokenStore struct{ s *Store }

func (ts tokenStore) Create(ctx context.Context, t statusd.Token, e *statusd.AuditEntry) error {
	return ts.s.transact(ctx, func(x tx) error {
		var n int
		if err := x.row(`SELECT count(*) FROM tokens WHERE name = ?`, t.Name).Scan(&n); err != nil {
			return err
		}
		if n > 0 {
			return statusd.Errorf(statusd.EConflict, "a token named %q exists; revoke it first or choose another name", t.Name)
		}
		if _, err := x.exec(`INSERT INTO tokens (name, hash, role, created_at) VALUES (?, ?, ?, ?)`,
			t.Name, t.Hash, cmp.Or(t.Role, statusd.Owner), ms(t.CreatedAt)); err != nil {
			return err
		}
		return auditIf(x, e)
	})
}

func (ts tokenStore) List(ctx context.Context) ([]statusd.Token, error) {
	var out []statusd.Token
	err := ts.s.read(ctx, func(x tx) error {
		rows, err := x.query(`SELECT name, hash, role, created_at, last_used FROM tokens ORDER BY name`)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var t statusd.Token
			var created int64
			var used sql.NullInt64
			if err := rows.Scan(&t.Name, &t.Hash, &t.Role, &created, &used); err != nil {
				return err
			}
			t.CreatedAt, t.LastUsed = fromMS(created), fromMSPtr(used)
			out = append(out, t)
		}
		return rows.Err()
	})
	return out, err
}

func (ts tokenStore) Revoke(ctx context.Context, name string, e *statusd.AuditEntry) error {
	return ts.s.transact(ctx, func(x tx) error {
		res, err := x.exec(`DELETE FROM tokens WHERE name = ?`, name)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			return errors.Join(err, statusd.Errorf(statusd.ENotFound, "no token named %q", name))
		}
		return auditIf(x, e)
	})
}

func (ts tokenStore) Lookup(ctx context.Context, hash []byte, now time.Time) (*statusd.Token, error) {
	var t statusd.Token
	var created int64
	var used sql.NullInt64
	err := ts.s.read(ctx, func(x tx) error {
		return x.row(`SELECT name, hash, role, created_at, last_used FROM tokens WHERE hash = ?`, hash).
			Scan(&t.Name, &t.Hash, &t.Role, &created, &used)
	})
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, unavailable(err)
	}
	t.CreatedAt, t.LastUsed = fromMS(created), fromMSPtr(used)
	// Recording the last use is worth a write at most once a minute, and
	// never the request's: it is written later (noteUse).
	if t.LastUsed == nil || now.Sub(*t.LastUsed) > time.Minute {
		ts.s.noteUse(t.Name, now)
	}
	return &t, nil
}
