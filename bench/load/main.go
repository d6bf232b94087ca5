// Command load is an open-loop (constant-rate) HTTP/1.1 load generator for
// latency measurements.
//
//	load -url http://127.0.0.1:8080/api/v1/status -rate 20000 -duration 10s -json
//
// Request i is due at start + i/rate whatever happened to the earlier ones;
// its latency is measured from that intended moment, not from when it could
// be sent, so a server that stalls is charged for every request it delayed
// (no coordinated omission). Due requests go to idle keep-alive connections;
// when every connection is busy and the oldest waiting request is over 2 ms
// late, new ones are opened (up to -max-conns), so that the server sees the
// load that was offered rather than the client queueing it; with -max-conns
// equal to -conns the pool is fixed, as in wrk2. A request still unsent
// -timeout after it was due counts as an error ("queued") and is not sent;
// one sent gets -timeout from its sending to be answered in full, or counts
// as an error.
//
// With -urls FILE instead of -url, the requests go in turn (round-robin,
// by schedule order) to the URLs of the file, one a line (blank lines and
// lines starting with # are skipped), all on one host: for instance pages of
// a list, each computed anew where one URL would be answered from a cache.
//
// It reports the scheduled and achieved rates, latency percentiles of every
// answer, of the answers served (2xx and 3xx) and of the refusals (503,
// counted apart as shed), status counts and errors, as a text line on
// standard error and, with -json, a JSON object on standard output.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"net/url"
	"os"
	"runtime/pprof"
	"strings"
	"time"
)

type headerList []string

func (h *headerList) String() string     { return strings.Join(*h, ", ") }
func (h *headerList) Set(v string) error { *h = append(*h, v); return nil }

func main() {
	var (
		cfg     config
		rawURL  = flag.String("url", "", "`URL` to request (GET)")
		urlFile = flag.String("urls", "", "`file` of URLs, one a line, requested in turn instead of -url")
		headers headerList
		asJSON  = flag.Bool("json", false, "print the result as JSON on standard output")
		label   = flag.String("label", "", "a label copied into the result")
		profile = flag.String("cpuprofile", "", "write a CPU profile of the generator to `file`")
	)
	flag.Float64Var(&cfg.Rate, "rate", 1000, "requests per second")
	flag.DurationVar(&cfg.Duration, "duration", 5*time.Second, "how long requests are scheduled")
	flag.IntVar(&cfg.Conns, "conns", 64, "connections opened before the start")
	flag.IntVar(&cfg.MaxConns, "max-conns", 2048, "connections at most (opened when every one is busy)")
	flag.DurationVar(&cfg.Timeout, "timeout", 2*time.Second, "a request unanswered this long after it was due is an error")
	flag.Var(&headers, "H", "request `header` \"Name: value\" (repeatable)")
	flag.Parse()
	urls := []string{*rawURL}
	if *urlFile != "" {
		b, err := os.ReadFile(*urlFile)
		if err != nil {
			fmt.Fprintln(os.Stderr, "load:", err)
			os.Exit(2)
		}
		urls = readURLs(string(b))
	}
	parsed, err := parseURLs(urls)
	if err != nil {
		fmt.Fprintln(os.Stderr, "load:", err)
		os.Exit(2)
	}
	if cfg.Rate <= 0 || cfg.Duration <= 0 || cfg.Conns < 1 || cfg.MaxConns < cfg.Conns {
		fmt.Fprintln(os.Stderr, "load: need -rate > 0, -duration > 0, 1 <= -conns <= -max-conns")
		os.Exit(2)
	}
	cfg.Addr = parsed[0].Host
	for _, u := range parsed {
		cfg.Requests = append(cfg.Requests, buildRequest(u, headers))
	}
	if *profile != "" {
		f, err := os.Create(*profile)
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "load:", err)
			os.Exit(1)
		}
		defer pprof.StopCPUProfile()
	}
	res, err := run(cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, "load:", err)
		os.Exit(1)
	}
	res.Label, res.URL, res.Headers = *label, urls[0], headers
	if len(urls) > 1 {
		res.URLs = len(urls)
	}
	fmt.Fprintln(os.Stderr, res.Line())
	if *asJSON {
		b, _ := json.Marshal(res)
		fmt.Println(string(b))
	}
}

// buildRequest is the request's bytes, made once.
func buildRequest(u *url.URL, headers []string) []byte {
	var b strings.Builder
	b.WriteString("GET " + u.RequestURI() + " HTTP/1.1\r\nHost: " + u.Host + "\r\nUser-Agent: statusd-bench-load\r\n")
	for _, h := range headers {
		b.WriteString(strings.TrimSpace(h) + "\r\n")
	}
	b.WriteString("\r\n")
	return []byte(b.String())
}

// readURLs is the URLs of a -urls file: one a line, without blank lines and
// lines starting with #.
func readURLs(text string) []string {
	var urls []string
	for line := range strings.Lines(text) {
		line = strings.TrimSpace(line)
		if line != "" && !strings.HasPrefix(line, "#") {
			urls = append(urls, line)
		}
	}
	return urls
}

// parseURLs parses the URLs to request: at least one, each http://, all on
// the host of the first.
func parseURLs(urls []string) ([]*url.URL, error) {
	if len(urls) == 0 {
		return nil, fmt.Errorf("no URL to request")
	}
	var out []*url.URL
	for _, raw := range urls {
		u, err := url.Parse(raw)
		if err != nil || u.Scheme != "http" || u.Host == "" {
			return nil, fmt.Errorf("%q is not an http:// URL", raw)
		}
		if len(out) > 0 && u.Host != out[0].Host {
			return nil, fmt.Errorf("%q is not on %s: every URL must be on one host", raw, out[0].Host)
		}
		out = append(out, u)
	}
	return out, nil
}
