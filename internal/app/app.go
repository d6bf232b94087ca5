// Package app is the one home of every write of statusd (CONTRACT C6-C8):
// publishing and changing notices, the components, the page, the
// subscribers, the tokens and the users, and the reads that the admin API
// and the console share. Each action takes its actor (a person, a token,
// or statusd itself: statusd.System), checks the actor's role (Least),
// validates its input, runs one store transaction (the domain's rule, the
// change, the audit row, the events for subscribers), has the snapshot
// show the write before it returns, and wakes the sender. A refusal is a
// *statusd.Error whose Problems name each bad field by its JSON path.
//
// The admin API (internal/admin: JSON in, App, JSON out), the console
// (internal/console: a form in, App, HTML out) and automated maintenance
// (internal/automation) are adapters on it; none writes on its own.
package app

import (
	"cmp"
	"context"
	"time"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/internal/ratelimit"
	"github.com/statusd/statusd/internal/snapshot"
)

// Config configures an App.
type Config struct {
	Store     statusd.Store
	Snapshots *snapshot.Holder
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Notifier sends notifications (internal/notify); nil when they are
	// not configured: SendTest then answers 503.
	Notifier Notifier
	// AllowPrivateTargets accepts webhook and chat URLs that are http, or
	// that name a private address (--allow-private-targets).
	AllowPrivateTargets bool
	// Busy, when set, reports whether the page's readers are many and
	// slowed now: a storm of alerts then gives way to them (giveWay), as
	// the notification sender does.
	Busy func() bool
}

// Notifier is the sender of notifications, as the actions use it.
type Notifier interface {
	// Test sends a test message to a subscriber now and returns its
	// delivery, as the attempt left it.
	Test(ctx context.Context, subscriberID int64) (*statusd.Delivery, error)
	// Wake asks the sender to look for new events at once rather than at
	// its next poll; it does not wait.
	Wake()
}

// App runs the actions. It is safe for concurrent use.
type App struct {
	store        statusd.Store
	snaps        *snapshot.Holder
	now          func() time.Time
	notifier     Notifier
	allowPrivate bool
	busy         func() bool
	pause        func(ctx context.Context, d time.Duration) // sleep, but in tests
	intakeTurn   chan struct{}                              // held while a chunk of alerts is taken (takeTurn)
	// tests counts the test messages of each subscriber (SendTest).
	tests *ratelimit.Window
}

// MaxBody is the largest request body an adapter reads for an action: a
// JSON body of the admin API, a form of the console.
const MaxBody = 1 << 20

// pageSize is how many entries a page of a list holds.
const pageSize = snapshot.PageSize

// New returns an App for the configuration.
func New(cfg Config) *App {
	a := &App{store: cfg.Store, snaps: cfg.Snapshots, now: cfg.Now, notifier: cfg.Notifier, allowPrivate: cfg.AllowPrivateTargets, busy: cfg.Busy, pause: sleep, intakeTurn: make(chan struct{}, 1),
		tests: ratelimit.NewWindow(time.Minute, testKeys)}
	if a.now == nil {
		a.now = time.Now
	}
	return a
}

// Action names an action, for the role it needs (Least).
type Action string

// The actions, by the App method that does each (ActRead: every shared
// read).
const (
	ActRead             Action = "read"
	ActPublish          Action = "publish"
	ActEdit             Action = "edit"
	ActAddUpdate        Action = "add_update"
	ActReopen           Action = "reopen"
	ActDeleteNotice     Action = "delete_notice"
	ActRemind           Action = "remind"
	ActSetPage          Action = "set_page"
	ActAddComponent     Action = "add_component"
	ActChangeComponent  Action = "change_component"
	ActRemoveComponent  Action = "remove_component"
	ActAddSubscriber    Action = "add_subscriber"
	ActChangeSubscriber Action = "change_subscriber"
	ActRemoveSubscriber Action = "remove_subscriber"
	ActSendTest         Action = "send_test"
	ActAddToken         Action = "add_token"
	ActRevokeToken      Action = "revoke_token"
	ActAddUser          Action = "add_user"
	ActRemoveUser       Action = "remove_user"
	ActResetUser        Action = "reset_user"
	ActManageSources    Action = "manage_sources"
	ActPublishDraft     Action = "publish_draft"
	ActChangeDraft      Action = "change_draft"
)

