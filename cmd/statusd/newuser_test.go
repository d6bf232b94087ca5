package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/statusd/statusd/internal/testserver"
)

// TestTokenCreateNeedsPage: token create in a folder without the page's
// database creates no file and names statusd init, as it does on a
// database that holds no page; on the page's database its success line
// names the database.
func TestTokenCreateNeedsPage(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "statusd.db")
	for _, sub := range [][]string{{"create", "--name", "alice"}, {"list"}} {
		out, _, err := cli(t, "", append([]string{"token", sub[0], "--db", missing}, sub[1:]...)...)
		if err == nil || out != "" || !strings.Contains(err.Error(), "statusd init") || !strings.Contains(err.Error(), missing) {
			t.Errorf("token %s on a missing database: %q, %v; want a refusal naming it and statusd init", sub[0], out, err)
		}
		if _, err := os.Stat(missing); err == nil {
			t.Fatalf("token %s on a missing database created %s", sub[0], missing)
		}
	}

	empty := filepath.Join(dir, "empty.db")
	testserver.OpenStore(t, empty) // a database, migrated, with no page
	out, _, err := cli(t, "", "token", "create", "--db", empty, "--name", "alice")
	if err == nil || out != "" || !strings.Contains(err.Error(), "holds no page") || !strings.Contains(err.Error(), "statusd init") {
		t.Errorf("token create on a database without a page: %q, %v; want a refusal naming statusd init", out, err)
	}

	importDoc(t, empty, testserver.Fixture(time.Now().UTC().Truncate(time.Second)))
	out, stderr, err := cli(t, "", "token", "create", "--db", empty, "--name", "bob")
	if err != nil || strings.TrimSpace(out) == "" || !strings.Contains(stderr, `created token "bob" in `+empty) {
		t.Errorf("token create on the page's database: %q, %q, %v; want the token, and the database named", out, stderr, err)
	}
}

// TestCLIUnauthorizedSaysWhy: a 401 says whether a token was sent at all.
func TestCLIUnauthorizedSaysWhy(t *testing.T) {
	srv := startServer(t, testserver.Fixture(time.Now().UTC().Truncate(time.Second)))
	for _, c := range []struct{ token, says string }{
		{"", "no token given: pass --token or set STATUSD_TOKEN"},
		{"sd_wrong", "the server refused the token: "},
	} {
		_, _, err := cliEnv(t, map[string]string{"STATUSD_URL": srv.URL, "STATUSD_TOKEN": c.token}, "page", "show")
		if exitCode(err) != exitCodeUnauthorized || !strings.Contains(err.Error(), c.says) {
			t.Errorf("page show with the token %q: %v (exit %d), want exit %d saying %q", c.token, err, exitCode(err), exitCodeUnauthorized, c.says)
		}
	}
}

// TestEmptyDatabaseNamesInit: served from a database without a page, the
// log, the API's 503 and the page's 503 say how to start one.
func TestEmptyDatabaseNamesInit(t *testing.T) {
	srv := startServer(t, nil)
	for _, path := range []string{"/api/v1/status", "/api/v2/summary.json", "/"} {
		if r := srv.Get(path, 503); !strings.Contains(string(r.Body), "statusd init") {
			t.Errorf("GET %s on an empty database: %s, want statusd init named", path, r.Body)
		}
	}
	if !strings.Contains(srv.Logs.String(), "statusd init") {
		t.Errorf("serve on an empty database logged:\n%s\nwant statusd init named", srv.Logs)
	}
}

// TestInitMetricsBars: the page of a page init made shows the bars'
// legend only when it draws bars, which init --metrics turns on.
func TestInitMetricsBars(t *testing.T) {
	for _, metrics := range []bool{false, true} {
		db := filepath.Join(t.TempDir(), "statusd.db")
		args := []string{"init", "--db", db, "--name", "Acme Status", "--url", "https://status.acme.test", "API", "Website"}
		if metrics {
			args = append(args, "--metrics")
		}
		if _, stderr, err := cli(t, "", args...); err != nil {
			t.Fatalf("%q: %v\n%s", args, err, stderr)
		}
		page := string(serveDB(t, db).Get("/", 200).Body)
		bars, legend := strings.Count(page, `<svg class="bars"`), strings.Contains(page, `class="legend"`)
		if want := map[bool]int{false: 0, true: 2}[metrics]; bars != want || legend != metrics {
			t.Errorf("init with --metrics=%v: %d rows of bars and the legend %v, want %d and %v", metrics, bars, legend, want, metrics)
		}
	}
}

// TestServeBindsFirst: a serve that cannot bind its address fails before
// it creates the database.
func TestServeBindsFirst(t *testing.T) {
	taken := localListener(t)
	db := filepath.Join(t.TempDir(), "statusd.db")
	if _, _, err := cli(t, "", "serve", "--db", db, "--addr", taken.Addr().String()); err == nil || !strings.Contains(err.Error(), taken.Addr().String()) {
		t.Errorf("serve on a taken address: %v, want a failure naming it", err)
	}
	if _, err := os.Stat(db); err == nil {
		t.Errorf("serve that could not bind created %s", db)
	}
}

// TestServeLogsEmailSubscription: serve --smtp-url says that email
// subscription is on, without the SMTP password.
func TestServeLogsEmailSubscription(t *testing.T) {
	srv := startServer(t, testserver.Fixture(time.Now().UTC().Truncate(time.Second)),
		"--smtp-url", "smtp://status:hunter2@127.0.0.1:2525", "--mail-from", "Acme Status <status@acme.test>")
	logs := srv.Logs.String()
	if !strings.Contains(logs, "email subscription is on") || !strings.Contains(logs, "127.0.0.1:2525") || strings.Contains(logs, "hunter2") {
		t.Errorf("serve --smtp-url logged:\n%s\nwant email subscription said to be on, the server named, the password not", logs)
	}
}

// TestFlagErrorPrintedOnce: the statusd process prints an unknown flag's
// error once, for serve as for the commands of internal/cli.
func TestFlagErrorPrintedOnce(t *testing.T) {
	for _, args := range [][]string{{"serve", "--bogus"}, {"init", "--bogus"}, {"token", "create", "--bogus"}, {"incident", "open", "--bogus"}} {
		out, err := statusdCmd(args...).CombinedOutput()
		if n := strings.Count(string(out), "flag provided but not defined: --bogus"); n != 1 || exitCode(err) == 0 {
			t.Errorf("statusd %q: %v, the error printed %d times, want once with a usage exit:\n%s", args, err, n, out)
		}
	}
}
