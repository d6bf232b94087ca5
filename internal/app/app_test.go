package app

import (
	"context"
	"io"
	"log/slog"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/internal/snapshot"
	"github.com/statusd/statusd/internal/sqlstore"
	"github.com/statusd/statusd/internal/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }

var t0 = time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)

// page is a page with component 1 (API) and 2 (Search, under API), and
// incident 1, investigating, listing API.
func page() *statusd.Document {
	one := int64(1)
	return &statusd.Document{
		Page: statusd.Page{Name: "P", URL: "https://p.test", CreatedAt: t0, UpdatedAt: t0},
		Components: []statusd.Component{
			{ID: 1, Position: 1, Name: "API", CreatedAt: t0, UpdatedAt: t0},
			{ID: 2, Position: 2, Name: "Search", ParentID: &one, CreatedAt: t0, UpdatedAt: t0},
		},
		Notices: []statusd.Notice{{ID: 1, Type: statusd.Unplanned, Subject: "Errors", TagList: []string{}, ComponentIDs: []int64{1},
			CreatedAt: t0, UpdatedAt: t0,
			Updates: []statusd.Update{{ID: 1, State: statusd.Investigating, Content: "Looking.", CreatedAt: t0, UpdatedAt: t0}}}},
	}
}

// fixture is an App on a new SQLite database holding page(), subscriber
// 1 (a webhook), user 1 (ann@example.com, a viewer) and the token ci.
type fixture struct {
	app   *App
	store *sqlstore.Store
}

