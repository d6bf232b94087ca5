package snapshot

import (
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/internal/demo"
	"github.com/statusd/statusd/internal/testenv/gcshape"
)

// TestNoticeMethods checks that every field and method of statusd.Notice
// has its counterpart on Notice.
func TestNoticeMethods(t *testing.T) {
	ours := reflect.TypeFor[*Notice]()
	full := reflect.TypeFor[statusd.Notice]()
	for i := range full.NumField() {
		name := full.Field(i).Name
		if _, isField := ours.Elem().FieldByName(name); !isField && !hasMethod(ours, name) {
			t.Errorf("statusd.Notice.%s has no counterpart on snapshot.Notice: add a method to notice.go", name)
		}
	}
	ptr := reflect.PointerTo(full)
	for i := range ptr.NumMethod() {
		if name := ptr.Method(i).Name; !hasMethod(ours, name) {
			t.Errorf("statusd.Notice.%s is not answered by snapshot.Notice: add it to notice.go", name)
		}
	}
}

func hasMethod(typ reflect.Type, name string) bool {
	_, ok := typ.MethodByName(name)
	return ok
}

// TestNoticeHoldsOnePointer checks the point of Notice: the garbage
// collector finds in it the arena and nothing else to follow.
func TestNoticeHoldsOnePointer(t *testing.T) {
	found := gcshape.PointerPaths("Notice", reflect.TypeFor[Notice]())
	if want := []string{"Notice.arena"}; !reflect.DeepEqual(found, want) {
		t.Errorf("Notice holds pointers in %v, want only %v", found, want)
	}
}

// normalized is src as a Notice gives it back: times in UTC, no empty
// lists.
func normalized(src statusd.Notice) statusd.Notice {
	utc := func(t *time.Time) *time.Time {
		if t == nil {
			return nil
		}
		u := t.UTC()
		return &u
	}
	src.CreatedAt, src.UpdatedAt = src.CreatedAt.UTC(), src.UpdatedAt.UTC()
	src.BeginsAt, src.EndsAt, src.ExpiresAt = utc(src.BeginsAt), utc(src.EndsAt), utc(src.ExpiresAt)
	if len(src.TagList) == 0 {
		src.TagList = nil
	}
	if len(src.ComponentIDs) == 0 {
		src.ComponentIDs = nil
	}
	return src
}

// TestNoticeAnswers checks, on every notice of three pages, that a Notice
// gives back the notice and answers every method of statusd.Notice as the
// notice does, whether derived in an arena of its own or in one shared with
// the notices before it, as Build does.
func TestNoticeAnswers(t *testing.T) {
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	doc := benchDoc(10, 3000)
	doc.Notices = append(doc.Notices, randomDoc(rand.New(rand.NewPCG(1, 2)), now).Notices...)
	doc.Notices = append(doc.Notices, demo.Document(now).Notices...)
	types := map[statusd.NoticeType]int{}
	shared := newArena(size{})
	for _, src := range doc.Notices {
		types[src.Type]++
		inShared := new(Notice)
		derive(inShared, src, now, shared)
		for _, n := range []*Notice{newNotice(src, now), inShared} {
			if n.whole != 0 {
				t.Fatalf("notice %d: kept whole", src.ID)
			}
			want := normalized(src)
			if got := n.Full(); !reflect.DeepEqual(got, want) {
				t.Fatalf("notice %d: Full\n got %+v\nwant %+v", src.ID, got, want)
			}
			got := []any{n.ID, n.Type(), n.Subject(), n.TagList(), n.ComponentIDs(), n.ImpactSeconds(), n.BeginsAt(),
				n.EndsAt(), n.Automate(), n.ExpiresAt(), n.CreatedAt(), n.UpdatedAt(), n.Updates(), n.Latest()}
			wantFields := []any{want.ID, want.Type, want.Subject, want.TagList, want.ComponentIDs, want.ImpactSeconds,
				want.BeginsAt, want.EndsAt, want.Automate, want.ExpiresAt, want.CreatedAt, want.UpdatedAt, want.Updates,
				want.Updates[len(want.Updates)-1]}
			if !reflect.DeepEqual(got, wantFields) {
				t.Fatalf("notice %d: fields\n got %v\nwant %v", src.ID, got, wantFields)
			}
			if tl, next := src.Timeline(now); n.Timeline() != tl || !n.nextChange().Equal(next) {
				t.Fatalf("notice %d: timeline %s until %s, want %s until %s", src.ID, n.Timeline(), n.nextChange(), tl, next)
			}
			moments := []time.Time{now, now.Add(-30 * 24 * time.Hour), now.Add(90 * 24 * time.Hour)}
			// Around the end of the last impact, where ImpactSecondsAt stops moving.
			if ivs := src.Impact(forever); len(ivs) > 0 && ivs[len(ivs)-1].End.Before(forever) {
				end := ivs[len(ivs)-1].End
				moments = append(moments, end.Add(-time.Millisecond), end, end.Add(time.Millisecond))
			}
			for _, at := range moments {
				gotNext, gotDue := n.AutomationDue(at)
				wantNext, wantDue := src.AutomationDue(at)
				got := []any{n.State(), n.IsCurrentIncident(), n.IsUnderway(), n.BeganAt(), n.EndedAt(),
					n.Impact(at), n.ImpactSecondsAt(at), gotNext, gotDue}
				want := []any{src.State(), src.IsCurrentIncident(), src.IsUnderway(), src.BeganAt(), src.EndedAt(),
					src.Impact(at), src.ImpactSecondsAt(at), wantNext, wantDue}
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("notice %d at %s:\n got %v\nwant %v", src.ID, at, got, want)
				}
			}
		}
	}
	if types[statusd.Unplanned] == 0 || types[statusd.Planned] == 0 || types[statusd.General] == 0 {
		t.Fatalf("the pages do not hold every type of notice: %v", types)
	}
}

