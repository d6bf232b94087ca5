package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/internal/testenv"
	"github.com/statusd/statusd/internal/testserver"
)

// Storage faults: the storage of a running server is
// broken for real (its file removed, its disk full, the database read-only)
// and statusd refuses writes with a 503 that names the fault, logs it once,
// fails /readyz until writes work again, and keeps answering reads, the
// admin API's included. Every helper here starts with sf.

// sfNotice is the write the tests try: a new general notice.
var sfNotice = statusd.AdminNoticeRequest{Type: testserver.Ptr("general"), Subject: testserver.Ptr("Written while broken"), Content: testserver.Ptr("Is it kept?")}

// sfServe imports the fixture into db, creates an admin token, and serves
// db after prepare (when not nil) has run on it.
func sfServe(t *testing.T, db string, prepare func()) (*testserver.Server, string) {
	t.Helper()
	importDoc(t, db, testserver.Fixture(time.Now().UTC().Truncate(time.Second)))
	tok := newToken(t, db, "ops")
	if prepare != nil {
		prepare()
	}
	return serveDB(t, db), tok
}

// sfReadsWork checks what does not need a write while writes fail: the
// public API from the snapshot, admin reads, /metrics with a token and an
// operator CLI command, all of which check the token.
func sfReadsWork(t *testing.T, srv *testserver.Server, tok string) {
	t.Helper()
	srv = srv.In(t)
	if name := srv.Status().Name; name != "Acme Status" {
		t.Errorf("the public status names the page %v, want Acme Status", name)
	}
	adm, ctx := srv.Admin(tok), context.Background()
	for path, read := range map[string]func() error{
		"/page":        func() error { _, err := adm.Page(ctx); return err },
		"/components":  func() error { _, err := adm.Components(ctx); return err },
		"/notices/100": func() error { _, err := adm.Notice(ctx, 100); return err },
		"/audit":       func() error { _, err := adm.Audit(ctx, 0); return err },
	} {
		if err := read(); err != nil {
			t.Errorf("admin GET %s: %v, want 200", path, err)
		}
	}
	if r := srv.Do("GET", "/metrics", "Authorization", "Bearer "+tok); r.Status != 200 {
		t.Errorf("/metrics with a token: %d %s, want 200", r.Status, r.Body)
	}
	if out, stderr, err := opCLI(t, srv, tok, "component", "list"); err != nil || !strings.Contains(out, "Replica") {
		t.Errorf("statusd component list: %v\nstdout: %s\nstderr: %s", err, out, stderr)
	}
}

// sfRefused checks that writes are refused with 503 unavailable and a
// message that says problem, that /readyz fails with it as its reason, and
// that the server logged it once at error level.
func sfRefused(t *testing.T, srv *testserver.Server, tok, problem string) {
	t.Helper()
	srv = srv.In(t)
	body, err := json.Marshal(sfNotice)
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		r := srv.Authed("POST", testserver.AdminRoot+"/notices", tok, string(body))
		testserver.AssertError(t, "a write", r, 503, "unavailable")
		if msg := testserver.ErrorMessage(r); !strings.Contains(msg, problem) {
			t.Errorf("a refused write says %q, want it to say %q", msg, problem)
		}
	}
	r := srv.Do("GET", "/readyz")
	if r.Status != 503 || !strings.Contains(string(r.Body), problem) {
		t.Errorf("/readyz: %d %s, want 503 saying %q", r.Status, r.Body, problem)
	}
	errors := 0
	for _, line := range strings.Split(srv.Logs.String(), "\n") {
		if strings.Contains(line, "level=ERROR") && strings.Contains(line, problem) {
			errors++
		}
	}
	if errors != 1 {
		t.Errorf("%d error lines saying %q, want 1:\n%s", errors, problem, srv.Logs)
	}
}

