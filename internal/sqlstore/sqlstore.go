// Package sqlstore implements statusd.Store on database/sql, for SQLite
// (pure-Go driver, the default, no setup) and PostgreSQL (pgx), with the same
// SQL, embedded numbered migrations for each that run in one transaction
// each, and serialised writers: SQLite's single writer connection, and a
// transaction-scoped advisory lock on PostgreSQL, so that several servers on
// one database never interleave writes.
package sqlstore

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net/url"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/statusd/statusd"

	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" driver
	_ "modernc.org/sqlite"             // registers the "sqlite" driver
)

//go:embed migrations
var migrations embed.FS

// dialect holds what differs between SQLite and PostgreSQL.
type dialect struct {
	name string // "sqlite" or "postgres": the migrations folder too
	// writeLock, when set, runs first in every write transaction.
	writeLock string
	// notify, when set, runs in every write transaction that commits a change.
	notify string
	// idList is a query whose one column, id, gives the integers of the
	// JSON array that is its one parameter: a list of any length in one
	// parameter.
	idList string
	// inIDs follows a column in a condition: the column is one of the
	// integers of the JSON array that is its one parameter, looked up by
	// the column's index. (On PostgreSQL "IN (idList)" scans the whole
	// table: the planner guesses 100 ids, and a hash of them costs less
	// than 100 index lookups by its reckoning.)
	inIDs string
	// inTexts is inIDs for a column of text.
	inTexts string
	// recordedRows, when set, is a FROM item, v, whose rows are the
	// objects of the JSON array that is its one parameter (recordedRow):
	// id, state, attempts, last_status, last_error, next_attempt_at,
	// delivered_at. Unset, RecordMany writes a row a statement.
	recordedRows string
	// idArray is the aggregate of a group's ids as a JSON array, for
	// idList.
	idArray string
	// resyncIDs, when set, runs after subscribers were inserted with their
	// ids, so that the ids given next come after them.
	resyncIDs string
	// shareSubscribers and lockSubscribers, when set, take the lock of the
	// subscribers to send to, for the transaction: shared by Expand, which
	// makes deliveries for the active subscribers it read; exclusive by
	// the writes after which a subscriber is no longer sent to (removed,
	// unsubscribed, quarantined), so that no expansion that read it before
	// makes a delivery for it after. SQLite's one writer needs none.
	shareSubscribers, lockSubscribers string
	// joinInOrder, when set, makes the transaction's queries join their
	// tables in the order written (Claim: the due deliveries first, in
	// their index's order). SQLite's planner keeps a CROSS JOIN's order;
	// PostgreSQL's reorders joins by its statistics, which a fan-out has
	// just made stale: it then drove the claim of 4,000 email deliveries
	// from the subscribers, looking each one up among 18,000 due
	// deliveries (1.7 s a claim, against milliseconds).
	joinInOrder string
	// analyzeOutbox, when set, renews the planner's statistics of the
	// tables a claim reads after Expand made many deliveries
	// (analyzeAfter). PostgreSQL's autovacuum renews them a minute or more
	// later, or never when it is off: until then, planning a claim on
	// tables it believed nearly empty, PostgreSQL read every due delivery
	// and sorted them on disk (120 ms a claim of 100, against 1 ms walking
	// deliveries_due in order), and 40,000 webhooks took 33-40 s.
	analyzeOutbox string
	// randomID is an expression whose every evaluation is a new random id
	// of 32 hex digits: a delivery's message_id, a notice's thread.
	randomID string
}

