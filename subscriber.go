package statusd

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/base64"
	mathrand "math/rand/v2"
	"net/mail"
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// This file holds the domain of subscriptions and notifications (CONTRACT
// C7): who is told (Subscriber), what they are told of (Event), each message
// owed to one subscriber (Delivery), and the rules of matching, retrying and
// quarantining. Storage is SubscriberStore's; sending is internal/notify's.

// Channel is how a subscriber is told.
type Channel string

// The channels of CONTRACT C7.
const (
	Email   Channel = "email"
	Webhook Channel = "webhook"
	Slack   Channel = "slack"
	Teams   Channel = "teams"
	Discord Channel = "discord"
)

// Channels lists every channel.
var Channels = []Channel{Email, Webhook, Slack, Teams, Discord}

// HTTPChannels are the channels sent by HTTP: every channel but Email.
var HTTPChannels = []Channel{Webhook, Slack, Teams, Discord}

// Valid reports whether c is a channel.
func (c Channel) Valid() bool { return slices.Contains(Channels, c) }

// SubscriberState is where a subscriber stands.
type SubscriberState string

// The subscriber states of CONTRACT C7.
const (
	// SubscriberPending waits for its email confirmation; nothing is sent
	// to it but that.
	SubscriberPending SubscriberState = "pending"
	// SubscriberActive is told of every event it wants.
	SubscriberActive SubscriberState = "active"
	// SubscriberQuarantined failed too often; nothing is sent until an
	// operator sets it active again.
	SubscriberQuarantined SubscriberState = "quarantined"
	// SubscriberUnsubscribed left (or its receiver answered 410).
	SubscriberUnsubscribed SubscriberState = "unsubscribed"
)

// SubscriberStates lists every subscriber state.
var SubscriberStates = []SubscriberState{SubscriberPending, SubscriberActive, SubscriberQuarantined, SubscriberUnsubscribed}

// Valid reports whether s is a subscriber state.
func (s SubscriberState) Valid() bool { return slices.Contains(SubscriberStates, s) }

// Subscriber is a person or a system to tell: an email address, or the URL
// of a webhook or a chat channel.
type Subscriber struct {
	ID      int64
	Channel Channel
	// Address is the email address, or the target URL.
	Address string
	// ComponentIDs are the components it follows; empty means the whole page.
	ComponentIDs []int64
	State        SubscriberState
	// Secret signs a webhook's deliveries: "whsec_" and the base64 of 32
	// random bytes (NewWebhookSecret). Empty on other channels.
	Secret string
	// Token is the key of the subscriber's manage and unsubscribe links,
	// carried by every message (NewToken).
	Token string
	// ConfirmToken and ConfirmExpiresAt are the pending email confirmation
	// (empty and nil when none is pending).
	ConfirmToken     string
	ConfirmExpiresAt *time.Time
	// Failures counts the failed attempts in a row since FailingSince (the
	// first of them); a delivered message resets both.
	Failures     int
	FailingSince *time.Time
	CreatedAt    time.Time
	UpdatedAt    time.Time
}

// ConfirmationValidity is how long an email confirmation link works.
const ConfirmationValidity = 48 * time.Hour

