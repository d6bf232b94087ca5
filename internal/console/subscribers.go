package console

// The subscribers and the delivery log (CONTRACT C7) in the console: the
// owner adds, changes and removes subscribers; a publisher also sends
// test messages; everyone signed in reads both lists.

import (
	"net/http"
	"net/url"
	"strconv"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/internal/app"
	"github.com/statusd/statusd/internal/snapshot"
)

// pager is where a page of a list is: its number, the links to the pages
// before and after it ("" for none), and the list's length.
type pager struct {
	Page       int64
	Prev, Next string
	Total      int
}

// pagerOf is the pager of page of a list of total at path, with the
// filters of q.
func pagerOf(path string, q url.Values, page int64, total int) pager {
	link := func(n int64) string {
		v := url.Values{}
		for k, vs := range q {
			if k != "page" && len(vs) > 0 && vs[0] != "" {
				v.Set(k, vs[0])
			}
		}
		v.Set("page", strconv.FormatInt(n, 10))
		return path + "?" + v.Encode()
	}
	p := pager{Page: page, Total: total}
	if page > 1 {
		p.Prev = link(page - 1)
	}
	if page*snapshot.PageSize < int64(total) {
		p.Next = link(page + 1)
	}
	return p
}

// subscribersView is the subscribers screen.
type subscribersView struct {
	base
	pager
	Edit, Test  bool // the person may change subscribers; send tests
	Channels    []statusd.Channel
	States      []statusd.SubscriberState
	Filter      statusd.SubscriberFilter
	Subscribers []statusd.AdminSubscriber
	Components  []componentRow
	Add         form // the add form, as sent
	Act         form // a subscriber's form that was refused
	Created     *statusd.Subscriber
	Sent        *statusd.AdminDelivery
	// Quarantined counts the quarantined subscribers, for a person who
	// may set them active again (0 for anyone else); Reactivated is what
	// doing so did.
	Quarantined int
	Reactivated *statusd.Reactivated
}

// Follows says whether the subscriber follows component id.
func (subscribersView) Follows(sub statusd.AdminSubscriber, id int64) bool {
	for _, c := range sub.ComponentIDs {
		if c == id {
			return true
		}
	}
	return false
}

func (s *Server) subscribersScreen(w http.ResponseWriter, r *http.Request, status int, v subscribersView) error {
	q := r.URL.Query()
	f, err := app.SubscriberFilterOf(q)
	if err != nil {
		return err
	}
	page, err := app.PageOf(r.URL.Query())
	if err != nil {
		return err
	}
	list, total, err := s.app.SubscribersPage(r.Context(), actor(r), f, page)
	if err != nil {
		return err
	}
	v.base, v.pager, v.Filter, v.Subscribers = s.newBase(r, "Subscribers"), pagerOf(Root+"/subscribers", q, page, total), f, list
	v.Edit, v.Test = may(r, app.ActAddSubscriber), may(r, app.ActSendTest)
	v.Channels, v.States = statusd.Channels, statusd.SubscriberStates
	if may(r, app.ActChangeSubscriber) {
		quarantined := statusd.SubscriberFilter{State: statusd.SubscriberQuarantined}
		if _, v.Quarantined, err = s.app.SubscribersPage(r.Context(), actor(r), quarantined, 1); err != nil {
			return err
		}
	}
	if snap := s.snaps.Current(); snap != nil {
		v.Components = componentRows(snap)
	}
	return s.render(w, status, "subscribers", v)
}

// Subscribers shows a page of the subscribers, chosen by ?channel= and
// ?state=.
func (s *Server) Subscribers(w http.ResponseWriter, r *http.Request) error {
	return s.subscribersScreen(w, r, http.StatusOK, subscribersView{})
}

// AddSubscriber adds a subscriber (app.AddSubscriber); a webhook's
// secret is shown this once.
func (s *Server) AddSubscriber(w http.ResponseWriter, r *http.Request) error {
	var sub *statusd.Subscriber
	return submit(w, r, []string{"channel", "address", "component_ids"}, func(f *form) (err error) {
		body := statusd.AdminSubscriberRequest{Channel: f.text("channel"), Address: f.text("address"), ComponentIDs: f.ids("component_ids"),
			Confirmed: f.check("confirmed")}
		if !f.Failed() {
			sub, err = s.app.AddSubscriber(r.Context(), actor(r), body)
		}
		return err
	}, func(status int, f *form) error {
		return s.subscribersScreen(w, r, status, subscribersView{Add: *f})
	}, func() error {
		if sub.Secret != "" {
			return s.subscribersScreen(w, r, http.StatusCreated, subscribersView{Created: sub})
		}
		return back(w, r, "/subscribers")()
	})
}

// subscriberKeys are the fields a subscriber's forms show problems at.
var subscriberKeys = []string{"component_ids", "state"}

