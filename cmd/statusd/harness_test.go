package main

// The one end-to-end harness of cmd/statusd. A test starts the real server,
// in this process through run (startServer, serveDB, serveEnv) or as a child
// process where it needs one (startReplica: replicas, SIGKILL, a lowered
// descriptor limit), always on a listener the harness opened on port 0 and
// handed over, so that the address comes from the listener, never from the
// log. It then talks to the server through the Go SDK (testServer.API, and
// testServer.Admin for the admin API, with the readers status, components,
// notice ...) where it checks behaviour, and through the raw helpers below
// (do, get, send, fetch, adminOK, rawGet) where it checks exact bytes,
// headers, statuses, error bodies, or requests the SDK would not send. The
// statusd commands run in this process too (cli, cliEnv), or as a child
// (statusdCmd).
//
// A long scenario is a sequence of steps (step), each a subtest; a step
// sees the server through srv.in(t), so that what fails in it fails the
// step.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/client"
	commands "github.com/statusd/statusd/internal/cli"
	"github.com/statusd/statusd/internal/testenv"
)

// admPrefix is the root of the admin API's paths.
const admPrefix = client.AdminRoot

// waitLog polls the logs until they contain every string, or fails after
// 5 s.
func waitLog(t *testing.T, logs fmt.Stringer, want ...string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		out := logs.String()
		missing := ""
		for _, w := range want {
			if !strings.Contains(out, w) {
				missing = w
				break
			}
		}
		if missing == "" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the logs never showed %q:\n%s", missing, out)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// --- Commands ----------------------------------------------------------------

// cli runs a statusd command in this process with stdin and an empty
// environment, and returns its stdout, stderr and error.
func cli(t *testing.T, stdin string, args ...string) (string, string, error) {
	t.Helper()
	var out, errOut bytes.Buffer
	err := run(context.Background(), args, func(string) string { return "" }, strings.NewReader(stdin), &out, &errOut)
	return out.String(), errOut.String(), err
}

// cliEnv runs a statusd command in this process with the environment env
// and returns its stdout, stderr and error.
func cliEnv(t *testing.T, env map[string]string, args ...string) (string, string, error) {
	t.Helper()
	var out, errOut bytes.Buffer
	err := run(context.Background(), args, func(k string) string { return env[k] }, strings.NewReader(""), &out, &errOut)
	return out.String(), errOut.String(), err
}

// exitCode is the code main exits with for err.
func exitCode(err error) int { return commands.ExitCode(err) }

// The exit codes the tests expect, as internal/cli names them.
const (
	exitCodeFailure      = commands.ExitFailure
	exitCodeUsage        = commands.ExitUsage
	exitCodeUnauthorized = commands.ExitUnauthorized
	exitCodeNotFound     = commands.ExitNotFound
	exitCodeRefused      = commands.ExitRefused
	exitCodeUnavailable  = commands.ExitUnavailable
)

// statusdCmd is the test binary acting as the statusd binary with args (see
// TestMain).
func statusdCmd(args ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "STATUSD_TEST_MAIN=1")
	return cmd
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

// export is the page document of the database at db as statusd export
// writes it.
func export(t *testing.T, db string) string {
	t.Helper()
	out, stderr, err := cli(t, "", "export", "--db", db)
	if err != nil {
		t.Fatalf("export: %v\n%s", err, stderr)
	}
	return out
}

// exportDoc is the page document of the database at db, decoded.
func exportDoc(t *testing.T, db string) *statusd.Document {
	t.Helper()
	out := export(t, db)
	doc, err := statusd.DecodeDocument(strings.NewReader(out))
	if err != nil {
		t.Fatalf("the export does not decode: %v\n%s", err, out)
	}
	return doc
}

// newToken creates an admin token named name in the database at db (while
// a server runs on it or not) and returns the secret.
func newToken(t *testing.T, db, name string) string {
	t.Helper()
	out, stderr, err := cli(t, "", "token", "create", "--db", db, "--name", name)
	if err != nil {
		t.Fatalf("token create: %v\n%s", err, stderr)
	}
	tok := strings.TrimSpace(out)
	if tok == "" || strings.Contains(tok, "\n") {
		t.Fatalf("token create: stdout %q, want the token alone", out)
	}
	return tok
}

// --- Servers -----------------------------------------------------------------

// testServer is a real statusd serve, in this process or a child's, on a
// listener of port 0.
type testServer struct {
	t        *testing.T
	URL      string // http://127.0.0.1:port
	AdminURL string // the --admin-addr listener's, when the server has one
	DB       string
	logs     *testenv.LogBuffer
	// API is the Go SDK's client of the server's public API.
	API *client.Client
}

// in is the server seen from t, a step of the test that started it: the
// helpers of the view (do, get, admin, adminOK, auditTotal, notice, ...)
// report to t, so that a failed check fails the step it belongs to.
func (s *testServer) in(t *testing.T) *testServer {
	v := *s
	v.t = t
	return &v
}

// step runs one step of a scenario as a subtest named for what it shows.
// As in a test without steps, a failed check (t.Errorf) lets the scenario
// go on, and a step that stops (t.Fatalf) stops the scenario: the steps
// after it build on what it did. A server a step starts stops when the
// step ends: one that later steps use is started by the test, between
// steps.
func step(t *testing.T, name string, f func(t *testing.T)) {
	t.Helper()
	ran, finished := false, false
	t.Run(name, func(t *testing.T) {
		ran = true
		f(t)
		finished = true
	})
	if ran && !finished {
		t.FailNow()
	}
}

// Admin is the Go SDK's client of the server's admin API (on AdminURL when
// the server has a listener of its own for it), with token.
func (s *testServer) Admin(token string) *client.Admin {
	base := s.URL
	if s.AdminURL != "" {
		base = s.AdminURL
	}
	return client.NewAdmin(base, token, client.WithHTTPClient(httpClient), client.WithMaxRetries(0))
}

// newTestServer describes a server listening on public (and admin).
func newTestServer(t *testing.T, db string, logs *testenv.LogBuffer, public, admin net.Listener) *testServer {
	s := &testServer{t: t, URL: "http://" + public.Addr().String(), DB: db, logs: logs}
	if admin != nil {
		s.AdminURL = "http://" + admin.Addr().String()
	}
	s.API = client.New(s.URL, client.WithHTTPClient(httpClient), client.WithMaxRetries(0))
	return s
}

// localListener opens a TCP listener on a free port of 127.0.0.1.
func localListener(t *testing.T) net.Listener {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return ln
}

// listeners opens the listeners serve with flags listens on: the public one
// and, when flags has --admin-addr, the admin API's.
func listeners(t *testing.T, flags []string) (public, admin net.Listener) {
	t.Helper()
	public = localListener(t)
	if slices.Contains(flags, "--admin-addr") {
		admin = localListener(t)
	}
	return public, admin
}

// startServer imports doc (when not nil) into a fresh database and serves it
// with the extra serve flags; the server stops when the test ends.
func startServer(t *testing.T, doc any, flags ...string) *testServer {
	t.Helper()
	db := filepath.Join(t.TempDir(), "statusd.db")
	if doc != nil {
		importDoc(t, db, doc)
	}
	return serveDB(t, db, flags...)
}

// serveDB serves an existing database.
func serveDB(t *testing.T, db string, flags ...string) *testServer {
	t.Helper()
	return serveEnv(t, db, nil, flags...)
}

// serveEnv serves an existing database with the environment env, in this
// process, through run: the listeners are opened here and handed to serve
// (withListeners), and serveEnv returns once serve accepts on them. Without
// --rate-limit in flags the rate limit is off.
func serveEnv(t *testing.T, db string, env map[string]string, flags ...string) *testServer {
	t.Helper()
	public, admin := listeners(t, flags)
	ready := &acceptListener{Listener: public, accepting: make(chan struct{})}
	lns := []net.Listener{ready}
	if admin != nil {
		lns = append(lns, admin)
	}
	ctx, cancel := context.WithCancel(withListeners(context.Background(), lns...))
	logs := &testenv.LogBuffer{}
	args := append([]string{"serve", "--db", db, "--rate-limit", "0"}, flags...)
	done := make(chan error, 1)
	go func() { done <- run(ctx, args, func(k string) string { return env[k] }, nil, io.Discard, logs) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve returned %v\n%s", err, logs)
		}
		for _, ln := range lns {
			ln.Close() // if serve stopped before it took them over
		}
	})
	select {
	case <-ready.accepting:
		return newTestServer(t, db, logs, public, admin)
	case err := <-done:
		done <- err
		t.Fatalf("serve stopped: %v\n%s", err, logs)
	case <-time.After(10 * time.Second):
		t.Fatalf("serve did not start\n%s", logs)
	}
	return nil
}

