package testserver

import (
	"context"
	"crypto/ed25519"
	"fmt"
	"testing"
	"time"

	"github.com/statusd/statusd/internal/mirror"
)

// MirrorKey is the public key that signs the mirror's copies of the
// server's database at db (CONTRACT C10), read beside the server.
func MirrorKey(t *testing.T, db string) ed25519.PublicKey {
	t.Helper()
	key, err := OpenStore(t, db).Mirror().SigningKey(context.Background(), time.Now(), false)
	if err != nil {
		t.Fatal(err)
	}
	return key.Public().(ed25519.PublicKey)
}

// ReadMirror returns the manifest of the copy in b when it is whole: its
// signature pub's, every file it names there with the bytes it says
// (mirror.Check, as statusd mirror verify reads a copy).
func ReadMirror(b mirror.Bucket, pub ed25519.PublicKey) (*mirror.Manifest, error) {
	r, err := mirror.Check(context.Background(), b, pub)
	switch {
	case err != nil:
		return nil, err
	case len(r.Problems) > 0:
		return nil, fmt.Errorf("%s: %s: %s (and %d more)", b, r.Problems[0].Target, r.Problems[0].Reason, len(r.Problems)-1)
	}
	return r.Manifest, nil
}

// MirrorCopy is ReadMirror, failing the test unless the copy is whole. A
// reader that came between a push's manifest and its signature, or that
// read a file a push rewrote after the manifest it read, reads again, for
// up to 2 s.
func MirrorCopy(t *testing.T, b mirror.Bucket, pub ed25519.PublicKey) *mirror.Manifest {
	t.Helper()
	var err error
	for range 40 {
		var m *mirror.Manifest
		if m, err = ReadMirror(b, pub); err == nil {
			return m
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatal(err)
	return nil
}