// NewToken returns a random key for a subscriber's links: 32 random bytes
// in unpadded base64url.
func NewToken() string {
	b := make([]byte, 32)
	rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// NewWebhookSecret returns a webhook signing secret: "whsec_" and the
// standard base64 of 32 random bytes (Standard Webhooks).
func NewWebhookSecret() string {
	b := make([]byte, 32)
	rand.Read(b)
	return "whsec_" + base64.StdEncoding.EncodeToString(b)
}

// Hears reports whether a subscriber in state s is sent an event of kind
// (CONTRACT C7): an active one, anything it wants (Wants); a pending one,
// only its confirmation; a quarantined one, only an operator's test, which
// goes regardless of quarantine (that is what it is for); an unsubscribed
// one, nothing.
func (s SubscriberState) Hears(kind EventKind) bool {
	switch s {
	case SubscriberActive:
		return true
	case SubscriberPending:
		return kind == SubscriptionConfirm
	case SubscriberQuarantined:
		return kind == TestMessage
	}
	return false
}

// Wants reports whether the subscriber hears of a notice listing
// noticeComponents: it follows the whole page, or one of the components
// or an ancestor of one (a subscriber to a group hears of its children).
// A notice without components goes to everyone. parents maps each
// component id to its parent's (nil at the top level).
func (s *Subscriber) Wants(noticeComponents []int64, parents map[int64]*int64) bool {
	if len(s.ComponentIDs) == 0 || len(noticeComponents) == 0 {
		return true
	}
	for _, id := range noticeComponents {
		// Walk up the tree; len(parents) bounds the walk should it loop.
		for range len(parents) + 1 {
			if slices.Contains(s.ComponentIDs, id) {
				return true
			}
			p := parents[id]
			if p == nil {
				break
			}
			id = *p
		}
	}
	return false
}

// EventKind is what an event tells.
type EventKind string

// The event kinds. The first three are CONTRACT C7's webhook "event" values.
const (
	// NoticeCreated is a new notice (its first update).
	NoticeCreated EventKind = "notice.created"
	// NoticeUpdated is a later update, a reopen, or an automated
	// maintenance transition.
	NoticeUpdated EventKind = "notice.updated"
	// MaintenanceReminder comes a set time before a maintenance begins.
	MaintenanceReminder EventKind = "maintenance.reminder"
	// TestMessage is an operator's test of one subscriber.
	TestMessage EventKind = "test"
	// SubscriptionConfirm asks an email address to confirm its subscription
	// (or, when it is already active, gives it its manage link).
	SubscriptionConfirm EventKind = "subscription.confirm"
	// ComponentUpdated is a change of a component's state (CONTRACT C3),
	// from any cause: Statuspage's component_update webhook.
	ComponentUpdated EventKind = "component_update"
)

// Carries reports whether the channel carries events of kind: a
// component's update goes to webhooks only, in Statuspage's shape
// (CONTRACT C7); every other kind goes to every channel.
func (c Channel) Carries(kind EventKind) bool { return kind != ComponentUpdated || c == Webhook }

// Event is something subscribers are told of. A notice's events are stored
// in the transaction of the write that made them (Tx.Emit), and turned
// into deliveries, one per subscriber that wants it, after.
type Event struct {
	ID   int64
	Kind EventKind
	// NoticeID and UpdateID name the notice and the update the event tells
	// of (UpdateID 0 for a reminder; both 0 for a test or a confirmation).
	NoticeID int64
	UpdateID int64
	// ComponentIDs are the notice's components when the event was made
	// (for a ComponentUpdated, the one component): they choose the
	// subscribers.
	ComponentIDs []int64
	// OldState and NewState are, for a ComponentUpdated, the component's
	// state before and after the write that made the event, and
	// OldSeverity and NewSeverity the severities that make it degraded
	// (ComponentChange).
	OldState, NewState       PageState
	OldSeverity, NewSeverity Severity
	// SubscriberID, when not 0, is the one subscriber the event is for
	// (a test or a confirmation), whatever it follows.
	SubscriberID int64
	// Key, when not empty, makes the event once only: a second event with
	// the same key is not stored. A reminder's is ReminderKey's,
	// "maintenance.reminder:<notice id>:<begins_at in Unix ms>".
	Key string
	// Thread, for a notice's event, is the notice's: random, given by the
	// store when the notice's first event is stored, and the same for all
	// its events (the email thread of CONTRACT C7); for a
	// ComponentUpdated, its own random id. Set by the store.
	Thread    string
	CreatedAt time.Time
}

// ReminderKey is the Key of the reminder of maintenance noticeID that
// begins at begins: one reminder per begins_at.
func ReminderKey(noticeID int64, begins time.Time) string {
	return string(MaintenanceReminder) + ":" + strconv.FormatInt(noticeID, 10) + ":" + strconv.FormatInt(begins.UnixMilli(), 10)
}

// DeliveryState is where a delivery stands.
type DeliveryState string

// The delivery states of CONTRACT C7.
const (
	DeliveryPending   DeliveryState = "pending"
	DeliveryDelivered DeliveryState = "delivered"
	DeliveryFailed    DeliveryState = "failed"
)

// DeliveryStates lists every delivery state.
var DeliveryStates = []DeliveryState{DeliveryPending, DeliveryDelivered, DeliveryFailed}

// Valid reports whether s is a delivery state.
func (s DeliveryState) Valid() bool { return slices.Contains(DeliveryStates, s) }

// Delivery is one event owed to one subscriber, and what became of it.
type Delivery struct {
	ID int64
	// MessageID is the id of every attempt's message, the webhook-id and
	// the left part of the Message-ID: random, given by the store when it
	// makes the delivery, so that it is unique for good, where row
	// numbers repeat after a rebuild (CONTRACT C7).
	MessageID    string
	Event        Event
	SubscriberID int64
	State        DeliveryState
	Attempts     int
	// LastStatus is the HTTP status, or the SMTP reply code, of the last
	// attempt (0 when it got none); LastError says what went wrong.
	LastStatus int
	LastError  string
	// NextAttemptAt is when a pending delivery is tried next.
	NextAttemptAt *time.Time
	DeliveredAt   *time.Time
	CreatedAt     time.Time
}

// Outcome is how an attempt ended.
type Outcome int

// The outcomes of an attempt.
const (
	// Delivered: the receiver took it (2xx, or the SMTP server accepted it).
	Delivered Outcome = iota
	// Failed: try again later (any other answer, a timeout, no connection).
	Failed
	// Gone: the receiver answered 410; the subscriber is unsubscribed.
	Gone
	// Rejected: the SMTP server refused the address for good (5xx); the
	// subscriber is quarantined.
	Rejected
	// Deferred: the sender's own trouble, not the subscriber's: the SMTP
	// relay could not be reached, refused statusd's login or TLS, closed
	// the session (421), or refused statusd's sender (MAIL FROM) or the
	// message (DATA), which is the same for every subscriber.
	// The delivery is retried as after Failed (NextAttempt, and failed
	// after RetryFor), the attempt counted on it with its error; but the
	// subscriber's failures in a row are left as they are, so that a relay
	// outage quarantines no one. A 4xx or 5xx to one RCPT TO stays the
	// subscriber's (Failed, Rejected); so does a webhook or chat receiver
	// that cannot be reached: that is the receiver's trouble.
	Deferred
	// Dropped: there is nothing to send any more (the notice or the update
	// was deleted, a reminder's maintenance was rescheduled, begun or
	// cancelled, email is off, a confirmation has no token): the delivery
	// ends failed, its LastError DroppedPrefix and why, with no attempt
	// counted, on it or against the subscriber.
	Dropped
)

// Dropped reports whether the delivery was dropped (Outcome Dropped):
// failed with nothing to send, its LastError DroppedPrefix and why.
func (d *Delivery) Dropped() bool {
	return d.State == DeliveryFailed && strings.HasPrefix(d.LastError, DroppedPrefix)
}

// DroppedPrefix begins the LastError of a Dropped delivery. A dropped
// delivery is failed rather than in a state of its own: it was not
// delivered and never will be, which is what failed says to the delivery
// log's readers (CONTRACT C7 lists pending, delivered and failed, and so
// do the admin API, the CLI and the console); the prefix tells it from
// a receiver's failure, and Attempts (unchanged) from a tried one.
const DroppedPrefix = "dropped: "

// Attempt is the result of one try of a delivery.
type Attempt struct {
	At      time.Time
	Outcome Outcome
	Status  int    // the HTTP status or SMTP reply code; 0 when none
	Error   string // empty when delivered
	// RetryAfter is the receiver's Retry-After on a 429 or 503, or 0.
	RetryAfter time.Duration
}

// Retry rules of CONTRACT C7.
const (
	// RetryFor is how long a delivery is retried before it fails.
	RetryFor = 24 * time.Hour
	// MaxRetryDelay bounds the delay between two attempts.
	MaxRetryDelay = time.Hour
	// QuarantineFailures failed attempts in a row, over at least
	// QuarantineSpan, quarantine a subscriber.
	QuarantineFailures = 10
	QuarantineSpan     = time.Hour
	// AttemptTimeout is how long a receiver has to answer.
	AttemptTimeout = 10 * time.Second
	// DeliveryRetention is how long, by default (serve --notify-keep),
	// the delivery log keeps a delivered or dropped delivery, counted from
	// its making, and the outbox an event once it has no delivery left;
	// the notification worker prunes older ones.
	DeliveryRetention = 30 * 24 * time.Hour
)

// NextAttempt returns when to try a delivery again after its attempts-th
// failed attempt at a.At, given the base delay: exponential backoff from
// base, doubled each time, capped at MaxRetryDelay, with up to 20% jitter on top,
// and never before the receiver's Retry-After. ok is false when the
// delivery made at created has been retried for RetryFor and now fails.
func NextAttempt(created time.Time, attempts int, a Attempt, base time.Duration) (next time.Time, ok bool) {
	d := base
	for i := 1; i < attempts && d < MaxRetryDelay; i++ {
		d *= 2
	}
	d = min(d, MaxRetryDelay)
	d += time.Duration(mathrand.Float64() * 0.2 * float64(d))
	next = a.At.Add(max(d, a.RetryAfter))
	if next.After(created.Add(RetryFor)) {
		return time.Time{}, false
	}
	return next, true
}

// Quarantined reports whether a subscriber with failures failed attempts
// in a row, the first at since, is quarantined at now.
func Quarantined(failures int, since *time.Time, now time.Time) bool {
	return failures >= QuarantineFailures && since != nil && now.Sub(*since) >= QuarantineSpan
}

// CheckTarget checks a webhook or chat URL at creation (CONTRACT C7): an
// absolute https URL, without control characters or the invisible marks
// that reorder text (checkVisible), whose host is not literally an
// address that is not public (PublicAddr: loopback, private, link-local,
// multicast, unspecified, and every other special-purpose block that is
// not globally reachable) nor localhost. With allowPrivate, http and
// those addresses are allowed. The address it resolves to is checked
// again at connect time by the sender.
func CheckTarget(raw string, allowPrivate bool) error {
	if err := checkVisible(raw); err != nil {
		return err
	}
	u, err := url.Parse(raw)
	if err != nil || !u.IsAbs() || u.Host == "" || u.User != nil {
		return FieldError(EInvalidField, "address", "%q is not an absolute URL without credentials", raw)
	}
	switch {
	case u.Scheme == "https":
	case u.Scheme == "http" && allowPrivate:
	default:
		return FieldError(EInvalidField, "address", "the URL must be https (http is allowed only with --allow-private-targets)")
	}
	if allowPrivate {
		return nil
	}
	host := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return FieldError(EInvalidField, "address", "%s is a private address; statusd sends only to public ones", host)
	}
	if ip, err := netip.ParseAddr(host); err == nil && !PublicAddr(ip) {
		return FieldError(EInvalidField, "address", "%s is a private address; statusd sends only to public ones", host)
	}
	return nil
}

