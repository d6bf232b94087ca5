package statusd

import (
	"net/netip"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestSubscriberWants(t *testing.T) {
	// The tree: 1 (group) > 2 > 3; 4 at the top level.
	one, two := int64(1), int64(2)
	parents := map[int64]*int64{1: nil, 2: &one, 3: &two, 4: nil}
	tests := []struct {
		name    string
		follows []int64
		notice  []int64
		want    bool
	}{
		{"whole page hears of everything", nil, []int64{4}, true},
		{"a notice without components goes to everyone", []int64{4}, nil, true},
		{"the component itself", []int64{4}, []int64{4}, true},
		{"a group hears of its grandchild", []int64{1}, []int64{3}, true},
		{"a child does not hear of its parent", []int64{3}, []int64{1}, false},
		{"another branch", []int64{4}, []int64{2, 3}, false},
		{"one of several", []int64{2}, []int64{4, 3}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := Subscriber{ComponentIDs: tc.follows}
			if got := s.Wants(tc.notice, parents); got != tc.want {
				t.Errorf("Wants(%v) following %v = %v, want %v", tc.notice, tc.follows, got, tc.want)
			}
		})
	}
}

func TestNextAttempt(t *testing.T) {
	created := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	base := 30 * time.Second
	tests := []struct {
		name       string
		attempts   int
		at         time.Time
		retryAfter time.Duration
		lo, hi     time.Duration // the delay's bounds: the backoff and 20% jitter
		fails      bool
	}{
		{"first retry after the base", 1, created, 0, 30 * time.Second, 36 * time.Second, false},
		{"doubles", 3, created, 0, 120 * time.Second, 144 * time.Second, false},
		{"capped at an hour", 20, created, 0, time.Hour, 72 * time.Minute, false},
		{"Retry-After longer than the backoff wins", 1, created, 10 * time.Minute, 10 * time.Minute, 10 * time.Minute, false},
		{"past 24 hours it fails", 30, created.Add(23*time.Hour + 30*time.Minute), 0, 0, 0, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for range 50 { // the jitter is random: every draw stays in bounds
				next, ok := NextAttempt(created, tc.attempts, Attempt{At: tc.at, RetryAfter: tc.retryAfter}, base)
				if ok == tc.fails {
					t.Fatalf("ok = %v, want %v", ok, !tc.fails)
				}
				if d := next.Sub(tc.at); ok && (d < tc.lo || d > tc.hi) {
					t.Fatalf("delay %v, want within [%v, %v]", d, tc.lo, tc.hi)
				}
			}
		})
	}
}

func TestQuarantined(t *testing.T) {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	hourAgo, minuteAgo := now.Add(-time.Hour), now.Add(-time.Minute)
	if !Quarantined(10, &hourAgo, now) {
		t.Error("10 failures over an hour: want quarantined")
	}
	if Quarantined(9, &hourAgo, now) {
		t.Error("9 failures: want not quarantined")
	}
	if Quarantined(50, &minuteAgo, now) {
		t.Error("50 failures within a minute: want not quarantined (less than an hour)")
	}
}

func TestCheckTarget(t *testing.T) {
	tests := []struct {
		url          string
		allowPrivate bool
		ok           bool
	}{
		{"https://hooks.example.com/x", false, true},
		{"http://hooks.example.com/x", false, false},
		{"http://hooks.example.com/x", true, true},
		{"https://127.0.0.1/x", false, false},
		{"https://[::1]:8443/x", false, false},
		{"https://10.1.2.3/x", false, false},
		{"https://192.168.0.1/x", false, false},
		{"https://169.254.169.254/latest", false, false},
		{"https://[::ffff:127.0.0.1]/x", false, false},
		{"https://0.0.0.0/x", false, false},
		{"https://224.0.0.1/x", false, false},
		{"https://localhost/x", false, false},
		{"https://127.0.0.1/x", true, true},
		{"https://8.8.8.8/x", false, true},
		{"https://user:pw@example.com/x", false, false},
		{"/relative", false, false},
		{"ftp://example.com/x", true, false},
	}
	for _, tc := range tests {
		err := CheckTarget(tc.url, tc.allowPrivate)
		if (err == nil) != tc.ok {
			t.Errorf("CheckTarget(%q, %v) = %v, want ok %v", tc.url, tc.allowPrivate, err, tc.ok)
		}
		if err != nil && ErrorCode(err) != EInvalidField {
			t.Errorf("CheckTarget(%q): code %q, want %q", tc.url, ErrorCode(err), EInvalidField)
		}
	}
	if PublicAddr(netip.MustParseAddr("fe80::1")) {
		t.Error("fe80::1 (link-local) is public")
	}
}

