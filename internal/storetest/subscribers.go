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

// The cases of the subscribers and the outbox (CONTRACT C7), for Run.
var subscriberCases = []struct {
	name string
	fn   func(*testing.T, statusd.Store)
}{
	{"EmitInAWriteThatRollsBackStoresNothing", testEmitRollback},
	{"EmitOncePerKey", testEmitKey},
	{"ExpandChoosesByWants", testExpandWants},
	{"ExpandIsIdempotent", testExpandOnce},
	{"ClaimLeasesExcludeExpireAndWaitForDue", testClaimLeases},
	{"ClaimOnlyWhatTheSubscriberMayHear", testClaimSendable},
	{"ClaimTheChannelsAsked", testClaimChannels},
	{"RecordDelivered", testRecordDelivered},
	{"RecordFailedRetriesThenFails", testRecordFailed},
	{"QuarantineAfterTenFailuresOverAnHour", testQuarantine},
	{"RecordGoneUnsubscribes", testRecordGone},
	{"RecordRejectedQuarantines", testRecordRejected},
	{"RecordDeferredSparesTheSubscriber", testRecordDeferred},
	{"RecordDroppedCountsNoAttempt", testRecordDropped},
	{"RecordManyInOrderInOneTransaction", testRecordMany},
	{"PruneEndedDeliveriesAndTheirEvents", testPrune},
	{"MessageIDsAndThreadsAreRandomAndKept", testMessageIDs},
	{"ComponentUpdatesGoToWebhooksOnly", testComponentUpdates},
	{"EmailAddressesAreOneWhateverTheirCase", testEmailCase},
	{"AddGetChange", testAddChange},
	{"ReactivateSendsWhatIsCurrent", testReactivate},
	{"DeleteRemovesDeliveries", testDeleteSubscriber},
	{"RequestByState", testRequest},
	{"ByTokenConfirmationExpires", testByToken},
	{"ListSubscribersFiltersAndPages", testListSubscribers},
	{"DeliveriesNewestFirstFiltersAndPages", testDeliveries},
	{"ImportSubscribers", testImportSubscribers},
	{"OutboxLeavesThePageVersion", testOutboxVersion},
}

// retryBase is the --notify-retry-base of the cases.
const retryBase = 30 * time.Second

// outbox drives a store's SubscriberStore, failing the test on any error.
type outbox struct {
	t   *testing.T
	ss  statusd.SubscriberStore
	ctx context.Context
}

func newOutbox(t *testing.T, s statusd.Store) *outbox {
	return &outbox{t: t, ss: s.Subscribers(), ctx: context.Background()}
}

var addresses = map[statusd.Channel]string{statusd.Email: "%s@example.com", statusd.Webhook: "https://%s.example.com/hook",
	statusd.Slack: "https://hooks.slack.com/%s", statusd.Teams: "https://teams.example.com/%s", statusd.Discord: "https://discord.com/api/webhooks/%s"}

// add adds a subscriber named name on the channel, created at t0.
func (o *outbox) add(ch statusd.Channel, name string, state statusd.SubscriberState, components ...int64) statusd.Subscriber {
	o.t.Helper()
	s := statusd.Subscriber{Channel: ch, Address: fmt.Sprintf(addresses[ch], name), ComponentIDs: components,
		State: state, CreatedAt: t0, UpdatedAt: t0}
	if s.ComponentIDs == nil {
		s.ComponentIDs = []int64{}
	}
	o.must(o.ss.Add(o.ctx, &s, statusd.AuditEntry{At: t0, Actor: "ops", Action: "subscriber.create"}), "Add %s", name)
	return s
}

// must fails the test when err is not nil, saying what failed.
func (o *outbox) must(err error, what string, args ...any) {
	o.t.Helper()
	if err != nil {
		o.t.Fatalf("%s: %v", fmt.Sprintf(what, args...), err)
	}
}

func (o *outbox) get(id int64) *statusd.Subscriber {
	o.t.Helper()
	s, err := o.ss.Get(o.ctx, id)
	o.must(err, "Get(%d)", id)
	return s
}

func (o *outbox) emit(e statusd.Event) int64 {
	o.t.Helper()
	if e.CreatedAt.IsZero() {
		e.CreatedAt = t0
	}
	id, err := o.ss.Emit(o.ctx, e)
	o.must(err, "Emit")
	return id
}

// notice emits an event for everyone of a notice listing components.
func (o *outbox) notice(components ...int64) int64 {
	o.t.Helper()
	if components == nil {
		components = []int64{}
	}
	return o.emit(statusd.Event{Kind: statusd.NoticeCreated, NoticeID: 100, UpdateID: 5, ComponentIDs: components})
}

func (o *outbox) expand(now time.Time, limit int) int {
	o.t.Helper()
	n, err := o.ss.Expand(o.ctx, now, limit)
	o.must(err, "Expand")
	return n
}

func (o *outbox) claim(now time.Time, lease time.Duration, limit int, channels ...statusd.Channel) []statusd.Claimed {
	o.t.Helper()
	c, err := o.ss.Claim(o.ctx, now, lease, limit, channels)
	o.must(err, "Claim")
	return c
}

func (o *outbox) record(id int64, a statusd.Attempt) *statusd.Delivery {
	o.t.Helper()
	d, err := o.ss.Record(o.ctx, id, a, retryBase)
	o.must(err, "Record(%d)", id)
	return d
}

func (o *outbox) delivery(id int64) *statusd.Delivery {
	o.t.Helper()
	d, err := o.ss.Delivery(o.ctx, id)
	o.must(err, "Delivery(%d)", id)
	return d
}

// deliveries returns every delivery the filter chooses, newest first.
func (o *outbox) deliveries(f statusd.DeliveryFilter) []statusd.Delivery {
	o.t.Helper()
	ds, total, err := o.ss.Deliveries(o.ctx, f, 1, 10000)
	if err != nil || total != len(ds) {
		o.t.Fatalf("Deliveries(%+v): %d of %d, %v", f, len(ds), total, err)
	}
	return ds
}

// only returns the one delivery of a subscriber.
func (o *outbox) only(subscriberID int64) statusd.Delivery {
	o.t.Helper()
	ds := o.deliveries(statusd.DeliveryFilter{SubscriberID: subscriberID})
	if len(ds) != 1 {
		o.t.Fatalf("subscriber %d has %d deliveries, want 1: %+v", subscriberID, len(ds), ds)
	}
	return ds[0]
}

// single adds an active subscriber and makes it one delivery, due at t0.
func (o *outbox) single(ch statusd.Channel) (statusd.Subscriber, statusd.Delivery) {
	o.t.Helper()
	a, ds := o.several(ch, 1)
	return a, ds[0]
}

// several adds an active subscriber and makes it n deliveries (up to
// 100), due at t0; it returns them newest first.
func (o *outbox) several(ch statusd.Channel, n int) (statusd.Subscriber, []statusd.Delivery) {
	o.t.Helper()
	a := o.add(ch, "a", statusd.SubscriberActive)
	for range n {
		o.notice()
	}
	o.expand(t0, 100)
	return a, o.deliveries(statusd.DeliveryFilter{SubscriberID: a.ID})
}

func claimedIDs(cs []statusd.Claimed) []int64 {
	ids := []int64{}
	for _, c := range cs {
		ids = append(ids, c.Delivery.ID)
	}
	return ids
}

func deliveryIDs(ds []statusd.Delivery) []int64 {
	ids := []int64{}
	for _, d := range ds {
		ids = append(ids, d.ID)
	}
	return ids
}

func subscriberIDs(subs []statusd.Subscriber) []int64 {
	ids := []int64{}
	for _, s := range subs {
		ids = append(ids, s.ID)
	}
	return ids
}

func importSample(t *testing.T, s statusd.Store) {
	t.Helper()
	if err := s.Import(context.Background(), Sample(), false); err != nil {
		t.Fatal(err)
	}
}

func wantCode(t *testing.T, what string, err error, code string) {
	t.Helper()
	if statusd.ErrorCode(err) != code {
		t.Errorf("%s: %v, want an error %s", what, err, code)
	}
}

func testEmitRollback(t *testing.T, s statusd.Store) {
	ctx := context.Background()
	o := newOutbox(t, s)
	importSample(t, s)
	a := o.add(statusd.Email, "a", statusd.SubscriberActive)
	e := statusd.Event{Kind: statusd.NoticeUpdated, NoticeID: 100, UpdateID: 2, ComponentIDs: []int64{7}, CreatedAt: t0}
	refused := statusd.Errorf(statusd.EInvalidField, "no")
	_, err := s.Write(ctx, func(tx statusd.Tx) error {
		if err := tx.Emit(e); err != nil {
			return err
		}
		return refused
	})
	if err != refused {
		t.Fatalf("Write: %v, want the function's error", err)
	}
	if n := o.expand(t0, 10); n != 0 {
		t.Errorf("Expand after a write that rolled back expanded %d events, want 0", n)
	}
	if _, err := s.Write(ctx, func(tx statusd.Tx) error { return tx.Emit(e) }); err != nil {
		t.Fatal(err)
	}
	if n := o.expand(t0, 10); n != 1 {
		t.Errorf("Expand after a write that committed expanded %d events, want 1", n)
	}
	d := o.only(a.ID)
	if d.Event.Kind != statusd.NoticeUpdated || d.Event.NoticeID != 100 || d.Event.UpdateID != 2 ||
		!reflect.DeepEqual(d.Event.ComponentIDs, []int64{7}) || !d.Event.CreatedAt.Equal(t0) {
		t.Errorf("the delivery's event: %+v, want the one emitted", d.Event)
	}
}

