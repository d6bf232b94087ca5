package shed

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"runtime/metrics"
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

// refuseAll makes every non-exempt request a queue-time refusal: a
// threshold of 2^32 is above every uint32 (the controller never goes past
// 0.95 of it).
func refuseAll(l *Limiter) { l.refuse.Store(1 << 32) }

// TestQueueShedAnswer: a queue-time refusal is the 503 of the in-flight
// bound (JSON on the API paths, text elsewhere, Retry-After, no-store), but
// keeps the connection open; exempt paths are served.
func TestQueueShedAnswer(t *testing.T) {
	ok := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusOK) })
	l := New(0, 5*time.Millisecond, discard)
	refuseAll(l)
	var dials atomic.Int64
	srv := httptest.NewUnstartedServer(l.Wrap(ok, "/admin/", "/healthz"))
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
		res.Header.Get("Content-Type") != "text/plain; charset=utf-8" || res.Close || !strings.Contains(body, "retry in a second") {
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

// TestQueueShedDrains drives a Limiter through an episode with synthetic
// readings: past the interval above the target, a share of requests is
// refused and counted, exempt paths never are; once the queue drains, p
// falls at each reading and reaches 0, and every request is served again.
func TestQueueShedDrains(t *testing.T) {
	ok := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusOK) })
	l := New(0, 5*time.Millisecond, discard)
	h := l.Wrap(ok, "/admin/", "/healthz")
	count := func(path string, n int) (refused int) {
		for range n {
			w := httptest.NewRecorder()
			h.ServeHTTP(w, httptest.NewRequest("GET", path, nil))
			switch w.Code {
			case 503:
				refused++
			case 200:
			default:
				t.Fatalf("%s: %d", path, w.Code)
			}
		}
		return refused
	}
	c := controller{target: l.queueTarget}
	// Readings of 20 ms (4 targets): 2 wait, then 0.2, 0.4, 0.6, 0.8 and
	// 0.95, the most.
	for range 7 {
		l.observe(&c, 20*time.Millisecond, false)
	}
	if got, want := l.refuse.Load(), uint64(4080218931); got != want { // 0.95 * 2^32 = 4080218931.2
		t.Fatalf("threshold %d, want %d (p = 0.95)", got, want)
	}
	// With p = 0.95, no refusal in 1,000 requests has a chance of
	// 0.05^1000, every one refused a chance of 0.95^1000 (about 5e-23).
	refused := count("/api/v1/status", 1000)
	if refused == 0 || refused == 1000 {
		t.Errorf("%d of 1000 refused at p = 0.95", refused)
	}
	if l.Shed() != int64(refused) {
		t.Errorf("Shed() = %d, want %d", l.Shed(), refused)
	}
	if n := count("/admin/api/v1/page", 200) + count("/healthz", 200); n != 0 {
		t.Errorf("%d exempt requests refused", n)
	}
	// The queue drains: p is multiplied by 0.8 at each reading, and
	// 0.95 * 0.8^20 = 0.01095 is still at least 0.01, but 0.95 * 0.8^21 =
	// 0.00876 is not, so 0: 21 readings (525 ms).
	for i := range 21 {
		l.observe(&c, time.Millisecond, false)
		if got := l.refuse.Load(); (got == 0) != (i == 20) {
			t.Fatalf("after %d readings below the target: threshold %d", i+1, got)
		}
	}
	if n := count("/api/v1/status", 1000); n != 0 {
		t.Errorf("%d refused after the queue drained", n)
	}
}