func TestCheckEmail(t *testing.T) {
	for addr, ok := range map[string]bool{
		"ops@example.com":         true,
		"Ops <ops@example.com>":   false,
		"no-at-sign":              false,
		"":                        false,
		"ops@example.com\r\nBcc:": false,
	} {
		if err := CheckEmail(addr); (err == nil) != ok {
			t.Errorf("CheckEmail(%q) = %v, want ok %v", addr, err, ok)
		}
	}
	// Invisible characters: refused, the message naming the one found.
	for addr, char := range map[string]string{
		"eve\u202e@example.com":   "U+202E", // right-to-left override
		"eve@exa\u202ample.com":   "U+202A",
		"\u2066eve@example.com":   "U+2066", // isolates
		"eve\u2069@example.com":   "U+2069",
		"eve\u200e@example.com":   "U+200E", // marks
		"eve\u200f@example.com":   "U+200F",
		"eve\x7f@example.com":     "U+007F",
		"eve\x1b[2K@example.com":  "U+001B",
		"eve\u0085@example.com":   "U+0085", // a C1 control
		"eve\u061c@example.com":   "U+061C",
		"\"eve\x00\"@example.com": "U+0000",
	} {
		err := CheckEmail(addr)
		if ErrorCode(err) != EInvalidField || !strings.Contains(ErrorMessage(err), char) || !strings.Contains(ErrorMessage(err), "without it") {
			t.Errorf("CheckEmail(%q) = %v, want invalid_field naming %s", addr, err, char)
		}
	}
	// Text that looks alike is no control: accepted.
	if err := CheckEmail("zo\u00eb@example.com"); err != nil {
		t.Errorf("CheckEmail(zoë) = %v", err)
	}
}

func TestEmailAddressCase(t *testing.T) {
	for _, tc := range []struct{ in, stored, key string }{
		{"Bob@Example.COM", "Bob@example.com", "bob@example.com"},
		{"bob@example.com", "bob@example.com", "bob@example.com"},
		{"\"A@B\"@EXAMPLE.com", "\"A@B\"@example.com", "\"a@b\"@example.com"}, // the domain follows the last @
		{"Zoë@Ünï.Example", "Zoë@Ünï.example", "zoë@Ünï.example"},             // ASCII letters only
	} {
		if got := StoredAddress(Email, tc.in); got != tc.stored {
			t.Errorf("StoredAddress(%q) = %q, want %q", tc.in, got, tc.stored)
		}
		if got := AddressKey(Email, tc.in); got != tc.key {
			t.Errorf("AddressKey(%q) = %q, want %q", tc.in, got, tc.key)
		}
	}
	// URLs are as they are: their paths may differ in case.
	for _, ch := range []Channel{Webhook, Slack} {
		u := "https://Hooks.Example.com/A"
		if StoredAddress(ch, u) != u || AddressKey(ch, u) != u {
			t.Errorf("%s: %q became %q, key %q", ch, u, StoredAddress(ch, u), AddressKey(ch, u))
		}
	}
}

func TestReminderKey(t *testing.T) {
	// 2026-03-01 13:00 UTC: 20,513 days and 13 hours after 1970.
	begins := time.Date(2026, 3, 1, 13, 0, 0, 0, time.UTC)
	if got, want := ReminderKey(42, begins), "maintenance.reminder:42:1772370000000"; got != want {
		t.Errorf("ReminderKey = %q, want %q", got, want)
	}
}

// TestHears: who is sent what, by the subscriber's state (CONTRACT C7):
// an active subscriber every kind; a pending one only its confirmation; a
// quarantined one only an operator's test; an unsubscribed one nothing.
func TestHears(t *testing.T) {
	kinds := []EventKind{NoticeCreated, NoticeUpdated, MaintenanceReminder, SubscriptionConfirm, TestMessage}
	for _, tc := range []struct {
		state SubscriberState
		hears []EventKind
	}{
		{SubscriberActive, kinds},
		{SubscriberPending, []EventKind{SubscriptionConfirm}},
		{SubscriberQuarantined, []EventKind{TestMessage}},
		{SubscriberUnsubscribed, nil},
	} {
		for _, k := range kinds {
			if got, want := tc.state.Hears(k), slices.Contains(tc.hears, k); got != want {
				t.Errorf("%s hears %s: %t, want %t", tc.state, k, got, want)
			}
		}
	}
}