func newFixture(t *testing.T) fixture {
	t.Helper()
	ctx := context.Background()
	store, err := sqlstore.Open(ctx, filepath.Join(t.TempDir(), "app.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	if err := store.Import(ctx, page(), false); err != nil {
		t.Fatal(err)
	}
	setup := statusd.AuditEntry{At: t0, Actor: "setup", Action: "setup"}
	hook := &statusd.Subscriber{Channel: statusd.Webhook, Address: "https://hooks.example.com/x", State: statusd.SubscriberActive,
		Token: statusd.NewToken(), CreatedAt: t0, UpdatedAt: t0}
	if err := store.Subscribers().Add(ctx, hook, setup); err != nil {
		t.Fatal(err)
	}
	if err := store.Users().Add(ctx, &statusd.User{Email: "ann@example.com", Role: statusd.Viewer, CreatedAt: t0, UpdatedAt: t0},
		[]byte("setup"), t0.Add(time.Hour), nil); err != nil {
		t.Fatal(err)
	}
	_, token, err := statusd.NewNamedToken("ci", statusd.Owner, t0)
	if err != nil {
		t.Fatal(err)
	}
	if err := store.Tokens().Create(ctx, token, nil); err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	holder := snapshot.NewHolder(store, snapshot.Options{Variant: statusd.VariantA}, func() time.Time { return t0 }, log)
	if err := holder.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	return fixture{app: New(Config{Store: store, Snapshots: holder, Now: func() time.Time { return t0.Add(time.Minute) }}), store: store}
}

func text(s string) *string { return &s }

// TestRoles: each action, by each role, through real SQLite: a role below
// the action's is refused 403 forbidden and nothing is written (the audit
// log keeps its length); the action's role and those above it get past
// the check (the action may still refuse for another reason, such as a
// notice an earlier role deleted). The roles are CONTRACT C8's, worked out
// by hand: a viewer reads; a publisher also writes notices and their
// updates and sends test messages; an owner does everything, and statusd
// itself acts as one.
func TestRoles(t *testing.T) {
	ctx := context.Background()
	const (
		v = statusd.Viewer
		p = statusd.Publisher
		o = statusd.Owner
	)
	for _, tc := range []struct {
		name  string
		least statusd.Role
		do    func(a *App, actor statusd.Actor) error
	}{
		{"Publish", p, func(a *App, actor statusd.Actor) error {
			_, err := a.Publish(ctx, actor, statusd.AdminNoticeRequest{Type: text("general"), Subject: text("Hi"), Content: text("News.")})
			return err
		}},
		{"Edit", p, func(a *App, actor statusd.Actor) error {
			return a.Edit(ctx, actor, 1, statusd.AdminNoticeRequest{Subject: text("Errors on the API")})
		}},
		{"AddUpdate", p, func(a *App, actor statusd.Actor) error {
			return a.AddUpdate(ctx, actor, 1, statusd.AdminUpdateRequest{State: text("identified"), Content: text("Found it.")})
		}},
		{"Reopen", p, func(a *App, actor statusd.Actor) error {
			return a.Reopen(ctx, actor, 1, statusd.AdminUpdateRequest{Content: text("Back.")})
		}},
		{"DeleteNotice", p, func(a *App, actor statusd.Actor) error { return a.DeleteNotice(ctx, actor, 1) }},
		{"SendTest", p, func(a *App, actor statusd.Actor) error { _, err := a.SendTest(ctx, actor, 1); return err }},
		{"SetPage", o, func(a *App, actor statusd.Actor) error {
			return a.SetPage(ctx, actor, statusd.AdminPageRequest{Name: text("Q")})
		}},
		{"AddComponent", o, func(a *App, actor statusd.Actor) error {
			_, err := a.AddComponent(ctx, actor, statusd.AdminComponentRequest{Name: text("DB")})
			return err
		}},
		{"ChangeComponent", o, func(a *App, actor statusd.Actor) error {
			return a.ChangeComponent(ctx, actor, 2, statusd.AdminComponentRequest{Name: text("Find")})
		}},
		{"RemoveComponent", o, func(a *App, actor statusd.Actor) error { return a.RemoveComponent(ctx, actor, 2, false, false) }},
		{"AddSubscriber", o, func(a *App, actor statusd.Actor) error {
			_, err := a.AddSubscriber(ctx, actor, statusd.AdminSubscriberRequest{Channel: text("slack"), Address: text("https://hooks.slack.test/a")})
			return err
		}},
		{"ChangeSubscriber", o, func(a *App, actor statusd.Actor) error {
			_, err := a.ChangeSubscriber(ctx, actor, 1, statusd.AdminSubscriberRequest{ComponentIDs: &[]int64{2}})
			return err
		}},
		{"RemoveSubscriber", o, func(a *App, actor statusd.Actor) error { return a.RemoveSubscriber(ctx, actor, 1) }},
		{"ReactivateSubscribers", o, func(a *App, actor statusd.Actor) error {
			_, err := a.ReactivateSubscribers(ctx, actor, statusd.AdminReactivateRequest{})
			return err
		}},
		{"AddToken", o, func(a *App, actor statusd.Actor) error {
			_, err := a.AddToken(ctx, actor, statusd.AdminTokenRequest{Name: text("deploy-" + string(actor.Role))})
			return err
		}},
		{"RevokeToken", o, func(a *App, actor statusd.Actor) error { return a.RevokeToken(ctx, actor, "ci") }},
		{"AddUser", o, func(a *App, actor statusd.Actor) error {
			_, err := a.AddUser(ctx, actor, statusd.AdminUserRequest{Email: text(string(actor.Role) + "@example.com"), Role: text("viewer")})
			return err
		}},
		{"ResetUser", o, func(a *App, actor statusd.Actor) error { _, err := a.ResetUser(ctx, actor, 1); return err }},
		{"RemoveUser", o, func(a *App, actor statusd.Actor) error { return a.RemoveUser(ctx, actor, 1) }},
		{"Remind", o, func(a *App, actor statusd.Actor) error { return a.Remind(ctx, actor, 1, nil, t0.Add(time.Hour), t0) }},
		{"AuditPage", v, func(a *App, actor statusd.Actor) error { _, _, err := a.AuditPage(ctx, actor, 1); return err }},
		{"SubscribersPage", v, func(a *App, actor statusd.Actor) error {
			_, _, err := a.SubscribersPage(ctx, actor, statusd.SubscriberFilter{}, 1)
			return err
		}},
		{"Subscriber", v, func(a *App, actor statusd.Actor) error { _, err := a.Subscriber(ctx, actor, 1); return err }},
		{"DeliveriesPage", v, func(a *App, actor statusd.Actor) error {
			_, _, err := a.DeliveriesPage(ctx, actor, statusd.DeliveryFilter{}, 1)
			return err
		}},
		{"Tokens", v, func(a *App, actor statusd.Actor) error { _, err := a.Tokens(ctx, actor); return err }},
		{"Users", v, func(a *App, actor statusd.Actor) error { _, err := a.Users(ctx, actor); return err }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			actors := []statusd.Actor{
				{}, // no one signed in
				{Name: "vic@example.com", Role: v, Kind: statusd.ByPerson},
				{Name: "pat@example.com", Role: p, Kind: statusd.ByPerson},
				{Name: "olga@example.com", Role: o, Kind: statusd.ByPerson},
				{Name: "ci", Role: o, Kind: statusd.ByToken},
				{Name: "deploy", Role: p, Kind: statusd.ByToken},
				{Name: "grafana", Role: v, Kind: statusd.ByToken},
				statusd.System,
			}
			for _, actor := range actors {
				_, before, err := f.store.Audit(ctx, 1, 1)
				if err != nil {
					t.Fatal(err)
				}
				err = tc.do(f.app, actor)
				allowed := actor.Role.Valid() && actor.Role.Allows(tc.least)
				switch code := statusd.ErrorCode(err); {
				case allowed && code == statusd.EForbidden:
					t.Errorf("%s (%s) refused: %v", actor.Name, actor.Role, err)
				case !allowed && code != statusd.EForbidden:
					t.Errorf("%q (%s): %v, want 403 forbidden", actor.Name, actor.Role, err)
				case !allowed:
					if _, after, _ := f.store.Audit(ctx, 1, 1); after != before {
						t.Errorf("%q (%s) refused, but the audit log went from %d to %d entries", actor.Name, actor.Role, before, after)
					}
				}
			}
		})
	}
}

