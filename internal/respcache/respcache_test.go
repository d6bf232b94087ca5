package respcache

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cespare/xxhash/v2"

	"github.com/statusd/statusd/internal/testenv"
	"github.com/statusd/statusd/internal/testenv/gcshape"
)

func TestAcceptEncoding(t *testing.T) {
	for header, want := range map[string]string{
		"":                   "",
		"gzip":               "gzip",
		"gzip, deflate, br":  "gzip",
		"GZIP":               "gzip",
		"br":                 "",
		"gzip, zstd":         "zstd", // equal preference: zstd
		"zstd;q=0.5, gzip":   "gzip",
		"gzip;q=0, zstd":     "zstd",
		"gzip;q=0":           "",
		"deflate, gzip;q=.3": "gzip",
	} {
		if got := AcceptEncoding(header); got != want {
			t.Errorf("AcceptEncoding(%q) = %q, want %q", header, got, want)
		}
	}
}

func TestMatchesETag(t *testing.T) {
	for _, tc := range []struct {
		header string
		want   bool
	}{
		{`"abc"`, true},
		{`W/"abc"`, true},
		{`"x", "abc"`, true},
		{`*`, true},
		{`"abcd"`, false},
		{``, false},
	} {
		if got := MatchesETag(tc.header, `"abc"`); got != tc.want {
			t.Errorf("MatchesETag(%q) = %v, want %v", tc.header, got, tc.want)
		}
	}
}

// TestServe checks the identity, gzip and 304 answers of one entry.
func TestServe(t *testing.T) {
	body := []byte(`{"hello":"world"}`)
	tag := fmt.Sprintf(`"%016x"`, xxhash.Sum64(body)) // the body's 64-bit xxHash, 16 hex digits
	e := NewEntry(body, http.Header{"Content-Type": {"application/json"}, "Cache-Control": {"public, max-age=5"}}, time.Time{})
	serve := func(header ...string) *httptest.ResponseRecorder { return wire(t, e, header...) }

	w := serve()
	if w.Code != 200 || w.Body.String() != string(body) || w.Header().Get("ETag") != tag ||
		w.Header().Get("Content-Length") != strconv.Itoa(len(body)) || w.Header().Get("Vary") != "Accept-Encoding" ||
		w.Header().Get("Cache-Control") != "public, max-age=5" || w.Header().Get("Content-Encoding") != "" {
		t.Errorf("identity: %d %v %q", w.Code, w.Header(), w.Body)
	}

	w = serve("Accept-Encoding", "gzip")
	gz, err := gzip.NewReader(bytes.NewReader(w.Body.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	plain, _ := io.ReadAll(gz)
	gzTag := tag[:len(tag)-1] + `-gz"`
	if w.Code != 200 || string(plain) != string(body) || w.Header().Get("Content-Encoding") != "gzip" ||
		w.Header().Get("ETag") != gzTag || w.Header().Get("Content-Length") != strconv.Itoa(w.Body.Len()) {
		t.Errorf("gzip: %d %v", w.Code, w.Header())
	}

	w = serve("If-None-Match", tag)
	if w.Code != http.StatusNotModified || w.Body.Len() != 0 || w.Header().Get("Content-Type") != "" || w.Header().Get("ETag") != tag {
		t.Errorf("304: %d %v %q", w.Code, w.Header(), w.Body)
	}
	// The identity tag does not validate the gzip form.
	if w = serve("If-None-Match", tag, "Accept-Encoding", "gzip"); w.Code != 200 {
		t.Errorf("identity tag with gzip: %d, want 200", w.Code)
	}
	if w = serve("If-None-Match", gzTag, "Accept-Encoding", "gzip"); w.Code != http.StatusNotModified {
		t.Errorf("gzip tag with gzip: %d, want 304", w.Code)
	}
}

// wire serves e to a GET with the given headers through a real server,
// and returns what the client got, as a recorder holds it (the Date
// header aside): the Content-Length of a small body is net/http's.
func wire(t *testing.T, e *Entry, header ...string) *httptest.ResponseRecorder {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { Serve(w, r, e) }))
	defer srv.Close()
	// Identity unless told: the client leaves the body as sent.
	res, body := testenv.Fetch(t, http.MethodGet, srv.URL+"/x", append([]string{"Accept-Encoding", "identity"}, header...)...)
	w := httptest.NewRecorder()
	for k, v := range res.Header {
		if k != "Date" {
			w.Header()[k] = v
		}
	}
	w.WriteHeader(res.StatusCode)
	w.Body.WriteString(body)
	return w
}

