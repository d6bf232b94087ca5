package api

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
	"golang.org/x/sync/singleflight"

	"github.com/statusd/statusd/internal/httpjson"
	"github.com/statusd/statusd/internal/snapshot"
)

// maxEntries bounds the answers kept per snapshot; past it, answers are
// computed for each request (no key space can grow memory without bound).
const maxEntries = 20000

// entry is one answer, marshalled once, with its compressed forms made at
// most once each, on first demand.
type entry struct {
	body  []byte
	etag  string    // of the identity body; encodings add a suffix
	until time.Time // zero: valid as long as its snapshot
	gz    lazy
	zst   lazy
}

type lazy struct {
	once sync.Once
	b    []byte
}

func (l *lazy) get(make func() []byte) []byte {
	l.once.Do(func() { l.b = make() })
	return l.b
}

// cache holds the answers computed from one snapshot, under normalised
// keys, with one computation per key at a time.
type cache struct {
	snap    *snapshot.Snapshot
	mu      sync.RWMutex
	entries map[string]*entry
	flight  singleflight.Group
}

// cacheFor returns the cache of snap, replacing the cache of an older
// snapshot.
func (s *Server) cacheFor(snap *snapshot.Snapshot) *cache {
	for {
		c := s.cache.Load()
		if c != nil && c.snap == snap {
			return c
		}
		fresh := &cache{snap: snap, entries: map[string]*entry{}}
		if s.cache.CompareAndSwap(c, fresh) {
			return fresh
		}
	}
}

// builder computes an answer at now; timeDependent says it changes with
// the clock, so that it is kept for the rest of the second only.
type builder func(now time.Time) (v any, timeDependent bool, err error)

// get returns the answer under key, computing it with build when it is not
// kept or has expired. Errors are never kept.
func (c *cache) get(key string, now time.Time, build builder) (*entry, error) {
	c.mu.RLock()
	e := c.entries[key]
	c.mu.RUnlock()
	if e != nil && (e.until.IsZero() || now.Before(e.until)) {
		return e, nil
	}
	v, err, _ := c.flight.Do(key, func() (any, error) {
		v, timeDependent, err := build(now)
		if err != nil {
			return nil, err
		}
		body, err := httpjson.Marshal(v)
		if err != nil {
			return nil, err
		}
		sum := sha256.Sum256(body)
		e := &entry{body: body, etag: hex.EncodeToString(sum[:12])}
		if timeDependent {
			e.until = now.Truncate(time.Second).Add(time.Second)
		}
		c.mu.Lock()
		if len(c.entries) < maxEntries || c.entries[key] != nil {
			c.entries[key] = e
		}
		c.mu.Unlock()
		return e, nil
	})
	if err != nil {
		return nil, err
	}
	return v.(*entry), nil
}

var zstdEncoder, _ = zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedBetterCompression))

func gzipped(b []byte) []byte {
	var buf bytes.Buffer
	w, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	w.Write(b)
	w.Close()
	return buf.Bytes()
}

func zstded(b []byte) []byte { return zstdEncoder.EncodeAll(b, nil) }

// CacheControl are the caching directives of successful answers, so that a
// CDN or proxy in front can absorb a spike.
type CacheControl struct {
	MaxAge, StaleWhileRevalidate, StaleIfError time.Duration
}

func (c CacheControl) header() string {
	secs := func(d time.Duration) string { return strconv.Itoa(int(d / time.Second)) }
	return "public, max-age=" + secs(c.MaxAge) + ", stale-while-revalidate=" + secs(c.StaleWhileRevalidate) +
		", stale-if-error=" + secs(c.StaleIfError)
}

// serveEntry answers with the entry in the best encoding the client
// accepts, or 304 when the client's copy is current.
func (s *Server) serveEntry(w http.ResponseWriter, r *http.Request, e *entry) {
	body, etag, encoding := e.body, `"`+e.etag+`"`, ""
	switch acceptEncoding(r.Header.Get("Accept-Encoding")) {
	case "zstd":
		body, etag, encoding = e.zst.get(func() []byte { return zstded(e.body) }), `"`+e.etag+`-zst"`, "zstd"
	case "gzip":
		body, etag, encoding = e.gz.get(func() []byte { return gzipped(e.body) }), `"`+e.etag+`-gz"`, "gzip"
	}
	h := w.Header()
	h.Set("ETag", etag)
	h.Set("Cache-Control", s.cacheControl)
	h.Set("Vary", "Accept-Encoding")
	if encoding != "" {
		h.Set("Content-Encoding", encoding)
	}
	if matchesETag(r.Header.Get("If-None-Match"), etag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		w.Write(body)
	}
}

// acceptEncoding picks zstd, gzip or identity ("") from an Accept-Encoding
// header, honouring q=0.
func acceptEncoding(header string) string {
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

// matchesETag applies If-None-Match with the weak comparison of RFC 9110.
func matchesETag(header, etag string) bool {
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