func testEmitKey(t *testing.T, s statusd.Store) {
	o := newOutbox(t, s)
	key := fmt.Sprintf("maintenance.reminder:101:%d", t0.Add(time.Hour).UnixMilli())
	reminder := statusd.Event{Kind: statusd.MaintenanceReminder, NoticeID: 101, ComponentIDs: []int64{7}, Key: key}
	first := o.emit(reminder)
	if first == 0 {
		t.Fatal("the first event with a key got id 0")
	}
	if again := o.emit(reminder); again != 0 {
		t.Errorf("a second event with the key got id %d, want 0 (not stored)", again)
	}
	if _, err := s.Write(context.Background(), func(tx statusd.Tx) error { return tx.Emit(reminder) }); err != nil {
		t.Errorf("Tx.Emit of a used key: %v, want no error", err)
	}
	x, y := o.notice(), o.notice()
	if x == 0 || y == 0 || x == y || x == first || y == first {
		t.Errorf("events without a key got ids %d and %d (the keyed one %d), want two new ones", x, y, first)
	}
	// Three events: the keyed one once, and the two without a key.
	if n := o.expand(t0, 10); n != 3 {
		t.Errorf("Expand expanded %d events, want 3", n)
	}
}

// testExpandWants: the tree is 7 > 3 (Sample) and 8 at the top level.
func testExpandWants(t *testing.T, s statusd.Store) {
	ctx := context.Background()
	o := newOutbox(t, s)
	importSample(t, s)
	if _, err := s.Write(ctx, func(tx statusd.Tx) error {
		return tx.PutComponent(&statusd.Component{ID: 8, Position: 3, Name: "Web", CreatedAt: t0, UpdatedAt: t0})
	}); err != nil {
		t.Fatal(err)
	}
	a := o.add(statusd.Email, "a", statusd.SubscriberActive)      // the whole page
	b := o.add(statusd.Webhook, "b", statusd.SubscriberActive, 7) // the group
	c := o.add(statusd.Slack, "c", statusd.SubscriberActive, 3)   // the child
	d := o.add(statusd.Teams, "d", statusd.SubscriberActive, 8)
	e := o.add(statusd.Discord, "e", statusd.SubscriberActive, 3, 8)
	f := o.add(statusd.Email, "f", statusd.SubscriberPending)
	g := o.add(statusd.Email, "g", statusd.SubscriberQuarantined)
	h := o.add(statusd.Email, "h", statusd.SubscriberUnsubscribed)
	want := map[int64][]int64{
		o.notice(3):    {a.ID, b.ID, c.ID, e.ID}, // the group's subscriber hears of its child
		o.notice(7):    {a.ID, b.ID},             // the child's does not hear of its parent
		o.notice():     {a.ID, b.ID, c.ID, d.ID, e.ID},
		o.notice(8):    {a.ID, d.ID, e.ID},
		o.notice(3, 8): {a.ID, b.ID, c.ID, d.ID, e.ID},
		o.emit(statusd.Event{Kind: statusd.TestMessage, SubscriberID: g.ID}):         {g.ID}, // a test goes regardless of quarantine
		o.emit(statusd.Event{Kind: statusd.TestMessage, SubscriberID: h.ID}):         nil,
		o.emit(statusd.Event{Kind: statusd.TestMessage, SubscriberID: a.ID}):         {a.ID},
		o.emit(statusd.Event{Kind: statusd.TestMessage, SubscriberID: 99999}):        nil,
		o.emit(statusd.Event{Kind: statusd.TestMessage}):                             nil,
		o.emit(statusd.Event{Kind: statusd.SubscriptionConfirm, SubscriberID: f.ID}): {f.ID},
		o.emit(statusd.Event{Kind: statusd.SubscriptionConfirm, SubscriberID: a.ID}): {a.ID}, // its manage link
		o.emit(statusd.Event{Kind: statusd.SubscriptionConfirm, SubscriberID: h.ID}): nil,
	}
	now := t0.Add(time.Hour)
	if n := o.expand(now, 100); n != len(want) {
		t.Errorf("Expand expanded %d events, want %d", n, len(want))
	}
	got := map[int64][]int64{}
	for _, d := range o.deliveries(statusd.DeliveryFilter{}) {
		got[d.Event.ID] = append(got[d.Event.ID], d.SubscriberID)
		if d.State != statusd.DeliveryPending || d.Attempts != 0 || d.NextAttemptAt == nil || !d.NextAttemptAt.Equal(now) ||
			!d.CreatedAt.Equal(now) || d.DeliveredAt != nil {
			t.Errorf("delivery %+v, want pending, due and made at the expansion", d)
		}
	}
	for event, subs := range want {
		slices.Sort(got[event])
		if !slices.Equal(got[event], subs) {
			t.Errorf("event %d went to %v, want %v", event, got[event], subs)
		}
	}
}

func testExpandOnce(t *testing.T, s statusd.Store) {
	o := newOutbox(t, s)
	a := o.add(statusd.Email, "a", statusd.SubscriberActive)
	first, second, third := o.notice(), o.notice(), o.notice()
	// Oldest first, limit at a time.
	events := func() []int64 {
		ids := []int64{}
		for _, d := range o.deliveries(statusd.DeliveryFilter{}) {
			ids = append(ids, d.Event.ID)
		}
		return ids
	}
	for i, want := range [][]int64{{first}, {second, first}} {
		if n := o.expand(t0, 1); n != 1 {
			t.Fatalf("Expand %d: %d events, want 1", i, n)
		}
		if got := events(); !slices.Equal(got, want) {
			t.Errorf("after Expand %d the deliveries are of events %v, want %v", i, got, want)
		}
	}
	if n := o.expand(t0, 10); n != 1 {
		t.Errorf("Expand of the rest: %d, want 1 (the third)", n)
	}
	if n := o.expand(t0, 10); n != 0 {
		t.Errorf("Expand again: %d, want 0", n)
	}
	if got, want := events(), []int64{third, second, first}; !slices.Equal(got, want) {
		t.Errorf("the deliveries are of events %v, want %v", got, want)
	}
	// A subscriber added after an event's expansion does not get it.
	o.add(statusd.Email, "b", statusd.SubscriberActive)
	if n := o.expand(t0, 10); n != 0 || len(o.deliveries(statusd.DeliveryFilter{})) != 3 {
		t.Errorf("Expand after a new subscriber: %d events, want 0 and 3 deliveries still", n)
	}
	if ds := o.deliveries(statusd.DeliveryFilter{SubscriberID: a.ID}); len(ds) != 3 {
		t.Errorf("%d deliveries to a, want 3", len(ds))
	}
}

func testClaimLeases(t *testing.T, s statusd.Store) {
	o := newOutbox(t, s)
	a := o.add(statusd.Webhook, "a", statusd.SubscriberActive)
	o.notice()
	o.notice()
	o.notice()
	now := t0.Add(time.Hour)
	if c := o.claim(now, time.Minute, 10); len(c) != 0 {
		t.Errorf("Claim before the events were expanded: %d deliveries", len(c))
	}
	o.expand(now, 10)
	all := deliveryIDs(o.deliveries(statusd.DeliveryFilter{}))
	slices.Reverse(all) // oldest first
	if len(all) != 3 {
		t.Fatalf("%d deliveries, want 3", len(all))
	}
	d1, d2, d3 := all[0], all[1], all[2]
	c := o.claim(now, time.Minute, 2)
	if got := claimedIDs(c); !slices.Equal(got, []int64{d1, d2}) {
		t.Fatalf("first Claim: %v, want the two oldest %v", got, []int64{d1, d2})
	}
	if c[0].Subscriber.ID != a.ID || c[0].Subscriber.Address != a.Address || c[0].Subscriber.Secret != a.Secret ||
		c[0].Subscriber.Token != a.Token || c[0].Delivery.Event.Kind != statusd.NoticeCreated || c[0].Delivery.SubscriberID != a.ID {
		t.Errorf("a claimed delivery: %+v, want it with its subscriber and event", c[0])
	}
	if got := claimedIDs(o.claim(now, time.Minute, 10)); !slices.Equal(got, []int64{d3}) {
		t.Errorf("second Claim: %v, want the one not leased %v", got, []int64{d3})
	}
	if got := claimedIDs(o.claim(now.Add(59*time.Second), time.Minute, 10)); len(got) != 0 {
		t.Errorf("Claim while every lease lives: %v, want none", got)
	}
	// A failed attempt ends the lease: retried 30 to 36 s later.
	o.record(d2, statusd.Attempt{At: now.Add(time.Second), Outcome: statusd.Failed, Status: 503, Error: "503 Service Unavailable"})
	if got := claimedIDs(o.claim(now.Add(30*time.Second), time.Minute, 10)); len(got) != 0 {
		t.Errorf("Claim 30 s on: %v, want none (d2 not due before 31 s, the others leased)", got)
	}
	// At the end of the leases, longest due first.
	if got := claimedIDs(o.claim(now.Add(time.Minute), time.Minute, 10)); !slices.Equal(got, []int64{d1, d3, d2}) {
		t.Errorf("Claim when the leases end: %v, want %v", got, []int64{d1, d3, d2})
	}
}

func testClaimSendable(t *testing.T, s statusd.Store) {
	o := newOutbox(t, s)
	a := o.add(statusd.Email, "a", statusd.SubscriberActive)
	f := o.add(statusd.Email, "f", statusd.SubscriberPending)
	g := o.add(statusd.Webhook, "g", statusd.SubscriberActive)
	p := o.add(statusd.Email, "p", statusd.SubscriberActive)
	o.notice()
	o.emit(statusd.Event{Kind: statusd.SubscriptionConfirm, SubscriberID: f.ID})
	o.emit(statusd.Event{Kind: statusd.TestMessage, SubscriberID: g.ID})
	o.emit(statusd.Event{Kind: statusd.SubscriptionConfirm, SubscriberID: p.ID})
	o.expand(t0, 10)
	// a, g and p have one of the notice; g its test; f and p a
	// confirmation.
	if n := len(o.deliveries(statusd.DeliveryFilter{})); n != 6 {
		t.Fatalf("%d deliveries, want 6", n)
	}
	set := func(id int64, state statusd.SubscriberState) {
		t.Helper()
		if _, err := o.ss.Change(o.ctx, id, func(s *statusd.Subscriber) error {
			s.State = state
			return nil
		}, nil); err != nil {
			t.Fatal(err)
		}
	}
	// g is quarantined: its notice is not sent, its test is. p waits for
	// its confirmation again: its notice is not sent, its confirmation is.
	set(g.ID, statusd.SubscriberQuarantined)
	set(p.ID, statusd.SubscriberPending)
	got := map[int64]statusd.EventKind{}
	for _, c := range o.claim(t0, time.Minute, 10) {
		got[c.Subscriber.ID] = c.Delivery.Event.Kind
	}
	want := map[int64]statusd.EventKind{a.ID: statusd.NoticeCreated, f.ID: statusd.SubscriptionConfirm,
		g.ID: statusd.TestMessage, p.ID: statusd.SubscriptionConfirm}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("claimed (subscriber: kind) %v, want %v", got, want)
	}
	for id, why := range map[int64]string{g.ID: "quarantined", p.ID: "confirmation"} {
		failed := o.deliveries(statusd.DeliveryFilter{SubscriberID: id, State: statusd.DeliveryFailed})
		if len(failed) != 1 || failed[0].Event.Kind != statusd.NoticeCreated || failed[0].Attempts != 0 ||
			!strings.Contains(failed[0].LastError, why) {
			t.Errorf("subscriber %d's failed deliveries %+v, want its notice, never tried, saying %q", id, failed, why)
		}
	}
}

