package server_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/internal/testenv"
	"github.com/statusd/statusd/internal/testserver"
)

// Email subscription, black-box (CONTRACT C7): the real server with
// --smtp-url on webStateDoc's page (1 Website <- 2 Checkout; 3 Email),
// and its subscriber store opened beside it, to see what a request
// stored and to read the tokens that the emails would carry.

// subSite is a server with email subscription on, its store, and the
// SMTP server its emails go to.
type subSite struct {
	*testserver.Server
	subs statusd.SubscriberStore
	smtp *testenv.SMTPServer
}

// startSubscriptions serves webStateDoc with email subscription on, its
// emails sent to a real SMTP server started for the test.
func startSubscriptions(t *testing.T, o options) *subSite {
	t.Helper()
	o.smtp = testenv.StartSMTP(t, testenv.SMTPOptions{})
	srv := startServer(t, webStateDoc(time.Now().UTC(), "operational"), o)
	return &subSite{Server: srv, subs: testserver.OpenStore(t, srv.DB).Subscribers(), smtp: o.smtp}
}

// In is the site seen from t, a step of the test that started it.
func (s *subSite) In(t *testing.T) *subSite {
	return &subSite{Server: s.Server.In(t), subs: s.subs, smtp: s.smtp}
}

// post sends a form to path with the extra headers, as name, value pairs.
func (s *subSite) post(path string, form url.Values, header ...string) testserver.Response {
	s.T().Helper()
	return testserver.Fetch(s.T(), http.MethodPost, s.URL+path, form.Encode(),
		append([]string{"Content-Type", "application/x-www-form-urlencoded"}, header...)...)
}

// subscriber is the email subscriber of address, or nil.
func (s *subSite) subscriber(address string) *statusd.Subscriber {
	s.T().Helper()
	list, _, err := s.subs.List(context.Background(), statusd.SubscriberFilter{Channel: statusd.Email}, 1, 1000)
	if err != nil {
		s.T().Fatal(err)
	}
	for _, sub := range list {
		if sub.Address == address {
			return &sub
		}
	}
	return nil
}

// state is everything the subscription pages may change, in words: every
// subscriber, and every delivery (events are expanded into deliveries
// first, so that a stored event shows).
func (s *subSite) state() string {
	s.T().Helper()
	ctx := context.Background()
	if _, err := s.subs.Expand(ctx, time.Now(), 1000); err != nil {
		s.T().Fatal(err)
	}
	list, _, err := s.subs.List(ctx, statusd.SubscriberFilter{}, 1, 1000)
	if err != nil {
		s.T().Fatal(err)
	}
	var b strings.Builder
	for _, sub := range list {
		fmt.Fprintf(&b, "%d %s %s %v token %s confirm %s %v\n", sub.ID, sub.Address, sub.State, sub.ComponentIDs,
			sub.Token, sub.ConfirmToken, sub.ConfirmExpiresAt)
	}
	_, n, err := s.subs.Deliveries(ctx, statusd.DeliveryFilter{}, 1, 1)
	if err != nil {
		s.T().Fatal(err)
	}
	fmt.Fprintf(&b, "%d deliveries\n", n)
	return b.String()
}

// confirmations are the SubscriptionConfirm deliveries of a subscriber.
func (s *subSite) confirmations(id int64) int {
	s.T().Helper()
	ctx := context.Background()
	if _, err := s.subs.Expand(ctx, time.Now(), 1000); err != nil {
		s.T().Fatal(err)
	}
	list, _, err := s.subs.Deliveries(ctx, statusd.DeliveryFilter{SubscriberID: id}, 1, 100)
	if err != nil {
		s.T().Fatal(err)
	}
	n := 0
	for _, d := range list {
		if d.Event.Kind == statusd.SubscriptionConfirm && d.Event.SubscriberID == id {
			n++
		}
	}
	return n
}

// subPage checks an answer of the subscription pages: the status, an HTML
// page well formed with the security headers, and, for a page that
// carries a token or answers a POST (private), Cache-Control: no-store and
// Referrer-Policy: no-referrer.
func subPage(t *testing.T, what string, r testserver.Response, status int, private bool) webPage {
	t.Helper()
	p := webParse(t, what, r, status)
	if private && (r.Header.Get("Cache-Control") != "no-store" || r.Header.Get("Referrer-Policy") != "no-referrer") {
		t.Errorf("%s: Cache-Control %q, Referrer-Policy %q; want no-store, no-referrer", what,
			r.Header.Get("Cache-Control"), r.Header.Get("Referrer-Policy"))
	}
	return p
}

