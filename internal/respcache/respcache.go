// Package respcache keeps answers made from one snapshot, so that each is
// computed once (one computation per key at a time) and served as bytes:
// with a strong ETag per encoding, If-None-Match answered 304, and gzip and
// zstd forms made at most once, on first demand.
package respcache

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"hash/maphash"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cespare/xxhash/v2"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
	"golang.org/x/sync/singleflight"
)

// MaxEntries and MaxBytes bound the answers kept per snapshot; past
// either, answers are computed for each request, so that no key space (a
// flood of every page of every filter, say) grows memory unbounded.
const (
	MaxEntries = 20000
	MaxBytes   = 64 << 20
)

// maxAliasTarget is the longest request target Alias keeps, and
// maxAliasText the most bytes of targets and keys that a cache's aliases
// keep: past it, no new alias is kept (requests are still answered, through
// their route).
const (
	maxAliasTarget = 512
	maxAliasText   = 4 << 20
)

// cost is what keeping e counts against MaxBytes: its body, room for its
// compressed forms, and the entry itself.
func (e *Entry) cost() int64 { return 2*int64(len(e.identity.body)) + 512 }

// Entry is one answer. A cache holds up to MaxEntries of them, and the
// garbage collector looks at each of their objects and pointers at every
// cycle: a kept entry is three objects (itself, its body, and one string
// for its key and header values), and the encoded forms only once asked
// for.
type Entry struct {
	identity form
	gz, zst  lazyForm
	until    int64 // Unix nanoseconds; 0: valid as long as its cache
	// contentType is the Content-Type of the body, cacheControl its
	// Cache-Control, and header the other headers to send with it, nil
	// when there are none (an API answer), so that serving it ranges over
	// no map.
	contentType, cacheControl []string
	header                    http.Header
	key                       string // the key under which a cache keeps it, once kept
	// room, when not nil, is the lent buffer that holds the identity body
	// (see Compute); owned says that the caller of Get alone holds the
	// entry, so that Serve gives room back once it has written it.
	room  *[]byte
	owned bool
}

// form is the answer in one encoding, with the header values that go with
// it made once, so that serving it allocates nothing for them.
type form struct {
	body []byte
	// values are the ETag (quoted) and the Content-Length, in one string.
	values   [2]string
	encoding []string // Content-Encoding; nil for identity
}

// newForm makes the form of body whose ETag is tag and suffix, quoted.
func newForm(body []byte, tag, suffix string, encoding []string) form {
	b := make([]byte, 0, len(tag)+len(suffix)+2+20)
	b = append(append(append(append(b, '"'), tag...), suffix...), '"')
	etagEnd := len(b)
	b = strconv.AppendInt(b, int64(len(body)), 10)
	both := string(b)
	return form{body: body, values: [2]string{both[:etagEnd], both[etagEnd:]}, encoding: encoding}
}

func (f *form) etag() string { return f.values[0] }

// NewEntry makes an answer of body, with the headers to send with it
// (Content-Type and Cache-Control at least), kept until the given moment
// (zero: as long as its cache). header is kept, not copied: it is not to
// change.
func NewEntry(body []byte, header http.Header, until time.Time) *Entry {
	e := &Entry{identity: newForm(body, contentTag(body), "", nil), contentType: header["Content-Type"],
		cacheControl: header["Cache-Control"], header: otherHeaders(header)}
	if !until.IsZero() {
		e.until = until.UnixNano()
	}
	return e
}

// Compute makes an answer as NewEntry does, of the body that appendBody
// appends to a lent buffer. An answer that Get does not keep (the cache is
// full: a flood of pages the cache cannot hold, say) gives the buffer back
// once served, so that its body, most of what computing it allocates, is
// not garbage for the collector; one that is kept keeps a copy of its
// exact size.
func Compute(appendBody func(dst []byte) ([]byte, error), header http.Header, until time.Time) (*Entry, error) {
	room := bodies.Get().(*[]byte)
	body, err := appendBody((*room)[:0])
	if err != nil {
		giveBack(room)
		return nil, err
	}
	*room = body
	e := NewEntry(body, header, until)
	e.room = room
	return e, nil
}

// bodies are the buffers lent by Compute, up to maxLentBody bytes each.
var bodies = sync.Pool{New: func() any { return new([]byte) }}

const maxLentBody = 1 << 20

func giveBack(room *[]byte) {
	if cap(*room) <= maxLentBody {
		*room = (*room)[:0]
		bodies.Put(room)
	}
}

