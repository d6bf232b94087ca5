package app

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/internal/snapshot"
	"github.com/statusd/statusd/internal/sqlstore"
	"github.com/statusd/statusd/internal/testenv"
)

// The timers of the signals (holds, publish rules and their cooldown) and
// flapping, on a real SQLite store with a clock the test moves: the
// black-box tests of internal/server cannot wait minutes.

// clocked is an App on page() whose clock is *now.
type clocked struct {
	app   *App
	store *sqlstore.Store
	now   *time.Time
}

func newClocked(t *testing.T) clocked {
	t.Helper()
	now := t0.Add(time.Hour)
	return onStore(t, filepath.Join(t.TempDir(), "app.db"), &now, true)
}

// onStore is a clocked App on the database db, which gets page() when
// fresh, with the clock *now.
func onStore(t testing.TB, db string, now *time.Time, fresh bool) clocked {
	t.Helper()
	ctx := context.Background()
	store, err := sqlstore.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	if fresh {
		if err := store.Import(ctx, page(), false); err != nil {
			t.Fatal(err)
		}
	}
	clock := func() time.Time { return *now }
	holder := snapshot.NewHolder(store, snapshot.Options{Variant: statusd.VariantA}, clock, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err := holder.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	return clocked{app: New(Config{Store: store, Snapshots: holder, Now: clock}), store: store, now: now}
}

// source makes a generic source with the rules (JSON).
func (c clocked) source(t *testing.T, rules string) *statusd.Source {
	t.Helper()
	body := statusd.AdminSourceRequest{Name: ptr("Scripts"), Format: ptr("generic")}
	if rules != "" {
		var list []statusd.SignalRule
		if err := json.Unmarshal([]byte(rules), &list); err != nil {
			t.Fatal(err)
		}
		body.Rules = &list
	}
	out, err := c.app.AddSource(context.Background(), statusd.System, body)
	if err != nil {
		t.Fatal(err)
	}
	var src *statusd.Source
	c.store.Signals().Read(context.Background(), func(r statusd.SignalReads) (err error) { src, err = r.Source(out.ID); return err })
	return src
}

// event posts one generic event and returns its action.
func (c clocked) event(t *testing.T, src *statusd.Source, key, status, component string) string {
	t.Helper()
	body := fmt.Sprintf(`{"dedup_key": %q, "status": %q, "labels": {"component": %q}}`, key, status, component)
	res, err := c.app.Ingest(context.Background(), src, []byte(body))
	if err != nil {
		t.Fatalf("ingest %s: %v", body, err)
	}
	return res.Signals[0].Action
}

// drafts are the drafts in state.
func (c clocked) drafts(t *testing.T, state string) []statusd.AdminDraft {
	t.Helper()
	list, err := c.app.Drafts(context.Background(), statusd.System, state)
	if err != nil {
		t.Fatal(err)
	}
	return list
}

// tick moves the clock by d and runs the timers.
func (c clocked) tick(t *testing.T, d time.Duration) {
	t.Helper()
	*c.now = c.now.Add(d)
	if err := c.app.SignalTimers(context.Background()); err != nil {
		t.Fatalf("SignalTimers: %v", err)
	}
}

// TestSignalHold: a rule's hold keeps a firing signal pending; it drafts
// once the hold is over, unless it resolved first.
func TestSignalHold(t *testing.T) {
	c := newClocked(t)
	src := c.source(t, `[{"hold": "2m"}]`)
	if got := c.event(t, src, "a", "firing", "2"); got != statusd.HookPending {
		t.Fatalf("a held alert: %s, want pending", got)
	}
	if got := c.event(t, src, "b", "firing", "2"); got != statusd.HookPending {
		t.Fatalf("another held alert: %s, want pending", got)
	}
	c.tick(t, time.Minute)
	if got := c.event(t, src, "b", "resolved", "2"); got != statusd.HookUnchanged {
		t.Errorf("b resolved within its hold: %s, want unchanged", got)
	}
	if n := len(c.drafts(t, "")); n != 0 {
		t.Fatalf("%d drafts a minute into a 2-minute hold, want none", n)
	}
	c.tick(t, time.Minute)
	open := c.drafts(t, statusd.DraftOpen)
	if len(open) != 1 || len(open[0].SignalIDs) != 1 || fmt.Sprint(open[0].ComponentIDs) != "[2]" {
		t.Fatalf("after the hold: %+v; want one draft of a's one signal, on component 2", open)
	}
	c.tick(t, time.Minute) // once: nothing more
	if n := len(c.drafts(t, "")); n != 1 {
		t.Errorf("%d drafts after another tick, want still 1", n)
	}
}

// TestPublishRule: a publish rule publishes its draft by itself once the
// hold is over, telling nobody unless it says so, audited as
// signals:<source>; within its cooldown the next draft waits for a
// person, with a warning.
func TestPublishRule(t *testing.T) {
	c := newClocked(t)
	ctx := context.Background()
	src := c.source(t, `[{"action": "publish", "hold": "1m", "cooldown": "10m"}]`)
	c.event(t, src, "a", "firing", "2")
	c.tick(t, 30*time.Second)
	if n := len(c.drafts(t, "")); n != 0 {
		t.Fatalf("%d drafts within the hold, want none", n)
	}
	c.tick(t, 30*time.Second)
	published := c.drafts(t, statusd.DraftPublished)
	if len(published) != 1 || published[0].NoticeID == nil {
		t.Fatalf("after the hold: published %+v, want one draft published", published)
	}
	snap := c.app.snaps.Current()
	n := snap.Notice(*published[0].NoticeID)
	if n == nil || n.Subject() != "Issues with Search" || n.State() != statusd.Investigating {
		t.Fatalf("the notice the rule published: %+v, want Issues with Search, investigating", n)
	}
	entries, _, err := c.store.Audit(ctx, 1, 10)
	if err != nil {
		t.Fatal(err)
	}
	if entries[0].Actor != "signals:Scripts" || entries[0].Action != "notice.create" {
		t.Errorf("the newest audit entry: %+v, want signals:Scripts notice.create", entries[0])
	}
	if ds, _, err := c.store.Subscribers().Deliveries(ctx, statusd.DeliveryFilter{}, 1, 10); err != nil || len(ds) != 0 {
		t.Errorf("the publication made %d deliveries (%v), want none: the rule does not notify", len(ds), err)
	}
	// Another alert on component 1's incident would attach; one on a
	// component of no notice, within the cooldown, waits for a person.
	c.event(t, src, "b", "firing", "2")
	c.tick(t, time.Minute)
	open := c.drafts(t, statusd.DraftOpen)
	if len(open) != 0 {
		t.Fatalf("b joined the published incident of its component, want no new draft: %+v", open)
	}
	c.event(t, src, "c", "firing", "1") // component 1 has incident 1 open: attached, no draft
	c.tick(t, time.Minute)
	if open := c.drafts(t, statusd.DraftOpen); len(open) != 0 {
		t.Fatalf("c on an open incident's component: %+v, want no draft", open)
	}
}

// TestPublishCooldown: a second publish-rule draft within the rule's
// cooldown is not published by itself.
func TestPublishCooldown(t *testing.T) {
	c := newClocked(t)
	src := c.source(t, `[{"match": {"component": "2"}, "action": "publish", "hold": "1m", "cooldown": "1h"}]`)
	c.event(t, src, "a", "firing", "2")
	c.tick(t, time.Minute)
	first := c.drafts(t, statusd.DraftPublished)
	if len(first) != 1 {
		t.Fatalf("published %+v, want one", first)
	}
	// A person resolves the incident; another key fires on component
	// 2: a new draft, which the rule may not publish within its hour.
	body := statusd.AdminUpdateRequest{Content: ptr("Fixed."), State: ptr("resolved")}
	if err := c.app.AddUpdate(context.Background(), statusd.Actor{Name: "ops", Role: statusd.Owner, Kind: statusd.ByToken}, *first[0].NoticeID, body); err != nil {
		t.Fatal(err)
	}
	*c.now = c.now.Add(5 * time.Minute)
	c.event(t, src, "b", "firing", "2")
	c.tick(t, time.Minute)
	open := c.drafts(t, statusd.DraftOpen)
	if len(open) != 1 || open[0].PublishAt != nil || !slices.ContainsFunc(open[0].Warnings, func(w string) bool { return strings.Contains(w, "cooldown") }) {
		t.Fatalf("a second draft within the cooldown: %+v; want it open, for a person, with a warning about the cooldown", open)
	}
}

// TestFlapping: a key that fires and resolves three times in 30 minutes
// keeps one draft, with a warning, rather than one draft a flap.
func TestFlapping(t *testing.T) {
	c := newClocked(t)
	src := c.source(t, "")
	var actions []string
	for range 3 {
		actions = append(actions, c.event(t, src, "a", "firing", "2"))
		*c.now = c.now.Add(time.Minute)
		actions = append(actions, c.event(t, src, "a", "resolved", "2"))
		*c.now = c.now.Add(time.Minute)
	}
	actions = append(actions, c.event(t, src, "a", "firing", "2"))
	if got := strings.Join(actions, ","); got != "drafted,lapsed,drafted,lapsed,drafted,lapsed,drafted" {
		t.Errorf("the flaps: %s", got)
	}
	all := c.drafts(t, "")
	if len(all) != 1 || all[0].State != statusd.DraftOpen || len(all[0].Warnings) != 1 || !strings.Contains(all[0].Warnings[0], "flapping") {
		t.Fatalf("after three flaps: %+v; want one open draft with one flapping warning", all)
	}
}

func ptr[T any](v T) *T { return &v }

// TestPublishRuleReplicas: two servers on one PostgreSQL database run the
// timers at the same moment, many times: the publish rule's draft is
// published once.
func TestPublishRuleReplicas(t *testing.T) {
	db := testenv.Postgres(t)
	now := t0.Add(time.Hour)
	a := onStore(t, db, &now, true)
	b := onStore(t, db, &now, false)
	src := a.source(t, `[{"action": "publish", "hold": "1m"}]`)
	a.event(t, src, "a", "firing", "2")
	now = now.Add(time.Minute)
	var wg sync.WaitGroup
	for i := range 10 {
		c := []clocked{a, b}[i%2]
		wg.Go(func() {
			if err := c.app.SignalTimers(context.Background()); err != nil {
				t.Errorf("SignalTimers: %v", err)
			}
		})
	}
	wg.Wait()
	entries, _, err := a.store.Audit(context.Background(), 1, 50)
	if err != nil {
		t.Fatal(err)
	}
	created := 0
	for _, e := range entries {
		if e.Action == "notice.create" {
			created++
		}
	}
	if published := a.drafts(t, statusd.DraftPublished); len(published) != 1 || created != 1 {
		t.Errorf("%d drafts published, %d notices made by 10 timers on 2 servers; want 1 and 1", len(published), created)
	}
}

// TestLapsedSpan: a lapsed draft published later writes a closed incident
// from its alerts' first start to their last end, as the sender gave them.
func TestLapsedSpan(t *testing.T) {
	c := newClocked(t)
	ctx := context.Background()
	src := c.source(t, "")
	start, end := c.now.Add(-10*time.Minute), c.now.Add(-2*time.Minute)
	body := fmt.Sprintf(`{"events": [{"dedup_key": "a", "status": "firing", "labels": {"component": "2"}, "started_at": %q},
		{"dedup_key": "b", "status": "firing", "labels": {"component": "2"}, "started_at": %q}]}`,
		start.Format(time.RFC3339), start.Add(time.Minute).Format(time.RFC3339))
	if _, err := c.app.Ingest(ctx, src, []byte(body)); err != nil {
		t.Fatal(err)
	}
	*c.now = c.now.Add(time.Minute)
	body = fmt.Sprintf(`{"events": [{"dedup_key": "a", "status": "resolved", "ended_at": %q}, {"dedup_key": "b", "status": "resolved", "ended_at": %q}]}`,
		end.Add(-time.Minute).Format(time.RFC3339), end.Format(time.RFC3339))
	if _, err := c.app.Ingest(ctx, src, []byte(body)); err != nil {
		t.Fatal(err)
	}
	lapsed := c.drafts(t, statusd.DraftLapsed)
	if len(lapsed) != 1 {
		t.Fatalf("lapsed drafts: %+v, want one", lapsed)
	}
	_, id, err := c.app.PublishDraft(ctx, statusd.Actor{Name: "ops", Role: statusd.Owner, Kind: statusd.ByToken}, lapsed[0].ID,
		statusd.AdminDraftRequest{Version: &lapsed[0].Version, Notify: ptr(false)})
	if err != nil {
		t.Fatal(err)
	}
	n := c.app.snaps.Current().Notice(id)
	ups := n.Updates()
	if len(ups) != 2 || !ups[0].CreatedAt.Equal(start) || ups[1].State != statusd.Resolved || !ups[1].CreatedAt.Equal(end) {
		t.Errorf("the closed incident's updates: %+v; want investigating at %v, resolved at %v", ups, start, end)
	}
}

// TestGiveWay: while readers are busy, a body of alerts is taken in
// chunks, each followed by a pause of readersFirst times what it took;
// while they are not, there is no pause.
func TestGiveWay(t *testing.T) {
	for _, busy := range []bool{false, true} {
		c := newClocked(t)
		src := c.source(t, "")
		var pauses []time.Duration
		c.app.busy = func() bool { return busy }
		c.app.pause = func(_ context.Context, d time.Duration) { pauses = append(pauses, d) }
		var events []string
		for i := range 2*intakeChunk + 1 {
			events = append(events, fmt.Sprintf(`{"dedup_key": "k%d", "status": "firing", "labels": {"component": "2"}}`, i))
		}
		res, err := c.app.Ingest(context.Background(), src, []byte(`{"events": [`+strings.Join(events, ",")+`]}`))
		if err != nil || len(res.Signals) != 2*intakeChunk+1 {
			t.Fatalf("busy %v: %d answers, %v; want %d", busy, len(res.Signals), err, 2*intakeChunk+1)
		}
		want := 0
		if busy {
			want = 3 // after each of the chunks of 50, 50 and 1
		}
		if len(pauses) != want || slices.Contains(pauses, 0) {
			t.Errorf("busy %v: pauses %v, want %d, none zero", busy, pauses, want)
		}
		if drafts := c.drafts(t, statusd.DraftOpen); len(drafts) != 1 || len(drafts[0].SignalIDs) != 2*intakeChunk+1 {
			t.Errorf("busy %v: drafts %d, want one of all %d signals", busy, len(drafts), 2*intakeChunk+1)
		}
	}
}