func testRecordDelivered(t *testing.T, s statusd.Store) {
	o := newOutbox(t, s)
	a, d := o.single(statusd.Webhook)
	first := t0.Add(time.Second)
	o.record(d.ID, statusd.Attempt{At: first, Outcome: statusd.Failed, Error: "connection refused"})
	if sub := o.get(a.ID); sub.Failures != 1 || sub.FailingSince == nil || !sub.FailingSince.Equal(first) {
		t.Errorf("after a failure: failures %d since %v, want 1 since %v", sub.Failures, sub.FailingSince, first)
	}
	at := t0.Add(time.Minute)
	got := o.record(d.ID, statusd.Attempt{At: at, Outcome: statusd.Delivered, Status: 204})
	want := d
	want.State, want.Attempts, want.LastStatus, want.LastError, want.NextAttemptAt, want.DeliveredAt =
		statusd.DeliveryDelivered, 2, 204, "", nil, &at
	if !reflect.DeepEqual(*got, want) {
		t.Errorf("Record(delivered) =\n%+v\nwant\n%+v", *got, want)
	}
	if stored := o.delivery(d.ID); !reflect.DeepEqual(*stored, want) {
		t.Errorf("Delivery after Record =\n%+v\nwant\n%+v", *stored, want)
	}
	if sub := o.get(a.ID); sub.Failures != 0 || sub.FailingSince != nil || sub.State != statusd.SubscriberActive {
		t.Errorf("after a delivery: failures %d since %v, state %s; want none, active", sub.Failures, sub.FailingSince, sub.State)
	}
	// A late attempt of a delivered delivery changes nothing.
	if late := o.record(d.ID, statusd.Attempt{At: at.Add(time.Minute), Outcome: statusd.Failed, Status: 500}); !reflect.DeepEqual(*late, want) {
		t.Errorf("Record after the delivery = %+v, want it unchanged", *late)
	}
	if c := o.claim(at.Add(time.Hour), time.Minute, 10); len(c) != 0 {
		t.Errorf("a delivered delivery was claimed: %+v", c)
	}
	_, err := o.ss.Record(o.ctx, 99999, statusd.Attempt{At: at, Outcome: statusd.Delivered}, retryBase)
	wantCode(t, "Record of no delivery", err, statusd.ENotFound)
}

func testRecordFailed(t *testing.T, s statusd.Store) {
	o := newOutbox(t, s)
	a, d := o.single(statusd.Slack)
	// Retry-After longer than the backoff (30 to 36 s) sets the delay.
	at1 := t0.Add(time.Second)
	got := o.record(d.ID, statusd.Attempt{At: at1, Outcome: statusd.Failed, Status: 429, Error: "429 Too Many Requests", RetryAfter: 10 * time.Minute})
	if got.State != statusd.DeliveryPending || got.Attempts != 1 || got.LastStatus != 429 || got.LastError != "429 Too Many Requests" ||
		got.NextAttemptAt == nil || !got.NextAttemptAt.Equal(at1.Add(10*time.Minute)) {
		t.Errorf("after a 429 with Retry-After 10m: %+v, want pending, 1 attempt, next at %v", got, at1.Add(10*time.Minute))
	}
	// The second failure waits twice the base, plus up to 20%: 60 to 72 s.
	at2 := at1.Add(10 * time.Minute)
	got = o.record(d.ID, statusd.Attempt{At: at2, Outcome: statusd.Failed, Error: "timeout"})
	if got.State != statusd.DeliveryPending || got.Attempts != 2 || got.LastStatus != 0 || got.LastError != "timeout" ||
		got.NextAttemptAt == nil || got.NextAttemptAt.Before(at2.Add(60*time.Second)) || got.NextAttemptAt.After(at2.Add(72*time.Second)) {
		t.Errorf("after a second failure: %+v, want pending, 2 attempts, next 60 to 72 s after %v", got, at2)
	}
	// The third, near the end of the 24 hours from the delivery's making
	// (t0), would retry after them: it fails for good.
	at3 := t0.Add(24*time.Hour - time.Minute)
	got = o.record(d.ID, statusd.Attempt{At: at3, Outcome: statusd.Failed, Status: 500, Error: "500 Internal Server Error"})
	if got.State != statusd.DeliveryFailed || got.Attempts != 3 || got.LastStatus != 500 || got.NextAttemptAt != nil || got.DeliveredAt != nil {
		t.Errorf("after the last failure: %+v, want failed, 3 attempts, no next attempt", got)
	}
	if c := o.claim(at3.Add(time.Hour), time.Minute, 10); len(c) != 0 {
		t.Errorf("a failed delivery was claimed: %+v", c)
	}
	// Three failures over a day: counted, not quarantined (10 are needed).
	if sub := o.get(a.ID); sub.Failures != 3 || !sub.FailingSince.Equal(at1) || sub.State != statusd.SubscriberActive {
		t.Errorf("subscriber after three failures: %d since %v, %s; want 3 since %v, active", sub.Failures, sub.FailingSince, sub.State, at1)
	}
}

func testQuarantine(t *testing.T, s statusd.Store) {
	o := newOutbox(t, s)
	// fast fails ten times in 45 minutes, then once more at 61; slow fails
	// every 7 minutes: its tenth failure comes 63 minutes after the first.
	fast := o.add(statusd.Webhook, "fast", statusd.SubscriberActive)
	slow := o.add(statusd.Teams, "slow", statusd.SubscriberActive)
	for range 12 {
		o.notice()
	}
	o.expand(t0, 100)
	oldestFirst := func(id int64) []statusd.Delivery {
		ds := o.deliveries(statusd.DeliveryFilter{SubscriberID: id})
		slices.Reverse(ds)
		return ds
	}
	fastDs, slowDs := oldestFirst(fast.ID), oldestFirst(slow.ID)
	fail := func(d statusd.Delivery, at time.Time) *statusd.Delivery {
		return o.record(d.ID, statusd.Attempt{At: at, Outcome: statusd.Failed, Error: "connection refused"})
	}
	for i := range 10 {
		fail(fastDs[i], t0.Add(time.Duration(i)*5*time.Minute))
	}
	if sub := o.get(fast.ID); sub.State != statusd.SubscriberActive || sub.Failures != 10 {
		t.Errorf("ten failures in 45 minutes: %s with %d failures, want active with 10", sub.State, sub.Failures)
	}
	last := fail(fastDs[10], t0.Add(61*time.Minute))
	sub := o.get(fast.ID)
	if sub.State != statusd.SubscriberQuarantined || sub.Failures != 11 || !sub.UpdatedAt.Equal(t0.Add(61*time.Minute)) {
		t.Errorf("eleven failures over 61 minutes: %s with %d failures, updated %v; want quarantined, 11, at the failure",
			sub.State, sub.Failures, sub.UpdatedAt)
	}
	if last.State != statusd.DeliveryFailed || last.LastError != "connection refused" || last.NextAttemptAt != nil {
		t.Errorf("the delivery that quarantined: %+v, want failed with its own error", last)
	}
	// The others, pending (retries, and one never tried), end failed.
	for _, d := range oldestFirst(fast.ID) {
		if d.State != statusd.DeliveryFailed {
			t.Errorf("delivery %d of a quarantined subscriber is %s, want failed", d.ID, d.State)
		}
	}
	if never := o.delivery(fastDs[11].ID); never.Attempts != 0 || !strings.Contains(never.LastError, "quarantined") {
		t.Errorf("the untried delivery: %+v, want no attempt and the quarantine as its error", never)
	}

	for i := range 9 {
		fail(slowDs[i], t0.Add(time.Duration(i)*7*time.Minute))
	}
	if sub := o.get(slow.ID); sub.State != statusd.SubscriberActive {
		t.Errorf("nine failures over 56 minutes: %s, want active", sub.State)
	}
	fail(slowDs[9], t0.Add(63*time.Minute))
	if sub := o.get(slow.ID); sub.State != statusd.SubscriberQuarantined || sub.Failures != 10 || !sub.FailingSince.Equal(t0) {
		t.Errorf("ten failures over 63 minutes: %s, %d since %v; want quarantined, 10 since %v", sub.State, sub.Failures, sub.FailingSince, t0)
	}
	// An operator sets it active again: it counts afresh.
	back, err := o.ss.Change(o.ctx, slow.ID, func(s *statusd.Subscriber) error {
		s.State = statusd.SubscriberActive
		return nil
	}, &statusd.AuditEntry{At: t0, Actor: "ops", Action: "subscriber.update"})
	if err != nil || back.State != statusd.SubscriberActive || back.Failures != 0 || back.FailingSince != nil {
		t.Errorf("Change back to active: %+v, %v; want active with no failures", back, err)
	}
	if sub := o.get(slow.ID); sub.Failures != 0 || sub.FailingSince != nil {
		t.Errorf("stored after Change: %d failures since %v, want none", sub.Failures, sub.FailingSince)
	}
}

