package snapshot

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/statusd/statusd"
)

// encodingJSON is v as encoding/json marshals it with HTML escaping off.
func encodingJSON(t *testing.T, v any) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return string(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
}

// nastyStrings are texts that every escape rule applies to.
var nastyStrings = []string{
	"", "plain", `quote " and \ backslash`, "<b>&amp;</b>", "line\nfeed\r\ttab", "\b\f\x00\x01\x1f\x7f",
	"é ü 日本語 🚨", "\u2028 and \u2029", "bad \xff\xfe utf-8 \xe2\x82", "\xed\xa0\x80 surrogate", "/api/notices/1",
}

func randomString(rng *rand.Rand) string {
	if rng.IntN(3) > 0 {
		return nastyStrings[rng.IntN(len(nastyStrings))]
	}
	b := make([]byte, rng.IntN(40))
	for i := range b {
		b[i] = byte(rng.IntN(256))
	}
	return string(b)
}

func randomTime(rng *rand.Rand) statusd.Time {
	return statusd.Time{Time: time.Unix(rng.Int64N(1<<36)-(1<<35), rng.Int64N(1e9)).In(time.FixedZone("Z", (rng.IntN(48)-24)*1800))}
}

func randomTimeField(rng *rand.Rand) statusd.Field[statusd.Time] {
	switch rng.IntN(3) {
	case 0:
		return statusd.Field[statusd.Time]{}
	case 1:
		return statusd.Null[statusd.Time]()
	}
	return statusd.Some(randomTime(rng))
}

func randomEntry(rng *rand.Rand) statusd.NoticeListEntry {
	maybe := func() bool { return rng.IntN(2) == 0 }
	f := statusd.NoticeFields{
		ID: rng.Int64N(1<<40) - 5, Type: randomString(rng), TimelineState: randomString(rng), Subject: randomString(rng),
		URL: randomString(rng), BeganAt: randomTimeField(rng), EndedAt: randomTimeField(rng),
		CreatedAt: randomTime(rng), UpdatedAt: randomTime(rng), Links: statusd.NoticeLinks{Self: randomString(rng)},
	}
	switch rng.IntN(3) {
	case 1:
		f.State = statusd.Null[string]()
	case 2:
		f.State = statusd.Some(randomString(rng))
	}
	if maybe() {
		t := randomTime(rng)
		f.BeginsAt = &t
	}
	if maybe() {
		t := randomTime(rng)
		f.EndsAt = &t
	}
	if maybe() {
		f.ImpactTime = &statusd.Duration{Seconds: rng.Int64N(1 << 30), Words: randomString(rng)}
		if maybe() {
			f.ImpactTime.Calculation = randomString(rng)
		}
	}
	if maybe() {
		f.TagList = []string{}
		for range rng.IntN(4) {
			f.TagList = append(f.TagList, randomString(rng))
		}
	}
	u := statusd.UpdateResource{Content: randomString(rng), CreatedAt: randomTime(rng), UpdatedAt: randomTime(rng)}
	if maybe() {
		u.ID = rng.Int64N(1 << 40)
	}
	if maybe() {
		s := randomString(rng)
		u.State = &s
	}
	return statusd.NoticeListEntry{NoticeFields: f, LatestUpdate: u}
}

// TestAppendJSONMatchesEncodingJSON checks AppendNoticesJSON against encoding/json
// on random lists: every field present, absent and null, and texts that
// need every kind of escape.
func TestAppendJSONMatchesEncodingJSON(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	next := "/api/v1/notices?page=2&filter[type_eq]=<x>"
	responses := []statusd.NoticesResponse{{}, {Notices: []statusd.NoticeListEntry{}, Meta: statusd.Meta{NextPage: &next}}}
	for range 500 {
		r := statusd.NoticesResponse{Meta: statusd.Meta{Count: rng.IntN(26), TotalCount: rng.IntN(1 << 20)}}
		for range rng.IntN(5) {
			r.Notices = append(r.Notices, randomEntry(rng))
		}
		if rng.IntN(2) == 0 {
			s := randomString(rng)
			r.Meta.NextPage = &s
		}
		responses = append(responses, r)
	}
	for i, r := range responses {
		want := encodingJSON(t, r)
		if got := string(AppendNoticesJSON(nil, r)); got != want {
			t.Fatalf("response %d:\n got %s\nwant %s", i, got, want)
		}
	}
}
