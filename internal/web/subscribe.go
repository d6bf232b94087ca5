package web

import (
	"crypto/sha256"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/internal/htmlkit"
	"github.com/statusd/statusd/internal/ratelimit"
	"github.com/statusd/statusd/internal/route"
	"github.com/statusd/statusd/internal/snapshot"
)

// The pages of email subscription (CONTRACT C7): people subscribe
// themselves at /subscribe, confirm at /subscriptions/confirm, change or
// stop their subscription at /subscriptions/manage and
// /subscriptions/unsubscribe (RFC 8058 one-click too). The token of a
// link is the only key: there are no accounts and no cookies.
//
// A GET never changes anything (mail scanners follow links): each link
// shows a page whose button POSTs. Pages that carry a token, and every
// answer to a POST, are Private: never stored, never sent as a Referer.
// Neither tokens nor addresses are logged (the request log has the path
// alone).
//
// Cross-site requests: none of these POSTs rides on a cookie or other
// ambient credential (the token in the form or the URL is the credential),
// so a forged cross-site POST can do nothing its sender could not do
// directly. Still, the form POSTs (subscribe, confirm, manage) are only
// ever sent by statusd's own pages, so SameOrigin refuses them from other
// sites (http.CrossOriginProtection) at no cost: another site cannot make
// its visitors' browsers request subscriptions on its behalf. The one-click
// unsubscription is exempt: mail providers POST it from their own
// servers, or from a webmail page on their own origin (RFC 8058).

// Limits of subscription requests (CONTRACT C7), besides the §8 limit.
const (
	// PerAddressPerHour is how many requests may name one address an
	// hour.
	PerAddressPerHour = 5
	// PerClientPerHour is how many requests one client may make an hour.
	PerClientPerHour = 20
	// DefaultConfirmationsPerHour is how many subscription requests an
	// hour, over all addresses, may send an email when the
	// configuration does not say.
	DefaultConfirmationsPerHour = 500
	// limitKeys bounds the clients the hourly limit remembers: measured,
	// some 420 bytes a client key at its 20 times, so 9 MB at the very
	// most. Past it the least recently used is forgotten. Addresses are
	// counted apart, and never forgotten within their hour
	// (newSubscribeLimits).
	limitKeys = 20_000
	// maxForm bounds the body of a form.
	maxForm = 64 << 10
	// maxToken bounds a token worth looking up (statusd.NewToken's are
	// 43 characters).
	maxToken = 128
)

// subscribeLimits are the hourly limits of subscription requests. They
// are counted in this process's memory: with several replicas, each
// counts its own, so a client spreading its requests over n replicas gets
// up to n times the limits. Bounded and per process is enough for their
// purpose, which is to keep statusd from being used to flood an inbox.
type subscribeLimits struct {
	// clients counts the requests of each client; a client forgotten
	// for room (past limitKeys) starts again from 0.
	clients *ratelimit.Window
	// addresses counts the requests that send an email, per address and
	// in all (the key allConfirmations, up to perHour): an address is counted
	// only with the page, so at most perHour addresses are in their hour
	// at once, and the window, one key larger, never forgets one for
	// room, however many clients and addresses pass.
	addresses *ratelimit.Window
	perHour   int
}

// allConfirmations is the key of the page's confirmation emails in
// subscribeLimits.addresses.
const allConfirmations = "page"

// newSubscribeLimits returns the hourly limits, perHour emails at most
// (DefaultConfirmationsPerHour when 0 or less).
func newSubscribeLimits(perHour int) subscribeLimits {
	if perHour <= 0 {
		perHour = DefaultConfirmationsPerHour
	}
	return subscribeLimits{clients: ratelimit.NewWindow(time.Hour, limitKeys),
		addresses: ratelimit.NewWindow(time.Hour, perHour+1), perHour: perHour}
}

// addressKey is the key of an address in the hourly limits: a hash of its
// statusd.AddressKey (one key whatever the case, as the store counts one
// subscriber), so that the process holds no address.
func addressKey(email string) string {
	sum := sha256.Sum256([]byte(statusd.AddressKey(statusd.Email, email)))
	return "address " + string(sum[:16])
}

// clientKey is the key of a client in the hourly limits: its block
// (ratelimit.Block).
func clientKey(client string) string { return "client " + ratelimit.Block(client) }

// checkTree is the page's component tree as checkboxes, those of checked
// checked.
func checkTree(snap *snapshot.Snapshot, checked []int64) []*htmlkit.Node {
	return htmlkit.Tree(snap, func(id int64) bool { return slices.Contains(checked, id) })
}