func testRecordGone(t *testing.T, s statusd.Store) {
	o := newOutbox(t, s)
	a, ds := o.several(statusd.Webhook, 2)
	got := o.record(ds[1].ID, statusd.Attempt{At: t0.Add(time.Second), Outcome: statusd.Gone, Status: 410, Error: "410 Gone"})
	if got.State != statusd.DeliveryFailed || got.Attempts != 1 || got.LastStatus != 410 || got.NextAttemptAt != nil {
		t.Errorf("after a 410: %+v, want failed after 1 attempt", got)
	}
	if sub := o.get(a.ID); sub.State != statusd.SubscriberUnsubscribed {
		t.Errorf("after a 410 the subscriber is %s, want unsubscribed", sub.State)
	}
	if other := o.delivery(ds[0].ID); other.State != statusd.DeliveryFailed || !strings.Contains(other.LastError, "unsubscribed") {
		t.Errorf("its other delivery: %+v, want failed, saying it unsubscribed", other)
	}
	o.notice()
	o.expand(t0, 10)
	if n := len(o.deliveries(statusd.DeliveryFilter{SubscriberID: a.ID})); n != 2 {
		t.Errorf("an unsubscribed subscriber has %d deliveries after a new event, want still 2", n)
	}
}

func testRecordRejected(t *testing.T, s statusd.Store) {
	o := newOutbox(t, s)
	a, d := o.single(statusd.Email)
	got := o.record(d.ID, statusd.Attempt{At: t0.Add(time.Second), Outcome: statusd.Rejected, Status: 550,
		Error: "550 5.1.1 no such user"})
	if got.State != statusd.DeliveryFailed || got.Attempts != 1 || got.LastStatus != 550 || got.LastError != "550 5.1.1 no such user" {
		t.Errorf("after a permanent rejection: %+v, want failed with the reply", got)
	}
	if sub := o.get(a.ID); sub.State != statusd.SubscriberQuarantined {
		t.Errorf("after a permanent rejection the subscriber is %s, want quarantined", sub.State)
	}
}

// testRecordDeferred: a relay outage (Deferred) retries the delivery as a
// failure does, but never counts against the subscriber: eleven deferred
// attempts over two hours leave it active with no failures, where eleven
// failed ones would quarantine it (testQuarantine).
func testRecordDeferred(t *testing.T, s statusd.Store) {
	o := newOutbox(t, s)
	a, ds := o.several(statusd.Email, 11)
	for i, d := range ds {
		at := t0.Add(time.Duration(i) * 12 * time.Minute)
		got := o.record(d.ID, statusd.Attempt{At: at, Outcome: statusd.Deferred, Status: 421, Error: "421 4.3.2 try later"})
		// The first retry waits the base, plus up to 20%: 30 to 36 s.
		if got.State != statusd.DeliveryPending || got.Attempts != 1 || got.LastStatus != 421 || got.LastError != "421 4.3.2 try later" ||
			got.NextAttemptAt == nil || got.NextAttemptAt.Before(at.Add(30*time.Second)) || got.NextAttemptAt.After(at.Add(36*time.Second)) {
			t.Errorf("delivery %d after a deferral at %v: %+v, want pending, 1 attempt, the reply, next 30 to 36 s later", d.ID, at, got)
		}
	}
	if sub := o.get(a.ID); sub.State != statusd.SubscriberActive || sub.Failures != 0 || sub.FailingSince != nil {
		t.Errorf("after 11 deferrals over 2 hours: %s, %d failures since %v; want active, none", sub.State, sub.Failures, sub.FailingSince)
	}
	// A failure of the subscriber's own counts from one, then a deferral
	// leaves the count as it is.
	o.record(ds[0].ID, statusd.Attempt{At: t0.Add(3 * time.Hour), Outcome: statusd.Failed, Status: 452, Error: "452 mailbox full"})
	o.record(ds[1].ID, statusd.Attempt{At: t0.Add(4 * time.Hour), Outcome: statusd.Deferred, Error: "connection refused"})
	if sub := o.get(a.ID); sub.Failures != 1 || sub.FailingSince == nil || !sub.FailingSince.Equal(t0.Add(3*time.Hour)) {
		t.Errorf("a failure then a deferral: %d failures since %v, want 1 since %v", sub.Failures, sub.FailingSince, t0.Add(3*time.Hour))
	}
	// Deferred past the 24 hours from the delivery's making: failed.
	got := o.record(ds[2].ID, statusd.Attempt{At: t0.Add(24*time.Hour - time.Second), Outcome: statusd.Deferred, Error: "connection refused"})
	if got.State != statusd.DeliveryFailed || got.Attempts != 2 || got.NextAttemptAt != nil || got.LastError != "connection refused" {
		t.Errorf("deferred at the end of the 24 hours: %+v, want failed after 2 attempts", got)
	}
	if sub := o.get(a.ID); sub.State != statusd.SubscriberActive || sub.Failures != 1 {
		t.Errorf("at the end: %s with %d failures, want active with 1", sub.State, sub.Failures)
	}
}

// testRecordDropped: a delivery with nothing to send ends failed, saying
// "dropped: " and why, with its attempts and the subscriber's failures as
// they were.
func testRecordDropped(t *testing.T, s statusd.Store) {
	o := newOutbox(t, s)
	a, ds := o.several(statusd.Webhook, 2)
	tried, untried := ds[0], ds[1]
	at1 := t0.Add(time.Second)
	o.record(tried.ID, statusd.Attempt{At: at1, Outcome: statusd.Failed, Status: 500, Error: "500 Internal Server Error"})
	at2 := t0.Add(time.Hour)
	got := o.record(tried.ID, statusd.Attempt{At: at2, Outcome: statusd.Dropped, Error: "the notice was deleted"})
	want := tried
	want.State, want.Attempts, want.LastStatus, want.LastError, want.NextAttemptAt = statusd.DeliveryFailed, 1, 0, "dropped: the notice was deleted", nil
	if !reflect.DeepEqual(*got, want) {
		t.Errorf("Record(dropped) after a failure =\n%+v\nwant\n%+v", *got, want)
	}
	got = o.record(untried.ID, statusd.Attempt{At: at2, Outcome: statusd.Dropped, Error: "email is off"})
	want = untried
	want.State, want.Attempts, want.LastError, want.NextAttemptAt = statusd.DeliveryFailed, 0, "dropped: email is off", nil
	if !reflect.DeepEqual(*got, want) {
		t.Errorf("Record(dropped) of an untried delivery =\n%+v\nwant\n%+v", *got, want)
	}
	if sub := o.get(a.ID); sub.State != statusd.SubscriberActive || sub.Failures != 1 || sub.FailingSince == nil || !sub.FailingSince.Equal(at1) {
		t.Errorf("after a failure and two drops: %s, %d failures since %v; want active, 1 since %v", sub.State, sub.Failures, sub.FailingSince, at1)
	}
	if c := o.claim(at2.Add(2*time.Hour), time.Minute, 10); len(c) != 0 {
		t.Errorf("a dropped delivery was claimed: %+v", c)
	}
}

// testRecordMany: a batch of attempts is recorded in its order, each by
// Record's rules, all or nothing; a delivery that does not exist gives nil.
func testRecordMany(t *testing.T, s statusd.Store) {
	o := newOutbox(t, s)
	a, as := o.several(statusd.Webhook, 3)
	b := o.add(statusd.Slack, "b", statusd.SubscriberActive)
	o.notice() // a fourth for a, left pending
	o.expand(t0, 10)
	bs := o.deliveries(statusd.DeliveryFilter{SubscriberID: b.ID})
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	failed := func(s int) statusd.Attempt {
		return statusd.Attempt{At: at(s), Outcome: statusd.Failed, Status: 500, Error: "500 Internal Server Error"}
	}
	delivered := func(s int) statusd.Attempt {
		return statusd.Attempt{At: at(s), Outcome: statusd.Delivered, Status: 200}
	}
	try := func(id int64, a statusd.Attempt) statusd.DeliveryAttempt {
		return statusd.DeliveryAttempt{DeliveryID: id, Attempt: a}
	}

	// All or nothing: an attempt the rules do not know undoes the batch.
	_, err := o.ss.RecordMany(o.ctx, []statusd.DeliveryAttempt{try(as[0].ID, delivered(1)), try(as[1].ID, statusd.Attempt{At: at(1), Outcome: 99})}, retryBase)
	if d := o.delivery(as[0].ID); err == nil || d.State != statusd.DeliveryPending || d.Attempts != 0 {
		t.Errorf("a batch with an unknown outcome: %v, and its first delivery %+v; want an error and the delivery untouched", err, d)
	}

	// a fails, is delivered, fails again: it ends with one failure, from
	// the last; b is delivered; 99999 does not exist.
	got, err := o.ss.RecordMany(o.ctx, []statusd.DeliveryAttempt{
		try(as[0].ID, failed(1)), try(bs[0].ID, delivered(2)), try(99999, delivered(3)), try(as[1].ID, delivered(4)), try(as[2].ID, failed(5)),
	}, retryBase)
	o.must(err, "RecordMany")
	if len(got) != 5 || got[2] != nil {
		t.Fatalf("RecordMany gave %d deliveries, the third %+v; want 5, the third nil", len(got), got[2])
	}
	wantState := []statusd.DeliveryState{statusd.DeliveryPending, statusd.DeliveryDelivered, "", statusd.DeliveryDelivered, statusd.DeliveryPending}
	wantID := []int64{as[0].ID, bs[0].ID, 0, as[1].ID, as[2].ID}
	for i, d := range got {
		if d == nil {
			continue
		}
		if d.ID != wantID[i] || d.State != wantState[i] || d.Attempts != 1 {
			t.Errorf("delivery %d of the batch: %+v, want %d %s after 1 attempt", i, d, wantID[i], wantState[i])
		}
		if stored := o.delivery(d.ID); !reflect.DeepEqual(stored, d) {
			t.Errorf("delivery %d stored as\n%+v\nreturned as\n%+v", d.ID, stored, d)
		}
	}
	if sub := o.get(a.ID); sub.Failures != 1 || sub.FailingSince == nil || !sub.FailingSince.Equal(at(5)) {
		t.Errorf("a after failed, delivered, failed: %d failures since %v, want 1 since %v", sub.Failures, sub.FailingSince, at(5))
	}
	if sub := o.get(b.ID); sub.Failures != 0 || sub.State != statusd.SubscriberActive {
		t.Errorf("b after a delivery: %+v", sub)
	}
	if got, err := o.ss.RecordMany(o.ctx, nil, retryBase); err != nil || len(got) != 0 {
		t.Errorf("RecordMany of nothing: %v, %v", got, err)
	}

	// An attempt that quarantines its subscriber ends the subscriber's other
	// pending deliveries, those later in the batch too: as one at a time.
	c := o.add(statusd.Email, "c", statusd.SubscriberActive)
	o.notice()
	o.notice()
	o.expand(t0, 10)
	cs := o.deliveries(statusd.DeliveryFilter{SubscriberID: c.ID})
	got, err = o.ss.RecordMany(o.ctx, []statusd.DeliveryAttempt{
		try(cs[1].ID, statusd.Attempt{At: at(6), Outcome: statusd.Rejected, Status: 550, Error: "550 no such user"}),
		try(cs[0].ID, delivered(7)),
	}, retryBase)
	o.must(err, "RecordMany with a rejection")
	if got[0].State != statusd.DeliveryFailed || got[0].Attempts != 1 || got[0].LastStatus != 550 {
		t.Errorf("the rejected delivery: %+v", got[0])
	}
	if got[1].State != statusd.DeliveryFailed || got[1].Attempts != 0 || !strings.Contains(got[1].LastError, "quarantined") {
		t.Errorf("the delivery after the rejection: %+v, want failed by the quarantine, never tried", got[1])
	}
	if stored := o.delivery(cs[0].ID); !reflect.DeepEqual(stored, got[1]) {
		t.Errorf("stored as\n%+v\nreturned as\n%+v", stored, got[1])
	}
	if sub := o.get(c.ID); sub.State != statusd.SubscriberQuarantined {
		t.Errorf("c is %s, want quarantined", sub.State)
	}
}

