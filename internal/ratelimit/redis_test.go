package ratelimit

import (
	"log/slog"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/statusd/statusd/internal/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// TestSharedAcrossLimiters checks that two limiters on one Redis, as two
// replicas have, share one bucket per client.
func TestSharedAcrossLimiters(t *testing.T) {
	url := testenv.Redis(t)
	log := slog.New(slog.NewTextHandler(&testenv.LogBuffer{}, nil))
	a, err := NewShared(url, 4, log)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := NewShared(url, 4, log)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	client := "shared-" + time.Now().Format(time.RFC3339Nano)
	now := time.Now()
	for i := 0; i < 4; i++ {
		l := []*Shared{a, b}[i%2]
		if res := l.Allow(client, now); !res.OK {
			t.Fatalf("request %d of a burst of 4 refused: %+v", i+1, res)
		}
	}
	for _, l := range []*Shared{a, b} {
		if res := l.Allow(client, now); res.OK || res.Retry < 1 {
			t.Errorf("fifth request let through or no Retry-After: %+v", res)
		}
	}
	if res := b.Allow(client+"-other", now); !res.OK {
		t.Errorf("another client was limited: %+v", res)
	}
}

// TestSharedFallsBackWithoutRedis checks that with Redis unreachable the
// limit still holds per server, that it is logged once, and that no request
// fails because of Redis.
func TestSharedFallsBackWithoutRedis(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now
	var logs testenv.LogBuffer
	l, err := NewShared("redis://"+addr, 3, slog.New(slog.NewTextHandler(&logs, nil)))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	now := time.Now()
	for i := 0; i < 3; i++ {
		if res := l.Allow("c", now); !res.OK {
			t.Fatalf("request %d refused by the local fallback: %+v", i+1, res)
		}
	}
	if res := l.Allow("c", now); res.OK {
		t.Error("the local fallback did not limit")
	}
	if n := strings.Count(logs.String(), "Redis cannot be reached"); n != 1 {
		t.Errorf("logged the fallback %d times, want once:\n%s", n, logs.String())
	}
}
