package sqlstore

// The sources, signals and drafts of CONTRACT C9: read in a read
// transaction (Signals) or a write's (sqlTx embeds signalReads), written
// in a write's. Each row keeps the columns that queries select on and the
// rest of the object as JSON (doc): the domain type itself, so a field
// added there is kept without a migration.

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/statusd/statusd"
)

// Signals reads the sources, signals and drafts.
func (s *Store) Signals() statusd.SignalStore { return signalStore{s} }

type signalStore struct{ s *Store }

func (ss signalStore) Read(ctx context.Context, fn func(statusd.SignalReads) error) error {
	return ss.s.read(ctx, func(t tx) error { return fn(signalReads{t}) })
}

// signalReads reads the sources, signals and drafts in a transaction.
type signalReads struct{ t tx }

// docs runs q and decodes the doc column of each row into a new T.
func docs[T any](t tx, q string, args ...any) ([]T, error) {
	rows, err := t.query(q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []T
	for rows.Next() {
		var doc string
		if err := rows.Scan(&doc); err != nil {
			return nil, err
		}
		var v T
		if err := json.Unmarshal([]byte(doc), &v); err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

// one is docs for a query of one row at most: nil when there is none.
func one[T any](t tx, q string, args ...any) (*T, error) {
	list, err := docs[T](t, q, args...)
	if err != nil || len(list) == 0 {
		return nil, err
	}
	return &list[0], nil
}

func (r signalReads) Sources() ([]statusd.Source, error) {
	return docs[statusd.Source](r.t, `SELECT doc FROM sources ORDER BY id`)
}

func (r signalReads) Source(id int64) (*statusd.Source, error) {
	return one[statusd.Source](r.t, `SELECT doc FROM sources WHERE id = ?`, id)
}

func (r signalReads) Signals(f statusd.SignalFilter) ([]statusd.Signal, error) {
	where, args := signalWhere(r.t.d, f)
	return docs[statusd.Signal](r.t, `SELECT doc FROM signals`+where+` ORDER BY id`, args...)
}

func (r signalReads) SignalCount(f statusd.SignalFilter) (int, error) {
	where, args := signalWhere(r.t.d, f)
	var n int
	err := r.t.row(`SELECT count(*) FROM signals`+where, args...).Scan(&n)
	return n, err
}

// signalWhere is the WHERE clause (with its leading space; "" for none)
// of the signals f selects, and its arguments, in dialect d.
func signalWhere(d *dialect, f statusd.SignalFilter) (string, []any) {
	var conds []string
	var args []any
	where := func(cond string, arg any) { conds, args = append(conds, cond), append(args, arg) }
	if f.SourceID != 0 {
		where("source_id = ?", f.SourceID)
	}
	if f.Status != "" {
		where("status = ?", f.Status)
	}
	if f.Unmapped {
		where("unmapped = ?", 1)
	}
	if f.DraftID != 0 {
		where("draft_id = ?", f.DraftID)
	}
	if f.NoticeID != 0 {
		where("notice_id = ?", f.NoticeID)
	}
	if !f.HeldBy.IsZero() {
		where("held_until <= ?", ms(f.HeldBy))
	}
	if f.Keys != nil {
		keys, _ := json.Marshal(f.Keys)
		where("key"+d.inTexts, string(keys))
	}
	if len(conds) == 0 {
		return "", nil
	}
	return ` WHERE ` + strings.Join(conds, " AND "), args
}

func (r signalReads) Drafts(state string) ([]statusd.Draft, error) {
	if state == "" {
		return docs[statusd.Draft](r.t, `SELECT doc FROM drafts ORDER BY id`)
	}
	return docs[statusd.Draft](r.t, `SELECT doc FROM drafts WHERE state = ? ORDER BY id`, state)
}

func (r signalReads) DueDrafts(by time.Time) ([]statusd.Draft, error) {
	return docs[statusd.Draft](r.t, `SELECT doc FROM drafts WHERE state = ? AND publish_at <= ? ORDER BY id`, statusd.DraftOpen, ms(by))
}

func (r signalReads) Draft(id int64) (*statusd.Draft, error) {
	return one[statusd.Draft](r.t, `SELECT doc FROM drafts WHERE id = ?`, id)
}

// put inserts or replaces the row of table with id: its columns (names
// and values, in order) and v as its doc.
func put(t tx, table string, id int64, names []string, values []any, v any) error {
	return putRows(t, table, names, []row{{id, values, v}})
}

// row is a row that putRows writes: its id, its columns' values, and the
// object that is its doc.
type row struct {
	id     int64
	values []any
	doc    any
}

// putRows inserts or replaces rows of table in one statement: each with
// its id, the columns names (in order) and its doc. No two rows may have
// one id.
func putRows(t tx, table string, names []string, rows []row) error {
	if len(rows) == 0 {
		return nil
	}
	cols := slices.Concat([]string{"id"}, names, []string{"doc"})
	sets := make([]string, 0, len(cols)-1)
	for _, c := range cols[1:] {
		sets = append(sets, c+" = excluded."+c)
	}
	one := "(?" + strings.Repeat(", ?", len(cols)-1) + ")"
	args := make([]any, 0, len(rows)*len(cols))
	for _, r := range rows {
		doc, err := json.Marshal(r.doc)
		if err != nil {
			return err
		}
		args = append(append(append(args, r.id), r.values...), string(doc))
	}
	q := `INSERT INTO ` + table + ` (` + strings.Join(cols, ", ") + `) VALUES ` + one + strings.Repeat(", "+one, len(rows)-1) +
		` ON CONFLICT (id) DO UPDATE SET ` + strings.Join(sets, ", ")
	_, err := t.exec(q, args...)
	return err
}

func (t *sqlTx) PutSource(s *statusd.Source) error {
	var other int64
	err := t.t.row(`SELECT id FROM sources WHERE name = ? AND id <> ?`, s.Name, s.ID).Scan(&other)
	if err == nil {
		return statusd.Errorf(statusd.EConflict, "source %d is named %q; names are unique", other, s.Name)
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return err
	}
	return put(t.t, "sources", s.ID, []string{"name", "token_hash"}, []any{s.Name, s.TokenHash}, s)
}

func (t *sqlTx) DeleteSource(id int64) error {
	_, err := t.t.exec(`DELETE FROM sources WHERE id = ?`, id)
	return err
}

func (t *sqlTx) PutSignals(list ...*statusd.Signal) error {
	rows := make([]row, len(list))
	for i, s := range list {
		rows[i] = row{s.ID, []any{s.SourceID, s.Key, s.Status, boolInt(len(s.ComponentIDs) == 0), s.DraftID, s.NoticeID, msPtr(s.HeldUntil)}, s}
	}
	return putRows(t.t, "signals", []string{"source_id", "key", "status", "unmapped", "draft_id", "notice_id", "held_until"}, rows)
}

func (t *sqlTx) PutDraft(d *statusd.Draft) error {
	return put(t.t, "drafts", d.ID, []string{"state", "publish_at"}, []any{d.State, msPtr(d.PublishAt)}, d)
}

// insertSources replaces every source with those of an imported
// document; the signals of the old ones go with them, their drafts stay.
func insertSources(t tx, sources []statusd.Source) error {
	if _, err := t.exec(`DELETE FROM sources`); err != nil {
		return err
	}
	for i := range sources {
		s := &sources[i]
		if err := put(t, "sources", s.ID, []string{"name", "token_hash"}, []any{s.Name, s.TokenHash}, s); err != nil {
			return err
		}
	}
	return nil
}