// least is the one permission table (CONTRACT C8, C9): a viewer reads
// everything; a publisher also writes notices and their updates, sends
// test messages, and publishes, changes and discards drafts; an owner
// also manages the page, components, subscribers, tokens, users and
// sources. An admin API token acts in its role (owner unless
// made with another); statusd itself acts as an owner.
var least = map[Action]statusd.Role{
	ActRead:             statusd.Viewer,
	ActPublish:          statusd.Publisher,
	ActEdit:             statusd.Publisher,
	ActAddUpdate:        statusd.Publisher,
	ActReopen:           statusd.Publisher,
	ActDeleteNotice:     statusd.Publisher,
	ActSendTest:         statusd.Publisher,
	ActPublishDraft:     statusd.Publisher,
	ActChangeDraft:      statusd.Publisher,
	ActRemind:           statusd.Owner,
	ActSetPage:          statusd.Owner,
	ActAddComponent:     statusd.Owner,
	ActChangeComponent:  statusd.Owner,
	ActRemoveComponent:  statusd.Owner,
	ActAddSubscriber:    statusd.Owner,
	ActChangeSubscriber: statusd.Owner,
	ActRemoveSubscriber: statusd.Owner,
	ActAddToken:         statusd.Owner,
	ActRevokeToken:      statusd.Owner,
	ActAddUser:          statusd.Owner,
	ActRemoveUser:       statusd.Owner,
	ActResetUser:        statusd.Owner,
	ActManageSources:    statusd.Owner,
}

// Least is the least role that may do action. An action that is not in
// the table panics: every action has its role.
func Least(action Action) statusd.Role {
	r, ok := least[action]
	if !ok {
		panic("app.Least: no action " + string(action))
	}
	return r
}

// Permit is nil when actor's role is at least least, else a 403 forbidden
// that says which role is needed.
func Permit(actor statusd.Actor, least statusd.Role) error {
	if !actor.Role.Allows(least) {
		return statusd.Errorf(statusd.EForbidden, "this needs the role %s or more; %s is %s", least, actor.Name,
			cmp.Or(string(actor.Role), "not signed in"))
	}
	return nil
}

// May is Permit of action's least role.
func May(actor statusd.Actor, action Action) error { return Permit(actor, Least(action)) }

// write runs fn in one store transaction, then has the snapshot show it,
// so that the public API shows the write before it is acknowledged.
func (a *App) write(ctx context.Context, fn func(tx statusd.Tx) error) error {
	w, err := a.store.Write(ctx, fn)
	if err != nil {
		return err
	}
	return a.snaps.Apply(ctx, w)
}

// wake has the sender look at once for the events a committed write
// stored, unless the write told no one (notify false).
func (a *App) wake(notify *bool) {
	if notifying(notify) && a.notifier != nil {
		a.notifier.Wake()
	}
}

// entry is the audit entry of an action by actor, now.
func (a *App) entry(actor statusd.Actor, action, target, detail string) statusd.AuditEntry {
	return statusd.AuditEntry{At: a.now().UTC(), Actor: actor.Name, Action: action, Target: target, Detail: detail}
}

// stamp is now as the store keeps times: UTC, to the millisecond.
func (a *App) stamp() time.Time { return a.now().UTC().Truncate(time.Millisecond) }

// Snapshot returns the current snapshot, as the actions' adapters read it,
// or a 404 when no page exists.
func (a *App) Snapshot() (*snapshot.Snapshot, error) {
	snap := a.snaps.Current()
	if snap == nil {
		return nil, statusd.NoPage(statusd.ENotFound)
	}
	return snap, nil
}
