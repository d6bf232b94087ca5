package mirror

import (
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"io/fs"
	"mime"
	"slices"
	"strings"
	"time"
)

// Home is the key where a target's bytes belong (CONTRACT C10), following
// its path so that a static host or bucket serves the query-less ones
// directly: "/" is index.html, /history is history, /api/v1/status is
// api/v1/status. A path under which other targets lie (/api/v1,
// /api/v1/notices) is a folder on disk, so its own answer is the folder's
// index.json (or index.html). A target with a query lies under _q/, named
// by the hash of the target, as no static host serves queries.
func Home(target, contentType string) string {
	p, query, _ := strings.Cut(target, "?")
	ext := ".json"
	if media, _, _ := mime.ParseMediaType(contentType); media == "text/html" {
		ext = ".html"
	}
	switch {
	case query != "":
		return "_q/" + Hash([]byte(target))[:32] + ext
	case p == "/":
		return "index.html"
	case folders[p]:
		return strings.TrimPrefix(p, "/") + "/index" + ext
	}
	return strings.TrimPrefix(p, "/")
}

// folders are the paths whose answers other answers lie under, so their
// own answers are folder indexes: a fixed set, so that no key changes from
// a file to a folder from one push to the next.
var folders = map[string]bool{"/api/v1": true, "/api/v1/components": true, "/api/v1/notices": true}

// blob is the key of a changed answer's new bytes while the previous
// manifest still names its home (see push).
func blob(sha string) string { return blobPrefix + sha }

// blobPrefix is where the blobs are.
const blobPrefix = "_blobs/"

// Stamp is what a manifest says beyond its files.
type Stamp struct {
	GeneratedAt time.Time
	SourceURL   string
	StaleAfter  time.Duration
}

// Destination is one place the mirror is pushed to, with what it knows of
// the copy there. It is not safe for concurrent use: one writer pushes to
// a destination at a time (Mirror claims it).
type Destination struct {
	Bucket Bucket
	// Stale are keys an earlier push meant to delete (from the store),
	// deleted by the next push unless named again; Remember, when set,
	// keeps the keys a push is to delete before its manifest is written.
	Stale    []string
	Remember func(ctx context.Context, keys []string) error
	// prev is the manifest the bucket holds, as far as this process
	// knows (nil: not read yet); homed, the homes rewritten after it with
	// the bytes (by hash) that its blobs hold.
	prev  *Manifest
	homed map[string]string
}

// Result is what a push did.
type Result struct {
	Sequence     int64
	FilesPut     int
	BytesPut     int64
	FilesDeleted int
	// Wrote is false when nothing had changed and no manifest was
	// written.
	Wrote bool
}

// Push is a push to a destination under way: Begin it, Add each answer
// as it is rendered, Finish it.
//
// The manifest only ever names keys that hold the bytes it says, so that a
// push stopped anywhere (a store that refuses, a SIGKILL) leaves the
// previous copy whole: new targets and targets whose previous key was a
// blob are written to their homes as they come; a changed target whose
// home the previous manifest names is written to a blob, which the new
// manifest names; then mirror.json and its signature; then those homes
// get their new bytes (for the hosts that serve homes directly); last,
// keys no longer named are deleted. The next push names the homes again.
type Push struct {
	d     *Destination
	key   ed25519.PrivateKey
	m     *Manifest
	force bool
	// later are the changed answers whose homes are written after the
	// manifest: the only answers a push keeps.
	later   []Answer
	homes   map[string]bool // the answers' homes
	changed bool
	res     Result
	err     error // the first failure: the answers after it are not taken
}

// Begin starts a push to the destination, whose manifest is signed with
// key; sequence is the least sequence it may have (the store's last plus
// one). A destination whose manifest this process has not read yet (its
// first push, or one after another process pushed) reads it first; its
// push writes a manifest even when nothing changed.
func (d *Destination) Begin(ctx context.Context, s Stamp, key ed25519.PrivateKey, sequence int64) (*Push, error) {
	p := &Push{d: d, key: key, homes: map[string]bool{}}
	if d.prev == nil {
		prev, err := d.read(ctx, key.Public().(ed25519.PublicKey))
		if err != nil {
			return nil, err
		}
		d.prev, d.homed, p.force = prev, map[string]string{}, true
	}
	if d.prev.Sequence >= sequence {
		sequence = d.prev.Sequence + 1
	}
	p.m = &Manifest{Sequence: sequence, GeneratedAt: s.GeneratedAt.UTC(), SourceURL: s.SourceURL,
		StaleAfter: int64(s.StaleAfter / time.Second), Files: make(map[string]File, len(d.prev.Files))}
	return p, nil
}