// subSees fails unless the page's main text has every one of want.
func subSees(t *testing.T, p webPage, want ...string) {
	t.Helper()
	text := webText(webByID(t, p, "main"))
	for _, w := range want {
		if !strings.Contains(text, w) {
			t.Errorf("%s: the reader does not see %q in:\n%s", p.Path, w, text)
		}
	}
}

// subChecked are the component ids checked in a page's checkbox tree.
func subChecked(p webPage) []string {
	var out []string
	webWalk(p.Doc, func(n *html.Node) {
		if n.Data == "input" && webAttr(n, "name") == "component_ids" && slices.ContainsFunc(n.Attr, func(a html.Attribute) bool { return a.Key == "checked" }) {
			out = append(out, webAttr(n, "value"))
		}
	})
	return out
}

// subForm is the form of a page posting to action, with its hidden fields.
func subForm(t *testing.T, p webPage, action string) url.Values {
	t.Helper()
	var form *html.Node
	webWalk(p.Doc, func(n *html.Node) {
		if form == nil && n.Data == "form" && webAttr(n, "action") == action && webAttr(n, "method") == "post" {
			form = n
		}
	})
	if form == nil {
		t.Fatalf("%s: no form POSTing to %s", p.Path, action)
	}
	hidden := url.Values{}
	webWalk(form, func(n *html.Node) {
		if n.Data == "input" && webAttr(n, "type") == "hidden" {
			hidden.Add(webAttr(n, "name"), webAttr(n, "value"))
		}
	})
	return hidden
}

