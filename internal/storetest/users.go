package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/statusd/statusd"
)

// The cases of the console's users, setup links and sessions (CONTRACT
// C8), for Run.
var userCases = []struct {
	name string
	fn   func(*testing.T, statusd.Store)
}{
	{"UsersAddGetListConflict", testUsersAdd},
	{"SetupLinkWorksOnceUntilItExpires", testUserSetup},
	{"SessionsEndAfterTwelveHoursIdle", testSessionIdle},
	{"ResetEndsSessionsAndClearsThePassword", testUserReset},
	{"DeleteUserEndsItsSessions", testUserDelete},
}

// addUser adds a user created at t0 with the setup link secret, valid
// for statusd.SetupValid, and returns it.
func addUser(t *testing.T, us statusd.UserStore, email string, role statusd.Role, setup string) statusd.User {
	t.Helper()
	u := statusd.User{Email: email, Role: role, CreatedAt: t0, UpdatedAt: t0}
	e := statusd.AuditEntry{At: t0, Actor: "alice", Action: "user.add", Detail: email}
	if err := us.Add(context.Background(), &u, statusd.SecretHash(setup), t0.Add(statusd.SetupValid), &e); err != nil {
		t.Fatalf("Add %s: %v", email, err)
	}
	return u
}

func testUsersAdd(t *testing.T, s statusd.Store) {
	ctx, us := context.Background(), s.Users()
	a := addUser(t, us, "ann@example.com", statusd.Owner, "setup-a")
	b := addUser(t, us, "bob@example.com", statusd.Viewer, "setup-b")
	if a.ID == 0 || b.ID == a.ID {
		t.Fatalf("ids %d and %d: want two distinct ids", a.ID, b.ID)
	}
	dup := statusd.User{Email: "ann@example.com", Role: statusd.Viewer, CreatedAt: t0, UpdatedAt: t0}
	wantCode(t, "Add of a taken email", us.Add(ctx, &dup, statusd.SecretHash("setup-c"), t0.Add(time.Hour), &statusd.AuditEntry{At: t0, Actor: "x", Action: "user.add"}),
		statusd.EConflict)

	got, err := us.Get(ctx, b.ID)
	want := statusd.User{ID: b.ID, Email: "bob@example.com", Role: statusd.Viewer, CreatedAt: t0.Truncate(time.Millisecond),
		UpdatedAt: t0.Truncate(time.Millisecond)}
	if err != nil || *got != want {
		t.Errorf("Get: %+v, %v; want %+v", got, err, want)
	}
	_, err = us.Get(ctx, b.ID+100)
	wantCode(t, "Get of no user", err, statusd.ENotFound)
	if u, err := us.ByEmail(ctx, "ann@example.com"); err != nil || u == nil || u.ID != a.ID {
		t.Errorf("ByEmail ann: %+v, %v; want user %d", u, err, a.ID)
	}
	if u, err := us.ByEmail(ctx, "nobody@example.com"); err != nil || u != nil {
		t.Errorf("ByEmail nobody: %+v, %v; want nil, nil", u, err)
	}
	list, err := us.List(ctx)
	if err != nil || len(list) != 2 || list[0].Email != "ann@example.com" || list[1].Email != "bob@example.com" {
		t.Errorf("List: %+v, %v; want ann then bob", list, err)
	}
	// Two adds were recorded (the conflict was not), each naming its user.
	entries, total, err := s.Audit(ctx, 1, 10)
	if err != nil || total != 2 || entries[0].Target != "user 2" || entries[1].Target != "user 1" || entries[0].Action != "user.add" {
		t.Errorf("audit: %d entries %+v, %v; want user.add of user 2 then user 1", total, entries, err)
	}
	// A user copied with its password: no setup link, nothing recorded.
	copied := statusd.User{Email: "cat@example.com", Role: statusd.Owner, PasswordHash: "the-hash", CreatedAt: t0, UpdatedAt: t0}
	if err := us.Add(ctx, &copied, nil, time.Time{}, nil); err != nil {
		t.Fatalf("Add without a link: %v", err)
	}
	if got, err := us.Get(ctx, copied.ID); err != nil || got.PasswordHash != "the-hash" {
		t.Errorf("the copied user: %+v, %v; want its hash", got, err)
	}
	if _, total, _ := s.Audit(ctx, 1, 10); total != 2 {
		t.Errorf("%d audit entries after a copy, want still 2", total)
	}
}

func testUserSetup(t *testing.T, s statusd.Store) {
	ctx, us := context.Background(), s.Users()
	u := addUser(t, us, "ann@example.com", statusd.Publisher, "setup-a")
	link := statusd.SecretHash("setup-a")
	// Valid until t0 + 24 h, not at it.
	if got, err := us.SetupUser(ctx, link, t0.Add(statusd.SetupValid-time.Millisecond)); err != nil || got.ID != u.ID {
		t.Errorf("SetupUser a millisecond before expiry: %+v, %v; want user %d", got, err, u.ID)
	}
	_, err := us.SetupUser(ctx, link, t0.Add(statusd.SetupValid))
	wantCode(t, "SetupUser at expiry", err, statusd.ENotFound)
	_, err = us.Setup(ctx, link, "hash", t0.Add(statusd.SetupValid))
	wantCode(t, "Setup at expiry", err, statusd.ENotFound)
	_, err = us.SetupUser(ctx, statusd.SecretHash("setup-b"), t0)
	wantCode(t, "SetupUser of an unknown link", err, statusd.ENotFound)

	at := t0.Add(time.Hour)
	got, err := us.Setup(ctx, link, "the-hash", at)
	if err != nil || got.ID != u.ID || got.PasswordHash != "the-hash" {
		t.Fatalf("Setup: %+v, %v; want user %d with the hash", got, err, u.ID)
	}
	if stored, err := us.Get(ctx, u.ID); err != nil || stored.PasswordHash != "the-hash" || !stored.UpdatedAt.Equal(at.Truncate(time.Millisecond)) {
		t.Errorf("after Setup: %+v, %v; want the hash, updated at %v", stored, err, at)
	}
	// Once only.
	_, err = us.Setup(ctx, link, "other", at)
	wantCode(t, "Setup again", err, statusd.ENotFound)
	entries, _, err := s.Audit(ctx, 1, 1)
	if err != nil || entries[0].Action != "user.setup" || entries[0].Actor != "ann@example.com" {
		t.Errorf("audit: %+v, %v; want user.setup by ann@example.com", entries, err)
	}
}

