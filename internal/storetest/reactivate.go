package storetest

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/statusd/statusd"
)

// testReactivate: setting subscribers active again, in bulk (Reactivate)
// or one (Change), counts their failures afresh and queues, for each
// notice, only its newest event of the last 24 hours that concerns the
// subscriber, when it failed (not dropped) or was never made. The
// expected deliveries are worked out by hand from the timeline below.
func testReactivate(t *testing.T, s statusd.Store) {
	ctx := context.Background()
	o := newOutbox(t, s)
	importSample(t, s) // components 7 (API) and 3 (API EU, under API)
	h := func(n float64) time.Time { return t0.Add(time.Duration(n * float64(time.Hour))) }
	now := h(30) // the window: events made after h(6)

	q1 := o.add(statusd.Email, "q1", statusd.SubscriberActive)      // the whole page
	q2 := o.add(statusd.Webhook, "q2", statusd.SubscriberActive, 3) // API EU
	q3 := o.add(statusd.Slack, "q3", statusd.SubscriberActive)      // the whole page
	keep := o.add(statusd.Email, "keep", statusd.SubscriberActive)  // never quarantined
	noticeEvent := func(notice int64, at time.Time, components ...int64) int64 {
		if components == nil {
			components = []int64{}
		}
		return o.emit(statusd.Event{Kind: statusd.NoticeUpdated, NoticeID: notice, UpdateID: 1, ComponentIDs: components, CreatedAt: at})
	}
	// Before the quarantine, while everyone is active: old (25 hours
	// before now), dropped, failed (one event each of its own notice), a
	// test for q1, and A1, the first of three updates of notice 100.
	old := noticeEvent(104, h(5))
	dropped := noticeEvent(103, h(8))
	failed := noticeEvent(102, h(9))
	test := o.emit(statusd.Event{Kind: statusd.TestMessage, SubscriberID: q1.ID, CreatedAt: h(9)})
	a1 := noticeEvent(100, h(10), 3)
	o.expand(h(10), 100)
	of := func(sub statusd.Subscriber, event int64) *statusd.Delivery {
		t.Helper()
		for _, d := range o.deliveries(statusd.DeliveryFilter{SubscriberID: sub.ID}) {
			if d.Event.ID == event {
				return &d
			}
		}
		return nil
	}
	o.record(of(q1, dropped).ID, statusd.Attempt{At: h(10), Outcome: statusd.Dropped, Error: "the notice was deleted"})
	o.record(of(q1, a1).ID, statusd.Attempt{At: h(10), Outcome: statusd.Failed, Status: 451, Error: "451 try later"})
	o.record(of(q1, test).ID, statusd.Attempt{At: h(10), Outcome: statusd.Rejected, Status: 550, Error: "550 5.1.1 no such user"})
	quarantine := func(sub statusd.Subscriber) {
		t.Helper()
		_, err := o.ss.Change(ctx, sub.ID, func(s *statusd.Subscriber) error { s.State = statusd.SubscriberQuarantined; return nil }, nil)
		o.must(err, "quarantine %d", sub.ID)
	}
	quarantine(q2)
	quarantine(q3)
	// q4 subscribed after notice 100's updates, before notice 101's.
	q4 := statusd.Subscriber{Channel: statusd.Email, Address: "q4@example.com", ComponentIDs: []int64{}, State: statusd.SubscriberActive,
		CreatedAt: h(12.5), UpdatedAt: h(12.5)}
	o.must(o.ss.Add(ctx, &q4, statusd.AuditEntry{At: h(12.5), Actor: "ops", Action: "subscriber.create"}), "Add q4")
	quarantine(q4)
	if sub := o.get(q1.ID); sub.State != statusd.SubscriberQuarantined || sub.Failures != 1 {
		t.Fatalf("q1 after a failure and a rejection: %s with %d failures, want quarantined with 1", sub.State, sub.Failures)
	}
	// While they are quarantined: A2 and A3, B1 of notice 101 (API), a
	// component's update and a confirmation for q1, which reach none of
	// them.
	a2 := noticeEvent(100, h(11), 3)
	a3 := noticeEvent(100, h(12), 3)
	b1 := noticeEvent(101, h(13), 7)
	o.emit(statusd.Event{Kind: statusd.ComponentUpdated, ComponentIDs: []int64{7}, OldState: statusd.PageOperational,
		NewState: statusd.PageDegraded, CreatedAt: h(13)})
	o.emit(statusd.Event{Kind: statusd.SubscriptionConfirm, SubscriberID: q1.ID, CreatedAt: h(13)})
	o.expand(h(13), 100)

	// ids that are not quarantined subscribers of the channel: refused,
	// each named, nothing changed.
	entry := statusd.AuditEntry{At: now, Actor: "ops", Action: "subscriber.reactivate", Target: "subscribers", Detail: "chosen"}
	_, err := o.ss.Reactivate(ctx, statusd.Reactivation{IDs: []int64{q1.ID, 99999, keep.ID}}, now, entry)
	if got := statusd.ProblemsOf(err); statusd.ErrorCode(err) != statusd.EInvalidField || !reflect.DeepEqual(got, []statusd.Problem{
		{Path: "ids[1]", Message: "no subscriber has id 99999"},
		{Path: "ids[2]", Message: fmt.Sprintf("subscriber %d is active, not quarantined", keep.ID)},
	}) {
		t.Errorf("Reactivate of a missing and an active id: %v, problems %+v", err, got)
	}
	_, err = o.ss.Reactivate(ctx, statusd.Reactivation{Channel: statusd.Webhook, IDs: []int64{q1.ID}}, now, entry)
	if got := statusd.ProblemsOf(err); !reflect.DeepEqual(got, []statusd.Problem{
		{Path: "ids[0]", Message: fmt.Sprintf("subscriber %d is a email subscriber, not webhook", q1.ID)}}) {
		t.Errorf("Reactivate of an email id as a webhook: %v, problems %+v", err, got)
	}
	if sub := o.get(q1.ID); sub.State != statusd.SubscriberQuarantined {
		t.Errorf("refused Reactivates left q1 %s", sub.State)
	}
	_, audits, _ := s.Audit(ctx, 1, 1)

	// The email subscribers: q1 and q4.
	got, err := o.ss.Reactivate(ctx, statusd.Reactivation{Channel: statusd.Email}, now, entry)
	// q1: failed (its delivery, failed by the quarantine, again), A3
	// (made; A1 failed and A2 missed are older), B1 (made); not old (25
	// hours), dropped, the test, nor the confirmation. q4: B1 only, the
	// one event since it subscribed.
	if want := (statusd.Reactivated{Subscribers: 2, Requeued: 4}); err != nil || got != want {
		t.Fatalf("Reactivate(email) = %+v, %v; want %+v", got, err, want)
	}
	for _, sub := range []statusd.Subscriber{q1, q4} {
		if back := o.get(sub.ID); back.State != statusd.SubscriberActive || back.Failures != 0 || back.FailingSince != nil || !back.UpdatedAt.Equal(now) {
			t.Errorf("subscriber %d after Reactivate: %s, %d failures since %v, updated %v; want active, none, at %v",
				sub.ID, back.State, back.Failures, back.FailingSince, back.UpdatedAt, now)
		}
	}
	// due lists the events of a subscriber's deliveries pending at now.
	due := func(sub statusd.Subscriber) []int64 {
		t.Helper()
		var events []int64
		for _, d := range o.deliveries(statusd.DeliveryFilter{SubscriberID: sub.ID}) {
			if d.State == statusd.DeliveryPending {
				if d.NextAttemptAt == nil || !d.NextAttemptAt.Equal(now) {
					t.Errorf("delivery %d of event %d is due at %v, want %v", d.ID, d.Event.ID, d.NextAttemptAt, now)
				}
				events = append(events, d.Event.ID)
			}
		}
		slices.Sort(events)
		return events
	}
	if got, want := due(q1), []int64{failed, a3, b1}; !slices.Equal(got, want) {
		t.Errorf("q1's pending deliveries are of events %v, want %v", got, want)
	}
	if d := of(q1, dropped); d.State != statusd.DeliveryFailed || !d.Dropped() {
		t.Errorf("q1's dropped delivery: %+v, want still dropped", d)
	}
	for _, e := range []int64{old, a1, test} {
		if d := of(q1, e); d.State != statusd.DeliveryFailed {
			t.Errorf("q1's delivery of event %d is %s, want still failed", e, d.State)
		}
	}
	if d := of(q1, a2); d != nil {
		t.Errorf("q1 was given A2, older than A3: %+v", d)
	}
	if got, want := due(q4), []int64{b1}; !slices.Equal(got, want) || len(o.deliveries(statusd.DeliveryFilter{SubscriberID: q4.ID})) != 1 {
		t.Errorf("q4's pending deliveries are of events %v, want %v and nothing else", got, want)
	}
	if claimed := o.claim(now, time.Minute, 100, statusd.Email); len(claimed) < 4 {
		t.Errorf("Claim at now took %d email deliveries, want the 4 queued and keep's", len(claimed))
	}
	entries, total, _ := s.Audit(ctx, 1, 1)
	if total != audits+1 || entries[0].Detail != "chosen; 2 subscribers active again, 4 messages sent again" {
		t.Errorf("the audit log after Reactivate: %d entries, the newest %+v", total, entries[0])
	}

	// One, by Change, as the admin API's PATCH does: q2 (API EU) gets
	// dropped and failed (each failed by its quarantine, the newest of its
	// notice) and A3; not B1, of API, the group above what it follows.
	back, err := o.ss.Change(ctx, q2.ID, func(s *statusd.Subscriber) error {
		s.State, s.UpdatedAt = statusd.SubscriberActive, now
		return nil
	}, &statusd.AuditEntry{At: now, Actor: "ops", Action: "subscriber.update", Target: "subscriber", Detail: "state active"})
	if err != nil || back.State != statusd.SubscriberActive || back.Failures != 0 {
		t.Fatalf("Change(q2 active) = %+v, %v", back, err)
	}
	if got, want := due(q2), []int64{dropped, failed, a3}; !slices.Equal(got, want) {
		t.Errorf("q2's pending deliveries are of events %v, want %v", got, want)
	}
	if entries, _, _ := s.Audit(ctx, 1, 1); entries[0].Detail != "state active; 3 messages sent again" {
		t.Errorf("the audit entry of Change: %+v", entries[0])
	}

	// Every quarantined one left: q3 (Slack, the whole page).
	got, err = o.ss.Reactivate(ctx, statusd.Reactivation{}, now, entry)
	if want := (statusd.Reactivated{Subscribers: 1, Requeued: 4}); err != nil || got != want {
		t.Errorf("Reactivate() = %+v, %v; want %+v", got, err, want)
	}
	if got, want := due(q3), []int64{dropped, failed, a3, b1}; !slices.Equal(got, want) {
		t.Errorf("q3's pending deliveries are of events %v, want %v", got, want)
	}
	if got, err := o.ss.Reactivate(ctx, statusd.Reactivation{}, now, entry); err != nil || got != (statusd.Reactivated{}) {
		t.Errorf("Reactivate() with none quarantined = %+v, %v; want nothing", got, err)
	}
	if entries, _, _ := s.Audit(ctx, 1, 1); !strings.HasSuffix(entries[0].Detail, "; 0 subscribers active again, 0 messages sent again") {
		t.Errorf("the audit entry of an empty Reactivate: %+v", entries[0])
	}
}
