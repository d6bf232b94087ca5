// Package testenv gives tests real services: fresh PostgreSQL databases and
// Redis servers. It uses STATUSD_TEST_POSTGRES_URL and STATUSD_TEST_REDIS_URL
// when they are set; otherwise it starts throwaway servers from the local
// binaries (initdb and pg_ctl, redis-server) in temporary folders, and stops
// them when the test binary ends (call Main from TestMain). Without either,
// tests skip with a message that says how to get the service, except with
// CI=true, where they fail: CI must run them. Alertmanager starts a real
// Prometheus Alertmanager for a test, from a binary that
// bench/alertmanager.sh builds once per machine. S3 starts an in-memory
// S3 server (gofakes3) in the test binary. Fetch is the HTTP request of
// the tests that talk to a real server.
package testenv

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" driver
)

// Main runs the tests and then stops every server testenv started.
func Main(m *testing.M) {
	code := m.Run()
	mu.Lock()
	for _, stop := range stops {
		stop()
	}
	mu.Unlock()
	os.Exit(code)
}

var (
	mu    sync.Mutex
	stops []func()
)

func atExit(stop func()) {
	mu.Lock()
	stops = append(stops, stop)
	mu.Unlock()
}

// unavailable skips the test, or fails it under CI.
func unavailable(t testing.TB, what, how string) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s is needed and CI=true: %s", what, how)
	}
	t.Skipf("%s not available: %s", what, how)
}

// FreePort returns a TCP port on 127.0.0.1 that was free a moment ago.
func FreePort(t testing.TB) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// Cluster is a throwaway PostgreSQL cluster in a temporary folder, which a
// test may stop and start again.
type Cluster struct {
	dir, bin string
	port     int
	// URL is the cluster's postgres database, as the postgres superuser.
	URL string
}

func pgBin() string {
	if p, err := exec.LookPath("initdb"); err == nil {
		return filepath.Dir(p)
	}
	matches, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	if len(matches) == 0 {
		return ""
	}
	return filepath.Dir(matches[len(matches)-1])
}

// asPostgres runs a PostgreSQL binary, as the postgres user when running as
// root (PostgreSQL refuses to run as root).
func asPostgres(name string, args ...string) *exec.Cmd {
	if os.Geteuid() == 0 {
		return exec.Command("runuser", append([]string{"-u", "postgres", "--", name}, args...)...)
	}
	return exec.Command(name, args...)
}

// NewCluster initialises and starts a cluster; the caller stops it (Stop) or
// leaves it to Main.
func NewCluster(t testing.TB) *Cluster {
	t.Helper()
	bin := pgBin()
	if bin == "" {
		unavailable(t, "PostgreSQL", "set STATUSD_TEST_POSTGRES_URL, or install PostgreSQL (apt-get install postgresql)")
	}
	dir, err := os.MkdirTemp("", "statusd-pg-")
	if err != nil {
		t.Fatal(err)
	}
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			unavailable(t, "PostgreSQL", "running as root needs a postgres user to run the server")
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := os.Chown(dir, uid, gid); err != nil {
			t.Fatal(err)
		}
	}
	c := &Cluster{dir: dir, bin: bin}
	out, err := asPostgres(filepath.Join(bin, "initdb"), "-D", filepath.Join(dir, "data"), "-U", "postgres",
		"-A", "trust", "-E", "UTF8", "--no-sync").CombinedOutput()
	if err != nil {
		os.RemoveAll(dir)
		t.Fatalf("initdb: %v\n%s", err, out)
	}
	atExit(func() { c.Stop(); os.RemoveAll(dir) })
	// The port was free a moment ago; another test binary running beside
	// this one may have taken it since, so a start that could not bind
	// tries another.
	for try := 1; ; try++ {
		c.port = FreePort(t)
		c.URL = fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", c.port)
		err := c.Start()
		if err == nil {
			return c
		}
		if try == 3 || !strings.Contains(err.Error(), "could not bind") {
			t.Fatal(err)
		}
	}
}