// componentIDs reads the component_ids of a form: each a component of the
// page, each once, in id order. A wrong one is an *Error EInvalidField
// whose message, for a person, says which; the ids are then the right
// ones, to show the form again as it was.
func componentIDs(snap *snapshot.Snapshot, values []string) ([]int64, error) {
	ids := []int64{}
	var bad error
	for _, v := range values {
		id, err := statusd.ParseID("component", v)
		if err != nil || snap.Component(id) == nil {
			if bad == nil {
				bad = statusd.Errorf(statusd.EInvalidField, "%s is not a component of this page: choose components from the list.", quoted(v))
			}
			continue
		}
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return slices.Compact(ids), bad
}

// quoted is v in quotes for a message, its first 60 bytes at most.
func quoted(v string) string {
	const most = 60
	if len(v) <= most {
		return strconv.Quote(v)
	}
	cut := most
	for cut > 0 && !utf8.RuneStart(v[cut]) {
		cut--
	}
	return strconv.Quote(v[:cut]) + "…"
}

// readForm parses the body of a POST, of at most maxForm bytes.
func readForm(w http.ResponseWriter, r *http.Request) error {
	r.Body = http.MaxBytesReader(w, r.Body, maxForm)
	if err := r.ParseForm(); err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			return statusd.Errorf(statusd.ETooLarge, "The form is larger than %d KiB; nothing was changed.", maxForm>>10)
		}
		return statusd.Errorf(statusd.EInvalidBody, "The form could not be read; nothing was changed. Please go back and send it again.")
	}
	return nil
}

// subscribeView is the subscription form.
type subscribeView struct {
	base
	Email      string
	Components []*htmlkit.Node
	Error      string // what to correct; "" when nothing
	EmailError bool   // the error is about the address
}

// formBase is the layout's data for a subscription page: no refresh (it
// would lose what is typed) and no generation time (there are no times on
// it, and its answer stays the same from one request to the next).
func (s *Server) formBase(snap *snapshot.Snapshot, title string) base {
	return base{Title: title, Name: snap.Doc.Page.Name, Nav: "subscribe", Subscribe: s.subscribe}
}

// SubscribeForm renders the subscription form, GET /subscribe.
func (s *Server) SubscribeForm(w http.ResponseWriter, r *http.Request, snap *snapshot.Snapshot, now time.Time) error {
	s.render(w, http.StatusOK, "subscribe", subscribeView{base: s.formBase(snap, "Subscribe"),
		Components: checkTree(snap, nil)})
	return nil
}

// Subscribe takes a subscription request, POST /subscribe (form email,
// component_ids repeated). Whether the address is new, pending or active,
// the answer is the same page: nothing tells who is subscribed. An invalid
// form is shown again, 422, with what to correct, and changes nothing.
// A request costs the §8 limit, then counts against PerAddressPerHour and
// PerClientPerHour (429 past either).
func (s *Server) Subscribe(w http.ResponseWriter, r *http.Request, snap *snapshot.Snapshot, now time.Time) error {
	if err := ratelimit.Check(s.limiter, s.trusted, w, r); err != nil {
		return err
	}
	if err := readForm(w, r); err != nil {
		return err
	}
	email := strings.TrimSpace(r.PostForm.Get("email"))
	v := subscribeView{base: s.formBase(snap, "Subscribe"), Email: email}
	ids, err := componentIDs(snap, r.PostForm["component_ids"])
	switch {
	case email == "":
		v.Error, v.EmailError = "Enter your email address.", true
	case statusd.CheckEmail(email) != nil:
		v.Error, v.EmailError = quoted(email)+" is not an email address. Enter one like name@example.com.", true
	case err != nil:
		v.Error = statusd.ErrorMessage(err)
	}
	if v.Error != "" {
		v.Title = "Correct the form: Subscribe"
		v.Components = checkTree(snap, ids)
		s.render(w, http.StatusUnprocessableEntity, "subscribe", v)
		return nil
	}
	client := ratelimit.ClientAddr(r, s.trusted)
	address := ratelimit.Quota{Key: addressKey(email), Limit: PerAddressPerHour}
	retry := s.limits.addresses.Wait(now, address)
	if retry == 0 {
		_, retry = s.limits.clients.Take(now, ratelimit.Quota{Key: clientKey(client), Limit: PerClientPerHour})
	}
	if retry > 0 {
		secs := int((retry + time.Second - 1) / time.Second)
		return route.Retry(statusd.Errorf(statusd.ERateLimited,
			"Too many subscription requests for this address or from your network in the last hour "+
				"(at most %d for an address, %d from a network). Please try again in %s.",
			PerAddressPerHour, PerClientPerHour, statusd.DurationWords(int64(secs))), secs)
	}
	if ok, _ := s.limits.addresses.Take(now, address, ratelimit.Quota{Key: allConfirmations, Limit: s.limits.perHour}); !ok {
		// The page's emails of the hour are spent (or the address's,
		// since a moment): the same answer, nothing sent.
		s.log.Warn("subscription request not sent: the confirmation emails of the hour are spent", "per_hour", s.limits.perHour)
	} else if err := s.subs.Request(r.Context(), email, ids, now); err != nil {
		var e *statusd.Error
		if errors.As(err, &e) {
			return err
		}
		// An internal error is logged, at error level: without the
		// address, should the store's error name it.
		return errors.New(strings.ReplaceAll(err.Error(), email, "<address>"))
	}
	s.message(w, http.StatusOK, snap, messageView{Kind: "info",
		Heading: "Check your inbox",
		Lines: []string{
			"If the address can receive email, a message is on its way to it. Follow the link in it to confirm your subscription; the link works for 48 hours.",
			"Already subscribed? Then the message brings the link to change your subscription instead.",
			"Nothing arrived after a few minutes? Look in your spam folder, or subscribe again.",
		},
		Links: []linkView{{"/", "Back to the status page"}}})
	return nil
}