// acceptListener closes accepting when the server first waits for a
// connection on it: it has loaded the page and serves.
type acceptListener struct {
	net.Listener
	once      sync.Once
	accepting chan struct{}
}

func (l *acceptListener) Accept() (net.Conn, error) {
	l.once.Do(func() { close(l.accepting) })
	return l.Listener.Accept()
}

// replica is a statusd serve process, started from the test binary.
type replica struct {
	*testServer
	cmd *exec.Cmd
}

// startReplica runs `statusd serve` as a child process.
func startReplica(t *testing.T, db string, flags ...string) *replica {
	t.Helper()
	return startReplicaVia(t, nil, db, flags...)
}

// startReplicaVia is startReplica with the child started by the command
// line prefix, which runs the rest of its arguments (such as a shell that
// lowers a limit and execs them), when not nil. The child gets its
// listener, opened here on a free port, as descriptor 3 with LISTEN_FDS=1,
// as systemd's socket activation hands one over.
func startReplicaVia(t *testing.T, prefix []string, db string, flags ...string) *replica {
	t.Helper()
	ln := localListener(t)
	defer ln.Close() // the child has its own copy: a killed child's port refuses
	f, err := ln.(*net.TCPListener).File()
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	logs := &testenv.LogBuffer{}
	argv := append(append(slices.Clip(prefix), os.Args[0], "serve", "--db", db), flags...)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), "STATUSD_TEST_MAIN=1", "LISTEN_FDS=1")
	cmd.ExtraFiles = []*os.File{f}
	cmd.Stderr = logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	// The child's own Accept cannot be seen from here: its first log line
	// after loading the page says it serves (the address is not read
	// from it).
	for deadline := time.Now().Add(20 * time.Second); !strings.Contains(logs.String(), `msg="statusd listening"`); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("replica did not start:\n%s", logs)
		}
	}
	return &replica{testServer: newTestServer(t, db, logs, ln, nil), cmd: cmd}
}