// TestController feeds the control law synthetic readings (target 5 ms);
// the expected values are worked out by hand from its constants: a reading
// above the target adds 0.05 per 5 ms of delay, at most 0.2; one at or
// below it multiplies p by 0.8.
func TestController(t *testing.T) {
	type reading struct {
		delay time.Duration
		gc    bool // the collector marked during the period
	}
	ms := func(f float64) reading { return reading{time.Duration(f * float64(time.Millisecond)), false} }
	gc := func(f float64) reading { return reading{time.Duration(f * float64(time.Millisecond)), true} }
	for _, tc := range []struct {
		name     string
		readings []reading
		want     []float64 // p after each reading
	}{
		{"starts after the interval, then moves with the delay",
			[]reading{ms(10), ms(10), ms(10), ms(7.5), ms(100), ms(5), ms(1), ms(0)},
			[]float64{0, 0, 0.1, 0.175, 0.375, 0.3, 0.24, 0.192}},
		{"at most 0.2 a reading and 0.95 in all",
			[]reading{ms(20), ms(20), ms(20), ms(20), ms(20), ms(20), ms(20), ms(50), ms(20)},
			[]float64{0, 0, 0.2, 0.4, 0.6, 0.8, 0.95, 0.95, 0.95}},
		{"a burst shorter than the interval is not refused",
			[]reading{ms(20), ms(20), ms(1), ms(20), ms(20), ms(20)},
			[]float64{0, 0, 0, 0, 0, 0.2}},
		{"readings of periods with marking do not count towards the interval",
			[]reading{gc(40), gc(40), gc(40), gc(40), gc(40), ms(20), ms(20), gc(40), ms(20)},
			[]float64{0, 0, 0, 0, 0, 0, 0, 0, 0.2}},
		{"nor reset it",
			[]reading{ms(20), ms(20), gc(40), ms(20)},
			[]float64{0, 0, 0, 0.2}},
		{"once refusing, readings with marking count as any other",
			[]reading{ms(20), ms(20), ms(20), gc(10), gc(1)},
			[]float64{0, 0, 0.2, 0.3, 0.24}},
		{"while refusing, a reading above adds at once, without a new interval",
			[]reading{ms(20), ms(20), ms(20), ms(1), ms(10)},
			[]float64{0, 0, 0.2, 0.16, 0.26}},
		{"below 0.01 is 0, and then the interval is waited out again",
			[]reading{ms(10), ms(10), ms(10), ms(1), ms(1), ms(1), ms(1), ms(1), ms(1), ms(1), ms(1), ms(1), ms(1), ms(1), ms(10), ms(10), ms(10)},
			// 0.1 * 0.8^10 = 0.01074, 0.1 * 0.8^11 = 0.00859
			[]float64{0, 0, 0.1, 0.08, 0.064, 0.0512, 0.04096, 0.032768, 0.0262144, 0.02097152, 0.016777216, 0.0134217728, 0.01073741824, 0, 0, 0, 0.1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := controller{target: 5 * time.Millisecond}
			for i, r := range tc.readings {
				if got := c.update(r.delay, r.gc); math.Abs(got-tc.want[i]) > 1e-9 {
					t.Fatalf("reading %d (%v, marking %v): p = %v, want %v", i+1, r.delay, r.gc, got, tc.want[i])
				}
			}
		})
	}
}

// TestMarking: one GC pause more than twice the completed cycles is a mark
// phase under way.
func TestMarking(t *testing.T) {
	for _, tc := range []struct {
		cycles uint64
		pauses []uint64
		want   bool
	}{
		{0, []uint64{0, 0, 0}, false},
		{0, []uint64{0, 1, 0}, true},     // the first cycle started
		{3, []uint64{0, 4, 2}, false},    // 6 pauses: 3 cycles done
		{3, []uint64{1, 4, 2}, true},     // 7: the fourth is marking
		{4, []uint64{1, 4, 2}, false},    // the fourth counted complete just before its last pause
		{3, []uint64{2, 4, 2, 0}, false}, // more pauses than cycles explain: not taken for marking
	} {
		if got := marking(tc.cycles, tc.pauses); got != tc.want {
			t.Errorf("marking(%d, %v) = %v, want %v", tc.cycles, tc.pauses, got, tc.want)
		}
	}
}

