package shed

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
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
	l := New(2, 0, slog.New(slog.NewTextHandler(io.Discard, nil)))
	l.Exempt("/admin/")
	srv := httptest.NewServer(l.Wrap(h))
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
	if res.StatusCode != 503 || res.Header.Get("Retry-After") != "1" || res.Header.Get("Content-Type") != "application/json; charset=utf-8" || !res.Close {
		t.Errorf("over the bound: %d, Retry-After %q, %s, closed %v", res.StatusCode, res.Header.Get("Retry-After"), res.Header.Get("Content-Type"), res.Close)
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

var discard = slog.New(slog.DiscardHandler)

// stampedServer is a test server for l.Wrap(h), whose connections carry
// the arrival times of their requests, as statusd's public listener does
// while goroutines queue.
func stampedServer(t *testing.T, l *Limiter, h http.Handler, exempt ...string) *httptest.Server {
	t.Helper()
	l.timing.Store(true)
	l.Exempt(exempt...)
	srv := httptest.NewUnstartedServer(l.Wrap(h))
	srv.Listener = l.Listen(srv.Listener)
	srv.Config.ConnContext = ConnContext
	srv.Start()
	t.Cleanup(srv.Close)
	return srv
}

// TestQueueShedAnswer: a queue-time refusal is the 503 of the in-flight
// bound (JSON on the API paths, text elsewhere, Retry-After, no-store), but
// keeps the connection open; exempt paths are served.
func TestQueueShedAnswer(t *testing.T) {
	ok := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusOK) })
	l := New(0, time.Nanosecond, discard) // every request waits longer
	l.overloaded.Store(true)
	stampsOn(t)
	var dials atomic.Int64
	l.Exempt("/admin/", "/healthz")
	srv := httptest.NewUnstartedServer(l.Wrap(ok))
	l.timing.Store(true)
	srv.Listener = l.Listen(srv.Listener)
	srv.Config.ConnContext = ConnContext
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			dials.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()
	client := &http.Client{Transport: &http.Transport{}}
	defer client.CloseIdleConnections()
	get := func(path string) (*http.Response, string) {
		res, err := client.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		return res, string(body)
	}
	for _, path := range []string{"/api/v1/status", "/v1/components"} {
		res, body := get(path)
		if res.StatusCode != 503 || res.Header.Get("Retry-After") != "1" || res.Header.Get("Cache-Control") != "no-store" ||
			res.Header.Get("Content-Type") != "application/json; charset=utf-8" || res.Close {
			t.Errorf("%s: %d, %v, closed %v", path, res.StatusCode, res.Header, res.Close)
		}
		const want = `{"error":{"status":503,"code":"unavailable","message":"the server is at capacity; retry in a second"}}`
		if body != want {
			t.Errorf("%s: body %s, want %s", path, body, want)
		}
	}
	res, body := get("/")
	if res.StatusCode != 503 || res.Header.Get("Retry-After") != "1" || res.Header.Get("Cache-Control") != "no-store" ||
		res.Header.Get("Content-Type") != "text/plain; charset=utf-8" || res.Close ||
		body != "The status page is very busy right now. Please try again in a second.\n" {
		t.Errorf("/: %d, %v, closed %v, %q", res.StatusCode, res.Header, res.Close, body)
	}
	for _, path := range []string{"/admin/api/v1/page", "/healthz"} {
		if res, _ := get(path); res.StatusCode != 200 {
			t.Errorf("exempt %s: %d", path, res.StatusCode)
		}
	}
	if l.Shed() != 3 {
		t.Errorf("Shed() = %d, want 3", l.Shed())
	}
	if dials.Load() != 1 {
		t.Errorf("%d connections for 5 sequential requests, want 1: a queue-time refusal must not close the connection", dials.Load())
	}
}