var (
	sqliteDialect = &dialect{name: "sqlite",
		idList:   "SELECT value AS id FROM json_each(?)",
		inIDs:    " IN (SELECT value FROM json_each(?))",
		inTexts:  " IN (SELECT value FROM json_each(?))",
		idArray:  "json_group_array(id ORDER BY id)",
		randomID: "lower(hex(randomblob(16)))"}
	postgresDialect = &dialect{name: "postgres",
		writeLock: "SELECT pg_advisory_xact_lock(7405867)",
		notify:    "SELECT pg_notify('" + notifyChannel + "', '')",
		idList:    "SELECT value::bigint AS id FROM json_array_elements_text(?::json)",
		inIDs:     " = ANY(ARRAY(SELECT value::bigint FROM json_array_elements_text(?::json)))",
		inTexts:   " = ANY(ARRAY(SELECT value FROM json_array_elements_text(?::json)))",
		idArray:   "json_agg(id ORDER BY id)::text",
		recordedRows: `json_to_recordset(?::json) AS v(id bigint, state text, attempts integer, last_status integer,
			last_error text, next_attempt_at bigint, delivered_at bigint)`,
		resyncIDs: "SELECT setval(pg_get_serial_sequence('subscribers', 'id'), " +
			"GREATEST((SELECT MAX(id) FROM subscribers), nextval(pg_get_serial_sequence('subscribers', 'id'))))",
		shareSubscribers: "SELECT pg_advisory_xact_lock_shared(7405868)",
		lockSubscribers:  "SELECT pg_advisory_xact_lock(7405868)",
		joinInOrder:      "SET LOCAL join_collapse_limit = 1",
		analyzeOutbox:    "ANALYZE deliveries, events, subscribers",
		randomID:         "replace(gen_random_uuid()::text, '-', '')"}
)

// lock returns clause (FOR UPDATE, FOR UPDATE SKIP LOCKED ...), which
// ends a SELECT that locks the rows it reads, on PostgreSQL; on SQLite,
// whose one writer holds the whole database, nothing.
func (d *dialect) lock(clause string) string {
	if d != postgresDialect {
		return ""
	}
	return " " + clause
}

// notifyChannel is the PostgreSQL channel on which writes are announced.
const notifyChannel = "statusd_changes"

