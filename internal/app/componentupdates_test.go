package app

import (
	"context"
	"fmt"
	"reflect"
	"testing"

	"github.com/statusd/statusd"
)

// TestComponentUpdates: every write that changes a component's state, or
// the worst impact of the incidents that make it degraded, stores, in its
// transaction, one component_update event per component so changed, with
// the states (and impacts) before and after (CONTRACT C3, C6, C7), which
// goes to the webhook subscribers of the whole page, not to other
// channels; a write with "notify": false stores none.
//
// The fixture's API (1) is degraded by incident 1; Search (2) is under it.
func TestComponentUpdates(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	ops := statusd.Actor{Name: "ops", Role: statusd.Owner}
	mail := &statusd.Subscriber{Channel: statusd.Email, Address: "bob@example.com", State: statusd.SubscriberActive,
		Token: statusd.NewToken(), CreatedAt: t0, UpdatedAt: t0}
	if err := f.store.Subscribers().Add(ctx, mail, statusd.AuditEntry{At: t0, Actor: "setup", Action: "setup"}); err != nil {
		t.Fatal(err)
	}
	no := false
	publish := func(typ string, components []int64, state string, notify *bool) func() error {
		return func() error {
			body := statusd.AdminNoticeRequest{Type: &typ, Subject: text("S"), Content: text("C"), State: &state,
				ComponentIDs: &components, Notify: notify}
			if typ == "planned" {
				body.BeginsAt, body.EndsAt = statusd.Some("2026-05-01T11:00:00Z"), statusd.Some("2026-05-01T14:00:00Z")
			}
			_, err := f.app.Publish(ctx, ops, body)
			return err
		}
	}
	post := func(id int64, state string) func() error {
		return func() error {
			return f.app.AddUpdate(ctx, ops, id, statusd.AdminUpdateRequest{Content: text("C"), State: &state})
		}
	}
	steps := []struct {
		name  string
		write func() error
		want  []string // "component: old -> new", in position order
	}{
		{"an incident on Search degrades it; API was degraded already", publish("unplanned", []int64{2}, "investigating", nil),
			[]string{"2: operational -> degraded (minor)"}},
		{"raising its impact to critical moves both, API through Search", func() error {
			return f.app.Edit(ctx, ops, 2, statusd.AdminNoticeRequest{Impact: text("critical")})
		}, []string{"1: degraded (minor) -> degraded (critical)", "2: degraded (minor) -> degraded (critical)"}},
		{"resolving API's incident leaves it degraded by Search's", post(1, "resolved"), nil},
		{"resolving Search's makes both operational", post(2, "resolved"),
			[]string{"1: degraded (critical) -> operational", "2: degraded (critical) -> operational"}},
		{"a write that notifies no one stores none", publish("unplanned", []int64{2}, "identified", &no), nil},
		{"closing that incident with notify", post(3, "false_alarm"),
			[]string{"1: degraded (minor) -> operational", "2: degraded (minor) -> operational"}},
		{"maintenance underway on Search", publish("planned", []int64{2}, "underway", nil),
			[]string{"1: operational -> under_maintenance", "2: operational -> under_maintenance"}},
		{"moving Search to the top leaves API operational", func() error {
			return f.app.ChangeComponent(ctx, ops, 2, statusd.AdminComponentRequest{ParentID: statusd.Field[int64]{Set: true}})
		}, []string{"1: under_maintenance -> operational"}},
		{"deleting the maintenance ends Search's", func() error { return f.app.DeleteNotice(ctx, ops, 4) },
			[]string{"2: under_maintenance -> operational"}},
	}
	seen := map[int64]bool{}
	for _, step := range steps {
		if err := step.write(); err != nil {
			t.Fatalf("%s: %v", step.name, err)
		}
		if _, err := f.store.Subscribers().Expand(ctx, t0, 100); err != nil {
			t.Fatal(err)
		}
		var got []string
		ds, _, err := f.store.Subscribers().Deliveries(ctx, statusd.DeliveryFilter{}, 1, 100)
		if err != nil {
			t.Fatal(err)
		}
		for i := len(ds) - 1; i >= 0; i-- { // oldest first
			d := ds[i]
			if seen[d.ID] || d.Event.Kind != statusd.ComponentUpdated {
				continue
			}
			seen[d.ID] = true
			if d.SubscriberID == mail.ID {
				t.Errorf("%s: an email subscriber got a component update", step.name)
				continue
			}
			e := d.Event
			got = append(got, fmt.Sprintf("%d: %s -> %s", e.ComponentIDs[0], condition(e.OldState, e.OldSeverity), condition(e.NewState, e.NewSeverity)))
		}
		if !reflect.DeepEqual(got, step.want) {
			t.Errorf("%s: component updates %q, want %q", step.name, got, step.want)
		}
	}
}