// TestServeHeaders checks which of an entry's headers each answer
// carries, on the wire: a 200 all of them, with the entry's ETag,
// Content-Length, Cache-Control and Vary; a 304 all but those of the body
// (Content-Type and Content-Length, the entry's own included), and none
// that a handler before it set for the body.
func TestServeHeaders(t *testing.T) {
	body := []byte("<p>hi</p>")
	tag := fmt.Sprintf(`"%016x"`, xxhash.Sum64(body))
	// As a page of internal/web keeps it: its recorder's headers.
	e := NewEntry(body, http.Header{"Content-Type": {"text/html"}, "Content-Length": {"9"},
		"Content-Security-Policy": {"default-src 'self'"}, "Cache-Control": {"max-age=1"}}, time.Time{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Before", "1")
		w.Header().Set("Content-Type", "text/plain") // set by a handler before: not for a 304
		Serve(w, r, e)
	}))
	defer srv.Close()
	serve := func(inm string) (*http.Response, string) {
		res, b := testenv.Fetch(t, http.MethodGet, srv.URL, "Accept-Encoding", "identity", "If-None-Match", inm)
		res.Header.Del("Date")
		return res, b
	}
	want200 := http.Header{"X-Before": {"1"}, "Content-Type": {"text/html"}, "Content-Length": {"9"},
		"Content-Security-Policy": {"default-src 'self'"}, "Cache-Control": {"max-age=1"}, "Etag": {tag},
		"Vary": {"Accept-Encoding"}}
	if res, got := serve(""); res.StatusCode != 200 || got != string(body) || !reflect.DeepEqual(res.Header, want200) {
		t.Errorf("200: %d %q, headers\n%v\nwant\n%v", res.StatusCode, got, res.Header, want200)
	}
	want304 := http.Header{"X-Before": {"1"}, "Content-Security-Policy": {"default-src 'self'"},
		"Cache-Control": {"max-age=1"}, "Etag": {tag}, "Vary": {"Accept-Encoding"}}
	if res, got := serve(tag); res.StatusCode != 304 || got != "" || !reflect.DeepEqual(res.Header, want304) {
		t.Errorf("304: %d %q, headers\n%v\nwant\n%v", res.StatusCode, got, res.Header, want304)
	}
}

// TestServeContentLength: every 200 carries its body's Content-Length on
// the wire, not chunked, whether Serve sets it or leaves it to net/http
// (a body up to autoLength, written at once), GET and HEAD alike; and an
// API answer of a small body, behind the four headers that the public
// chain sets first, has eight headers, which the map holds without
// growing: it allocates nothing.
func TestServeContentLength(t *testing.T) {
	for _, size := range []int{0, 1, autoLength - 1, autoLength, autoLength + 1, 64 << 10} {
		e := NewEntry(bytes.Repeat([]byte("x"), size), http.Header{"Content-Type": {"text/plain"}}, time.Time{})
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { Serve(w, r, e) }))
		for _, method := range []string{http.MethodGet, http.MethodHead} {
			res, b := testenv.Fetch(t, method, srv.URL, "Accept-Encoding", "identity")
			want := size
			if method == http.MethodHead {
				want = 0
			}
			if res.StatusCode != 200 || res.ContentLength != int64(size) || res.Header.Get("Content-Length") != strconv.Itoa(size) ||
				len(res.TransferEncoding) != 0 || len(b) != want {
				t.Errorf("%s of %d bytes: %d, Content-Length %d (%q), Transfer-Encoding %v, %d bytes read",
					method, size, res.StatusCode, res.ContentLength, res.Header.Get("Content-Length"), res.TransferEncoding, len(b))
			}
		}
		srv.Close()
	}

	w, allocs := apiAllocs(apiEntry(), httptest.NewRequest(http.MethodGet, "/api/v1/status", nil))
	if w.status != http.StatusOK || len(w.h) != 8 || allocs != 0 {
		t.Errorf("%d with %d headers, %v allocations a request; want 200 with 8, none", w.status, len(w.h), allocs)
	}
}

