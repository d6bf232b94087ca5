package admin

// The subscribers and the delivery log (CONTRACT C7). Addresses are
// personal data: the audit log, kept after a subscriber is removed, names
// subscribers by id and channel only.

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/internal/httpjson"
	"github.com/statusd/statusd/internal/snapshot"
)

// oneOf lists the values a setting takes, for messages: "a, b or c".
func oneOf[T ~string](list []T) string {
	s := make([]string, len(list))
	for i, v := range list {
		s[i] = string(v)
	}
	return strings.Join(s[:len(s)-1], ", ") + " or " + s[len(s)-1]
}

// queryEnum reads the query parameter key, one of valid when given.
func queryEnum[T ~string](q url.Values, key string, valid []T) (T, error) {
	v := T(q.Get(key))
	if v != "" && !slices.Contains(valid, v) {
		return "", statusd.Errorf(statusd.EInvalidParameter, "%s: %q is not %s", key, v, oneOf(valid))
	}
	return v, nil
}

// subscriberTarget names a subscriber in the audit log.
func subscriberTarget(id int64) string { return fmt.Sprintf("subscriber %d", id) }

// SubscriberFilterOf reads a list's ?channel= and ?state=.
func SubscriberFilterOf(q url.Values) (statusd.SubscriberFilter, error) {
	var f statusd.SubscriberFilter
	var err error
	if f.Channel, err = queryEnum(q, "channel", statusd.Channels); err != nil {
		return f, err
	}
	f.State, err = queryEnum(q, "state", statusd.SubscriberStates)
	return f, err
}

// ListSubscribers answers a page of the subscribers, by id, chosen by
// ?channel= and ?state=: SubscribersPage.
func (s *Server) ListSubscribers(w http.ResponseWriter, r *http.Request, _ string) error {
	f, err := SubscriberFilterOf(r.URL.Query())
	if err != nil {
		return err
	}
	page, err := PageParam(r)
	if err != nil {
		return err
	}
	list, total, err := s.SubscribersPage(r.Context(), f, page)
	if err != nil {
		return err
	}
	meta := listMeta("/subscribers", url.Values{"channel": {string(f.Channel)}, "state": {string(f.State)}}, page, len(list), total)
	return httpjson.Write(w, r, http.StatusOK, statusd.AdminSubscribersResponse{Subscribers: list, Meta: meta})
}

// SubscribersPage returns page (from 1) of the subscribers f chooses, by
// id, 25 a page, and how many it chooses.
func (s *Server) SubscribersPage(ctx context.Context, f statusd.SubscriberFilter, page int64) ([]statusd.AdminSubscriber, int, error) {
	subs, total, err := s.store.Subscribers().List(ctx, f, int(page), snapshot.PageSize)
	if err != nil {
		return nil, 0, err
	}
	list := make([]statusd.AdminSubscriber, len(subs))
	for i := range subs {
		list[i] = statusd.AdminSubscriberOf(&subs[i])
	}
	return list, total, nil
}

// subscriber returns the subscriber of the request's path, or a 404.
func (s *Server) subscriber(r *http.Request) (*statusd.Subscriber, error) {
	id, err := statusd.ParseID("subscriber", r.PathValue("id"))
	if err != nil {
		return nil, err
	}
	return s.store.Subscribers().Get(r.Context(), id)
}

// GetSubscriber answers one subscriber.
func (s *Server) GetSubscriber(w http.ResponseWriter, r *http.Request, _ string) error {
	sub, err := s.subscriber(r)
	if err != nil {
		return err
	}
	return httpjson.Write(w, r, http.StatusOK, statusd.AdminSubscriberOf(sub))
}