// messageView is a page that says one thing, with maybe one button.
type messageView struct {
	base
	Kind    string // its icon and colour: info, resolved, degraded
	Heading string
	Lines   []string
	Form    *buttonForm
	Links   []linkView
}

// message renders a messageView, titled by its heading.
func (s *Server) message(w http.ResponseWriter, status int, snap *snapshot.Snapshot, v messageView) {
	v.base = s.formBase(snap, v.Heading)
	s.render(w, status, "message", v)
}

// buttonForm is a form of hidden fields and one button, POSTed to Action.
type buttonForm struct {
	Action string
	Fields []hiddenField
	Button string
}

type hiddenField struct{ Name, Value string }

type linkView struct{ Href, Text string }

// unknownLink answers a token that names nothing (never was, or has
// expired): 404, a page that says so and how to start again.
func (s *Server) unknownLink(w http.ResponseWriter, snap *snapshot.Snapshot, what string) {
	s.message(w, http.StatusNotFound, snap, messageView{Kind: "degraded",
		Heading: "This link is not valid",
		Lines: []string{"This " + what + " link is unknown, or has expired (confirmation links work for 48 hours).",
			"Subscribe again to get a new link by email."},
		Links: []linkView{{"/subscribe", "Subscribe again"}, {"/", "Back to the status page"}}})
}

// subscriber is the subscriber of token (confirm: of a confirmation
// pending at now). When there is none, it answers the page that says so
// (unknownLink, the link being what's) and returns nil.
func (s *Server) subscriber(w http.ResponseWriter, r *http.Request, snap *snapshot.Snapshot, token string, confirm bool,
	now time.Time, what string) (*statusd.Subscriber, error) {
	var sub *statusd.Subscriber
	var err error = statusd.Errorf(statusd.ENotFound, "no token")
	if token != "" && len(token) <= maxToken {
		sub, err = s.subs.ByToken(r.Context(), token, confirm, now)
	}
	if statusd.ErrorCode(err) == statusd.ENotFound {
		s.unknownLink(w, snap, what)
		return nil, nil
	}
	return sub, err
}

// ConfirmForm shows the button that confirms a subscription, GET
// /subscriptions/confirm?token=T; it changes nothing.
func (s *Server) ConfirmForm(w http.ResponseWriter, r *http.Request, snap *snapshot.Snapshot, now time.Time) error {
	token := r.URL.Query().Get("token")
	sub, err := s.subscriber(w, r, snap, token, true, now, "confirmation")
	if sub == nil {
		return err
	}
	switch sub.State {
	case statusd.SubscriberActive:
		s.subscribed(w, snap, sub, false)
		return nil
	case statusd.SubscriberPending:
	default: // quarantined since: the link confirms nothing
		s.unknownLink(w, snap, "confirmation")
		return nil
	}
	s.message(w, http.StatusOK, snap, messageView{Kind: "info",
		Heading: "Confirm your subscription",
		Lines:   []string{"Send email updates of " + snap.Doc.Page.Name + " about " + following(snap, sub.ComponentIDs) + " to " + sub.Address + "?"},
		Form:    &buttonForm{Action: "/subscriptions/confirm", Fields: []hiddenField{{"token", token}}, Button: "Confirm subscription"},
		Links:   []linkView{{"/", "Not you? Back to the status page"}}})
	return nil
}