// TestSubscribeFlow plays CONTRACT C7 item 1 over HTTP: subscribe, the
// confirmation stored, the confirm page that changes nothing, the POST
// that confirms, the manage page that changes the components, and the
// one-click unsubscription a mail provider sends.
func TestSubscribeFlow(t *testing.T) {
	site := startSubscriptions(t, options{debug: true})
	var confirmToken, manageToken string
	const addr = "ann@example.com"

	testserver.Step(t, "every HTML page links to /subscribe, error pages too; /subscribe takes GET, HEAD and POST", func(t *testing.T) {
		s := site.In(t)
		for _, path := range []string{"/", "/history", "/notices/10", "/components/2/metrics"} {
			if p := webGet(t, s.Server, path, 200); !slices.Contains(webLinks(p.Doc), "/subscribe") {
				t.Errorf("%s does not link to /subscribe", path)
			}
		}
		if p := webGet(t, s.Server, "/no/such/page", 404); !slices.Contains(webLinks(p.Doc), "/subscribe") {
			t.Error("the 404 page does not link to /subscribe")
		}
		if r := s.Do("PUT", "/subscribe"); r.Status != 405 || r.Header.Get("Allow") != "GET, HEAD, POST" {
			t.Errorf("PUT /subscribe: %d, Allow %q; want 405, GET, HEAD, POST", r.Status, r.Header.Get("Allow"))
		}
	})

	testserver.Step(t, "the form has the address and the component tree, nested, none checked", func(t *testing.T) {
		form := webGet(t, site.Server, "/subscribe", 200)
		subSees(t, form, "Email address", "Components", "Check none to hear about the whole page", "Website", "Checkout", "Email")
		subForm(t, form, "/subscribe")
		// Checkout (2) is in Website's (1) item, in a fieldset.
		var nested bool
		webWalk(webByID(t, form, "cb-1").Parent, func(n *html.Node) {
			nested = nested || (n.Data == "input" && webAttr(n, "id") == "cb-2" && n.Parent.Parent.Parent.Data == "fieldset")
		})
		if !nested || len(subChecked(form)) != 0 {
			t.Errorf("Checkout nested in Website's fieldset: %v; checked %v, want none", nested, subChecked(form))
		}
	})

	testserver.Step(t, "subscribing stores a pending subscriber, confirmable for 48 hours, and its confirmation email", func(t *testing.T) {
		s := site.In(t)
		before := time.Now()
		r := s.post("/subscribe", url.Values{"email": {addr}, "component_ids": {"2"}})
		after := time.Now()
		subSees(t, subPage(t, "POST /subscribe", r, 200, true), "Check your inbox", "48 hours")
		sub := s.subscriber(addr)
		if sub == nil || sub.State != statusd.SubscriberPending || !slices.Equal(sub.ComponentIDs, []int64{2}) || sub.ConfirmToken == "" ||
			sub.ConfirmExpiresAt == nil || sub.ConfirmExpiresAt.Before(before.Add(48*time.Hour-time.Millisecond)) ||
			sub.ConfirmExpiresAt.After(after.Add(48*time.Hour)) {
			t.Fatalf("after POST /subscribe: %+v; want pending on [2], confirmable for 48 h", sub)
		}
		if n := s.confirmations(sub.ID); n != 1 {
			t.Errorf("%d confirmation deliveries, want 1", n)
		}
		// The worker sends it: it arrives, to addr, with the link.
		msgs := s.smtp.WaitMessages(t, 1)
		if len(msgs) != 1 || !slices.Equal(msgs[0].To, []string{addr}) ||
			!strings.Contains(testenv.ParseEmail(t, msgs[0].Data).Text, "/subscriptions/confirm?token="+sub.ConfirmToken) {
			t.Errorf("emails after POST /subscribe: %d, want one to %s with its confirm link", len(msgs), addr)
		}
		confirmToken, manageToken = sub.ConfirmToken, sub.Token
	})

	testserver.Step(t, "the link of the email shows a Confirm button and changes nothing", func(t *testing.T) {
		s := site.In(t)
		stored := s.state()
		p := subPage(t, "GET confirm", s.Do("GET", "/subscriptions/confirm?token="+confirmToken), 200, true)
		subSees(t, p, "Confirm your subscription", addr, "Checkout")
		if f := subForm(t, p, "/subscriptions/confirm"); f.Get("token") != confirmToken {
			t.Errorf("the confirm form carries token %q, want the link's", f.Get("token"))
		}
		if s.state() != stored {
			t.Errorf("GET confirm changed the store:\n%s\nwas\n%s", s.state(), stored)
		}
	})

	testserver.Step(t, "the button confirms: active, the manage link shown; the link used again says so", func(t *testing.T) {
		s := site.In(t)
		p := subPage(t, "POST confirm", s.post("/subscriptions/confirm", url.Values{"token": {confirmToken}}), 200, true)
		subSees(t, p, "You are subscribed", addr, "Checkout")
		if !slices.Contains(webLinks(p.Doc), "/subscriptions/manage?token="+manageToken) {
			t.Errorf("the confirmed page does not link to the manage page: %v", webLinks(p.Doc))
		}
		sub := s.subscriber(addr)
		if sub.State != statusd.SubscriberActive || sub.ConfirmToken != confirmToken || !slices.Equal(sub.ComponentIDs, []int64{2}) {
			t.Errorf("after POST confirm: %+v; want active on [2], the confirmation kept until it expires", sub)
		}
		stored := s.state()
		p = subPage(t, "POST confirm again", s.post("/subscriptions/confirm", url.Values{"token": {confirmToken}}), 200, true)
		subSees(t, p, "You are subscribed", addr)
		p = subPage(t, "GET confirm again", s.Do("GET", "/subscriptions/confirm?token="+confirmToken), 200, true)
		subSees(t, p, "You are subscribed", addr)
		if slices.Contains(webLinks(p.Doc), "/subscriptions/manage?token="+manageToken) {
			t.Errorf("a used confirmation link shows the manage link again")
		}
		if s.state() != stored {
			t.Errorf("a used confirmation changed the store")
		}
	})

	manage := func() string { return "/subscriptions/manage?token=" + manageToken }
	testserver.Step(t, "the manage page shows the components as they are, and saves others", func(t *testing.T) {
		s := site.In(t)
		stored := s.state()
		p := subPage(t, "GET manage", s.Do("GET", manage()), 200, true)
		subSees(t, p, "Your subscription", addr, "Subscribed")
		if got := subChecked(p); !slices.Equal(got, []string{"2"}) {
			t.Errorf("manage page: checked %v, want [2]", got)
		}
		if s.state() != stored {
			t.Errorf("GET manage changed the store")
		}
		// Website and Email, Email twice: stored once each, in id order.
		p = subPage(t, "POST manage", s.post("/subscriptions/manage", url.Values{"token": {manageToken},
			"component_ids": {"3", "1", "3"}, "action": {"save"}}), 200, true)
		subSees(t, p, "Your changes are saved")
		if got := subChecked(p); !slices.Equal(got, []string{"1", "3"}) {
			t.Errorf("after saving 1 and 3: checked %v", got)
		}
		if sub := s.subscriber(addr); sub.State != statusd.SubscriberActive || !slices.Equal(sub.ComponentIDs, []int64{1, 3}) {
			t.Errorf("after saving 1 and 3: %+v", sub)
		}
	})

	testserver.Step(t, "a component not on the page is 422 and changes nothing; none checked is the whole page", func(t *testing.T) {
		s := site.In(t)
		stored := s.state()
		p := subPage(t, "POST manage, component 99", s.post("/subscriptions/manage", url.Values{"token": {manageToken},
			"component_ids": {"2", "99"}, "action": {"save"}}), 422, true)
		subSees(t, p, `"99" is not a component of this page`)
		if s.state() != stored {
			t.Errorf("a refused save changed the store")
		}
		subPage(t, "POST manage, none", s.post("/subscriptions/manage", url.Values{"token": {manageToken}, "action": {"save"}}), 200, true)
		if sub := s.subscriber(addr); len(sub.ComponentIDs) != 0 {
			t.Errorf("after saving none: %v, want the whole page", sub.ComponentIDs)
		}
	})

	testserver.Step(t, "the unsubscribe link shows a button that POSTs to itself, and changes nothing", func(t *testing.T) {
		s := site.In(t)
		unsubscribe := "/subscriptions/unsubscribe?token=" + manageToken
		stored := s.state()
		p := subPage(t, "GET unsubscribe", s.Do("GET", unsubscribe), 200, true)
		subSees(t, p, "Unsubscribe", addr)
		if f := subForm(t, p, unsubscribe); f.Get("List-Unsubscribe") != "One-Click" {
			t.Errorf("the unsubscribe form sends %v, want List-Unsubscribe=One-Click", f)
		}
		if s.state() != stored {
			t.Errorf("GET unsubscribe changed the store")
		}
	})

	testserver.Step(t, "RFC 8058: the mail provider's POST, cross-site and without cookies, unsubscribes and answers 200, twice", func(t *testing.T) {
		s := site.In(t)
		for range 2 {
			r := testserver.Fetch(t, http.MethodPost, s.URL+"/subscriptions/unsubscribe?token="+manageToken, "List-Unsubscribe=One-Click",
				"Content-Type", "application/x-www-form-urlencoded", "Sec-Fetch-Site", "cross-site", "Origin", "https://mail.example.net")
			subSees(t, subPage(t, "POST unsubscribe", r, 200, true), "You are unsubscribed")
			if sub := s.subscriber(addr); sub.State != statusd.SubscriberUnsubscribed {
				t.Errorf("after the one-click POST: %s, want unsubscribed", sub.State)
			}
		}
		subSees(t, subPage(t, "GET manage, unsubscribed", s.Do("GET", manage()), 200, true), "Unsubscribed", "Subscribe again")
	})

	testserver.Step(t, "no token is in the logs, at debug level either", func(t *testing.T) {
		for _, token := range []string{confirmToken, manageToken} {
			if strings.Contains(site.Logs.String(), token) {
				t.Errorf("a token is in the logs:\n%s", site.Logs)
			}
		}
	})
}

