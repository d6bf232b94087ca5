package main

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/statusd/statusd/internal/testenv"
	"github.com/statusd/statusd/internal/testserver"
)

// redisSwitch stands between statusd and a real Redis. While hung, it
// accepts connections and never answers, as a hung Redis does; once up,
// it passes every new connection through to the real one.
type redisSwitch struct {
	ln    net.Listener
	real  string // host:port of the real Redis
	live  atomic.Bool
	mu    sync.Mutex
	conns []net.Conn
}

// newRedisSwitch starts a hung switch in front of the Redis at real; it
// closes every connection when the test ends.
func newRedisSwitch(t *testing.T, real string) *redisSwitch {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &redisSwitch{ln: ln, real: real}
	go s.accept()
	t.Cleanup(func() {
		ln.Close()
		s.mu.Lock()
		defer s.mu.Unlock()
		for _, c := range s.conns {
			c.Close()
		}
	})
	return s
}

func (s *redisSwitch) keep(c net.Conn) {
	s.mu.Lock()
	s.conns = append(s.conns, c)
	s.mu.Unlock()
}

func (s *redisSwitch) accept() {
	for {
		c, err := s.ln.Accept()
		if err != nil {
			return
		}
		s.keep(c)
		if !s.live.Load() {
			continue // held open, never read, never answered
		}
		go func() {
			r, err := net.Dial("tcp", s.real)
			if err != nil {
				c.Close()
				return
			}
			s.keep(r)
			go func() { io.Copy(r, c); r.Close() }()
			io.Copy(c, r)
			c.Close()
		}()
	}
}

// redisUpMetric is the value of statusd_ratelimit_redis_up in srv's
// public /metrics.
func redisUpMetric(t *testing.T, srv *testserver.Server) float64 {
	t.Helper()
	v, ok := testserver.MetricValue(testserver.Scrape(t, srv.URL, ""), "statusd_ratelimit_redis_up")
	if !ok {
		t.Fatalf("no statusd_ratelimit_redis_up in /metrics")
	}
	return v
}

// TestRedisHung checks that a Redis that accepts connections and never
// answers costs a request its timeout once, not every request: the server
// limits on its own at once, says so once in its log and in its metrics,
// and shares the limit again when Redis answers again.
func TestRedisHung(t *testing.T) {
	sw := newRedisSwitch(t, strings.TrimPrefix(testenv.Redis(t), "redis://"))
	flags := []string{"--redis", "redis://" + sw.ln.Addr().String(), "--rate-limit", "2",
		"--trusted-proxies", "127.0.0.1/32", "--metrics-public"}
	a := startServer(t, testserver.Fixture(time.Now().UTC().Truncate(time.Second)), flags...)
	b := serveDB(t, a.DB, flags...)
	if v := redisUpMetric(t, a); v != 1 {
		t.Errorf("before any request: statusd_ratelimit_redis_up %v, want 1", v)
	}

	// 60 clients one after another: only the first waits for Redis (150
	// ms); without the breaker each would, 9 s in all.
	start := time.Now()
	for i := range 60 {
		if r := a.Do(http.MethodGet, "/api/v1/status", "X-Forwarded-For", fmt.Sprintf("192.0.2.%d", i+1)); r.Status != 200 {
			t.Fatalf("request %d with Redis hung: status %d\n%s", i+1, r.Status, r.Body)
		}
	}
	if took := time.Since(start); took > 1500*time.Millisecond {
		t.Errorf("60 sequential requests with Redis hung took %v, want under 1.5 s", took)
	}
	if v := redisUpMetric(t, a); v != 0 {
		t.Errorf("with Redis hung: statusd_ratelimit_redis_up %v, want 0", v)
	}
	// The local limit holds meanwhile: a burst of 2, then 429.
	for i, want := range []int{200, 200, 429} {
		if r := a.Do(http.MethodGet, "/api/v1/status", "X-Forwarded-For", "192.0.2.200"); r.Status != want {
			t.Errorf("local limit, request %d: status %d, want %d", i+1, r.Status, want)
		}
	}

	sw.live.Store(true)
	deadline := time.Now().Add(10 * time.Second)
	for redisUpMetric(t, a) != 1 {
		if time.Now().After(deadline) {
			t.Fatalf("Redis answers again, but statusd_ratelimit_redis_up is still 0 after 10 s\n%s", a.Logs)
		}
		time.Sleep(50 * time.Millisecond)
	}
	logs := a.Logs.String()
	if n := strings.Count(logs, "Redis cannot be reached"); n != 1 {
		t.Errorf("logged the fallback %d times, want once:\n%s", n, logs)
	}
	if n := strings.Count(logs, "Redis can be reached again"); n != 1 {
		t.Errorf("logged the recovery %d times, want once:\n%s", n, logs)
	}

	// Shared again: a client's two requests through a leave none for it
	// on b. The client is new to this Redis, which other runs may share.
	n := time.Now().UnixNano()
	client := fmt.Sprintf("10.%d.%d.%d", n>>16&255, n>>8&255, n&255)
	for i, srv := range []*testserver.Server{a, a, b} {
		want := map[bool]int{true: 200, false: 429}[i < 2]
		if r := srv.Do(http.MethodGet, "/api/v1/status", "X-Forwarded-For", client); r.Status != want {
			t.Errorf("shared limit again, request %d: status %d, want %d", i+1, r.Status, want)
		}
	}
}