// sfRecovers checks that once the fault is gone /readyz answers 200 again
// and writes are acknowledged, without a restart; and that the token's
// use, which could not be written during the fault, is written now.
func sfRecovers(t *testing.T, srv *testserver.Server, tok string) {
	t.Helper()
	srv = srv.In(t)
	if r := srv.Do("GET", "/readyz"); r.Status != 200 {
		t.Errorf("/readyz after the fault went away: %d %s, want 200", r.Status, r.Body)
	}
	_, err := srv.Admin(tok).CreateNotice(context.Background(), sfNotice)
	testserver.NoErr(t, "POST /notices after the fault went away", err)
	testserver.WaitLog(t, srv.Logs, "database writes work again")
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		out, stderr, err := cli(t, "", "token", "list", "--db", srv.DB)
		if err == nil && strings.Contains(out, "ops") && !strings.Contains(out, "never") {
			break
		}
		if time.Now().After(deadline) {
			t.Errorf("token list 10 s after the token was used: %v\n%s%s", err, out, stderr)
			break
		}
	}
}

// TestStorageFileRemoved removes the database file under a running server
// (as a clean-up script might): the server still holds the removed file
// open, so writes would succeed into a file that is gone at the next start.
// They are refused instead; the same when another file took the name.
func TestStorageFileRemoved(t *testing.T) {
	for _, tc := range []struct {
		name   string
		remove func(t *testing.T, db string)
	}{
		{"removed", func(t *testing.T, db string) {
			for _, suffix := range []string{"", "-wal", "-shm"} {
				if err := os.Remove(db + suffix); err != nil && !os.IsNotExist(err) {
					t.Fatal(err)
				}
			}
		}},
		{"replaced", func(t *testing.T, db string) {
			other := filepath.Join(t.TempDir(), "other.db")
			importDoc(t, other, testserver.Fixture(time.Now().UTC()))
			if err := os.Rename(other, db); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db := filepath.Join(t.TempDir(), "statusd.db")
			srv, tok := sfServe(t, db, nil)
			_, err := srv.Admin(tok).UpdatePage(context.Background(), statusd.AdminPageRequest{Name: testserver.Ptr("Acme Status")})
			testserver.NoErr(t, "PATCH /page before the fault", err)
			tc.remove(t, db)
			sfRefused(t, srv, tok, "the database file "+db+" was removed or replaced while statusd ran")
			sfReadsWork(t, srv, tok)
		})
	}
}

// TestStorageDiskFull fills the disk of the database under a running
// server, then frees it.
func TestStorageDiskFull(t *testing.T) {
	dir := testenv.SmallDisk(t, "2m")
	srv, tok := sfServe(t, filepath.Join(dir, "statusd.db"), nil)
	filler := testenv.FillDisk(t, dir)
	sfReadsWork(t, srv, tok)
	sfRefused(t, srv, tok, "the database disk is full")
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	sfRecovers(t, srv, tok)
}

// TestStorageReadOnly serves a database file that cannot be written (made
// immutable, which binds root too), then makes it writable again.
func TestStorageReadOnly(t *testing.T) {
	db := filepath.Join(t.TempDir(), "statusd.db")
	var writable func()
	srv, tok := sfServe(t, db, func() { writable = testenv.Immutable(t, db) })
	sfReadsWork(t, srv, tok)
	sfRefused(t, srv, tok, "the database is read-only")
	writable()
	sfRecovers(t, srv, tok)
}

// TestStoragePostgresReadOnly makes PostgreSQL refuse writes (every
// transaction read-only, as on a standby) under a running server, then
// lets it write again.
func TestStoragePostgresReadOnly(t *testing.T) {
	cluster := testenv.NewCluster(t)
	srv, tok := sfServe(t, cluster.URL, nil)
	pg, err := sql.Open("pgx", cluster.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer pg.Close()
	setReadOnly := func(on string) {
		t.Helper()
		ctx := context.Background()
		if _, err := pg.ExecContext(ctx, `ALTER SYSTEM SET default_transaction_read_only = `+on); err != nil {
			t.Fatal(err)
		}
		if _, err := pg.ExecContext(ctx, `SELECT pg_reload_conf()`); err != nil {
			t.Fatal(err)
		}
		time.Sleep(200 * time.Millisecond) // the server's sessions read the configuration again
	}
	setReadOnly("on")
	sfReadsWork(t, srv, tok)
	sfRefused(t, srv, tok, "the database is read-only")
	setReadOnly("off")
	sfRecovers(t, srv, tok)
}
