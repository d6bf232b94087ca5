package main

import (
	"bufio"
	"errors"
	"fmt"
	"github.com/statusd/statusd/internal/testserver"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestIdleConnectionsCapped runs statusd with its descriptor limit at 400
// and opens 600 keep-alive connections from 127.0.0.1, each having made
// one request and left idle: a new client (from 127.0.0.2) must still be
// answered at once. With the defaults (a cap of 400-128 = 272 connections,
// 256 per client) the connections past 256 are refused at once; without a
// cap per client each new connection closes the one idle for the longest,
// so that every one of the 600 is answered.
func TestIdleConnectionsCapped(t *testing.T) {
	db := filepath.Join(t.TempDir(), "statusd.db")
	importDoc(t, db, testserver.Fixture(time.Now().UTC().Truncate(time.Second)))
	lowLimit := []string{"sh", "-c", `ulimit -n 400 && exec "$0" "$@"`}
	for _, tc := range []struct {
		name     string
		flags    []string
		answered int // at least
		log      string
	}{
		{"defaults", nil, 256, "a client holding its share of connections (--max-conns-per-client) was refused another"},
		{"no cap per client", []string{"--max-conns-per-client", "0"}, 600, "an idle connection was closed to make room (--max-conns)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := startReplicaVia(t, lowLimit, db, append([]string{"--rate-limit", "0"}, tc.flags...)...)
			addr := strings.TrimPrefix(srv.URL, "http://")
			var held []net.Conn
			defer func() {
				for _, c := range held {
					c.Close()
				}
			}()
			answered := 0
			for i := range 600 {
				c, err := net.DialTimeout("tcp", addr, 2*time.Second)
				if err != nil {
					t.Fatalf("connection %d: %v", i+1, err)
				}
				held = append(held, c)
				c.SetDeadline(time.Now().Add(2 * time.Second))
				fmt.Fprintf(c, "GET /api/v1/status HTTP/1.1\r\nHost: %s\r\n\r\n", addr)
				res, err := http.ReadResponse(bufio.NewReader(c), nil)
				var ne net.Error
				if errors.As(err, &ne) && ne.Timeout() {
					t.Errorf("connection %d: neither answered nor closed within 2 s", i+1)
					break
				}
				if err == nil { // else closed by the server at once: refused
					io.Copy(io.Discard, res.Body)
					res.Body.Close()
					answered++
				}
			}
			if answered < tc.answered {
				t.Errorf("%d of the 600 connections answered, want at least %d", answered, tc.answered)
			}

			d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 2)}, Timeout: 2 * time.Second}
			client := &http.Client{Timeout: 3 * time.Second, Transport: &http.Transport{DialContext: d.DialContext, DisableKeepAlives: true}}
			start := time.Now()
			res, err := client.Get(srv.URL + "/api/v1/status")
			if err != nil {
				t.Fatalf("a new client, with 600 idle connections open: %v after %v\n%s", err, time.Since(start), srv.Logs)
			}
			res.Body.Close()
			if took := time.Since(start); res.StatusCode != 200 || took > time.Second {
				t.Errorf("a new client, with 600 idle connections open: status %d after %v, want 200 within 1 s", res.StatusCode, took)
			}
			if !strings.Contains(srv.Logs.String(), tc.log) {
				t.Errorf("the log does not say %q:\n%s", tc.log, srv.Logs)
			}
		})
	}
}
