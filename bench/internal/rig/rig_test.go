package rig

import (
	"strings"
	"testing"
	"time"
)

// wrkOut is wrk 4.1's output of a run, as it prints it.
const wrkOut = `Running 5s test @ http://127.0.0.1:8080/api/v1/status
  2 threads and 50 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency     1.43ms  512.20us  35.49ms   93.78%
    Req/Sec    17.62k     1.03k   19.54k    72.00%
  175321 requests in 5.00s, 131.38MB read
Requests/sec:  35061.87
Transfer/sec:     26.27MB
`

// TestParseWrk: the requests a second, the latencies and the socket
// errors are read; a run with answers other than 2xx/3xx, or none, is an
// error.
func TestParseWrk(t *testing.T) {
	r, err := ParseWrk([]byte(wrkOut))
	if err != nil {
		t.Fatal(err)
	}
	want := Result{RPS: 35061.87, LatencyAvg: 1430 * time.Microsecond, LatencyMax: 35490 * time.Microsecond}
	if r != want {
		t.Errorf("ParseWrk = %+v, want %+v", r, want)
	}
	withErrors := strings.Replace(wrkOut, "Requests/sec", "  Socket errors: connect 0, read 2, write 0, timeout 3\nRequests/sec", 1)
	if r, err := ParseWrk([]byte(withErrors)); err != nil || r.SocketErrors != 5 {
		t.Errorf("with socket errors: %+v, %v; want 5 errors and no error", r, err)
	}
	non2xx := strings.Replace(wrkOut, "Requests/sec", "  Non-2xx or 3xx responses: 12\nRequests/sec", 1)
	if _, err := ParseWrk([]byte(non2xx)); err == nil || !strings.Contains(err.Error(), "12 answers") {
		t.Errorf("with non-2xx answers: %v, want an error naming 12 answers", err)
	}
	if _, err := ParseWrk([]byte("unable to connect to 127.0.0.1:1 Connection refused\n")); err == nil {
		t.Error("output without a figure: no error")
	}
	for s, want := range map[string]time.Duration{"652.43us": 652430 * time.Nanosecond, "2.00s": 2 * time.Second,
		"1.50m": 90 * time.Second, "x": 0} {
		if got := wrkDuration(s); got != want {
			t.Errorf("wrkDuration(%q) = %v, want %v", s, got, want)
		}
	}
}

// TestStatCPU: user and system time are fields 14 and 15, counted after
// the command, which may hold spaces and parentheses.
func TestStatCPU(t *testing.T) {
	line := "4242 (statusd (x) y) S 1 4242 4242 0 -1 4194560 1000 0 0 0 250 130 0 0 20 0 3 0 100 0 0\n"
	if got := statCPU([]byte(line)); got != 3.8 {
		t.Errorf("statCPU = %v, want 3.8 (250 + 130 ticks)", got)
	}
	if got := statCPU([]byte("garbage")); got != 0 {
		t.Errorf("statCPU of garbage = %v, want 0", got)
	}
}
