package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/statusd/statusd"
)

// Subscribers returns the store's keeper of subscribers and of the
// notification outbox (CONTRACT C7). Its transactions leave the page
// alone: they take no page writer's lock and change no version (outbox).
func (s *Store) Subscribers() statusd.SubscriberStore { return subscriberStore{s} }

type subscriberStore struct{ s *Store }

var _ statusd.SubscriberStore = subscriberStore{}

// subscriberColumns are a subscriber's columns, for subscriberRow.
const subscriberColumns = `s.id, s.channel, s.address, s.component_ids, s.state, s.secret, s.token,
	s.confirm_token, s.confirm_expires_at, s.failures, s.failing_since, s.created_at, s.updated_at`

// subscriberRow holds the scan of subscriberColumns.
type subscriberRow struct {
	s                statusd.Subscriber
	channel, state   string
	components       string
	confirm          sql.NullString
	expires, since   sql.NullInt64
	created, updated int64
}

func (r *subscriberRow) dest() []any {
	return []any{&r.s.ID, &r.channel, &r.s.Address, &r.components, &r.state, &r.s.Secret, &r.s.Token,
		&r.confirm, &r.expires, &r.s.Failures, &r.since, &r.created, &r.updated}
}

func (r *subscriberRow) value() (statusd.Subscriber, error) {
	s := r.s
	s.Channel, s.State = statusd.Channel(r.channel), statusd.SubscriberState(r.state)
	s.ConfirmToken = r.confirm.String
	s.ConfirmExpiresAt, s.FailingSince = fromMSPtr(r.expires), fromMSPtr(r.since)
	s.CreatedAt, s.UpdatedAt = fromMS(r.created), fromMS(r.updated)
	var err error
	if s.ComponentIDs, err = parseIDs(r.components); err != nil {
		return s, fmt.Errorf("subscriber %d: component_ids: %w", s.ID, err)
	}
	return s, nil
}

// parseIDs reads a JSON array of ids; the common empty one without the
// JSON decoder, since expanding an event reads thousands.
func parseIDs[T ~string | ~[]byte](s T) ([]int64, error) {
	ids := []int64{}
	if string(s) == "[]" {
		return ids, nil
	}
	err := json.Unmarshal([]byte(s), &ids)
	return ids, err
}

// idsJSON is the JSON array of ids, for a column or for dialect.idList.
func idsJSON(ids []int64) string {
	if len(ids) == 0 {
		return "[]"
	}
	b, _ := json.Marshal(ids) // a []int64 always marshals
	return string(b)
}

// getSubscriber returns the one subscriber the condition (on s.) chooses,
// or nil; lock ends the query (dialect.lock).
func getSubscriber(t tx, cond, lock string, args ...any) (*statusd.Subscriber, error) {
	return scanOne(t.row(`SELECT `+subscriberColumns+` FROM subscribers s WHERE `+cond+lock, args...), &subscriberRow{})
}

// rowOf is what the columns of a row are scanned into (dest), and makes
// the value they give.
type rowOf[T any] interface {
	dest() []any
	value() (T, error)
}

// scanRow scans the current row of rows into r and returns its value.
func scanRow[T any](rows *sql.Rows, r rowOf[T]) (T, error) {
	if err := rows.Scan(r.dest()...); err != nil {
		var zero T
		return zero, err
	}
	return r.value()
}

// scanOne scans the row into r and returns its value, or nil when there
// is no row.
func scanOne[T any](row *sql.Row, r rowOf[T]) (*T, error) {
	err := row.Scan(r.dest()...)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	v, err := r.value()
	return &v, err
}

// readOne reads, in a read transaction, the one value get finds, or
// returns missing when there is none.
func readOne[T any](s *Store, ctx context.Context, missing error, get func(tx) (*T, error)) (*T, error) {
	var v *T
	err := s.read(ctx, func(t tx) error {
		var err error
		v, err = get(t)
		return err
	})
	if err != nil {
		return nil, unavailable(err)
	}
	if v == nil {
		return nil, missing
	}
	return v, nil
}

func noSubscriber(id int64) error {
	return statusd.Errorf(statusd.ENotFound, "no subscriber has id %d", id)
}

