package statusd

import (
	"fmt"
	"time"
)

// Standing is where a subscriber stands, for the outcome of an attempt to
// deliver to it: its state, and its failed attempts in a row, the first
// at FailingSince (nil while there is none).
type Standing struct {
	State        SubscriberState
	Failures     int
	FailingSince *time.Time
}

// Settle is the rule of CONTRACT C7 for what attempt a of delivery d, to
// a subscriber standing as sub, does; it returns the delivery and the
// subscriber's standing as the attempt leaves them (a store loads both,
// calls Settle and saves what it returns):
//
//   - Delivered: delivered at the attempt; the subscriber's failures in a
//     row start again from none.
//   - Failed: retried at NextAttempt (with retryBase), or failed when that
//     says no; the subscriber's failures count one more (FailingSince set
//     at the first), and an active subscriber that Quarantined says is
//     quarantined (the delivery then fails too).
//   - Deferred (the sender's trouble, not the subscriber's): retried, or
//     failed, as after Failed; the subscriber's failures are left as they
//     are.
//   - Gone (410): failed; the subscriber unsubscribed.
//   - Rejected (a permanent SMTP refusal of the address): failed; the
//     subscriber quarantined.
//   - Dropped (nothing to send): failed, its LastError DroppedPrefix and
//     why, no attempt counted; the subscriber left as it is.
//
// Every attempt but a dropped one counts on the delivery, and leaves its
// status and error as the last. An unsubscribed subscriber stays
// unsubscribed. An attempt of a delivery that is no longer pending (a
// sender whose lease ran out, whose delivery another finished) changes
// nothing: the first ending stands, and recorded is false. An outcome
// that is none of these is an error.
func Settle(d Delivery, sub Standing, a Attempt, retryBase time.Duration) (_ Delivery, _ Standing, recorded bool, _ error) {
	if d.State != DeliveryPending {
		return d, sub, false, nil
	}
	d.LastStatus, d.LastError, d.NextAttemptAt = a.Status, a.Error, nil
	d.State = DeliveryFailed
	if a.Outcome != Dropped {
		d.Attempts++
	}
	var becomes SubscriberState // "" when it stays as it is
	switch a.Outcome {
	case Delivered:
		at := a.At
		d.State, d.DeliveredAt = DeliveryDelivered, &at
		sub.Failures, sub.FailingSince = 0, nil
	case Failed, Deferred:
		if next, ok := NextAttempt(d.CreatedAt, d.Attempts, a, retryBase); ok {
			d.State, d.NextAttemptAt = DeliveryPending, &next
		}
		if a.Outcome == Deferred {
			break // the sender's trouble: not counted against the subscriber
		}
		sub.Failures++
		if sub.FailingSince == nil {
			at := a.At
			sub.FailingSince = &at
		}
		if sub.State == SubscriberActive && Quarantined(sub.Failures, sub.FailingSince, a.At) {
			becomes = SubscriberQuarantined
			d.State, d.NextAttemptAt = DeliveryFailed, nil
		}
	case Gone:
		becomes = SubscriberUnsubscribed
	case Rejected:
		becomes = SubscriberQuarantined
	case Dropped:
		d.LastError = DroppedPrefix + a.Error
	default:
		return d, sub, false, fmt.Errorf("delivery %d: unknown outcome %d", d.ID, a.Outcome)
	}
	if becomes != "" && sub.State != SubscriberUnsubscribed {
		sub.State = becomes
	}
	return d, sub, true, nil
}
