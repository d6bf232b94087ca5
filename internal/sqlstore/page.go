package sqlstore

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/statusd/statusd"
)

// Load reads the whole page in one read transaction, so that it is
// consistent with the version it returns.
func (s *Store) Load(ctx context.Context) (*statusd.Document, int64, error) {
	var doc *statusd.Document
	var version int64
	err := s.read(ctx, func(t tx) error {
		if err := t.row(`SELECT version FROM store_version WHERE id = 1`).Scan(&version); err != nil {
			return err
		}
		p, err := loadPage(t)
		if err != nil || p == nil {
			return err
		}
		doc = &statusd.Document{Page: *p}
		if doc.Components, err = loadComponents(t); err != nil {
			return err
		}
		doc.Notices, err = loadNotices(t, nil)
		return err
	})
	if err != nil {
		return nil, 0, unavailable(err)
	}
	return doc, version, nil
}

// loadPage returns the page, or nil when there is none.
func loadPage(t tx) (*statusd.Page, error) {
	var p statusd.Page
	var created, updated int64
	err := t.row(`SELECT name, url, text_operational, text_degraded, text_under_maintenance,
		created_at, updated_at FROM page WHERE id = 1`).Scan(&p.Name, &p.URL, &p.StateTexts.Operational,
		&p.StateTexts.Degraded, &p.StateTexts.UnderMaintenance, &created, &updated)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	p.CreatedAt, p.UpdatedAt = fromMS(created), fromMS(updated)
	return &p, nil
}

