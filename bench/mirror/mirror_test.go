package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/statusd/statusd/internal/mirror"
)

// TestParsePushes: the "mirror: pushed" lines of statusd's JSON log are
// read, took in nanoseconds; other lines are skipped.
func TestParsePushes(t *testing.T) {
	log := `{"time":"2026-11-29T15:09:24.655041135Z","level":"INFO","msg":"statusd listening","url":"http://127.0.0.1:1"}
not JSON "mirror: pushed"
{"time":"2026-11-29T15:09:27.13436458Z","level":"INFO","msg":"mirror: pushed","mirror":"file:///m","sequence":1,"files_put":2443,"bytes_put":11435548,"files_deleted":0,"took":2478534546}
{"time":"2026-11-29T15:09:28Z","level":"WARN","msg":"mirror: push failed","mirror":"file:///m","err":"x","files_put":3}
{"time":"2026-11-29T15:09:29.5Z","level":"INFO","msg":"mirror: pushed","mirror":"file:///m","sequence":2,"files_put":236,"bytes_put":4518726,"files_deleted":118,"took":480133395}
`
	got, err := parsePushes(strings.NewReader(log))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 {
		t.Fatalf("%d pushes, want 2: %+v", len(got), got)
	}
	p := got[1]
	at := time.Date(2026, 11, 29, 15, 9, 29, 500_000_000, time.UTC)
	if p.Sequence != 2 || p.FilesPut != 236 || p.BytesPut != 4518726 || p.FilesDeleted != 118 || p.Took != 480133395 || !p.At.Equal(at) {
		t.Errorf("second push %+v", p)
	}
	if s := p.span(); !s.End.Equal(at) || s.End.Sub(s.Start) != p.Took {
		t.Errorf("span %+v", s)
	}
}

// TestChanged: the targets a manifest adds, removes or gives new bytes,
// and their shapes.
func TestChanged(t *testing.T) {
	file := func(sha byte) mirror.File { return mirror.File{Key: "k", SHA256: strings.Repeat(string(sha), 64)} }
	prev := &mirror.Manifest{Files: map[string]mirror.File{
		"/": file('a'), "/notices/12": file('b'), "/notices/13": file('c'), "/api/v1/notices?filter%5Btype_eq%5D=planned&page=2": file('d'),
	}}
	m := &mirror.Manifest{Files: map[string]mirror.File{
		"/": file('a'), "/notices/12": file('e'), "/notices/14": file('f'), "/api/v1/notices?filter%5Btype_eq%5D=planned&page=2": file('g'),
	}}
	got := changed(prev, m)
	slices.Sort(got)
	want := []string{"/api/v1/notices?filter%5Btype_eq%5D=planned&page=2", "/notices/12", "/notices/13", "/notices/14"}
	if !slices.Equal(got, want) {
		t.Errorf("changed = %q, want %q", got, want)
	}
	if n := len(changed(nil, m)); n != 4 {
		t.Errorf("against no manifest: %d changed, want all 4", n)
	}
	sh := shapes(got)
	if sh["/notices/N"] != 3 || sh["/api/v1/notices?filter[type_eq]=planned&page=N"] != 1 {
		t.Errorf("shapes %v", sh)
	}
	if s := shapes([]string{"/api/v2/summary.json"}); s["/api/v2/summary.json"] != 1 {
		t.Errorf("the API's version is kept: %v", s)
	}
	if s := shapesText(sh, 1); s != "`/notices/N` 3, and 1 more shapes" {
		t.Errorf("shapesText %q", s)
	}
}

// TestReadManifest: a manifest is read with its modification time.
func TestReadManifest(t *testing.T) {
	m := &mirror.Manifest{Sequence: 3, GeneratedAt: time.Date(2026, 3, 1, 11, 59, 0, 0, time.UTC), Files: map[string]mirror.File{"/": {Key: "index.html", SHA256: strings.Repeat("a", 64), ContentType: "text/html"}}}
	body, err := m.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), mirror.ManifestKey)
	if err := os.WriteFile(path, body, 0o644); err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	if err := os.Chtimes(path, at, at); err != nil {
		t.Fatal(err)
	}
	got, mod, err := readManifest(path)
	if err != nil || got.Sequence != 3 || len(got.Files) != 1 || !mod.Equal(at) {
		t.Errorf("readManifest = %+v, %v, %v", got, mod, err)
	}
}

// TestCount: thousands are separated by commas.
func TestCount(t *testing.T) {
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 21523: "21,523", 1234567: "1,234,567", -1000: "-1,000"} {
		if got := count(n); got != want {
			t.Errorf("count(%d) = %q, want %q", n, got, want)
		}
	}
}