// subscriberAction is what a subscriber's form does, by its id.
type subscriberAction func(r *http.Request, id int64, f *form) error

// onSubscriber serves a subscriber's form: it reads the path's id and the
// form, does act and goes back to the list; a refusal is shown there.
func (s *Server) onSubscriber(act subscriberAction) func(w http.ResponseWriter, r *http.Request) error {
	return func(w http.ResponseWriter, r *http.Request) error {
		id, err := pathID(r, "subscriber")
		if err != nil {
			return err
		}
		return submit(w, r, subscriberKeys, func(f *form) error { return act(r, id, f) }, func(status int, f *form) error {
			return s.subscribersScreen(w, r, status, subscribersView{Act: *f})
		}, back(w, r, "/subscribers"))
	}
}

// ChangeSubscriber sets the components a subscriber follows
// (app.ChangeSubscriber).
func (s *Server) ChangeSubscriber(w http.ResponseWriter, r *http.Request) error {
	return s.onSubscriber(func(r *http.Request, id int64, f *form) error {
		body := statusd.AdminSubscriberRequest{ComponentIDs: f.ids("component_ids")}
		if f.Failed() {
			return nil
		}
		_, err := s.app.ChangeSubscriber(r.Context(), actor(r), id, body)
		return err
	})(w, r)
}

// ActivateSubscriber sets a subscriber active again
// (app.ChangeSubscriber).
func (s *Server) ActivateSubscriber(w http.ResponseWriter, r *http.Request) error {
	return s.onSubscriber(func(r *http.Request, id int64, _ *form) error {
		active := string(statusd.SubscriberActive)
		_, err := s.app.ChangeSubscriber(r.Context(), actor(r), id, statusd.AdminSubscriberRequest{State: &active})
		return err
	})(w, r)
}

// ReactivateSubscribers sets every quarantined subscriber active again,
// and sends each what it missed that is still current
// (app.ReactivateSubscribers); the list then says how many of each.
func (s *Server) ReactivateSubscribers(w http.ResponseWriter, r *http.Request) error {
	var done statusd.Reactivated
	return submit(w, r, nil, func(*form) (err error) {
		done, err = s.app.ReactivateSubscribers(r.Context(), actor(r), statusd.AdminReactivateRequest{})
		return err
	}, func(status int, f *form) error {
		return s.subscribersScreen(w, r, status, subscribersView{Act: *f})
	}, func() error {
		return s.subscribersScreen(w, r, http.StatusOK, subscribersView{Reactivated: &done})
	})
}

// RemoveSubscriber removes a subscriber (app.RemoveSubscriber).
func (s *Server) RemoveSubscriber(w http.ResponseWriter, r *http.Request) error {
	return s.onSubscriber(func(r *http.Request, id int64, _ *form) error {
		return s.app.RemoveSubscriber(r.Context(), actor(r), id)
	})(w, r)
}

// TestSubscriber sends a subscriber a test message and shows what became
// of it (app.SendTest).
func (s *Server) TestSubscriber(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "subscriber")
	if err != nil {
		return err
	}
	d, err := s.app.SendTest(r.Context(), actor(r), id)
	if err != nil {
		f := newForm(nil, subscriberKeys...)
		if status := f.refuse(err); status != 0 {
			return s.subscribersScreen(w, r, status, subscribersView{Act: *f})
		}
		return err
	}
	sent := statusd.AdminDeliveryOf(d)
	return s.subscribersScreen(w, r, http.StatusCreated, subscribersView{Sent: &sent})
}

// deliveriesView is the delivery log screen.
type deliveriesView struct {
	base
	pager
	States     []statusd.DeliveryState
	Filter     statusd.DeliveryFilter
	Deliveries []statusd.AdminDelivery
	// Mirror is the mirror's key, destinations and pushes (CONTRACT C10).
	Mirror *statusd.AdminMirror
}

// Deliveries shows a page of the delivery log, newest first, chosen by
// ?subscriber_id= and ?state=: attempts, last error, next attempt.
func (s *Server) Deliveries(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	f, err := app.DeliveryFilterOf(q)
	if err != nil {
		return err
	}
	page, err := app.PageOf(r.URL.Query())
	if err != nil {
		return err
	}
	list, total, err := s.app.DeliveriesPage(r.Context(), actor(r), f, page)
	if err != nil {
		return err
	}
	mirrored, err := s.app.Mirror(r.Context(), actor(r))
	if err != nil {
		return err
	}
	v := deliveriesView{base: s.newBase(r, "Deliveries"), pager: pagerOf(Root+"/deliveries", q, page, total),
		States: statusd.DeliveryStates, Filter: f, Deliveries: list, Mirror: mirrored}
	return s.render(w, http.StatusOK, "deliveries", v)
}
