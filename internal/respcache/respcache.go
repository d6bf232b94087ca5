// Package respcache keeps answers made from one snapshot, so that each is
// computed once (one computation per key at a time) and served as bytes:
// with a strong ETag per encoding, If-None-Match answered 304, and gzip and
// zstd forms made at most once, on first demand.
package respcache

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
	"golang.org/x/sync/singleflight"
)

// MaxEntries bounds the answers kept per snapshot; past it, answers are
// computed for each request, so that no key space grows memory unbounded.
const MaxEntries = 20000

// Entry is one answer.
type Entry struct {
	body   []byte
	etag   string    // of the identity body; encodings add a suffix
	until  time.Time // zero: valid as long as its cache
	header http.Header
	gz     lazy
	zst    lazy
}

// NewEntry makes an answer of body, with the headers to send with it
// (Content-Type at least), kept until the given moment (zero: as long as
// its cache).
func NewEntry(body []byte, header http.Header, until time.Time) *Entry {
	sum := sha256.Sum256(body)
	return &Entry{body: body, etag: hex.EncodeToString(sum[:12]), until: until, header: header}
}

type lazy struct {
	once sync.Once
	b    []byte
}

func (l *lazy) get(make func() []byte) []byte {
	l.once.Do(func() { l.b = make() })
	return l.b
}

// Cache holds the answers computed from one source (a snapshot). It is safe
// for concurrent use.
type Cache struct {
	source  any
	mu      sync.RWMutex
	entries map[string]*Entry
	flight  singleflight.Group
}

// Get returns the answer under key, computing it with build when it is not
// kept or has expired. An error from build is returned and never kept.
func (c *Cache) Get(key string, now time.Time, build func(now time.Time) (*Entry, error)) (*Entry, error) {
	c.mu.RLock()
	e := c.entries[key]
	c.mu.RUnlock()
	if e != nil && (e.until.IsZero() || now.Before(e.until)) {
		return e, nil
	}
	v, err, _ := c.flight.Do(key, func() (any, error) {
		e, err := build(now)
		if err != nil {
			return nil, err
		}
		c.mu.Lock()
		if len(c.entries) < MaxEntries || c.entries[key] != nil {
			c.entries[key] = e
		}
		c.mu.Unlock()
		return e, nil
	})
	if err != nil {
		return nil, err
	}
	return v.(*Entry), nil
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
		fresh := &Cache{source: source, entries: map[string]*Entry{}}
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
// 304 when the client's copy is current. cacheControl is the
// Cache-Control header.
func Serve(w http.ResponseWriter, r *http.Request, e *Entry, cacheControl string) {
	body, etag, encoding := e.body, `"`+e.etag+`"`, ""
	switch AcceptEncoding(r.Header.Get("Accept-Encoding")) {
	case "zstd":
		body, etag, encoding = e.zst.get(func() []byte { return zstded(e.body) }), `"`+e.etag+`-zst"`, "zstd"
	case "gzip":
		body, etag, encoding = e.gz.get(func() []byte { return gzipped(e.body) }), `"`+e.etag+`-gz"`, "gzip"
	}
	h := w.Header()
	for k, v := range e.header {
		h[k] = v
	}
	h.Set("ETag", etag)
	h.Set("Cache-Control", cacheControl)
	h.Set("Vary", "Accept-Encoding")
	if encoding != "" {
		h.Set("Content-Encoding", encoding)
	}
	if MatchesETag(r.Header.Get("If-None-Match"), etag) {
		h.Del("Content-Type")
		w.WriteHeader(http.StatusNotModified)
		return
	}
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		w.Write(body)
	}
}

// AcceptEncoding picks zstd, gzip or identity ("") from an Accept-Encoding
// header, honouring q=0.
func AcceptEncoding(header string) string {
	if header == "" {
		return ""
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
	for part := range strings.SplitSeq(header, ",") {
		tag := strings.TrimPrefix(strings.TrimSpace(part), "W/")
		if tag == "*" || tag == etag {
			return true
		}
	}
	return false
}