// Start starts the cluster and waits until it accepts connections.
func (c *Cluster) Start() error {
	opts := fmt.Sprintf("-p %d -k %s -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200", c.port, c.dir)
	out, err := asPostgres(filepath.Join(c.bin, "pg_ctl"), "-D", filepath.Join(c.dir, "data"), "-o", opts,
		"-l", filepath.Join(c.dir, "log"), "-w", "start").CombinedOutput()
	if err != nil {
		log, _ := os.ReadFile(filepath.Join(c.dir, "log"))
		return fmt.Errorf("pg_ctl start: %v\n%s\nits log:\n%s", err, out, log)
	}
	return nil
}

// Stop stops the cluster, cutting connections off.
func (c *Cluster) Stop() error {
	out, err := asPostgres(filepath.Join(c.bin, "pg_ctl"), "-D", filepath.Join(c.dir, "data"), "-m", "fast", "-w", "stop").CombinedOutput()
	if err != nil && !strings.Contains(string(out), "not running") && !strings.Contains(string(out), "No such file") {
		return fmt.Errorf("pg_ctl stop: %v\n%s", err, out)
	}
	return nil
}

var (
	pgOnce sync.Once
	pgBase string
	// pgBroken is set when the shared cluster failed to start.
	pgBroken bool
	pgSeq    atomic.Int64
)

// Postgres returns the URL of a fresh, empty database, dropped when the test
// ends.
func Postgres(t testing.TB) string {
	t.Helper()
	pgOnce.Do(func() {
		pgBase = os.Getenv("STATUSD_TEST_POSTGRES_URL")
		if pgBase == "" && pgBin() != "" {
			pgBroken = true // until NewCluster returns, as it fails the test
			pgBase = NewCluster(t).URL
			pgBroken = false
		}
	})
	if pgBroken {
		t.Fatal("the tests' PostgreSQL cluster did not start: the first test that needed it says why")
	}
	if pgBase == "" {
		unavailable(t, "PostgreSQL", "set STATUSD_TEST_POSTGRES_URL, or install PostgreSQL (apt-get install postgresql)")
	}
	admin, err := sql.Open("pgx", pgBase)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	name := fmt.Sprintf("statusd_test_%d_%d_%d", os.Getpid(), time.Now().UnixNano()%1e6, pgSeq.Add(1))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := admin.ExecContext(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatalf("CREATE DATABASE on %s: %v", pgBase, err)
	}
	t.Cleanup(func() {
		db, err := sql.Open("pgx", pgBase)
		if err != nil {
			return
		}
		defer db.Close()
		db.Exec("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)")
	})
	return withDatabase(pgBase, name)
}

// withDatabase returns the URL with its database replaced.
func withDatabase(base, name string) string {
	scheme, rest, _ := strings.Cut(base, "://")
	hostPart, query, _ := strings.Cut(rest, "?")
	host, _, _ := strings.Cut(hostPart, "/")
	u := scheme + "://" + host + "/" + name
	if query != "" {
		u += "?" + query
	}
	return u
}

var (
	redisOnce sync.Once
	redisURL  string
)

// Redis returns the URL of a Redis server shared by the test binary.
func Redis(t testing.TB) string {
	t.Helper()
	redisOnce.Do(func() {
		redisURL = os.Getenv("STATUSD_TEST_REDIS_URL")
		if redisURL != "" {
			return
		}
		bin, err := exec.LookPath("redis-server")
		if err != nil {
			return
		}
		port := FreePort(t)
		cmd := exec.Command(bin, "--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no")
		if err := cmd.Start(); err != nil {
			return
		}
		atExit(func() { cmd.Process.Kill(); cmd.Wait() })
		addr := "127.0.0.1:" + strconv.Itoa(port)
		for i := 0; i < 100; i++ {
			if c, err := net.Dial("tcp", addr); err == nil {
				c.Close()
				redisURL = "redis://" + addr
				return
			}
			time.Sleep(50 * time.Millisecond)
		}
	})
	if redisURL == "" {
		unavailable(t, "Redis", "set STATUSD_TEST_REDIS_URL, or install Redis (apt-get install redis-server)")
	}
	return redisURL
}

// Fetch sends a request with the header given as name, value pairs, and
// returns the response and its whole body; any error fails the test.
func Fetch(t testing.TB, method, url string, header ...string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res, string(b)
}
