package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"

	"github.com/statusd/statusd"
)

// Load reads the whole page in one read transaction, so that it is
// consistent with the version it returns.
func (s *Store) Load(ctx context.Context) (*statusd.Document, int64, error) {
	tx, err := s.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, 0, err
	}
	defer tx.Rollback()
	var version int64
	if err := tx.QueryRowContext(ctx, `SELECT version FROM store_version WHERE id = 1`).Scan(&version); err != nil {
		return nil, 0, err
	}
	doc := &statusd.Document{}
	p := &doc.Page
	var created, updated int64
	err = tx.QueryRowContext(ctx, `SELECT name, url, text_operational, text_degraded, text_under_maintenance,
		created_at, updated_at FROM page WHERE id = 1`).Scan(&p.Name, &p.URL, &p.StateTexts.Operational,
		&p.StateTexts.Degraded, &p.StateTexts.UnderMaintenance, &created, &updated)
	if err == sql.ErrNoRows {
		return nil, version, nil
	}
	if err != nil {
		return nil, 0, err
	}
	p.CreatedAt, p.UpdatedAt = fromMS(created), fromMS(updated)
	if doc.Components, err = loadComponents(ctx, tx); err != nil {
		return nil, 0, err
	}
	if doc.Notices, err = loadNotices(ctx, tx, nil); err != nil {
		return nil, 0, err
	}
	return doc, version, nil
}

func loadComponents(ctx context.Context, tx *sql.Tx) ([]statusd.Component, error) {
	rows, err := tx.QueryContext(ctx, `SELECT id, parent_id, position, name, description, metrics_enabled,
		created_at, updated_at FROM components ORDER BY position, id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []statusd.Component
	for rows.Next() {
		var c statusd.Component
		var parent sql.NullInt64
		var created, updated int64
		if err := rows.Scan(&c.ID, &parent, &c.Position, &c.Name, &c.Description, &c.MetricsEnabled,
			&created, &updated); err != nil {
			return nil, err
		}
		c.ParentID = nullInt(parent)
		c.CreatedAt, c.UpdatedAt = fromMS(created), fromMS(updated)
		out = append(out, c)
	}
	return out, rows.Err()
}

// loadNotices reads every notice, or only the one with the id when id is
// not nil, with their links and updates, in id order.
func loadNotices(ctx context.Context, tx *sql.Tx, id *int64) ([]statusd.Notice, error) {
	// (? IS NULL OR x = ?) selects everything when id is nil.
	rows, err := tx.QueryContext(ctx, `SELECT id, type, subject, tag_list, impact_seconds, begins_at, ends_at,
		automate, expires_at, created_at, updated_at FROM notices WHERE (? IS NULL OR id = ?) ORDER BY id`, id, id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []statusd.Notice
	byID := map[int64]int{}
	for rows.Next() {
		var n statusd.Notice
		var tags string
		var impact, begins, ends, expires sql.NullInt64
		var created, updated int64
		if err := rows.Scan(&n.ID, &n.Type, &n.Subject, &tags, &impact, &begins, &ends, &n.Automate,
			&expires, &created, &updated); err != nil {
			return nil, err
		}
		if err := json.Unmarshal([]byte(tags), &n.TagList); err != nil {
			return nil, fmt.Errorf("notice %d: tag_list: %w", n.ID, err)
		}
		n.ImpactSeconds = nullInt(impact)
		n.BeginsAt, n.EndsAt, n.ExpiresAt = fromMSPtr(begins), fromMSPtr(ends), fromMSPtr(expires)
		n.CreatedAt, n.UpdatedAt = fromMS(created), fromMS(updated)
		n.ComponentIDs = []int64{}
		byID[n.ID] = len(out)
		out = append(out, n)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	rows.Close()

	links, err := tx.QueryContext(ctx, `SELECT notice_id, component_id FROM notice_components
		WHERE (? IS NULL OR notice_id = ?) ORDER BY notice_id, ord`, id, id)
	if err != nil {
		return nil, err
	}
	defer links.Close()
	for links.Next() {
		var nid, cid int64
		if err := links.Scan(&nid, &cid); err != nil {
			return nil, err
		}
		n := &out[byID[nid]]
		n.ComponentIDs = append(n.ComponentIDs, cid)
	}
	if err := links.Err(); err != nil {
		return nil, err
	}
	links.Close()

	ups, err := tx.QueryContext(ctx, `SELECT id, notice_id, state, content, created_at, updated_at
		FROM updates WHERE (? IS NULL OR notice_id = ?) ORDER BY notice_id, seq`, id, id)
	if err != nil {
		return nil, err
	}
	defer ups.Close()
	for ups.Next() {
		var u statusd.Update
		var nid, created, updated int64
		var state sql.NullString
		if err := ups.Scan(&u.ID, &nid, &state, &u.Content, &created, &updated); err != nil {
			return nil, err
		}
		u.State = statusd.State(state.String)
		u.CreatedAt, u.UpdatedAt = fromMS(created), fromMS(updated)
		n := &out[byID[nid]]
		n.Updates = append(n.Updates, u)
	}
	return out, ups.Err()
}

// Import writes doc in one transaction. Without replace it refuses a store
// that already holds a page.
func (s *Store) Import(ctx context.Context, doc *statusd.Document, replace bool) error {
	return s.transact(ctx, func(tx *sql.Tx) error {
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM page`).Scan(&n); err != nil {
			return err
		}
		if n > 0 && !replace {
			return statusd.Errorf(statusd.EConflict, "the database already holds a page; replace it whole with --replace")
		}
		for _, table := range []string{"updates", "notice_components", "notices", "components", "page"} {
			if _, err := tx.ExecContext(ctx, "DELETE FROM "+table); err != nil {
				return err
			}
		}
		if err := insertDocument(ctx, tx, doc); err != nil {
			return err
		}
		detail := fmt.Sprintf("%d components, %d notices", len(doc.Components), len(doc.Notices))
		if err := audit(ctx, tx, statusd.AuditEntry{At: time.Now(), Actor: "statusd import", Action: "page.import",
			Target: "page", Detail: detail}); err != nil {
			return err
		}
		return bumpVersion(ctx, tx)
	})
}

