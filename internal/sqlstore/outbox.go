package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/statusd/statusd"
)

// The notification outbox (CONTRACT C7): writes store events (emit); Expand
// turns each into deliveries, one per subscriber that wants it; senders
// Claim due deliveries under a lease and Record each attempt.

// emit stores an event, unless its Key was used already, and returns its
// id (0 then). A notice's event gets the notice's thread, made random the
// first time (notice_threads); a component's update a random id of its own.
func emit(t tx, e statusd.Event) (int64, error) {
	var key *string
	if e.Key != "" {
		key = &e.Key
	}
	if e.CreatedAt.IsZero() {
		e.CreatedAt = time.Now()
	}
	e.Thread = ""
	if e.Kind == statusd.ComponentUpdated {
		if err := t.row(`SELECT ` + t.d.randomID).Scan(&e.Thread); err != nil {
			return 0, err
		}
	}
	if e.NoticeID != 0 {
		if _, err := t.exec(`INSERT INTO notice_threads (notice_id, thread) VALUES (?, `+t.d.randomID+`)
			ON CONFLICT (notice_id) DO NOTHING`, e.NoticeID); err != nil {
			return 0, err
		}
		if err := t.row(`SELECT thread FROM notice_threads WHERE notice_id = ?`, e.NoticeID).Scan(&e.Thread); err != nil {
			return 0, err
		}
	}
	var id int64
	err := t.row(`INSERT INTO events (kind, notice_id, update_id, component_ids, subscriber_id, event_key, thread,
		old_state, new_state, old_severity, new_severity, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (event_key) DO NOTHING RETURNING id`,
		string(e.Kind), e.NoticeID, e.UpdateID, idsJSON(e.ComponentIDs), e.SubscriberID, key, e.Thread,
		string(e.OldState), string(e.NewState), string(e.OldSeverity), string(e.NewSeverity), ms(e.CreatedAt)).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	return id, err
}

func (ss subscriberStore) Emit(ctx context.Context, e statusd.Event) (int64, error) {
	var id int64
	err := ss.s.outbox(ctx, func(t tx) error {
		var err error
		id, err = emit(t, e)
		return err
	})
	return id, err
}

// eventColumns are an event's columns, for eventRow.
const eventColumns = `e.id, e.kind, e.notice_id, e.update_id, e.component_ids, e.subscriber_id, e.event_key, e.thread,
	e.old_state, e.new_state, e.old_severity, e.new_severity, e.created_at`

// eventRow holds the scan of eventColumns.
type eventRow struct {
	e          statusd.Event
	kind       string
	old, new   string
	oldSev     string
	newSev     string
	components string
	key        sql.NullString
	created    int64
}

func (r *eventRow) dest() []any {
	return []any{&r.e.ID, &r.kind, &r.e.NoticeID, &r.e.UpdateID, &r.components, &r.e.SubscriberID, &r.key, &r.e.Thread, &r.old, &r.new, &r.oldSev, &r.newSev, &r.created}
}

func (r *eventRow) value() (statusd.Event, error) {
	e := r.e
	e.Kind, e.Key, e.CreatedAt = statusd.EventKind(r.kind), r.key.String, fromMS(r.created)
	e.OldState, e.NewState = statusd.PageState(r.old), statusd.PageState(r.new)
	e.OldSeverity, e.NewSeverity = statusd.Severity(r.oldSev), statusd.Severity(r.newSev)
	var err error
	if e.ComponentIDs, err = parseIDs(r.components); err != nil {
		return e, fmt.Errorf("event %d: component_ids: %w", e.ID, err)
	}
	return e, nil
}

// sendable is statusd.SubscriberState.Hears in SQL, on the subscriber s
// and the event e, for Claim: the same rule, written again so that the
// claim's query leaves out what may not be sent without reading it
// (storetest's ClaimOnlyWhatTheSubscriberMayHear holds the two together).
const sendable = `(s.state = 'active' OR (s.state = 'pending' AND e.kind = 'subscription.confirm')
	OR (s.state = 'quarantined' AND e.kind = 'test'))`