// condition writes a state, and its severity when it has one.
func condition(state statusd.PageState, sev statusd.Severity) string {
	if sev == "" {
		return string(state)
	}
	return fmt.Sprintf("%s (%s)", state, sev)
}

// TestUpdateRecordsWhatItDid: an update records whether its write notified
// subscribers and which components' states it changed, from what to what
// (Statuspage's deliver_notifications and affected_components), "notify":
// false or not; an edit adds no update and records nothing.
func TestUpdateRecordsWhatItDid(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	ops := statusd.Actor{Name: "ops", Role: statusd.Owner}
	no := false
	typ, state, comps := "unplanned", "identified", []int64{2}
	id, err := f.app.Publish(ctx, ops, statusd.AdminNoticeRequest{Type: &typ, Subject: text("Search down"), Content: text("C"),
		State: &state, ComponentIDs: &comps})
	if err != nil {
		t.Fatal(err)
	}
	resolved := "resolved"
	if err := f.app.AddUpdate(ctx, ops, 1, statusd.AdminUpdateRequest{Content: text("API fixed"), State: &resolved, Notify: &no}); err != nil {
		t.Fatal(err)
	}
	if err := f.app.AddUpdate(ctx, ops, id, statusd.AdminUpdateRequest{Content: text("Search fixed"), State: &resolved}); err != nil {
		t.Fatal(err)
	}
	if err := f.app.Edit(ctx, ops, id, statusd.AdminNoticeRequest{Subject: text("Search was down")}); err != nil {
		t.Fatal(err)
	}
	snap, err := f.app.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	// A degraded state carries the worst impact of the incidents that
	// make it so: minor, the default, for both here.
	change := func(id int64, old, new statusd.PageState) statusd.ComponentChange {
		c := statusd.ComponentChange{ComponentID: id, Old: old, New: new}
		if old == statusd.PageDegraded {
			c.OldSeverity = statusd.SeverityMinor
		}
		if new == statusd.PageDegraded {
			c.NewSeverity = statusd.SeverityMinor
		}
		return c
	}
	op, deg := statusd.PageOperational, statusd.PageDegraded
	for _, tc := range []struct {
		name     string
		notice   int64
		update   int // index
		notified bool
		changes  []statusd.ComponentChange
	}{
		// Search (2) is under API (1), degraded by incident 1.
		{"the new incident degrades Search; API was degraded already", id, 0, true, []statusd.ComponentChange{change(2, op, deg)}},
		{"resolving incident 1 without notifying leaves API degraded by Search", 1, 1, false, nil},
		{"resolving Search's makes both operational", id, 1, true, []statusd.ComponentChange{change(1, deg, op), change(2, deg, op)}},
	} {
		us := snap.Notice(tc.notice).Updates()
		if len(us) != 2 {
			t.Fatalf("notice %d has %d updates, want 2 (an edit adds none)", tc.notice, len(us))
		}
		if u := us[tc.update]; u.Notified != tc.notified || !reflect.DeepEqual(u.Changes, tc.changes) {
			t.Errorf("%s: notified %v, changes %v; want %v, %v", tc.name, u.Notified, u.Changes, tc.notified, tc.changes)
		}
	}
}