// settle makes e its own before it is kept under key: its body a copy of
// its exact size, the lent buffer given back; and its key and the header
// values of its identity in one string, since the collector marks each
// object that a kept answer holds at every cycle.
func (e *Entry) settle(key string) {
	v := &e.identity.values
	all := v[0] + v[1] + key
	v[0], v[1], e.key = all[:len(v[0])], all[len(v[0]):len(v[0])+len(v[1])], all[len(v[0])+len(v[1]):]
	if e.room != nil {
		e.identity.body = bytes.Clone(e.identity.body)
		giveBack(e.room)
		e.room = nil
	}
}

// contentTag is the ETag of body, unquoted: its 64-bit xxHash in hex. It
// tells versions of one answer apart, and is the same across restarts, so
// that a proxy's revalidation survives one. (SHA-256 took a sixth of the
// computing of a list page; xxHash is about ten times as fast.)
func contentTag(body []byte) string {
	var sum [8]byte
	binary.BigEndian.PutUint64(sum[:], xxhash.Sum64(body))
	return hex.EncodeToString(sum[:])
}

// tag is the ETag of the identity body, unquoted; encodings add a suffix.
func (e *Entry) tag() string {
	etag := e.identity.etag()
	return etag[1 : len(etag)-1]
}

// lazyForm is an encoded form, made at most once, on first demand.
type lazyForm struct {
	once sync.Once
	f    *form
}

func (l *lazyForm) get(build func() form) *form {
	l.once.Do(func() {
		f := build()
		l.f = &f
	})
	return l.f
}

var (
	gzipH = []string{"gzip"}
	zstdH = []string{"zstd"}
	varyH = []string{"Accept-Encoding"}
)

// form returns the entry in the best encoding an Accept-Encoding header
// allows.
func (e *Entry) form(acceptEncoding string) *form {
	switch AcceptEncoding(acceptEncoding) {
	case "zstd":
		return e.zst.get(func() form { return newForm(zstded(e.identity.body), e.tag(), "-zst", zstdH) })
	case "gzip":
		return e.gz.get(func() form { return newForm(gzipped(e.identity.body), e.tag(), "-gz", gzipH) })
	}
	return &e.identity
}

// Cache holds the answers computed from one source (a snapshot). It is safe
// for concurrent use.
//
// The garbage collector looks into everything a cache holds at every
// cycle, and a full cache holds up to MaxEntries answers and as many
// aliases: maps by string cost it two pointers and an object for each
// key. Its maps are therefore keyed by a hash of the key (see hash), and
// the aliases hold no pointer at all: their targets and keys are kept in
// one array of bytes. Each answer knows its key and each alias its target,
// so that a hash that two keys share can never answer one with the
// other's answer: the key that comes second is not kept.
type Cache struct {
	source  any
	seed    maphash.Seed
	mu      sync.RWMutex
	entries map[uint64]*Entry // by the hash of their key
	size    int64             // the cost of the entries
	aliases map[uint64]alias  // by the hash of their request target
	text    []byte            // the targets and keys of the aliases
	routes  []string          // the routes of the aliases, each once
	flight  singleflight.Group
}

// hash is the hash of a key or request target, seeded per cache, so that
// no client can choose targets that share one.
func (c *Cache) hash(s string) uint64 { return maphash.String(c.seed, s) }

// valid reports whether e still holds at now.
func (e *Entry) valid(now time.Time) bool { return e.until == 0 || now.UnixNano() < e.until }

// Holds reports whether an answer under key is kept and still holds at
// now: whether asking for it costs no computation.
func (c *Cache) Holds(key string, now time.Time) bool {
	c.mu.RLock()
	e := c.entries[c.hash(key)]
	c.mu.RUnlock()
	return e != nil && e.key == key && e.valid(now)
}

// alias is what a request target is answered with: the answer under key,
// by the route (a ServeMux pattern) that computed it. It holds no pointer:
// target and key are where Cache.text keeps them, route an index in
// Cache.routes.
type alias struct {
	target, key textSpan
	keyHash     uint64
	route       uint16
}

// textSpan is the range [start, end) of Cache.text.
type textSpan struct{ start, end int32 }

func (c *Cache) textOf(s textSpan) []byte { return c.text[s.start:s.end] }

// addText keeps s in c.text. c.mu is held.
func (c *Cache) addText(s string) textSpan {
	start := len(c.text)
	c.text = append(c.text, s...)
	return textSpan{int32(start), int32(len(c.text))}
}

// routeIndex is the index of route in c.routes, added when new; false when
// c.routes is full. c.mu is held.
func (c *Cache) routeIndex(route string) (uint16, bool) {
	i := slices.Index(c.routes, route)
	if i < 0 {
		if len(c.routes) > math.MaxUint16 {
			return 0, false
		}
		i = len(c.routes)
		c.routes = append(c.routes, route)
	}
	return uint16(i), true
}

