package app

// The subscribers and the delivery log (CONTRACT C7). Addresses are
// personal data: the audit log, kept after a subscriber is removed, names
// subscribers by id and channel only.

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/internal/ratelimit"
	"github.com/statusd/statusd/internal/route"
)

// subscriberTarget names a subscriber in the audit log.
func subscriberTarget(id int64) string { return fmt.Sprintf("subscriber %d", id) }

// SubscribersPage returns page (from 1) of the subscribers f chooses, by
// id, 25 a page, and how many it chooses.
func (a *App) SubscribersPage(ctx context.Context, actor statusd.Actor, f statusd.SubscriberFilter, page int64) ([]statusd.AdminSubscriber, int, error) {
	if err := May(actor, ActRead); err != nil {
		return nil, 0, err
	}
	subs, total, err := a.store.Subscribers().List(ctx, f, int(page), pageSize)
	if err != nil {
		return nil, 0, err
	}
	list := make([]statusd.AdminSubscriber, len(subs))
	for i := range subs {
		list[i] = statusd.AdminSubscriberOf(masked(actor, &subs[i]))
	}
	return list, total, nil
}

// Subscriber returns subscriber id, its address masked for actor
// (masked); a 404 when there is none.
func (a *App) Subscriber(ctx context.Context, actor statusd.Actor, id int64) (*statusd.Subscriber, error) {
	if err := May(actor, ActRead); err != nil {
		return nil, err
	}
	sub, err := a.store.Subscribers().Get(ctx, id)
	if err != nil {
		return nil, err
	}
	return masked(actor, sub), nil
}

// masked is s as actor may read it: a chat channel's address (Slack,
// Teams, Discord) is a webhook URL that anyone who has it may post to, a
// credential, which only those who may change subscribers (owners)
// read whole; anyone else reads its scheme and host and the last 4
// characters.
func masked(actor statusd.Actor, s *statusd.Subscriber) *statusd.Subscriber {
	if actor.Role.Allows(Least(ActChangeSubscriber)) || !slices.Contains(chatChannels, s.Channel) {
		return s
	}
	c := *s
	c.Address = maskURL(s.Address)
	return &c
}

// chatChannels are the channels whose address is a credential.
var chatChannels = []statusd.Channel{statusd.Slack, statusd.Teams, statusd.Discord}

// maskURL is u's scheme and host, then "…" and its last 4 characters
// ("https://hooks.slack.com/…AbCd"), none of them when what follows the
// host has 8 or fewer.
func maskURL(u string) string {
	scheme, rest, ok := strings.Cut(u, "://")
	if !ok {
		scheme, rest = "", u
	} else {
		scheme += "://"
	}
	host, path, _ := strings.Cut(rest, "/")
	tail := []rune(path)
	if len(tail) > 4 {
		tail = tail[len(tail)-4:]
	}
	if len(path) <= 8 {
		tail = nil // too short to show any of it
	}
	return scheme + host + "/…" + string(tail)
}

// componentIDs checks the components a body lists: each one exists, and
// is listed once. It returns them, or nil when the body lists none.
func (a *App) componentIDs(ctx context.Context, ids *[]int64, bad *problems) []int64 {
	if ids == nil {
		return nil
	}
	exists := func(id int64) bool {
		snap := a.snaps.Current()
		return snap != nil && snap.Component(id) != nil
	}
	// A component made an instant ago, through another replica, may not
	// be in this one's snapshot yet: an unknown id loads the page again.
	if slices.ContainsFunc(*ids, func(id int64) bool { return !exists(id) }) {
		if err := a.snaps.Refresh(ctx); err != nil {
			bad.add("component_ids", "the components could not be read: %v", statusd.ErrorMessage(err))
			return nil
		}
	}
	seen := map[int64]bool{}
	for j, id := range *ids {
		path := fmt.Sprintf("component_ids[%d]", j)
		switch {
		case !exists(id):
			bad.add(path, "no component has id %d (GET /admin/api/v1/components lists them)", id)
		case seen[id]:
			bad.add(path, "component %d is listed twice", id)
		}
		seen[id] = true
	}
	return slices.Clone(*ids)
}

