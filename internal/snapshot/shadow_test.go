package snapshot

import (
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/internal/blocks"
	"github.com/statusd/statusd/internal/demo"
)

// TestShadowedMethods checks that every method of statusd.Notice that a
// Notice could reach through its embedded notice (whose updates are kept
// apart) is answered by Notice itself, as on the whole notice.
func TestShadowedMethods(t *testing.T) {
	// Timeline is hidden by the Timeline field: it cannot be called on a
	// Notice at all.
	answered := []string{"AutomationDue", "BeganAt", "EndedAt", "Impact", "ImpactSecondsAt",
		"IsCurrentIncident", "IsUnderway", "State", "Timeline"}
	full := reflect.TypeFor[*statusd.Notice]()
	for i := range full.NumMethod() {
		if name := full.Method(i).Name; !slices.Contains(answered, name) {
			t.Errorf("statusd.Notice.%s is not answered by snapshot.Notice: add it to shadow.go and to this test", name)
		}
	}

	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	doc := benchDoc(10, 3000)
	doc.Notices = append(doc.Notices, randomDoc(rand.New(rand.NewPCG(1, 2)), now).Notices...)
	doc.Notices = append(doc.Notices, demo.Document(now).Notices...)
	types := map[statusd.NoticeType]int{}
	for _, src := range doc.Notices {
		types[src.Type]++
		for _, n := range []*Notice{newNotice(src, now), packed(src, now)} {
			if n.Notice.Updates != nil {
				t.Fatalf("notice %d: its updates were not kept apart", src.ID)
			}
			if got := n.Updates(); !reflect.DeepEqual(got, src.Updates) {
				t.Fatalf("notice %d: Updates\n got %+v\nwant %+v", src.ID, got, src.Updates)
			}
			if got := n.Full(); !reflect.DeepEqual(got, src) {
				t.Fatalf("notice %d: Full differs", src.ID)
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

// packed derives src as Build does, with shared blocks.
func packed(src statusd.Notice, now time.Time) *Notice {
	n := new(Notice)
	derive(n, src, now, new(packer))
	return n
}

// TestUpdatesKeptWhole checks the updates that cannot be kept apart
// exactly (a state statusd does not know, a time not in UTC) are kept as
// they are, and that times keep their nanoseconds and contents of any size
// their bytes.
func TestUpdatesKeptWhole(t *testing.T) {
	at := time.Date(2027, 1, 2, 3, 4, 5, 6789, time.UTC)
	base := statusd.Notice{ID: 1, Type: statusd.Unplanned, Subject: "S", CreatedAt: at, UpdatedAt: at}
	big := strings.Repeat("é", blocks.Size)
	cases := map[string]struct {
		updates []statusd.Update
		apart   bool
	}{
		"nanoseconds and a large content": {[]statusd.Update{
			{ID: 1, State: statusd.Investigating, Content: "a", CreatedAt: at, UpdatedAt: at.Add(time.Nanosecond)},
			{ID: 2, State: statusd.Resolved, Content: big, CreatedAt: at.Add(time.Hour), UpdatedAt: at.Add(time.Hour)},
			{ID: 3, State: statusd.Resolved, Content: "", CreatedAt: at.Add(2 * time.Hour), UpdatedAt: at.Add(2 * time.Hour)},
		}, true},
		"an unknown state": {[]statusd.Update{
			{ID: 1, State: "melting", Content: "a", CreatedAt: at, UpdatedAt: at},
		}, false},
		"a time not in UTC": {[]statusd.Update{
			{ID: 1, State: statusd.Investigating, Content: "a", CreatedAt: at.In(time.FixedZone("X", 3600)), UpdatedAt: at},
		}, false},
	}
	for name, c := range cases {
		src := base
		src.Updates = c.updates
		for _, n := range []*Notice{newNotice(src, at), packed(src, at)} {
			if apart := n.Notice.Updates == nil; apart != c.apart {
				t.Errorf("%s: kept apart %v, want %v", name, apart, c.apart)
			}
			if got := n.Updates(); !reflect.DeepEqual(got, c.updates) {
				t.Errorf("%s: Updates\n got %+v\nwant %+v", name, got, c.updates)
			}
			if got, want := n.Latest(), c.updates[len(c.updates)-1]; !reflect.DeepEqual(got, want) {
				t.Errorf("%s: latest %+v, want %+v", name, got, want)
			}
		}
	}
}
