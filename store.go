package statusd

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"strings"
	"time"
)

// Store keeps the page. Implementations are safe for concurrent use.
type Store interface {
	// Load returns the whole page and the store's version. When the store
	// holds no page yet it returns a nil Document and no error.
	Load(ctx context.Context) (*Document, int64, error)
	// Import writes doc atomically, all or nothing. When the store already
	// holds a page it returns an *Error with code EConflict unless replace is
	// true, in which case the old page is replaced whole.
	Import(ctx context.Context, doc *Document, replace bool) error
	// Version returns a number that changes with every write of the page,
	// its components or its notices, cheaply, so that readers can notice
	// writes made by other processes.
	Version(ctx context.Context) (int64, error)
	// Write runs fn in one write transaction: it commits, and changes the
	// version if it wrote the page, components or notices, when fn
	// returns nil, and writes nothing otherwise. Writers
	// are serialised, so fn sees the latest committed page. It returns what
	// the write changed, as committed.
	Write(ctx context.Context, fn func(Tx) error) (Written, error)
	// Tokens manages the admin API's tokens.
	Tokens() TokenStore
	// Subscribers keeps the subscribers and the notification outbox.
	Subscribers() SubscriberStore
	// Users keeps the console's users and their sessions (CONTRACT C8).
	Users() UserStore
	// Signals reads the sources, signals and drafts (CONTRACT C9); they
	// are written in a Write's transaction (Tx).
	Signals() SignalStore
	// Mirror keeps the mirror's signing key and its destinations' state
	// (CONTRACT C10).
	Mirror() MirrorStore
	// Audit returns a page (from 1) of the audit log, newest first, and the
	// number of entries in all.
	Audit(ctx context.Context, page, perPage int) ([]AuditEntry, int, error)
	// Close releases the store's resources.
	Close() error
}

// Tx is a write transaction of a Store. Its methods must not be called after
// the function given to Write has returned.
type Tx interface {
	// Page returns the page, or an *Error ENotFound when there is none.
	Page() (*Page, error)
	PutPage(p *Page) error
	// Components returns every component in position order.
	Components() ([]Component, error)
	// PutComponent inserts or replaces the component with c.ID.
	PutComponent(c *Component) error
	// DeleteComponents deletes components; notices lose their links to them.
	DeleteComponents(ids []int64) error
	// NoticesListing returns the ids of the notices that list any of the
	// components, in id order, each once.
	NoticesListing(componentIDs []int64) ([]int64, error)
	// Notice returns a notice with its updates, or nil when there is none.
	Notice(id int64) (*Notice, error)
	// CurrentListing returns, with their updates, in id order, the
	// notices that list any of the components and whose newest update is
	// investigating, identified or underway: those that may make a
	// component's state (CONTRACT C3), without reading the others.
	CurrentListing(componentIDs []int64) ([]Notice, error)
	// OpenListing returns, with their updates, in id order, the notices
	// that list any of the components and are under way: incidents
	// investigating, identified or recovering, maintenance underway
	// (CONTRACT C9's grouping).
	OpenListing(componentIDs []int64) ([]Notice, error)
	// PutNotice inserts or replaces a notice with its links and updates.
	PutNotice(n *Notice) error
	DeleteNotice(id int64) error
	// NextID returns a new id for "components", "notices", "updates",
	// "sources", "signals" or "drafts":
	// one more than any id of that kind ever given, so that the id of a
	// deleted object is never given again (1 when there was none).
	NextID(kind string) (int64, error)
	// NextIDs reserves n new ids of a kind, as NextID gives them, and
	// returns the first; the others follow it.
	NextIDs(kind string, n int) (int64, error)
	// Audit records an entry in the audit log.
	Audit(e AuditEntry) error
	// Emit stores an event for subscribers (CONTRACT C7's outbox): it is
	// sent after the write commits, and never when it rolls back. An event
	// whose Key was used already is not stored again.
	Emit(e Event) error
	// SignalReads reads the sources, signals and drafts in the
	// transaction.
	SignalReads
	// PutSource inserts or replaces the source with s.ID; an *Error
	// EConflict when another has its name.
	PutSource(s *Source) error
	// DeleteSource deletes a source with its signals; its drafts stay.
	DeleteSource(id int64) error
	// PutSignals inserts or replaces each signal with its ID, in one
	// statement: one per (source, key); no two of one ID.
	PutSignals(signals ...*Signal) error
	// PutDraft inserts or replaces the draft with d.ID.
	PutDraft(d *Draft) error
}