// TestSubscribeSamePage: a new, a pending, an active and a quarantined
// address get the same answer, byte for byte, which names none of them;
// and no address is in the logs.
func TestSubscribeSamePage(t *testing.T) {
	s := startSubscriptions(t, options{})
	ctx := context.Background()
	s.post("/subscribe", url.Values{"email": {"pending@example.com"}})
	s.post("/subscribe", url.Values{"email": {"active@example.com"}})
	s.post("/subscriptions/confirm", url.Values{"token": {s.subscriber("active@example.com").ConfirmToken}})
	s.post("/subscribe", url.Values{"email": {"quarantined@example.com"}})
	if _, err := s.subs.Change(ctx, s.subscriber("quarantined@example.com").ID, func(sub *statusd.Subscriber) error {
		sub.State = statusd.SubscriberQuarantined
		return nil
	}, nil); err != nil {
		t.Fatal(err)
	}
	want := map[string]statusd.SubscriberState{"new@example.com": statusd.SubscriberPending, "pending@example.com": statusd.SubscriberPending,
		"active@example.com": statusd.SubscriberActive, "quarantined@example.com": statusd.SubscriberQuarantined}
	var first testserver.Response
	for i, addr := range []string{"new@example.com", "pending@example.com", "active@example.com", "quarantined@example.com"} {
		r := s.post("/subscribe", url.Values{"email": {addr}, "component_ids": {"3"}})
		subPage(t, "POST /subscribe "+addr, r, 200, true)
		if strings.Contains(string(r.Body), addr) {
			t.Errorf("the answer for %s names it", addr)
		}
		if i == 0 {
			first = r
		} else if r.Status != first.Status || string(r.Body) != string(first.Body) {
			t.Errorf("the answer for %s differs from a new address's:\n%s\n%s", addr, r.Body, first.Body)
		}
		if sub := s.subscriber(addr); sub == nil || sub.State != want[addr] {
			t.Errorf("%s: %+v, want %s", addr, sub, want[addr])
		}
	}
	for addr := range want {
		if strings.Contains(s.Logs.String(), addr) {
			t.Errorf("%s is in the logs:\n%s", addr, s.Logs)
		}
	}
}

