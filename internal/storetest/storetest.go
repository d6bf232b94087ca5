// Package storetest is the conformance suite that every statusd.Store must
// pass. A store package calls Run from its own tests with a function that
// opens a fresh, empty store.
package storetest

import (
	"context"
	"reflect"
	"strconv"
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
		{"WriteChangesEachKindOfObject", testWrite},
		{"FailedWriteWritesNothing", testWriteRollback},
		{"IDsAreNeverGivenTwice", testNextID},
		{"SinceTellsWhatWasWritten", testSince},
		{"Tokens", testTokens},
		{"AuditNewestFirst", testAudit},
		{"CurrentListingReadsOnlyCurrentNotices", testCurrentListing},
	}
	for _, tc := range append(append(tests, subscriberCases...), userCases...) {
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
			{ID: 7, Position: 1, Name: "API", Key: "api", Description: "REST", MetricsEnabled: true, CreatedAt: at(0), UpdatedAt: at(2)},
			{ID: 3, ParentID: ptr(int64(7)), Position: 2, Name: "API EU", CreatedAt: at(0), UpdatedAt: at(0)},
		},
		Notices: []statusd.Notice{
			{ID: 100, Type: statusd.Unplanned, Subject: "Errors", TagList: []string{"api", "eu"},
				ComponentIDs: []int64{3, 7}, ImpactSeconds: ptr(int64(90)), Severity: statusd.SeverityMajor, CreatedAt: at(10), UpdatedAt: at(20),
				Updates: []statusd.Update{
					{ID: 5, State: statusd.Investigating, Content: "Looking.", CreatedAt: at(10), UpdatedAt: at(11), Notified: true,
						Changes: []statusd.ComponentChange{{ComponentID: 7, Old: statusd.PageOperational, New: statusd.PageDegraded},
							{ComponentID: 3, Old: statusd.PageOperational, New: statusd.PageDegraded}}},
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

func testWrite(t *testing.T, s statusd.Store) {
	ctx := context.Background()
	if err := s.Import(ctx, Sample(), false); err != nil {
		t.Fatal(err)
	}
	_, v0 := load(t, s)
	want := Sample()
	written, err := s.Write(ctx, func(tx statusd.Tx) error {
		p, err := tx.Page()
		if err != nil {
			return err
		}
		if !reflect.DeepEqual(*p, want.Page) {
			t.Errorf("Tx.Page %+v, want %+v", *p, want.Page)
		}
		p.Name = "Renamed"
		if err := tx.PutPage(p); err != nil {
			return err
		}
		comps, err := tx.Components()
		if err != nil {
			return err
		}
		if !reflect.DeepEqual(comps, want.Components) {
			t.Errorf("Tx.Components %+v", comps)
		}
		next, err := tx.NextID("components")
		if err != nil || next != 8 {
			t.Errorf("NextID(components) = %d, %v; want 8", next, err)
		}
		// 7's key moves to the new component, in one write.
		api := comps[0]
		api.Key = ""
		if err := tx.PutComponent(&api); err != nil {
			return err
		}
		c := statusd.Component{ID: next, Position: 3, Name: "New", Key: "api", CreatedAt: t0, UpdatedAt: t0}
		if err := tx.PutComponent(&c); err != nil {
			return err
		}
		n, err := tx.Notice(100)
		if err != nil {
			return err
		}
		if !reflect.DeepEqual(n, &want.Notices[0]) {
			t.Errorf("Tx.Notice(100) %+v", n)
		}
		// 100 lists 3 and 7, 101 lists 7, 102 none.
		for _, tc := range []struct{ comps, want []int64 }{{[]int64{7, 3}, []int64{100, 101}}, {[]int64{3}, []int64{100}}, {[]int64{999}, nil}} {
			if got, err := tx.NoticesListing(tc.comps); err != nil || !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Tx.NoticesListing(%v) = %v, %v; want %v", tc.comps, got, err, tc.want)
			}
		}
		if err := tx.DeleteComponents([]int64{3}); err != nil {
			return err
		}
		// The notice read before loses its link to 3 when it is put back.
		n.ComponentIDs = []int64{7}
		uid, err := tx.NextID("updates")
		if err != nil || uid != 11 {
			t.Errorf("NextID(updates) = %d, %v; want 11", uid, err)
		}
		n.Updates = append(n.Updates, statusd.Update{ID: uid, State: statusd.Resolved, Content: "More.", CreatedAt: t0.Add(time.Hour), UpdatedAt: t0.Add(time.Hour)})
		if err := tx.PutNotice(n); err != nil {
			return err
		}
		if missing, err := tx.Notice(999); err != nil || missing != nil {
			t.Errorf("Tx.Notice(999) = %v, %v; want nil, nil", missing, err)
		}
		return tx.DeleteNotice(102)
	})
	if err != nil {
		t.Fatal(err)
	}
	got, v1 := load(t, s)
	if v1 == v0 || written.Version != v1 {
		t.Errorf("Write: version %d -> %d, Written.Version %d", v0, v1, written.Version)
	}
	want.Page.Name = "Renamed"
	// Component 3 is gone, and with it the notice's link to it.
	want.Components[0].Key = ""
	want.Components = []statusd.Component{want.Components[0],
		{ID: 8, Position: 3, Name: "New", Key: "api", CreatedAt: t0, UpdatedAt: t0}}
	want.Notices[0].ComponentIDs = []int64{7}
	want.Notices[0].Updates = append(want.Notices[0].Updates, statusd.Update{ID: 11, State: statusd.Resolved,
		Content: "More.", CreatedAt: t0.Add(time.Hour), UpdatedAt: t0.Add(time.Hour)})
	want.Notices = want.Notices[:2]
	if !reflect.DeepEqual(got, want) {
		t.Errorf("after Write:\ngot  %+v\nwant %+v", got, want)
	}
	// Written holds the committed state of what was written: the page, the
	// whole tree, notice 100 as stored, 102 deleted.
	wantWritten := statusd.Written{Version: v1, Page: &want.Page, Components: want.Components, ComponentsChanged: true,
		Notices: map[int64]*statusd.Notice{100: &want.Notices[0], 102: nil}}
	if !reflect.DeepEqual(written, wantWritten) {
		t.Errorf("Written:\ngot  %+v\nwant %+v", written, wantWritten)
	}
}

func testWriteRollback(t *testing.T, s statusd.Store) {
	ctx := context.Background()
	if err := s.Import(ctx, Sample(), false); err != nil {
		t.Fatal(err)
	}
	_, v0 := load(t, s)
	refused := statusd.Errorf(statusd.EInvalidField, "no")
	_, err := s.Write(ctx, func(tx statusd.Tx) error {
		if err := tx.DeleteNotice(100); err != nil {
			return err
		}
		if err := tx.Audit(statusd.AuditEntry{At: t0, Actor: "x", Action: "y", Target: "z"}); err != nil {
			return err
		}
		return refused
	})
	if err != refused {
		t.Fatalf("Write returned %v, want the function's error", err)
	}
	got, v1 := load(t, s)
	if !reflect.DeepEqual(got, Sample()) || v1 != v0 {
		t.Errorf("a failed Write left a change (version %d -> %d)", v0, v1)
	}
	if entries, _, _ := s.Audit(ctx, 1, 10); len(entries) != 1 || entries[0].Action != "page.import" {
		t.Errorf("audit after a failed Write: %+v, want only the import", entries)
	}
}

func testTokens(t *testing.T, s statusd.Store) {
	ctx := context.Background()
	ts := s.Tokens()
	hash := []byte("0123456789abcdef0123456789abcdef")
	created := statusd.AuditEntry{At: t0, Actor: "ann@example.com", Action: "token.create", Target: "token ops", Detail: "created a token"}
	if err := ts.Create(ctx, statusd.Token{Name: "ops", Hash: hash, CreatedAt: t0}, &created); err != nil {
		t.Fatal(err)
	}
	if err := ts.Create(ctx, statusd.Token{Name: "ops", Hash: []byte("other"), CreatedAt: t0}, &created); statusd.ErrorCode(err) != statusd.EConflict {
		t.Errorf("second token named ops: %v, want a conflict", err)
	}
	tok, err := ts.Lookup(ctx, hash, t0.Add(time.Hour))
	if err != nil || tok == nil || tok.Name != "ops" || tok.Role != statusd.Owner {
		t.Fatalf("Lookup = %+v, %v; want ops, an owner (made without a role)", tok, err)
	}
	// A token keeps its role; List and Lookup give it.
	bot := []byte("fedcba9876543210fedcba9876543210")
	if err := ts.Create(ctx, statusd.Token{Name: "bot", Hash: bot, Role: statusd.Publisher, CreatedAt: t0}, nil); err != nil {
		t.Fatal(err)
	}
	if tok, err := ts.Lookup(ctx, bot, t0); err != nil || tok == nil || tok.Role != statusd.Publisher {
		t.Errorf("Lookup of bot = %+v, %v; want a publisher", tok, err)
	}
	if list, err := ts.List(ctx); err != nil || len(list) != 2 || list[0].Name != "bot" || list[0].Role != statusd.Publisher || list[1].Role != statusd.Owner {
		t.Errorf("List = %+v, %v; want bot (publisher), ops (owner)", list, err)
	}
	if err := ts.Revoke(ctx, "bot", nil); err != nil {
		t.Fatal(err)
	}
	if tok, err := ts.Lookup(ctx, []byte("nope"), t0); err != nil || tok != nil {
		t.Errorf("Lookup of an unknown hash = %+v, %v; want nil, nil", tok, err)
	}
	// The use is written soon after the lookup, not by it.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		list, err := ts.List(ctx)
		if err == nil && len(list) == 1 && list[0].LastUsed != nil && list[0].LastUsed.Equal(t0.Add(time.Hour)) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("List = %+v, %v; want ops, last used an hour after t0, within 10 s of the lookup", list, err)
		}
	}
	revoked := statusd.AuditEntry{At: t0, Actor: "ann@example.com", Action: "token.revoke", Target: "token ops", Detail: "revoked a token"}
	if err := ts.Revoke(ctx, "ops", &revoked); err != nil {
		t.Fatal(err)
	}
	if err := ts.Revoke(ctx, "ops", &revoked); statusd.ErrorCode(err) != statusd.ENotFound {
		t.Errorf("revoking twice: %v, want not found", err)
	}
	// The create and the revoke each left their entry; the refused
	// second create and revoke, none.
	entries, total, err := s.Audit(ctx, 1, 10)
	if err != nil || total != 2 || entries[0].Action != "token.revoke" || entries[1].Action != "token.create" || entries[1].Actor != "ann@example.com" {
		t.Errorf("audit = %+v (%d), %v; want the revoke, then the create by ann@example.com", entries, total, err)
	}
	if tok, _ := ts.Lookup(ctx, hash, t0); tok != nil {
		t.Error("a revoked token still looks up")
	}
}

