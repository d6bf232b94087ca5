package mirror

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"time"
)

// The names of the manifest and its signature, at the mirror's root.
const (
	ManifestKey  = "mirror.json"
	SignatureKey = "mirror.json.sig"
)

// Manifest is mirror.json (CONTRACT C10): what the copy holds and how
// fresh it is. It is written after every file it names, and signed.
type Manifest struct {
	// Sequence counts the manifests written to this mirror, from 1.
	Sequence int64 `json:"sequence"`
	// GeneratedAt is when the copy was last known to be the live page's.
	GeneratedAt time.Time `json:"generated_at"`
	// SourceURL is the live page's URL.
	SourceURL string `json:"source_url"`
	// StaleAfter is how many seconds after GeneratedAt readers are told
	// the copy may be out of date.
	StaleAfter int64 `json:"stale_after"`
	// Files are the copy's answers by target: the request path and
	// query exactly as a client sends it.
	Files map[string]File `json:"files"`
}

// File is one answer of the copy.
type File struct {
	// Key is where its bytes are, relative to the mirror's URL.
	Key string `json:"key"`
	// SHA256 is the hex SHA-256 of its bytes.
	SHA256      string `json:"sha256"`
	ContentType string `json:"content_type"`
}

// Hash is the hex SHA-256 of b, as File.SHA256 holds it.
func Hash(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// Marshal returns the manifest's bytes: indented JSON, the files in the
// order of their targets.
func (m *Manifest) Marshal() ([]byte, error) {
	b, err := json.MarshalIndent(m, "", " ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// ParseManifest reads mirror.json's bytes.
func ParseManifest(b []byte) (*Manifest, error) {
	var m Manifest
	d := json.NewDecoder(bytes.NewReader(b))
	if err := d.Decode(&m); err != nil {
		return nil, fmt.Errorf("mirror.json: %v", err)
	}
	if m.Sequence < 1 || m.GeneratedAt.IsZero() || m.Files == nil {
		return nil, errors.New("mirror.json: sequence, generated_at and files are required")
	}
	for target, f := range m.Files {
		if f.Key == "" || len(f.SHA256) != 64 {
			return nil, fmt.Errorf("mirror.json: the file of %s has no key or no SHA-256", target)
		}
	}
	return &m, nil
}

// PublicKeyPEM is the PEM ("PUBLIC KEY", PKIX) of the key that signs the
// manifests, which openssl reads.
func PublicKeyPEM(pub ed25519.PublicKey) []byte {
	der, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		panic(err) // an Ed25519 key always marshals
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})
}

// ParsePublicKeyPEM reads a key that PublicKeyPEM wrote.
func ParsePublicKeyPEM(b []byte) (ed25519.PublicKey, error) {
	block, _ := pem.Decode(b)
	if block == nil || block.Type != "PUBLIC KEY" {
		return nil, errors.New("not a PEM public key (-----BEGIN PUBLIC KEY-----): print one with statusd mirror key")
	}
	k, err := x509.ParsePKIXPublicKey(block.Bytes)
	if err != nil {
		return nil, fmt.Errorf("the public key: %v", err)
	}
	pub, ok := k.(ed25519.PublicKey)
	if !ok {
		return nil, errors.New("the public key is not an Ed25519 key")
	}
	return pub, nil
}

// Verify checks that sig is pub's signature of manifest's bytes and
// returns the manifest.
func Verify(pub ed25519.PublicKey, manifest, sig []byte) (*Manifest, error) {
	if len(sig) != ed25519.SignatureSize || !ed25519.Verify(pub, manifest, sig) {
		return nil, errors.New("mirror.json.sig is not this key's signature of mirror.json")
	}
	return ParseManifest(manifest)
}