// Expand turns up to limit events not yet expanded, oldest first, into
// pending deliveries due at now, and marks them expanded, in one
// transaction: an event is expanded once, by one process (its row is
// locked, and others skip it, on PostgreSQL), and a delivery is made once
// per event and subscriber (the unique key) should it be expanded again.
//
// An event for everyone goes to each active subscriber that wants it
// (Subscriber.Wants, on the component tree as it is now; readAudience).
// An event for one subscriber (SubscriberID) goes to it when it exists and
// may hear it (statusd.SubscriberState.Hears): its confirmation whether it is pending or active (an active
// one gets its manage link), a test whether it is active or quarantined;
// otherwise it is expanded to nothing, rather than make a delivery that is
// never claimed.
func (ss subscriberStore) Expand(ctx context.Context, now time.Time, limit int) (int, error) {
	expanded, made := 0, int64(0)
	err := ss.s.outbox(ctx, func(t tx) error {
		if err := t.set(t.d.shareSubscribers); err != nil {
			return err
		}
		events, err := unexpanded(t, limit)
		if err != nil || len(events) == 0 {
			return err
		}
		insert, err := t.prepare(insertDeliveries(t.d))
		if err != nil {
			return err
		}
		defer insert.Close()
		var everyone *audience // read at the first event for everyone
		ids := make([]int64, len(events))
		for i, e := range events {
			ids[i] = e.ID
			var to []string // JSON arrays of subscriber ids
			switch {
			case e.SubscriberID != 0:
				var state string
				err := t.row(`SELECT state FROM subscribers WHERE id = ?`, e.SubscriberID).Scan(&state)
				if err != nil && !errors.Is(err, sql.ErrNoRows) {
					return err
				}
				if statusd.SubscriberState(state).Hears(e.Kind) {
					to = []string{idsJSON([]int64{e.SubscriberID})}
				}
			case e.Kind == statusd.TestMessage || e.Kind == statusd.SubscriptionConfirm:
				// Meant for one subscriber, and none named: for nobody.
			default:
				if everyone == nil {
					if everyone, err = readAudience(t); err != nil {
						return err
					}
				}
				to = everyone.wanting(e)
			}
			for _, ids := range to {
				res, err := insert.ExecContext(t.ctx, e.ID, ms(now), ms(now), ids)
				if err != nil {
					return fmt.Errorf("deliveries of event %d: %w", e.ID, err)
				}
				n, _ := res.RowsAffected() // both drivers count; 0 only stops an ANALYZE
				made += n
			}
		}
		if _, err := t.exec(`UPDATE events SET expanded_at = ? WHERE id`+t.d.inIDs, ms(now), idsJSON(ids)); err != nil {
			return err
		}
		expanded = len(events)
		return nil
	})
	if err == nil && made >= analyzeAfter && ss.s.d.analyzeOutbox != "" {
		// The deliveries are claimed next: plan the claims on statistics
		// that count them. A failure costs only speed.
		start := time.Now()
		if _, err := ss.s.wdb.ExecContext(ctx, ss.s.d.analyzeOutbox); err != nil {
			ss.s.log.Warn("notifications: could not renew the outbox's statistics", "err", err)
		} else {
			ss.s.log.Debug("notifications: renewed the outbox's statistics", "deliveries_made", made, "took", time.Since(start))
		}
	}
	return expanded, err
}

// insertDeliveries is the insert of the pending deliveries of an event
// (its first parameter), due at the second and made at the third, to the
// subscribers whose ids the fourth lists (a JSON array), each once: one
// that has a delivery of the event keeps it.
func insertDeliveries(d *dialect) string {
	return `INSERT INTO deliveries (event_id, subscriber_id, message_id, state, next_attempt_at, created_at)
			SELECT ?, ids.id, ` + d.randomID + `, 'pending', ?, ? FROM (` + d.idList + `) ids WHERE true
			ON CONFLICT (subscriber_id, event_id) DO NOTHING`
}

// analyzeAfter is how many deliveries one Expand makes before it renews
// the outbox's statistics (dialect.analyzeOutbox).
const analyzeAfter = 1000