// following says in words what a subscriber to ids hears about.
func following(snap *snapshot.Snapshot, ids []int64) string {
	var names []string
	for _, id := range ids {
		if c := snap.Component(id); c != nil {
			names = append(names, c.Name)
		}
	}
	if len(names) == 0 {
		return "everything it posts"
	}
	return strings.Join(names, ", ")
}

// Confirm activates a subscription, POST /subscriptions/confirm (form
// token), and shows the manage link.
func (s *Server) Confirm(w http.ResponseWriter, r *http.Request, snap *snapshot.Snapshot, now time.Time) error {
	if err := readForm(w, r); err != nil {
		return err
	}
	token := r.PostForm.Get("token")
	sub, err := s.subscriber(w, r, snap, token, true, now, "confirmation")
	if sub == nil {
		return err
	}
	if sub.State == statusd.SubscriberActive {
		s.subscribed(w, snap, sub, false)
		return nil
	}
	sub, err = s.subs.Change(r.Context(), sub.ID, func(c *statusd.Subscriber) error {
		// Another request may have used it, or an unsubscription ended
		// it, since ByToken. The token stays until it expires, so that
		// the link, used, says the address is subscribed.
		if c.ConfirmToken != token || c.ConfirmExpiresAt == nil || !now.Before(*c.ConfirmExpiresAt) || c.State != statusd.SubscriberPending {
			return errConfirmed
		}
		c.State = statusd.SubscriberActive
		return nil
	}, nil)
	if errors.Is(err, errConfirmed) {
		s.unknownLink(w, snap, "confirmation")
		return nil
	}
	if err != nil {
		return err
	}
	s.subscribed(w, snap, sub, true)
	return nil
}

// subscribed answers a confirmation link of active subscriber sub: the
// manage link when this request confirmed it (first), else only that it
// is subscribed, as a link used before is opened again.
func (s *Server) subscribed(w http.ResponseWriter, snap *snapshot.Snapshot, sub *statusd.Subscriber, first bool) {
	v := messageView{Kind: "resolved", Heading: "You are subscribed",
		Lines: []string{sub.Address + " will receive email updates of " + snap.Doc.Page.Name + " about " + following(snap, sub.ComponentIDs) + ".",
			"Every email has a link to change or stop your subscription."},
		Links: []linkView{{"/", "Back to the status page"}}}
	if first {
		v.Lines[1] = "Every email has a link to change or stop your subscription; this one does too."
		v.Links = append([]linkView{{manageHref(sub.Token), "Change or stop your subscription"}}, v.Links...)
	}
	s.message(w, http.StatusOK, snap, v)
}

// errConfirmed is a confirmation used, or expired, while it was confirmed.
var errConfirmed = errors.New("the confirmation was used or has expired")

func manageHref(token string) string { return "/subscriptions/manage?token=" + url.QueryEscape(token) }

// manageView is the page of one subscription.
type manageView struct {
	base
	Token      string
	Address    string
	State      statusd.SubscriberState
	Components []*htmlkit.Node
	Saved      bool
	Error      string
}

// ManageForm shows a subscription with its components and the Save and
// Unsubscribe buttons, GET /subscriptions/manage?token=T.
func (s *Server) ManageForm(w http.ResponseWriter, r *http.Request, snap *snapshot.Snapshot, now time.Time) error {
	token := r.URL.Query().Get("token")
	sub, err := s.subscriber(w, r, snap, token, false, now, "subscription")
	if sub == nil {
		return err
	}
	s.manage(w, http.StatusOK, snap, manageView{Token: token}, sub)
	return nil
}

// manage renders the page of sub with v's token, message and error.
func (s *Server) manage(w http.ResponseWriter, status int, snap *snapshot.Snapshot, v manageView, sub *statusd.Subscriber) {
	v.base = s.formBase(snap, "Your subscription")
	v.Address, v.State = sub.Address, sub.State
	v.Components = checkTree(snap, sub.ComponentIDs)
	s.render(w, status, "manage", v)
}