// TestLeast: the one table holds every action, at the role of CONTRACT C8.
func TestLeast(t *testing.T) {
	want := map[Action]statusd.Role{
		ActRead:    statusd.Viewer,
		ActPublish: statusd.Publisher, ActEdit: statusd.Publisher, ActAddUpdate: statusd.Publisher, ActReopen: statusd.Publisher,
		ActDeleteNotice: statusd.Publisher, ActSendTest: statusd.Publisher, ActPublishDraft: statusd.Publisher, ActChangeDraft: statusd.Publisher,
		ActRemind: statusd.Owner, ActSetPage: statusd.Owner, ActAddComponent: statusd.Owner, ActChangeComponent: statusd.Owner,
		ActRemoveComponent: statusd.Owner, ActAddSubscriber: statusd.Owner, ActChangeSubscriber: statusd.Owner,
		ActRemoveSubscriber: statusd.Owner, ActAddToken: statusd.Owner, ActRevokeToken: statusd.Owner, ActAddUser: statusd.Owner,
		ActRemoveUser: statusd.Owner, ActResetUser: statusd.Owner, ActManageSources: statusd.Owner,
	}
	if !reflect.DeepEqual(least, want) {
		t.Errorf("least = %v\nwant    %v", least, want)
	}
	err := Permit(statusd.Actor{Name: "vic@example.com", Role: statusd.Viewer}, statusd.Publisher)
	if got := statusd.ErrorMessage(err); got != "this needs the role publisher or more; vic@example.com is viewer" {
		t.Errorf("Permit's refusal says %q", got)
	}
	if got := statusd.ErrorMessage(Permit(statusd.Actor{}, statusd.Viewer)); got != "this needs the role viewer or more;  is not signed in" {
		t.Errorf("Permit's refusal of no one says %q", got)
	}
}