// AddSubscriber adds the subscriber of body and returns it. An email
// address is pending, and is sent a confirmation, unless the body says it
// is confirmed already; webhook and chat subscribers, added by an
// operator, are active at once.
func (a *App) AddSubscriber(ctx context.Context, actor statusd.Actor, body statusd.AdminSubscriberRequest) (*statusd.Subscriber, error) {
	if err := May(actor, ActAddSubscriber); err != nil {
		return nil, err
	}
	var bad problems
	var ch statusd.Channel
	switch {
	case body.Channel == nil:
		bad.add("channel", "is required: %s", oneOf(statusd.Channels))
	case !statusd.Channel(*body.Channel).Valid():
		bad.add("channel", "%q is not %s", *body.Channel, oneOf(statusd.Channels))
	default:
		ch = statusd.Channel(*body.Channel)
	}
	switch {
	case body.Address == nil:
		bad.add("address", "is required: the email address, or the URL to send to")
	case ch == statusd.Email:
		bad.check(statusd.CheckEmail(*body.Address))
	case ch != "":
		bad.check(statusd.CheckTarget(*body.Address, a.allowPrivate))
	}
	if body.State != nil {
		bad.add("state", "is not given on creation: an email address is pending until it confirms (or active with confirmed: true); the other channels are active at once")
	}
	ids := a.componentIDs(ctx, body.ComponentIDs, &bad)
	if err := bad.err(); err != nil {
		return nil, err
	}

	now := a.stamp()
	sub := statusd.Subscriber{Channel: ch, Address: *body.Address, ComponentIDs: ids, State: statusd.SubscriberActive,
		Token: statusd.NewToken(), CreatedAt: now, UpdatedAt: now}
	confirm := ch == statusd.Email && (body.Confirmed == nil || !*body.Confirmed)
	if confirm {
		sub.State = statusd.SubscriberPending
	}
	if ch == statusd.Webhook {
		sub.Secret = statusd.NewWebhookSecret()
	}
	detail := fmt.Sprintf("%s subscriber, %s, following %s", ch, sub.State, statusd.Follows(ids))
	if confirm {
		detail += "; confirmation sent"
	}
	// The store names the new subscriber, by the id it gives, as the
	// entry's target.
	subs := a.store.Subscribers()
	if err := subs.Add(ctx, &sub, a.entry(actor, "subscriber.create", "", detail)); err != nil {
		return nil, err
	}
	if confirm {
		// The self-service flow's own step: a new confirmation token and
		// the SubscriptionConfirm event, in one transaction.
		if err := subs.Request(ctx, sub.Address, ids, now); err != nil {
			return nil, err
		}
		a.wake(nil)
	}
	return &sub, nil
}

