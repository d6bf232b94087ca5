package mirror

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
)

// Bucket is where a mirror's files are kept: a directory, an S3 bucket
// (under a prefix), or, for reading only, a web server. Keys are
// slash-separated paths relative to the mirror's URL.
type Bucket interface {
	// Put stores body under key with its content type, replacing what
	// was there.
	Put(ctx context.Context, key string, body []byte, contentType string) error
	// Get returns the bytes under key; an error that is fs.ErrNotExist
	// when there are none.
	Get(ctx context.Context, key string) ([]byte, error)
	// Delete removes key; a key that is not there is no error.
	Delete(ctx context.Context, key string) error
	// String names the bucket, without credentials: its URL.
	String() string
}

// Options are what an S3 bucket needs beyond its URL (CONTRACT C10).
type Options struct {
	// Endpoint is the S3 service's URL (--mirror-endpoint), for stores
	// other than AWS; it turns on path-style addressing. "" is AWS.
	Endpoint string
	// Region is the bucket's region (--mirror-region); "" is us-east-1.
	Region string
	// AccessKey and SecretKey are the credentials, from
	// AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY; SessionToken from
	// AWS_SESSION_TOKEN.
	AccessKey, SecretKey, SessionToken string
}

// WithEnv returns o with the credentials of the standard variables.
func (o Options) WithEnv(getenv func(string) string) Options {
	o.AccessKey = getenv("AWS_ACCESS_KEY_ID")
	o.SecretKey = getenv("AWS_SECRET_ACCESS_KEY")
	o.SessionToken = getenv("AWS_SESSION_TOKEN")
	return o
}

// Open returns the bucket of a mirror URL: file:///dir, s3://bucket/prefix
// or, to read a copy that a web server or CDN serves, http(s)://host/path.
func Open(rawURL string, o Options) (Bucket, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, fmt.Errorf("mirror URL %q: %v", rawURL, err)
	}
	switch u.Scheme {
	case "file":
		if u.Host != "" && u.Host != "localhost" {
			return nil, fmt.Errorf("mirror URL %q: a file URL names a local directory: file:///path/to/dir", rawURL)
		}
		if u.Path == "" || !filepath.IsAbs(u.Path) {
			return nil, fmt.Errorf("mirror URL %q: give an absolute directory: file:///path/to/dir", rawURL)
		}
		return Dir(u.Path), nil
	case "s3":
		return openS3(u, o)
	case "http", "https":
		return openHTTP(u)
	}
	return nil, fmt.Errorf("mirror URL %q: use file:///dir, s3://bucket/prefix, or (to read a copy) https://host/path", rawURL)
}

// Dir is a mirror in a local directory, for rsync, git or a web server
// to take from there. Each file is written to a temporary name and
// renamed into place, so a reader sees the old bytes or the new, never a
// part.
type Dir string

// Put writes body to key.
func (d Dir) Put(_ context.Context, key string, body []byte, _ string) error {
	p, err := d.path(key)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(p), ".mirror-*")
	if err != nil {
		return err
	}
	_, err = f.Write(body)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(f.Name(), 0o644)
	}
	if err == nil {
		err = os.Rename(f.Name(), p)
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}

// Get reads key.
func (d Dir) Get(_ context.Context, key string) ([]byte, error) {
	p, err := d.path(key)
	if err != nil {
		return nil, err
	}
	return os.ReadFile(p)
}

// Delete removes key, and the folders it leaves empty.
func (d Dir) Delete(_ context.Context, key string) error {
	p, err := d.path(key)
	if err != nil {
		return err
	}
	if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	for dir := filepath.Dir(p); dir != filepath.Clean(string(d)) && strings.HasPrefix(dir, string(d)); dir = filepath.Dir(dir) {
		if os.Remove(dir) != nil {
			break // not empty
		}
	}
	return nil
}

// String is the directory's file URL.
func (d Dir) String() string { return "file://" + filepath.ToSlash(string(d)) }

// path is where key lives, refusing a key that would leave the
// directory.
func (d Dir) path(key string) (string, error) {
	if err := checkKey(key); err != nil {
		return "", err
	}
	return filepath.Join(string(d), filepath.FromSlash(key)), nil
}

// checkKey refuses a key that is not a plain slash-separated path: one
// that is empty, starts or ends with a slash, or has an empty, "." or
// ".." element.
func checkKey(key string) error {
	if !fs.ValidPath(key) || key == "." {
		return fmt.Errorf("mirror: %q is not a key", key)
	}
	return nil
}