// testPrune: Prune removes the delivered and dropped deliveries made
// before the cutoff, oldest first, then the expanded events made before it
// with no delivery left; a pending delivery, a failed one (kept for the
// operator: it was never sent), a younger one, and an event not expanded
// stay.
func testPrune(t *testing.T, s statusd.Store) {
	o := newOutbox(t, s)
	a := o.add(statusd.Webhook, "a", statusd.SubscriberActive)
	for range 5 {
		o.notice() // events 1 to 5, made at t0
	}
	o.emit(statusd.Event{Kind: statusd.TestMessage, SubscriberID: 999}) // 6: for nobody
	o.expand(t0, 10)
	ds := o.deliveries(statusd.DeliveryFilter{SubscriberID: a.ID})
	slices.Reverse(ds) // oldest first: the deliveries of events 1 to 5
	o.record(ds[0].ID, statusd.Attempt{At: t0, Outcome: statusd.Delivered, Status: 200})
	o.record(ds[1].ID, statusd.Attempt{At: t0, Outcome: statusd.Dropped, Error: "the notice was deleted"})
	o.record(ds[3].ID, statusd.Attempt{At: t0, Outcome: statusd.Delivered, Status: 200})
	// Failed for good: its first attempt came after RetryFor.
	if d := o.record(ds[4].ID, statusd.Attempt{At: t0.Add(statusd.RetryFor + time.Minute), Outcome: statusd.Failed, Status: 500, Error: "HTTP 500"}); d.State != statusd.DeliveryFailed {
		t.Fatalf("the failed delivery is %s", d.State)
	}
	day := t0.Add(24 * time.Hour)
	young := o.emit(statusd.Event{Kind: statusd.NoticeCreated, NoticeID: 100, UpdateID: 6, ComponentIDs: []int64{}, CreatedAt: day.Add(time.Hour)})
	o.expand(day.Add(time.Hour), 10)
	var youngD statusd.Delivery
	for _, d := range o.deliveries(statusd.DeliveryFilter{SubscriberID: a.ID}) {
		if d.Event.ID == young {
			youngD = d
		}
	}
	o.record(youngD.ID, statusd.Attempt{At: day.Add(time.Hour), Outcome: statusd.Delivered, Status: 200})
	o.emit(statusd.Event{Kind: statusd.NoticeCreated, NoticeID: 100, UpdateID: 7, ComponentIDs: []int64{}}) // made at t0, not expanded

	prune := func(limit, wantD, wantE int) {
		t.Helper()
		d, e, err := o.ss.Prune(o.ctx, day, limit)
		if err != nil || d != wantD || e != wantE {
			t.Errorf("Prune(limit %d) = %d deliveries, %d events, %v; want %d, %d", limit, d, e, err, wantD, wantE)
		}
	}
	prune(2, 2, 2)  // the deliveries of events 1 and 2, then those events
	prune(10, 1, 2) // the delivery of event 4, then events 4 and 6
	prune(10, 0, 0)
	left := deliveryIDs(o.deliveries(statusd.DeliveryFilter{}))
	if want := []int64{youngD.ID, ds[4].ID, ds[2].ID}; !reflect.DeepEqual(left, want) {
		t.Errorf("deliveries left %v, want the young one, the failed one and the pending one %v", left, want)
	}
	if d := o.delivery(ds[2].ID); d.Event.ID != ds[2].Event.ID || d.State != statusd.DeliveryPending {
		t.Errorf("the pending delivery after Prune: %+v", d)
	}
	if n := o.expand(day, 10); n != 1 {
		t.Errorf("after Prune, %d events to expand, want the one not expanded", n)
	}
}

// testEmailCase: Bob@Example.COM and bob@example.com are one subscriber:
// stored with the domain in lower case and the local part as typed, found
// by Request in any case, refused as a second by Add and Change. URLs stay
// as they are, paths in any case being others.
func testEmailCase(t *testing.T, s statusd.Store) {
	o := newOutbox(t, s)
	create := statusd.AuditEntry{At: t0, Actor: "ops", Action: "subscriber.create"}
	bob := statusd.Subscriber{Channel: statusd.Email, Address: "Bob@Example.COM", ComponentIDs: []int64{}, State: statusd.SubscriberActive, CreatedAt: t0, UpdatedAt: t0}
	o.must(o.ss.Add(o.ctx, &bob, create), "Add Bob")
	if got := o.get(bob.ID); got.Address != "Bob@example.com" || bob.Address != "Bob@example.com" {
		t.Errorf("stored %q, returned %q; want Bob@example.com", got.Address, bob.Address)
	}
	again := statusd.Subscriber{Channel: statusd.Email, Address: "bob@EXAMPLE.com", ComponentIDs: []int64{}, State: statusd.SubscriberActive, CreatedAt: t0, UpdatedAt: t0}
	wantCode(t, "Add of bob@EXAMPLE.com", o.ss.Add(o.ctx, &again, create), statusd.EConflict)

	// A request in another case is the same subscriber's: active, it gets
	// its confirmation event (its manage link), and no second subscriber.
	o.must(o.ss.Request(o.ctx, "BOB@example.com", []int64{7}, t0), "Request")
	if subs, total, err := o.ss.List(o.ctx, statusd.SubscriberFilter{Channel: statusd.Email}, 1, 10); err != nil || total != 1 || subs[0].ID != bob.ID {
		t.Errorf("after a request in another case: %d email subscribers %+v (%v), want Bob alone", total, subs, err)
	}
	if ids := o.confirmations(t0); !reflect.DeepEqual(ids, []int64{bob.ID}) {
		t.Errorf("confirmations for %v, want Bob's (%d)", ids, bob.ID)
	}
	// A new address by request: its domain folded, its local part kept.
	o.must(o.ss.Request(o.ctx, "Ann@Example.Org", nil, t0), "Request Ann")
	ann := o.byAddress("Ann@example.org")

	// Change to Bob's address in another case: a conflict.
	_, err := o.ss.Change(o.ctx, ann.ID, func(s *statusd.Subscriber) error {
		s.Address = "bOB@example.com"
		return nil
	}, nil)
	wantCode(t, "Change to Bob's address in another case", err, statusd.EConflict)
	// Change to its own address in another case: the domain folded.
	got, err := o.ss.Change(o.ctx, ann.ID, func(s *statusd.Subscriber) error {
		s.Address = "ANN@EXAMPLE.ORG"
		return nil
	}, nil)
	if err != nil || got.Address != "ANN@example.org" || o.get(ann.ID).Address != "ANN@example.org" {
		t.Errorf("Change of Ann's case: %+v, %v; want ANN@example.org", got, err)
	}

	// Webhook URLs are as typed: two paths in other cases are two.
	for _, u := range []string{"https://hooks.example.com/A", "https://hooks.example.com/a"} {
		h := statusd.Subscriber{Channel: statusd.Webhook, Address: u, ComponentIDs: []int64{}, State: statusd.SubscriberActive, CreatedAt: t0, UpdatedAt: t0}
		o.must(o.ss.Add(o.ctx, &h, create), "Add %s", u)
		if h.Address != u {
			t.Errorf("webhook %q stored as %q", u, h.Address)
		}
	}
}