// TestProblems: an action's refusal names each bad field by its JSON path,
// in Problems, and says them all, joined, in its message (the admin API's
// error body); a domain rule's problem keeps its own path.
func TestProblems(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	owner := statusd.Actor{Name: "ci", Role: statusd.Owner, Kind: statusd.ByToken}
	for _, tc := range []struct {
		name    string
		err     error
		code    string
		want    []statusd.Problem
		message string
	}{
		{"a notice with nothing", func() error {
			_, err := f.app.Publish(ctx, owner, statusd.AdminNoticeRequest{Subject: text(" ")})
			return err
		}(), statusd.EInvalidField, []statusd.Problem{
			{Path: "type", Message: "is required: unplanned, planned or general"},
			{Path: "subject", Message: "must not be empty"},
			{Path: "content", Message: "is required"},
		}, "type: is required: unplanned, planned or general; subject: must not be empty; content: is required"},
		{"an incident listing no component 9, twice", func() error {
			_, err := f.app.Publish(ctx, owner, statusd.AdminNoticeRequest{Type: text("unplanned"), Subject: text("S"), Content: text("C"),
				ComponentIDs: &[]int64{9}, BeginsAt: statusd.Field[string]{Set: true, Value: text("2026-06-01T00:00:00Z")}})
			return err
		}(), statusd.EInvalidField, []statusd.Problem{
			{Path: "begins_at", Message: "only planned notices have begins_at"},
			{Path: "component_ids[0]", Message: "no component has id 9"},
		}, "begins_at: only planned notices have begins_at; component_ids[0]: no component has id 9"},
		{"an incident in a maintenance's state", func() error {
			_, err := f.app.Publish(ctx, owner, statusd.AdminNoticeRequest{Type: text("unplanned"), Subject: text("S"), Content: text("C"),
				State: text("underway")})
			return err
		}(), statusd.EInvalidField, []statusd.Problem{
			{Path: "state", Message: `"underway" is not a state of an unplanned notice (investigating, identified, recovering, resolved, false_alarm)`},
		}, `state: "underway" is not a state of an unplanned notice (investigating, identified, recovering, resolved, false_alarm)`},
		{"a subscriber with a bad address and a component twice", func() error {
			_, err := f.app.AddSubscriber(ctx, owner, statusd.AdminSubscriberRequest{Channel: text("email"), Address: text("nope"),
				ComponentIDs: &[]int64{1, 1}})
			return err
		}(), statusd.EInvalidField, []statusd.Problem{
			{Path: "address", Message: `"nope" is not an email address (like name@example.com)`},
			{Path: "component_ids[1]", Message: "component 1 is listed twice"},
		}, `address: "nope" is not an email address (like name@example.com); component_ids[1]: component 1 is listed twice`},
		{"a pending subscriber set active", func() error {
			_, err := f.app.AddSubscriber(ctx, owner, statusd.AdminSubscriberRequest{Channel: text("email"), Address: text("ann@example.com")})
			if err != nil {
				return err
			}
			_, err = f.app.ChangeSubscriber(ctx, owner, 2, statusd.AdminSubscriberRequest{State: text("active")})
			return err
		}(), statusd.EInvalidTransition, []statusd.Problem{
			{Path: "state", Message: "subscriber 2 is pending: it becomes active when the address confirms " +
				"(to add an address without confirmation, remove it and add it again with confirmed: true)"},
		}, "state: subscriber 2 is pending: it becomes active when the address confirms " +
			"(to add an address without confirmation, remove it and add it again with confirmed: true)"},
		{"a move the incident cannot make: no field", f.app.AddUpdate(ctx, owner, 1, statusd.AdminUpdateRequest{State: text("complete"),
			Content: text("C")}), statusd.EInvalidTransition, nil,
			`"complete" is not a state of an unplanned notice (investigating, identified, recovering, resolved, false_alarm)`},
	} {
		if code := statusd.ErrorCode(tc.err); code != tc.code {
			t.Errorf("%s: %v, want %s", tc.name, tc.err, tc.code)
			continue
		}
		if got := statusd.ProblemsOf(tc.err); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: problems\n%q\nwant\n%q", tc.name, got, tc.want)
		}
		if got := statusd.ErrorMessage(tc.err); got != tc.message {
			t.Errorf("%s: message\n%s\nwant\n%s", tc.name, got, tc.message)
		}
	}
}
