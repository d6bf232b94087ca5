package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/statusd/statusd"
)

// logWriter collects what the server logs and reports the address it
// listens on.
type logWriter struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	addr chan string
	sent bool
}

var listeningRE = regexp.MustCompile(`msg="statusd listening" url=(http://\S+)`)

func (w *logWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	if m := listeningRE.FindSubmatch(w.buf.Bytes()); m != nil && !w.sent {
		w.sent = true
		w.addr <- string(m[1])
	}
	return len(p), nil
}

func (w *logWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

// testServer is a real statusd serve process-in-a-goroutine on a free port.
type testServer struct {
	t    *testing.T
	URL  string
	DB   string
	logs *logWriter
}

// cli runs a statusd command and returns its stdout, stderr and error.
func cli(t *testing.T, stdin string, args ...string) (string, string, error) {
	t.Helper()
	var out, errOut bytes.Buffer
	err := run(context.Background(), args, func(string) string { return "" }, strings.NewReader(stdin), &out, &errOut)
	return out.String(), errOut.String(), err
}

// writeDoc writes an import document to a temporary file and returns its path.
func writeDoc(t *testing.T, doc any) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "doc.json")
	var b []byte
	switch d := doc.(type) {
	case string:
		b = []byte(d)
	case *statusd.Document:
		var buf bytes.Buffer
		if err := statusd.EncodeDocument(&buf, d); err != nil {
			t.Fatal(err)
		}
		b = buf.Bytes()
	default:
		var err error
		if b, err = json.Marshal(d); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// importDoc imports doc (a *statusd.Document, a JSON string or any value
// that marshals to the document) into the database at db.
func importDoc(t *testing.T, db string, doc any, extra ...string) {
	t.Helper()
	args := append([]string{"import", "--db", db}, extra...)
	args = append(args, writeDoc(t, doc))
	if _, stderr, err := cli(t, "", args...); err != nil {
		t.Fatalf("import: %v\n%s", err, stderr)
	}
}

// startServer imports doc (when not nil) into a fresh database and serves it
// on a free port with the extra serve flags; the server stops when the test
// ends.
func startServer(t *testing.T, doc any, flags ...string) *testServer {
	t.Helper()
	db := filepath.Join(t.TempDir(), "statusd.db")
	if doc != nil {
		importDoc(t, db, doc)
	}
	return serveDB(t, db, flags...)
}

// serveDB serves an existing database on a free port.
func serveDB(t *testing.T, db string, flags ...string) *testServer {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	logs := &logWriter{addr: make(chan string, 1)}
	args := append([]string{"serve", "--db", db, "--addr", "127.0.0.1:0", "--rate-limit", "0"}, flags...)
	done := make(chan error, 1)
	go func() { done <- run(ctx, args, func(string) string { return "" }, nil, io.Discard, logs) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve returned %v", err)
		}
	})
	select {
	case url := <-logs.addr:
		return &testServer{t: t, URL: url, DB: db, logs: logs}
	case err := <-done:
		t.Fatalf("serve stopped: %v\n%s", err, logs)
	case <-time.After(10 * time.Second):
		t.Fatalf("serve did not start\n%s", logs)
	}
	return nil
}

// response is an HTTP answer with its body decoded as generic JSON.
type response struct {
	Status int
	Header http.Header
	Body   []byte
	JSON   any
}

// do sends a request and decodes a JSON answer.
func (s *testServer) do(method, path string, header ...string) response {
	s.t.Helper()
	req, err := http.NewRequest(method, s.URL+path, nil)
	if err != nil {
		s.t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		s.t.Fatal(err)
	}
	r := response{Status: res.StatusCode, Header: res.Header, Body: body}
	if strings.HasPrefix(res.Header.Get("Content-Type"), "application/json") && len(body) > 0 {
		if err := json.Unmarshal(body, &r.JSON); err != nil {
			s.t.Fatalf("%s %s: invalid JSON: %v\n%s", method, path, err, body)
		}
	}
	return r
}

// get fetches path and fails the test unless the status is want.
func (s *testServer) get(path string, want int) response {
	s.t.Helper()
	r := s.do(http.MethodGet, path)
	if r.Status != want {
		s.t.Fatalf("GET %s: status %d, want %d\n%s", path, r.Status, want, r.Body)
	}
	return r
}

// at returns the JSON value at the dotted path (array indices as numbers)
// of v, failing the test when it is missing.
func at(t *testing.T, v any, path string) any {
	t.Helper()
	cur := v
	if path == "" {
		return cur
	}
	for _, part := range strings.Split(path, ".") {
		switch c := cur.(type) {
		case map[string]any:
			next, ok := c[part]
			if !ok {
				t.Fatalf("%s: key %q missing in %v", path, part, keys(c))
			}
			cur = next
		case []any:
			i, err := strconv.Atoi(part)
			if err != nil || i < 0 || i >= len(c) {
				t.Fatalf("%s: no index %q in an array of %d", path, part, len(c))
			}
			cur = c[i]
		default:
			t.Fatalf("%s: cannot descend into %T at %q", path, cur, part)
		}
	}
	return cur
}

func keys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// ts formats a time as the API does.
func ts(t time.Time) string { return t.UTC().Format(statusd.TimeLayout) }

// normalize turns any value into the generic form encoding/json decodes to,
// so that hand-written expectations compare with decoded answers.
func normalize(t *testing.T, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// assertJSON fails unless got and want are the same JSON value, with exactly
// the same keys.
func assertJSON(t *testing.T, what string, got, want any) {
	t.Helper()
	g, w := normalize(t, got), normalize(t, want)
	if !reflect.DeepEqual(g, w) {
		gb, _ := json.MarshalIndent(g, "", "  ")
		wb, _ := json.MarshalIndent(w, "", "  ")
		t.Errorf("%s:\ngot  %s\nwant %s", what, gb, wb)
	}
}

// obj is shorthand for a JSON object in expectations.
type obj = map[string]any
