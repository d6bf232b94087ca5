package main

// What statusd tells its operators where it needs run: the
// readiness probe on a stopped PostgreSQL, the JSON log format, statusd
// version. The metrics, the probes and the request log are tested in
// internal/server.

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/statusd/statusd/internal/testenv"
	"github.com/statusd/statusd/internal/testserver"
)

// TestReadyzPostgres: with PostgreSQL stopped, /readyz answers 503 with a
// reason while the page is still served from the snapshot; when it is back,
// /readyz is 200 again by itself.
func TestReadyzPostgres(t *testing.T) {
	cluster := testenv.NewCluster(t)
	now := time.Now().UTC().Truncate(time.Second)
	importDoc(t, cluster.URL, testserver.Fixture(now))
	srv := serveDB(t, cluster.URL, "--metrics-public")
	srv.Get("/readyz", 200)
	if err := cluster.Stop(); err != nil {
		t.Fatal(err)
	}
	defer cluster.Start()
	r := srv.Get("/readyz", 503)
	if testserver.At(t, r.JSON, "status") != "degraded" {
		t.Errorf("/readyz with the database down: %s", r.Body)
	}
	reasons, _ := testserver.At(t, r.JSON, "reasons").([]any)
	if len(reasons) != 1 || !strings.HasPrefix(fmt.Sprint(reasons[0]), "the database ") {
		t.Errorf("reasons %v", reasons)
	}
	if strings.Contains(string(r.Body), "127.0.0.1") || strings.Contains(string(r.Body), "postgres") {
		t.Errorf("/readyz leaks the database error: %s", r.Body)
	}
	srv.Get("/api/v1/status", 200)
	srv.Get("/api/v2/summary.json", 200)
	srv.Get("/badge/status.json", 200)
	srv.Get("/healthz", 200)
	testserver.WaitLog(t, srv.Logs, `msg="not ready"`)
	if err := cluster.Start(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		if r := srv.Do(http.MethodGet, "/readyz"); r.Status == 200 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("/readyz still not 200 after PostgreSQL came back:\n%s", srv.Logs)
		}
	}
	testserver.WaitLog(t, srv.Logs, `msg="ready again"`)
}

// TestRequestLogJSON: STATUSD_LOG_FORMAT=json gives one JSON object a line,
// the request line among them; a bad format is refused.
func TestRequestLogJSON(t *testing.T) {
	now := time.Now().UTC().Truncate(time.Second)
	db := filepath.Join(t.TempDir(), "statusd.db")
	importDoc(t, db, testserver.Fixture(now))
	env := map[string]string{"STATUSD_LOG_FORMAT": "json", "STATUSD_LOG_LEVEL": "debug"}
	srv := serveEnv(t, db, env)
	logs, url := srv.Logs, srv.URL
	if r := testserver.Fetch(t, http.MethodGet, url+"/api/v2/status.json", "", "X-Request-Id", "tm-json-3"); r.Status != 200 {
		t.Fatalf("GET: %d", r.Status)
	}
	testserver.WaitLog(t, logs, `"msg":"statusd listening"`, `"request_id":"tm-json-3"`)
	sc := bufio.NewScanner(strings.NewReader(logs.String()))
	found := false
	for sc.Scan() {
		var l map[string]any
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Errorf("not a JSON line: %s", sc.Text())
			continue
		}
		if l["request_id"] == "tm-json-3" {
			found = true
			want := map[string]any{"level": "DEBUG", "msg": "request", "method": "GET", "route": "/api/v2/status.json",
				"path": "/api/v2/status.json", "status": float64(200)}
			for k, v := range want {
				if l[k] != v {
					t.Errorf("request line %s = %v, want %v", k, l[k], v)
				}
			}
			if _, ok := l["took"].(float64); !ok {
				t.Errorf("request line took = %v", l["took"])
			}
		}
	}
	if !found {
		t.Errorf("no request line:\n%s", logs)
	}

	_, stderr, err := cli(t, "", "serve", "--db", db, "--addr", "127.0.0.1:0", "--log-format", "xml")
	if err == nil || !strings.Contains(err.Error(), "--log-format") {
		t.Errorf("--log-format xml: %v %s", err, stderr)
	}
}

// TestVersionCommand: statusd version prints the version, the commit and
// the Go version; -ldflags values win.
func TestVersionCommand(t *testing.T) {
	out, _, err := cli(t, "", "version")
	if err != nil || !regexp.MustCompile(`^statusd \S+\ncommit  \S+\ngo      go\S+ \w+/\w+\n$`).MatchString(out) {
		t.Errorf("statusd version: %v\n%q", err, out)
	}
	oldV, oldC := version, commit
	defer func() { version, commit = oldV, oldC }()
	version, commit = "1.4.0", "0123abcd"
	out, _, _ = cli(t, "", "--version")
	if !strings.HasPrefix(out, "statusd 1.4.0\ncommit  0123abcd\ngo      go") {
		t.Errorf("with -ldflags values: %q", out)
	}
	if _, _, err := cli(t, "", "version", "extra"); err == nil {
		t.Errorf("version with an argument: no error")
	}
	if out, _, _ := cli(t, "", "help"); !strings.Contains(out, "statusd version") {
		t.Errorf("the usage does not list version")
	}
}