func loadComponents(t tx) ([]statusd.Component, error) {
	rows, err := t.query(`SELECT id, parent_id, position, name, key, description, metrics_enabled,
		created_at, updated_at FROM components ORDER BY position, id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []statusd.Component
	for rows.Next() {
		var c statusd.Component
		var parent sql.NullInt64
		var key sql.NullString
		var created, updated int64
		if err := rows.Scan(&c.ID, &parent, &c.Position, &c.Name, &key, &c.Description, &c.MetricsEnabled,
			&created, &updated); err != nil {
			return nil, err
		}
		c.ParentID, c.Key = nullInt(parent), key.String
		c.CreatedAt, c.UpdatedAt = fromMS(created), fromMS(updated)
		out = append(out, c)
	}
	return out, rows.Err()
}

// loadNotices reads every notice, or only those with the ids when ids is
// not nil, with their links and updates, in id order.
func loadNotices(t tx, ids []int64) ([]statusd.Notice, error) {
	where, whereNotice, args := "", "", []any{}
	if ids != nil {
		if len(ids) == 0 {
			return nil, nil
		}
		in := " IN (?" + strings.Repeat(", ?", len(ids)-1) + ")"
		where, whereNotice = " WHERE id"+in, " WHERE notice_id"+in
		for _, id := range ids {
			args = append(args, id)
		}
	}
	rows, err := t.query(`SELECT id, type, subject, tag_list, impact_seconds, impact, begins_at, ends_at,
		automate, expires_at, created_at, updated_at FROM notices`+where+` ORDER BY id`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := make([]statusd.Notice, 0, rowCount(t, "notices", where, len(ids)))
	// The scan's destinations are declared once: Scan takes their
	// addresses, which would otherwise put each row's on the heap.
	var typ, subject, tags, severity sql.RawBytes
	var id, created, updated intColumn
	var automate bool
	var impact, begins, ends, expires nullIntColumn
	for rows.Next() {
		if err := rows.Scan(&id, &typ, &subject, &tags, &impact, &severity, &begins, &ends, &automate,
			&expires, &created, &updated); err != nil {
			return nil, err
		}
		n := statusd.Notice{ID: int64(id), Type: statusd.NoticeType(typ), Subject: string(subject),
			ImpactSeconds: nullInt(sql.NullInt64(impact)), Severity: statusd.Severity(severity), Automate: automate,
			BeginsAt: fromMSPtr(sql.NullInt64(begins)), EndsAt: fromMSPtr(sql.NullInt64(ends)),
			ExpiresAt: fromMSPtr(sql.NullInt64(expires)),
			CreatedAt: fromMS(int64(created)), UpdatedAt: fromMS(int64(updated))}
		if err := json.Unmarshal(tags, &n.TagList); err != nil {
			return nil, fmt.Errorf("notice %d: tag_list: %w", n.ID, err)
		}
		n.ComponentIDs = []int64{}
		out = append(out, n)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	rows.Close()
	index := noticeIndex(out)

	// Links and updates are read in table order, which needs no index
	// lookup per row, into one array each, put in order by notice and
	// position, and shared out as slices of it.
	links, err := t.query(`SELECT notice_id, ord, component_id FROM notice_components`+whereNotice, args...)
	if err != nil {
		return nil, err
	}
	defer links.Close()
	var linked sortedByNotice[int64]
	linked.grow(rowCount(t, "notice_components", whereNotice, len(out)))
	var nid, ord, cid intColumn
	for links.Next() {
		if err := links.Scan(&nid, &ord, &cid); err != nil {
			return nil, err
		}
		linked.add(index(int64(nid)), int64(ord), int64(cid))
	}
	if err := links.Err(); err != nil {
		return nil, err
	}
	links.Close()
	linked.share(out, func(n *statusd.Notice, ids []int64) { n.ComponentIDs = ids })

	ups, err := t.query(`SELECT notice_id, seq, id, state, content, created_at, updated_at, notified, changes
		FROM updates`+whereNotice, args...)
	if err != nil {
		return nil, err
	}
	defer ups.Close()
	var updates sortedByNotice[statusd.Update]
	updates.grow(rowCount(t, "updates", whereNotice, 4*len(out)))
	var state, content, changes sql.RawBytes
	var notified bool
	for ups.Next() {
		if err := ups.Scan(&nid, &ord, &id, &state, &content, &created, &updated, &notified, &changes); err != nil {
			return nil, err
		}
		u := statusd.Update{ID: int64(id), State: statusd.State(state), Content: string(content),
			CreatedAt: fromMS(int64(created)), UpdatedAt: fromMS(int64(updated)), Notified: notified}
		if changes != nil {
			if u.Changes, err = parseChanges(changes); err != nil {
				return nil, fmt.Errorf("update %d: changes: %w", u.ID, err)
			}
		}
		updates.add(index(int64(nid)), int64(ord), u)
	}
	if err := ups.Err(); err != nil {
		return nil, err
	}
	updates.share(out, func(n *statusd.Notice, us []statusd.Update) { n.Updates = us })
	return out, nil
}

// rowCount is the number of rows in table for a whole load (where empty),
// so that the load can size its slices once instead of growing them row by
// row (a tenth of the time of reading 100,000 notices). A load of a few
// notices (where set) is not counted: it gets guess, as it does when
// counting fails (the read that follows reports the error).
func rowCount(t tx, table, where string, guess int) int {
	if where != "" {
		return guess
	}
	var n int
	if err := t.row(`SELECT count(*) FROM ` + table).Scan(&n); err != nil {
		return guess
	}
	return n
}

// noticeIndex returns the position of a notice id in notices, which are in
// id order. The foreign keys guarantee that the id is there.
func noticeIndex(notices []statusd.Notice) func(id int64) int {
	if len(notices) == 0 {
		return func(int64) int { return 0 }
	}
	first, last := notices[0].ID, notices[len(notices)-1].ID
	if span := last - first + 1; span > int64(2*len(notices)+1024) {
		return func(id int64) int {
			i, _ := slices.BinarySearchFunc(notices, id, func(n statusd.Notice, id int64) int { return cmp.Compare(n.ID, id) })
			return i
		}
	}
	// ids are nearly always dense: a table from id to position.
	pos := make([]int32, last-first+1)
	for i, n := range notices {
		pos[n.ID-first] = int32(i)
	}
	return func(id int64) int { return int(pos[id-first]) }
}

// sortedByNotice collects the rows that belong to notices (links, updates)
// with their notice's position and their order within it.
type sortedByNotice[T any] struct {
	items  []T
	notice []int
	order  []int64
}

// grow makes room for n more rows.
func (s *sortedByNotice[T]) grow(n int) {
	s.items, s.notice, s.order = slices.Grow(s.items, n), slices.Grow(s.notice, n), slices.Grow(s.order, n)
}

func (s *sortedByNotice[T]) add(notice int, order int64, item T) {
	s.items = append(s.items, item)
	s.notice = append(s.notice, notice)
	s.order = append(s.order, order)
}

// share puts the rows in order of notice (a counting sort) and of their
// order within a notice, and gives each notice its run of them, capped so
// that an append copies.
func (s *sortedByNotice[T]) share(notices []statusd.Notice, set func(*statusd.Notice, []T)) {
	start := make([]int, len(notices)+1)
	for _, n := range s.notice {
		start[n+1]++
	}
	for i := 1; i < len(start); i++ {
		start[i] += start[i-1]
	}
	items, order := make([]T, len(s.items)), make([]int64, len(s.items))
	next := slices.Clone(start[:len(notices)])
	for i, n := range s.notice {
		items[next[n]], order[next[n]] = s.items[i], s.order[i]
		next[n]++
	}
	for n := range notices {
		from, to := start[n], start[n+1]
		if from == to {
			continue
		}
		run := items[from:to:to]
		if keys := order[from:to]; !slices.IsSorted(keys) {
			sort.Sort(byOrder[T]{run, keys})
		}
		set(&notices[n], run)
	}
	*s = sortedByNotice[T]{}
}

// byOrder sorts a notice's rows by their order.
type byOrder[T any] struct {
	items []T
	order []int64
}

func (b byOrder[T]) Len() int           { return len(b.items) }
func (b byOrder[T]) Less(i, j int) bool { return b.order[i] < b.order[j] }
func (b byOrder[T]) Swap(i, j int) {
	b.items[i], b.items[j] = b.items[j], b.items[i]
	b.order[i], b.order[j] = b.order[j], b.order[i]
}

// Import writes doc in one transaction. Without replace it refuses a store
// that already holds a page. The document's subscribers, when it has them
// (not nil), replace the store's, whose deliveries go with them; so do its
// sources, whose signals go with them.
func (s *Store) Import(ctx context.Context, doc *statusd.Document, replace bool) error {
	return s.transact(ctx, func(t tx) error {
		var n int
		if err := t.row(`SELECT count(*) FROM page`).Scan(&n); err != nil {
			return err
		}
		if n > 0 && !replace {
			return statusd.Errorf(statusd.EConflict, "the database already holds a page; replace it whole with --replace")
		}
		// The page's notices go, and their threads: an imported notice
		// that takes an old one's id starts a thread of its own.
		for _, table := range []string{"updates", "notice_components", "notices", "notice_threads", "components", "page"} {
			if _, err := t.exec("DELETE FROM " + table); err != nil {
				return err
			}
		}
		if err := insertDocument(t, doc); err != nil {
			return err
		}
		detail := fmt.Sprintf("%d components, %d notices", len(doc.Components), len(doc.Notices))
		if doc.Subscribers != nil {
			if err := insertSubscribers(t, doc.Subscribers); err != nil {
				return err
			}
			detail += fmt.Sprintf(", %d subscribers", len(doc.Subscribers))
		}
		if doc.Sources != nil {
			if err := insertSources(t, doc.Sources); err != nil {
				return err
			}
			detail += fmt.Sprintf(", %d sources", len(doc.Sources))
		}
		if err := audit(t, statusd.AuditEntry{At: time.Now(), Actor: "statusd import", Action: "page.import",
			Target: "page", Detail: detail}); err != nil {
			return err
		}
		return bumpVersion(t)
	})
}

func insertDocument(t tx, doc *statusd.Document) error {
	if err := putPage(t, &doc.Page); err != nil {
		return err
	}
	// Parents are inserted before children: components go in without a
	// parent first, then get it.
	for _, c := range doc.Components {
		c.ParentID = nil
		if err := putComponent(t, &c); err != nil {
			return err
		}
	}
	for _, c := range doc.Components {
		if c.ParentID != nil {
			if _, err := t.exec(`UPDATE components SET parent_id = ? WHERE id = ?`, *c.ParentID, c.ID); err != nil {
				return err
			}
		}
	}
	w, err := newNoticeWriter(t)
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

func putPage(t tx, p *statusd.Page) error {
	_, err := t.exec(`INSERT INTO page (id, name, url, text_operational, text_degraded,
		text_under_maintenance, created_at, updated_at) VALUES (1, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (id) DO UPDATE SET name = excluded.name, url = excluded.url,
		text_operational = excluded.text_operational, text_degraded = excluded.text_degraded,
		text_under_maintenance = excluded.text_under_maintenance, created_at = excluded.created_at,
		updated_at = excluded.updated_at`,
		p.Name, p.URL, p.StateTexts.Operational, p.StateTexts.Degraded, p.StateTexts.UnderMaintenance,
		ms(p.CreatedAt), ms(p.UpdatedAt))
	return err
}

func putComponent(t tx, c *statusd.Component) error {
	_, err := t.exec(`INSERT INTO components (id, parent_id, position, name, key, description,
		metrics_enabled, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (id) DO UPDATE SET parent_id = excluded.parent_id, position = excluded.position,
		name = excluded.name, key = excluded.key, description = excluded.description,
		metrics_enabled = excluded.metrics_enabled, created_at = excluded.created_at, updated_at = excluded.updated_at`,
		c.ID, c.ParentID, c.Position, c.Name, sql.NullString{String: c.Key, Valid: c.Key != ""}, c.Description,
		c.MetricsEnabled, ms(c.CreatedAt), ms(c.UpdatedAt))
	return err
}

// noticeWriter inserts notices with their links and updates through
// prepared statements.
type noticeWriter struct {
	notice, link, update *sql.Stmt
}

func newNoticeWriter(t tx) (*noticeWriter, error) {
	var w noticeWriter
	var err error
	prepare := func(dst **sql.Stmt, query string) {
		if err == nil {
			*dst, err = t.prepare(query)
		}
	}
	prepare(&w.notice, `INSERT INTO notices (id, type, subject, tag_list, impact_seconds, impact, begins_at, ends_at,
		automate, expires_at, created_at, updated_at, state) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
	prepare(&w.link, `INSERT INTO notice_components (notice_id, component_id, ord) VALUES (?, ?, ?)`)
	prepare(&w.update, `INSERT INTO updates (id, notice_id, seq, state, content, created_at, updated_at, notified, changes)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`)
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
	if _, err := w.notice.Exec(n.ID, string(n.Type), n.Subject, string(tags), n.ImpactSeconds, string(n.Severity),
		msPtr(n.BeginsAt), msPtr(n.EndsAt), n.Automate, msPtr(n.ExpiresAt), ms(n.CreatedAt), ms(n.UpdatedAt), stateColumn(n.State())); err != nil {
		return err
	}
	for i, cid := range n.ComponentIDs {
		if _, err := w.link.Exec(n.ID, cid, i); err != nil {
			return err
		}
	}
	for i, u := range n.Updates {
		changes, err := changesJSON(u.Changes)
		if err != nil {
			return err
		}
		if _, err := w.update.Exec(u.ID, n.ID, i, stateColumn(u.State), u.Content, ms(u.CreatedAt), ms(u.UpdatedAt), u.Notified, changes); err != nil {
			return err
		}
	}
	return nil
}

// stateColumn is a state in a state column: NULL for none.
func stateColumn(s statusd.State) *string {
	if s == "" {
		return nil
	}
	str := string(s)
	return &str
}

// changeJSON is a statusd.ComponentChange in the updates' changes column
// (the same fields: each converts to the other).
type changeJSON struct {
	ComponentID int64             `json:"component_id"`
	Old         statusd.PageState `json:"old"`
	New         statusd.PageState `json:"new"`
	OldSeverity statusd.Severity  `json:"old_severity,omitempty"`
	NewSeverity statusd.Severity  `json:"new_severity,omitempty"`
}

// changesJSON is the changes column of an update's changes: nil (NULL)
// when there are none.
func changesJSON(changes []statusd.ComponentChange) (*string, error) {
	if len(changes) == 0 {
		return nil, nil
	}
	out := make([]changeJSON, len(changes))
	for i, c := range changes {
		out[i] = changeJSON(c)
	}
	b, err := json.Marshal(out)
	if err != nil {
		return nil, err
	}
	s := string(b)
	return &s, nil
}

// parseChanges reads a changes column.
func parseChanges(b []byte) ([]statusd.ComponentChange, error) {
	var in []changeJSON
	if err := json.Unmarshal(b, &in); err != nil {
		return nil, err
	}
	var out []statusd.ComponentChange
	for _, c := range in {
		out = append(out, statusd.ComponentChange(c))
	}
	return out, nil
}
