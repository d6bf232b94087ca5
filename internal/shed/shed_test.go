package shed

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
)

// TestShed holds two requests in a handler with a bound of two: a third is
// refused at once with 503 and Retry-After, an exempt path still gets
// through, and once the two finish requests are served again.
func TestShed(t *testing.T) {
	release := make(chan struct{})
	entered := make(chan struct{}, 10)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/api/v1/slow" {
			entered <- struct{}{}
			<-release
		}
		w.WriteHeader(http.StatusOK)
	})
	l := New(2, slog.New(slog.NewTextHandler(io.Discard, nil)))
	srv := httptest.NewServer(l.Wrap(h, "/admin/"))
	defer srv.Close()
	get := func(path string) *http.Response {
		res, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		return res
	}
	var wg sync.WaitGroup
	for i := 0; i < 2; i++ {
		wg.Add(1)
		go func() { defer wg.Done(); get("/api/v1/slow") }()
	}
	<-entered
	<-entered
	res := get("/api/v1/status")
	if res.StatusCode != 503 || res.Header.Get("Retry-After") != "1" || res.Header.Get("Content-Type") != "application/json; charset=utf-8" {
		t.Errorf("over the bound: %d, Retry-After %q, %s", res.StatusCode, res.Header.Get("Retry-After"), res.Header.Get("Content-Type"))
	}
	if res := get("/"); res.StatusCode != 503 {
		t.Errorf("HTML over the bound: %d", res.StatusCode)
	}
	if res := get("/admin/api/v1/page"); res.StatusCode != 200 {
		t.Errorf("exempt path over the bound: %d", res.StatusCode)
	}
	close(release)
	wg.Wait()
	if res := get("/api/v1/status"); res.StatusCode != 200 {
		t.Errorf("after the slow ones finished: %d", res.StatusCode)
	}
	if l.Shed() != 2 {
		t.Errorf("Shed() = %d, want 2", l.Shed())
	}
}