// Lookup returns the answer under the key a request target was aliased
// to, while it holds, and the route of the alias; or nil.
func (c *Cache) Lookup(target string, now time.Time) (*Entry, string) {
	h := c.hash(target)
	c.mu.RLock()
	var e *Entry
	var route string
	if a, ok := c.aliases[h]; ok && string(c.textOf(a.target)) == target {
		if k := c.entries[a.keyHash]; k != nil && k.key == string(c.textOf(a.key)) {
			e, route = k, c.routes[a.route]
		}
	}
	c.mu.RUnlock()
	if e != nil && e.valid(now) {
		return e, route
	}
	return nil, ""
}

// Alias records that a request target (its path and raw query) is
// answered by the answer under key, which route computed, for Lookup.
// Aliases are bounded like the answers, and targets longer than
// maxAliasTarget are not kept (a request line can be a megabyte long).
func (c *Cache) Alias(target, key, route string) {
	if len(target) > maxAliasTarget {
		return
	}
	h := c.hash(target)
	c.mu.RLock()
	old, ok := c.aliases[h]
	same := ok && c.sameAlias(old, target, key, route)
	c.mu.RUnlock()
	if same {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	old, ok = c.aliases[h]
	switch {
	case ok && string(c.textOf(old.target)) != target:
		return // another target has the same hash: this one goes through its route
	case ok && c.sameAlias(old, target, key, route):
		return
	case !ok && len(c.aliases) >= MaxEntries, len(c.text)+len(target)+len(key) > maxAliasText:
		return
	}
	r, ok := c.routeIndex(route)
	if !ok {
		return
	}
	c.aliases[h] = alias{target: c.addText(target), key: c.addText(key), keyHash: c.hash(key), route: r}
}

// sameAlias reports whether a aliases target to key by route. c.mu is held.
func (c *Cache) sameAlias(a alias, target, key, route string) bool {
	return string(c.textOf(a.target)) == target && string(c.textOf(a.key)) == key && c.routes[a.route] == route
}

// Get returns the answer under key, computing it with build when it is not
// kept or has expired. An error from build is returned and never kept.
func (c *Cache) Get(key string, now time.Time, build func(now time.Time) (*Entry, error)) (*Entry, error) {
	h := c.hash(key)
	c.mu.RLock()
	e := c.entries[h]
	c.mu.RUnlock()
	if e != nil && e.key == key && e.valid(now) {
		return e, nil
	}
	v, err, shared := c.flight.Do(key, func() (any, error) {
		e, err := build(now)
		if err != nil {
			return nil, err
		}
		c.mu.Lock()
		old := c.entries[h]
		var freed int64
		if old != nil {
			freed = old.cost()
		}
		switch {
		case old != nil && old.key != key:
			// Another key has the same hash: this one is computed each
			// time.
		case c.size-freed+e.cost() <= MaxBytes && (old != nil || len(c.entries) < MaxEntries):
			e.settle(key)
			c.entries[h] = e
			c.size += e.cost() - freed
		case old != nil:
			delete(c.entries, h)
			c.size -= freed
		}
		c.mu.Unlock()
		return e, nil
	})
	if err != nil {
		return nil, err
	}
	e = v.(*Entry)
	if e.room != nil && !shared {
		e.owned = true // not kept, and no other request waited for it
	}
	return e, nil
}

// PerSource keeps the cache of the current source, starting an empty one
// whenever the source changes. It is safe for concurrent use.
type PerSource struct {
	cur atomic.Pointer[Cache]
}

// For returns the cache of source.
func (p *PerSource) For(source any) *Cache {
	for {
		c := p.cur.Load()
		if c != nil && c.source == source {
			return c
		}
		fresh := &Cache{source: source, seed: maphash.MakeSeed(), entries: map[uint64]*Entry{}, aliases: map[uint64]alias{}}
		if p.cur.CompareAndSwap(c, fresh) {
			return fresh
		}
	}
}

var zstdEncoder, _ = zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedDefault))

func gzipped(b []byte) []byte {
	var buf bytes.Buffer
	w, _ := gzip.NewWriterLevel(&buf, gzip.DefaultCompression)
	w.Write(b)
	w.Close()
	return buf.Bytes()
}

func zstded(b []byte) []byte { return zstdEncoder.EncodeAll(b, nil) }