func testAddChange(t *testing.T, s statusd.Store) {
	ctx := context.Background()
	o := newOutbox(t, s)
	hook := o.add(statusd.Webhook, "hook", statusd.SubscriberActive, 7)
	if hook.ID <= 0 || len(hook.Token) < 40 || !strings.HasPrefix(hook.Secret, "whsec_") {
		t.Errorf("Add gave id %d, token %q, secret %q; want an id, a token and a whsec_ secret", hook.ID, hook.Token, hook.Secret)
	}
	mail := o.add(statusd.Email, "ops", statusd.SubscriberActive)
	if mail.Secret != "" || mail.Token == hook.Token || mail.ID == hook.ID {
		t.Errorf("an email subscriber got secret %q, token %q, id %d", mail.Secret, mail.Token, mail.ID)
	}
	if got := o.get(hook.ID); !reflect.DeepEqual(*got, hook) {
		t.Errorf("Get =\n%+v\nwant what Add stored\n%+v", *got, hook)
	}
	dup := statusd.Subscriber{Channel: statusd.Webhook, Address: hook.Address, State: statusd.SubscriberActive, CreatedAt: t0, UpdatedAt: t0}
	wantCode(t, "Add of a taken channel and address", o.ss.Add(ctx, &dup, statusd.AuditEntry{At: t0, Actor: "ops", Action: "subscriber.create"}),
		statusd.EConflict)
	// The same URL on another channel is another subscriber.
	other := statusd.Subscriber{Channel: statusd.Slack, Address: hook.Address, State: statusd.SubscriberActive, CreatedAt: t0, UpdatedAt: t0}
	if err := o.ss.Add(ctx, &other, statusd.AuditEntry{At: t0, Actor: "ops", Action: "subscriber.create"}); err != nil {
		t.Errorf("Add of the URL on slack: %v", err)
	}
	entries, total, err := s.Audit(ctx, 1, 10)
	if err != nil || total != 3 || entries[2].Target != fmt.Sprintf("subscriber %d", hook.ID) || entries[2].Action != "subscriber.create" {
		t.Errorf("audit after three Adds: %+v (%d, %v); want three, the first for subscriber %d", entries, total, err, hook.ID)
	}

	later := t0.Add(time.Hour)
	got, err := o.ss.Change(ctx, hook.ID, func(s *statusd.Subscriber) error {
		s.ComponentIDs, s.UpdatedAt = []int64{3, 7}, later
		return nil
	}, &statusd.AuditEntry{At: later, Actor: "ops", Action: "subscriber.update", Target: "subscriber"})
	want := hook
	want.ComponentIDs, want.UpdatedAt = []int64{3, 7}, later
	if err != nil || !reflect.DeepEqual(*got, want) {
		t.Errorf("Change = %+v, %v; want %+v", got, err, want)
	}
	if stored := o.get(hook.ID); !reflect.DeepEqual(*stored, want) {
		t.Errorf("stored after Change: %+v", *stored)
	}
	if _, total, _ := s.Audit(ctx, 1, 10); total != 4 {
		t.Errorf("%d audit entries after a Change, want 4", total)
	}
	refused := statusd.Errorf(statusd.EInvalidField, "no")
	if _, err := o.ss.Change(ctx, hook.ID, func(s *statusd.Subscriber) error {
		s.ComponentIDs = nil
		return refused
	}, nil); err != refused {
		t.Errorf("Change whose function fails: %v, want its error", err)
	}
	_, err = o.ss.Change(ctx, hook.ID, func(s *statusd.Subscriber) error {
		s.Channel = statusd.Slack
		return nil
	}, nil)
	wantCode(t, "Change to a taken channel and address", err, statusd.EConflict)
	if stored := o.get(hook.ID); !reflect.DeepEqual(*stored, want) {
		t.Errorf("refused Changes changed the subscriber: %+v", *stored)
	}
	_, err = o.ss.Change(ctx, 99999, func(*statusd.Subscriber) error { return nil }, nil)
	wantCode(t, "Change of no subscriber", err, statusd.ENotFound)
	_, err = o.ss.Get(ctx, 99999)
	wantCode(t, "Get of no subscriber", err, statusd.ENotFound)
	if _, total, _ := s.Audit(ctx, 1, 10); total != 4 {
		t.Errorf("%d audit entries after refused Changes, want still 4", total)
	}
}

func testDeleteSubscriber(t *testing.T, s statusd.Store) {
	ctx := context.Background()
	o := newOutbox(t, s)
	a := o.add(statusd.Email, "a", statusd.SubscriberActive)
	b := o.add(statusd.Email, "b", statusd.SubscriberActive)
	o.notice()
	o.expand(t0, 10)
	gone := o.only(a.ID)
	kept := o.only(b.ID)
	if err := o.ss.Delete(ctx, a.ID, statusd.AuditEntry{At: t0, Actor: "ops", Action: "subscriber.delete", Target: "subscriber"}); err != nil {
		t.Fatal(err)
	}
	_, err := o.ss.Get(ctx, a.ID)
	wantCode(t, "Get of a deleted subscriber", err, statusd.ENotFound)
	_, err = o.ss.Delivery(ctx, gone.ID)
	wantCode(t, "Delivery of a deleted subscriber", err, statusd.ENotFound)
	if ids := deliveryIDs(o.deliveries(statusd.DeliveryFilter{})); !slices.Equal(ids, []int64{kept.ID}) {
		t.Errorf("deliveries after Delete: %v, want only b's %d", ids, kept.ID)
	}
	if entries, _, _ := s.Audit(ctx, 1, 1); len(entries) != 1 || entries[0].Action != "subscriber.delete" {
		t.Errorf("the newest audit entry: %+v, want the deletion", entries)
	}
	wantCode(t, "Delete again", o.ss.Delete(ctx, a.ID, statusd.AuditEntry{At: t0, Actor: "ops", Action: "subscriber.delete"}), statusd.ENotFound)
	_, err = o.ss.Record(ctx, gone.ID, statusd.Attempt{At: t0, Outcome: statusd.Delivered}, retryBase)
	wantCode(t, "Record of a deleted subscriber's delivery", err, statusd.ENotFound)
}

// byAddress returns the subscriber with the address.
func (o *outbox) byAddress(addr string) statusd.Subscriber {
	o.t.Helper()
	subs, _, err := o.ss.List(o.ctx, statusd.SubscriberFilter{}, 1, 1000)
	o.must(err, "List")
	for _, s := range subs {
		if s.Address == addr {
			return s
		}
	}
	o.t.Fatalf("no subscriber has the address %s", addr)
	return statusd.Subscriber{}
}

// confirmations expands at now and returns the subscribers sent a
// confirmation (or their manage link) by the events expanded.
func (o *outbox) confirmations(now time.Time) []int64 {
	o.t.Helper()
	before := len(o.deliveries(statusd.DeliveryFilter{}))
	o.expand(now, 10)
	after := o.deliveries(statusd.DeliveryFilter{}) // newest first
	var ids []int64
	for _, d := range after[:len(after)-before] {
		if d.Event.Kind != statusd.SubscriptionConfirm {
			o.t.Errorf("a request made a delivery of %s", d.Event.Kind)
		}
		ids = append(ids, d.SubscriberID)
	}
	return ids
}

func testRequest(t *testing.T, s statusd.Store) {
	ctx := context.Background()
	o := newOutbox(t, s)
	const addr = "reader@example.com"
	request := func(at time.Time, components ...int64) statusd.Subscriber {
		t.Helper()
		if err := o.ss.Request(ctx, addr, components, at); err != nil {
			t.Fatalf("Request: %v", err)
		}
		return o.byAddress(addr)
	}
	set := func(id int64, state statusd.SubscriberState) {
		t.Helper()
		if _, err := o.ss.Change(ctx, id, func(s *statusd.Subscriber) error {
			s.State, s.ConfirmToken, s.ConfirmExpiresAt = state, "", nil
			return nil
		}, nil); err != nil {
			t.Fatal(err)
		}
	}
	// A new address: pending, with a confirmation valid 48 hours.
	s1 := request(t0, 7)
	if s1.State != statusd.SubscriberPending || s1.Channel != statusd.Email || !slices.Equal(s1.ComponentIDs, []int64{7}) ||
		s1.Token == "" || s1.ConfirmToken == "" || s1.ConfirmToken == s1.Token || s1.ConfirmExpiresAt == nil ||
		!s1.ConfirmExpiresAt.Equal(t0.Add(48*time.Hour)) || !s1.CreatedAt.Equal(t0) {
		t.Errorf("a new request: %+v, want pending on [7], confirmation until %v", s1, t0.Add(48*time.Hour))
	}
	if got := o.confirmations(t0); !slices.Equal(got, []int64{s1.ID}) {
		t.Errorf("confirmations sent: %v, want one to %d", got, s1.ID)
	}
	// Pending again: a new confirmation email with the same token (the
	// link sent before keeps working), valid 48 hours from now, and the
	// new components.
	at2 := t0.Add(time.Hour)
	s2 := request(at2, 3)
	if s2.ID != s1.ID || s2.State != statusd.SubscriberPending || !slices.Equal(s2.ComponentIDs, []int64{3}) ||
		s2.ConfirmToken != s1.ConfirmToken || !s2.ConfirmExpiresAt.Equal(at2.Add(48*time.Hour)) ||
		s2.Token != s1.Token || !s2.UpdatedAt.Equal(at2) {
		t.Errorf("a second request: %+v, want the same subscriber, pending on [3], the same confirmation until %v", s2, at2.Add(48*time.Hour))
	}
	if got := o.confirmations(at2); !slices.Equal(got, []int64{s1.ID}) {
		t.Errorf("confirmations sent: %v, want one to %d", got, s1.ID)
	}
	// Active: unchanged (nobody changes another's subscription), but sent
	// its manage link.
	set(s1.ID, statusd.SubscriberActive)
	s3 := request(t0.Add(2*time.Hour), 7)
	if s3.State != statusd.SubscriberActive || !slices.Equal(s3.ComponentIDs, []int64{3}) || s3.ConfirmToken != "" {
		t.Errorf("a request of an active subscriber: %+v, want it active on [3], as it was", s3)
	}
	if got := o.confirmations(t0.Add(2 * time.Hour)); !slices.Equal(got, []int64{s1.ID}) {
		t.Errorf("messages sent: %v, want one to %d", got, s1.ID)
	}
	// Unsubscribed: pending again, on the whole page now.
	set(s1.ID, statusd.SubscriberUnsubscribed)
	s4 := request(t0.Add(3 * time.Hour))
	if s4.State != statusd.SubscriberPending || len(s4.ComponentIDs) != 0 || s4.ConfirmToken == "" {
		t.Errorf("a request of an unsubscribed one: %+v, want pending on the whole page", s4)
	}
	if got := o.confirmations(t0.Add(3 * time.Hour)); !slices.Equal(got, []int64{s1.ID}) {
		t.Errorf("confirmations sent: %v, want one to %d", got, s1.ID)
	}
	// Quarantined: left so, and sent nothing; yet the request stores its
	// event as any other does (the same work, the same time taken),
	// which is expanded to no delivery.
	set(s1.ID, statusd.SubscriberQuarantined)
	if s5 := request(t0.Add(4 * time.Hour)); s5.State != statusd.SubscriberQuarantined {
		t.Errorf("a request of a quarantined one: %s, want quarantined", s5.State)
	}
	before := len(o.deliveries(statusd.DeliveryFilter{}))
	if n := o.expand(t0.Add(4*time.Hour), 10); n != 1 {
		t.Errorf("a request of a quarantined one stored %d events, want 1, as any request does", n)
	}
	if after := len(o.deliveries(statusd.DeliveryFilter{})); after != before {
		t.Errorf("a request of a quarantined one made %d deliveries, want none", after-before)
	}
	if subs, total, _ := o.ss.List(ctx, statusd.SubscriberFilter{}, 1, 10); total != 1 || len(subs) != 1 {
		t.Errorf("%d subscribers after five requests of one address, want 1", total)
	}
}

