package api

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
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
	// The demo page's list changes with the clock (timeDependent), so its
	// answer is kept to the end of the second it was computed in: it is
	// looked for within that second, again when the request and the look
	// straddled two seconds.
	for attempt := 1; ; attempt++ {
		start := time.Now()
		res, err := http.Get(srv.URL + uri)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != 200 {
			t.Fatalf("%s: %d", uri, res.StatusCode)
		}
		cached := s.Cached(target(uri))
		if !time.Now().Truncate(time.Second).Equal(start.Truncate(time.Second)) && attempt < 5 {
			continue
		}
		if !cached {
			t.Error("not cached once answered")
		}
		break
	}
	if s.Cached(target("/api/v1/notices?page=2")) {
		t.Error("another page taken for the first in the cache")
	}
}