func insertDocument(ctx context.Context, tx *sql.Tx, doc *statusd.Document) error {
	if err := putPage(ctx, tx, &doc.Page); err != nil {
		return err
	}
	// Parents are inserted before children: components go in without a
	// parent first, then get it.
	for _, c := range doc.Components {
		c.ParentID = nil
		if err := putComponent(ctx, tx, &c); err != nil {
			return err
		}
	}
	for _, c := range doc.Components {
		if c.ParentID != nil {
			if _, err := tx.ExecContext(ctx, `UPDATE components SET parent_id = ? WHERE id = ?`, *c.ParentID, c.ID); err != nil {
				return err
			}
		}
	}
	w, err := newNoticeWriter(ctx, tx)
	if err != nil {
		return err
	}
	defer w.close()
	for i := range doc.Notices {
		if err := w.insert(&doc.Notices[i]); err != nil {
			return err
		}
	}
	return nil
}

func putPage(ctx context.Context, tx *sql.Tx, p *statusd.Page) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO page (id, name, url, text_operational, text_degraded,
		text_under_maintenance, created_at, updated_at) VALUES (1, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (id) DO UPDATE SET name = excluded.name, url = excluded.url,
		text_operational = excluded.text_operational, text_degraded = excluded.text_degraded,
		text_under_maintenance = excluded.text_under_maintenance, created_at = excluded.created_at,
		updated_at = excluded.updated_at`,
		p.Name, p.URL, p.StateTexts.Operational, p.StateTexts.Degraded, p.StateTexts.UnderMaintenance,
		ms(p.CreatedAt), ms(p.UpdatedAt))
	return err
}

func putComponent(ctx context.Context, tx *sql.Tx, c *statusd.Component) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO components (id, parent_id, position, name, description,
		metrics_enabled, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (id) DO UPDATE SET parent_id = excluded.parent_id, position = excluded.position,
		name = excluded.name, description = excluded.description, metrics_enabled = excluded.metrics_enabled,
		created_at = excluded.created_at, updated_at = excluded.updated_at`,
		c.ID, c.ParentID, c.Position, c.Name, c.Description, c.MetricsEnabled, ms(c.CreatedAt), ms(c.UpdatedAt))
	return err
}

// noticeWriter inserts notices with their links and updates through
// prepared statements.
type noticeWriter struct {
	notice, link, update *sql.Stmt
}

func newNoticeWriter(ctx context.Context, tx *sql.Tx) (*noticeWriter, error) {
	var w noticeWriter
	var err error
	prepare := func(dst **sql.Stmt, query string) {
		if err == nil {
			*dst, err = tx.PrepareContext(ctx, query)
		}
	}
	prepare(&w.notice, `INSERT INTO notices (id, type, subject, tag_list, impact_seconds, begins_at, ends_at,
		automate, expires_at, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
	prepare(&w.link, `INSERT INTO notice_components (notice_id, component_id, ord) VALUES (?, ?, ?)`)
	prepare(&w.update, `INSERT INTO updates (id, notice_id, seq, state, content, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?)`)
	if err != nil {
		w.close()
		return nil, err
	}
	return &w, nil
}

func (w *noticeWriter) close() {
	for _, s := range []*sql.Stmt{w.notice, w.link, w.update} {
		if s != nil {
			s.Close()
		}
	}
}

func (w *noticeWriter) insert(n *statusd.Notice) error {
	tags := []byte("[]")
	if len(n.TagList) > 0 {
		var err error
		if tags, err = json.Marshal(n.TagList); err != nil {
			return err
		}
	}
	if _, err := w.notice.Exec(n.ID, string(n.Type), n.Subject, string(tags), n.ImpactSeconds,
		msPtr(n.BeginsAt), msPtr(n.EndsAt), n.Automate, msPtr(n.ExpiresAt), ms(n.CreatedAt), ms(n.UpdatedAt)); err != nil {
		return err
	}
	for i, cid := range n.ComponentIDs {
		if _, err := w.link.Exec(n.ID, cid, i); err != nil {
			return err
		}
	}
	for i, u := range n.Updates {
		var state *string
		if u.State != "" {
			s := string(u.State)
			state = &s
		}
		if _, err := w.update.Exec(u.ID, n.ID, i, state, u.Content, ms(u.CreatedAt), ms(u.UpdatedAt)); err != nil {
			return err
		}
	}
	return nil
}
