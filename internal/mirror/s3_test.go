package mirror_test

import (
	"context"
	"errors"
	"io/fs"
	"strings"
	"testing"
	"time"

	"github.com/statusd/statusd/internal/mirror"
	"github.com/statusd/statusd/internal/testenv"
)

// openS3 opens rawURL on srv with its credentials.
func openS3(t *testing.T, srv *testenv.S3Server, rawURL string) mirror.Bucket {
	t.Helper()
	b, err := mirror.Open(rawURL, mirror.Options{Endpoint: srv.URL, AccessKey: srv.AccessKey, SecretKey: srv.SecretKey})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestS3RoundTrip(t *testing.T) {
	srv := testenv.S3(t, "statusd-mirror")
	b := openS3(t, srv, "s3://statusd-mirror/status/copy/")
	if got, want := b.String(), "s3://statusd-mirror/status/copy"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	ctx := t.Context()

	if err := b.Put(ctx, "index.html", []byte("<h1>old</h1>"), "text/html; charset=utf-8"); err != nil {
		t.Fatal(err)
	}
	if err := b.Put(ctx, "index.html", []byte("<h1>All systems up</h1>"), "text/html; charset=utf-8"); err != nil {
		t.Fatal(err)
	}
	if err := b.Put(ctx, "api/v1/summary.json", []byte(`{"status":"up"}`), "application/json"); err != nil {
		t.Fatal(err)
	}
	for key, want := range map[string]struct{ body, ctype string }{
		"status/copy/index.html":          {"<h1>All systems up</h1>", "text/html; charset=utf-8"},
		"status/copy/api/v1/summary.json": {`{"status":"up"}`, "application/json"},
	} {
		body, ctype, ok := srv.Object(key)
		if !ok || string(body) != want.body || ctype != want.ctype {
			t.Errorf("object %q = %q, %q, %v; want %q, %q, true", key, body, ctype, ok, want.body, want.ctype)
		}
	}
	if _, _, ok := srv.Object("index.html"); ok {
		t.Error("index.html is at the bucket's root, outside the prefix")
	}
	if got := srv.Puts(); got["status/copy/index.html"] != 2 || got["status/copy/api/v1/summary.json"] != 1 || len(got) != 2 {
		t.Errorf("PUTs = %v, want index.html twice and summary.json once, each one request", got)
	}

	got, err := b.Get(ctx, "api/v1/summary.json")
	if err != nil || string(got) != `{"status":"up"}` {
		t.Errorf("Get = %q, %v", got, err)
	}

	if err := b.Delete(ctx, "index.html"); err != nil {
		t.Fatal(err)
	}
	if _, _, ok := srv.Object("status/copy/index.html"); ok {
		t.Error("the object is still there after Delete")
	}
	if _, err := b.Get(ctx, "index.html"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Get after Delete: %v, want fs.ErrNotExist", err)
	}
}

func TestS3NoPrefix(t *testing.T) {
	srv := testenv.S3(t, "bare")
	b := openS3(t, srv, "s3://bare")
	if got, want := b.String(), "s3://bare"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	if err := b.Put(t.Context(), "mirror.json", []byte("{}"), "application/json"); err != nil {
		t.Fatal(err)
	}
	if body, _, ok := srv.Object("mirror.json"); !ok || string(body) != "{}" {
		t.Errorf("object mirror.json = %q, %v; want {}", body, ok)
	}
}

func TestS3Missing(t *testing.T) {
	srv := testenv.S3(t, "statusd-mirror")
	b := openS3(t, srv, "s3://statusd-mirror/status/copy")
	_, err := b.Get(t.Context(), "nothing.html")
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Get of a missing key: %v, want fs.ErrNotExist", err)
	}
	if err != nil && !strings.Contains(err.Error(), `"nothing.html"`) {
		t.Errorf("the error %q does not name the key", err)
	}
	if err := b.Delete(t.Context(), "nothing.html"); err != nil {
		t.Errorf("Delete of a missing key: %v", err)
	}
}