// SignalReads are the reads of the sources, signals and drafts. Sources,
// signals and drafts are in id order; one asked for by id is nil when
// there is none.
type SignalReads interface {
	Sources() ([]Source, error)
	Source(id int64) (*Source, error)
	Signals(f SignalFilter) ([]Signal, error)
	// SignalCount counts the signals f selects.
	SignalCount(f SignalFilter) (int, error)
	// Drafts returns the drafts in a state ("": all).
	Drafts(state string) ([]Draft, error)
	// DueDrafts returns the open drafts due to publish themselves by
	// then (Draft.PublishAt).
	DueDrafts(by time.Time) ([]Draft, error)
	Draft(id int64) (*Draft, error)
}

// SignalStore reads the sources, signals and drafts, each call in one
// read transaction.
type SignalStore interface {
	Read(ctx context.Context, fn func(SignalReads) error) error
}

// Written is what a committed write changed, with the committed state of
// every object it wrote, so that a reader can follow the write without
// reading the whole page again.
type Written struct {
	// Version is the store's version after the write.
	Version int64
	// Page is the page after the write, or nil when it was not written.
	Page *Page
	// Components is the whole component tree after the write, in position
	// order, when ComponentsChanged.
	Components        []Component
	ComponentsChanged bool
	// Notices maps the id of every notice written to its state after the
	// write, or to nil when it was deleted.
	Notices map[int64]*Notice
}

// AuditEntry is one line of the audit log: who did what to which object.
type AuditEntry struct {
	ID     int64
	At     time.Time
	Actor  string // a token's name, or "statusd" for automation
	Action string // for example "notice.update"
	Target string // for example "notice 12"
	Detail string // a short human-readable summary
}

// Token is an admin API token as stored: its name and the SHA-256 of its
// secret, never the secret itself, and the role a request with it acts
// in (CONTRACT C9: a bot or a pipeline gets no more than it needs).
type Token struct {
	Name      string
	Hash      []byte
	Role      Role
	CreatedAt time.Time
	LastUsed  *time.Time
}

// MaxTokenName is the longest name a token may have.
const MaxTokenName = 100

// NewNamedToken returns a new token named name, acting as role ("": an
// owner), made now, and its secret ("sdt_" and 43 random characters; the
// token keeps only its SHA-256); a name that is blank or longer than
// MaxTokenName, or a role that is not one, is an *Error EInvalidField
// naming the field name or role. (Control characters are allowed: every
// output escapes them.)
func NewNamedToken(name string, role Role, now time.Time) (string, Token, error) {
	var problems []Problem
	switch {
	case strings.TrimSpace(name) == "":
		problems = append(problems, Problem{"name", "is required: the token's name, shown in the audit log"})
	case len(name) > MaxTokenName:
		problems = append(problems, Problem{"name", fmt.Sprintf("is %d bytes long; at most %d", len(name), MaxTokenName)})
	}
	if role == "" {
		role = Owner
	}
	if !role.Valid() {
		problems = append(problems, Problem{"role", fmt.Sprintf("%q is not a role (%s)", role, nameList(Roles))})
	}
	if err := Invalid(EInvalidField, problems); err != nil {
		return "", Token{}, err
	}
	b := make([]byte, 32)
	rand.Read(b)
	secret := "sdt_" + base64.RawURLEncoding.EncodeToString(b)
	return secret, Token{Name: name, Hash: SecretHash(secret), Role: role, CreatedAt: now.UTC().Truncate(time.Millisecond)}, nil
}

// TokenStore keeps admin tokens. Implementations are safe for concurrent
// use.
type TokenStore interface {
	// Create adds a token, and the audit entry e unless it is nil, in one
	// transaction; an *Error EConflict when the name is taken. A token
	// without a role is stored as an owner's.
	Create(ctx context.Context, t Token, e *AuditEntry) error
	// List returns every token, by name.
	List(ctx context.Context) ([]Token, error)
	// Revoke deletes the named token, and records the audit entry e unless
	// it is nil, in one transaction; an *Error ENotFound when there is none.
	Revoke(ctx context.Context, name string, e *AuditEntry) error
	// Lookup returns the token with the hash, or nil, and marks it used:
	// the time of the use is written soon after, best effort, so that a
	// lookup needs no write.
	Lookup(ctx context.Context, hash []byte, now time.Time) (*Token, error)
}

// ChangeReader is a Store that remembers what its last writes changed, so
// that a server that did not make them can follow them without loading the
// whole page.
type ChangeReader interface {
	// Since returns, as one Written, the current state of everything
	// written after version (and the current version); false when it cannot
	// tell, and the whole page must be loaded.
	Since(ctx context.Context, version int64) (Written, bool, error)
}

// ChangeNotifier is implemented by stores that announce writes as they are
// committed, by any process (PostgreSQL's LISTEN/NOTIFY).
type ChangeNotifier interface {
	// Changes returns a channel that receives a value soon after a write is
	// committed, and after a lost connection to the announcements is made
	// again (writes may have been missed), until ctx is done. It returns nil
	// when the store cannot announce writes.
	Changes(ctx context.Context) <-chan struct{}
}
