package server

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/internal/api"
	"github.com/statusd/statusd/internal/demo"
	"github.com/statusd/statusd/internal/httpjson"
	"github.com/statusd/statusd/internal/ratelimit"
	"github.com/statusd/statusd/internal/respcache"
	"github.com/statusd/statusd/internal/route"
	"github.com/statusd/statusd/internal/snapshot"
	"github.com/statusd/statusd/internal/statuspage"
	"github.com/statusd/statusd/internal/testenv"
)

// frontServer serves a few API and Statuspage routes over the demo page's
// snapshot behind front, as publicChain does, and notes what the routes
// behind it were asked and the Pattern of every request, as telemetry
// reads it.
type frontServer struct {
	*httptest.Server
	mu       sync.Mutex
	routed   []string // the targets that reached the routes
	patterns []string
}

func newFrontServer(t *testing.T, limiter ratelimit.Allower) *frontServer {
	now := time.Now()
	snaps := snapshot.Fixed{Snapshot: snapshot.Build(demo.Document(now), 1, now, snapshot.Options{Variant: statusd.VariantA})}
	var answers respcache.PerSource
	a := api.New(api.Config{Snapshots: snaps, Variant: statusd.VariantA, Answers: &answers, Now: time.Now})
	v2 := statuspage.New(statuspage.Config{Snapshots: snaps, Answers: &answers, MaxAge: 5 * time.Second})
	mux := route.NewMux(http.NewServeMux(), route.NewErrors(nil, nil))
	mux.Read("/api/v1/status", a.Read(a.Status), httpjson.Preflight)
	mux.Read("/api/v1/notices/{id}", a.Read(a.Notice), httpjson.Preflight)
	mux.Read("/api/v2/status.json", v2.Serve("/api/v2/status.json"), httpjson.Preflight)
	mux.Handle("/api/", api.NotFound)

	f := &frontServer{}
	routes := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		f.routed = append(f.routed, r.Method+" "+r.RequestURI)
		f.mu.Unlock()
		mux.ServeHTTP(w, r)
	})
	fr := &front{snaps: snaps, answers: &answers, limiter: limiter, now: time.Now, mux: mux}
	h := fr.wrap(routes, mux.Errors().Write)
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(w, r)
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
	f := newFrontServer(t, nil)
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
	if post.Header.Get("Access-Control-Allow-Origin") != "*" {
		t.Errorf("405 without CORS: %v", post.Header)
	}
}

// TestFrontRateLimit: an answer served without routing still counts
// against the client's limit: with a burst of 2, the third request is a
// 429 with the limit's headers. A refused request that was never answered
// before is labelled with the route it would have taken.
func TestFrontRateLimit(t *testing.T) {
	f := newFrontServer(t, ratelimit.New(0.001, 2))
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
	res, _ := testenv.Fetch(t, http.MethodGet, f.URL+"/api/v1/notices/2")
	if n, pattern := f.last(); res.StatusCode != 429 || n != 1 || pattern != "/api/v1/notices/{id}" {
		t.Errorf("a new target over the limit: %d, %d routed, pattern %q; want 429, 1, /api/v1/notices/{id}", res.StatusCode, n, pattern)
	}
}

// TestFrontStatuspage: Statuspage's v2 endpoints get what the v1 API gets
// from the front: any origin, the same limit (a preflight not counted),
// their answers served from the one cache without routing, and the 429
// of the limit.
func TestFrontStatuspage(t *testing.T) {
	f := newFrontServer(t, ratelimit.New(0.001, 3))
	const target = "/api/v2/status.json"
	res, body := testenv.Fetch(t, http.MethodGet, f.URL+target)
	if res.StatusCode != 200 || res.Header.Get("Access-Control-Allow-Origin") != "*" || res.Header.Get("Cache-Control") != "public, max-age=5" ||
		res.Header.Get("RateLimit-Limit") != "3" || res.Header.Get("Content-Type") != "application/json; charset=utf-8" {
		t.Fatalf("GET: %d %v %s", res.StatusCode, res.Header, body)
	}
	if res, _ := testenv.Fetch(t, http.MethodGet, f.URL+target, "If-None-Match", `W/"x", `+res.Header.Get("Etag")); res.StatusCode != 304 {
		t.Errorf("If-None-Match: %d", res.StatusCode)
	}
	if res, _ := testenv.Fetch(t, http.MethodOptions, f.URL+target, "Origin", "https://x.test", "Access-Control-Request-Method", "GET"); res.StatusCode != 204 ||
		res.Header.Get("Access-Control-Allow-Origin") != "*" || res.Header.Get("RateLimit-Limit") != "" {
		t.Errorf("preflight: %d %v", res.StatusCode, res.Header)
	}
	if res, _ := testenv.Fetch(t, http.MethodGet, f.URL+target); res.StatusCode != 200 {
		t.Errorf("third GET: %d", res.StatusCode)
	}
	if n, pattern := f.last(); n != 2 || pattern != target {
		t.Errorf("%d routed (the first GET and the preflight), pattern %q; want 2, %s", n, pattern, target)
	}
	res, body = testenv.Fetch(t, http.MethodGet, f.URL+target)
	if res.StatusCode != 429 || res.Header.Get("Retry-After") == "" || !strings.Contains(body, `"code":"rate_limited"`) ||
		res.Header.Get("Access-Control-Allow-Origin") != "*" {
		t.Errorf("over the limit: %d %v %s", res.StatusCode, res.Header, body)
	}
}