// CheckEmail checks an email address: one bare address (no display name),
// at most 254 bytes, without control characters or the invisible marks
// that reorder text (checkVisible).
func CheckEmail(addr string) error {
	if err := checkVisible(addr); err != nil {
		return err
	}
	a, err := mail.ParseAddress(addr)
	if err != nil || a.Name != "" || a.Address != addr || len(addr) > 254 || !strings.Contains(addr, "@") {
		return FieldError(EInvalidField, "address", "%q is not an email address (like name@example.com)", addr)
	}
	return nil
}

// checkVisible refuses an address (an email address or a URL) that holds
// a control character or an invisible mark that reorders text
// (bidiControl), which would show an operator, or a mail client, another
// address than the one statusd sends to.
func checkVisible(addr string) error {
	if i := strings.IndexFunc(addr, func(r rune) bool { return unicode.IsControl(r) || bidiControl(r) }); i >= 0 {
		r, _ := utf8.DecodeRuneInString(addr[i:])
		return FieldError(EInvalidField, "address", "%q holds the invisible character U+%04X (a control or text-direction mark); type the address without it", addr, r)
	}
	return nil
}

// bidiControl reports whether r is a Unicode bidirectional control: the
// embeddings and overrides (U+202A to U+202E), the isolates (U+2066 to
// U+2069), and the marks (U+200E, U+200F, U+061C).
func bidiControl(r rune) bool {
	return r >= 0x202A && r <= 0x202E || r >= 0x2066 && r <= 0x2069 || r == 0x200E || r == 0x200F || r == 0x061C
}