// startSession starts a session of the user at at and returns its hash.
func startSession(t *testing.T, us statusd.UserStore, userID int64, secret string, at time.Time) []byte {
	t.Helper()
	h := statusd.SecretHash(secret)
	if err := us.StartSession(context.Background(), userID, h, at); err != nil {
		t.Fatalf("StartSession: %v", err)
	}
	return h
}

// sessionUser returns the id of the session's user at at, 0 for none.
func sessionUser(t *testing.T, us statusd.UserStore, session []byte, at time.Time) int64 {
	t.Helper()
	u, err := us.Session(context.Background(), session, at)
	if err != nil {
		t.Fatalf("Session: %v", err)
	}
	if u == nil {
		return 0
	}
	return u.ID
}

func testSessionIdle(t *testing.T, s statusd.Store) {
	us := s.Users()
	u := addUser(t, us, "ann@example.com", statusd.Viewer, "setup-a")
	h := startSession(t, us, u.ID, "session-1", t0)
	// Used at 11 h 59 m: it lasts 12 h from then, not from its start.
	used := t0.Add(11*time.Hour + 59*time.Minute)
	if id := sessionUser(t, us, h, used); id != u.ID {
		t.Fatalf("at 11h59m: user %d, want %d", id, u.ID)
	}
	if id := sessionUser(t, us, h, used.Add(statusd.SessionIdle-time.Millisecond)); id != u.ID {
		t.Errorf("12 h less 1 ms after its last use: user %d, want %d", id, u.ID)
	}
	// That use was 1 ms short of 12 h after the one before, well over a
	// minute after it, so it was recorded: 12 h idle from it ends it.
	last := used.Add(statusd.SessionIdle - time.Millisecond)
	if id := sessionUser(t, us, h, last.Add(statusd.SessionIdle)); id != 0 {
		t.Errorf("12 h idle: user %d, want no session", id)
	}
	if id := sessionUser(t, us, statusd.SecretHash("session-2"), t0); id != 0 {
		t.Errorf("an unknown session: user %d, want none", id)
	}
	h3 := startSession(t, us, u.ID, "session-3", t0)
	if err := us.EndSession(context.Background(), h3); err != nil {
		t.Fatal(err)
	}
	if id := sessionUser(t, us, h3, t0); id != 0 {
		t.Errorf("an ended session: user %d, want none", id)
	}
}

func testUserReset(t *testing.T, s statusd.Store) {
	ctx, us := context.Background(), s.Users()
	u := addUser(t, us, "ann@example.com", statusd.Owner, "setup-a")
	if _, err := us.Setup(ctx, statusd.SecretHash("setup-a"), "the-hash", t0); err != nil {
		t.Fatal(err)
	}
	h := startSession(t, us, u.ID, "session-1", t0)
	at := t0.Add(time.Hour)
	got, err := us.Reset(ctx, u.ID, statusd.SecretHash("setup-b"), at.Add(statusd.SetupValid),
		statusd.AuditEntry{At: at, Actor: "alice", Action: "user.reset", Target: "user 1"})
	if err != nil || got.PasswordHash != "" || got.ID != u.ID {
		t.Fatalf("Reset: %+v, %v; want user %d without a password", got, err, u.ID)
	}
	if id := sessionUser(t, us, h, at); id != 0 {
		t.Errorf("a session after the reset: user %d, want none", id)
	}
	if got, err := us.SetupUser(ctx, statusd.SecretHash("setup-b"), at); err != nil || got.ID != u.ID {
		t.Errorf("the new setup link: %+v, %v; want user %d", got, err, u.ID)
	}
	_, err = us.Reset(ctx, u.ID+1, statusd.SecretHash("setup-c"), at, statusd.AuditEntry{At: at, Actor: "alice", Action: "user.reset"})
	wantCode(t, "Reset of no user", err, statusd.ENotFound)
}

func testUserDelete(t *testing.T, s statusd.Store) {
	ctx, us := context.Background(), s.Users()
	u := addUser(t, us, "ann@example.com", statusd.Owner, "setup-a")
	h := startSession(t, us, u.ID, "session-1", t0)
	e := statusd.AuditEntry{At: t0, Actor: "alice", Action: "user.remove", Target: "user 1"}
	if err := us.Delete(ctx, u.ID, e); err != nil {
		t.Fatal(err)
	}
	if id := sessionUser(t, us, h, t0); id != 0 {
		t.Errorf("a deleted user's session: user %d, want none", id)
	}
	_, err := us.Get(ctx, u.ID)
	wantCode(t, "Get of a deleted user", err, statusd.ENotFound)
	wantCode(t, "Delete again", us.Delete(ctx, u.ID, e), statusd.ENotFound)
	// The email is free again.
	addUser(t, us, "ann@example.com", statusd.Viewer, "setup-b")
}
