package demo

import (
	"bytes"
	"reflect"
	"regexp"
	"testing"
	"time"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/internal/snapshot"
)

func nows() []time.Time {
	return []time.Time{
		time.Now(),
		time.Date(2028, 2, 29, 12, 0, 0, 0, time.UTC),
		time.Date(2027, 1, 1, 0, 0, 30, 500_000_000, time.FixedZone("X", 5*3600)),
	}
}

func TestDocument(t *testing.T) {
	for _, now := range nows() {
		t.Run(now.Format(time.RFC3339), func(t *testing.T) {
			checkDocument(t, Document(now), now)
		})
	}
}

func checkDocument(t *testing.T, doc *statusd.Document, now time.Time) {
	t.Helper()
	if doc.Page.URL != URL {
		t.Errorf("page url %q, want %q", doc.Page.URL, URL)
	}
	if problems := doc.Validate(); len(problems) > 0 {
		t.Fatalf("Validate: %v", problems)
	}

	var buf bytes.Buffer
	if err := statusd.EncodeDocument(&buf, doc); err != nil {
		t.Fatalf("EncodeDocument: %v", err)
	}
	back, err := statusd.DecodeDocument(&buf)
	if err != nil {
		t.Fatalf("DecodeDocument: %v", err)
	}
	if len(back.Notices) != len(doc.Notices) || len(back.Components) != len(doc.Components) {
		t.Errorf("round trip: %d notices, %d components; want %d, %d",
			len(back.Notices), len(back.Components), len(doc.Notices), len(doc.Components))
	}
	if !reflect.DeepEqual(back, doc) {
		t.Errorf("round trip changed the document")
	}

	if n := len(doc.Components); n < 10 || n > 14 {
		t.Errorf("%d components, want 10-14", n)
	}
	if n := len(doc.Notices); n < 35 || n > 45 {
		t.Errorf("%d notices, want 35-45", n)
	}

	// The tree is exactly two levels deep, parents right before their children.
	byID := map[int64]statusd.Component{}
	metrics := map[bool]int{}
	children := 0
	for i, c := range doc.Components {
		byID[c.ID] = c
		metrics[c.MetricsEnabled]++
		if c.ID != int64(i+1) || c.Position != i+1 {
			t.Errorf("component %d: id %d position %d", i, c.ID, c.Position)
		}
		if c.ParentID == nil {
			continue
		}
		children++
		p, ok := byID[*c.ParentID]
		if !ok {
			t.Errorf("component %d: parent %d does not come before it", c.ID, *c.ParentID)
		} else if p.ParentID != nil {
			t.Errorf("component %d: parent %d is itself a child", c.ID, p.ID)
		}
		if prev := doc.Components[i-1]; prev.ID != *c.ParentID && (prev.ParentID == nil || *prev.ParentID != *c.ParentID) {
			t.Errorf("component %d does not follow its parent or a sibling", c.ID)
		}
	}
	if children == 0 {
		t.Errorf("no child components: the tree has one level")
	}
	if metrics[true] == 0 || metrics[false] == 0 {
		t.Errorf("metrics on %d, off %d; want both", metrics[true], metrics[false])
	}

	types := map[statusd.NoticeType]int{}
	timelines := map[statusd.TimelineState]int{}
	for i := range doc.Notices {
		n := &doc.Notices[i]
		types[n.Type]++
		ts, _ := n.Timeline(now)
		timelines[ts]++
		if n.ID != int64(i+1) {
			t.Errorf("notice %d has id %d", i, n.ID)
		}
		if n.TagList == nil || n.ComponentIDs == nil {
			t.Errorf("notice %d: nil tag list or component ids", n.ID)
		}
		if len(n.Updates) < 1 || len(n.Updates) > 5 {
			t.Errorf("notice %d: %d updates, want 1-5", n.ID, len(n.Updates))
		}
		first, last := n.Updates[0], n.Updates[len(n.Updates)-1]
		if !n.CreatedAt.Equal(first.CreatedAt) || !n.UpdatedAt.Equal(last.CreatedAt) {
			t.Errorf("notice %d: created/updated at do not match its updates", n.ID)
		}
		if last.CreatedAt.After(now) {
			t.Errorf("notice %d: an update is posted in the future", n.ID)
		}
		for _, u := range n.Updates {
			if u.CreatedAt.Location() != time.UTC || !u.CreatedAt.Equal(u.CreatedAt.Truncate(time.Millisecond)) {
				t.Errorf("notice %d: update time %v not UTC milliseconds", n.ID, u.CreatedAt)
			}
		}
		switch n.Type {
		case statusd.Unplanned:
			if first.State != statusd.Investigating {
				t.Errorf("incident %d starts in state %q", n.ID, first.State)
			}
		case statusd.Planned:
			if first.State != statusd.Scheduled || !first.CreatedAt.Before(*n.BeginsAt) {
				t.Errorf("maintenance %d is not first scheduled before it begins", n.ID)
			}
		}
	}
	for _, typ := range statusd.NoticeTypes {
		if types[typ] == 0 {
			t.Errorf("no %s notice", typ)
		}
	}
	for _, ts := range statusd.TimelineStates {
		if timelines[ts] == 0 {
			t.Errorf("no notice is %s at %v", ts, now)
		}
	}
	if got := snapshot.Build(doc, 1, now, snapshot.Options{Variant: statusd.VariantA}).PageState; got != statusd.PageDegraded {
		t.Errorf("page state %q, want %q", got, statusd.PageDegraded)
	}
}

// TestNoSubscriptions: statusd has no subscriptions (no Subscribe button,
// no e-mail), so no notice of the demo may invite visitors to subscribe.
// Subscriptions of the demo's own product (GraphQL) are another matter.
func TestNoSubscriptions(t *testing.T) {
	invite := regexp.MustCompile(`(?i)\bsubscrib(e|ing)\b`)
	for _, n := range Document(time.Now()).Notices {
		texts := []string{n.Subject}
		for _, u := range n.Updates {
			texts = append(texts, u.Content)
		}
		for _, text := range texts {
			if invite.MatchString(text) {
				t.Errorf("notice %d %q invites visitors to subscribe: %q", n.ID, n.Subject, text)
			}
		}
	}
}

func TestDeterministic(t *testing.T) {
	now := time.Date(2028, 2, 29, 12, 0, 0, 0, time.UTC)
	if !reflect.DeepEqual(Document(now), Document(now)) {
		t.Errorf("two documents for the same now differ")
	}
}

// TestDocumentAcrossTheDay checks that the document holds at every time of day,
// since some notices are placed on calendar days and others relative to now.
func TestDocumentAcrossTheDay(t *testing.T) {
	start := time.Date(2027, 6, 15, 0, 0, 0, 0, time.UTC)
	for now := start; now.Before(start.Add(24 * time.Hour)); now = now.Add(17*time.Minute + 3*time.Second) {
		checkDocument(t, Document(now), now)
	}
}
