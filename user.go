package statusd

import (
	"context"
	"crypto/sha256"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

// This file holds the domain of the operator console's people (CONTRACT
// C8): who may sign in (User), what each may do (Role, and the least role
// of each action, named where the action is routed), their passwords and
// their sessions. Storage is UserStore's; the console is internal/console.

// Role is what a user may do. Each role may do what the roles before it
// in Roles may.
type Role string

// The roles of CONTRACT C8, from the least to the most allowed.
const (
	// Viewer reads everything and changes nothing.
	Viewer Role = "viewer"
	// Publisher also writes notices, maintenance, announcements and their
	// updates, and sends test messages.
	Publisher Role = "publisher"
	// Owner also manages components, the page, users, tokens and
	// subscribers. An admin API token acts in its own role, owner unless
	// it was made with another.
	Owner Role = "owner"
)

// Roles lists every role, from the least to the most allowed.
var Roles = []Role{Viewer, Publisher, Owner}

// Valid reports whether r is a role.
func (r Role) Valid() bool { return slices.Contains(Roles, r) }

// Allows reports whether r may do an action whose least role is least.
func (r Role) Allows(least Role) bool {
	return r.Valid() && slices.Index(Roles, r) >= slices.Index(Roles, least)
}

// Actor is who makes a request: a token's name or a user's email, and
// what they may do; or statusd itself (System).
type Actor struct {
	Name string
	Role Role
	Kind ActorKind
}

// ActorKind is what an Actor is.
type ActorKind string

// The kinds of actors.
const (
	// ByPerson is a person signed in to the console, named by email.
	ByPerson ActorKind = "person"
	// ByToken is an admin API token, named by its name; it acts in the
	// token's role.
	ByToken ActorKind = "token"
	// BySystem is statusd itself: automated maintenance's moves.
	BySystem ActorKind = "system"
)

// System is statusd itself as an actor: the name the audit log records
// for what it does on its own (automated maintenance), with an owner's
// role.
var System = Actor{Name: "statusd", Role: Owner, Kind: BySystem}

// actorKey is the context key of the request's Actor.
type actorKey struct{}

// WithActor returns ctx carrying the actor that authenticated a request.
func WithActor(ctx context.Context, a Actor) context.Context {
	return context.WithValue(ctx, actorKey{}, a)
}

// ActorOf returns the actor ctx carries (WithActor), or the zero Actor,
// who may do nothing.
func ActorOf(ctx context.Context) Actor {
	a, _ := ctx.Value(actorKey{}).(Actor)
	return a
}

// User is a person who may sign in to the console.
type User struct {
	ID int64
	// Email is the user's address, in lower case (NormalizeEmail): two
	// spellings of one address are one user.
	Email string
	Role  Role
	// PasswordHash is the PHC string of the password's argon2id hash
	// (made by internal/console), or "" while the user has not set a
	// password (before setup, after a reset).
	PasswordHash string
	CreatedAt    time.Time
	UpdatedAt    time.Time
}

// NormalizeEmail checks a user's email address (CheckEmail) and returns it
// in lower case, the form users are stored and compared in.
func NormalizeEmail(email string) (string, error) {
	email = strings.TrimSpace(email)
	if CheckEmail(email) != nil {
		return "", FieldError(EInvalidField, "email", "%q is not an email address (like name@example.com)", email)
	}
	return strings.ToLower(email), nil
}

// Times of the console's sign-in (CONTRACT C8).
const (
	// SessionIdle is how long a session lasts unused.
	SessionIdle = 12 * time.Hour
	// SetupValid is how long a setup link works.
	SetupValid = 24 * time.Hour
)

// MinPassword is the least number of characters of a password.
const MinPassword = 12

// maxPassword bounds a password, so that hashing one costs a bounded time.
const maxPassword = 1024

// CheckPassword checks a new password: at least MinPassword characters,
// at most maxPassword bytes.
func CheckPassword(p string) error {
	switch {
	case utf8.RuneCountInString(p) < MinPassword:
		return FieldError(EInvalidField, "password", "use at least %d characters", MinPassword)
	case len(p) > maxPassword:
		return FieldError(EInvalidField, "password", "use at most %d bytes", maxPassword)
	}
	return nil
}

// NewSecret returns a new random secret for a cookie or a link (43
// characters) and its SHA-256, the only form in which it is stored.
func NewSecret() (secret string, hash []byte) {
	secret = NewToken()
	return secret, SecretHash(secret)
}

// SecretHash is the SHA-256 of a session's or a setup link's secret, as
// stored.
func SecretHash(secret string) []byte {
	sum := sha256.Sum256([]byte(secret))
	return sum[:]
}

// UserStore keeps the console's users, their setup links and their
// sessions (CONTRACT C8). Secrets are stored as their SHA-256 only
// (SecretHash). Methods that change a user for a person record the audit
// entry given with the change, in its transaction. Implementations are
// safe for concurrent use.
type UserStore interface {
	// Add stores a new user, with a new ID, and its setup link's hash,
	// valid until expires (nil: none, for a user copied with its
	// password); an *Error EConflict when the email is taken. The audit
	// entry's Target, when empty, is "user <id>"; a nil e records nothing.
	Add(ctx context.Context, u *User, setup []byte, expires time.Time, e *AuditEntry) error
	// Get returns a user; an *Error ENotFound when there is none.
	Get(ctx context.Context, id int64) (*User, error)
	// ByEmail returns the user of a (normalized) email, or nil.
	ByEmail(ctx context.Context, email string) (*User, error)
	// List returns every user, by id.
	List(ctx context.Context) ([]User, error)
	// Delete removes a user, its sessions and its setup link.
	Delete(ctx context.Context, id int64, e AuditEntry) error
	// Reset ends a user's sessions, clears its password and replaces its
	// setup link by setup, valid until expires.
	Reset(ctx context.Context, id int64, setup []byte, expires time.Time, e AuditEntry) (*User, error)
	// SetupUser returns the user of an unexpired setup link at now; an
	// *Error ENotFound when there is none.
	SetupUser(ctx context.Context, setup []byte, now time.Time) (*User, error)
	// Setup sets the password of the user of an unexpired setup link at
	// now, removes the link and records user.setup with the user as the
	// actor; an *Error ENotFound when there is no such link.
	Setup(ctx context.Context, setup []byte, passwordHash string, now time.Time) (*User, error)
	// StartSession stores a session of the user, begun and last seen at
	// now.
	StartSession(ctx context.Context, userID int64, session []byte, now time.Time) error
	// Session returns the user of a session last seen less than
	// SessionIdle before now, and marks it seen at now (at most once a
	// minute, so that most requests write nothing, and at best: a mark
	// that cannot be written, on a full or read-only disk, is no error);
	// nil when there is none (it ended, or it was idle too long).
	Session(ctx context.Context, session []byte, now time.Time) (*User, error)
	// EndSession removes a session; ending one that does not exist is no
	// error.
	EndSession(ctx context.Context, session []byte) error
}