// TestServeNotModifiedAllocs: a 304 of an API answer, behind the four
// headers that the public chain sets first (nosniff, the request id, CORS),
// allocates nothing: seven headers fit the map's first group, where
// setting the body's two and taking them out grew it each time. Nor does
// it range over a map of the entry's headers: it has none but its
// Content-Type and Cache-Control.
func TestServeNotModifiedAllocs(t *testing.T) {
	e := apiEntry()
	r := httptest.NewRequest(http.MethodGet, "/api/v1/status", nil)
	r.Header.Set("If-None-Match", e.identity.etag())
	w, allocs := apiAllocs(e, r)
	if w.status != http.StatusNotModified || len(w.h) != 7 || allocs != 0 {
		t.Errorf("%d with %d headers, %v allocations a request; want 304 with 7, none", w.status, len(w.h), allocs)
	}
	if e.header != nil {
		t.Errorf("an entry with only a Content-Type keeps the other headers %v, want none (no map to range over)", e.header)
	}
}

// apiEntry is a small answer of the API, with its two headers.
func apiEntry() *Entry {
	return NewEntry([]byte(`{"a":1}`), http.Header{"Content-Type": {"application/json; charset=utf-8"},
		"Cache-Control": {"public, max-age=5"}}, time.Time{})
}

// apiAllocs serves e to r behind the four headers that the public chain
// sets first (nosniff, the request id, CORS), and returns one of the
// writers and the allocations of a request.
func apiAllocs(e *Entry, r *http.Request) (*headerOnly, float64) {
	const runs = 100
	writers := make([]*headerOnly, runs+1) // AllocsPerRun calls once more to warm up
	for i := range writers {
		writers[i] = &headerOnly{h: http.Header{"X-Content-Type-Options": {"nosniff"}, "X-Request-Id": {"1"},
			"Access-Control-Allow-Origin": {"*"}, "Access-Control-Expose-Headers": {"ETag"}}}
	}
	i := 0
	allocs := testing.AllocsPerRun(runs, func() {
		Serve(writers[i], r, e)
		i++
	})
	return writers[0], allocs
}

// headerOnly is a ResponseWriter that keeps the headers and the status.
type headerOnly struct {
	h      http.Header
	status int
}

func (w *headerOnly) Header() http.Header         { return w.h }
func (w *headerOnly) Write(p []byte) (int, error) { return len(p), nil }
func (w *headerOnly) WriteHeader(status int)      { w.status = status }

// TestAlias checks that a target finds its key's answer while it holds,
// and follows the key when it changes.
func TestAlias(t *testing.T) {
	var p PerSource
	c := p.For("snapshot 1")
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	build := func(body string, until time.Time) func(time.Time) (*Entry, error) {
		return func(time.Time) (*Entry, error) { return NewEntry([]byte(body), nil, until), nil }
	}
	if e, _ := c.Lookup("/a?x=1", now); e != nil || c.Holds("a", now) {
		t.Fatal("an unknown target found an answer")
	}
	a, _ := c.Get("a", now, build("A", now.Add(time.Second)))
	if !c.Holds("a", now) || c.Holds("a", now.Add(time.Second)) || c.Holds("/a?x=1", now) {
		t.Error("Holds: want the key while its answer holds, not after, and not an alias before one is made")
	}
	c.Alias("/a?x=1", "a", "/a")
	if got, route := c.Lookup("/a?x=1", now); got != a || route != "/a" {
		t.Errorf("Lookup = %v, %q; want the answer under a, by /a", got, route)
	}
	if got, route := c.Lookup("/a?x=1", now.Add(time.Second)); got != nil || route != "" {
		t.Errorf("Lookup after the answer expired = %v, %q; want nil", got, route)
	}
	b, _ := c.Get("b", now, build("B", time.Time{}))
	c.Alias("/a?x=1", "b", "/b")
	if got, route := c.Lookup("/a?x=1", now.Add(time.Hour)); got != b || route != "/b" {
		t.Errorf("Lookup after re-aliasing = %v, %q; want the answer under b, by /b", got, route)
	}
	if e, _ := p.For("snapshot 2").Lookup("/a?x=1", now); e != nil {
		t.Error("a new source kept the old source's aliases")
	}
	c = p.For("snapshot 2")
	c.Get("b", now, build("B", time.Time{}))
	long := "/a?x=" + strings.Repeat("1", maxAliasTarget)
	c.Alias(long, "b", "/b")
	if e, _ := c.Lookup(long, now); e != nil {
		t.Error("a target longer than maxAliasTarget was aliased")
	}
}

