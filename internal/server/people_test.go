package server_test

// Subscribers and the limits of what a write takes, as a new user and an
// attacker meet them: repeated final states, oversized notices, letter
// case of addresses, old confirmation links, control characters.

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/statusd/statusd"
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