// --- Requests ----------------------------------------------------------------

// httpClient is the HTTP client of the harness, with a timeout so that a
// hung server fails the test instead of hanging it.
var httpClient = &http.Client{Timeout: 20 * time.Second}

// response is an HTTP answer with its body decoded as generic JSON.
type response struct {
	Status int
	Header http.Header
	Body   []byte
	JSON   any
}

// send sends a request with a JSON body (none when body is "") and headers
// given as name, value pairs, and decodes a JSON answer; the error is set
// when no answer came (a killed server) or a JSON answer does not decode.
// Safe to call from any goroutine.
func send(method, url, body string, header ...string) (response, error) {
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		return response{}, err
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	res, err := httpClient.Do(req)
	if err != nil {
		return response{}, err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		return response{}, err
	}
	r := response{Status: res.StatusCode, Header: res.Header, Body: b}
	if strings.HasPrefix(res.Header.Get("Content-Type"), "application/json") && len(b) > 0 {
		if err := json.Unmarshal(b, &r.JSON); err != nil {
			return r, fmt.Errorf("%s %s: invalid JSON: %v\n%s", method, url, err, b)
		}
	}
	return r, nil
}

// fetch is send that fails the test when no answer comes.
func fetch(t *testing.T, method, url, body string, header ...string) response {
	t.Helper()
	r, err := send(method, url, body, header...)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	return r
}

// bearer is the header pair that sends an admin token (nothing for "").
func bearer(token string) []string {
	if token == "" {
		return nil
	}
	return []string{"Authorization", "Bearer " + token}
}

