package main

import (
	"bytes"
	"fmt"
	"testing"
	"time"

	"github.com/statusd/statusd"
)

var testNow = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// TestDocumentValid decodes generated documents with statusd's own import
// validation, for each size of component tree, and checks their shape.
func TestDocumentValid(t *testing.T) {
	for _, components := range []int{10, 100, 1000} {
		t.Run(fmt.Sprint(components), func(t *testing.T) {
			cfg := config{Notices: 1000, Components: components, Seed: 7, Now: testNow}
			doc, inf := generate(cfg)
			var buf bytes.Buffer
			if err := encode(&buf, doc, false); err != nil {
				t.Fatal(err)
			}
			got, err := statusd.DecodeDocument(&buf)
			if err != nil {
				t.Fatalf("the generated document does not import:\n%v", err)
			}
			if len(got.Notices) != cfg.Notices || len(got.Components) != components {
				t.Fatalf("%d notices, %d components; want %d, %d", len(got.Notices), len(got.Components), cfg.Notices, components)
			}
			checkShape(t, got, inf)
		})
	}
}

func checkShape(t *testing.T, doc *statusd.Document, inf info) {
	t.Helper()
	comps := map[int64]statusd.Component{}
	for _, c := range doc.Components {
		comps[c.ID] = c
	}
	for _, c := range doc.Components {
		if c.ParentID != nil && comps[*c.ParentID].ParentID != nil {
			t.Errorf("component %d is three levels deep", c.ID)
		}
	}
	if p := comps[inf.MetricsParentID]; !p.MetricsEnabled || p.ParentID != nil {
		t.Errorf("component %d should be a parent with Metrics on: %+v", inf.MetricsParentID, p)
	}
	byType := map[statusd.NoticeType]int{}
	open := 0
	notices := map[int64]statusd.Notice{}
	for _, n := range doc.Notices {
		notices[n.ID] = n
		byType[n.Type]++
		last := n.Updates[len(n.Updates)-1]
		if n.Type == statusd.Unplanned && (last.State == statusd.Investigating || last.State == statusd.Identified) {
			open++
			if n.ID != inf.CurrentIncidentID {
				t.Errorf("notice %d is open but the current incident is %d", n.ID, inf.CurrentIncidentID)
			}
		}
		for _, u := range n.Updates {
			if u.CreatedAt.After(testNow) {
				t.Errorf("notice %d has an update in the future (%s)", n.ID, u.CreatedAt)
			}
			if u.CreatedAt.Before(testNow.AddDate(-1, 0, -30)) {
				t.Errorf("notice %d has an update older than a year (%s)", n.ID, u.CreatedAt)
			}
		}
	}
	if open != 1 {
		t.Errorf("%d open incidents, want 1", open)
	}
	if byType[statusd.Unplanned] != inf.Unplanned || byType[statusd.Planned] != inf.Planned || byType[statusd.General] != inf.General {
		t.Errorf("types %v, info %+v", byType, inf)
	}
	if byType[statusd.General] < 3 || byType[statusd.Planned] < 50 {
		t.Errorf("too few general or planned notices: %v", byType)
	}
	if n, ok := notices[inf.NoticeID]; !ok || n.Type != statusd.Unplanned || len(n.Updates) < 4 {
		t.Errorf("notice %d should be an incident with several updates", inf.NoticeID)
	}
	if _, ok := notices[inf.WriteNoticeID]; !ok {
		t.Errorf("notice %d does not exist", inf.WriteNoticeID)
	}
}

// TestDeterministic: the same seed and time give the same bytes, another
// seed another page.
func TestDeterministic(t *testing.T) {
	gen := func(seed uint64) []byte {
		doc, _ := generate(config{Notices: 300, Components: 20, Seed: seed, Now: testNow})
		var buf bytes.Buffer
		if err := encode(&buf, doc, false); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	if !bytes.Equal(gen(3), gen(3)) {
		t.Error("two documents of the same seed differ")
	}
	if bytes.Equal(gen(3), gen(4)) {
		t.Error("two seeds gave the same document")
	}
}