// TestP90 reads synthetic histograms shaped like the runtime's: the first
// bucket from -Inf, the last to +Inf.
func TestP90(t *testing.T) {
	inf := math.Inf(1)
	// [-Inf,0) [0,1ms) [1ms,2ms) [2ms,5ms) [5ms,10ms) [10ms,100ms) [100ms,+Inf)
	buckets := []float64{-inf, 0, 0.001, 0.002, 0.005, 0.010, 0.1, inf}
	zero := make([]uint64, 7)
	for _, tc := range []struct {
		name      string
		prev, cur []uint64
		want      time.Duration
	}{
		{"no waits", zero, zero, 0},
		{"rank 90 of 100 ends in [2ms,5ms)", zero, []uint64{0, 80, 0, 10, 0, 10, 0}, 2 * time.Millisecond},
		{"rank 90 of 100 past [2ms,5ms)", zero, []uint64{0, 80, 0, 9, 0, 11, 0}, 10 * time.Millisecond},
		{"the delta counts, not the totals",
			[]uint64{0, 1000, 50, 7, 3, 2, 0}, []uint64{0, 1002, 50, 7, 21, 2, 0}, 5 * time.Millisecond}, // 2 and 18: rank 18 of 20
		{"16 waits: rank 15 is the larger", zero, []uint64{0, 14, 0, 0, 0, 2, 0}, 10 * time.Millisecond},
		{"15 waits are too few, however long", zero, []uint64{0, 0, 0, 0, 0, 0, 15}, 0},
		{"one wait is too few", zero, []uint64{0, 0, 0, 0, 1, 0, 0}, 0},
		{"the +Inf bucket reads as its lower bound", zero, []uint64{0, 0, 0, 0, 0, 0, 30}, 100 * time.Millisecond},
		{"the -Inf bucket reads as 0", zero, []uint64{50, 0, 0, 0, 0, 0, 0}, 0},
		{"counts that do not match the buckets", zero, []uint64{1, 2}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := p90(buckets, tc.prev, tc.cur); got != tc.want {
				t.Errorf("p90 = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestRuntimeMetrics checks what Watch assumes of the runtime's metrics:
// the histogram's shape, and two GC pauses a cycle (a count of pauses, read
// a little apart from the count of cycles, within one of twice the
// cycles).
func TestRuntimeMetrics(t *testing.T) {
	runtime.GC()
	s := []metrics.Sample{{Name: schedLatencies}, {Name: gcCycles}, {Name: gcPauses}}
	metrics.Read(s)
	if k := s[0].Value.Kind(); k != metrics.KindFloat64Histogram {
		t.Fatalf("%s is of kind %v", schedLatencies, k)
	}
	h := s[0].Value.Float64Histogram()
	if len(h.Buckets) != len(h.Counts)+1 {
		t.Fatalf("%d bounds for %d buckets", len(h.Buckets), len(h.Counts))
	}
	if d := p90(h.Buckets, make([]uint64, len(h.Counts)), h.Counts); d < 0 {
		t.Errorf("p90 since the start = %v", d)
	}
	if k := s[1].Value.Kind(); k != metrics.KindUint64 {
		t.Fatalf("%s is of kind %v", gcCycles, k)
	}
	if k := s[2].Value.Kind(); k != metrics.KindFloat64Histogram {
		t.Fatalf("%s is of kind %v", gcPauses, k)
	}
	cycles := int64(s[1].Value.Uint64())
	var pauses int64
	for _, n := range s[2].Value.Float64Histogram().Counts {
		pauses += int64(n)
	}
	if cycles == 0 || pauses < 2*cycles-1 || pauses > 2*cycles+1 {
		t.Errorf("%d GC pauses for %d cycles, want two a cycle", pauses, cycles)
	}
}

// TestWatchStops: Watch returns when its context is cancelled and stops
// refusing for queue time; without a queue target it returns at once.
func TestWatchStops(t *testing.T) {
	l := New(0, 5*time.Millisecond, discard)
	refuseAll(l)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { l.Watch(ctx); close(done) }()
	cancel()
	<-done
	if got := l.refuse.Load(); got != 0 {
		t.Errorf("threshold %d after Watch returned", got)
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
// both bounds on and a (tiny) share being refused, so that the random draw
// is made.
func TestPassAllocs(t *testing.T) {
	l := New(10, 5*time.Millisecond, discard)
	l.refuse.Store(1) // a refusal chance of 2^-32 a request
	h := l.Wrap(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}), "/admin/")
	w, r := nopWriter{http.Header{}}, httptest.NewRequest("GET", "/api/v1/status", nil)
	if n := testing.AllocsPerRun(1000, func() { h.ServeHTTP(w, r) }); n != 0 {
		t.Errorf("%v allocations a request", n)
	}
	if l.Shed() != 0 {
		t.Errorf("Shed() = %d", l.Shed())
	}
}