// Manage changes a subscription, POST /subscriptions/manage (form token,
// component_ids repeated, action save or unsubscribe). Wrong components
// show the page again, 422, and change nothing.
func (s *Server) Manage(w http.ResponseWriter, r *http.Request, snap *snapshot.Snapshot, now time.Time) error {
	if err := readForm(w, r); err != nil {
		return err
	}
	token := r.PostForm.Get("token")
	sub, err := s.subscriber(w, r, snap, token, false, now, "subscription")
	if sub == nil {
		return err
	}
	switch action := r.PostForm.Get("action"); action {
	case "unsubscribe":
		return s.unsubscribe(w, r, snap, sub)
	case "save", "": // "": Enter in a browser that sends no button
		ids, err := componentIDs(snap, r.PostForm["component_ids"])
		if err != nil {
			s.manage(w, http.StatusUnprocessableEntity, snap, manageView{Token: token, Error: statusd.ErrorMessage(err)}, sub)
			return nil
		}
		sub, err = s.subs.Change(r.Context(), sub.ID, func(c *statusd.Subscriber) error {
			c.ComponentIDs = ids
			return nil
		}, nil)
		if err != nil {
			return err
		}
		s.manage(w, http.StatusOK, snap, manageView{Token: token, Saved: true}, sub)
		return nil
	default:
		return statusd.Errorf(statusd.EInvalidParameter, "The action %q is neither save nor unsubscribe; nothing was changed.", action)
	}
}

// UnsubscribeForm shows the Unsubscribe button, GET
// /subscriptions/unsubscribe?token=T; it changes nothing.
func (s *Server) UnsubscribeForm(w http.ResponseWriter, r *http.Request, snap *snapshot.Snapshot, now time.Time) error {
	token := r.URL.Query().Get("token")
	sub, err := s.subscriber(w, r, snap, token, false, now, "unsubscribe")
	if sub == nil {
		return err
	}
	s.message(w, http.StatusOK, snap, messageView{Kind: "info",
		Heading: "Unsubscribe",
		Lines:   []string{"Stop sending email updates of " + snap.Doc.Page.Name + " to " + sub.Address + "?"},
		// The URL of the List-Unsubscribe header, with the body of an
		// RFC 8058 one-click POST.
		Form:  &buttonForm{Action: r.URL.Path + "?token=" + url.QueryEscape(token), Fields: []hiddenField{{"List-Unsubscribe", "One-Click"}}, Button: "Unsubscribe"},
		Links: []linkView{{manageHref(token), "Change your subscription instead"}, {"/", "Back to the status page"}}})
	return nil
}

// Unsubscribe ends a subscription, POST /subscriptions/unsubscribe?token=T:
// the RFC 8058 one-click unsubscription that mail providers send (body
// List-Unsubscribe=One-Click, which is not required), and the button of
// UnsubscribeForm. It answers 200 with a page that says so, again for a
// subscription already ended.
func (s *Server) Unsubscribe(w http.ResponseWriter, r *http.Request, snap *snapshot.Snapshot, now time.Time) error {
	sub, err := s.subscriber(w, r, snap, r.URL.Query().Get("token"), false, now, "unsubscribe")
	if sub == nil {
		return err
	}
	return s.unsubscribe(w, r, snap, sub)
}

// unsubscribe ends sub's subscription, and any confirmation it waits for.
func (s *Server) unsubscribe(w http.ResponseWriter, r *http.Request, snap *snapshot.Snapshot, sub *statusd.Subscriber) error {
	sub, err := s.subs.Change(r.Context(), sub.ID, func(c *statusd.Subscriber) error {
		c.State, c.ConfirmToken, c.ConfirmExpiresAt = statusd.SubscriberUnsubscribed, "", nil
		return nil
	}, nil)
	if err != nil {
		return err
	}
	s.message(w, http.StatusOK, snap, messageView{Kind: "resolved",
		Heading: "You are unsubscribed",
		Lines:   []string{sub.Address + " no longer receives email updates of " + snap.Doc.Page.Name + "."},
		Links:   []linkView{{"/subscribe", "Changed your mind? Subscribe again"}, {"/", "Back to the status page"}}})
	return nil
}

// Private adapts a Handler for the subscription pages: a snapshot to
// answer from, nothing cached, and every answer, an error page's too,
// Cache-Control: no-store and Referrer-Policy: no-referrer, so that no
// token is kept or sent on.
func (s *Server) Private(h Handler) route.Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		htmlkit.Private(w)
		snap := s.snaps.Current()
		if snap == nil {
			return errNoPage
		}
		return h(w, r, snap, s.now())
	}
}

// SameOrigin refuses a cross-site POST (htmlkit.SameOrigin) with a 403
// page and changes nothing: for the forms that only statusd's own pages
// send.
func (s *Server) SameOrigin(h Handler) Handler {
	return func(w http.ResponseWriter, r *http.Request, snap *snapshot.Snapshot, now time.Time) error {
		if err := s.origin.Check(r); err != nil {
			return err
		}
		return h(w, r, snap, now)
	}
}
