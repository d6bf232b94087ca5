package mirror_test

import (
	"errors"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/statusd/statusd/internal/mirror"
)

// serveCopy serves a copy of a mirror from a folder on 127.0.0.1 under
// /copy/, and answers 403 under /denied/ and 500 under /broken/.
func serveCopy(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "api", "v1"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "api", "v1", "summary.json"), []byte(`{"status":"up"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/copy/", http.StripPrefix("/copy/", http.FileServer(http.Dir(dir))))
	mux.HandleFunc("/denied/", func(w http.ResponseWriter, _ *http.Request) { http.Error(w, "AccessDenied", http.StatusForbidden) })
	mux.HandleFunc("/broken/", func(w http.ResponseWriter, _ *http.Request) { http.Error(w, "oops", http.StatusInternalServerError) })
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv.URL
}

func TestHTTPGet(t *testing.T) {
	base := serveCopy(t)
	for _, rawURL := range []string{base + "/copy", base + "/copy/"} {
		b, err := mirror.Open(rawURL, mirror.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if b.String() != rawURL {
			t.Errorf("String() = %q, want %q", b.String(), rawURL)
		}
		got, err := b.Get(t.Context(), "api/v1/summary.json")
		if err != nil || string(got) != `{"status":"up"}` {
			t.Errorf("%s: Get = %q, %v", rawURL, got, err)
		}
		_, err = b.Get(t.Context(), "api/v1/missing.json")
		if !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s: Get of a missing key: %v, want fs.ErrNotExist", rawURL, err)
		}
		if err != nil && !strings.Contains(err.Error(), base+"/copy/api/v1/missing.json") {
			t.Errorf("the error %q does not name the URL", err)
		}
	}
}

func TestHTTPStatus(t *testing.T) {
	base := serveCopy(t)
	denied, err := mirror.Open(base+"/denied/", mirror.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := denied.Get(t.Context(), "mirror.json"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Get answered 403: %v, want fs.ErrNotExist", err)
	}
	broken, err := mirror.Open(base+"/broken/", mirror.Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = broken.Get(t.Context(), "mirror.json")
	if err == nil || errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "500 Internal Server Error") || !strings.Contains(err.Error(), base+"/broken/mirror.json") {
		t.Errorf("Get answered 500: %v, want an error naming the status and the URL", err)
	}
}

func TestHTTPReadOnly(t *testing.T) {
	b, err := mirror.Open(serveCopy(t)+"/copy/", mirror.Options{})
	if err != nil {
		t.Fatal(err)
	}
	const want = "an http(s) mirror URL can only be read: push to file:// or s3://"
	if err := b.Put(t.Context(), "mirror.json", []byte("{}"), "application/json"); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("Put: %v, want %q", err, want)
	}
	if err := b.Delete(t.Context(), "mirror.json"); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("Delete: %v, want %q", err, want)
	}
}

func TestHTTPBadURL(t *testing.T) {
	for _, tc := range []struct{ url, want string }{
		{"https:///copy", "name the host"},
		{"https://status-copy.example.com/?v=1", "no query"},
		{"https://reader:hunter2@status-copy.example.com/", "carries no credentials"},
	} {
		_, err := mirror.Open(tc.url, mirror.Options{})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Open(%q): %v, want an error saying %q", tc.url, err, tc.want)
		} else if strings.Contains(err.Error(), "hunter2") {
			t.Errorf("Open(%q): the error %q holds the password", tc.url, err)
		}
	}
}
