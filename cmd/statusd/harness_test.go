package main

// The end-to-end harness of cmd/statusd, for what needs run or the binary.
// A test starts the real server, in this process through run
// (startServer, serveDB, serveEnv) or as a child process where it needs
// one (startReplica: replicas, SIGKILL, a lowered descriptor limit),
// always on a listener the harness opened on port 0 and handed over, so
// that the address comes from the listener, never from the log. It then
// talks to the server as a testserver.Server: through the Go SDK where it
// checks behaviour, and through raw requests where it checks exact bytes
// (see package testserver, which the tests of internal/server share). The
// statusd commands run in this process too (cli, cliEnv), or as a child
// (statusdCmd).

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/statusd/statusd"
	commands "github.com/statusd/statusd/internal/cli"
	"github.com/statusd/statusd/internal/testenv"
	"github.com/statusd/statusd/internal/testserver"
)

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

// newTestServer describes a server listening on public (and admin).
func newTestServer(t *testing.T, db string, logs *testenv.LogBuffer, public, admin net.Listener) *testserver.Server {
	adminURL := ""
	if admin != nil {
		adminURL = "http://" + admin.Addr().String()
	}
	s := testserver.New(t, "http://"+public.Addr().String(), adminURL, logs)
	s.DB = db
	s.Export = func(t *testing.T) string { return export(t, db) }
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
func startServer(t *testing.T, doc any, flags ...string) *testserver.Server {
	t.Helper()
	db := filepath.Join(t.TempDir(), "statusd.db")
	if doc != nil {
		importDoc(t, db, doc)
	}
	return serveDB(t, db, flags...)
}

// serveDB serves an existing database.
func serveDB(t *testing.T, db string, flags ...string) *testserver.Server {
	t.Helper()
	return serveEnv(t, db, nil, flags...)
}

// serveEnv serves an existing database with the environment env, in this
// process, through run: the listeners are opened here and handed to serve
// (withListeners), and serveEnv returns once serve accepts on them. Without
// --rate-limit in flags the rate limit is off.
func serveEnv(t *testing.T, db string, env map[string]string, flags ...string) *testserver.Server {
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
	*testserver.Server
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
	return &replica{Server: newTestServer(t, db, logs, ln, nil), cmd: cmd}
}

// same fetches path from both servers and fails unless the bodies are byte
// for byte the same. Answers that depend on the clock (open incidents,
// metrics cut at now) are cached for a moment by each server on its own,
// so a difference is tried again for up to three seconds before it counts.
func same(t *testing.T, a, b *testserver.Server, path string) testserver.Response {
	t.Helper()
	var ra, rb testserver.Response
	for range 30 {
		ra, rb = a.In(t).Get(path, 200), b.In(t).Get(path, 200)
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
func sameList(t *testing.T, a, b *testserver.Server, path, key string) []any {
	t.Helper()
	var items []any
	for pages := 0; path != ""; pages++ {
		if pages > 50 {
			t.Fatalf("more than 50 pages of %s", key)
		}
		r := same(t, a, b, path)
		items = append(items, testserver.At(t, r.JSON, key).([]any)...)
		path, _ = testserver.At(t, r.JSON, "meta.next_page").(string)
	}
	return items
}

// sameAnswers compares every public answer of two servers on the same page
// (same): the status, every page of the component and notice lists, every
// notice, and the metrics of components 10, 11 and 30 (those of the
// fixture); it returns the components and notices.
func sameAnswers(t *testing.T, a, b *testserver.Server) (components, notices []any) {
	t.Helper()
	same(t, a, b, "/api/v1/status")
	components = sameList(t, a, b, "/api/v1/components", "components")
	notices = sameList(t, a, b, "/api/v1/notices", "notices")
	for _, n := range notices {
		same(t, a, b, fmt.Sprintf("/api/v1/notices/%v", testserver.At(t, n, "id")))
	}
	for _, id := range []int{10, 11, 30} {
		same(t, a, b, fmt.Sprintf("/api/v1/components/%d/metrics?show_calculations=true", id))
	}
	return components, notices
}
