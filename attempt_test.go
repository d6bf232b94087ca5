package statusd

import (
	"reflect"
	"testing"
	"time"
)

// TestSettle: what an attempt does to its delivery and its subscriber, by
// CONTRACT C7, worked out by hand. The base delay is 30 s: the n-th failed
// attempt waits 30 s × 2^(n-1), at most an hour, plus up to 20% jitter,
// and at least the receiver's Retry-After; a delivery is retried for 24 h
// from its making; 10 failures in a row over at least an hour quarantine.
func TestSettle(t *testing.T) {
	const base = 30 * time.Second
	made := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	at := made.Add(time.Minute)
	ago := func(d time.Duration) *time.Time { v := at.Add(-d); return &v }
	pending := func(attempts int) Delivery {
		return Delivery{ID: 7, SubscriberID: 3, State: DeliveryPending, Attempts: attempts, CreatedAt: made}
	}
	active := func(failures int, since *time.Time) Standing {
		return Standing{State: SubscriberActive, Failures: failures, FailingSince: since}
	}
	type want struct {
		state      DeliveryState
		attempts   int
		lastError  string
		delivered  bool
		next       [2]time.Duration // the window after at of the next attempt; zero: none
		sub        Standing
		unrecorded bool
	}
	for _, tc := range []struct {
		name string
		d    Delivery
		sub  Standing
		a    Attempt
		want want
	}{
		{"delivered: the failures in a row start again", pending(2), active(3, ago(time.Minute)),
			Attempt{At: at, Outcome: Delivered, Status: 200},
			want{state: DeliveryDelivered, attempts: 3, delivered: true, sub: active(0, nil)}},
		{"first failure: retried after 30 s to 36 s, failing since now", pending(0), active(0, nil),
			Attempt{At: at, Outcome: Failed, Status: 500, Error: "500 Internal Server Error"},
			want{state: DeliveryPending, attempts: 1, lastError: "500 Internal Server Error",
				next: [2]time.Duration{30 * time.Second, 36 * time.Second}, sub: active(1, &at)}},
		{"third failure: 120 s to 144 s", pending(2), active(2, ago(time.Minute)),
			Attempt{At: at, Outcome: Failed, Status: 502},
			want{state: DeliveryPending, attempts: 3, next: [2]time.Duration{120 * time.Second, 144 * time.Second}, sub: active(3, ago(time.Minute))}},
		{"Retry-After of 10 minutes is honoured", pending(0), active(0, nil),
			Attempt{At: at, Outcome: Failed, Status: 429, RetryAfter: 10 * time.Minute},
			want{state: DeliveryPending, attempts: 1, next: [2]time.Duration{10 * time.Minute, 10 * time.Minute}, sub: active(1, &at)}},
		{"tenth failure after an hour: quarantined, the delivery failed", pending(9), active(9, ago(time.Hour)),
			Attempt{At: at, Outcome: Failed, Status: 500},
			want{state: DeliveryFailed, attempts: 10, sub: Standing{State: SubscriberQuarantined, Failures: 10, FailingSince: ago(time.Hour)}}},
		{"tenth failure within 59 minutes: still active, retried", pending(9), active(9, ago(59*time.Minute)),
			Attempt{At: at, Outcome: Failed, Status: 500},
			// 30 s × 2^9 is over an hour: an hour, plus up to 12 minutes.
			want{state: DeliveryPending, attempts: 10, next: [2]time.Duration{time.Hour, 72 * time.Minute}, sub: active(10, ago(59*time.Minute))}},
		{"a failure after nearly 24 h: no retry left, failed", pending(9),
			active(1, ago(time.Minute)),
			Attempt{At: made.Add(23*time.Hour + 30*time.Minute), Outcome: Failed, Status: 500},
			want{state: DeliveryFailed, attempts: 10, sub: active(2, ago(time.Minute))}},
		{"the relay's trouble: retried, the subscriber not blamed", pending(4), active(4, ago(time.Minute)),
			Attempt{At: at, Outcome: Deferred, Status: 421, Error: "421 try later"},
			want{state: DeliveryPending, attempts: 5, lastError: "421 try later",
				next: [2]time.Duration{8 * time.Minute, 8*time.Minute + 96*time.Second}, sub: active(4, ago(time.Minute))}},
		{"410 Gone: unsubscribed", pending(0), active(0, nil),
			Attempt{At: at, Outcome: Gone, Status: 410},
			want{state: DeliveryFailed, attempts: 1, sub: Standing{State: SubscriberUnsubscribed}}},
		{"a refused address: quarantined", pending(0), active(0, nil),
			Attempt{At: at, Outcome: Rejected, Status: 550, Error: "550 no such user"},
			want{state: DeliveryFailed, attempts: 1, lastError: "550 no such user", sub: Standing{State: SubscriberQuarantined}}},
		{"a refused address of one unsubscribed: stays unsubscribed", pending(0), Standing{State: SubscriberUnsubscribed},
			Attempt{At: at, Outcome: Rejected, Status: 550},
			want{state: DeliveryFailed, attempts: 1, sub: Standing{State: SubscriberUnsubscribed}}},
		{"a test to a quarantined subscriber fails: it stays quarantined", pending(0), Standing{State: SubscriberQuarantined, Failures: 12, FailingSince: ago(2 * time.Hour)},
			Attempt{At: at, Outcome: Failed, Status: 500},
			want{state: DeliveryPending, attempts: 1, next: [2]time.Duration{30 * time.Second, 36 * time.Second},
				sub: Standing{State: SubscriberQuarantined, Failures: 13, FailingSince: ago(2 * time.Hour)}}},
		{"nothing to send: dropped, no attempt counted, no one blamed", pending(2), active(2, ago(time.Minute)),
			Attempt{At: at, Outcome: Dropped, Error: "the notice was deleted"},
			want{state: DeliveryFailed, attempts: 2, lastError: "dropped: the notice was deleted", sub: active(2, ago(time.Minute))}},
		{"a delivery another sender finished: unchanged", Delivery{ID: 7, State: DeliveryDelivered, Attempts: 1, CreatedAt: made},
			active(0, nil), Attempt{At: at, Outcome: Failed, Status: 500},
			want{state: DeliveryDelivered, attempts: 1, sub: active(0, nil), unrecorded: true}},
	} {
		d, sub, recorded, err := Settle(tc.d, tc.sub, tc.a, base)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		w := tc.want
		if d.State != w.state || d.Attempts != w.attempts || d.LastError != w.lastError || (d.DeliveredAt != nil) != w.delivered ||
			recorded == w.unrecorded {
			t.Errorf("%s: %s, %d attempts, error %q, delivered at %v, recorded %t", tc.name, d.State, d.Attempts, d.LastError,
				d.DeliveredAt, recorded)
		}
		if !w.unrecorded && d.LastStatus != tc.a.Status {
			t.Errorf("%s: last status %d, want %d", tc.name, d.LastStatus, tc.a.Status)
		}
		switch {
		case w.next == [2]time.Duration{} && d.NextAttemptAt != nil:
			t.Errorf("%s: next attempt at %s, want none", tc.name, d.NextAttemptAt)
		case w.next != [2]time.Duration{} && (d.NextAttemptAt == nil ||
			d.NextAttemptAt.Before(tc.a.At.Add(w.next[0])) || d.NextAttemptAt.After(tc.a.At.Add(w.next[1]))):
			t.Errorf("%s: next attempt at %v, want from %s to %s after the attempt", tc.name, d.NextAttemptAt, w.next[0], w.next[1])
		}
		if !reflect.DeepEqual(sub, w.sub) {
			t.Errorf("%s: subscriber %+v, want %+v", tc.name, sub, w.sub)
		}
	}
	if _, _, _, err := Settle(pending(0), active(0, nil), Attempt{At: at, Outcome: Outcome(99)}, base); err == nil {
		t.Error("an unknown outcome settled")
	}
}
