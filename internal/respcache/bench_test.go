package respcache

import (
	"bytes"
	"net/http"
	"testing"
	"time"
)

// BenchmarkNewEntry is what making an answer of a computed body costs
// beyond computing it (its ETag, above all), for a body of 16 KB: a page
// of 25 notices in JSON.
func BenchmarkNewEntry(b *testing.B) {
	body := bytes.Repeat([]byte(`{"id":42,"type":"unplanned","title":"Elevated error rates","updates":[]},`), 16<<10/72)
	header := http.Header{"Content-Type": {"application/json"}}
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		NewEntry(body, header, time.Time{})
	}
}