// Add takes an answer: put to its home or a blob when it changed, or
// kept for after the manifest. After a failure it does nothing and
// returns that failure.
func (p *Push) Add(ctx context.Context, a Answer) error {
	if p.err != nil {
		return p.err
	}
	d := p.d
	home := Home(a.Target, a.ContentType)
	p.homes[home] = true
	prev, had := d.prev.Files[a.Target]
	f := File{Key: home, SHA256: a.SHA256, ContentType: a.ContentType}
	switch {
	case had && prev.Key == home && prev.SHA256 == a.SHA256 && prev.ContentType == a.ContentType:
	case had && prev.Key == home:
		f.Key = blob(a.SHA256)
		p.err = p.put(ctx, f.Key, a)
		p.later = append(p.later, a)
	case d.homed[home] == a.SHA256:
		// Its home got these bytes after the previous manifest.
	default:
		p.err = p.put(ctx, home, a)
	}
	p.changed = p.changed || !had || prev != f
	p.m.Files[a.Target] = f
	return p.err
}

// put puts a's bytes under key.
func (p *Push) put(ctx context.Context, key string, a Answer) error {
	if err := p.d.Bucket.Put(ctx, key, a.Body, a.ContentType); err != nil {
		return fmt.Errorf("put %s: %w", key, err)
	}
	p.res.FilesPut++
	p.res.BytesPut += int64(len(a.Body))
	return nil
}

// Finish ends the push: the manifest, when an answer changed or force
// (a heartbeat) says so, then the homes of the changed answers, then the
// deletions. It returns what the push did, and its first failure.
func (p *Push) Finish(ctx context.Context, force bool) (Result, error) {
	d, m := p.d, p.m
	if p.err != nil {
		return p.res, p.err
	}
	changed := p.changed || len(m.Files) != len(d.prev.Files)
	named := make(map[string]bool, len(m.Files))
	for _, f := range m.Files {
		named[f.Key] = true
	}
	// The keys no longer named: the previous manifest's, and those an
	// earlier push meant to delete and did not (Stale). They are
	// remembered before the manifest moves on, since after it nothing
	// else names them.
	candidates := slices.Clone(d.Stale)
	for _, f := range d.prev.Files {
		candidates = append(candidates, f.Key)
	}
	var gone []string
	for _, k := range candidates {
		if !named[k] && !p.homes[k] {
			named[k] = true // once
			gone = append(gone, k)
		}
	}
	write := changed || force || p.force
	if write && len(gone) > 0 && d.Remember != nil {
		if err := d.Remember(ctx, gone); err != nil {
			return p.res, fmt.Errorf("remembering the files to delete: %w", err)
		}
	}
	if write {
		if err := d.writeManifest(ctx, m, p.key); err != nil {
			return p.res, err
		}
		p.res.Sequence, p.res.Wrote = m.Sequence, true
		for _, a := range p.later {
			if err := p.put(ctx, Home(a.Target, a.ContentType), a); err != nil {
				return p.res, err
			}
			d.homed[Home(a.Target, a.ContentType)] = a.SHA256
		}
	}
	for _, k := range gone {
		if err := d.Bucket.Delete(ctx, k); err != nil {
			return p.res, fmt.Errorf("delete %s: %w", k, err)
		}
		p.res.FilesDeleted++
	}
	d.Stale = nil
	return p.res, nil
}

// writeManifest puts m and its signature, and makes it the one the
// destination holds.
func (d *Destination) writeManifest(ctx context.Context, m *Manifest, key ed25519.PrivateKey) error {
	body, err := m.Marshal()
	if err != nil {
		return err
	}
	if err := d.Bucket.Put(ctx, ManifestKey, body, "application/json"); err != nil {
		return fmt.Errorf("put %s: %w", ManifestKey, err)
	}
	if err := d.Bucket.Put(ctx, SignatureKey, ed25519.Sign(key, body), "application/octet-stream"); err != nil {
		return fmt.Errorf("put %s: %w", SignatureKey, err)
	}
	d.prev, d.homed = m, map[string]string{}
	return nil
}

// read returns the manifest the bucket holds when it is this key's
// (signed), else an empty one: then every file is put again.
func (d *Destination) read(ctx context.Context, pub ed25519.PublicKey) (*Manifest, error) {
	empty := &Manifest{Files: map[string]File{}}
	body, err := d.Bucket.Get(ctx, ManifestKey)
	if errors.Is(err, fs.ErrNotExist) {
		return empty, nil
	}
	if err != nil {
		return nil, fmt.Errorf("get %s: %w", ManifestKey, err)
	}
	sig, err := d.Bucket.Get(ctx, SignatureKey)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("get %s: %w", SignatureKey, err)
	}
	m, err := Verify(pub, body, sig)
	if err != nil {
		// Another key's (before a rotation), or torn between the
		// manifest and its signature: every file is put again; its
		// sequence still counts, and its blobs are to be deleted.
		if old, perr := ParseManifest(body); perr == nil {
			empty.Sequence = old.Sequence
			for _, f := range old.Files {
				if strings.HasPrefix(f.Key, blobPrefix) {
					d.Stale = append(d.Stale, f.Key)
				}
			}
		}
		return empty, nil
	}
	return m, nil
}
