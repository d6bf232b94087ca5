package mirror

import (
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"os"
)

// Report is what Check found of a copy whose manifest is signed by the
// key.
type Report struct {
	Manifest *Manifest
	// Problems are the files that are missing or differ from the
	// manifest, in the order of their targets; none when the copy is
	// whole.
	Problems []Problem
}

// Check loads the copy the bucket holds as Source.Load does, its
// manifest signed by key, and reports every file that is missing or
// differs instead of failing at the first (statusd mirror verify). Its
// error means nothing to report: no manifest, or not key's signature.
func Check(ctx context.Context, b Bucket, key ed25519.PublicKey) (*Report, error) {
	if key == nil {
		return nil, errors.New("checking a copy needs the public key of its manifests")
	}
	src := Source{Bucket: b, Key: key}
	raw, err := src.get(ctx, ManifestKey)
	if err != nil {
		return nil, err
	}
	m, _, err := src.manifest(ctx, raw)
	if err != nil {
		return nil, err
	}
	_, problems := fetch(ctx, b, m, nil)
	return &Report{Manifest: m, Problems: problems}, nil
}

// ReadPublicKey reads the file at path, a public key as PublicKeyPEM
// writes it.
func ReadPublicKey(path string) (ed25519.PublicKey, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	pub, err := ParsePublicKeyPEM(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return pub, nil
}