func testAudit(t *testing.T, s statusd.Store) {
	ctx := context.Background()
	if err := s.Import(ctx, Sample(), false); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 30; i++ {
		_, err := s.Write(ctx, func(tx statusd.Tx) error {
			return tx.Audit(statusd.AuditEntry{At: t0.Add(time.Duration(i) * time.Second), Actor: "ops",
				Action: "test", Target: "entry", Detail: strconv.Itoa(i)})
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	page1, total, err := s.Audit(ctx, 1, 25)
	if err != nil || total != 31 || len(page1) != 25 || page1[0].Detail != "29" || page1[24].Detail != "5" {
		t.Fatalf("Audit page 1: %d entries of %d (%v), first %+v", len(page1), total, err, page1[0])
	}
	page2, _, _ := s.Audit(ctx, 2, 25)
	if len(page2) != 6 || page2[5].Action != "page.import" || !page2[0].At.Equal(t0.Add(4*time.Second)) {
		t.Errorf("Audit page 2: %+v", page2)
	}
}

func testNextID(t *testing.T, s statusd.Store) {
	ctx := context.Background()
	if err := s.Import(ctx, Sample(), false); err != nil {
		t.Fatal(err)
	}
	var first, second, third int64
	_, err := s.Write(ctx, func(tx statusd.Tx) error {
		var err error
		first, err = tx.NextID("notices")
		return err
	})
	if err != nil || first != 103 {
		t.Fatalf("NextID(notices) = %d, %v; want 103", first, err)
	}
	// The newest notice is deleted: its id is not given again.
	_, err = s.Write(ctx, func(tx statusd.Tx) error {
		if err := tx.DeleteNotice(102); err != nil {
			return err
		}
		var err error
		second, err = tx.NextID("notices")
		return err
	})
	if err != nil || second != 104 {
		t.Errorf("NextID after deleting 102 = %d, %v; want 104", second, err)
	}
	// An id taken in a transaction that rolled back may be given again.
	refused := statusd.Errorf(statusd.EInvalidField, "no")
	s.Write(ctx, func(tx statusd.Tx) error {
		tx.NextID("notices")
		return refused
	})
	_, err = s.Write(ctx, func(tx statusd.Tx) error {
		var err error
		third, err = tx.NextID("notices")
		return err
	})
	if err != nil || third != 105 {
		t.Errorf("NextID after a rolled back one = %d, %v; want 105", third, err)
	}
}

func testSince(t *testing.T, s statusd.Store) {
	ctx := context.Background()
	cr, ok := s.(statusd.ChangeReader)
	if !ok {
		t.Fatal("the store is not a statusd.ChangeReader")
	}
	if err := s.Import(ctx, Sample(), false); err != nil {
		t.Fatal(err)
	}
	_, v0 := load(t, s)
	since := func(v int64) (statusd.Written, bool) {
		t.Helper()
		w, ok, err := cr.Since(ctx, v)
		if err != nil {
			t.Fatal(err)
		}
		return w, ok
	}
	if w, ok := since(v0); !ok || w.Version != v0 || len(w.Notices) != 0 || w.Page != nil || w.ComponentsChanged {
		t.Errorf("Since(now) = %+v, %v; want nothing written", w, ok)
	}
	write := func(fn func(statusd.Tx) error) {
		t.Helper()
		if _, err := s.Write(ctx, fn); err != nil {
			t.Fatal(err)
		}
	}
	write(func(tx statusd.Tx) error {
		n, err := tx.Notice(100)
		if err != nil {
			return err
		}
		n.Subject = "Errors, again"
		return tx.PutNotice(n)
	})
	write(func(tx statusd.Tx) error { return tx.DeleteNotice(102) })
	write(func(tx statusd.Tx) error {
		p, err := tx.Page()
		if err != nil {
			return err
		}
		p.Name = "Acme 2"
		return tx.PutPage(p)
	})
	w, ok := since(v0)
	if !ok || w.Version != v0+3 || w.Page == nil || w.Page.Name != "Acme 2" || w.ComponentsChanged || len(w.Notices) != 2 ||
		w.Notices[100] == nil || w.Notices[100].Subject != "Errors, again" || len(w.Notices[100].Updates) != 2 ||
		w.Notices[102] != nil {
		t.Errorf("Since(before three writes) = %+v, %v", w, ok)
	}
	if w, ok := since(v0 + 2); !ok || w.Version != v0+3 || w.Page == nil || len(w.Notices) != 0 {
		t.Errorf("Since(before the last write) = %+v, %v; want the page only", w, ok)
	}
	if err := s.Import(ctx, Sample(), true); err != nil {
		t.Fatal(err)
	}
	if w, ok := since(v0 + 3); ok {
		t.Errorf("Since(before an import) = %+v, true; want false", w)
	}
}

// testCurrentListing: Tx.CurrentListing gives the notices that list one
// of the components and whose newest update is investigating, identified
// or underway, with their updates, and no other.
func testCurrentListing(t *testing.T, s statusd.Store) {
	ctx := context.Background()
	if err := s.Import(ctx, Sample(), false); err != nil {
		t.Fatal(err)
	}
	_, err := s.Write(ctx, func(tx statusd.Tx) error {
		// 100 (on 3 and 7) is resolved, 101 (on 7) scheduled.
		if got, err := tx.CurrentListing([]int64{3, 7}); err != nil || len(got) != 0 {
			t.Errorf("CurrentListing(3, 7) = %v, %v; want none", got, err)
		}
		for id, u := range map[int64]statusd.Update{
			101: {ID: 20, State: statusd.Underway, Content: "Begun.", CreatedAt: t0.Add(2 * time.Hour), UpdatedAt: t0.Add(2 * time.Hour)},
			100: {ID: 21, State: statusd.Identified, Content: "Again.", CreatedAt: t0.Add(2 * time.Hour), UpdatedAt: t0.Add(2 * time.Hour)},
		} {
			n, err := tx.Notice(id)
			if err != nil {
				return err
			}
			n.Updates = append(n.Updates, u)
			if err := tx.PutNotice(n); err != nil {
				return err
			}
		}
		for _, tc := range []struct{ comps, want []int64 }{{[]int64{3}, []int64{100}}, {[]int64{7}, []int64{100, 101}}, {[]int64{999}, nil}} {
			got, err := tx.CurrentListing(tc.comps)
			var ids []int64
			for _, n := range got {
				ids = append(ids, n.ID)
				if n.Updates[len(n.Updates)-1].ID < 20 {
					t.Errorf("CurrentListing(%v): notice %d without its newest update: %+v", tc.comps, n.ID, n.Updates)
				}
			}
			if err != nil || !reflect.DeepEqual(ids, tc.want) {
				t.Errorf("CurrentListing(%v) = %v, %v; want %v", tc.comps, ids, err, tc.want)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
