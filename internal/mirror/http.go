package mirror

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"net/url"
	"time"
)

// httpBucket is a mirror that a web server or CDN serves, for reading.
type httpBucket struct {
	base   *url.URL
	client *http.Client
}

// openHTTP returns the bucket of http(s)://host/path.
func openHTTP(u *url.URL) (Bucket, error) {
	switch {
	case u.User != nil:
		return nil, fmt.Errorf("mirror URL %q: an http(s) mirror URL carries no credentials", u.Redacted())
	case u.Host == "":
		return nil, fmt.Errorf("mirror URL %q: name the host: https://host/path", u)
	case u.RawQuery != "" || u.Fragment != "":
		return nil, fmt.Errorf("mirror URL %q: an http(s) mirror URL has no query or fragment", u)
	}
	return &httpBucket{base: u, client: &http.Client{Timeout: 30 * time.Second}}, nil
}

// errReadOnly is the answer of Put and Delete.
var errReadOnly = errors.New("an http(s) mirror URL can only be read: push to file:// or s3://")

// Put refuses: a web server is not written to.
func (b *httpBucket) Put(context.Context, string, []byte, string) error {
	return fmt.Errorf("mirror: %s: %w", b, errReadOnly)
}

// Delete refuses: a web server is not written to.
func (b *httpBucket) Delete(context.Context, string) error {
	return fmt.Errorf("mirror: %s: %w", b, errReadOnly)
}

// Get fetches the base URL joined with key. A 404, or the 403 that an
// S3 website endpoint answers for a key it does not have, is
// fs.ErrNotExist.
func (b *httpBucket) Get(ctx context.Context, key string) ([]byte, error) {
	if err := checkKey(key); err != nil {
		return nil, err
	}
	u := b.base.JoinPath(key).String()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, fmt.Errorf("mirror: GET %s: %v", u, err)
	}
	resp, err := b.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("mirror: %w", err) // a *url.Error names the method and URL
	}
	defer resp.Body.Close()
	switch resp.StatusCode {
	case http.StatusOK:
	case http.StatusNotFound, http.StatusForbidden:
		return nil, fmt.Errorf("mirror: GET %s: %s: %w", u, resp.Status, fs.ErrNotExist)
	default:
		return nil, fmt.Errorf("mirror: GET %s: %s", u, resp.Status)
	}
	body, err := readAtMost(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("mirror: GET %s: %w", u, err)
	}
	return body, nil
}

// String is the mirror's URL.
func (b *httpBucket) String() string { return b.base.String() }