// componentIDs checks the components a body lists: each one exists, and
// is listed once. It returns them, or nil when the body lists none.
func (s *Server) componentIDs(ctx context.Context, ids *[]int64, bad *problems) []int64 {
	if ids == nil {
		return nil
	}
	exists := func(id int64) bool {
		snap := s.snaps.Current()
		return snap != nil && snap.Component(id) != nil
	}
	// A component made an instant ago, through another replica, may not
	// be in this one's snapshot yet: an unknown id loads the page again.
	if slices.ContainsFunc(*ids, func(id int64) bool { return !exists(id) }) {
		if err := s.snaps.Refresh(ctx); err != nil {
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

// CreateSubscriber adds a subscriber (POST /subscribers): AddSubscriber,
// then the subscriber, 201; a webhook's answer carries its secret, this
// once.
func (s *Server) CreateSubscriber(w http.ResponseWriter, r *http.Request, actor string) error {
	var body statusd.AdminSubscriberRequest
	if err := decode(r, &body); err != nil {
		return err
	}
	sub, err := s.AddSubscriber(r.Context(), actor, body)
	if err != nil {
		return err
	}
	out := statusd.AdminSubscriberOf(sub)
	out.Secret = sub.Secret
	return httpjson.Write(w, r, http.StatusCreated, out)
}

// AddSubscriber adds the subscriber of body and returns it. An email
// address is pending, and is sent a confirmation, unless the body says it
// is confirmed already; webhook and chat subscribers, added by an
// operator, are active at once.
func (s *Server) AddSubscriber(ctx context.Context, actor string, body statusd.AdminSubscriberRequest) (*statusd.Subscriber, error) {
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
		bad.check(statusd.CheckTarget(*body.Address, s.allowPrivate))
	}
	if body.State != nil {
		bad.add("state", "is not given on creation: an email address is pending until it confirms (or active with confirmed: true); the other channels are active at once")
	}
	ids := s.componentIDs(ctx, body.ComponentIDs, &bad)
	if err := bad.err(); err != nil {
		return nil, err
	}

	now := s.now().UTC().Truncate(time.Millisecond)
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
	subs := s.store.Subscribers()
	if err := subs.Add(ctx, &sub, s.entry(actor, "subscriber.create", "", detail)); err != nil {
		return nil, err
	}
	if confirm {
		// The self-service flow's own step: a new confirmation token and
		// the SubscriptionConfirm event, in one transaction.
		if err := subs.Request(ctx, sub.Address, ids, now); err != nil {
			return nil, err
		}
		s.wake(nil)
	}
	return &sub, nil
}

// PatchSubscriber changes a subscriber (PATCH /subscribers/{id}):
// ChangeSubscriber, then the subscriber.
func (s *Server) PatchSubscriber(w http.ResponseWriter, r *http.Request, actor string) error {
	id, err := statusd.ParseID("subscriber", r.PathValue("id"))
	if err != nil {
		return err
	}
	var body statusd.AdminSubscriberRequest
	if err := decode(r, &body); err != nil {
		return err
	}
	sub, err := s.ChangeSubscriber(r.Context(), actor, id, body)
	if err != nil {
		return err
	}
	return httpjson.Write(w, r, http.StatusOK, statusd.AdminSubscriberOf(sub))
}

// ChangeSubscriber changes the components subscriber id follows, or sets
// it active again: a quarantined subscriber, or a webhook or chat
// subscriber unsubscribed by its receiver's 410. A pending address becomes
// active only by confirming, and one whose owner unsubscribed only by
// subscribing again. It returns the subscriber as changed.
func (s *Server) ChangeSubscriber(ctx context.Context, actor string, id int64, body statusd.AdminSubscriberRequest) (*statusd.Subscriber, error) {
	var bad problems
	bad.refuse("cannot be changed; remove the subscriber and add it again",
		setField{"channel", body.Channel != nil}, setField{"address", body.Address != nil}, setField{"confirmed", body.Confirmed != nil})
	if body.State != nil && *body.State != string(statusd.SubscriberActive) {
		bad.add("state", "%q cannot be set: only active can (it sends to a quarantined subscriber again); to stop sending, remove the subscriber", *body.State)
	}
	ids := s.componentIDs(ctx, body.ComponentIDs, &bad)
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
	e := s.entry(actor, "subscriber.update", subscriberTarget(id), detail)
	return s.store.Subscribers().Change(ctx, id, func(sub *statusd.Subscriber) error {
		if body.State != nil && sub.State != statusd.SubscriberActive {
			if err := reactivate(sub); err != nil {
				return err
			}
		}
		if body.ComponentIDs != nil {
			sub.ComponentIDs = ids
		}
		sub.UpdatedAt = s.now().UTC().Truncate(time.Millisecond)
		return nil
	}, &e)
}

// reactivate sets a subscriber active again (the store has it count
// failures afresh), or says why it cannot be.
func reactivate(sub *statusd.Subscriber) error {
	switch {
	case sub.State == statusd.SubscriberPending:
		return statusd.Errorf(statusd.EInvalidTransition, "state: subscriber %d is pending: it becomes active when the address confirms "+
			"(to add an address without confirmation, remove it and add it again with confirmed: true)", sub.ID)
	case sub.State == statusd.SubscriberUnsubscribed && sub.Channel == statusd.Email:
		return statusd.Errorf(statusd.EInvalidTransition, "state: subscriber %d unsubscribed; only its owner can subscribe again (at /subscribe)", sub.ID)
	}
	sub.State = statusd.SubscriberActive
	return nil
}

// DeleteSubscriber removes a subscriber (DELETE /subscribers/{id}):
// RemoveSubscriber, then 204.
func (s *Server) DeleteSubscriber(w http.ResponseWriter, r *http.Request, actor string) error {
	id, err := statusd.ParseID("subscriber", r.PathValue("id"))
	if err != nil {
		return err
	}
	if err := s.RemoveSubscriber(r.Context(), actor, id); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// RemoveSubscriber removes subscriber id and its deliveries: every
// personal datum.
func (s *Server) RemoveSubscriber(ctx context.Context, actor string, id int64) error {
	sub, err := s.store.Subscribers().Get(ctx, id)
	if err != nil {
		return err
	}
	e := s.entry(actor, "subscriber.delete", subscriberTarget(sub.ID), fmt.Sprintf("removed a %s subscriber", sub.Channel))
	return s.store.Subscribers().Delete(ctx, sub.ID, e)
}

// TestSubscriber sends a test message (POST /subscribers/{id}/test):
// SendTest, then the delivery, 201.
func (s *Server) TestSubscriber(w http.ResponseWriter, r *http.Request, actor string) error {
	id, err := statusd.ParseID("subscriber", r.PathValue("id"))
	if err != nil {
		return err
	}
	d, err := s.SendTest(r.Context(), actor, id)
	if err != nil {
		return err
	}
	return httpjson.Write(w, r, http.StatusCreated, statusd.AdminDeliveryOf(d))
}

// SendTest sends a test message to subscriber id now and returns its
// delivery, as the attempt left it. An email address that has not
// confirmed, or has unsubscribed, is sent nothing.
func (s *Server) SendTest(ctx context.Context, actor string, id int64) (*statusd.Delivery, error) {
	sub, err := s.store.Subscribers().Get(ctx, id)
	if err != nil {
		return nil, err
	}
	if s.notifier == nil {
		return nil, statusd.Errorf(statusd.EUnavailable, "notifications are not configured on this server")
	}
	if sub.Channel == statusd.Email && (sub.State == statusd.SubscriberPending || sub.State == statusd.SubscriberUnsubscribed) {
		return nil, statusd.Errorf(statusd.EConflict, "subscriber %d is %s: nothing is sent to an address that has not confirmed, or has unsubscribed", sub.ID, sub.State)
	}
	d, err := s.notifier.Test(ctx, sub.ID)
	if err != nil {
		return nil, err
	}
	// The audit entry, with what became of the message, is recorded
	// through Change, which leaves the subscriber as it is.
	e := s.entry(actor, "subscriber.test", subscriberTarget(sub.ID), fmt.Sprintf("test message: delivery %d, %s", d.ID, d.State))
	if _, err := s.store.Subscribers().Change(ctx, sub.ID, func(*statusd.Subscriber) error { return nil }, &e); err != nil {
		return nil, err
	}
	return d, nil
}

// DeliveryFilterOf reads a list's ?subscriber_id= and ?state=.
func DeliveryFilterOf(q url.Values) (statusd.DeliveryFilter, error) {
	var f statusd.DeliveryFilter
	var err error
	if v := q.Get("subscriber_id"); v != "" {
		f.SubscriberID, err = strconv.ParseInt(v, 10, 64)
		if err != nil || f.SubscriberID < 1 || strings.Trim(v, "0123456789") != "" {
			return f, statusd.Errorf(statusd.EInvalidParameter, "subscriber_id: %q is not a subscriber id (an integer >= 1)", v)
		}
	}
	f.State, err = queryEnum(q, "state", statusd.DeliveryStates)
	return f, err
}

// ListDeliveries answers a page of the delivery log, newest first, chosen
// by ?subscriber_id= and ?state=: DeliveriesPage.
func (s *Server) ListDeliveries(w http.ResponseWriter, r *http.Request, _ string) error {
	f, err := DeliveryFilterOf(r.URL.Query())
	if err != nil {
		return err
	}
	page, err := PageParam(r)
	if err != nil {
		return err
	}
	list, total, err := s.DeliveriesPage(r.Context(), f, page)
	if err != nil {
		return err
	}
	filters := url.Values{"state": {string(f.State)}}
	if f.SubscriberID != 0 {
		filters.Set("subscriber_id", strconv.FormatInt(f.SubscriberID, 10))
	}
	meta := listMeta("/deliveries", filters, page, len(list), total)
	return httpjson.Write(w, r, http.StatusOK, statusd.AdminDeliveriesResponse{Deliveries: list, Meta: meta})
}

// DeliveriesPage returns page (from 1) of the deliveries f chooses,
// newest first, 25 a page, and how many it chooses.
func (s *Server) DeliveriesPage(ctx context.Context, f statusd.DeliveryFilter, page int64) ([]statusd.AdminDelivery, int, error) {
	ds, total, err := s.store.Subscribers().Deliveries(ctx, f, int(page), snapshot.PageSize)
	if err != nil {
		return nil, 0, err
	}
	list := make([]statusd.AdminDelivery, len(ds))
	for i := range ds {
		list[i] = statusd.AdminDeliveryOf(&ds[i])
	}
	return list, total, nil
}
