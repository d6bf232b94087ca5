package admin

// The subscribers and the delivery log (CONTRACT C7).

import (
	"net/http"
	"net/url"
	"strconv"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/internal/app"
	"github.com/statusd/statusd/internal/httpjson"
)

// ListSubscribers answers a page of the subscribers, by id, chosen by
// ?channel= and ?state=: app.SubscribersPage.
func (s *Server) ListSubscribers(w http.ResponseWriter, r *http.Request, actor statusd.Actor) error {
	f, err := app.SubscriberFilterOf(r.URL.Query())
	if err != nil {
		return err
	}
	page, err := app.PageOf(r.URL.Query())
	if err != nil {
		return err
	}
	list, total, err := s.app.SubscribersPage(r.Context(), actor, f, page)
	if err != nil {
		return err
	}
	meta := listMeta("/subscribers", url.Values{"channel": {string(f.Channel)}, "state": {string(f.State)}}, page, len(list), total)
	return httpjson.Write(w, r, http.StatusOK, statusd.AdminSubscribersResponse{Subscribers: list, Meta: meta})
}

// GetSubscriber answers one subscriber.
func (s *Server) GetSubscriber(w http.ResponseWriter, r *http.Request, actor statusd.Actor) error {
	id, err := statusd.ParseID("subscriber", r.PathValue("id"))
	if err != nil {
		return err
	}
	sub, err := s.app.Subscriber(r.Context(), actor, id)
	if err != nil {
		return err
	}
	return httpjson.Write(w, r, http.StatusOK, statusd.AdminSubscriberOf(sub))
}

// CreateSubscriber adds a subscriber (POST /subscribers):
// app.AddSubscriber, then the subscriber, 201; a webhook's answer carries
// its secret, this once.
func (s *Server) CreateSubscriber(w http.ResponseWriter, r *http.Request, actor statusd.Actor) error {
	var body statusd.AdminSubscriberRequest
	if err := decode(r, &body); err != nil {
		return err
	}
	sub, err := s.app.AddSubscriber(r.Context(), actor, body)
	if err != nil {
		return err
	}
	out := statusd.AdminSubscriberOf(sub)
	out.Secret = sub.Secret
	return httpjson.Write(w, r, http.StatusCreated, out)
}

// PatchSubscriber changes a subscriber (PATCH /subscribers/{id}):
// app.ChangeSubscriber, then the subscriber.
func (s *Server) PatchSubscriber(w http.ResponseWriter, r *http.Request, actor statusd.Actor) error {
	id, err := statusd.ParseID("subscriber", r.PathValue("id"))
	if err != nil {
		return err
	}
	var body statusd.AdminSubscriberRequest
	if err := decode(r, &body); err != nil {
		return err
	}
	sub, err := s.app.ChangeSubscriber(r.Context(), actor, id, body)
	if err != nil {
		return err
	}
	return httpjson.Write(w, r, http.StatusOK, statusd.AdminSubscriberOf(sub))
}

// ReactivateSubscribers sets quarantined subscribers active again and
// sends them what they missed that is still current (POST
// /subscribers/reactivate): app.ReactivateSubscribers, then how many of
// each, 200.
func (s *Server) ReactivateSubscribers(w http.ResponseWriter, r *http.Request, actor statusd.Actor) error {
	var body statusd.AdminReactivateRequest
	if err := decode(r, &body); err != nil {
		return err
	}
	done, err := s.app.ReactivateSubscribers(r.Context(), actor, body)
	if err != nil {
		return err
	}
	return httpjson.Write(w, r, http.StatusOK, statusd.AdminReactivateResponse{Reactivated: done.Subscribers, Requeued: done.Requeued})
}

// DeleteSubscriber removes a subscriber (DELETE /subscribers/{id}):
// app.RemoveSubscriber, then 204.
func (s *Server) DeleteSubscriber(w http.ResponseWriter, r *http.Request, actor statusd.Actor) error {
	id, err := statusd.ParseID("subscriber", r.PathValue("id"))
	if err != nil {
		return err
	}
	if err := s.app.RemoveSubscriber(r.Context(), actor, id); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// TestSubscriber sends a test message (POST /subscribers/{id}/test):
// app.SendTest, then the delivery, 201.
func (s *Server) TestSubscriber(w http.ResponseWriter, r *http.Request, actor statusd.Actor) error {
	id, err := statusd.ParseID("subscriber", r.PathValue("id"))
	if err != nil {
		return err
	}
	d, err := s.app.SendTest(r.Context(), actor, id)
	if err != nil {
		return err
	}
	return httpjson.Write(w, r, http.StatusCreated, statusd.AdminDeliveryOf(d))
}

// ListDeliveries answers a page of the delivery log, newest first, chosen
// by ?subscriber_id= and ?state=: app.DeliveriesPage.
func (s *Server) ListDeliveries(w http.ResponseWriter, r *http.Request, actor statusd.Actor) error {
	f, err := app.DeliveryFilterOf(r.URL.Query())
	if err != nil {
		return err
	}
	page, err := app.PageOf(r.URL.Query())
	if err != nil {
		return err
	}
	list, total, err := s.app.DeliveriesPage(r.Context(), actor, f, page)
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