// StoredAddress is the form a subscriber's address is stored and sent to
// in: an email address with its domain in lower case (domains are
// case-insensitive; the local part stays as typed, since a few servers
// tell its cases apart); a URL as it is.
func StoredAddress(c Channel, addr string) string {
	at := strings.LastIndexByte(addr, '@')
	if c != Email || at < 0 {
		return addr
	}
	return addr[:at] + lowerASCII(addr[at:])
}

// AddressKey is what the addresses of one subscriber share: no two
// subscribers of a channel have the same. An email address's is the whole
// address in lower case, so that Bob@Example.COM and bob@example.com are
// one subscriber; a URL's is the URL.
func AddressKey(c Channel, addr string) string {
	if c != Email {
		return addr
	}
	return lowerASCII(addr)
}

// lowerASCII lowers the ASCII letters of s only, as SQLite's lower() does
// (the migration that made AddressKey a column computed it with lower()).
func lowerASCII(s string) string {
	return strings.Map(func(r rune) rune {
		if 'A' <= r && r <= 'Z' {
			return r + 'a' - 'A'
		}
		return r
	}, s)
}

// SubscriberFilter chooses subscribers in a list; empty fields choose all.
type SubscriberFilter struct {
	Channel Channel
	State   SubscriberState
}

// DeliveryFilter chooses deliveries in a list; empty fields choose all.
type DeliveryFilter struct {
	SubscriberID int64
	State        DeliveryState
}

