package statusd

import (
	"encoding/json"
	"math/rand/v2"
	"testing"
	"time"
)

// TestTimeMarshalJSON checks the hand-written timestamp against
// time.Time.AppendFormat with TimeLayout, on random times in many zones and
// on the edges: years of fewer and more than four digits, the last
// millisecond of a second, sub-millisecond parts (cut, never rounded).
func TestTimeMarshalJSON(t *testing.T) {
	want := func(tm time.Time) string { return `"` + tm.UTC().Format(TimeLayout) + `"` }
	times := []time.Time{
		time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC),
		time.Date(2026, 12, 31, 23, 59, 59, 999_999_999, time.UTC),
		time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(999, 5, 6, 7, 8, 9, 1_000_000, time.UTC),
		time.Date(9999, 12, 31, 23, 59, 59, 999_000_000, time.UTC),
		time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(-5, 3, 1, 0, 0, 0, 0, time.UTC),
		time.Date(2026, 3, 29, 2, 30, 0, 500_000, time.FixedZone("X", -9000)),
		{},
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		zone := time.FixedZone("Z", (rng.IntN(48)-24)*1800)
		times = append(times, time.Unix(rng.Int64N(1<<36)-(1<<35), rng.Int64N(1e9)).In(zone))
	}
	for _, tm := range times {
		got, err := Time{Time: tm}.MarshalJSON()
		if err != nil || string(got) != want(tm) {
			t.Fatalf("%v: MarshalJSON = %s, %v; want %s", tm, got, err, want(tm))
		}
	}
}

// TestFieldMarshalJSON checks a field absent, null and set, for a value
// that marshals itself (Time) and for one that does not.
func TestFieldMarshalJSON(t *testing.T) {
	type wire struct {
		At    Field[Time]   `json:"at,omitzero"`
		State Field[string] `json:"state,omitzero"`
		Count Field[int]    `json:"count,omitzero"`
	}
	at := Time{time.Date(2026, 11, 24, 2, 3, 4, 567_890_000, time.FixedZone("X", 3600))}
	cases := []struct {
		in   wire
		want string
	}{
		{wire{}, `{}`},
		{wire{At: Null[Time](), State: Null[string](), Count: Null[int]()}, `{"at":null,"state":null,"count":null}`},
		{wire{At: Some(at), State: Some("a<b"), Count: Some(3)}, `{"at":"2026-11-24T01:03:04.567Z","state":"a\u003cb","count":3}`},
	}
	for _, c := range cases {
		got, err := json.Marshal(c.in)
		if err != nil || string(got) != c.want {
			t.Errorf("%+v: %s, %v; want %s", c.in, got, err, c.want)
		}
	}
}
