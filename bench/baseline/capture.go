package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"
)

// captureFile is what capture writes and serve loads.
type captureFile struct {
	Source     string    `json:"source"`      // the statusd base URL
	CapturedAt string    `json:"captured_at"` // RFC 3339
	Requests   []request `json:"requests"`
}

// request is one benchmarked path (query included, exactly as sent) with
// statusd's answers to it.
type request struct {
	Name string `json:"name"`
	Path string `json:"path"`
	// Plain is the answer to a request without Accept-Encoding.
	Plain *response `json:"plain"`
	// Gzip is the answer with Accept-Encoding: gzip (identity when statusd
	// does not compress this path).
	Gzip *response `json:"gzip"`
	// NotModified and NotModifiedGzip are the answers to If-None-Match
	// with Plain's and Gzip's ETag; absent without an ETag.
	NotModified     *response `json:"not_modified,omitempty"`
	NotModifiedGzip *response `json:"not_modified_gzip,omitempty"`
}

// response is one answer: its status, every header but Date, and the body
// bytes as received (still compressed when Content-Encoding says so).
type response struct {
	Status int         `json:"status"`
	Header http.Header `json:"header"`
	Body   []byte      `json:"body"`
}

func (r *response) etag() string {
	if r == nil {
		return ""
	}
	return r.Header.Get("ETag")
}

func loadCapture(path string) (*captureFile, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var f captureFile
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &f, nil
}

func captureCmd(args []string) error {
	fs := flag.NewFlagSet("capture", flag.ExitOnError)
	base := fs.String("statusd", "http://127.0.0.1:8080", "statusd base `URL`")
	reqs := fs.String("requests", "", "`file` of requests, one \"name<TAB>path\" a line")
	out := fs.String("o", "capture.json", "capture `file` to write")
	kinds := fs.String("kinds", "", "also write the benchmarked request kinds to `file`")
	fs.Parse(args)
	f, err := os.Open(*reqs)
	if err != nil {
		return err
	}
	defer f.Close()
	var list [][2]string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		name, path, ok := strings.Cut(line, "\t")
		if !ok {
			return fmt.Errorf("%s: %q is not name<TAB>path", *reqs, line)
		}
		list = append(list, [2]string{name, path})
	}
	if err := sc.Err(); err != nil {
		return err
	}
	cf, err := capture(http.DefaultClient.Timeout, strings.TrimSuffix(*base, "/"), list)
	if err != nil {
		return err
	}
	b, err := json.MarshalIndent(cf, "", " ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(*out, b, 0o644); err != nil {
		return err
	}
	if *kinds != "" {
		if err := os.WriteFile(*kinds, []byte(kindsTSV(cf)), 0o644); err != nil {
			return err
		}
	}
	for _, r := range cf.Requests {
		fmt.Fprintf(os.Stderr, "captured %-16s %d %7d bytes, gzip %d %7d bytes (%s), If-None-Match %s\n",
			r.Name, r.Plain.Status, len(r.Plain.Body), r.Gzip.Status, len(r.Gzip.Body),
			orNone(r.Gzip.Header.Get("Content-Encoding")), notModified(r.NotModified))
	}
	return nil
}

func orNone(s string) string {
	if s == "" {
		return "identity"
	}
	return s
}

func notModified(r *response) string {
	if r == nil {
		return "skipped (no ETag)"
	}
	return fmt.Sprint(r.Status)
}

// capture asks statusd for every request, plain, with gzip and with
// If-None-Match. It never lets Go's client add or undo compression.
func capture(timeout time.Duration, base string, list [][2]string) (*captureFile, error) {
	if timeout == 0 {
		timeout = time.Minute
	}
	client := &http.Client{Timeout: timeout, Transport: &http.Transport{DisableCompression: true}}
	get := func(path string, header ...string) (*response, error) {
		req, err := http.NewRequest(http.MethodGet, base+path, nil)
		if err != nil {
			return nil, err
		}
		for i := 0; i+1 < len(header); i += 2 {
			req.Header.Set(header[i], header[i+1])
		}
		resp, err := client.Do(req)
		if err != nil {
			return nil, err
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			return nil, fmt.Errorf("GET %s: %w", path, err)
		}
		h := resp.Header.Clone()
		h.Del("Date")
		return &response{Status: resp.StatusCode, Header: h, Body: body}, nil
	}
	cf := &captureFile{Source: base, CapturedAt: time.Now().UTC().Format(time.RFC3339)}
	for _, nr := range list {
		r := request{Name: nr[0], Path: nr[1]}
		var err error
		if r.Plain, err = get(r.Path); err != nil {
			return nil, err
		}
		if r.Gzip, err = get(r.Path, "Accept-Encoding", "gzip"); err != nil {
			return nil, err
		}
		if tag := r.Plain.etag(); tag != "" {
			if r.NotModified, err = get(r.Path, "If-None-Match", tag); err != nil {
				return nil, err
			}
		}
		if tag := r.Gzip.etag(); tag != "" {
			if r.NotModifiedGzip, err = get(r.Path, "Accept-Encoding", "gzip", "If-None-Match", tag); err != nil {
				return nil, err
			}
		}
		cf.Requests = append(cf.Requests, r)
	}
	return cf, nil
}

// kindsTSV lists the request kinds to benchmark: each request that answered
// 200 plain, with gzip, and with If-None-Match when it has an ETag.
func kindsTSV(cf *captureFile) string {
	var b strings.Builder
	for _, r := range cf.Requests {
		if r.Plain.Status != http.StatusOK {
			fmt.Fprintf(&b, "# %s answered %d: skipped\n", r.Name, r.Plain.Status)
			continue
		}
		fmt.Fprintf(&b, "%s\tplain\t%s\t-\t%d\n", r.Name, r.Path, r.Plain.Status)
		fmt.Fprintf(&b, "%s\tgzip\t%s\tAccept-Encoding: gzip\t%d\n", r.Name, r.Path, r.Gzip.Status)
		if r.NotModified != nil {
			fmt.Fprintf(&b, "%s\tinm\t%s\tIf-None-Match: %s\t%d\n", r.Name, r.Path, r.Plain.etag(), r.NotModified.Status)
		} else {
			fmt.Fprintf(&b, "# %s has no ETag: no If-None-Match kind\n", r.Name)
		}
	}
	return b.String()
}
