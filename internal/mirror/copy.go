package mirror

import (
	"bytes"
	"cmp"
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"
)

// Source is a mirror to load copies from: its bucket and, when not nil,
// the key its manifests must be signed with.
type Source struct {
	Bucket Bucket
	Key    ed25519.PublicKey
}

// Copy is one loaded copy of a mirror: its manifest and the bytes of
// every file it names, each checked against its SHA-256. It is never
// changed once loaded.
type Copy struct {
	Manifest *Manifest
	// raw and sig are mirror.json's bytes and their signature's.
	raw, sig []byte
	// blobs are the files' bytes by SHA-256, which the next load reuses.
	blobs map[string][]byte
	// files are the answers by canonical target (canonical).
	files map[string]answer
}

// answer is a file of the copy as it is served.
type answer struct {
	body        []byte
	etag        string
	contentType string
}

// Problem is a file the manifest names that the bucket does not hold as
// the manifest says.
type Problem struct {
	Target string
	Reason string // why, in words: missing, or not the manifest's bytes
}

// fetchers is how many files a load gets at once.
const fetchers = 8

// Load returns the copy the bucket holds now. It gets mirror.json and
// its signature, which must be Key's when Key is set; when mirror.json's
// bytes are prev's, prev itself (nil is no copy). Then it gets every file
// the manifest names but those whose bytes prev holds already, at most
// fetchers at once. A file missing or whose SHA-256 is not the manifest's
// fails the whole load: a push is under way, and the copy loaded before
// is the one to serve until the next load.
func (src Source) Load(ctx context.Context, prev *Copy) (*Copy, error) {
	raw, err := src.get(ctx, ManifestKey)
	if err != nil {
		return nil, err
	}
	if prev != nil && bytes.Equal(raw, prev.raw) {
		return prev, nil
	}
	m, sig, err := src.manifest(ctx, raw)
	if err != nil {
		return nil, err
	}
	var held map[string][]byte
	if prev != nil {
		held = prev.blobs
	}
	blobs, problems := fetch(ctx, src.Bucket, m, held)
	if len(problems) > 0 {
		more := ""
		if len(problems) > 1 {
			more = fmt.Sprintf(" (and %d more)", len(problems)-1)
		}
		return nil, fmt.Errorf("the copy in %s is not whole, a push may be under way: %s: %s%s",
			src.Bucket, problems[0].Target, problems[0].Reason, more)
	}
	return newCopy(raw, sig, m, blobs), nil
}

// get returns the bytes under key, or an error that names it and the
// bucket.
func (src Source) get(ctx context.Context, key string) ([]byte, error) {
	b, err := src.Bucket.Get(ctx, key)
	if err != nil {
		return nil, fmt.Errorf("%s of %s: %w", key, src.Bucket, err)
	}
	return b, nil
}

// manifest reads mirror.json's bytes raw, after checking their signature
// when src has a key, and returns the manifest and the signature.
func (src Source) manifest(ctx context.Context, raw []byte) (*Manifest, []byte, error) {
	sig, err := src.get(ctx, SignatureKey)
	if err != nil {
		return nil, nil, err
	}
	if src.Key == nil {
		m, err := ParseManifest(raw)
		return m, sig, err
	}
	m, err := Verify(src.Key, raw, sig)
	return m, sig, err
}

// fetch gets the files of m whose bytes held (by SHA-256) does not have,
// at most fetchers at once, and returns the bytes of every file of m by
// SHA-256, and the files that are missing or differ, in the order of
// their targets.
func fetch(ctx context.Context, b Bucket, m *Manifest, held map[string][]byte) (map[string][]byte, []Problem) {
	type want struct{ key, sha string }
	blobs := map[string][]byte{}
	wanted := map[want]bool{}
	for _, f := range m.Files {
		if body, ok := held[f.SHA256]; ok {
			blobs[f.SHA256] = body
		} else {
			wanted[want{f.Key, f.SHA256}] = true
		}
	}
	var mu sync.Mutex
	failed := map[want]string{} // why, by the file wanted
	var g errgroup.Group
	g.SetLimit(fetchers)
	for w := range wanted {
		g.Go(func() error {
			body, err := b.Get(ctx, w.key)
			why := ""
			switch {
			case errors.Is(err, fs.ErrNotExist):
				why = "missing: there is nothing at " + w.key
			case err != nil:
				why = err.Error()
			case Hash(body) != w.sha:
				why = "the SHA-256 of " + w.key + " is not mirror.json's"
			}
			mu.Lock()
			defer mu.Unlock()
			if why != "" {
				failed[w] = why
			} else {
				blobs[w.sha] = body
			}
			return nil
		})
	}
	g.Wait()
	var problems []Problem
	for target, f := range m.Files {
		if why, ok := failed[want{f.Key, f.SHA256}]; ok {
			problems = append(problems, Problem{Target: target, Reason: why})
		}
	}
	slices.SortFunc(problems, func(a, b Problem) int { return cmp.Compare(a.Target, b.Target) })
	return blobs, problems
}