// ResendWithin is how recent an event of a notice must be to be sent to a
// subscriber set active again (Subscriber.Missed): older news is stale.
const ResendWithin = 24 * time.Hour

// Owed is an event of a notice, for everyone, and the delivery of it to
// one subscriber: nil when none was made (the event came while the
// subscriber was not active).
type Owed struct {
	Event    Event
	Delivery *Delivery
}

// Missed returns what a subscriber set active again at now, from
// quarantine or from its receiver's 410, is sent of the events of owed:
// for each notice, only its newest event made less than ResendWithin
// before now that concerns the subscriber (it has a delivery of it; or
// the event came after the subscriber was created, and its channel
// carries it and it wants it: Channel.Carries, Wants on the component
// tree parents). That event is sent when its delivery failed, but was not
// dropped (Delivery.Dropped), or when none was made; its older events are
// not, so that a subscriber is not flooded with stale updates (a message
// renders its event as it was made, and the newest tells the notice as it
// is). Anything else (a confirmation, a test, a component's update) is
// not in owed. The events come in id order.
func (s *Subscriber) Missed(owed []Owed, parents map[int64]*int64, now time.Time) []Owed {
	newest := map[int64]Owed{} // by notice
	for _, o := range owed {
		e := o.Event
		concerns := o.Delivery != nil ||
			!e.CreatedAt.Before(s.CreatedAt) && s.Channel.Carries(e.Kind) && s.Wants(e.ComponentIDs, parents)
		if !concerns || now.Sub(e.CreatedAt) >= ResendWithin {
			continue
		}
		if n, ok := newest[e.NoticeID]; !ok || e.ID > n.Event.ID {
			newest[e.NoticeID] = o
		}
	}
	var send []Owed
	for _, o := range newest {
		if d := o.Delivery; d == nil || d.State == DeliveryFailed && !d.Dropped() {
			send = append(send, o)
		}
	}
	slices.SortFunc(send, func(a, b Owed) int { return cmp.Compare(a.Event.ID, b.Event.ID) })
	return send
}

// Reactivation chooses the quarantined subscribers that
// SubscriberStore.Reactivate sets active again: those of Channel (empty:
// of every channel) and, when IDs is not nil, those it lists.
type Reactivation struct {
	Channel Channel
	IDs     []int64
}

// Reactivated is what setting subscribers active again did: how many it
// set active, and how many messages it queued to send them again.
type Reactivated struct {
	Subscribers int
	Requeued    int
}