// unexpanded reads, and locks on PostgreSQL, up to limit events not yet
// expanded, oldest first, skipping those another process holds.
func unexpanded(t tx, limit int) ([]statusd.Event, error) {
	rows, err := t.query(`SELECT `+eventColumns+` FROM events e WHERE e.expanded_at IS NULL ORDER BY e.id LIMIT ?`+
		t.d.lock("FOR UPDATE SKIP LOCKED"), limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []statusd.Event
	for rows.Next() {
		e, err := scanRow(rows, &eventRow{})
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, rows.Err()
}

// audience is who may hear of events for everyone: the active
// subscribers, in groups of one channel that follow the same components,
// and the component tree. Who hears of an event has one rule, in Go:
// Channel.Carries and Subscriber.Wants (with Hears: only active
// subscribers hear of notices). The SQL of readAudience is only a coarse
// filter for speed: it takes the active subscribers and groups them by
// their channel and component_ids, deciding nothing about components.
// Subscribers differ, for those rules, only in their channel and
// components: they are asked once a group, and the database gathers each
// group's ids (dialect.idArray), so that the ids of thousands of
// subscribers go from the table into the deliveries without being read
// one by one.
type audience struct {
	groups  []group
	parents map[int64]*int64
}

// group is the active subscribers of one channel that follow the same
// components: a Subscriber with those, and the JSON array of their ids.
type group struct {
	follows statusd.Subscriber
	ids     string
}

func readAudience(t tx) (*audience, error) {
	parents, err := readParents(t)
	if err != nil {
		return nil, err
	}
	a := &audience{parents: parents}
	groups, err := t.query(`SELECT channel, component_ids, ` + t.d.idArray + ` FROM subscribers WHERE state = 'active'
		GROUP BY channel, component_ids`)
	if err != nil {
		return nil, err
	}
	defer groups.Close()
	for groups.Next() {
		var channel, components string
		var g group
		if err := groups.Scan(&channel, &components, &g.ids); err != nil {
			return nil, err
		}
		g.follows.Channel = statusd.Channel(channel)
		if g.follows.ComponentIDs, err = parseIDs(components); err != nil {
			return nil, fmt.Errorf("subscribers' component_ids %s: %w", components, err)
		}
		a.groups = append(a.groups, g)
	}
	return a, groups.Err()
}

// readParents reads the component tree: each component's id, and its
// parent's (nil at the top level), for Subscriber.Wants.
func readParents(t tx) (map[int64]*int64, error) {
	parents := map[int64]*int64{}
	rows, err := t.query(`SELECT id, parent_id FROM components`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var parent sql.NullInt64
		if err := rows.Scan(&id, &parent); err != nil {
			return nil, err
		}
		parents[id] = nullInt(parent)
	}
	return parents, rows.Err()
}

// wanting returns the JSON arrays of the ids of the subscribers whose
// channel carries e and who want it (its notice's components, or its
// component).
func (a *audience) wanting(e statusd.Event) []string {
	var ids []string
	for _, g := range a.groups {
		if g.follows.Channel.Carries(e.Kind) && g.follows.Wants(e.ComponentIDs, a.parents) {
			ids = append(ids, g.ids)
		}
	}
	return ids
}

// deliveryColumns are a delivery's columns and its event's, for
// deliveryRow, from deliveryFrom.
const (
	deliveryColumns = `d.id, d.message_id, d.subscriber_id, d.state, d.attempts, d.last_status, d.last_error,
	d.next_attempt_at, d.delivered_at, d.created_at, ` + eventColumns
	deliveryFrom = `deliveries d JOIN events e ON e.id = d.event_id`
)

// deliveryRow holds the scan of deliveryColumns.
type deliveryRow struct {
	d               statusd.Delivery
	state           string
	next, delivered sql.NullInt64
	created         int64
	event           eventRow
}

func (r *deliveryRow) dest() []any {
	return append([]any{&r.d.ID, &r.d.MessageID, &r.d.SubscriberID, &r.state, &r.d.Attempts, &r.d.LastStatus, &r.d.LastError,
		&r.next, &r.delivered, &r.created}, r.event.dest()...)
}

func (r *deliveryRow) value() (statusd.Delivery, error) {
	d := r.d
	d.State = statusd.DeliveryState(r.state)
	d.NextAttemptAt, d.DeliveredAt, d.CreatedAt = fromMSPtr(r.next), fromMSPtr(r.delivered), fromMS(r.created)
	var err error
	d.Event, err = r.event.value()
	return d, err
}

// Claim leases up to limit due pending deliveries whose subscriber may
// hear them (sendable), of the channels (none named: any), longest due
// first (then oldest), in one transaction: a delivery under a live lease
// is not taken again, and on PostgreSQL the rows another claimer holds
// are skipped (FOR UPDATE SKIP LOCKED), so that two replicas never take
// the same delivery.
func (ss subscriberStore) Claim(ctx context.Context, now time.Time, lease time.Duration, limit int, channels []statusd.Channel) ([]statusd.Claimed, error) {
	var out []statusd.Claimed
	args := []any{ms(now), ms(now)}
	of := "" // the channels, when some are named
	if len(channels) > 0 {
		of = " AND s.channel IN (?" + strings.Repeat(", ?", len(channels)-1) + ")"
		for _, c := range channels {
			args = append(args, string(c))
		}
	}
	args = append(args, limit)
	err := ss.s.outbox(ctx, func(t tx) error {
		// The due deliveries are read first, in the order of their index,
		// and their events and subscribers looked up: CROSS JOIN makes
		// SQLite's planner keep that order, joinInOrder PostgreSQL's.
		if err := t.set(t.d.joinInOrder); err != nil {
			return err
		}
		rows, err := t.query(`SELECT `+deliveryColumns+`, `+subscriberColumns+`
			FROM deliveries d CROSS JOIN events e CROSS JOIN subscribers s
			WHERE e.id = d.event_id AND s.id = d.subscriber_id
			AND d.state = 'pending' AND d.next_attempt_at <= ? AND (d.claimed_until IS NULL OR d.claimed_until <= ?)
			AND `+sendable+of+` ORDER BY d.next_attempt_at, d.id LIMIT ?`+t.d.lock("FOR UPDATE OF d SKIP LOCKED"),
			args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		var ids []int64
		for rows.Next() {
			var dr deliveryRow
			var sr subscriberRow
			if err := rows.Scan(append(dr.dest(), sr.dest()...)...); err != nil {
				return err
			}
			var c statusd.Claimed
			if c.Delivery, err = dr.value(); err != nil {
				return err
			}
			if c.Subscriber, err = sr.value(); err != nil {
				return err
			}
			out = append(out, c)
			ids = append(ids, c.Delivery.ID)
		}
		if err := rows.Err(); err != nil || len(ids) == 0 {
			return err
		}
		rows.Close()
		_, err = t.exec(`UPDATE deliveries SET claimed_until = ? WHERE id`+t.d.inIDs, ms(now.Add(lease)), idsJSON(ids))
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// getDelivery returns a delivery with its event, or nil.
func getDelivery(t tx, id int64) (*statusd.Delivery, error) {
	return scanOne(t.row(`SELECT `+deliveryColumns+` FROM `+deliveryFrom+` WHERE d.id = ?`, id), &deliveryRow{})
}

func noDelivery(id int64) error {
	return statusd.Errorf(statusd.ENotFound, "no delivery has id %d", id)
}

// Record is RecordMany of one attempt.
func (ss subscriberStore) Record(ctx context.Context, id int64, a statusd.Attempt, retryBase time.Duration) (*statusd.Delivery, error) {
	out, err := ss.RecordMany(ctx, []statusd.DeliveryAttempt{{DeliveryID: id, Attempt: a}}, retryBase)
	if err != nil {
		return nil, err
	}
	if out[0] == nil {
		return nil, noDelivery(id)
	}
	return out[0], nil
}

// RecordMany records the attempts, in order, in one transaction (record):
// one commit, and one read, for a batch rather than for each delivery.
func (ss subscriberStore) RecordMany(ctx context.Context, attempts []statusd.DeliveryAttempt, retryBase time.Duration) ([]*statusd.Delivery, error) {
	out := make([]*statusd.Delivery, len(attempts))
	if len(attempts) == 0 {
		return out, nil
	}
	ids := make([]int64, len(attempts))
	for i, da := range attempts {
		ids[i] = da.DeliveryID
	}
	err := ss.s.outbox(ctx, func(t tx) error {
		rows, err := readRecorded(t, ids)
		if err != nil {
			return err
		}
		var rs rowsRecorded
		for i, da := range attempts {
			out[i] = nil
			r := rows[da.DeliveryID]
			if r == nil {
				continue
			}
			if r.sub.moved {
				// Its subscriber left a state in this batch: failPending
				// may have ended the delivery since it was read.
				if err := rs.flush(t); err != nil {
					return err
				}
				again, err := readRecorded(t, []int64{r.d.ID})
				if err != nil {
					return err
				}
				r.d = again[r.d.ID].d
			}
			if err := record(t, r, da.Attempt, retryBase, &rs); err != nil {
				return err
			}
			d := r.d
			out[i] = &d
		}
		return rs.flush(t)
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// recorded is a delivery that RecordMany records, and where its subscriber
// stands, shared by the batch's deliveries to that subscriber.
type recorded struct {
	d   statusd.Delivery
	sub *standing
}

// standing is where a subscriber stands, as the attempts recorded so far
// leave it.
type standing struct {
	state    statusd.SubscriberState
	failures int
	since    sql.NullInt64 // failing since, in Unix ms
	moved    bool          // its state changed (failPending ran)
}

// readRecorded reads the deliveries with ids, their events and where their
// subscribers stand, by delivery id. On PostgreSQL it locks them, each
// subscriber then its deliveries, in the order of the subscribers' ids (a
// row is locked as the sorted rows come), so that two batches never wait
// for each other in a circle, nor a batch and Change or Delete (which lock
// a subscriber, then its deliveries).
func readRecorded(t tx, ids []int64) (map[int64]*recorded, error) {
	rows, err := t.query(`SELECT `+deliveryColumns+`, s.state, s.failures, s.failing_since
		FROM `+deliveryFrom+` JOIN subscribers s ON s.id = d.subscriber_id WHERE d.id`+t.d.inIDs+`
		ORDER BY s.id, d.id`+t.d.lock("FOR NO KEY UPDATE OF s FOR UPDATE OF d"), idsJSON(ids))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := make(map[int64]*recorded, len(ids))
	subs := map[int64]*standing{}
	for rows.Next() {
		var dr deliveryRow
		var st standing
		var state string
		if err := rows.Scan(append(dr.dest(), &state, &st.failures, &st.since)...); err != nil {
			return nil, err
		}
		d, err := dr.value()
		if err != nil {
			return nil, err
		}
		if subs[d.SubscriberID] == nil {
			st.state = statusd.SubscriberState(state)
			subs[d.SubscriberID] = &st
		}
		out[d.ID] = &recorded{d: d, sub: subs[d.SubscriberID]}
	}
	return out, rows.Err()
}

// record stores an attempt of a pending delivery, and ends its lease: it
// loads where the delivery and its subscriber stand, has the rule of
// CONTRACT C7 (statusd.Settle) say what the attempt does, and saves that.
// A subscriber that stops being sent to has its other pending deliveries
// failed (failPending). An attempt that Settle does not record (the
// delivery is no longer pending) changes nothing. record leaves r (the
// delivery, and where its subscriber stands) as it stored it.
func record(t tx, r *recorded, a statusd.Attempt, retryBase time.Duration, rs *rowsRecorded) error {
	sub := r.sub
	d, now, recorded, err := statusd.Settle(r.d, statusd.Standing{State: sub.state, Failures: sub.failures,
		FailingSince: fromMSPtr(sub.since)}, a, retryBase)
	if err != nil || !recorded {
		return err
	}
	if d.NextAttemptAt != nil {
		next := fromMS(ms(*d.NextAttemptAt)) // as stored
		d.NextAttemptAt = &next
	}
	r.d = d
	rs.add(&r.d)
	var since sql.NullInt64
	if now.FailingSince != nil {
		since = sql.NullInt64{Int64: ms(*now.FailingSince), Valid: true}
	}
	if now.Failures != sub.failures || since != sub.since {
		if _, err := t.exec(`UPDATE subscribers SET failures = ?, failing_since = ? WHERE id = ?`,
			now.Failures, nullInt(since), d.SubscriberID); err != nil {
			return err
		}
		sub.failures, sub.since = now.Failures, since
	}
	if now.State == sub.state {
		return nil
	}
	if _, err := t.exec(`UPDATE subscribers SET state = ?, updated_at = ? WHERE id = ?`,
		string(now.State), ms(a.At), d.SubscriberID); err != nil {
		return err
	}
	sub.state, sub.moved = now.State, true
	if err := rs.flush(t); err != nil {
		return err
	}
	return failPending(t, d.SubscriberID, now.State, d.ID)
}

// rowsRecorded are deliveries as record left them, not yet written: a
// batch's rows are written together (flush), on PostgreSQL in one
// statement rather than a round trip each, before anything else reads or
// changes deliveries.
type rowsRecorded []recordedRow

// recordedRow is the JSON of a delivery's row for dialect.recordedRows.
type recordedRow struct {
	ID         int64  `json:"id"`
	State      string `json:"state"`
	Attempts   int    `json:"attempts"`
	LastStatus int    `json:"last_status"`
	LastError  string `json:"last_error"`
	Next       *int64 `json:"next_attempt_at"`
	Delivered  *int64 `json:"delivered_at"`
}

func (rs *rowsRecorded) add(d *statusd.Delivery) {
	*rs = append(*rs, recordedRow{ID: d.ID, State: string(d.State), Attempts: d.Attempts, LastStatus: d.LastStatus,
		LastError: d.LastError, Next: msPtr(d.NextAttemptAt), Delivered: msPtr(d.DeliveredAt)})
}

// flush writes the rows, and ends their leases.
func (rs *rowsRecorded) flush(t tx) error {
	rows := *rs
	*rs = (*rs)[:0]
	if len(rows) == 0 {
		return nil
	}
	if t.d.recordedRows == "" {
		return rows.each(t)
	}
	doc, err := json.Marshal(rows)
	if err != nil {
		return err
	}
	_, err = t.exec(`UPDATE deliveries SET state = v.state, attempts = v.attempts, last_status = v.last_status,
		last_error = v.last_error, next_attempt_at = v.next_attempt_at, delivered_at = v.delivered_at, claimed_until = NULL
		FROM `+t.d.recordedRows+` WHERE deliveries.id = v.id`, string(doc))
	return err
}

// each writes the rows one statement each: in process (SQLite), that
// costs less than reading them from JSON.
func (rs rowsRecorded) each(t tx) error {
	update, err := t.prepare(`UPDATE deliveries SET state = ?, attempts = ?, last_status = ?, last_error = ?,
		next_attempt_at = ?, delivered_at = ?, claimed_until = NULL WHERE id = ?`)
	if err != nil {
		return err
	}
	defer update.Close()
	for _, r := range rs {
		if _, err := update.ExecContext(t.ctx, r.State, r.Attempts, r.LastStatus, r.LastError, r.Next, r.Delivered, r.ID); err != nil {
			return err
		}
	}
	return nil
}

// Prune removes the oldest delivered and dropped deliveries first (a
// dropped one is failed, its last error statusd.DroppedPrefix and why); a
// failed one is kept, as the record of a message that never went. An event is kept while
// it has deliveries, and until before even without: its Key keeps a
// reminder from being stored twice. NOT IN reads the deliveries' event ids
// once (deliveries have no index by event).
func (ss subscriberStore) Prune(ctx context.Context, before time.Time, limit int) (deliveries, events int, err error) {
	err = ss.s.outbox(ctx, func(t tx) error {
		var err error
		deliveries, err = deleteChosen(t, "deliveries", `SELECT id FROM deliveries
			WHERE (state = 'delivered' OR (state = 'failed' AND last_error LIKE ?)) AND created_at < ?
			ORDER BY id LIMIT ?`, statusd.DroppedPrefix+"%", ms(before), limit)
		if err != nil {
			return err
		}
		events, err = deleteChosen(t, "events", `SELECT id FROM events
			WHERE expanded_at IS NOT NULL AND created_at < ? AND id NOT IN (SELECT event_id FROM deliveries)
			ORDER BY id LIMIT ?`, ms(before), limit)
		return err
	})
	if err != nil {
		return 0, 0, err
	}
	return deliveries, events, nil
}

// deleteChosen deletes from table the rows whose ids the query chooses,
// by their ids (dialect.inIDs: "IN (the query)" would make PostgreSQL scan
// the whole table), and returns how many.
func deleteChosen(t tx, table, choose string, args ...any) (int, error) {
	rows, err := t.query(choose, args...)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return 0, err
		}
		ids = append(ids, id)
	}
	if err := rows.Err(); err != nil || len(ids) == 0 {
		return 0, err
	}
	rows.Close()
	_, err = t.exec(`DELETE FROM `+table+` WHERE id`+t.d.inIDs, idsJSON(ids))
	return len(ids), err
}

func (ss subscriberStore) Delivery(ctx context.Context, id int64) (*statusd.Delivery, error) {
	return readOne(ss.s, ctx, noDelivery(id), func(t tx) (*statusd.Delivery, error) { return getDelivery(t, id) })
}

func (ss subscriberStore) Deliveries(ctx context.Context, f statusd.DeliveryFilter, page, perPage int) ([]statusd.Delivery, int, error) {
	q := listQuery{columns: deliveryColumns, from: deliveryFrom, count: `deliveries d`, order: `d.id DESC`}
	q.where.add(f.SubscriberID != 0, `d.subscriber_id = ?`, f.SubscriberID)
	q.where.add(f.State != "", `d.state = ?`, string(f.State))
	return paged(ss.s, ctx, q, page, perPage, func(rows *sql.Rows) (statusd.Delivery, error) {
		return scanRow(rows, &deliveryRow{})
	})
}

// sendMissed queues for the subscribers with ids, just set active again at
// now, what each missed that is still current (Subscriber.Missed), due at
// now: its failed delivery pending again, or a new delivery of an event
// that came while it was not active. The events are those of notices, for
// everyone, expanded and made in the last statusd.ResendWithin. It takes
// the lock of the subscribers (lockSubscribers) first, so that an
// expansion that read them before they were active has committed, its
// events expanded, before they are read. It returns how many deliveries
// it queued.
func sendMissed(t tx, ids []int64, now time.Time) (int, error) {
	if err := lockSubscribers(t); err != nil {
		return 0, err
	}
	var events []statusd.Event
	err := eachRow(t, func(rows *sql.Rows) error {
		e, err := scanRow(rows, &eventRow{})
		events = append(events, e)
		return err
	}, `SELECT `+eventColumns+` FROM events e WHERE e.notice_id <> 0 AND e.subscriber_id = 0 AND e.expanded_at IS NOT NULL
		AND e.created_at > ? ORDER BY e.id`, ms(now.Add(-statusd.ResendWithin)))
	if err != nil || len(events) == 0 {
		return 0, err
	}
	eventIDs := make([]int64, len(events))
	for i, e := range events {
		eventIDs[i] = e.ID
	}
	var subs []statusd.Subscriber
	err = eachRow(t, func(rows *sql.Rows) error {
		s, err := scanRow(rows, &subscriberRow{})
		subs = append(subs, s)
		return err
	}, `SELECT `+subscriberColumns+` FROM subscribers s WHERE s.id`+t.d.inIDs+` ORDER BY s.id`, idsJSON(ids))
	if err != nil {
		return 0, err
	}
	had := map[[2]int64]*statusd.Delivery{} // by subscriber and event
	err = eachRow(t, func(rows *sql.Rows) error {
		d, err := scanRow(rows, &deliveryRow{})
		had[[2]int64{d.SubscriberID, d.Event.ID}] = &d
		return err
	}, `SELECT `+deliveryColumns+` FROM `+deliveryFrom+` WHERE d.subscriber_id`+t.d.inIDs+` AND d.event_id`+t.d.inIDs,
		idsJSON(ids), idsJSON(eventIDs))
	if err != nil {
		return 0, err
	}
	parents, err := readParents(t)
	if err != nil {
		return 0, err
	}
	var again []int64           // failed deliveries, pending again
	made := map[int64][]int64{} // event: the subscribers to make a delivery of it for
	owed := make([]statusd.Owed, len(events))
	for _, s := range subs {
		for i, e := range events {
			owed[i] = statusd.Owed{Event: e, Delivery: had[[2]int64{s.ID, e.ID}]}
		}
		for _, o := range s.Missed(owed, parents, now) {
			if o.Delivery != nil {
				again = append(again, o.Delivery.ID)
			} else {
				made[o.Event.ID] = append(made[o.Event.ID], s.ID)
			}
		}
	}
	queued := len(again)
	if queued > 0 {
		if _, err := t.exec(`UPDATE deliveries SET state = 'pending', next_attempt_at = ?, claimed_until = NULL WHERE id`+t.d.inIDs,
			ms(now), idsJSON(again)); err != nil {
			return 0, err
		}
	}
	for _, e := range eventIDs {
		if made[e] == nil {
			continue
		}
		res, err := t.exec(insertDeliveries(t.d), e, ms(now), ms(now), idsJSON(made[e]))
		if err != nil {
			return 0, fmt.Errorf("deliveries of event %d: %w", e, err)
		}
		n, _ := res.RowsAffected()
		queued += int(n)
	}
	return queued, nil
}

// eachRow runs the query and calls fn on each of its rows.
func eachRow(t tx, fn func(*sql.Rows) error, query string, args ...any) error {
	rows, err := t.query(query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := fn(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}
