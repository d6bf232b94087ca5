package api

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestCached: a request target is cached once answered, the same target
// only, which load shedding asks before refusing a request.
func TestCached(t *testing.T) {
	s := demoServer(t, nil)
	mux := http.NewServeMux()
	s.Register(mux)
	srv := httptest.NewServer(mux)
	defer srv.Close()

	// A server-side request carries its target in RequestURI, as net/http
	// sets it.
	target := func(uri string) *http.Request {
		r := httptest.NewRequest(http.MethodGet, uri, nil)
		r.RequestURI = uri
		return r
	}
	const uri = "/api/v1/notices?page=1"
	if s.Cached(target(uri)) {
		t.Fatal("cached before it was asked for")
	}
	res, err := http.Get(srv.URL + uri)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 200 {
		t.Fatalf("%s: %d", uri, res.StatusCode)
	}
	if !s.Cached(target(uri)) {
		t.Error("not cached once answered")
	}
	if s.Cached(target("/api/v1/notices?page=2")) {
		t.Error("another page taken for the first in the cache")
	}
}
