package statusd

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
)

// FuzzDecodeDocument feeds arbitrary bytes to DecodeDocument: it never
// panics, every error is a *ValidationError with at least one problem, and
// a document it accepts encodes (EncodeDocument, as statusd export writes
// it) to a document that decodes to an equal one.
//
// The seed corpus is c5BaseDoc and its variants below, and the committed
// entries in testdata/fuzz/FuzzDecodeDocument. A longer run:
//
//	go test . -run '^$' -fuzz FuzzDecodeDocument -fuzztime 60s
func FuzzDecodeDocument(f *testing.F) {
	seeds := []string{
		c5BaseDoc,
		strings.Replace(c5BaseDoc, `"resolved"`, `"resolvd"`, 1),
		strings.Replace(c5BaseDoc, `"parent_id": 1`, `"parent_id": 2`, 1),
		strings.Replace(c5BaseDoc, `"2026-02-01T11:00:00.000Z", "updated_at": "2026-02-01T11:00:00.000Z"}`,
			`"2026-02-01T09:00:00+05:30"}`, 1),
		strings.Replace(c5BaseDoc, `"expires_at": null`, `"expires_at": "2026-12-31T23:59:59.999999Z", "state_texts": {}`, 1),
		`{"page": {"name": "P", "url": "https://p.test", "created_at": "2026-01-01T00:00:00Z",
		  "state_texts": {"operational": "Fine", "degraded": "Not fine", "under_maintenance": "Busy"}},
		  "components": [], "notices": [{"id": 9223372036854775807, "type": "unplanned", "subject": "s",
		  "impact_seconds": 0, "created_at": "2026-01-01T00:00:00Z",
		  "updates": [{"id": 1, "state": "false_alarm", "content": "\u00e9\ud83d\ude00",
		  "created_at": "2026-01-01T00:00:00Z"}]}]}`,
		`{"page": {"name": "P", "url": "u", "created_at": "0001-01-01T00:00:00Z"}, "components": [], "notices": []}`,
		`{"page": {"name": "P", "url": "u", "created_at": "9999-12-31T23:59:59.999Z"}, "components": [], "notices": []}`,
		`{"page": {"name": "P", "url": "u", "created_at": "2026-01-01T00:00:00Z"}, "components": [{"id": 1e3, "name": "x"}], "notices": []}`,
		`{"page": {"name": "P", "url": "https://p.test", "created_at": "2026-01-01T00:00:00Z"},
		  "components": [{"id": 1, "name": "x", "created_at": "2026-01-01T00:00:00Z"}], "notices": [],
		  "subscribers": [{"id": 1, "channel": "webhook", "address": "https://h.test/x", "component_ids": [1],
		  "state": "active", "secret": "whsec_AAAA", "created_at": "2026-01-01T00:00:00Z"},
		  {"id": 2, "channel": "email", "address": "a@b.test", "created_at": "2026-01-01T00:00:00Z"}]}`,
		`{"page": null, "components": {}, "notices": "x"}`,
		`{} {}`,
		`[]`,
		`null`,
		``,
		"{\"page\": {\"name\": \"\xff\"}}",
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		doc, err := DecodeDocument(bytes.NewReader(data))
		if err != nil {
			verr, ok := err.(*ValidationError)
			if !ok {
				t.Fatalf("error %T %v is not a *ValidationError", err, err)
			}
			if len(verr.Problems) == 0 || verr.Error() == "" {
				t.Fatalf("a *ValidationError without problems")
			}
			if doc != nil {
				t.Fatalf("a document and an error")
			}
			return
		}
		if doc == nil {
			t.Fatal("no document and no error")
		}
		for i, n := range doc.Notices {
			if !n.Type.Valid() {
				t.Fatalf("notices[%d].type %q accepted by DecodeDocument", i, n.Type)
			}
		}
		var buf bytes.Buffer
		if err := EncodeDocument(&buf, doc); err != nil {
			t.Fatalf("an accepted document does not encode: %v", err)
		}
		again, err := DecodeDocument(bytes.NewReader(buf.Bytes()))
		if err != nil {
			t.Fatalf("the encoded document does not decode: %v\n%s", err, buf.Bytes())
		}
		if !reflect.DeepEqual(doc, again) {
			t.Fatalf("decode(encode(doc)) differs from doc:\n%#v\n%#v", doc, again)
		}
		var buf2 bytes.Buffer
		if err := EncodeDocument(&buf2, again); err != nil || !bytes.Equal(buf.Bytes(), buf2.Bytes()) {
			t.Fatalf("encoding is not stable: %v\n%s\n%s", err, buf.Bytes(), buf2.Bytes())
		}
	})
}