// TestQueueShedEpisode drives a Limiter through an episode over real
// connections, with the periods read by hand. With a target of 1 ns every
// request is late: three periods of them start an episode, in which they
// are refused (exempt paths and cached answers aside), and eight periods
// without a refusal end it. Late requests for cached answers alone start
// none. A connection without arrival times is never refused; with a
// target of an hour, no request is late, and none is refused even during
// an episode.
func TestQueueShedEpisode(t *testing.T) {
	ok := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusOK) })
	stampsOn(t)
	var logged strings.Builder
	l := New(0, time.Nanosecond, slog.New(slog.NewTextHandler(&logged, &slog.HandlerOptions{
		ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey {
				return slog.Attr{}
			}
			return a
		}})))
	l.Cached(func(r *http.Request) bool { return r.URL.Path == "/api/v1/cached" })
	srv := stampedServer(t, l, ok, "/admin/", "/healthz")
	plain := httptest.NewServer(l.Wrap(ok))
	defer plain.Close()
	client := &http.Client{Transport: &http.Transport{}}
	defer client.CloseIdleConnections()
	count := func(url string, n int) (refused int) {
		for range n {
			res, err := client.Get(url)
			if err != nil {
				t.Fatal(err)
			}
			io.Copy(io.Discard, res.Body)
			res.Body.Close()
			switch res.StatusCode {
			case 503:
				refused++
			case 200:
			default:
				t.Fatalf("%s: %d", url, res.StatusCode)
			}
		}
		return refused
	}
	status, cached := srv.URL+"/api/v1/status", srv.URL+"/api/v1/cached"
	var c controller
	// Late requests for cached answers only: refusing them would save
	// nothing, so they start no episode.
	for range 4 {
		count(cached, minWaits)
		l.observe(&c, queueing)
	}
	if l.overloaded.Load() {
		t.Fatal("an episode from late requests for cached answers")
	}
	// Two periods of late requests: no episode yet, nothing refused.
	for range 2 {
		if n := count(status, minWaits); n != 0 {
			t.Fatalf("%d refused before the interval", n)
		}
		l.observe(&c, queueing)
	}
	// Too few requests say nothing of a queue, and start the count again.
	count(status, minWaits-1)
	l.observe(&c, queueing)
	if l.overloaded.Load() {
		t.Fatal("an episode from a period of 15 requests")
	}
	for range 3 {
		count(status, minWaits)
		l.observe(&c, queueing)
	}
	if !l.overloaded.Load() {
		t.Fatal("no episode after three periods of late requests")
	}
	before := l.Shed()
	if n := count(status, 10); n != 10 {
		t.Errorf("%d of 10 late requests refused", n)
	}
	if l.Shed()-before != 10 {
		t.Errorf("Shed() went from %d to %d, want 10 more", before, l.Shed())
	}
	if n := count(srv.URL+"/admin/api/v1/page", 20) + count(srv.URL+"/healthz", 20); n != 0 {
		t.Errorf("%d exempt requests refused", n)
	}
	if n := count(plain.URL+"/api/v1/status", 10); n != 0 {
		t.Errorf("%d refused on a connection without arrival times", n)
	}
	if n := count(cached, 10); n != 0 {
		t.Errorf("%d late requests for cached answers refused", n)
	}
	// The period with the refusals keeps the episode on; seven more
	// without one do too, the eighth ends it.
	l.observe(&c, queueing)
	for i := range calmAfter {
		if !l.overloaded.Load() {
			t.Fatalf("the episode ended after %d calm periods", i)
		}
		l.observe(&c, queueing)
	}
	if l.overloaded.Load() {
		t.Error("the episode did not end after 8 calm periods")
	}
	// The start logged the third period's 16 late requests; the end, the
	// 10 refused.
	want := `level=WARN msg="overloaded: most requests waited longer than the queue target; refusing those that do (503)" queue_target=1ns requests=16 late=16
level=INFO msg="no longer overloaded" refused=10
`
	if logged.String() != want {
		t.Errorf("log:\n%s\nwant:\n%s", logged.String(), want)
	}
	if n := count(status, 10); n != 0 {
		t.Errorf("%d refused after the episode", n)
	}
	// Times off: waits are neither read nor counted.
	l.timing.Store(false)
	l.waited.Store(0)
	count(status, 5)
	if n := l.waited.Load(); n != 0 {
		t.Errorf("%d waits counted with times off", n)
	}
	l.timing.Store(true)

	patient := New(0, time.Hour, discard)
	patient.overloaded.Store(true)
	srv = stampedServer(t, patient, ok)
	if n := count(srv.URL+"/api/v1/status", 10); n != 0 {
		t.Errorf("%d refused that were not late", n)
	}
}