// TestSubscribeInvalid: a form with a wrong address or component is shown
// again, 422, saying what to correct and keeping what was right; a form
// too large is 413; none of them changes anything.
func TestSubscribeInvalid(t *testing.T) {
	s := startSubscriptions(t, options{})
	stored := s.state()
	for _, c := range []struct {
		name    string
		form    url.Values
		status  int
		message string
		checked []string // the boxes still checked
	}{
		{"no address", url.Values{"component_ids": {"2"}}, 422, "Enter your email address.", []string{"2"}},
		{"blank address", url.Values{"email": {"   "}}, 422, "Enter your email address.", nil},
		{"not an address", url.Values{"email": {"ann"}, "component_ids": {"2", "3"}}, 422, `"ann" is not an email address`, []string{"2", "3"}},
		{"display name", url.Values{"email": {"Ann <ann@example.com>"}}, 422, "is not an email address", nil},
		{"two addresses", url.Values{"email": {"a@example.com, b@example.com"}}, 422, "is not an email address", nil},
		{"no domain", url.Values{"email": {"ann@"}}, 422, `"ann@" is not an email address`, nil},
		{"unknown component", url.Values{"email": {"ann@example.com"}, "component_ids": {"2", "99"}}, 422,
			`"99" is not a component of this page`, []string{"2"}},
		{"component not a number", url.Values{"email": {"ann@example.com"}, "component_ids": {"x"}}, 422, `"x" is not a component`, nil},
		{"component 0", url.Values{"email": {"ann@example.com"}, "component_ids": {"0"}}, 422, `"0" is not a component`, nil},
		{"component -1", url.Values{"email": {"ann@example.com"}, "component_ids": {"-1"}}, 422, `"-1" is not a component`, nil},
		{"too large", url.Values{"email": {"ann@example.com"}, "pad": {strings.Repeat("x", 70<<10)}}, 413, "larger than 64 KiB", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := s.In(t)
			p := subPage(t, "POST /subscribe", s.post("/subscribe", c.form), c.status, true)
			subSees(t, p, c.message)
			if c.status != 422 {
				return
			}
			if webAttr(webByID(t, p, "email"), "value") != strings.TrimSpace(c.form.Get("email")) {
				t.Errorf("the address typed is not kept: %q", webAttr(webByID(t, p, "email"), "value"))
			}
			if got := subChecked(p); !slices.Equal(got, c.checked) {
				t.Errorf("checked %v, want %v", got, c.checked)
			}
			if got := s.state(); got != stored {
				t.Errorf("the store changed:\n%s\nwas\n%s", got, stored)
			}
		})
	}
	if got := s.state(); got != stored {
		t.Errorf("the store changed:\n%s\nwas\n%s", got, stored)
	}
}