// rebind turns ? placeholders into $1, $2, ... for PostgreSQL. statusd's SQL
// has no ? inside string literals.
func (d *dialect) rebind(q string) string {
	if d != postgresDialect || !strings.Contains(q, "?") {
		return q
	}
	var b strings.Builder
	n := 0
	for _, r := range q {
		if r == '?' {
			n++
			b.WriteString("$" + strconv.Itoa(n))
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// Store is a statusd.Store on SQLite or PostgreSQL.
type Store struct {
	d   *dialect
	db  *sql.DB // readers
	wdb *sql.DB // writers
	dsn string  // the PostgreSQL URL, for LISTEN
	// The SQLite database file: its path, the file opened there (nil on
	// PostgreSQL), and the fault of finding another file, or none, there.
	path     string
	file     os.FileInfo
	replaced *statusd.Error
	// A reader connection taken at open, which holds the file opened then:
	// once another file took the path (or none), reads go through it,
	// one at a time, since a new connection would open what is there now.
	pin   *sql.Conn
	pinMu sync.Mutex
	log   *slog.Logger
	mu    sync.Mutex
	fault *statusd.Error // why the last write failed; nil when it worked
	uses  usage
}

var _ statusd.Store = (*Store)(nil)

// IsPostgres reports whether a --db value names a PostgreSQL database.
func IsPostgres(target string) bool {
	return strings.HasPrefix(target, "postgres://") || strings.HasPrefix(target, "postgresql://")
}

// Open opens the store named by target, a postgres:// URL or the path of a
// SQLite file (created if needed, in WAL mode), and applies pending
// migrations.
func Open(ctx context.Context, target string) (*Store, error) {
	s, err := open(target)
	if err != nil {
		return nil, err
	}
	if err := s.migrate(ctx); err != nil {
		s.Close()
		return nil, fmt.Errorf("open %s: %w", Redact(target), err)
	}
	if s.d == sqliteDialect {
		// Migrating created the file when it was missing.
		if s.file, err = os.Stat(target); err != nil {
			s.Close()
			return nil, err
		}
		s.path = target
		if s.pin, err = s.db.Conn(ctx); err != nil {
			s.Close()
			return nil, err
		}
		s.replaced = statusd.Errorf(statusd.EUnavailable, "the database file %s was removed or replaced while statusd ran: "+
			"writes are refused, as they would be lost; put the file back (from a backup, or the copy statusd still holds open) and restart statusd", target)
	}
	return s, nil
}

func open(target string) (*Store, error) {
	if IsPostgres(target) {
		db, err := sql.Open("pgx", target)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", Redact(target), err)
		}
		db.SetMaxOpenConns(16)
		db.SetConnMaxIdleTime(time.Minute)
		return &Store{d: postgresDialect, db: db, wdb: db, dsn: target, log: discard}, nil
	}
	pragmas := "_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=foreign_keys(1)&_pragma=synchronous(NORMAL)"
	dsn := "file:" + (&url.URL{Path: target}).EscapedPath() + "?" + pragmas
	// Readers never create the file (the writer did, migrating): a reader
	// opened after it was removed fails, rather than make an empty one.
	db, err := sql.Open("sqlite", dsn+"&mode=rw")
	if err != nil {
		return nil, err
	}
	wdb, err := sql.Open("sqlite", dsn+"&_txlock=immediate")
	if err != nil {
		db.Close()
		return nil, err
	}
	wdb.SetMaxOpenConns(1)
	return &Store{d: sqliteDialect, db: db, wdb: wdb, log: discard}, nil
}

var discard = slog.New(slog.DiscardHandler)

// LogTo makes the store log to log: the storage faults that make writes
// fail, and when they work again. Call it before the store is used.
func (s *Store) LogTo(log *slog.Logger) { s.log = log }

// Redact hides the password of a database URL, for messages and logs.
func Redact(target string) string {
	if u, err := url.Parse(target); err == nil && u.User != nil {
		return u.Redacted()
	}
	return target
}

// Close writes the token uses noted and not yet written, and closes the
// database.
func (s *Store) Close() error {
	s.flushUses()
	if s.pin != nil {
		s.pin.Close()
	}
	if s.wdb == s.db {
		return s.db.Close()
	}
	return errors.Join(s.db.Close(), s.wdb.Close())
}

// migrate applies, in order and each in its own write transaction, every
// embedded migration whose number is not yet recorded in schema_migrations.
func (s *Store) migrate(ctx context.Context) error {
	names, err := fs.Glob(migrations, "migrations/"+s.d.name+"/*.sql")
	if err != nil {
		return err
	}
	// An up-to-date database takes no write lock: on SQLite, opening one
	// (statusd backup, while serve writes without pause) would otherwise
	// wait for the writer, as long as the busy timeout, at each step.
	var applied int
	if s.db.QueryRowContext(ctx, `SELECT count(*) FROM schema_migrations`).Scan(&applied) == nil && applied == len(names) {
		return nil
	}
	err = s.transact(ctx, func(t tx) error {
		_, err := t.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY)`)
		return err
	})
	if err != nil {
		return err
	}
	sort.Strings(names)
	for _, name := range names {
		base := name[strings.LastIndex(name, "/")+1:]
		version, err := strconv.Atoi(strings.SplitN(base, "_", 2)[0])
		if err != nil {
			return fmt.Errorf("migration %s: name must start with its number", base)
		}
		body, err := migrations.ReadFile(name)
		if err != nil {
			return err
		}
		err = s.transact(ctx, func(t tx) error {
			var n int
			if err := t.row(`SELECT count(*) FROM schema_migrations WHERE version = ?`, version).Scan(&n); err != nil || n > 0 {
				return err
			}
			if _, err := t.sql.ExecContext(ctx, string(body)); err != nil {
				return fmt.Errorf("migration %s: %w", base, err)
			}
			_, err := t.exec(`INSERT INTO schema_migrations (version) VALUES (?)`, version)
			return err
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// tx is a transaction whose queries are written with ? placeholders.
type tx struct {
	ctx context.Context
	sql *sql.Tx
	d   *dialect
}

func (t tx) exec(q string, args ...any) (sql.Result, error) {
	return t.sql.ExecContext(t.ctx, t.d.rebind(q), args...)
}

// set runs the dialect's settings that are set (not empty), in order.
func (t tx) set(settings ...string) error {
	for _, q := range settings {
		if q == "" {
			continue
		}
		if _, err := t.exec(q); err != nil {
			return err
		}
	}
	return nil
}

func (t tx) query(q string, args ...any) (*sql.Rows, error) {
	return t.sql.QueryContext(t.ctx, t.d.rebind(q), args...)
}

func (t tx) row(q string, args ...any) *sql.Row {
	return t.sql.QueryRowContext(t.ctx, t.d.rebind(q), args...)
}

func (t tx) prepare(q string) (*sql.Stmt, error) {
	return t.sql.PrepareContext(t.ctx, t.d.rebind(q))
}

// transact runs fn in a write transaction of the page, committing when fn
// returns nil and rolling back otherwise. Page writers are serialised.
func (s *Store) transact(ctx context.Context, fn func(tx) error) error {
	return s.writeTx(ctx, s.d.writeLock, true, fn)
}

// outbox runs fn in a write transaction that leaves the page alone (the
// subscribers and the outbox): without the page writers' lock, so that the
// many writes of sending never wait for page writes nor make them wait (on
// PostgreSQL; SQLite has one writer), and callers bump no version, so that
// no reader reloads the page for them. Its faults are noted as any
// write's, but not its successes: most of its transactions (a poll that
// finds nothing to send) write nothing, and commit even on a read-only
// database, so they do not show that writes work again.
func (s *Store) outbox(ctx context.Context, fn func(tx) error) error {
	return s.writeTx(ctx, "", false, fn)
}

// writeTx runs fn in a write transaction that first runs lock, when set,
// committing when fn returns nil and rolling back otherwise. Nothing is
// written once the database file was removed or replaced (checkFile). A
// storage fault is answered 503 unavailable, saying which, and noted
// (noteWrite), and so is a success when it shows that writes work
// (proves); the connection that met a fault is not used again, since it
// may hold the database open read-only.
func (s *Store) writeTx(ctx context.Context, lock string, proves bool, fn func(tx) error) (err error) {
	defer func() {
		if err != nil || proves {
			s.noteWrite(err)
		}
	}()
	if err := s.checkFile(); err != nil {
		return err
	}
	conn, err := s.wdb.Conn(ctx)
	if err != nil {
		return unavailable(err)
	}
	defer func() {
		if faultOf(err) != nil {
			conn.Raw(func(any) error { return driver.ErrBadConn })
		}
		conn.Close()
	}()
	sqlTx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return unavailable(err)
	}
	defer sqlTx.Rollback()
	t := tx{ctx: ctx, sql: sqlTx, d: s.d}
	if lock != "" {
		if _, err := t.exec(lock); err != nil {
			return unavailable(err)
		}
	}
	if err := fn(t); err != nil {
		return wrapFault(err, nil)
	}
	return unavailable(sqlTx.Commit())
}

// read runs fn in a read-only transaction, so that it sees one consistent
// state: every read of the store goes through it.
func (s *Store) read(ctx context.Context, fn func(tx) error) error {
	opts := &sql.TxOptions{ReadOnly: true}
	if s.d == postgresDialect {
		// Every statement of the transaction sees the same commits, as
		// in SQLite: PostgreSQL's default gives each its own.
		opts.Isolation = sql.LevelRepeatableRead
	}
	begin := s.db.BeginTx
	if s.checkFile() != nil {
		s.pinMu.Lock()
		defer s.pinMu.Unlock()
		begin = s.pin.BeginTx
	}
	sqlTx, err := begin(ctx, opts)
	if err != nil {
		return unavailable(err)
	}
	defer sqlTx.Rollback()
	return fn(tx{ctx: ctx, sql: sqlTx, d: s.d})
}

// listQuery is a query of a paginated list: `SELECT columns from WHERE
// ORDER BY order`, where counts the rows with `SELECT count(*) count WHERE`
// (from without the joins that add columns, not rows).
type listQuery struct {
	columns, from, count, order string
	where                       filter
}

// filter gathers the conditions of a list query.
type filter struct {
	conds []string
	args  []any
}

// add adds the condition, with its one argument, when set.
func (f *filter) add(set bool, cond string, arg any) {
	if set {
		f.conds = append(f.conds, cond)
		f.args = append(f.args, arg)
	}
}

func (f *filter) String() string {
	if len(f.conds) == 0 {
		return ""
	}
	return " WHERE " + strings.Join(f.conds, " AND ")
}

// paged reads, in one read transaction, a page (from 1) of perPage rows
// of q, each made by scan, and how many rows there are in all. A page
// before the first or past the last has none (and no OFFSET that
// overflows).
func paged[T any](s *Store, ctx context.Context, q listQuery, page, perPage int, scan func(*sql.Rows) (T, error)) ([]T, int, error) {
	var out []T
	var total int
	err := s.read(ctx, func(t tx) error {
		where := q.where.String()
		if err := t.row(`SELECT count(*) FROM `+q.count+where, q.where.args...).Scan(&total); err != nil {
			return err
		}
		if page < 1 || perPage < 1 || page > total/perPage+1 {
			return nil
		}
		rows, err := t.query(`SELECT `+q.columns+` FROM `+q.from+where+` ORDER BY `+q.order+` LIMIT ? OFFSET ?`,
			append(q.where.args, perPage, (page-1)*perPage)...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			v, err := scan(rows)
			if err != nil {
				return err
			}
			out = append(out, v)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, 0, unavailable(err)
	}
	return out, total, nil
}

// Version returns the number of writes made to the store.
func (s *Store) Version(ctx context.Context) (int64, error) {
	var v int64
	err := s.read(ctx, func(t tx) error {
		return t.row(`SELECT version FROM store_version WHERE id = 1`).Scan(&v)
	})
	return v, err
}

// bumpVersion marks a write, and announces it where the database can.
func bumpVersion(t tx) error {
	if _, err := t.exec(`UPDATE store_version SET version = version + 1 WHERE id = 1`); err != nil {
		return err
	}
	if t.d.notify != "" {
		_, err := t.exec(t.d.notify)
		return err
	}
	return nil
}

func ms(t time.Time) int64 { return t.UnixMilli() }

func fromMS(v int64) time.Time { return time.UnixMilli(v).UTC() }

// intColumn and nullIntColumn take an integer column in Scan as the driver
// gives it (database/sql/driver makes every integer an int64), where a
// plain *int64 or sql.NullInt64 goes through database/sql's reflection: a
// load reads millions of them.
type (
	intColumn     int64
	nullIntColumn sql.NullInt64
)

// Scan implements sql.Scanner.
func (c *intColumn) Scan(src any) error {
	v, ok := src.(int64)
	if !ok {
		return fmt.Errorf("an integer column holds %T, not an integer", src)
	}
	*c = intColumn(v)
	return nil
}

// Scan implements sql.Scanner.
func (c *nullIntColumn) Scan(src any) error {
	if src == nil {
		*c = nullIntColumn{}
		return nil
	}
	v, ok := src.(int64)
	if !ok {
		return fmt.Errorf("an integer column holds %T, not an integer", src)
	}
	*c = nullIntColumn{Int64: v, Valid: true}
	return nil
}

func msPtr(t *time.Time) *int64 {
	if t == nil {
		return nil
	}
	v := ms(*t)
	return &v
}

func fromMSPtr(v sql.NullInt64) *time.Time {
	if !v.Valid {
		return nil
	}
	t := fromMS(v.Int64)
	return &t
}

func nullInt(v sql.NullInt64) *int64 {
	if !v.Valid {
		return nil
	}
	return &v.Int64
}
