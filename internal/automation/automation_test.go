package automation

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/internal/app"
	"github.com/statusd/statusd/internal/snapshot"
	"github.com/statusd/statusd/internal/sqlstore"
	"github.com/statusd/statusd/internal/testenv"
)

var begins = time.Date(2026, 3, 1, 2, 0, 0, 0, time.UTC)

// page holds automated maintenance 1 (02:00-03:00), the same without
// automation (2), and an automated one already cancelled (3).
func page() *statusd.Document {
	ends := begins.Add(time.Hour)
	created := begins.Add(-24 * time.Hour)
	planned := func(id int64, automate bool, states ...statusd.State) statusd.Notice {
		n := statusd.Notice{ID: id, Type: statusd.Planned, Subject: "Upgrade", TagList: []string{}, ComponentIDs: []int64{1},
			BeginsAt: &begins, EndsAt: &ends, Automate: automate, CreatedAt: created, UpdatedAt: created}
		for i, s := range states {
			n.Updates = append(n.Updates, statusd.Update{ID: id*10 + int64(i), State: s, Content: "x", CreatedAt: created, UpdatedAt: created})
		}
		return n
	}
	return &statusd.Document{
		Page:       statusd.Page{Name: "P", URL: "https://p.test", CreatedAt: created, UpdatedAt: created},
		Components: []statusd.Component{{ID: 1, Position: 1, Name: "DB", CreatedAt: created, UpdatedAt: created}},
		Notices: []statusd.Notice{
			planned(1, true, statusd.Scheduled),
			planned(2, false, statusd.Scheduled),
			planned(3, true, statusd.Scheduled, statusd.Cancelled),
		},
	}
}

// clock is a settable time source for the runners.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time  { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) set(t time.Time) { c.mu.Lock(); c.t = t; c.mu.Unlock() }

// runner is a Runner and its store.
type runner struct {
	*Runner
	Store statusd.Store
}

// server is one statusd's store handle, snapshot and runner on a shared file.
func server(t *testing.T, path string, c *clock) runner {
	ctx := context.Background()
	store, err := sqlstore.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	h := snapshot.NewHolder(store, snapshot.Options{Variant: statusd.VariantA}, c.now, log)
	if err := h.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	a := app.New(app.Config{Store: store, Snapshots: h, Now: c.now})
	return runner{&Runner{App: a, Snapshots: h, Now: c.now, Log: log}, store}
}

func states(t *testing.T, r runner, id int64) []statusd.State {
	t.Helper()
	if err := r.Snapshots.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	var out []statusd.State
	for _, u := range r.Snapshots.Current().Notice(id).Updates() {
		out = append(out, u.State)
	}
	return out
}

func TestMain(m *testing.M) { testenv.Main(m) }

// TestExactlyOnceAcrossServers runs two servers' runners on one database,
// SQLite and PostgreSQL, many times concurrently, at each moment of the
// schedule: each move, and each reminder, is made once.
func TestExactlyOnceAcrossServers(t *testing.T) {
	t.Run("sqlite", func(t *testing.T) { exactlyOnce(t, filepath.Join(t.TempDir(), "shared.db")) })
	t.Run("postgres", func(t *testing.T) { exactlyOnce(t, testenv.Postgres(t)) })
}