// TestSubscribeLimits: at most 5 requests per address (in any case) and
// 20 per client an hour, then a 429 page that changes nothing; and the §8
// limit, which subscribing costs while reading pages does not.
func TestSubscribeLimits(t *testing.T) {
	s := startSubscriptions(t, options{})
	for i := 1; i <= 5; i++ {
		subPage(t, "POST /subscribe "+strconv.Itoa(i), s.post("/subscribe", url.Values{"email": {"five@example.com"}}), 200, true)
	}
	id := s.subscriber("five@example.com").ID
	stored := s.state()
	for _, addr := range []string{"five@example.com", "FIVE@Example.COM"} {
		r := s.post("/subscribe", url.Values{"email": {addr}})
		subSees(t, subPage(t, "POST /subscribe "+addr+", the sixth", r, 429, true), "Too many subscription requests", "at most 5 for an address")
		if secs, err := strconv.Atoi(r.Header.Get("Retry-After")); err != nil || secs < 3590 || secs > 3600 {
			t.Errorf("Retry-After %q, want about an hour", r.Header.Get("Retry-After"))
		}
	}
	if s.state() != stored || s.confirmations(id) != 5 {
		t.Errorf("the refusals changed the store, or %d confirmations were sent, want 5", s.confirmations(id))
	}
	// The client made 5 requests that counted; 15 more to other addresses
	// pass, the 21st does not.
	for i := 6; i <= 20; i++ {
		subPage(t, "POST /subscribe, request "+strconv.Itoa(i), s.post("/subscribe", url.Values{"email": {fmt.Sprintf("n%d@example.com", i)}}), 200, true)
	}
	stored = s.state()
	p := subPage(t, "POST /subscribe, the 21st", s.post("/subscribe", url.Values{"email": {"n21@example.com"}}), 429, true)
	subSees(t, p, "20 from a network")
	if s.state() != stored || s.subscriber("n21@example.com") != nil {
		t.Error("the 21st request changed the store")
	}

	// §8 (--rate-limit 1: one request a second, a bucket of 1): a second
	// subscription request at once is refused; pages are not counted.
	s8 := startSubscriptions(t, options{rateLimit: 1})
	for range 3 {
		webGet(t, s8.Server, "/subscribe", 200)
	}
	r := s8.post("/subscribe", url.Values{"email": {"ann@example.com"}})
	subPage(t, "POST /subscribe", r, 200, true)
	if r.Header.Get("RateLimit-Limit") != "1" || r.Header.Get("RateLimit-Remaining") != "0" {
		t.Errorf("RateLimit-Limit %q, RateLimit-Remaining %q; want 1, 0", r.Header.Get("RateLimit-Limit"), r.Header.Get("RateLimit-Remaining"))
	}
	stored = s8.state()
	r = s8.post("/subscribe", url.Values{"email": {"bob@example.com"}})
	subPage(t, "POST /subscribe at once", r, 429, true)
	if r.Header.Get("Retry-After") != "1" || s8.state() != stored {
		t.Errorf("Retry-After %q, want 1; the store changed: %v", r.Header.Get("Retry-After"), s8.state() != stored)
	}
}

