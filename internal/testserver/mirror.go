package testserver

import (
	"context"
	"crypto/ed25519"
	"testing"
	"time"
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