// TestTiming: the connections read arrival times from the first reading
// with goroutines queueing, most requests late or a computation refused,
// and through an episode; they stop after 8 readings in a row with none
// of these.
func TestTiming(t *testing.T) {
	l := New(0, 5*time.Millisecond, discard)
	var c controller
	step := func(runnable uint64, want bool) {
		t.Helper()
		if l.observe(&c, runnable); l.timing.Load() != want {
			t.Fatalf("%d goroutines waiting: timing %v, want %v", runnable, !want, want)
		}
	}
	step(queueing-1, false)
	step(queueing, true)
	for range calmAfter - 1 {
		step(queueing-1, true)
	}
	step(0, false)
	step(queueing, true)
	for range calmAfter - 2 {
		step(0, true)
	}
	// Most requests late, with few goroutines waiting: still queueing.
	l.waited.Store(2)
	l.late.Store(2)
	step(0, true)
	for range calmAfter - 1 {
		step(0, true)
	}
	step(0, false)
	// A computation refused by the gate, with few goroutines waiting: the
	// next are to be refused before net/http.
	l.gateRefused.Store(1)
	step(0, true)
	for range calmAfter - 1 {
		step(0, true)
	}
	step(0, false)
	// During an episode, whatever the count.
	c.on = true
	l.lateRefused.Store(1)
	step(0, true)
	if !l.overloaded.Load() {
		t.Fatal("the episode ended")
	}
}

// TestController feeds the control law synthetic periods.
func TestController(t *testing.T) {
	type period struct{ late, refused bool }
	late, calm, refused := period{true, false}, period{false, false}, period{false, true}
	for _, tc := range []struct {
		name    string
		periods []period
		want    []bool // overloaded after each period
	}{
		{"starts after three periods of late requests",
			[]period{late, late, late},
			[]bool{false, false, true}},
		{"a burst shorter than the interval does not start one",
			[]period{late, late, calm, late, late, late},
			[]bool{false, false, false, false, false, true}},
		{"8 periods without a refusal end an episode, however late",
			[]period{late, late, late, refused, late, late, calm, calm, calm, calm, calm, late},
			[]bool{false, false, true, true, true, true, true, true, true, true, true, false}},
		{"a refusal starts the count again",
			[]period{late, late, late, calm, calm, calm, calm, calm, calm, calm, refused, calm, calm, calm, calm, calm, calm, calm, calm},
			[]bool{false, false, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, false}},
		{"after an episode, the interval is waited out again",
			[]period{late, late, late, calm, calm, calm, calm, calm, calm, calm, calm, late, late, late},
			[]bool{false, false, true, true, true, true, true, true, true, true, false, false, false, true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var c controller
			for i, p := range tc.periods {
				if got := c.update(p.late, p.refused); got != tc.want[i] {
					t.Fatalf("period %d (late %v, refused %v): overloaded %v, want %v", i+1, p.late, p.refused, got, tc.want[i])
				}
			}
		})
	}
}

// TestWatchStops: Watch paces the turns of computations while it runs;
// it returns when its context is cancelled, and stops refusing for queue
// time and pacing; without a queue target it returns at once.
func TestWatchStops(t *testing.T) {
	l := New(0, 5*time.Millisecond, discard)
	l.overloaded.Store(true)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { l.Watch(ctx); close(done) }()
	for !l.turnsPaced() {
		time.Sleep(time.Millisecond)
	}
	cancel()
	<-done
	if l.overloaded.Load() {
		t.Error("still overloaded after Watch returned")
	}
	if l.turnsPaced() {
		t.Error("turns still paced after Watch returned")
	}
	off := New(10, 0, discard)
	done = make(chan struct{})
	go func() { off.Watch(context.Background()); close(done) }()
	<-done
}

// TestWrapOff: with neither bound, Wrap returns the handler itself.
func TestWrapOff(t *testing.T) {
	ok := http.NotFoundHandler()
	if h := New(0, 0, discard).Wrap(ok); fmt.Sprintf("%p", h) != fmt.Sprintf("%p", ok) {
		t.Error("Wrap added a layer with no bound at all")
	}
}

type nopWriter struct{ h http.Header }

func (w nopWriter) Header() http.Header       { return w.h }
func (nopWriter) Write(b []byte) (int, error) { return len(b), nil }
func (nopWriter) WriteHeader(int)             {}

// TestPassAllocs: a request that is let through costs no allocation, with
// both bounds on, an episode under way and the request's arrival known.
func TestPassAllocs(t *testing.T) {
	l := New(10, 5*time.Millisecond, discard)
	l.overloaded.Store(true)
	l.timing.Store(true)
	l.Exempt("/admin/")
	h := l.Wrap(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	var at atomic.Int64
	at.Store(time.Now().Add(time.Hour).UnixNano()) // not late, however slow the test
	r := httptest.NewRequest("GET", "/api/v1/status", nil)
	r = r.WithContext(context.WithValue(r.Context(), connKey{}, &at))
	w := nopWriter{http.Header{}}
	if n := testing.AllocsPerRun(1000, func() { h.ServeHTTP(w, r) }); n != 0 {
		t.Errorf("%v allocations a request", n)
	}
	if l.Shed() != 0 {
		t.Errorf("Shed() = %d", l.Shed())
	}
}