// TestSharedHash checks that a key or target whose hash another one
// already has is never answered with the other's answer, and does not
// take its place. Two strings that share a seeded 64-bit hash cannot be
// found, so the test puts the first one in place under the second's hash.
func TestSharedHash(t *testing.T) {
	var p PerSource
	c := p.For("snapshot")
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	build := func(body string) func(time.Time) (*Entry, error) {
		return func(time.Time) (*Entry, error) { return NewEntry([]byte(body), nil, time.Time{}), nil }
	}
	other := NewEntry([]byte("B"), nil, time.Time{})
	other.key = "b"
	c.entries[c.hash("a")] = other // "b" is kept under the hash of "a"

	if c.Holds("a", now) {
		t.Error(`Holds("a") with only "b" kept`)
	}
	got, err := c.Get("a", now, build("A"))
	if err != nil || string(got.identity.body) != "A" {
		t.Fatalf(`Get("a") = %v, %v; want a's own answer`, got, err)
	}
	if c.entries[c.hash("a")] != other || len(c.entries) != 1 {
		t.Error(`"a" took the place of "b"`)
	}

	// An alias of "/b" is kept under the hash of "/a".
	route, _ := c.routeIndex("/route")
	c.aliases[c.hash("/a")] = alias{target: c.addText("/b"), key: c.addText("b"), keyHash: c.hash("a"), route: route}
	if e, _ := c.Lookup("/a", now); e != nil {
		t.Errorf(`Lookup("/a") = %q, the answer aliased to "/b"`, e.identity.body)
	}
	c.Alias("/a", "a", "/route")
	if a := c.aliases[c.hash("/a")]; string(c.textOf(a.target)) != "/b" {
		t.Error(`Alias("/a") took the place of the alias of "/b"`)
	}
	// An alias whose key's hash holds another key's answer.
	c.aliases[c.hash("/c")] = alias{target: c.addText("/c"), key: c.addText("a"), keyHash: c.hash("a"), route: route}
	if e, _ := c.Lookup("/c", now); e != nil {
		t.Errorf(`Lookup("/c"), aliased to "a", = %q, the answer under "b"`, e.identity.body)
	}
}

// TestAliasHoldsNoPointer checks the point of alias: a full cache's
// aliases are a map the garbage collector need not look into.
func TestAliasHoldsNoPointer(t *testing.T) {
	if found := gcshape.PointerPaths("alias", reflect.TypeFor[alias]()); len(found) > 0 {
		t.Errorf("alias holds pointers in %v", found)
	}
}

// TestAliasTextBounded checks that no alias is kept once the targets and
// keys kept would pass maxAliasText, and that those kept still answer.
func TestAliasTextBounded(t *testing.T) {
	var p PerSource
	c := p.For("snapshot")
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	c.Get("k", now, func(time.Time) (*Entry, error) { return NewEntry([]byte("K"), nil, time.Time{}), nil })
	c.Alias("/first", "k", "/route")
	c.text = append(c.text, make([]byte, maxAliasText-len(c.text)-len("/next")-len("k")+1)...)
	c.Alias("/next", "k", "/route")
	if e, _ := c.Lookup("/next", now); e != nil {
		t.Error("an alias was kept past maxAliasText")
	}
	if e, route := c.Lookup("/first", now); e == nil || route != "/route" {
		t.Error("the alias kept before the bound no longer answers")
	}
}