func exactlyOnce(t *testing.T, path string) {
	c := &clock{t: begins.Add(-time.Second)}
	a := server(t, path, c)
	if err := a.Store.Import(context.Background(), page(), false); err != nil {
		t.Fatal(err)
	}
	b := server(t, path, c)
	a.Reminder, b.Reminder = time.Hour, time.Hour
	hook := &statusd.Subscriber{Channel: statusd.Webhook, Address: "https://hooks.example.com/x", State: statusd.SubscriberActive,
		CreatedAt: begins.Add(-48 * time.Hour), UpdatedAt: begins.Add(-48 * time.Hour)}
	if err := a.Store.Subscribers().Add(context.Background(), hook, statusd.AuditEntry{At: hook.CreatedAt, Actor: "test", Action: "subscriber.create"}); err != nil {
		t.Fatal(err)
	}
	tickAll := func() {
		var wg sync.WaitGroup
		for _, r := range []runner{a, b, a, b} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if err := r.Snapshots.Refresh(context.Background()); err != nil {
					t.Error(err)
				}
				if err := r.Tick(context.Background()); err != nil {
					t.Error(err)
				}
			}()
		}
		wg.Wait()
	}
	steps := []struct {
		at   time.Time
		want string
	}{
		{begins.Add(-2 * time.Hour), "[scheduled]"},
		{begins.Add(-30 * time.Minute), "[scheduled]"},
		{begins.Add(-time.Second), "[scheduled]"},
		{begins, "[scheduled underway]"},
		{begins.Add(30 * time.Minute), "[scheduled underway]"},
		{begins.Add(time.Hour), "[scheduled underway complete]"},
		{begins.Add(2 * time.Hour), "[scheduled underway complete]"},
	}
	for _, st := range steps {
		c.set(st.at)
		tickAll()
		if got := fmt.Sprint(states(t, a, 1)); got != st.want {
			t.Errorf("at %s: notice 1 %s, want %s", st.at.Format(time.TimeOnly), got, st.want)
		}
		if got := fmt.Sprint(states(t, b, 2)); got != "[scheduled]" {
			t.Errorf("at %s: notice 2 without automate moved: %s", st.at.Format(time.TimeOnly), got)
		}
		if got := fmt.Sprint(states(t, b, 3)); got != "[scheduled cancelled]" {
			t.Errorf("at %s: cancelled notice 3 moved: %s", st.at.Format(time.TimeOnly), got)
		}
	}
	// The moves are written by statusd, once each, in the audit log.
	entries, _, err := a.Store.Audit(context.Background(), 1, 10)
	if err != nil {
		t.Fatal(err)
	}
	var moves []string
	for _, e := range entries {
		if e.Action == "notice.automate" {
			moves = append(moves, e.Actor+" "+e.Target+" "+e.Detail)
		}
	}
	if got := fmt.Sprint(moves); got != "[statusd notice 1 complete statusd notice 1 underway]" {
		t.Errorf("audit moves %s", got)
	}
	n := a.Snapshots.Current().Notice(1)
	if got := n.Updates()[1].CreatedAt; !got.Equal(begins) {
		t.Errorf("underway update at %s, want %s", got, begins)
	}
	// The subscriber hears, once each, of the reminders of both scheduled
	// maintenances (not of the cancelled one) and of notice 1's two moves,
	// whose updates take the ids after the page's highest, 31; and, a
	// webhook, of its component going under maintenance and back.
	subs := a.Store.Subscribers()
	if _, err := subs.Expand(context.Background(), c.now(), 100); err != nil {
		t.Fatal(err)
	}
	got, _, err := subs.Deliveries(context.Background(), statusd.DeliveryFilter{}, 1, 100)
	if err != nil {
		t.Fatal(err)
	}
	var told []string
	for _, d := range got {
		told = append(told, fmt.Sprintf("%s %d/%d", d.Event.Kind, d.Event.NoticeID, d.Event.UpdateID))
	}
	slices.Sort(told)
	want := []string{"component_update 0/0", "component_update 0/0",
		"maintenance.reminder 1/0", "maintenance.reminder 2/0", "notice.updated 1/32", "notice.updated 1/33"}
	if !slices.Equal(told, want) {
		t.Errorf("deliveries %q, want %q", told, want)
	}
}

// TestNoReminderAfterRecentNews checks that a maintenance whose last
// update is within the reminder's lead gets no reminder, and that a
// runner without a lead sends none.
func TestNoReminderAfterRecentNews(t *testing.T) {
	c := &clock{t: begins.Add(-30 * time.Minute)}
	r := server(t, filepath.Join(t.TempDir(), "db"), c)
	doc := page()
	for i := range doc.Notices {
		u := &doc.Notices[i].Updates[0]
		u.CreatedAt, u.UpdatedAt = begins.Add(-40*time.Minute), begins.Add(-40*time.Minute)
	}
	if err := r.Store.Import(context.Background(), doc, false); err != nil {
		t.Fatal(err)
	}
	if err := r.Snapshots.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, lead := range []time.Duration{time.Hour, 0} {
		r.Reminder = lead
		if err := r.Tick(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	// Had a runner stored a reminder, its key would be taken.
	for _, id := range []int64{1, 2} {
		n, err := r.Store.Subscribers().Emit(context.Background(), statusd.Event{Kind: statusd.MaintenanceReminder,
			NoticeID: id, Key: fmt.Sprintf("maintenance.reminder:%d:%d", id, begins.UnixMilli()), CreatedAt: c.now()})
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			t.Errorf("notice %d, updated 40 minutes before it begins, was reminded", id)
		}
	}
}

// TestWholeWindowMissed checks a maintenance whose window passed while no
// server ran: it goes underway and complete at once.
func TestWholeWindowMissed(t *testing.T) {
	c := &clock{t: begins.Add(5 * time.Hour)}
	r := server(t, filepath.Join(t.TempDir(), "db"), c)
	if err := r.Store.Import(context.Background(), page(), false); err != nil {
		t.Fatal(err)
	}
	if err := r.Snapshots.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := r.Tick(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(states(t, r, 1)); got != "[scheduled underway complete]" {
		t.Errorf("notice 1 %s", got)
	}
}