func TestS3Refused(t *testing.T) {
	srv := testenv.S3(t, "statusd-mirror")
	b := openS3(t, srv, "s3://statusd-mirror/status/copy")
	srv.Refuse(true)
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	start := time.Now()
	err := b.Put(ctx, "index.html", []byte("<h1>up</h1>"), "text/html")
	if err == nil {
		t.Fatal("Put to a refusing server succeeded")
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("Put took %v to give up", took)
	}
	for _, want := range []string{`"index.html"`, "s3://statusd-mirror/status/copy", "503"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the error %q does not say %s", err, want)
		}
	}
	if strings.Contains(err.Error(), srv.SecretKey) {
		t.Errorf("the error %q holds the secret", err)
	}
	if _, err := b.Get(ctx, "index.html"); err == nil || errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Get from a refusing server: %v, want an error that is not fs.ErrNotExist", err)
	}

	srv.Refuse(false)
	if err := b.Put(ctx, "index.html", []byte("<h1>up</h1>"), "text/html"); err != nil {
		t.Fatal(err)
	}
	if got := srv.Puts()["status/copy/index.html"]; got != 1 {
		t.Errorf("the server took %d PUTs, want the 1 after it served again", got)
	}
}

func TestS3Anonymous(t *testing.T) {
	srv := testenv.S3(t, "public")
	if err := openS3(t, srv, "s3://public").Put(t.Context(), "a.txt", []byte("a"), "text/plain"); err != nil {
		t.Fatal(err)
	}
	b, err := mirror.Open("s3://public", mirror.Options{Endpoint: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := b.Get(t.Context(), "a.txt"); err != nil || string(got) != "a" {
		t.Errorf("anonymous Get = %q, %v; want a", got, err)
	}
	if err := b.Put(t.Context(), "b.txt", []byte("b"), "text/plain"); err == nil || !strings.Contains(err.Error(), "AWS_ACCESS_KEY_ID") {
		t.Errorf("anonymous Put: %v, want an error that asks for credentials", err)
	}
	if err := b.Delete(t.Context(), "a.txt"); err == nil {
		t.Error("anonymous Delete succeeded")
	}
}

func TestS3BadURL(t *testing.T) {
	for _, tc := range []struct{ url, endpoint, want string }{
		{"s3://", "", "name the bucket"},
		{"s3:///status", "", "name the bucket"},
		{"s3://a/status", "", `bucket "a"`},
		{"s3://key:hunter2@statusd-mirror/status", "", "carries no credentials"},
		{"s3://statusd-mirror/status/../other", "", "not a plain slash-separated path"},
		{"s3://statusd-mirror/status?x=1", "", "without a query"},
		{"s3://statusd-mirror/status", "127.0.0.1:9000", "give the service's URL"},
		{"s3://statusd-mirror/status", "ftp://127.0.0.1:9000", "give the service's URL"},
		{"s3://statusd-mirror/status", "http://key:hunter2@127.0.0.1:9000", "carries no credentials"},
		{"s3://statusd-mirror/status", "http://key:hunter2@127.0.0.1:port", "give the service's URL"},
		{"s3://statusd-mirror/status", "http://127.0.0.1:9000/bucket", "give the service's URL"},
	} {
		_, err := mirror.Open(tc.url, mirror.Options{Endpoint: tc.endpoint, AccessKey: "k", SecretKey: "s"})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Open(%q) with endpoint %q: %v, want an error saying %q", tc.url, tc.endpoint, err, tc.want)
		} else if strings.Contains(err.Error(), "hunter2") {
			t.Errorf("Open(%q): the error %q holds the password", tc.url, err)
		}
	}
}

func TestS3BadKey(t *testing.T) {
	srv := testenv.S3(t, "statusd-mirror")
	b := openS3(t, srv, "s3://statusd-mirror/status")
	for _, key := range []string{"../x", "/x", "a//b", ""} {
		if err := b.Put(t.Context(), key, []byte("x"), "text/plain"); err == nil {
			t.Errorf("Put(%q) succeeded", key)
		}
	}
	if got := srv.Puts(); len(got) != 0 {
		t.Errorf("PUTs = %v, want none", got)
	}
}