// newCopy returns the copy of a manifest whose files' bytes blobs holds,
// with mirror.json and its signature served too, for the freshness script
// of the pages and for anyone to check the copy. Two targets of one
// canonical target (canonical) are one answer: the first in order.
func newCopy(raw, sig []byte, m *Manifest, blobs map[string][]byte) *Copy {
	c := &Copy{Manifest: m, raw: raw, sig: sig, blobs: blobs, files: map[string]answer{}}
	for _, target := range slices.Sorted(maps.Keys(m.Files)) {
		key := canonicalTarget(target)
		if _, ok := c.files[key]; ok {
			continue
		}
		f := m.Files[target]
		c.files[key] = answer{body: blobs[f.SHA256], etag: `"` + f.SHA256 + `"`, contentType: f.ContentType}
	}
	c.files["/"+ManifestKey] = answer{body: raw, etag: `"` + Hash(raw) + `"`, contentType: "application/json"}
	c.files["/"+SignatureKey] = answer{body: sig, etag: `"` + Hash(sig) + `"`, contentType: "application/octet-stream"}
	return c
}

// Age is how long before now the copy was generated, to the second.
func (m *Manifest) Age(now time.Time) time.Duration {
	return now.Sub(m.GeneratedAt).Round(time.Second)
}

// Stale reports whether the copy is older at now than its stale_after:
// readers are told it may be out of date.
func (m *Manifest) Stale(now time.Time) bool {
	return m.Age(now) > time.Duration(m.StaleAfter)*time.Second
}

// canonicalTarget is canonical of a manifest's target, written as a
// client sends it.
func canonicalTarget(target string) string {
	path, query, _ := strings.Cut(target, "?")
	if p, err := url.PathUnescape(path); err == nil {
		path = p
	}
	return canonical(path, query)
}

// canonical is the target under which a copy files the answer to a
// request for path (decoded) and rawQuery, so that every request the
// live server answers alike finds one answer:
//
//   - /v1 and /v1/... are /api/v1 and /api/v1/..., and
//     /api/notices/{id} is /api/v1/notices/{id}: the live aliases
//     (CONTRACT C1), whose answers are the same bytes;
//   - of the query only page is kept, but page=1, the default, and the
//     filter[...] keys, brackets raw or percent-encoded and + a space,
//     sorted by key then value and percent-encoded as next_page writes
//     them; other parameters (per_page, cache busters) change nothing,
//     as live;
//   - the query of /assets/... and /favicon.ico is ignored whole (the
//     pages link /assets/app.js?v=<hash>);
//   - a query that does not decode is kept as it is.
func canonical(path, rawQuery string) string {
	switch {
	case path == "/v1" || strings.HasPrefix(path, "/v1/"):
		path = "/api" + path
	case strings.HasPrefix(path, "/api/notices/"):
		path = "/api/v1/notices/" + strings.TrimPrefix(path, "/api/notices/")
	}
	if rawQuery == "" || strings.HasPrefix(path, "/assets/") || path == "/favicon.ico" {
		return path
	}
	q, err := url.ParseQuery(rawQuery)
	if err != nil {
		return path + "?" + rawQuery
	}
	var kept []string
	for _, k := range slices.Sorted(maps.Keys(q)) {
		if k != "page" && !strings.HasPrefix(k, "filter[") {
			continue
		}
		for _, v := range slices.Sorted(slices.Values(q[k])) {
			if k != "page" || v != "1" {
				kept = append(kept, url.QueryEscape(k)+"="+url.QueryEscape(v))
			}
		}
	}
	if len(kept) == 0 {
		return path
	}
	return path + "?" + strings.Join(kept, "&")
}
