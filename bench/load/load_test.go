package main

import (
	"bufio"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestPercentile(t *testing.T) {
	seq := func(n int) []time.Duration {
		out := make([]time.Duration, n)
		for i := range out {
			out[i] = time.Duration(i+1) * time.Millisecond
		}
		return out
	}
	for _, tc := range []struct {
		name string
		n    int
		p    float64
		want time.Duration
	}{
		{"median of 1..100", 100, 50, 50 * time.Millisecond},
		{"p99 of 1..100", 100, 99, 99 * time.Millisecond},
		{"p99.9 of 1..100 is the max", 100, 99.9, 100 * time.Millisecond},
		{"p99.9 of 1..1000", 1000, 99.9, 999 * time.Millisecond},
		{"p99 of 1..1000", 1000, 99, 990 * time.Millisecond},
		{"p100 is the max", 10, 100, 10 * time.Millisecond},
		{"a tiny p is the min", 10, 0.001, 1 * time.Millisecond},
		{"one value", 1, 99, 1 * time.Millisecond},
		{"no value", 0, 99, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := percentile(seq(tc.n), tc.p); got != tc.want {
				t.Errorf("percentile(1..%d, %v) = %v, want %v", tc.n, tc.p, got, tc.want)
			}
		})
	}
}

func TestSummarize(t *testing.T) {
	ds := []time.Duration{5 * time.Millisecond, time.Millisecond, 3 * time.Millisecond, 2 * time.Millisecond, 4 * time.Millisecond}
	s := summarize(ds)
	if s.Count != 5 || s.P50 != 3 || s.Max != 5 || s.Mean != 3 || s.P99 != 5 {
		t.Errorf("summarize = %+v", s)
	}
	if (summarize(nil) != Summary{}) {
		t.Error("summarize(nil) is not zero")
	}
}

func TestReadResponse(t *testing.T) {
	for _, tc := range []struct {
		name    string
		in      string
		status  int
		closing bool
	}{
		{"content length", "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello", 200, false},
		{"chunked", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n3;x=y\r\nabc\r\n0\r\nTrailer: 1\r\n\r\n", 200, false},
		{"not modified has no body", "HTTP/1.1 304 Not Modified\r\nETag: \"x\"\r\n\r\n", 304, false},
		{"refused and closed", "HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nContent-Length: 2\r\n\r\n{}", 503, true},
		{"body to the end", "HTTP/1.0 200 OK\r\n\r\nall of it", 200, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// A second response follows, to show that exactly one was read.
			br := bufio.NewReader(strings.NewReader(tc.in + "HTTP/1.1 204 No Content\r\n\r\n"))
			status, closing, err := readResponse(br)
			if err != nil || status != tc.status || closing != tc.closing {
				t.Fatalf("readResponse = %d, %v, %v; want %d, %v", status, closing, err, tc.status, tc.closing)
			}
			if !closing {
				if status, _, err := readResponse(br); err != nil || status != 204 {
					t.Fatalf("the next response: %d, %v", status, err)
				}
			}
		})
	}
}

// TestRun drives a real server: every scheduled request is answered, 503s
// are counted as shed, and the rate is held.
func TestRun(t *testing.T) {
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Test") != "yes" {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		if n.Add(1)%4 == 0 {
			w.Header().Set("Connection", "close")
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		w.Write([]byte(`{"ok":true}`))
	}))
	defer srv.Close()
	u, _ := url.Parse(srv.URL + "/x?a[b]=c")
	cfg := config{Addr: u.Host, Requests: [][]byte{buildRequest(u, []string{"X-Test: yes"})}, Rate: 2000,
		Duration: 300 * time.Millisecond, Conns: 4, MaxConns: 64, Timeout: 2 * time.Second}
	res, err := run(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if res.Scheduled != 600 || res.Completed != 600 || res.ErrorCount != 0 {
		t.Fatalf("scheduled %d, completed %d, errors %v", res.Scheduled, res.Completed, res.Errors)
	}
	if res.Shed != 150 || res.Served != 450 || res.Status["200"] != 450 || res.Status["503"] != 150 {
		t.Errorf("served %d, shed %d, status %v", res.Served, res.Shed, res.Status)
	}
	if res.AchievedRate <= 0 {
		t.Errorf("achieved rate %.0f req/s not reported", res.AchievedRate)
	}
	if res.Dials < 150 {
		t.Errorf("%d dials: a closed connection should be opened again", res.Dials)
	}
}

func TestBuildRequest(t *testing.T) {
	u, _ := url.Parse("http://127.0.0.1:8080/api/v1/notices?page=3&filter[type_eq]=unplanned")
	got := string(buildRequest(u, []string{"Accept-Encoding: gzip"}))
	want := "GET /api/v1/notices?page=3&filter[type_eq]=unplanned HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n" +
		"User-Agent: statusd-bench-load\r\nAccept-Encoding: gzip\r\n\r\n"
	if got != want {
		t.Errorf("request:\n%q\nwant\n%q", got, want)
	}
}

// TestRunURLs: with several requests, each is sent in turn, as many times
// as the others.
func TestRunURLs(t *testing.T) {
	var mu sync.Mutex
	seen := map[string]int{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen[r.URL.RequestURI()]++
		mu.Unlock()
	}))
	defer srv.Close()
	urls, err := parseURLs(readURLs("# pages\n" + srv.URL + "/a?page=1\n\n" + srv.URL + "/a?page=2\n  " + srv.URL + "/b  \n"))
	if err != nil {
		t.Fatal(err)
	}
	cfg := config{Addr: urls[0].Host, Rate: 2000, Duration: 300 * time.Millisecond, Conns: 4, MaxConns: 64, Timeout: 2 * time.Second}
	for _, u := range urls {
		cfg.Requests = append(cfg.Requests, buildRequest(u, nil))
	}
	res, err := run(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if res.Completed != 600 || res.ErrorCount != 0 {
		t.Fatalf("completed %d, errors %v", res.Completed, res.Errors)
	}
	mu.Lock()
	defer mu.Unlock()
	if want := map[string]int{"/a?page=1": 200, "/a?page=2": 200, "/b": 200}; !maps.Equal(seen, want) {
		t.Errorf("requests by URL %v, want %v", seen, want)
	}
}

func TestParseURLs(t *testing.T) {
	if got := readURLs("# comment\n\nhttp://h/a\r\n  http://h/b\n"); !slices.Equal(got, []string{"http://h/a", "http://h/b"}) {
		t.Errorf("readURLs = %q", got)
	}
	for _, bad := range [][]string{nil, {""}, {"https://h/a"}, {"http://h/a", "http://other/b"}, {"/a"}} {
		if _, err := parseURLs(bad); err == nil {
			t.Errorf("parseURLs(%q) gave no error", bad)
		}
	}
	if us, err := parseURLs([]string{"http://h:1/a", "http://h:1/b?x=1"}); err != nil || len(us) != 2 || us[1].RequestURI() != "/b?x=1" {
		t.Errorf("parseURLs = %v, %v", us, err)
	}
}