// TestNoticeKeptWhole checks that a notice the compact form cannot hold
// exactly (a state or a type statusd does not know) is kept whole, that
// times keep their nanoseconds and come back in UTC, and contents of any
// size their bytes.
func TestNoticeKeptWhole(t *testing.T) {
	at := time.Date(2027, 1, 2, 3, 4, 5, 6789, time.UTC)
	base := statusd.Notice{ID: 1, Type: statusd.Unplanned, Subject: "S", TagList: []string{"é", ""}, CreatedAt: at, UpdatedAt: at}
	big := strings.Repeat("é", 1<<20)
	zone := time.FixedZone("X", 3600)
	cases := map[string]struct {
		typ     statusd.NoticeType
		updates []statusd.Update
		whole   bool
	}{
		"nanoseconds and a large content": {statusd.Unplanned, []statusd.Update{
			{ID: 1, State: statusd.Investigating, Content: "a", CreatedAt: at, UpdatedAt: at.Add(time.Nanosecond)},
			{ID: 2, State: statusd.Resolved, Content: big, CreatedAt: at.Add(time.Hour), UpdatedAt: at.Add(time.Hour)},
			{ID: 3, State: statusd.Resolved, Content: "", CreatedAt: at.Add(2 * time.Hour), UpdatedAt: at.Add(2 * time.Hour)},
		}, false},
		"a time not in UTC": {statusd.Unplanned, []statusd.Update{
			{ID: 1, State: statusd.Investigating, Content: "a", CreatedAt: at.In(zone), UpdatedAt: at},
		}, false},
		"an unknown state": {statusd.Unplanned, []statusd.Update{
			{ID: 1, State: "melting", Content: "a", CreatedAt: at, UpdatedAt: at},
		}, true},
		"an unknown type": {"outage", []statusd.Update{
			{ID: 1, State: statusd.Investigating, Content: "a", CreatedAt: at, UpdatedAt: at},
		}, true},
	}
	for name, c := range cases {
		src := base
		src.Type, src.Updates = c.typ, c.updates
		src.CreatedAt = src.CreatedAt.In(zone)
		n := newNotice(src, at)
		if whole := n.whole != 0; whole != c.whole {
			t.Errorf("%s: kept whole %v, want %v", name, whole, c.whole)
		}
		want := src
		if !c.whole {
			want.CreatedAt = at
			want.Updates = make([]statusd.Update, len(c.updates))
			for i, u := range c.updates {
				u.CreatedAt = u.CreatedAt.UTC()
				want.Updates[i] = u
			}
		}
		if got := n.Full(); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: Full\n got %+v\nwant %+v", name, got, want)
		}
		if got, want := n.Latest(), want.Updates[len(want.Updates)-1]; !reflect.DeepEqual(got, want) {
			t.Errorf("%s: latest %+v, want %+v", name, got, want)
		}
		if n.Type() != c.typ || n.State() != src.State() || n.Subject() != "S" {
			t.Errorf("%s: type %q, state %q, subject %q", name, n.Type(), n.State(), n.Subject())
		}
	}
}