func testByToken(t *testing.T, s statusd.Store) {
	ctx := context.Background()
	o := newOutbox(t, s)
	if err := o.ss.Request(ctx, "reader@example.com", nil, t0); err != nil {
		t.Fatal(err)
	}
	sub := o.byAddress("reader@example.com")
	for _, tc := range []struct {
		name    string
		token   string
		confirm bool
		at      time.Time
		found   bool
	}{
		{"the token", sub.Token, false, t0.Add(1000 * time.Hour), true},
		{"the confirmation at once", sub.ConfirmToken, true, t0, true},
		{"the confirmation a minute before it expires", sub.ConfirmToken, true, t0.Add(48*time.Hour - time.Minute), true},
		{"the confirmation when it expires", sub.ConfirmToken, true, t0.Add(48 * time.Hour), false},
		{"the token as a confirmation", sub.Token, true, t0, false},
		{"the confirmation as the token", sub.ConfirmToken, false, t0, false},
		{"no token", "", false, t0, false},
		{"no confirmation", "", true, t0, false},
		{"another token", "x" + sub.Token, false, t0, false},
	} {
		got, err := o.ss.ByToken(ctx, tc.token, tc.confirm, tc.at)
		switch {
		case tc.found && (err != nil || got.ID != sub.ID):
			t.Errorf("%s: %+v, %v; want subscriber %d", tc.name, got, err, sub.ID)
		case !tc.found:
			wantCode(t, tc.name, err, statusd.ENotFound)
		}
	}
}

func testListSubscribers(t *testing.T, s statusd.Store) {
	ctx := context.Background()
	o := newOutbox(t, s)
	ids := []int64{
		o.add(statusd.Email, "a", statusd.SubscriberActive).ID,
		o.add(statusd.Email, "b", statusd.SubscriberPending).ID,
		o.add(statusd.Webhook, "c", statusd.SubscriberActive).ID,
		o.add(statusd.Slack, "d", statusd.SubscriberActive).ID,
		o.add(statusd.Email, "e", statusd.SubscriberActive).ID,
		o.add(statusd.Webhook, "f", statusd.SubscriberQuarantined).ID,
	}
	for _, tc := range []struct {
		f             statusd.SubscriberFilter
		page, perPage int
		want          []int64
		total         int
	}{
		{statusd.SubscriberFilter{}, 1, 4, ids[:4], 6},
		{statusd.SubscriberFilter{}, 2, 4, ids[4:], 6},
		{statusd.SubscriberFilter{}, 3, 4, []int64{}, 6},
		{statusd.SubscriberFilter{}, 0, 4, []int64{}, 6},
		{statusd.SubscriberFilter{Channel: statusd.Email}, 1, 10, []int64{ids[0], ids[1], ids[4]}, 3},
		{statusd.SubscriberFilter{State: statusd.SubscriberActive}, 1, 10, []int64{ids[0], ids[2], ids[3], ids[4]}, 4},
		{statusd.SubscriberFilter{Channel: statusd.Email, State: statusd.SubscriberActive}, 2, 1, []int64{ids[4]}, 2},
		{statusd.SubscriberFilter{Channel: statusd.Teams}, 1, 10, []int64{}, 0},
	} {
		got, total, err := o.ss.List(ctx, tc.f, tc.page, tc.perPage)
		if err != nil || total != tc.total || !slices.Equal(subscriberIDs(got), tc.want) {
			t.Errorf("List(%+v, %d, %d) = %v of %d, %v; want %v of %d", tc.f, tc.page, tc.perPage, subscriberIDs(got), total, err, tc.want, tc.total)
		}
	}
}

func testDeliveries(t *testing.T, s statusd.Store) {
	ctx := context.Background()
	o := newOutbox(t, s)
	a := o.add(statusd.Webhook, "a", statusd.SubscriberActive)
	b := o.add(statusd.Webhook, "b", statusd.SubscriberActive)
	e1, e2, e3 := o.notice(), o.notice(), o.notice()
	for range 3 {
		o.expand(t0, 1)
	}
	of := func(event, subscriber int64) int64 {
		for _, d := range o.deliveries(statusd.DeliveryFilter{SubscriberID: subscriber}) {
			if d.Event.ID == event {
				return d.ID
			}
		}
		t.Fatalf("no delivery of event %d to %d", event, subscriber)
		return 0
	}
	o.record(of(e1, a.ID), statusd.Attempt{At: t0, Outcome: statusd.Delivered, Status: 200})
	// b answers 410: unsubscribed, its pending deliveries fail.
	o.record(of(e2, b.ID), statusd.Attempt{At: t0, Outcome: statusd.Gone, Status: 410})
	events := func(ds []statusd.Delivery) []int64 {
		ids := []int64{}
		for _, d := range ds {
			ids = append(ids, d.Event.ID)
		}
		return ids
	}
	for _, tc := range []struct {
		f             statusd.DeliveryFilter
		page, perPage int
		events        []int64 // of the deliveries, newest first
		total         int
	}{
		{statusd.DeliveryFilter{}, 1, 4, []int64{e3, e3, e2, e2}, 6},
		{statusd.DeliveryFilter{}, 2, 4, []int64{e1, e1}, 6},
		{statusd.DeliveryFilter{}, 3, 4, []int64{}, 6},
		{statusd.DeliveryFilter{SubscriberID: a.ID}, 1, 10, []int64{e3, e2, e1}, 3},
		{statusd.DeliveryFilter{State: statusd.DeliveryFailed}, 1, 10, []int64{e3, e2, e1}, 3},
		{statusd.DeliveryFilter{SubscriberID: a.ID, State: statusd.DeliveryPending}, 1, 10, []int64{e3, e2}, 2},
		{statusd.DeliveryFilter{State: statusd.DeliveryDelivered}, 1, 10, []int64{e1}, 1},
		{statusd.DeliveryFilter{SubscriberID: b.ID, State: statusd.DeliveryPending}, 1, 10, []int64{}, 0},
	} {
		got, total, err := o.ss.Deliveries(ctx, tc.f, tc.page, tc.perPage)
		ids := deliveryIDs(got)
		if err != nil || total != tc.total || !slices.Equal(events(got), tc.events) ||
			!slices.IsSortedFunc(ids, func(x, y int64) int { return int(y - x) }) {
			t.Errorf("Deliveries(%+v, %d, %d) = events %v (ids %v) of %d, %v; want events %v of %d, newest first",
				tc.f, tc.page, tc.perPage, events(got), ids, total, err, tc.events, tc.total)
		}
	}
	_, err := o.ss.Delivery(ctx, 99999)
	wantCode(t, "Delivery of none", err, statusd.ENotFound)
}