// TestBytesBounded checks that answers stop being kept once they would
// pass MaxBytes, that the ones kept are still served, and that an answer
// made again under a kept key that no longer fits is dropped, not kept
// past the bound.
func TestBytesBounded(t *testing.T) {
	var p PerSource
	c := p.For("snapshot")
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	body := make([]byte, 1<<20) // costs 2 MiB and 512 bytes
	builds := 0
	build := func(until time.Time, size int) func(time.Time) (*Entry, error) {
		return func(time.Time) (*Entry, error) {
			builds++
			return NewEntry(body[:size], nil, until), nil
		}
	}
	fit := int(MaxBytes / (2<<20 + 512)) // 31 of them fit in 64 MiB
	for i := range fit + 5 {
		c.Get(strconv.Itoa(i), now, build(time.Time{}, len(body)))
	}
	builds = 0
	for i := range fit + 5 {
		c.Get(strconv.Itoa(i), now, build(time.Time{}, len(body)))
	}
	if builds != 5 {
		t.Errorf("asked again for %d answers of which %d were kept: %d computed, want 5", fit+5, fit, builds)
	}
	// Key 0 again, expired and larger: the cache has no room for it.
	c.Get("x", now, build(now.Add(time.Second), 1000))
	c.Get("x", now.Add(time.Second), build(now.Add(time.Hour), len(body)))
	builds = 0
	c.Get("x", now.Add(2*time.Second), build(now.Add(time.Hour), len(body)))
	if builds != 1 {
		t.Error("an answer made again that no longer fits was kept past MaxBytes")
	}
}

// TestComputeLent: an answer of Compute that the cache keeps holds a copy
// of its body, not the lent buffer; one that it does not keep (the cache
// is full) is served from the lent buffer, which Serve then gives back,
// and lending it again for other answers does not change the kept answer.
func TestComputeLent(t *testing.T) {
	var p PerSource
	c := p.For("snapshot")
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	compute := func(body string) func(time.Time) (*Entry, error) {
		return func(time.Time) (*Entry, error) {
			return Compute(func(dst []byte) ([]byte, error) { return append(dst, body...), nil }, nil, time.Time{})
		}
	}
	serve := func(e *Entry) *httptest.ResponseRecorder {
		w := httptest.NewRecorder()
		Serve(w, httptest.NewRequest(http.MethodGet, "/x", nil), e)
		return w
	}

	kept, _ := c.Get("kept", now, compute("kept answer"))
	if kept.room != nil || kept.owned {
		t.Error("a kept answer still holds its lent buffer")
	}
	for range 2 {
		if got := serve(kept).Body.String(); got != "kept answer" {
			t.Fatalf("kept answer: %q", got)
		}
	}
	for i := len(c.entries); i < MaxEntries; i++ {
		c.Get(strconv.Itoa(i), now, func(time.Time) (*Entry, error) { return NewEntry([]byte("."), nil, time.Time{}), nil })
	}
	first, _ := c.Get("first", now, compute("first answer"))
	if !first.owned || first.room == nil {
		t.Fatal("an answer not kept is not served from its lent buffer")
	}
	if got := serve(first).Body.String(); got != "first answer" {
		t.Errorf("first answer: %q", got)
	}
	if first.room != nil || first.identity.body != nil {
		t.Error("the lent buffer was not given back once served")
	}
	for _, body := range []string{"other answer", "third answer"} { // as long as "kept answer", in reused buffers
		e, _ := c.Get(body, now, compute(body))
		r := serve(e)
		if r.Body.String() != body || r.Header().Get("ETag") != fmt.Sprintf(`"%016x"`, xxhash.Sum64([]byte(body))) {
			t.Errorf("%s: %q with ETag %s", body, r.Body.String(), r.Header().Get("ETag"))
		}
	}
	if c.Holds("first", now) || c.Holds("other answer", now) {
		t.Error("an answer was kept in a full cache")
	}
	if got := serve(kept).Body.String(); got != "kept answer" {
		t.Errorf("the kept answer after its buffer was lent again: %q", got)
	}
}