// do sends a request without a body to the server.
func (s *testServer) do(method, path string, header ...string) response {
	s.t.Helper()
	return fetch(s.t, method, s.URL+path, "", header...)
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

// admin sends a request to the server's public listener with a bearer
// token (none when token is "") and a JSON body (none when body is "").
func (s *testServer) admin(method, path, token, body string) response {
	s.t.Helper()
	return fetch(s.t, method, s.URL+path, body, bearer(token)...)
}

// adminOK sends a request to the admin API (path relative to its root) and
// fails the test unless it answers status; it returns the decoded body.
func (s *testServer) adminOK(method, path, token, body string, status int) map[string]any {
	s.t.Helper()
	r := s.admin(method, admPrefix+path, token, body)
	if r.Status != status {
		s.t.Fatalf("%s %s %s: status %d, want %d\n%s", method, path, body, r.Status, status, r.Body)
	}
	if status == http.StatusNoContent {
		if len(r.Body) != 0 {
			s.t.Errorf("%s %s: 204 with a body: %s", method, path, r.Body)
		}
		return nil
	}
	m, ok := r.JSON.(map[string]any)
	if !ok {
		s.t.Fatalf("%s %s: body is not a JSON object: %s", method, path, r.Body)
	}
	return m
}

// auditTotal is the number of entries in the audit log.
func (s *testServer) auditTotal(token string) int {
	s.t.Helper()
	a, err := s.Admin(token).Audit(context.Background(), 1)
	noErr(s.t, "GET /audit", err)
	return a.Meta.TotalCount
}

// --- Through the SDK ---------------------------------------------------------

// noErr fails the test when a call of the SDK (what) failed.
func noErr(t *testing.T, what string, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// status is the public page, through the SDK.
func (s *testServer) status() *statusd.PageResource {
	s.t.Helper()
	p, err := s.API.Status(context.Background())
	noErr(s.t, "GET /api/v1/status", err)
	return p
}

// components is the public list of components (the first page, which
// holds every component of the pages the tests serve), through the SDK.
func (s *testServer) components() *statusd.ComponentsResponse {
	s.t.Helper()
	r, err := s.API.Components(context.Background(), client.ComponentQuery{})
	noErr(s.t, "GET /api/v1/components", err)
	return r
}

// component is one component of the public list.
func (s *testServer) component(id int64) statusd.ComponentResource {
	s.t.Helper()
	for _, c := range s.components().Components {
		if c.ID == id {
			return c
		}
	}
	s.t.Fatalf("the public list has no component %d", id)
	return statusd.ComponentResource{}
}

// componentStates is the public state of every component, by id.
func (s *testServer) componentStates() map[int64]string {
	s.t.Helper()
	states := map[int64]string{}
	for _, c := range s.components().Components {
		states[c.ID] = c.State
	}
	return states
}

// notice is the public detail of a notice, through the SDK.
func (s *testServer) notice(id int64) *statusd.NoticeDetail {
	s.t.Helper()
	n, err := s.API.Notice(context.Background(), id)
	noErr(s.t, fmt.Sprintf("GET /api/v1/notices/%d", id), err)
	return n
}

// value is the value of a field of the wire, the zero value when it is
// null or absent.
func value[T any](f statusd.Field[T]) (v T) {
	if f.Value != nil {
		v = *f.Value
	}
	return v
}

// parseTS parses a timestamp of the wire (CONTRACT C2), failing the test
// unless it is one.
func parseTS(t *testing.T, v any) time.Time {
	t.Helper()
	s, ok := v.(string)
	if !ok {
		t.Fatalf("timestamp %v is not a string", v)
	}
	tm, err := time.Parse(statusd.TimeLayout, s)
	if err != nil {
		t.Fatal(err)
	}
	return tm
}

// within fails unless tm lies in [lo, hi], lo truncated to the millisecond
// as statusd stores times.
func within(t *testing.T, what string, tm, lo, hi time.Time) {
	t.Helper()
	if tm.Before(lo.Truncate(time.Millisecond)) || tm.After(hi) {
		t.Errorf("%s = %s, want within [%s, %s]", what, ts(tm), ts(lo), ts(hi))
	}
}

// hostPort is the host:port of a server URL.
func hostPort(t *testing.T, base string) string {
	t.Helper()
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	return u.Host
}

// rawGet sends one raw HTTP/1.1 request line (the target exactly as given,
// nothing cleaned or escaped) and returns the status, headers and body.
func rawGet(t *testing.T, base, target string) (int, http.Header, string) {
	t.Helper()
	conn, err := net.DialTimeout("tcp", hostPort(t, base), 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(10 * time.Second))
	fmt.Fprintf(conn, "GET %s HTTP/1.1\r\nHost: statusd.test\r\nConnection: close\r\n\r\n", target)
	res, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("GET %q: %v", target, err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, res.Header, string(b)
}

// same fetches path from both servers and fails unless the bodies are byte
// for byte the same. Answers that depend on the clock (open incidents,
// metrics cut at now) are cached for a moment by each server on its own,
// so a difference is tried again for up to three seconds before it counts.
func same(t *testing.T, a, b *testServer, path string) response {
	t.Helper()
	var ra, rb response
	for range 30 {
		ra, rb = a.in(t).get(path, 200), b.in(t).get(path, 200)
		if bytes.Equal(ra.Body, rb.Body) {
			return ra
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Errorf("%s differs:\n%s\n%s", path, ra.Body, rb.Body)
	return ra
}

// sameList fetches every page of a list from both servers, comparing them
// (same), and returns the items under key.
func sameList(t *testing.T, a, b *testServer, path, key string) []any {
	t.Helper()
	var items []any
	for pages := 0; path != ""; pages++ {
		if pages > 50 {
			t.Fatalf("more than 50 pages of %s", key)
		}
		r := same(t, a, b, path)
		items = append(items, at(t, r.JSON, key).([]any)...)
		path, _ = at(t, r.JSON, "meta.next_page").(string)
	}
	return items
}

// sameAnswers compares every public answer of two servers on the same page
// (same): the status, every page of the component and notice lists, every
// notice, and the metrics of components 10, 11 and 30 (those of the
// fixture); it returns the components and notices.
func sameAnswers(t *testing.T, a, b *testServer) (components, notices []any) {
	t.Helper()
	same(t, a, b, "/api/v1/status")
	components = sameList(t, a, b, "/api/v1/components", "components")
	notices = sameList(t, a, b, "/api/v1/notices", "notices")
	for _, n := range notices {
		same(t, a, b, fmt.Sprintf("/api/v1/notices/%v", at(t, n, "id")))
	}
	for _, id := range []int{10, 11, 30} {
		same(t, a, b, fmt.Sprintf("/api/v1/components/%d/metrics?show_calculations=true", id))
	}
	return components, notices
}

// --- Assertions --------------------------------------------------------------

// assertError checks a JSON error answer of CONTRACT C2: the status, a JSON
// Content-Type and the body {"error": {"status", "code", "message"}}.
func assertError(t *testing.T, what string, r response, status int, code string) {
	t.Helper()
	if r.Status != status {
		t.Errorf("%s: status %d, want %d (%s)", what, r.Status, status, r.Body)
		return
	}
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Errorf("%s: Content-Type %q, want JSON", what, ct)
	}
	body, ok := r.JSON.(map[string]any)
	if !ok {
		t.Errorf("%s: body is not a JSON object: %s", what, r.Body)
		return
	}
	e, _ := body["error"].(map[string]any)
	msg, _ := e["message"].(string)
	if len(body) != 1 || len(e) != 3 || e["status"] != float64(status) || e["code"] != code || msg == "" {
		t.Errorf("%s: error body %s, want status %d code %s and a message", what, r.Body, status, code)
	}
}

// assertErrorBody is assertError for the public API, whose errors carry
// CORS too (the admin API carries credentials and need not).
func assertErrorBody(t *testing.T, what string, r response, status int, code string) {
	t.Helper()
	assertError(t, what, r, status, code)
	if r.Status == status && r.Header.Get("Access-Control-Allow-Origin") != "*" {
		t.Errorf("%s: errors must carry CORS too", what)
	}
}

// errorMessage returns the message of a JSON error answer.
func errorMessage(r response) string {
	body, _ := r.JSON.(map[string]any)
	e, _ := body["error"].(map[string]any)
	msg, _ := e["message"].(string)
	return msg
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