func testImportSubscribers(t *testing.T, s statusd.Store) {
	ctx := context.Background()
	o := newOutbox(t, s)
	doc := Sample()
	doc.Subscribers = []statusd.Subscriber{
		{ID: 5, Channel: statusd.Email, Address: "ops@example.com", ComponentIDs: []int64{3}, State: statusd.SubscriberActive,
			CreatedAt: t0, UpdatedAt: t0},
		{ID: 9, Channel: statusd.Webhook, Address: "https://hooks.example.com/x", ComponentIDs: []int64{},
			State: statusd.SubscriberPending, Secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", CreatedAt: t0, UpdatedAt: t0.Add(time.Hour)},
	}
	if err := s.Import(ctx, doc, false); err != nil {
		t.Fatal(err)
	}
	if loaded, _ := load(t, s); loaded.Subscribers != nil {
		t.Errorf("Load gave subscribers: %+v", loaded.Subscribers)
	}
	got, total, err := o.ss.List(ctx, statusd.SubscriberFilter{}, 1, 10)
	if err != nil || total != 2 {
		t.Fatalf("List after Import: %d, %v", total, err)
	}
	for i := range got {
		if got[i].Token == "" || (i > 0 && got[i].Token == got[0].Token) {
			t.Errorf("imported subscriber %d got token %q, want a new one of its own", got[i].ID, got[i].Token)
		}
		got[i].Token = ""
	}
	if !reflect.DeepEqual(got, doc.Subscribers) {
		t.Errorf("imported subscribers:\n%+v\nwant\n%+v", got, doc.Subscribers)
	}
	// An import notifies nobody: its notices (the open incident's
	// updates included) and component states are history, not news.
	if n := o.expand(t0.Add(time.Hour), 10); n != 0 {
		t.Errorf("after an import, %d events to expand, want none", n)
	}
	// Ids go on after the imported ones.
	if c := o.add(statusd.Slack, "c", statusd.SubscriberActive); c.ID <= 9 {
		t.Errorf("a subscriber added after the import got id %d, want more than 9", c.ID)
	}
	o.notice(3)
	o.expand(t0, 10)
	if n := len(o.deliveries(statusd.DeliveryFilter{})); n != 2 {
		t.Fatalf("%d deliveries, want 2 (ops@ and c)", n)
	}
	// Without subscribers, a replace keeps them; with an empty list, it
	// removes them and their deliveries.
	if err := s.Import(ctx, Sample(), true); err != nil {
		t.Fatal(err)
	}
	if _, total, _ := o.ss.List(ctx, statusd.SubscriberFilter{}, 1, 10); total != 3 || len(o.deliveries(statusd.DeliveryFilter{})) != 2 {
		t.Errorf("a replace without subscribers left %d of 3", total)
	}
	empty := Sample()
	empty.Subscribers = []statusd.Subscriber{}
	if err := s.Import(ctx, empty, true); err != nil {
		t.Fatal(err)
	}
	if _, total, _ := o.ss.List(ctx, statusd.SubscriberFilter{}, 1, 10); total != 0 || len(o.deliveries(statusd.DeliveryFilter{})) != 0 {
		t.Errorf("a replace with no subscribers left %d subscribers", total)
	}
}

func testOutboxVersion(t *testing.T, s statusd.Store) {
	ctx := context.Background()
	o := newOutbox(t, s)
	importSample(t, s)
	_, v0 := load(t, s)
	a := o.add(statusd.Email, "a", statusd.SubscriberActive)
	o.notice()
	o.expand(t0, 10)
	for _, c := range o.claim(t0, time.Minute, 10) {
		o.record(c.Delivery.ID, statusd.Attempt{At: t0, Outcome: statusd.Delivered})
	}
	if _, err := o.ss.Change(ctx, a.ID, func(s *statusd.Subscriber) error { s.ComponentIDs = []int64{7}; return nil }, nil); err != nil {
		t.Fatal(err)
	}
	if err := o.ss.Request(ctx, "b@example.com", nil, t0); err != nil {
		t.Fatal(err)
	}
	if err := o.ss.Delete(ctx, a.ID, statusd.AuditEntry{At: t0, Actor: "ops", Action: "subscriber.delete"}); err != nil {
		t.Fatal(err)
	}
	if _, v := load(t, s); v != v0 {
		t.Errorf("the outbox's writes moved the page's version %d -> %d", v0, v)
	}
}

// testClaimChannels: a claim of some channels takes only their
// subscribers' deliveries, in the usual order, and leaves the others to a
// claim of theirs.
func testClaimChannels(t *testing.T, s statusd.Store) {
	o := newOutbox(t, s)
	mail := o.add(statusd.Email, "ann", statusd.SubscriberActive)
	hook := o.add(statusd.Webhook, "hook", statusd.SubscriberActive)
	chat := o.add(statusd.Slack, "chat", statusd.SubscriberActive)
	o.notice()
	o.notice()
	now := t0.Add(time.Hour)
	o.expand(now, 10)
	of := func(id int64) []int64 { // id's deliveries, oldest first
		ids := deliveryIDs(o.deliveries(statusd.DeliveryFilter{SubscriberID: id}))
		slices.Reverse(ids)
		return ids
	}
	if got, want := claimedIDs(o.claim(now, time.Minute, 10, statusd.Email)), of(mail.ID); !slices.Equal(got, want) {
		t.Errorf("Claim of email: %v, want ann's %v", got, want)
	}
	want := append(of(hook.ID), of(chat.ID)...)
	slices.Sort(want) // all due at now: oldest first
	if got := claimedIDs(o.claim(now, time.Minute, 10, statusd.HTTPChannels...)); !slices.Equal(got, want) {
		t.Errorf("Claim of the HTTP channels: %v, want the webhook's and Slack's %v", got, want)
	}
	if got := claimedIDs(o.claim(now, time.Minute, 10)); len(got) != 0 {
		t.Errorf("Claim of any channel after both: %v, want none (all leased)", got)
	}
}

// randomHex reports whether id looks random: 32 hex digits.
func randomHex(id string) bool {
	if len(id) != 32 {
		return false
	}
	for _, r := range id {
		if !strings.ContainsRune("0123456789abcdef", r) {
			return false
		}
	}
	return true
}

// testMessageIDs: every delivery has a random message id of its own (its
// webhook-id and Message-ID), the same on every claim and attempt; every
// notice has a random thread, shared by its events, kept after its events
// are pruned, and new when an import replaces the page (CONTRACT C7).
func testMessageIDs(t *testing.T, s statusd.Store) {
	o := newOutbox(t, s)
	a := o.add(statusd.Webhook, "a", statusd.SubscriberActive)
	b := o.add(statusd.Email, "b", statusd.SubscriberActive)
	o.emit(statusd.Event{Kind: statusd.NoticeCreated, NoticeID: 100, UpdateID: 5, ComponentIDs: []int64{}})
	o.emit(statusd.Event{Kind: statusd.NoticeUpdated, NoticeID: 100, UpdateID: 6, ComponentIDs: []int64{}})
	o.emit(statusd.Event{Kind: statusd.NoticeCreated, NoticeID: 101, UpdateID: 7, ComponentIDs: []int64{}})
	o.emit(statusd.Event{Kind: statusd.TestMessage, SubscriberID: a.ID})
	o.expand(t0, 10)
	ds := o.deliveries(statusd.DeliveryFilter{})
	if len(ds) != 7 {
		t.Fatalf("%d deliveries, want 3 events to 2 subscribers and a test", len(ds))
	}
	seen := map[string]bool{}
	threads := map[int64]string{}
	for _, d := range ds {
		if !randomHex(d.MessageID) || seen[d.MessageID] {
			t.Errorf("delivery %d has message id %q: want 32 hex digits, its own", d.ID, d.MessageID)
		}
		seen[d.MessageID] = true
		switch e := d.Event; {
		case e.NoticeID == 0 && e.Thread != "":
			t.Errorf("the test's event has thread %q, want none", e.Thread)
		case e.NoticeID == 0:
		case !randomHex(e.Thread):
			t.Errorf("event %d of notice %d has thread %q, want 32 hex digits", e.ID, e.NoticeID, e.Thread)
		case threads[e.NoticeID] == "":
			threads[e.NoticeID] = e.Thread
		case threads[e.NoticeID] != e.Thread:
			t.Errorf("notice %d's events have threads %q and %q, want one", e.NoticeID, threads[e.NoticeID], e.Thread)
		}
	}
	if threads[100] == threads[101] {
		t.Errorf("notices 100 and 101 share the thread %q", threads[100])
	}
	// Every claim and attempt keeps the id.
	byID := map[int64]string{}
	for _, d := range ds {
		byID[d.ID] = d.MessageID
	}
	for _, c := range o.claim(t0, time.Minute, 10) {
		if c.Delivery.MessageID != byID[c.Delivery.ID] {
			t.Errorf("claimed delivery %d has message id %q, listed %q", c.Delivery.ID, c.Delivery.MessageID, byID[c.Delivery.ID])
		}
		d := o.record(c.Delivery.ID, statusd.Attempt{At: t0, Outcome: statusd.Failed, Status: 500})
		if d.MessageID != byID[d.ID] || o.delivery(d.ID).MessageID != byID[d.ID] {
			t.Errorf("after a failed attempt, delivery %d has message id %q, want %q", d.ID, d.MessageID, byID[d.ID])
		}
	}
	// Once notice 100's events are pruned (their subscribers, and so
	// their deliveries, removed), its next event keeps its thread.
	for _, id := range []int64{a.ID, b.ID} {
		o.must(o.ss.Delete(o.ctx, id, statusd.AuditEntry{At: t0, Actor: "ops", Action: "subscriber.delete"}), "Delete(%d)", id)
	}
	if _, e, err := o.ss.Prune(o.ctx, t0.Add(time.Hour), 100); err != nil || e != 4 {
		t.Fatalf("Prune: %d events, %v; want the 4", e, err)
	}
	c := o.add(statusd.Webhook, "c", statusd.SubscriberActive)
	o.emit(statusd.Event{Kind: statusd.NoticeUpdated, NoticeID: 100, UpdateID: 8, ComponentIDs: []int64{}})
	o.expand(t0, 10)
	if d := o.only(c.ID); d.Event.Thread != threads[100] {
		t.Errorf("after its events were pruned, notice 100's thread is %q, want %q", d.Event.Thread, threads[100])
	}
	// An import that replaces the page starts new threads.
	o.must(s.Import(o.ctx, Sample(), true), "Import")
	o.emit(statusd.Event{Kind: statusd.NoticeUpdated, NoticeID: 100, UpdateID: 9, ComponentIDs: []int64{}})
	o.expand(t0, 10)
	for _, d := range o.deliveries(statusd.DeliveryFilter{SubscriberID: c.ID}) {
		if d.Event.UpdateID == 9 && (!randomHex(d.Event.Thread) || d.Event.Thread == threads[100]) {
			t.Errorf("after an import replaced the page, notice 100's thread is %q, want a new one", d.Event.Thread)
		}
	}
}

// testComponentUpdates: a component's update goes to the active webhooks
// that want it (of the whole page, of the component or of an ancestor),
// never to other channels, and keeps its states; its id is random.
func testComponentUpdates(t *testing.T, s statusd.Store) {
	o := newOutbox(t, s)
	o.must(s.Import(o.ctx, Sample(), false), "Import") // API (7) holds API EU (3)
	page := o.add(statusd.Webhook, "page", statusd.SubscriberActive)
	group := o.add(statusd.Webhook, "group", statusd.SubscriberActive, 7)
	o.add(statusd.Webhook, "other", statusd.SubscriberActive, 999)
	o.add(statusd.Email, "mail", statusd.SubscriberActive)
	o.add(statusd.Slack, "chat", statusd.SubscriberActive)
	o.emit(statusd.Event{Kind: statusd.ComponentUpdated, ComponentIDs: []int64{3},
		OldState: statusd.PageOperational, NewState: statusd.PageDegraded})
	o.expand(t0, 10)
	ds := o.deliveries(statusd.DeliveryFilter{})
	var to []int64
	for _, d := range ds {
		to = append(to, d.SubscriberID)
		e := d.Event
		if e.Kind != statusd.ComponentUpdated || e.OldState != statusd.PageOperational || e.NewState != statusd.PageDegraded ||
			!reflect.DeepEqual(e.ComponentIDs, []int64{3}) || !randomHex(e.Thread) {
			t.Errorf("delivered event %+v, want component 3's update from operational to degraded, with a random id", e)
		}
	}
	slices.Sort(to)
	if want := []int64{page.ID, group.ID}; !reflect.DeepEqual(to, want) {
		t.Errorf("component 3's update went to subscribers %v, want the page's and its group's webhooks %v", to, want)
	}
}
