package server_test

// Subscribers and the limits of what a write takes, as a new user and an
// attacker meet them: repeated final states, oversized notices, letter
// case of addresses, old confirmation links, control characters.

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/netip"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/internal/testenv"
	"github.com/statusd/statusd/internal/testserver"
)

// TestRepeatedFinalStateNotifiesOnce: resolving a resolved incident (a
// retried script, a double click) is a 409 that posts and sends nothing;
// so is completing a complete maintenance. Words without a state still go.
func TestRepeatedFinalStateNotifiesOnce(t *testing.T) {
	srv := startServer(t, testserver.SubDoc(), options{retryBase: time.Hour})
	tok := newToken(t, srv.DB, "ops")
	adm := srv.Admin(tok)
	st := testserver.OpenStore(t, srv.DB)
	ann := int64(testserver.At(t, srv.AdminOK(http.MethodPost, "/subscribers", tok,
		`{"channel": "email", "address": "ann@example.com", "confirmed": true}`, 201), "id").(float64))
	inc := srv.AdminOK(http.MethodPost, "/notices", tok, `{"type": "unplanned", "subject": "Down", "content": "Looking."}`, 201)
	id := int64(testserver.At(t, inc, "id").(float64))
	updates := func() int { return len(srv.Notice(id).Updates) }
	path := fmt.Sprintf("/notices/%d/updates", id)

	srv.AdminOK(http.MethodPost, path, tok, `{"state": "resolved", "content": "Fixed."}`, 201)
	if got := updates(); got != 2 {
		t.Fatalf("after one resolve: %d updates, want 2", got)
	}
	srv.Refuse(tok, http.MethodPost, path, `{"state": "resolved", "content": "Fixed."}`, http.StatusConflict, "conflict",
		"already resolved", "nothing was posted")
	if got := updates(); got != 2 {
		t.Errorf("after a second resolve: %d updates, want still 2", got)
	}
	// Words alone stay allowed, on an open notice as on a closed one.
	srv.AdminOK(http.MethodPost, path, tok, `{"content": "Postmortem to follow."}`, 201)
	if got := updates(); got != 3 {
		t.Errorf("after words without a state: %d updates, want 3", got)
	}

	// The subscriber hears of the creation, the resolve and the words: not
	// of the refused repeat.
	testserver.SubExpand(t, st)
	n := srv.Notice(id)
	u := func(i int) int64 { return n.Updates[i].ID }
	testserver.AssertJSON(t, "sent for the incident", testserver.SubSent(testserver.SubDeliveries(t, adm, statusd.DeliveryFilter{}), id),
		testserver.SubSorted(testserver.SubLines(statusd.NoticeCreated, u(0), ann), testserver.SubLines(statusd.NoticeUpdated, u(1), ann),
			testserver.SubLines(statusd.NoticeUpdated, u(2), ann)))

	// A maintenance completed twice, likewise.
	m := srv.AdminOK(http.MethodPost, "/notices", tok, `{"type": "planned", "subject": "Upgrade", "content": "Soon.",
		"begins_at": "2030-01-01T00:00:00Z", "ends_at": "2030-01-01T01:00:00Z", "notify": false}`, 201)
	mpath := fmt.Sprintf("/notices/%d/updates", int64(testserver.At(t, m, "id").(float64)))
	srv.AdminOK(http.MethodPost, mpath, tok, `{"state": "underway", "content": "Now.", "notify": false}`, 201)
	srv.AdminOK(http.MethodPost, mpath, tok, `{"state": "complete", "content": "Done.", "notify": false}`, 201)
	srv.Refuse(tok, http.MethodPost, mpath, `{"state": "complete", "content": "Done."}`, http.StatusConflict, "conflict", "already complete")
}

