package snapshot

import (
	"encoding/json"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/statusd/statusd"
)

// views renders everything a snapshot answers, for comparison.
func views(t *testing.T, s *Snapshot, now time.Time) string {
	t.Helper()
	out := map[string]any{"page": s.Page(), "valid": s.ValidUntil, "automated": len(s.Automated), "scheduled": len(s.Scheduled)}
	for p := int64(1); p <= 3; p++ {
		list, total := s.Components(ComponentFilter{}, p, now)
		out["components"+string(rune('0'+p))] = []any{list, total}
		nl, nt := s.Notices(NoticeFilter{}, p, now)
		out["notices"+string(rune('0'+p))] = []any{nl, nt}
	}
	for _, tl := range []string{"present", "past_recent", "past_distant", "future"} {
		nl, nt := s.Notices(NoticeFilter{Timelines: [][]string{{tl}}}, 1, now)
		out["tl-"+tl] = []any{nl, nt}
	}
	tf := statusd.DefaultTimeframe(now)
	year, _ := statusd.ParseTimeframe(statusd.EarliestStart(now).Format(statusd.DateLayout), "", now)
	for _, c := range s.AllComponents {
		id := c.ID
		nl, nt := s.Notices(NoticeFilter{MetricsComponentID: &id}, 1, now)
		out["metrics"+c.Name+string(rune('0'+id))] = []any{s.MetricsResponse(c, tf, now, true), s.MetricsResponse(c, year, now, true), nl, nt}
	}
	for _, n := range s.notices(s.byID) {
		out["detail"+string(rune(n.ID))] = s.NoticeDetail(n, now)
	}
	b, err := json.Marshal(out)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestWithEqualsBuild checks on random pages and random writes that the
// snapshot made by With from the previous one answers exactly as one built
// whole from the changed page, and that Retime answers as a fresh Build.
func TestWithEqualsBuild(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	opts := Options{Variant: statusd.VariantA}
	for round := 0; round < 200; round++ {
		now := time.Date(2028, 3, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(rng.Int64N(int64(48 * time.Hour))))
		doc := randomDoc(rng, now)
		s := Build(doc, 1, now, opts)
		// One write: replace, add or delete notices, move a component, or
		// change the page url.
		next := &statusd.Document{Page: doc.Page, Components: slices.Clone(doc.Components), Notices: slices.Clone(doc.Notices)}
		ch := statusd.Written{Version: 2, Notices: map[int64]*statusd.Notice{}}
		other := randomDoc(rng, now)
		for k := 0; k < 1+rng.IntN(3); k++ {
			switch op := rng.IntN(5); {
			case op == 0 && len(next.Notices) > 0: // delete
				i := rng.IntN(len(next.Notices))
				ch.Notices[next.Notices[i].ID] = nil
				next.Notices = slices.Delete(next.Notices, i, i+1)
			case op == 1 && len(next.Notices) > 0 && len(other.Notices) > 0: // replace
				i := rng.IntN(len(next.Notices))
				n := other.Notices[rng.IntN(len(other.Notices))]
				n.ID = next.Notices[i].ID
				next.Notices[i] = n
				ch.Notices[n.ID] = nil
			case op == 2 && len(other.Notices) > 0: // add
				n := other.Notices[rng.IntN(len(other.Notices))]
				n.ID = int64(1000 + k)
				next.Notices = append(next.Notices, n)
				ch.Notices[n.ID] = nil
			case op == 3: // move component 4 under 3, or back under 2
				parent := int64(2 + rng.IntN(2))
				next.Components[3].ParentID = &parent
				ch.Components, ch.ComponentsChanged = next.Components, true
			default: // page url
				next.Page.URL = "https://other.example/" + string(rune('a'+rng.IntN(3)))
				ch.Page = &next.Page
			}
		}
		// Point the written ids at their final state (nil: deleted).
		for id := range ch.Notices {
			ch.Notices[id] = nil
			for i := range next.Notices {
				if next.Notices[i].ID == id {
					ch.Notices[id] = &next.Notices[i]
				}
			}
		}
		later := now.Add(time.Duration(rng.Int64N(int64(10 * time.Second))))
		got := views(t, s.With(ch, later), later)
		want := views(t, Build(next, 2, later, opts), later)
		if got != want {
			t.Fatalf("round %d: With differs from Build\ngot  %.600s\nwant %.600s", round, got, want)
		}
		// A week later some notices turned past_distant: Retime equals Build.
		weekLater := now.Add(time.Duration(rng.Int64N(int64(9 * 24 * time.Hour))))
		if got, want := views(t, s.Retime(weekLater), weekLater), views(t, Build(doc, 1, weekLater, opts), weekLater); got != want {
			t.Fatalf("round %d: Retime differs from Build", round)
		}
	}
}

// TestWithChainEqualsBuild follows a page through hundreds of writes, each
// made by With from the snapshot before: the notices that leave pile up in
// the slots until the indexes are made again without them, and every
// snapshot on the way answers as one built whole.
func TestWithChainEqualsBuild(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	opts := Options{Variant: statusd.VariantA}
	now := time.Date(2028, 3, 1, 0, 0, 0, 0, time.UTC)
	doc := randomDoc(rng, now)
	other := randomDoc(rng, now)
	s := Build(doc, 1, now, opts)
	compacted := false
	nextID := int64(1000)
	for write := range 600 {
		ch := statusd.Written{Version: int64(write + 2), Notices: map[int64]*statusd.Notice{}}
		n := other.Notices[rng.IntN(len(other.Notices))]
		switch i := rng.IntN(len(doc.Notices) + 1); {
		case rng.IntN(4) == 0 && len(doc.Notices) > 1: // delete
			ch.Notices[doc.Notices[i%len(doc.Notices)].ID] = nil
			doc.Notices = slices.Delete(doc.Notices, i%len(doc.Notices), i%len(doc.Notices)+1)
		case i < len(doc.Notices): // replace
			n.ID = doc.Notices[i].ID
			doc.Notices[i] = n
			ch.Notices[n.ID] = &doc.Notices[i]
		default: // add
			nextID++
			n.ID = nextID
			doc.Notices = append(doc.Notices, n)
			ch.Notices[n.ID] = &doc.Notices[len(doc.Notices)-1]
		}
		before := s.slots()
		s = s.With(ch, now)
		if s.slots() < before {
			compacted = true
		}
		if write%50 == 0 || write == 599 {
			if got, want := views(t, s, now), views(t, Build(doc, 2, now, opts), now); got != want {
				t.Fatalf("write %d: With differs from Build\ngot  %.600s\nwant %.600s", write, got, want)
			}
		}
	}
	if !compacted {
		t.Fatalf("600 writes never made the indexes again: %d slots for %d notices", s.slots(), s.NoticeCount())
	}
}
