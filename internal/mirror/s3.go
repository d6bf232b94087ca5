package mirror

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"strings"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
	"github.com/minio/minio-go/v7/pkg/s3utils"
)

// maxGet is the most bytes Get reads of one key; a mirror's files are
// pages and JSON, far smaller.
const maxGet = 64 << 20

// s3Tries is how many times the S3 client sends a request before it
// returns the error: a store that refuses fails a push within about two
// seconds, and the next push tries again. Each request's time is bounded
// by its context only.
const s3Tries = 3

// s3Bucket is a mirror in an S3 bucket, under a prefix.
type s3Bucket struct {
	client         *minio.Client
	bucket, prefix string
	anonymous      bool // no access key: Get only
}

// openS3 returns the bucket of s3://bucket/prefix (CONTRACT C10).
func openS3(u *url.URL, o Options) (Bucket, error) {
	name := u.Redacted()
	switch {
	case u.User != nil:
		return nil, fmt.Errorf("mirror URL %q: an s3 URL carries no credentials: give them in AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY", name)
	case u.Host == "":
		return nil, fmt.Errorf("mirror URL %q: name the bucket: s3://bucket/prefix", name)
	case u.RawQuery != "" || u.Fragment != "":
		return nil, fmt.Errorf("mirror URL %q: an s3 URL is s3://bucket/prefix, without a query or fragment", name)
	}
	if err := s3utils.CheckValidBucketName(u.Host); err != nil {
		return nil, fmt.Errorf("mirror URL %q: bucket %q: %v", name, u.Host, err)
	}
	prefix := strings.Trim(u.Path, "/")
	if prefix != "" && checkKey(prefix) != nil {
		return nil, fmt.Errorf("mirror URL %q: the prefix %q is not a plain slash-separated path", name, prefix)
	}
	mo := &minio.Options{
		Creds:      credentials.NewStaticV4(o.AccessKey, o.SecretKey, o.SessionToken),
		Secure:     true,
		Region:     o.Region,
		MaxRetries: s3Tries,
	}
	if mo.Region == "" {
		mo.Region = "us-east-1"
	}
	endpoint := "s3.amazonaws.com"
	if o.Endpoint != "" {
		e, err := url.Parse(o.Endpoint)
		const how = "give the service's URL, such as https://s3.example.com or http://127.0.0.1:9000"
		switch {
		case err != nil:
			return nil, fmt.Errorf("mirror endpoint: %v: %s", errors.Unwrap(err), how) // the *url.Error would repeat a password
		case e.User != nil:
			return nil, fmt.Errorf("mirror endpoint %q: the endpoint carries no credentials: give them in AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY", e.Redacted())
		case e.Scheme != "http" && e.Scheme != "https", e.Host == "", e.Path != "" && e.Path != "/", e.RawQuery != "", e.Fragment != "":
			return nil, fmt.Errorf("mirror endpoint %q: %s", o.Endpoint, how)
		}
		endpoint = e.Host
		mo.Secure = e.Scheme == "https"
		mo.BucketLookup = minio.BucketLookupPath
	}
	client, err := minio.New(endpoint, mo)
	if err != nil {
		return nil, fmt.Errorf("mirror endpoint %q: %v", endpoint, err)
	}
	return &s3Bucket{client: client, bucket: u.Host, prefix: prefix, anonymous: o.AccessKey == ""}, nil
}

// Put stores body under key in one PUT of its known length.
func (b *s3Bucket) Put(ctx context.Context, key string, body []byte, contentType string) error {
	name, err := b.object("put", key)
	if err != nil {
		return err
	}
	_, err = b.client.PutObject(ctx, b.bucket, name, bytes.NewReader(body), int64(len(body)), minio.PutObjectOptions{
		ContentType:      contentType,
		DisableMultipart: true,
	})
	if err != nil {
		return b.failed("put", key, err)
	}
	return nil
}

// Get reads key; a key that is not there is fs.ErrNotExist.
func (b *s3Bucket) Get(ctx context.Context, key string) ([]byte, error) {
	if err := checkKey(key); err != nil {
		return nil, err
	}
	obj, err := b.client.GetObject(ctx, b.bucket, b.join(key), minio.GetObjectOptions{})
	if err != nil {
		return nil, b.failed("get", key, err)
	}
	defer obj.Close()
	body, err := readAtMost(obj)
	if err != nil {
		if notFound(err) {
			return nil, fmt.Errorf("mirror: get %q from %s: %w", key, b, fs.ErrNotExist)
		}
		return nil, b.failed("get", key, err)
	}
	return body, nil
}

// Delete removes key; a key that is not there is no error.
func (b *s3Bucket) Delete(ctx context.Context, key string) error {
	name, err := b.object("delete", key)
	if err != nil {
		return err
	}
	if err := b.client.RemoveObject(ctx, b.bucket, name, minio.RemoveObjectOptions{}); err != nil && !notFound(err) {
		return b.failed("delete", key, err)
	}
	return nil
}

// String is s3://bucket/prefix.
func (b *s3Bucket) String() string {
	if b.prefix == "" {
		return "s3://" + b.bucket
	}
	return "s3://" + b.bucket + "/" + b.prefix
}

// object is the object name of key, for a change (op) that needs
// credentials.
func (b *s3Bucket) object(op, key string) (string, error) {
	if err := checkKey(key); err != nil {
		return "", err
	}
	if b.anonymous {
		return "", fmt.Errorf("mirror: %s %q in %s: no credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY", op, key, b)
	}
	return b.join(key), nil
}

// join is the object name of key: under the prefix.
func (b *s3Bucket) join(key string) string {
	if b.prefix == "" {
		return key
	}
	return b.prefix + "/" + key
}

// failed says which operation on which key of the bucket failed, with
// the store's error code when it answered one.
func (b *s3Bucket) failed(op, key string, err error) error {
	var r minio.ErrorResponse
	if errors.As(err, &r) && r.Code != "" {
		return fmt.Errorf("mirror: %s %q in %s: %s (%d %s): %w", op, key, b, r.Code, r.StatusCode, http.StatusText(r.StatusCode), err)
	}
	return fmt.Errorf("mirror: %s %q in %s: %w", op, key, b, err)
}

// notFound tells whether err is the store's answer that there is no such
// key.
func notFound(err error) bool {
	var r minio.ErrorResponse
	return errors.As(err, &r) && (r.Code == "NoSuchKey" || r.StatusCode == http.StatusNotFound && r.Code != "NoSuchBucket")
}

// readAtMost reads r to its end, refusing more than maxGet bytes.
func readAtMost(r io.Reader) ([]byte, error) {
	body, err := io.ReadAll(io.LimitReader(r, maxGet+1))
	if err != nil {
		return nil, err
	}
	if len(body) > maxGet {
		return nil, fmt.Errorf("larger than %d MiB", maxGet>>20)
	}
	return body, nil
}