// subscriberInsert is the insert of a subscriber's insertValues,
// with or without its id first.
func subscriberInsert(withID bool) string {
	cols, vals := "", ""
	if withID {
		cols, vals = "id, ", "?, "
	}
	return `INSERT INTO subscribers (` + cols + `channel, address, component_ids, state, secret, token,
	confirm_token, confirm_expires_at, failures, failing_since, created_at, updated_at, address_key)
	VALUES (` + vals + `?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
}

func subscriberValues(s *statusd.Subscriber) []any {
	var confirm *string
	if s.ConfirmToken != "" {
		confirm = &s.ConfirmToken
	}
	return []any{string(s.Channel), s.Address, idsJSON(s.ComponentIDs), string(s.State), s.Secret, s.Token,
		confirm, msPtr(s.ConfirmExpiresAt), s.Failures, msPtr(s.FailingSince), ms(s.CreatedAt), ms(s.UpdatedAt)}
}

// insertValues are the values of subscriberInsert: subscriberValues, and
// the address's key (statusd.AddressKey).
func insertValues(s *statusd.Subscriber) []any {
	return append(subscriberValues(s), statusd.AddressKey(s.Channel, s.Address))
}

// fillKeys gives a new subscriber the keys it lacks: the Token of its
// links, and a webhook's signing Secret; and its address in the form it
// is stored in (statusd.StoredAddress).
func fillKeys(s *statusd.Subscriber) {
	s.Address = statusd.StoredAddress(s.Channel, s.Address)
	if s.Token == "" {
		s.Token = statusd.NewToken()
	}
	if s.Channel == statusd.Webhook && s.Secret == "" {
		s.Secret = statusd.NewWebhookSecret()
	}
}

// insertSubscriber inserts s, unless one with its channel and address
// (statusd.AddressKey) exists, and returns its new id, or 0 when one
// exists.
func insertSubscriber(t tx, s *statusd.Subscriber) (int64, error) {
	var id int64
	err := t.row(subscriberInsert(false)+` ON CONFLICT DO NOTHING RETURNING id`, insertValues(s)...).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	return id, err
}

func conflict(s *statusd.Subscriber) error {
	return statusd.Errorf(statusd.EConflict, "a %s subscriber with the address %s exists", s.Channel, s.Address)
}

// Add stores a new subscriber with a new id, a Token, and a Secret when it
// is a webhook without one. The audit entry's Target, when empty, is
// "subscriber <id>": the id is known only now.
func (ss subscriberStore) Add(ctx context.Context, s *statusd.Subscriber, e statusd.AuditEntry) error {
	fillKeys(s)
	return ss.s.outbox(ctx, func(t tx) error {
		id, err := insertSubscriber(t, s)
		if err != nil {
			return err
		}
		if id == 0 {
			return conflict(s)
		}
		s.ID = id
		if e.Target == "" {
			e.Target = fmt.Sprintf("subscriber %d", id)
		}
		return audit(t, e)
	})
}

func (ss subscriberStore) Get(ctx context.Context, id int64) (*statusd.Subscriber, error) {
	return ss.one(ctx, noSubscriber(id), `s.id = ?`, id)
}

// one reads the subscriber the condition chooses, or returns missing.
func (ss subscriberStore) one(ctx context.Context, missing error, cond string, args ...any) (*statusd.Subscriber, error) {
	return readOne(ss.s, ctx, missing, func(t tx) (*statusd.Subscriber, error) { return getSubscriber(t, cond, "", args...) })
}

func (ss subscriberStore) ByToken(ctx context.Context, token string, confirm bool, now time.Time) (*statusd.Subscriber, error) {
	missing := statusd.Errorf(statusd.ENotFound, "this link is not valid (any more); subscribe again")
	if token == "" || !utf8.ValidString(token) || strings.IndexByte(token, 0) >= 0 {
		// No token is one; PostgreSQL refuses such text outright.
		return nil, missing
	}
	if confirm {
		return ss.one(ctx, missing, `s.confirm_token = ? AND s.confirm_expires_at > ?`, token, ms(now))
	}
	return ss.one(ctx, missing, `s.token = ?`, token)
}

func (ss subscriberStore) List(ctx context.Context, f statusd.SubscriberFilter, page, perPage int) ([]statusd.Subscriber, int, error) {
	q := listQuery{columns: subscriberColumns, from: `subscribers s`, count: `subscribers s`, order: `s.id`}
	q.where.add(f.Channel != "", `s.channel = ?`, string(f.Channel))
	q.where.add(f.State != "", `s.state = ?`, string(f.State))
	return paged(ss.s, ctx, q, page, perPage, func(rows *sql.Rows) (statusd.Subscriber, error) {
		return scanRow(rows, &subscriberRow{})
	})
}

// Change runs fn on the subscriber, locked, and stores what it leaves (its
// id aside). A subscriber made active is set so by activate: it counts
// failures afresh, and, back from quarantine or its receiver's 410, is
// sent what it missed, at the UpdatedAt fn leaves. One that leaves the
// active state has the pending deliveries it may no longer hear failed
// (failPending).
func (ss subscriberStore) Change(ctx context.Context, id int64, fn func(*statusd.Subscriber) error, e *statusd.AuditEntry) (*statusd.Subscriber, error) {
	var out *statusd.Subscriber
	err := ss.s.outbox(ctx, func(t tx) error {
		old, err := getSubscriber(t, `s.id = ?`, t.d.lock("FOR NO KEY UPDATE"), id)
		if err != nil {
			return err
		}
		if old == nil {
			return noSubscriber(id)
		}
		s := *old
		s.ComponentIDs = append([]int64{}, old.ComponentIDs...)
		if err := fn(&s); err != nil {
			return err
		}
		s.ID = id
		if s.Channel != old.Channel || s.Address != old.Address {
			if err := moveSubscriber(t, &s); err != nil {
				return err
			}
		}
		if _, err := t.exec(`UPDATE subscribers SET channel = ?, address = ?, component_ids = ?, state = ?, secret = ?,
			token = ?, confirm_token = ?, confirm_expires_at = ?, failures = ?, failing_since = ?, created_at = ?,
			updated_at = ? WHERE id = ?`, append(subscriberValues(&s), id)...); err != nil {
			return err
		}
		if s.State != old.State {
			if err := failPending(t, id, s.State, 0); err != nil {
				return err
			}
		}
		out = &s
		var entry *statusd.AuditEntry // e, with what activate did
		if e != nil {
			c := *e
			entry = &c
		}
		if s.State == statusd.SubscriberActive && old.State != statusd.SubscriberActive {
			back := old.State != statusd.SubscriberPending // not a confirmation
			n, err := activate(t, []int64{id}, back, s.UpdatedAt)
			if err != nil {
				return err
			}
			if out, err = getSubscriber(t, `s.id = ?`, "", id); err != nil {
				return err
			}
			if entry != nil && back {
				entry.Detail += fmt.Sprintf("; %d messages sent again", n)
			}
		}
		if entry == nil {
			return nil
		}
		return audit(t, *entry)
	})
	return out, err
}

// activate sets the subscribers with ids active at now, counting their
// failures afresh, so that one more failure does not quarantine one at
// once; those that come back (back: from quarantine, or from their
// receiver's 410) are sent what they missed (sendMissed). It returns how
// many deliveries it queued.
func activate(t tx, ids []int64, back bool, now time.Time) (int, error) {
	if _, err := t.exec(`UPDATE subscribers SET state = 'active', failures = 0, failing_since = NULL, updated_at = ?
		WHERE id`+t.d.inIDs, ms(now), idsJSON(ids)); err != nil {
		return 0, err
	}
	if !back {
		return 0, nil
	}
	return sendMissed(t, ids, now)
}

// Reactivate locks the subscribers it may set active, in the order of
// their ids (as Change and RecordMany lock them), checks those r names,
// and activates the quarantined ones.
func (ss subscriberStore) Reactivate(ctx context.Context, r statusd.Reactivation, now time.Time, e statusd.AuditEntry) (statusd.Reactivated, error) {
	var out statusd.Reactivated
	err := ss.s.outbox(ctx, func(t tx) error {
		var where filter
		where.add(r.IDs != nil, `id`+t.d.inIDs, idsJSON(r.IDs))
		where.add(r.IDs == nil, `state = ?`, string(statusd.SubscriberQuarantined))
		where.add(r.IDs == nil && r.Channel != "", `channel = ?`, string(r.Channel))
		rows, err := t.query(`SELECT id, channel, state FROM subscribers`+where.String()+` ORDER BY id`+t.d.lock("FOR NO KEY UPDATE"),
			where.args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		found := map[int64]statusd.Subscriber{}
		var ids []int64
		for rows.Next() {
			var sub statusd.Subscriber
			var channel, state string
			if err := rows.Scan(&sub.ID, &channel, &state); err != nil {
				return err
			}
			sub.Channel, sub.State = statusd.Channel(channel), statusd.SubscriberState(state)
			found[sub.ID] = sub
			ids = append(ids, sub.ID)
		}
		if err := rows.Err(); err != nil {
			return err
		}
		rows.Close()
		if err := statusd.Invalid(statusd.EInvalidField, unreactivable(r, found)); err != nil {
			return err
		}
		if len(ids) > 0 {
			if out.Requeued, err = activate(t, ids, true, now); err != nil {
				return err
			}
		}
		out.Subscribers = len(ids)
		e.Detail += fmt.Sprintf("; %d subscribers active again, %d messages sent again", out.Subscribers, out.Requeued)
		return audit(t, e)
	})
	if err != nil {
		return statusd.Reactivated{}, err
	}
	return out, nil
}

// unreactivable names, by its path, each id of r that is not a
// quarantined subscriber of r's channel, given the subscribers found by
// id.
func unreactivable(r statusd.Reactivation, found map[int64]statusd.Subscriber) []statusd.Problem {
	var problems []statusd.Problem
	for i, id := range r.IDs {
		sub, ok := found[id]
		var msg string
		switch {
		case !ok:
			msg = fmt.Sprintf("no subscriber has id %d", id)
		case r.Channel != "" && sub.Channel != r.Channel:
			msg = fmt.Sprintf("subscriber %d is a %s subscriber, not %s", id, sub.Channel, r.Channel)
		case sub.State != statusd.SubscriberQuarantined:
			msg = fmt.Sprintf("subscriber %d is %s, not quarantined", id, sub.State)
		default:
			continue
		}
		problems = append(problems, statusd.Problem{Path: fmt.Sprintf("ids[%d]", i), Message: msg})
	}
	return problems
}

// moveSubscriber gives a subscriber that Change gives a new channel or
// address that address in its stored form (statusd.StoredAddress) and its
// key, unless another subscriber has either: an *Error EConflict then.
// A subscriber that keeps its address keeps its key, even one that the
// migration to keys left apart from another in another case.
func moveSubscriber(t tx, s *statusd.Subscriber) error {
	s.Address = statusd.StoredAddress(s.Channel, s.Address)
	key := statusd.AddressKey(s.Channel, s.Address)
	var n int
	if err := t.row(`SELECT count(*) FROM subscribers WHERE channel = ? AND (address_key = ? OR address = ?) AND id <> ?`,
		string(s.Channel), key, s.Address, s.ID).Scan(&n); err != nil {
		return err
	}
	if n > 0 {
		return conflict(s)
	}
	_, err := t.exec(`UPDATE subscribers SET address_key = ? WHERE id = ?`, key, s.ID)
	return err
}

// failPending ends as failed the pending deliveries of a subscriber now in
// state that it may not hear there (statusd.SubscriberState.Hears): every one when it
// unsubscribed, all but tests when it is quarantined, all but its
// confirmation when it is pending; but the one being recorded (except, or
// 0). They would otherwise wait, never claimed, and a quarantine's backlog
// would go out when an operator lifts it, its news stale. It takes the
// lock of the subscribers (lockSubscribers) first.
func failPending(t tx, subscriberID int64, state statusd.SubscriberState, except int64) error {
	var reason, spared string
	switch state {
	case statusd.SubscriberUnsubscribed:
		reason = "not sent: the subscriber unsubscribed"
	case statusd.SubscriberQuarantined:
		reason, spared = "not sent: the subscriber is quarantined", string(statusd.TestMessage)
	case statusd.SubscriberPending:
		reason, spared = "not sent: the subscriber awaits its confirmation", string(statusd.SubscriptionConfirm)
	default:
		return nil
	}
	if err := lockSubscribers(t); err != nil {
		return err
	}
	_, err := t.exec(`UPDATE deliveries SET state = 'failed', last_error = ?, next_attempt_at = NULL, claimed_until = NULL
		WHERE subscriber_id = ? AND state = 'pending' AND id <> ?
		AND event_id IN (SELECT id FROM events WHERE kind <> ?)`, reason, subscriberID, except, spared)
	return err
}

// lockSubscribers takes the lock of the subscribers to send to
// (dialect.lockSubscribers) for the transaction.
func lockSubscribers(t tx) error {
	return t.set(t.d.lockSubscribers)
}

// Delete removes a subscriber and its deliveries. The subscriber is locked
// first, as Change and Record lock it, before its deliveries.
func (ss subscriberStore) Delete(ctx context.Context, id int64, e statusd.AuditEntry) error {
	return ss.s.outbox(ctx, func(t tx) error {
		var found int64
		err := t.row(`SELECT id FROM subscribers WHERE id = ?`+t.d.lock("FOR UPDATE"), id).Scan(&found)
		if errors.Is(err, sql.ErrNoRows) {
			return noSubscriber(id)
		}
		if err != nil {
			return err
		}
		if err := lockSubscribers(t); err != nil {
			return err
		}
		for _, q := range []string{`DELETE FROM deliveries WHERE subscriber_id = ?`, `DELETE FROM subscribers WHERE id = ?`} {
			if _, err := t.exec(q, id); err != nil {
				return err
			}
		}
		return audit(t, e)
	})
}

// Request records a self-service email subscription, of the address in
// its stored form (statusd.StoredAddress), found whatever its case
// (statusd.AddressKey). A pending subscriber whose confirmation has not
// expired keeps its token, now valid 48 hours from now, so that every
// link sent in the last 48 hours works until one is used. A quarantined
// address is left as it is, and nothing is sent to it (CONTRACT C7:
// nothing is sent until an operator sets it active again), yet the
// request does the same work as any other; the caller answers the same
// page whatever the address's state.
func (ss subscriberStore) Request(ctx context.Context, email string, componentIDs []int64, now time.Time) error {
	email = statusd.StoredAddress(statusd.Email, email)
	return ss.s.outbox(ctx, func(t tx) error {
		find := func() (*statusd.Subscriber, error) {
			return getSubscriber(t, `s.channel = 'email' AND s.address_key = ?`, t.d.lock("FOR NO KEY UPDATE"),
				statusd.AddressKey(statusd.Email, email))
		}
		s, err := find()
		if err != nil {
			return err
		}
		expires := now.Add(statusd.ConfirmationValidity)
		if s == nil {
			s = &statusd.Subscriber{Channel: statusd.Email, Address: email, ComponentIDs: componentIDs,
				State: statusd.SubscriberPending, Token: statusd.NewToken(), ConfirmToken: statusd.NewToken(),
				ConfirmExpiresAt: &expires, CreatedAt: now, UpdatedAt: now}
			if s.ID, err = insertSubscriber(t, s); err != nil {
				return err
			}
			if s.ID != 0 {
				return emitConfirm(t, s.ID, now)
			}
			// Another request inserted it since (PostgreSQL): it is found,
			// and locked, now that that one committed.
			if s, err = find(); err != nil || s == nil {
				return errors.Join(err, errors.New("the subscriber requested was inserted and deleted meanwhile"))
			}
		}
		switch {
		case s.State == statusd.SubscriberQuarantined, s.State == statusd.SubscriberActive:
			// The same work as for a pending address, so that no answer's
			// timing tells the state: an update (that changes nothing)
			// and the event, which Expand turns into nothing for a
			// quarantined one and into its manage link for an active one.
			if _, err := t.exec(`UPDATE subscribers SET updated_at = updated_at WHERE id = ?`, s.ID); err != nil {
				return err
			}
		case s.State == statusd.SubscriberPending && s.ConfirmToken != "" && s.ConfirmExpiresAt != nil && now.Before(*s.ConfirmExpiresAt):
			// The links sent before keep working: the new email carries
			// the same token, valid 48 hours from now.
			if _, err := t.exec(`UPDATE subscribers SET component_ids = ?, confirm_expires_at = ?, updated_at = ? WHERE id = ?`,
				idsJSON(componentIDs), ms(expires), ms(now), s.ID); err != nil {
				return err
			}
		case s.State == statusd.SubscriberPending, s.State == statusd.SubscriberUnsubscribed:
			if _, err := t.exec(`UPDATE subscribers SET state = 'pending', component_ids = ?, confirm_token = ?,
				confirm_expires_at = ?, failures = 0, failing_since = NULL, updated_at = ? WHERE id = ?`,
				idsJSON(componentIDs), statusd.NewToken(), ms(expires), ms(now), s.ID); err != nil {
				return err
			}
		}
		return emitConfirm(t, s.ID, now)
	})
}

// emitConfirm stores the event that sends a subscriber its confirmation
// (or, when active, its manage link).
func emitConfirm(t tx, subscriberID int64, now time.Time) error {
	_, err := emit(t, statusd.Event{Kind: statusd.SubscriptionConfirm, SubscriberID: subscriberID, CreatedAt: now})
	return err
}

// insertSubscribers replaces every subscriber, and their deliveries, with
// subs (an import), each with its id and the keys it lacks (fillKeys).
func insertSubscribers(t tx, subs []statusd.Subscriber) error {
	if err := lockSubscribers(t); err != nil {
		return err
	}
	for _, q := range []string{`DELETE FROM deliveries`, `DELETE FROM subscribers`} {
		if _, err := t.exec(q); err != nil {
			return err
		}
	}
	stmt, err := t.prepare(subscriberInsert(true))
	if err != nil {
		return err
	}
	defer stmt.Close()
	for _, s := range subs {
		fillKeys(&s)
		if _, err := stmt.ExecContext(t.ctx, append([]any{s.ID}, insertValues(&s)...)...); err != nil {
			return fmt.Errorf("subscriber %d: %w", s.ID, err)
		}
	}
	if t.d.resyncIDs != "" {
		_, err = t.exec(t.d.resyncIDs)
	}
	return err
}