// TestNoticeTextLimits: every write that takes a subject or a content
// refuses one over 255 or 20,000 characters with 422 invalid_field naming
// the field, names every problem of a body, and writes nothing; the
// limits count characters, not bytes.
func TestNoticeTextLimits(t *testing.T) {
	srv := startServer(t, testserver.SubDoc(), options{})
	tok := newToken(t, srv.DB, "ops")
	long := func(n int) string { return strings.Repeat("x", n) }
	body := func(kv ...string) string {
		m := map[string]string{}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		b, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	// At the limits, in characters of two and three bytes: accepted.
	inc := srv.AdminOK(http.MethodPost, "/notices", tok,
		body("type", "unplanned", "subject", strings.Repeat("é", 255), "content", strings.Repeat("€", 20_000)), 201)
	id := int64(testserver.At(t, inc, "id").(float64))
	notice := fmt.Sprintf("/notices/%d", id)

	srv.Refuse(tok, http.MethodPost, "/notices", body("type", "unplanned", "subject", long(256), "content", long(20_001)),
		422, "invalid_field", "subject: must be at most 255 characters, not 256", "content: must be at most 20000 characters, not 20001")
	srv.Refuse(tok, http.MethodPatch, notice, body("subject", long(256)), 422, "invalid_field", "subject: must be at most 255 characters")
	srv.Refuse(tok, http.MethodPost, notice+"/updates", body("content", long(500_000)), 422, "invalid_field",
		"content: must be at most 20000 characters, not 500000")
	srv.AdminOK(http.MethodPost, notice+"/updates", tok, body("state", "resolved", "content", "Fixed."), 201)
	srv.Refuse(tok, http.MethodPost, notice+"/reopen", body("content", long(20_001)), 422, "invalid_field",
		"content: must be at most 20000 characters")
}

// expire makes the confirmation of address expired, as 49 hours after it
// was mailed, and returns its subscriber.
func (s *subSite) expire(address string) *statusd.Subscriber {
	s.T().Helper()
	sub := s.subscriber(address)
	past := time.Now().Add(-time.Hour)
	if _, err := s.subs.Change(context.Background(), sub.ID, func(c *statusd.Subscriber) error {
		c.ConfirmExpiresAt = &past
		return nil
	}, nil); err != nil {
		s.T().Fatal(err)
	}
	return sub
}

// TestPeopleSubscribe: an address is one subscriber whatever its letter
// case; asking again while pending mails a link, and the link mailed
// before keeps working until one is used; a used link, opened again, says
// the address is subscribed; an expired one does not work; addresses with
// invisible characters are refused by the form, the admin API and the
// import document alike.
func TestPeopleSubscribe(t *testing.T) {
	s := startSubscriptions(t, options{})
	link := regexp.MustCompile(`/subscriptions/confirm\?token=[A-Za-z0-9_%-]+`)
	links := func(n int) []string {
		t.Helper()
		var out []string
		for _, m := range s.smtp.WaitMessages(t, n) {
			out = append(out, link.FindString(testenv.ParseEmail(t, m.Data).Text))
		}
		return out
	}

	s.post("/subscribe", url.Values{"email": {"Ann@Example.com"}})
	first := links(1)[0]
	s.post("/subscribe", url.Values{"email": {"aNN@example.COM"}, "component_ids": {"2"}})
	second := links(2)[1]
	list, total, err := s.subs.List(context.Background(), statusd.SubscriberFilter{}, 1, 10)
	if err != nil || total != 1 || list[0].Address != "Ann@example.com" || !slices.Equal(list[0].ComponentIDs, []int64{2}) {
		t.Fatalf("after two requests in two cases: %d subscribers %+v (%v), want one, Ann@example.com on [2]", total, list, err)
	}
	if first == "" || second == "" {
		t.Fatalf("links mailed %q and %q", first, second)
	}
	// The first email's link, after the second was sent, confirms.
	token := strings.TrimPrefix(first, "/subscriptions/confirm?token=")
	subSees(t, subPage(t, "GET the first link", s.Do("GET", first), 200, true), "Confirm your subscription")
	p := subPage(t, "POST the first link", s.post("/subscriptions/confirm", url.Values{"token": {token}}), 200, true)
	subSees(t, p, "You are subscribed", "Ann@example.com")
	if sub := s.subscriber("Ann@example.com"); sub.State != statusd.SubscriberActive {
		t.Errorf("after confirming: %s, want active", sub.State)
	}
	// The second link, opened after the first was used.
	subSees(t, subPage(t, "GET the second link", s.Do("GET", second), 200, true), "You are subscribed", "Ann@example.com")
	// Quarantined since, the address is not told it is subscribed.
	if _, err := s.subs.Change(context.Background(), s.subscriber("Ann@example.com").ID, func(c *statusd.Subscriber) error {
		c.State = statusd.SubscriberQuarantined
		return nil
	}, nil); err != nil {
		t.Fatal(err)
	}
	subSees(t, subPage(t, "GET the link of a quarantined address", s.Do("GET", second), 404, true), "This link is not valid")

	// An expired link does not work; asking again mails a new one.
	s.post("/subscribe", url.Values{"email": {"late@example.com"}})
	old := links(3)[2]
	s.expire("late@example.com")
	subSees(t, subPage(t, "GET an expired link", s.Do("GET", old), 404, true), "This link is not valid")
	s.post("/subscribe", url.Values{"email": {"late@example.com"}})
	if fresh := links(4)[3]; fresh == old {
		t.Errorf("after the link expired, the new email carries the same link")
	} else {
		subSees(t, subPage(t, "GET the new link", s.Do("GET", fresh), 200, true), "Confirm your subscription")
	}

	// Invisible characters: a right-to-left override, a zero-width mark, a
	// C1 control.
	stored := s.state()
	for _, addr := range []string{"ann\u202e@example.com", "bob@exam\u200fple.com", "eve\u0085@example.com"} {
		r := s.post("/subscribe", url.Values{"email": {addr}})
		subSees(t, subPage(t, fmt.Sprintf("POST /subscribe %q", addr), r, 422, true), "is not an email address")
	}
	if s.state() != stored {
		t.Errorf("a refused address changed the store")
	}
	tok := newToken(t, s.DB, "ops")
	for _, body := range []string{
		`{"channel": "email", "address": "ann\u202e@example.com", "confirmed": true}`,
		`{"channel": "webhook", "address": "https://hooks.example.com/\u202egpj.exe"}`,
		`{"channel": "slack", "address": "https://hooks.slack.com/services/T0/\u2066B0/x"}`,
		`{"channel": "discord", "address": "https://discord.com/api/webhooks/1/a\u0085b"}`,
	} {
		subRefuse(t, s.Server, tok, http.MethodPost, "/subscribers", body, 422, "invalid_field", "address", "invisible character")
	}
}

// TestSubscriptionLinksBadBytesPostgres: a subscription link whose token
// holds NUL or bytes that are not UTF-8 names no subscriber: 404, as any
// unknown link, on PostgreSQL too (which refuses such text outright).
func TestSubscriptionLinksBadBytesPostgres(t *testing.T) {
	s := startSubscriptions(t, options{db: testenv.Postgres(t)})
	s.post("/subscribe", url.Values{"email": {"ann@example.com"}})
	stored := s.state()
	for _, token := range []string{"%00", "abc%00def", "%FF", "%C3%28", "%ED%A0%80"} {
		for _, c := range []struct {
			method, path string
			form         url.Values
		}{
			{http.MethodGet, "/subscriptions/confirm?token=" + token, nil},
			{http.MethodGet, "/subscriptions/manage?token=" + token, nil},
			{http.MethodGet, "/subscriptions/unsubscribe?token=" + token, nil},
			{http.MethodPost, "/subscriptions/unsubscribe?token=" + token, url.Values{"List-Unsubscribe": {"One-Click"}}},
		} {
			var r testserver.Response
			if c.method == http.MethodGet {
				r = s.Do(c.method, c.path)
			} else {
				r = s.post(c.path, c.form)
			}
			subSees(t, subPage(t, c.method+" "+c.path, r, 404, true), "This link is not valid")
		}
		raw, err := url.QueryUnescape(token)
		if err != nil {
			t.Fatal(err)
		}
		r := s.post("/subscriptions/confirm", url.Values{"token": {raw}})
		subSees(t, subPage(t, "POST confirm "+token, r, 404, true), "This link is not valid")
	}
	if s.state() != stored {
		t.Error("a bad link changed the store")
	}
}

// TestSubscribeCountersHold: 20,020 requests from 1,001 IPv6 /64s, each
// for an address of its own, do not make the limits forget the victim's
// address: after its 5 requests, its next ones from new networks are
// refused, and it got 5 confirmations, not more. The page sends at most
// --confirmations-per-hour (500 by default) emails an hour: requests past
// it see the same page, store and send nothing, and are logged.
func TestSubscribeCountersHold(t *testing.T) {
	if testing.Short() {
		t.Skip("20,020 requests: a long scenario, run without -short")
	}
	s := startSubscriptions(t, options{trusted: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}})
	from := func(i int) []string {
		return []string{"X-Forwarded-For", fmt.Sprintf("2001:db8:%x:%x::1", i>>16, i&0xffff)}
	}
	const victim = "victim@example.com"
	for range 5 {
		subPage(t, "POST /subscribe for the victim", s.post("/subscribe", url.Values{"email": {victim}}, from(0)...), 200, true)
	}
	// The flood, 8 at a time.
	var wg sync.WaitGroup
	jobs := make(chan int)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				net := 1 + i/20
				form := url.Values{"email": {fmt.Sprintf("flood%d@example.com", i)}}
				r, err := testserver.Send(http.MethodPost, s.URL+"/subscribe", form.Encode(),
					append([]string{"Content-Type", "application/x-www-form-urlencoded"}, from(net)...)...)
				if err != nil || r.Status != 200 {
					t.Errorf("flood request %d: %v %d, want 200", i, err, r.Status)
				}
			}
		}()
	}
	for i := range 20_020 {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	for i := range 5 {
		r := s.post("/subscribe", url.Values{"email": {victim}}, from(2000+i)...)
		subSees(t, subPage(t, "POST /subscribe for the victim after the flood", r, 429, true), "at most 5 for an address")
	}
	if n := s.confirmations(s.subscriber(victim).ID); n != 5 {
		t.Errorf("the victim got %d confirmations, want 5", n)
	}
	// 5 for the victim, 495 of the flood: the rest sent nothing.
	if _, total, err := s.subs.List(context.Background(), statusd.SubscriberFilter{}, 1, 1); err != nil || total != 496 {
		t.Errorf("%d subscribers (%v), want 496: the victim and the 495 flood addresses within the hour's 500 emails", total, err)
	}
	testserver.WaitLog(t, s.Logs, "subscription request not sent: the confirmation emails of the hour are spent", "per_hour=500")
}