// ChangeSubscriber changes the components subscriber id follows, or sets
// it active again: a quarantined subscriber, or a webhook or chat
// subscriber unsubscribed by its receiver's 410. A pending address becomes
// active only by confirming, and one whose owner unsubscribed only by
// subscribing again. It returns the subscriber as changed.
func (a *App) ChangeSubscriber(ctx context.Context, actor statusd.Actor, id int64, body statusd.AdminSubscriberRequest) (*statusd.Subscriber, error) {
	if err := May(actor, ActChangeSubscriber); err != nil {
		return nil, err
	}
	var bad problems
	bad.refuse("cannot be changed; remove the subscriber and add it again",
		setField{"channel", body.Channel != nil}, setField{"address", body.Address != nil}, setField{"confirmed", body.Confirmed != nil})
	if body.State != nil && *body.State != string(statusd.SubscriberActive) {
		bad.add("state", "%q cannot be set: only active can (it sends to a quarantined subscriber again); to stop sending, remove the subscriber", *body.State)
	}
	ids := a.componentIDs(ctx, body.ComponentIDs, &bad)
	if err := bad.err(); err != nil {
		return nil, err
	}
	var changed []string
	if body.ComponentIDs != nil {
		changed = append(changed, "following "+statusd.Follows(ids))
	}
	if body.State != nil {
		changed = append(changed, "state active")
	}
	detail := "changed nothing"
	if len(changed) > 0 {
		detail = strings.Join(changed, "; ")
	}
	e := a.entry(actor, "subscriber.update", subscriberTarget(id), detail)
	sub, err := a.store.Subscribers().Change(ctx, id, func(sub *statusd.Subscriber) error {
		if body.State != nil && sub.State != statusd.SubscriberActive {
			if err := reactivate(sub); err != nil {
				return err
			}
		}
		if body.ComponentIDs != nil {
			sub.ComponentIDs = ids
		}
		sub.UpdatedAt = a.stamp()
		return nil
	}, &e)
	if err != nil {
		return nil, err
	}
	if body.State != nil {
		a.wake(nil) // what it missed, queued again
	}
	return sub, nil
}

// ReactivateSubscribers sets the quarantined subscribers that body
// chooses active again, and has each sent what it missed that is still
// current (statusd.Subscriber.Missed), as ChangeSubscriber does one:
// those of body's channel and, when body lists ids, those (each a
// quarantined subscriber of the channel); neither, every quarantined
// subscriber. It needs ChangeSubscriber's role, and says how many it set
// active and how many messages it queued.
func (a *App) ReactivateSubscribers(ctx context.Context, actor statusd.Actor, body statusd.AdminReactivateRequest) (statusd.Reactivated, error) {
	if err := May(actor, ActChangeSubscriber); err != nil {
		return statusd.Reactivated{}, err
	}
	var bad problems
	var r statusd.Reactivation
	chosen := "quarantined subscribers"
	if body.Channel != nil {
		r.Channel = statusd.Channel(*body.Channel)
		if !r.Channel.Valid() {
			bad.add("channel", "%q is not %s", *body.Channel, oneOf(statusd.Channels))
		}
		chosen = fmt.Sprintf("quarantined %s subscribers", r.Channel)
	}
	if body.IDs != nil {
		if len(*body.IDs) == 0 {
			bad.add("ids", "lists no subscriber; leave it out to reactivate every quarantined subscriber")
		}
		seen := map[int64]bool{}
		names := make([]string, len(*body.IDs))
		for i, id := range *body.IDs {
			path := fmt.Sprintf("ids[%d]", i)
			switch {
			case id < 1:
				bad.add(path, "%d is not a subscriber id (an integer >= 1)", id)
			case seen[id]:
				bad.add(path, "subscriber %d is listed twice", id)
			}
			seen[id] = true
			names[i] = strconv.FormatInt(id, 10)
		}
		r.IDs = slices.Clone(*body.IDs)
		chosen += " " + strings.Join(names, ", ")
	}
	if err := bad.err(); err != nil {
		return statusd.Reactivated{}, err
	}
	// The store adds to the entry's detail what it did.
	e := a.entry(actor, "subscriber.reactivate", "subscribers", chosen)
	done, err := a.store.Subscribers().Reactivate(ctx, r, a.stamp(), e)
	if err != nil {
		return statusd.Reactivated{}, err
	}
	a.wake(nil)
	return done, nil
}

// reactivate sets a subscriber active again (the store has it count
// failures afresh, and sends it what it missed), or says why it cannot
// be.
func reactivate(sub *statusd.Subscriber) error {
	switch {
	case sub.State == statusd.SubscriberPending:
		return statusd.FieldError(statusd.EInvalidTransition, "state", "subscriber %d is pending: it becomes active when the address confirms "+
			"(to add an address without confirmation, remove it and add it again with confirmed: true)", sub.ID)
	case sub.State == statusd.SubscriberUnsubscribed && sub.Channel == statusd.Email:
		return statusd.FieldError(statusd.EInvalidTransition, "state", "subscriber %d unsubscribed; only its owner can subscribe again (at /subscribe)", sub.ID)
	}
	sub.State = statusd.SubscriberActive
	return nil
}

