package main

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/statusd/statusd/internal/mirror"
	"github.com/statusd/statusd/internal/testserver"
)

// statusBody is the one file of the test mirror, at /api/v1/status.
const statusBody = `{"page":{"name":"Copy"}}`

// writeMirror writes a copy of one file, generated an hour ago, into a
// new directory, signed by a new key, and returns the directory and the
// file of its public key.
func writeMirror(t *testing.T) (dir, keyFile string) {
	t.Helper()
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	dir = t.TempDir()
	keyFile = filepath.Join(t.TempDir(), "key.pem")
	m := &mirror.Manifest{Sequence: 3, GeneratedAt: time.Now().Add(-time.Hour).UTC().Truncate(time.Second),
		SourceURL: "https://status.example.com", StaleAfter: 900, Files: map[string]mirror.File{
			"/api/v1/status": {Key: "api/v1/status", SHA256: mirror.Hash([]byte(statusBody)), ContentType: "application/json; charset=utf-8"},
		}}
	raw, err := m.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	b := mirror.Dir(dir)
	for key, body := range map[string][]byte{"api/v1/status": []byte(statusBody), mirror.ManifestKey: raw,
		mirror.SignatureKey: ed25519.Sign(priv, raw)} {
		if err := b.Put(context.Background(), key, body, ""); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(keyFile, mirror.PublicKeyPEM(pub), 0o600); err != nil {
		t.Fatal(err)
	}
	return dir, keyFile
}

// TestServeFromMirror: serve --from-mirror serves a signed copy without
// opening a database, and answers a write 405.
func TestServeFromMirror(t *testing.T) {
	dir, keyFile := writeMirror(t)
	db := filepath.Join(t.TempDir(), "never.db")
	srv := serveDB(t, db, "--from-mirror", "file://"+dir, "--mirror-key", keyFile, "--addr", "127.0.0.1:0")
	testserver.WaitLog(t, srv.Logs, `msg="serving a copy of the mirror"`, "sequence=3")
	r := srv.Get("/v1/status", 200)
	if string(r.Body) != statusBody || r.Header.Get("Content-Type") != "application/json; charset=utf-8" {
		t.Errorf("GET /v1/status: %q %q, want the copy's file", r.Header.Get("Content-Type"), r.Body)
	}
	r = srv.Do("POST", "/api/v1/status")
	testserver.AssertError(t, "POST", r, 405, "method_not_allowed")
	if r.Header.Get("Allow") != "GET, HEAD, OPTIONS" {
		t.Errorf("POST: Allow %q, want GET, HEAD, OPTIONS", r.Header.Get("Allow"))
	}
	if _, err := os.Stat(db); !os.IsNotExist(err) {
		t.Errorf("serve --from-mirror made a database: %v", err)
	}
}

// TestMirrorVerify: statusd mirror verify passes a whole copy, printing
// its age, and fails, naming the file, a copy with a file changed.
func TestMirrorVerify(t *testing.T) {
	dir, keyFile := writeMirror(t)
	out, stderr, err := cli(t, "", "mirror", "verify", "file://"+dir, "--key", keyFile)
	want := regexp.MustCompile(`^signature: ok \(key ` + regexp.QuoteMeta(keyFile) + `\)
files: 1, every hash matches
sequence 3, generated \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ, 1h0m[01]s ago; stale after 15m0s: stale
$`)
	if err != nil || !want.MatchString(out) {
		t.Errorf("mirror verify: %v\n%s%s", err, out, stderr)
	}

	if err := os.WriteFile(filepath.Join(dir, "api", "v1", "status"), []byte(`{}`), 0o644); err != nil {
		t.Fatal(err)
	}
	out, _, err = cli(t, "", "mirror", "verify", "file://"+dir, "--key", keyFile)
	const line = "  /api/v1/status: the SHA-256 of api/v1/status is not mirror.json's\n"
	if exitCode(err) != exitCodeFailure || !regexp.MustCompile(`(?m)^files: 1, 1 missing or not as mirror.json says:\n`+regexp.QuoteMeta(line)).MatchString(out) {
		t.Errorf("mirror verify of a changed copy: %v (exit %d)\n%s", err, exitCode(err), out)
	}

	other, _ := writeMirror(t) // signed by another key
	if _, _, err := cli(t, "", "mirror", "verify", "file://"+other, "--key", keyFile); exitCode(err) != exitCodeFailure {
		t.Errorf("mirror verify with another key: %v, want a failure", err)
	}
}
