package mirror

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestHome(t *testing.T) {
	const html, json = "text/html; charset=utf-8", "application/json; charset=utf-8"
	for _, c := range []struct{ target, contentType, want string }{
		{"/", html, "index.html"},
		{"/history", html, "history"},
		{"/notices/12", html, "notices/12"},
		{"/history.atom", "application/atom+xml; charset=utf-8", "history.atom"},
		{"/api/v1", json, "api/v1/index.json"},
		{"/api/v1/status", json, "api/v1/status"},
		{"/api/v1/notices", json, "api/v1/notices/index.json"},
		{"/api/v1/notices/12", json, "api/v1/notices/12"},
		{"/api/v1/components", json, "api/v1/components/index.json"},
		{"/api/v1/components/3/metrics", json, "api/v1/components/3/metrics"},
		{"/api/v2/summary.json", json, "api/v2/summary.json"},
		{"/history?page=2", html, "_q/" + Hash([]byte("/history?page=2"))[:32] + ".html"},
		{"/api/v1/notices?page=2", json, "_q/" + Hash([]byte("/api/v1/notices?page=2"))[:32] + ".json"},
	} {
		if got := Home(c.target, c.contentType); got != c.want {
			t.Errorf("Home(%q) = %q, want %q", c.target, got, c.want)
		}
	}
}

// memBucket is a bucket in memory that fails every operation once it has
// done fail of them (fail < 0: never).
type memBucket struct {
	files map[string]string
	ops   int
	fail  int
}

var errRefused = errors.New("memBucket: refused")

func (b *memBucket) op() error {
	if b.fail >= 0 && b.ops >= b.fail {
		return errRefused
	}
	b.ops++
	return nil
}

func (b *memBucket) Put(_ context.Context, key string, body []byte, _ string) error {
	if err := b.op(); err != nil {
		return err
	}
	b.files[key] = string(body)
	return nil
}

func (b *memBucket) Get(_ context.Context, key string) ([]byte, error) {
	v, ok := b.files[key]
	if !ok {
		return nil, fs.ErrNotExist
	}
	return []byte(v), nil
}

func (b *memBucket) Delete(_ context.Context, key string) error {
	if err := b.op(); err != nil {
		return err
	}
	delete(b.files, key)
	return nil
}

func (b *memBucket) String() string { return "mem://" }

// push pushes the answers (target to body) to d, as Mirror does: Begin,
// Add each, Finish.
func push(d *Destination, answers map[string]string, key ed25519.PrivateKey, sequence int64) (Result, error) {
	ctx := context.Background()
	s := Stamp{GeneratedAt: time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC), SourceURL: "https://status.example.com", StaleAfter: 15 * time.Minute}
	p, err := d.Begin(ctx, s, key, sequence)
	if err != nil {
		return Result{}, err
	}
	for _, target := range slices.Sorted(maps.Keys(answers)) {
		ct := "application/json"
		if !strings.HasPrefix(target, "/api/") {
			ct = "text/html; charset=utf-8"
		}
		body := []byte(answers[target])
		p.Add(ctx, Answer{Target: target, Body: body, ContentType: ct, SHA256: Hash(body)})
	}
	return p.Finish(ctx, false)
}

// whole returns the bucket's manifest after checking its signature and
// that every file it names holds its bytes (Check).
func whole(t *testing.T, b *memBucket, pub ed25519.PublicKey) *Manifest {
	t.Helper()
	r, err := Check(context.Background(), b, pub)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Problems) > 0 {
		t.Fatalf("%s (%s): %s", r.Problems[0].Target, r.Manifest.Files[r.Problems[0].Target].Key, r.Problems[0].Reason)
	}
	return r.Manifest
}

// TestPushStoppedAnywhere stops a push after each of its operations in
// turn: every time, the bucket holds the previous copy whole; a push that
// then goes through leaves the new copy, and nothing else.
func TestPushStoppedAnywhere(t *testing.T) {
	pub, key, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	before := map[string]string{"/": "home 1", "/notices/1": "one", "/notices/2": "two", "/api/v1/status": `{"v":1}`,
		"/api/v1/notices": `{"n":[1,2]}`, "/history?page=2": "page 2"}
	after := map[string]string{"/": "home 2", "/notices/1": "one", "/notices/3": "three", "/api/v1/status": `{"v":2}`,
		"/api/v1/notices": `{"n":[1,3]}`, "/history?page=2": "page 2, new"}
	// The changed answers whose keys the first manifest names (4) go to a
	// blob and then to their key, the new one (1) to its key: 9 puts,
	// with mirror.json and its signature; then the deletion of notice 2.
	const ops = 4*2 + 1 + 2 + 1

	start := &memBucket{files: map[string]string{}, fail: -1}
	if _, err := push(&Destination{Bucket: start}, before, key, 1); err != nil {
		t.Fatal(err)
	}
	first := whole(t, start, pub)
	for stop := 0; stop <= ops; stop++ {
		t.Run(fmt.Sprint("after ", stop), func(t *testing.T) {
			b := &memBucket{files: maps.Clone(start.files), fail: stop}
			var stale []string // what the store keeps
			remember := func(_ context.Context, keys []string) error { stale = keys; return nil }
			res, err := push(&Destination{Bucket: b, Remember: remember}, after, key, 2)
			switch {
			case stop < ops && !errors.Is(err, errRefused):
				t.Fatalf("stopped after %d operations: %v", stop, err)
			case stop == ops && (err != nil || res.FilesPut != 9 || res.FilesDeleted != 1):
				t.Fatalf("a whole push: %+v %v, want 9 files put and 1 deleted", res, err)
			}
			// Stopped between mirror.json and its signature, the pair
			// disagrees until the next push: the one moment a reader must
			// read again.
			if stop != 6 {
				if m := whole(t, b, pub); m.Sequence != first.Sequence && m.Sequence != 2 {
					t.Fatalf("sequence %d", m.Sequence)
				}
			}
			b.fail = -1
			if _, err := push(&Destination{Bucket: b, Stale: stale}, after, key, 2); err != nil {
				t.Fatal(err)
			}
			m := whole(t, b, pub)
			got := map[string]string{}
			keys := map[string]bool{ManifestKey: true, SignatureKey: true}
			for target, f := range m.Files {
				got[target] = b.files[f.Key]
				keys[f.Key] = true
				keys[Home(target, f.ContentType)] = true
			}
			if !maps.Equal(got, after) {
				t.Errorf("the copy holds %v, want %v", got, after)
			}
			for k := range b.files {
				if !keys[k] {
					t.Errorf("%s is left in the bucket", k)
				}
			}
		})
	}
}