// RemoveSubscriber removes subscriber id and its deliveries: every
// personal datum.
func (a *App) RemoveSubscriber(ctx context.Context, actor statusd.Actor, id int64) error {
	if err := May(actor, ActRemoveSubscriber); err != nil {
		return err
	}
	sub, err := a.store.Subscribers().Get(ctx, id)
	if err != nil {
		return err
	}
	e := a.entry(actor, "subscriber.delete", subscriberTarget(sub.ID), fmt.Sprintf("removed a %s subscriber", sub.Channel))
	return a.store.Subscribers().Delete(ctx, sub.ID, e)
}

// The limit of test messages: at most TestsPerMinute to one subscriber a
// minute, counted in this process (each replica counts its own), for at
// most testKeys subscribers at once (the least recently tested is
// forgotten past it).
const (
	TestsPerMinute = 5
	testKeys       = 10_000
)

// SendTest sends a test message to subscriber id now and returns its
// delivery, as the attempt left it. An email address that has not
// confirmed, or has unsubscribed, is sent nothing. Past TestsPerMinute
// to the subscriber it is a 429 that says when to try again.
func (a *App) SendTest(ctx context.Context, actor statusd.Actor, id int64) (*statusd.Delivery, error) {
	if err := May(actor, ActSendTest); err != nil {
		return nil, err
	}
	sub, err := a.store.Subscribers().Get(ctx, id)
	if err != nil {
		return nil, err
	}
	if a.notifier == nil {
		return nil, statusd.Errorf(statusd.EUnavailable, "notifications are not configured on this server")
	}
	if sub.Channel == statusd.Email && (sub.State == statusd.SubscriberPending || sub.State == statusd.SubscriberUnsubscribed) {
		return nil, statusd.Errorf(statusd.EConflict, "subscriber %d is %s: nothing is sent to an address that has not confirmed, or has unsubscribed", sub.ID, sub.State)
	}
	if ok, retry := a.tests.Take(a.now(), ratelimit.Quota{Key: strconv.FormatInt(sub.ID, 10), Limit: TestsPerMinute}); !ok {
		secs := int((retry + time.Second - 1) / time.Second)
		return nil, route.Retry(statusd.Errorf(statusd.ERateLimited,
			"at most %d test messages a minute to one subscriber; try again in %s", TestsPerMinute, statusd.DurationWords(int64(secs))), secs)
	}
	d, err := a.notifier.Test(ctx, sub.ID)
	if err != nil {
		return nil, err
	}
	// The audit entry, with what became of the message, is recorded
	// through Change, which leaves the subscriber as it is.
	e := a.entry(actor, "subscriber.test", subscriberTarget(sub.ID), fmt.Sprintf("test message: delivery %d, %s", d.ID, d.State))
	if _, err := a.store.Subscribers().Change(ctx, sub.ID, func(*statusd.Subscriber) error { return nil }, &e); err != nil {
		return nil, err
	}
	return d, nil
}

// DeliveriesPage returns page (from 1) of the deliveries f chooses,
// newest first, 25 a page, and how many it chooses.
func (a *App) DeliveriesPage(ctx context.Context, actor statusd.Actor, f statusd.DeliveryFilter, page int64) ([]statusd.AdminDelivery, int, error) {
	if err := May(actor, ActRead); err != nil {
		return nil, 0, err
	}
	ds, total, err := a.store.Subscribers().Deliveries(ctx, f, int(page), pageSize)
	if err != nil {
		return nil, 0, err
	}
	list := make([]statusd.AdminDelivery, len(ds))
	for i := range ds {
		list[i] = statusd.AdminDeliveryOf(&ds[i])
	}
	return list, total, nil
}
