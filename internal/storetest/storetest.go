// Package storetest is the conformance suite that every statusd.Store must
// pass. A store package calls Run from its own tests with a function that
// opens a fresh, empty store.
package storetest

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/statusd/statusd"
)

// Run runs the whole suite; open returns a new empty store, closed by the
// suite.
func Run(t *testing.T, open func(t *testing.T) statusd.Store) {
	tests := []struct {
		name string
		fn   func(*testing.T, statusd.Store)
	}{
		{"EmptyStoreHasNoPage", testEmpty},
		{"ImportThenLoadGivesTheDocument", testRoundTrip},
		{"ImportRefusesToOverwrite", testNoOverwrite},
		{"ReplaceReplacesWhole", testReplace},
		{"FailedImportWritesNothing", testAtomic},
		{"VersionChangesWithEveryWrite", testVersion},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := open(t)
			t.Cleanup(func() { s.Close() })
			tc.fn(t, s)
		})
	}
}

var t0 = time.Date(2026, 2, 1, 10, 0, 0, 123e6, time.UTC)

func ptr[T any](v T) *T { return &v }

// Sample returns a small document that uses every field of the model.
func Sample() *statusd.Document {
	at := func(min int) time.Time { return t0.Add(time.Duration(min) * time.Minute) }
	return &statusd.Document{
		Page: statusd.Page{Name: "Acme", URL: "https://status.acme.test",
			StateTexts: statusd.StateTexts{Degraded: "Trouble"}, CreatedAt: at(0), UpdatedAt: at(1)},
		Components: []statusd.Component{
			{ID: 7, Position: 1, Name: "API", Description: "REST", MetricsEnabled: true, CreatedAt: at(0), UpdatedAt: at(2)},
			{ID: 3, ParentID: ptr(int64(7)), Position: 2, Name: "API EU", CreatedAt: at(0), UpdatedAt: at(0)},
		},
		Notices: []statusd.Notice{
			{ID: 100, Type: statusd.Unplanned, Subject: "Errors", TagList: []string{"api", "eu"},
				ComponentIDs: []int64{3, 7}, ImpactSeconds: ptr(int64(90)), CreatedAt: at(10), UpdatedAt: at(20),
				Updates: []statusd.Update{
					{ID: 5, State: statusd.Investigating, Content: "Looking.", CreatedAt: at(10), UpdatedAt: at(11)},
					{ID: 2, State: statusd.Resolved, Content: "Fixed.", CreatedAt: at(20), UpdatedAt: at(20)},
				}},
			{ID: 101, Type: statusd.Planned, Subject: "Upgrade", TagList: []string{}, ComponentIDs: []int64{7},
				BeginsAt: ptr(at(100)), EndsAt: ptr(at(160)), Automate: true, CreatedAt: at(30), UpdatedAt: at(30),
				Updates: []statusd.Update{{ID: 9, State: statusd.Scheduled, Content: "Planned.", CreatedAt: at(30), UpdatedAt: at(30)}}},
			{ID: 102, Type: statusd.General, Subject: "Hello", TagList: []string{}, ComponentIDs: []int64{},
				ExpiresAt: ptr(at(1000)), CreatedAt: at(40), UpdatedAt: at(40),
				Updates: []statusd.Update{{ID: 10, Content: "Hi.", CreatedAt: at(40), UpdatedAt: at(40)}}},
		},
	}
}

func load(t *testing.T, s statusd.Store) (*statusd.Document, int64) {
	t.Helper()
	doc, v, err := s.Load(context.Background())
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	return doc, v
}

func testEmpty(t *testing.T, s statusd.Store) {
	if doc, _ := load(t, s); doc != nil {
		t.Fatalf("empty store loaded a page: %+v", doc.Page)
	}
}

func testRoundTrip(t *testing.T, s statusd.Store) {
	want := Sample()
	if err := s.Import(context.Background(), want, false); err != nil {
		t.Fatal(err)
	}
	got, _ := load(t, s)
	// Notices come back in id order, which is the sample's order.
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Load after Import:\ngot  %+v\nwant %+v", got, want)
	}
}

func testNoOverwrite(t *testing.T, s statusd.Store) {
	ctx := context.Background()
	if err := s.Import(ctx, Sample(), false); err != nil {
		t.Fatal(err)
	}
	other := Sample()
	other.Page.Name = "Other"
	err := s.Import(ctx, other, false)
	if statusd.ErrorCode(err) != statusd.EConflict {
		t.Fatalf("second Import without replace: %v, want a conflict", err)
	}
	if doc, _ := load(t, s); doc.Page.Name != "Acme" {
		t.Errorf("refused Import changed the page name to %q", doc.Page.Name)
	}
}

func testReplace(t *testing.T, s statusd.Store) {
	ctx := context.Background()
	if err := s.Import(ctx, Sample(), false); err != nil {
		t.Fatal(err)
	}
	other := Sample()
	other.Page.Name = "Other"
	other.Notices = other.Notices[2:]
	other.Components = other.Components[:1]
	if err := s.Import(ctx, other, true); err != nil {
		t.Fatal(err)
	}
	got, _ := load(t, s)
	if !reflect.DeepEqual(got, other) {
		t.Errorf("after replace:\ngot  %+v\nwant %+v", got, other)
	}
}

func testAtomic(t *testing.T, s statusd.Store) {
	ctx := context.Background()
	if err := s.Import(ctx, Sample(), false); err != nil {
		t.Fatal(err)
	}
	_, before := load(t, s)
	// Duplicate update ids pass no validation here on purpose: the store
	// must fail part-way through and roll everything back.
	bad := Sample()
	bad.Page.Name = "Half"
	bad.Notices[1].Updates[0].ID = bad.Notices[0].Updates[0].ID
	if err := s.Import(ctx, bad, true); err == nil {
		t.Fatal("Import of a document with duplicate update ids succeeded")
	}
	got, after := load(t, s)
	if !reflect.DeepEqual(got, Sample()) || after != before {
		t.Errorf("failed Import left a change: page %q, version %d -> %d", got.Page.Name, before, after)
	}
}

func testVersion(t *testing.T, s statusd.Store) {
	ctx := context.Background()
	v0, err := s.Version(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Import(ctx, Sample(), false); err != nil {
		t.Fatal(err)
	}
	v1, err := s.Version(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if v1 == v0 {
		t.Errorf("version %d unchanged by Import", v1)
	}
	if _, lv := load(t, s); lv != v1 {
		t.Errorf("Load version %d, Version %d", lv, v1)
	}
}
