package api

import (
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/statusd/statusd/internal/ratelimit"
	"github.com/statusd/statusd/internal/testenv"
)

// frontServer serves s behind Front, as statusd does, and notes what the
// ServeMux behind it was asked and the Pattern of every request, as
// telemetry reads it.
type frontServer struct {
	*httptest.Server
	mu       sync.Mutex
	routed   []string // the targets that reached the ServeMux
	patterns []string
}

func newFrontServer(t *testing.T, s *Server) *frontServer {
	mux := routes(s)
	f := &frontServer{}
	routes := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		f.routed = append(f.routed, r.Method+" "+r.RequestURI)
		f.mu.Unlock()
		mux.ServeHTTP(w, r)
	})
	front := s.Front(routes, testErrors.Write)
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		front.ServeHTTP(w, r)
		f.mu.Lock()
		f.patterns = append(f.patterns, r.Pattern)
		f.mu.Unlock()
	}))
	t.Cleanup(f.Close)
	return f
}

// last returns the targets routed so far and the last request's Pattern.
func (f *frontServer) last() (int, string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.routed), f.patterns[len(f.patterns)-1]
}

// TestFront: a target answered once is answered again without routing,
// with the same answer, headers and route; a conditional request gets its
// 304 there too, and HEAD its headers. Other methods and targets never
// answered are routed.
func TestFront(t *testing.T) {
	f := newFrontServer(t, demoServer(t, nil))
	const target = "/api/v1/notices/1"
	// Identity, so that the client keeps Content-Length as sent.
	first, body := testenv.Fetch(t, http.MethodGet, f.URL+target, "Accept-Encoding", "identity")
	if first.StatusCode != 200 {
		t.Fatalf("first: %d %s", first.StatusCode, body)
	}
	if n, pattern := f.last(); n != 1 || pattern != "/api/v1/notices/{id}" {
		t.Fatalf("first: %d routed, pattern %q; want 1, /api/v1/notices/{id}", n, pattern)
	}

	again, againBody := testenv.Fetch(t, http.MethodGet, f.URL+target, "Accept-Encoding", "identity")
	if n, pattern := f.last(); n != 1 || pattern != "/api/v1/notices/{id}" {
		t.Errorf("again: %d routed, pattern %q; want still 1, and the route's pattern", n, pattern)
	}
	if again.StatusCode != 200 || againBody != body {
		t.Errorf("again: %d, a different body", again.StatusCode)
	}
	if again.ContentLength != first.ContentLength || first.ContentLength != int64(len(body)) {
		t.Errorf("Content-Length: %d again, %d first, for %d bytes", again.ContentLength, first.ContentLength, len(body))
	}
	for _, k := range []string{"Etag", "Cache-Control", "Vary", "Content-Type",
		"Access-Control-Allow-Origin", "Access-Control-Expose-Headers"} {
		if again.Header.Get(k) != first.Header.Get(k) || first.Header.Get(k) == "" {
			t.Errorf("%s: %q again, %q first", k, again.Header.Get(k), first.Header.Get(k))
		}
	}

	notModified, _ := testenv.Fetch(t, http.MethodGet, f.URL+target, "If-None-Match", first.Header.Get("Etag"), "Accept-Encoding", "identity")
	head, headBody := testenv.Fetch(t, http.MethodHead, f.URL+target)
	if n, _ := f.last(); n != 1 || notModified.StatusCode != 304 || head.StatusCode != 200 || headBody != "" {
		t.Errorf("304 and HEAD: %d routed, %d, %d with %d bytes; want 1 routed, 304, 200 empty",
			n, notModified.StatusCode, head.StatusCode, len(headBody))
	}

	post, _ := testenv.Fetch(t, http.MethodPost, f.URL+target)
	other, _ := testenv.Fetch(t, http.MethodGet, f.URL+target+"?x=1")
	if n, _ := f.last(); n != 3 || post.StatusCode != 405 || other.StatusCode != 200 {
		t.Errorf("POST and another target: %d routed, %d, %d; want 3 routed, 405, 200", n, post.StatusCode, other.StatusCode)
	}
}

// TestFrontRateLimit: an answer served without routing still counts
// against the client's limit: with a burst of 2, the third request is a
// 429 with the limit's headers.
func TestFrontRateLimit(t *testing.T) {
	f := newFrontServer(t, demoServer(t, func(c *Config) { c.Limiter = ratelimit.New(0.001, 2) }))
	for i, want := range []int{200, 200, 429} {
		res, body := testenv.Fetch(t, http.MethodGet, f.URL+"/api/v1/status")
		if res.StatusCode != want {
			t.Fatalf("request %d: %d %s, want %d", i+1, res.StatusCode, body, want)
		}
		if res.Header.Get("RateLimit-Limit") != "2" || res.Header.Get("Access-Control-Allow-Origin") != "*" {
			t.Errorf("request %d: RateLimit-Limit %q, Access-Control-Allow-Origin %q", i+1,
				res.Header.Get("RateLimit-Limit"), res.Header.Get("Access-Control-Allow-Origin"))
		}
		if want == 429 && res.Header.Get("Retry-After") == "" {
			t.Error("429 without Retry-After")
		}
	}
	if n, pattern := f.last(); n != 1 || pattern != "/api/v1/status" {
		t.Errorf("%d routed, pattern %q; want 1, /api/v1/status", n, pattern)
	}
}