// TestTestMessagesLimited: at most 5 test messages a minute to one
// subscriber; the sixth is a 429 rate_limited with Retry-After, sends
// nothing and writes nothing; another subscriber still gets its own.
func TestTestMessagesLimited(t *testing.T) {
	srv := startServer(t, testserver.SubDoc(), options{allowPrivate: true})
	tok := newToken(t, srv.DB, "ops")
	recv := testserver.StartReceiver(t)
	add := func(path string) int64 {
		m := srv.AdminOK(http.MethodPost, "/subscribers", tok, `{"channel": "webhook", "address": "`+recv.URL+path+`"}`, 201)
		return int64(testserver.At(t, m, "id").(float64))
	}
	one, two := add("/one"), add("/two")
	test := func(id int64) string { return fmt.Sprintf("/subscribers/%d/test", id) }
	for range 5 {
		srv.AdminOK(http.MethodPost, test(one), tok, "", 201)
	}
	audit := srv.AuditTotal(tok)
	r := srv.Authed(http.MethodPost, testserver.AdminRoot+test(one), tok, "")
	testserver.AssertError(t, "the sixth test in a minute", r, 429, "rate_limited")
	if secs, err := strconv.Atoi(r.Header.Get("Retry-After")); err != nil || secs < 1 || secs > 60 {
		t.Errorf("Retry-After %q, want 1 to 60 seconds", r.Header.Get("Retry-After"))
	}
	if msg := testserver.ErrorMessage(r); !strings.Contains(msg, "at most 5 test messages a minute") {
		t.Errorf("message %q does not say the limit", msg)
	}
	if got := srv.AuditTotal(tok); got != audit {
		t.Errorf("the refused test wrote %d audit entries", got-audit)
	}
	srv.AdminOK(http.MethodPost, test(two), tok, "", 201)
	if got := len(recv.Requests()); got != 6 {
		t.Errorf("the receiver got %d requests, want 6 (5 to one, 1 to two)", got)
	}
}