// Serve answers with the entry in the best encoding the client accepts, or
// 304 when the client's copy is current. It is the last use of an entry
// that Get returned: the body of an answer not kept is given back.
//
// A 304 gets the entry's headers but those of the body (bodyHeaders),
// which are never set rather than set and taken out: an API answer's 304
// then has seven headers, which a map holds without growing, where
// setting nine grew it on every request; a 200 of a small body has eight
// (see autoLength).
func Serve(w http.ResponseWriter, r *http.Request, e *Entry) {
	if e.owned {
		defer e.release()
	}
	f := e.form(get(r, "Accept-Encoding"))
	current := MatchesETag(get(r, "If-None-Match"), f.etag())
	h := w.Header()
	for k, v := range e.header {
		h[k] = v
	}
	if !current && e.contentType != nil {
		h["Content-Type"] = e.contentType
	}
	// The header values are slices of the form's own array: no allocation,
	// and nothing that net/http changes.
	h["Etag"] = f.values[0:1:1]
	h["Cache-Control"] = e.cacheControl
	h["Vary"] = varyH
	if f.encoding != nil {
		h["Content-Encoding"] = f.encoding
	}
	if current {
		notModified(w)
		return
	}
	// net/http adds the Content-Length of a body under a few KB written at
	// once, without a Flush (http.ResponseWriter's Write), at no cost to
	// the header map: set here, it would be an API answer's ninth header,
	// which grows the map, and net/http's copy of it, on every request. A
	// HEAD writes no body: it gets its Content-Length here.
	if len(f.body) > autoLength || r.Method == http.MethodHead {
		h["Content-Length"] = f.values[1:2:2]
	}
	writeBody(w, r, f.body) // the body written out, or copied, when it returns
}

// autoLength is the largest body whose Content-Length Serve leaves to
// net/http: "under a few KB", half of the buffer net/http writes through
// (2 KB in Go 1.26). TestServeContentLength checks it on the wire.
const autoLength = 1024

// ServeConditional is the one conditional GET of statusd, for every
// cached answer: it ends an answer whose headers are set (its ETag, etag,
// and Content-Length among them) with 304 Not Modified, without
// Content-Type and Content-Length, when r's If-None-Match names etag
// (MatchesETag), and otherwise with 200 and body, only the headers for
// HEAD. Serve decides the same way, before it sets the headers.
func ServeConditional(w http.ResponseWriter, r *http.Request, etag string, body []byte) {
	if MatchesETag(get(r, "If-None-Match"), etag) {
		notModified(w)
		return
	}
	writeBody(w, r, body)
}

// get is r's header k, as r.Header.Get(k) returns it, for a canonical k:
// net/http keeps a request's headers under canonical keys, and Get would
// make k canonical again on every request.
func get(r *http.Request, k string) string {
	if v := r.Header[k]; len(v) > 0 {
		return v[0]
	}
	return ""
}

// bodyHeaders are the headers that describe a body, which a 304 does not
// have.
var bodyHeaders = [...]string{"Content-Type", "Content-Length"}

// otherHeaders is header without bodyHeaders and Cache-Control (Serve
// sets them from the entry's fields), or nil when nothing else is left.
func otherHeaders(header http.Header) http.Header {
	var rest http.Header
	for k, v := range header {
		if !slices.Contains(bodyHeaders[:], k) && k != "Cache-Control" {
			if rest == nil {
				rest = make(http.Header, len(header))
			}
			rest[k] = v
		}
	}
	return rest
}

// notModified ends an answer with 304, without bodyHeaders.
func notModified(w http.ResponseWriter) {
	h := w.Header()
	for _, k := range bodyHeaders {
		delete(h, k)
	}
	w.WriteHeader(http.StatusNotModified)
}

// writeBody ends an answer with 200 and body, only the headers for HEAD.
func writeBody(w http.ResponseWriter, r *http.Request, body []byte) {
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		w.Write(body)
	}
}

// release gives back the lent buffer of an entry that its caller alone
// held, once served: the entry is not to be used again.
func (e *Entry) release() {
	e.owned = false
	e.identity.body = nil
	giveBack(e.room)
	e.room = nil
}

// AcceptEncoding picks zstd, gzip or identity ("") from an Accept-Encoding
// header, honouring q=0.
func AcceptEncoding(header string) string {
	switch header {
	case "":
		return ""
	case "gzip", "gzip, deflate", "gzip, deflate, br":
		return "gzip" // the most common headers, without parsing
	}
	best, bestQ := "", 0.0
	for part := range strings.SplitSeq(header, ",") {
		name, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		q := 1.0
		if v, ok := strings.CutPrefix(strings.TrimSpace(params), "q="); ok {
			if f, err := strconv.ParseFloat(v, 64); err == nil {
				q = f
			}
		}
		name = strings.ToLower(strings.TrimSpace(name))
		if (name == "zstd" || name == "gzip") && q > 0 && (q > bestQ || (q == bestQ && name == "zstd")) {
			best, bestQ = name, q
		}
	}
	return best
}

// MatchesETag applies If-None-Match with the weak comparison of RFC 9110.
func MatchesETag(header, etag string) bool {
	if header == "" {
		return false
	}
	if header == etag {
		return true
	}
	for part := range strings.SplitSeq(header, ",") {
		tag := strings.TrimPrefix(strings.TrimSpace(part), "W/")
		if tag == "*" || tag == etag {
			return true
		}
	}
	return false
}
