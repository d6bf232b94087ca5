package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"

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
	if doc.Notices, err = loadNotices(ctx, tx); err != nil {
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

func loadNotices(ctx context.Context, tx *sql.Tx) ([]statusd.Notice, error) {
	rows, err := tx.QueryContext(ctx, `SELECT id, type, subject, tag_list, impact_seconds, begins_at, ends_at,
		automate, expires_at, created_at, updated_at FROM notices ORDER BY id`)
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

	links, err := tx.QueryContext(ctx, `SELECT notice_id, component_id FROM notice_components ORDER BY notice_id, ord`)
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
		FROM updates ORDER BY notice_id, seq`)
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
		return bumpVersion(ctx, tx)
	})
}

func insertDocument(ctx context.Context, tx *sql.Tx, doc *statusd.Document) error {
	p := doc.Page
	if _, err := tx.ExecContext(ctx, `INSERT INTO page (id, name, url, text_operational, text_degraded,
		text_under_maintenance, created_at, updated_at) VALUES (1, ?, ?, ?, ?, ?, ?, ?)`,
		p.Name, p.URL, p.StateTexts.Operational, p.StateTexts.Degraded, p.StateTexts.UnderMaintenance,
		ms(p.CreatedAt), ms(p.UpdatedAt)); err != nil {
		return err
	}
	// Parents are inserted before children: components go in without a
	// parent first, then get it.
	comp, err := tx.PrepareContext(ctx, `INSERT INTO components (id, position, name, description,
		metrics_enabled, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return err
	}
	defer comp.Close()
	for _, c := range doc.Components {
		if _, err := comp.ExecContext(ctx, c.ID, c.Position, c.Name, c.Description, c.MetricsEnabled,
			ms(c.CreatedAt), ms(c.UpdatedAt)); err != nil {
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
	notice, err := tx.PrepareContext(ctx, `INSERT INTO notices (id, type, subject, tag_list, impact_seconds,
		begins_at, ends_at, automate, expires_at, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return err
	}
	defer notice.Close()
	link, err := tx.PrepareContext(ctx, `INSERT INTO notice_components (notice_id, component_id, ord) VALUES (?, ?, ?)`)
	if err != nil {
		return err
	}
	defer link.Close()
	update, err := tx.PrepareContext(ctx, `INSERT INTO updates (id, notice_id, seq, state, content, created_at,
		updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return err
	}
	defer update.Close()
	for _, n := range doc.Notices {
		tags, err := json.Marshal(n.TagList)
		if err != nil {
			return err
		}
		if n.TagList == nil {
			tags = []byte("[]")
		}
		if _, err := notice.ExecContext(ctx, n.ID, string(n.Type), n.Subject, string(tags), n.ImpactSeconds,
			msPtr(n.BeginsAt), msPtr(n.EndsAt), n.Automate, msPtr(n.ExpiresAt), ms(n.CreatedAt), ms(n.UpdatedAt)); err != nil {
			return err
		}
		for i, cid := range n.ComponentIDs {
			if _, err := link.ExecContext(ctx, n.ID, cid, i); err != nil {
				return err
			}
		}
		for i, u := range n.Updates {
			var state *string
			if u.State != "" {
				s := string(u.State)
				state = &s
			}
			if _, err := update.ExecContext(ctx, u.ID, n.ID, i, state, u.Content, ms(u.CreatedAt), ms(u.UpdatedAt)); err != nil {
				return err
			}
		}
	}
	return nil
}