// TestSubscribeLinks: an expired, used or unknown token answers a page
// that says so, 404, with a link to subscribe again, and changes nothing.
func TestSubscribeLinks(t *testing.T) {
	s := startSubscriptions(t, options{})
	s.post("/subscribe", url.Values{"email": {"late@example.com"}})
	sub := s.expire("late@example.com")
	stored := s.state()
	for _, c := range []struct {
		name string
		do   func() testserver.Response
	}{
		{"GET confirm, expired", func() testserver.Response { return s.Do("GET", "/subscriptions/confirm?token="+sub.ConfirmToken) }},
		{"POST confirm, expired", func() testserver.Response {
			return s.post("/subscriptions/confirm", url.Values{"token": {sub.ConfirmToken}})
		}},
		{"GET confirm, the manage token", func() testserver.Response { return s.Do("GET", "/subscriptions/confirm?token="+sub.Token) }},
		{"GET confirm, no token", func() testserver.Response { return s.Do("GET", "/subscriptions/confirm") }},
		{"GET manage, unknown", func() testserver.Response { return s.Do("GET", "/subscriptions/manage?token=nope") }},
		{"GET manage, the confirm token", func() testserver.Response { return s.Do("GET", "/subscriptions/manage?token="+sub.ConfirmToken) }},
		{"POST manage, unknown", func() testserver.Response {
			return s.post("/subscriptions/manage", url.Values{"token": {"nope"}, "action": {"unsubscribe"}})
		}},
		{"GET unsubscribe, empty", func() testserver.Response { return s.Do("GET", "/subscriptions/unsubscribe?token=") }},
		{"POST unsubscribe, unknown", func() testserver.Response {
			return s.post("/subscriptions/unsubscribe?token=nope", url.Values{"List-Unsubscribe": {"One-Click"}})
		}},
		{"POST unsubscribe, too long", func() testserver.Response {
			return s.post("/subscriptions/unsubscribe?token="+strings.Repeat("a", 4000), nil)
		}},
	} {
		p := subPage(t, c.name, c.do(), 404, true)
		subSees(t, p, "This link is not valid", "48 hours")
		if !slices.Contains(webLinks(webByID(t, p, "main")), "/subscribe") {
			t.Errorf("%s: no link to subscribe again", c.name)
		}
	}
	if s.state() != stored {
		t.Errorf("the store changed:\n%s\nwas\n%s", s.state(), stored)
	}
	// A wrong action is refused and changes nothing.
	subPage(t, "POST manage, action delete", s.post("/subscriptions/manage", url.Values{"token": {sub.Token}, "action": {"delete"}}), 400, true)
	if s.state() != stored {
		t.Error("a wrong action changed the store")
	}
}

// TestSubscribeCrossOrigin: the forms are refused from another site, 403,
// changing nothing; the same forms from the page itself, or from a
// program (no Origin, no Sec-Fetch-Site), pass.
func TestSubscribeCrossOrigin(t *testing.T) {
	s := startSubscriptions(t, options{})
	s.post("/subscribe", url.Values{"email": {"ann@example.com"}})
	sub := s.subscriber("ann@example.com")
	stored := s.state()
	forms := []struct {
		path string
		form url.Values
	}{
		{"/subscribe", url.Values{"email": {"bob@example.com"}}},
		{"/subscriptions/confirm", url.Values{"token": {sub.ConfirmToken}}},
		{"/subscriptions/manage", url.Values{"token": {sub.Token}, "action": {"unsubscribe"}}},
	}
	for _, f := range forms {
		for _, h := range [][]string{{"Sec-Fetch-Site", "cross-site"}, {"Sec-Fetch-Site", "same-site"}, {"Origin", "https://evil.example"}} {
			p := subPage(t, "POST "+f.path+" with "+h[0]+" "+h[1], s.post(f.path, f.form, h...), 403, true)
			subSees(t, p, "sent from another site")
		}
	}
	if s.state() != stored {
		t.Errorf("cross-site forms changed the store:\n%s\nwas\n%s", s.state(), stored)
	}
	for _, f := range forms {
		subPage(t, "POST "+f.path+" same-origin", s.post(f.path, f.form, "Sec-Fetch-Site", "same-origin", "Origin", s.URL), 200, true)
	}
	if s.subscriber("bob@example.com") == nil || s.subscriber("ann@example.com").State != statusd.SubscriberUnsubscribed {
		t.Error("the same forms from the page did not do their work")
	}
}

// TestSubscriptionsOff: without --smtp-url no page links to /subscribe,
// and the subscription paths are the HTML 404 page.
func TestSubscriptionsOff(t *testing.T) {
	srv := startServer(t, webStateDoc(time.Now().UTC(), "operational"), options{})
	for _, path := range []string{"/", "/history", "/no/such/page"} {
		want := 200
		if path == "/no/such/page" {
			want = 404
		}
		if p := webGet(t, srv, path, want); slices.Contains(webLinks(p.Doc), "/subscribe") {
			t.Errorf("%s links to /subscribe", path)
		}
	}
	for _, c := range []struct{ method, path string }{
		{"GET", "/subscribe"}, {"POST", "/subscribe"}, {"GET", "/subscriptions/confirm?token=x"},
		{"POST", "/subscriptions/manage"}, {"POST", "/subscriptions/unsubscribe?token=x"},
	} {
		p := webParse(t, c.method+" "+c.path, srv.Do(c.method, c.path), 404)
		if !strings.Contains(webText(p.Doc), "Page not found") {
			t.Errorf("%s %s: not the 404 page", c.method, c.path)
		}
	}
}
