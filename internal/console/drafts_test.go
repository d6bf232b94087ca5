package console

import (
	"testing"
	"time"

	"github.com/statusd/statusd"
)

// TestWebLink: only http and https links with a host are links; any
// other is text.
func TestWebLink(t *testing.T) {
	for _, tc := range []struct{ in, link, other string }{
		{"https://grafana.example/d/1?a=b", "https://grafana.example/d/1?a=b", ""},
		{"http://10.0.0.1:9093/#/alerts", "http://10.0.0.1:9093/#/alerts", ""},
		{"javascript:alert(1)", "", "javascript:alert(1)"},
		{"JavaScript:alert(1)", "", "JavaScript:alert(1)"},
		{"data:text/html,<b>x</b>", "", "data:text/html,<b>x</b>"},
		{"//evil.example/x", "", "//evil.example/x"},
		{"https:///nohost", "", "https:///nohost"},
		{"/relative", "", "/relative"},
	} {
		if link, other := webLink(tc.in); link != tc.link || other != tc.other {
			t.Errorf("webLink(%q) = %q, %q; want %q, %q", tc.in, link, other, tc.link, tc.other)
		}
	}
}

// TestSpanAndClock: how long alerts fire, rounded down; when, in UTC,
// with the day when it is not today.
func TestSpanAndClock(t *testing.T) {
	for d, want := range map[time.Duration]string{
		30 * time.Second: "less than a minute", time.Minute: "1 minute", 12*time.Minute + 59*time.Second: "12 minutes",
		3 * time.Hour: "3 hours", 72 * time.Hour: "3 days",
	} {
		if got := span(d); got != want {
			t.Errorf("span(%v) = %q, want %q", d, got, want)
		}
	}
	now := time.Date(2026, 3, 4, 10, 30, 0, 0, time.UTC)
	for at, want := range map[time.Time]string{
		time.Date(2026, 3, 4, 10, 14, 59, 0, time.UTC):                      "10:14 UTC",
		time.Date(2026, 3, 4, 12, 14, 0, 0, time.FixedZone("CEST", 2*3600)): "10:14 UTC",
		time.Date(2026, 3, 3, 23, 59, 0, 0, time.UTC):                       "Mar 3 23:59 UTC",
		time.Date(2025, 3, 4, 10, 0, 0, 0, time.UTC):                        "Mar 4 10:00 UTC",
	} {
		if got := clock(at, now); got != want {
			t.Errorf("clock(%v) = %q, want %q", at, got, want)
		}
	}
}

// TestProposal: what a notice's page asks of each kind of open draft.
func TestProposal(t *testing.T) {
	for _, tc := range []struct {
		d                draftView
		extra            []string
		question, button string
	}{
		{draftView{Kind: statusd.DraftUpdate, NoticeState: statusd.Recovering, Cleared: "all 3 alerts resolved at 10:14 UTC"}, nil,
			"All 3 alerts resolved at 10:14 UTC: post Recovering?", "Post Recovering"},
		{draftView{Kind: statusd.DraftUpdate, NoticeState: statusd.Recovering, Cleared: "its alert resolved at 10:14 UTC"}, nil,
			"Its alert resolved at 10:14 UTC: post Recovering?", "Post Recovering"},
		{draftView{Kind: statusd.DraftUpdate, NoticeState: statusd.Identified}, []string{"Replica"},
			"An alert also names Replica: add it to this incident?", "Add Replica"},
		{draftView{Kind: statusd.DraftUpdate, NoticeState: statusd.Identified}, []string{"Replica", "Cache"},
			"Alerts also name Replica and Cache: add them to this incident?", "Add Replica and Cache"},
		{draftView{Kind: statusd.DraftReopen, NoticeState: statusd.Investigating}, nil,
			"Its alerts fire again: reopen this incident?", "Reopen the incident"},
	} {
		if p := proposal(tc.d, tc.extra); p.Question != tc.question || p.Button != tc.button {
			t.Errorf("proposal(%+v, %v) = %q, %q; want %q, %q", tc.d, tc.extra, p.Question, p.Button, tc.question, tc.button)
		}
	}
}