// SubscriberStore keeps the subscribers and the notification outbox
// (CONTRACT C7). Each method is one transaction. Methods that change a
// subscriber for a person take the audit entry to record with the change.
// Implementations are safe for concurrent use, by several processes on one
// database too.
type SubscriberStore interface {
	// Add stores a new subscriber and gives it its ID; an *Error
	// EConflict when one with the same channel and address exists.
	Add(ctx context.Context, s *Subscriber, e AuditEntry) error
	// Get returns a subscriber; an *Error ENotFound when there is none.
	Get(ctx context.Context, id int64) (*Subscriber, error)
	// ByToken returns the subscriber whose Token (or, with confirm, whose
	// unexpired ConfirmToken at now) is token; an *Error ENotFound when
	// there is none.
	ByToken(ctx context.Context, token string, confirm bool, now time.Time) (*Subscriber, error)
	// List returns a page (from 1) of the subscribers the filter chooses,
	// by id, and how many it chooses in all.
	List(ctx context.Context, f SubscriberFilter, page, perPage int) ([]Subscriber, int, error)
	// Change runs fn on the subscriber and stores what it leaves, in one
	// transaction; an *Error ENotFound when there is none. A nil e records
	// nothing in the audit log. A subscriber that becomes active counts
	// its failures afresh; one that fn sets active again from quarantined
	// or unsubscribed is also sent what it missed, as Reactivate does, at
	// the UpdatedAt that fn leaves.
	Change(ctx context.Context, id int64, fn func(*Subscriber) error, e *AuditEntry) (*Subscriber, error)
	// Reactivate sets the quarantined subscribers that r chooses active
	// again, counting their failures afresh, and queues for each, due at
	// now, what it missed that is still current (Subscriber.Missed at
	// now), in one transaction with the audit entry e, to whose Detail it
	// adds what it did. An id of r that is not a quarantined subscriber
	// (of r's channel, when r names one) is an *Error EInvalidField that
	// names each such id by its path ("ids[2]"), and nothing is changed.
	Reactivate(ctx context.Context, r Reactivation, now time.Time, e AuditEntry) (Reactivated, error)
	// Delete removes a subscriber and its deliveries: every personal datum.
	Delete(ctx context.Context, id int64, e AuditEntry) error
	// Request records a self-service email subscription and, in the same
	// transaction, the SubscriptionConfirm event for it: a new address, or
	// a pending or unsubscribed one, becomes pending with a new
	// confirmation token and the components; an active one keeps its
	// state (its event gives it its manage link).
	Request(ctx context.Context, email string, componentIDs []int64, now time.Time) error
	// Emit stores an event outside a page write (a test message, a
	// reminder), as Tx.Emit does inside one, and returns its ID (0 when
	// its Key was used already).
	Emit(ctx context.Context, e Event) (int64, error)
	// Expand turns up to limit stored events into deliveries, one per
	// active subscriber that wants each (Subscriber.Wants, on the
	// component tree at now), and returns how many events it expanded.
	Expand(ctx context.Context, now time.Time, limit int) (int, error)
	// Claim leases up to limit pending deliveries due at now, to
	// subscribers of the channels (none named: any channel), with their
	// subscribers, for lease: no other caller, in this process or another,
	// gets them until the lease ends or Record is called.
	Claim(ctx context.Context, now time.Time, lease time.Duration, limit int, channels []Channel) ([]Claimed, error)
	// Record stores an attempt of a claimed delivery and applies the rules
	// of CONTRACT C7: delivered, retried at NextAttempt, failed after
	// RetryFor; the subscriber unsubscribed on Gone, quarantined on
	// Rejected or by Quarantined. It is RecordMany of one attempt, but
	// returns an *Error ENotFound when there is no such delivery.
	Record(ctx context.Context, id int64, a Attempt, retryBase time.Duration) (*Delivery, error)
	// RecordMany records attempts of several claimed deliveries, in order,
	// in one transaction, by Record's rules, and returns each delivery as
	// it left it (nil for one that no longer exists).
	RecordMany(ctx context.Context, attempts []DeliveryAttempt, retryBase time.Duration) ([]*Delivery, error)
	// Prune removes, in one transaction, up to limit delivered or dropped
	// deliveries made before before (failed ones stay), then up to limit
	// expanded events made before before that have no delivery left, and
	// returns how many of each it removed (DeliveryRetention).
	Prune(ctx context.Context, before time.Time, limit int) (deliveries, events int, err error)
	// Delivery returns one delivery; an *Error ENotFound when there is none.
	Delivery(ctx context.Context, id int64) (*Delivery, error)
	// Deliveries returns a page (from 1) of the delivery log, newest first,
	// and how many deliveries the filter chooses in all.
	Deliveries(ctx context.Context, f DeliveryFilter, page, perPage int) ([]Delivery, int, error)
}

// DeliveryAttempt is an attempt of one delivery, for RecordMany.
type DeliveryAttempt struct {
	DeliveryID int64
	Attempt    Attempt
}

// Claimed is a delivery leased to a sender, with its subscriber.
type Claimed struct {
	Delivery   Delivery
	Subscriber Subscriber
}
