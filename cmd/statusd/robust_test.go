package main

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/client"
	"github.com/statusd/statusd/internal/testenv"
	"github.com/statusd/statusd/internal/testserver"
)

// Robustness tests: statusd keeps answering, loses nothing and lets no one
// in, when the database goes away, when it is killed or stopped, under slow
// and hostile clients, and over a long run. Every helper here starts with rb.

// rbIntegrity fails unless SQLite's integrity and foreign key checks of the
// database file pass.
func rbIntegrity(t *testing.T, path string) {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var lines []string
	rows, err := db.Query(`PRAGMA integrity_check`)
	if err != nil {
		t.Fatalf("integrity_check of %s: %v", path, err)
	}
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		lines = append(lines, s)
	}
	rows.Close()
	if len(lines) != 1 || lines[0] != "ok" {
		t.Errorf("integrity_check of %s: %q, want ok", path, lines)
	}
	rows, err = db.Query(`PRAGMA foreign_key_check`)
	if err != nil {
		t.Fatalf("foreign_key_check of %s: %v", path, err)
	}
	defer rows.Close()
	if rows.Next() {
		t.Errorf("foreign_key_check of %s finds rows that point nowhere", path)
	}
}

// rbTables lists the database's tables.
func rbTables(t *testing.T, path string) []string {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(`SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	return out
}

// rbStat is what /proc says about a process.
type rbStat struct {
	rssKB, threads, fds int
}

// rbProc reads a process's resident memory, threads and open files.
func rbProc(pid int) (rbStat, error) {
	var s rbStat
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return s, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		k, v, _ := strings.Cut(line, ":")
		f := strings.Fields(v)
		if len(f) == 0 {
			continue
		}
		switch k {
		case "VmRSS":
			s.rssKB, _ = strconv.Atoi(f[0])
		case "Threads":
			s.threads, _ = strconv.Atoi(f[0])
		}
	}
	fds, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		return s, err
	}
	s.fds = len(fds)
	return s, nil
}

// rbMaxRSS is the peak resident memory of a finished child, in MiB.
func rbMaxRSS(cmd *exec.Cmd) float64 {
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		return float64(ru.Maxrss) / 1024 // kilobytes on Linux
	}
	return -1
}

// rbRace reports whether the test binary, and so every statusd child
// process, was built with -race.
func rbRace() bool {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if s.Key == "-race" {
				return s.Value == "true"
			}
		}
	}
	return false
}

// --- Backup and restore ----------------------------------------------------

// TestRobustBackupRestore takes a backup while a real server runs and writes
// without pause, checks that the copy is whole and consistent, then takes one
// at rest, serves it beside the original and compares every answer, and
// restores it by the README's procedure over a database left by SIGKILL.
func TestRobustBackupRestore(t *testing.T) {
	now := time.Now().UTC().Truncate(time.Second)
	dir := t.TempDir()
	db := filepath.Join(dir, "statusd.db")
	importDoc(t, db, testserver.Fixture(now))
	tok := newToken(t, db, "ops")
	srv := startReplica(t, db, "--rate-limit", "0")
	hot, cold := filepath.Join(dir, "hot.db"), filepath.Join(dir, "cold.db")
	var before, after int64 // notices acknowledged before the backup began, and when it ended

	testserver.Step(t, "a backup taken while a writer creates notices without pause", func(t *testing.T) {
		// The writer gives each notice a second update.
		var acked atomic.Int64 // notices whose creation was answered 201
		admin, ctx := srv.Admin(tok), context.Background()
		stop := make(chan struct{})
		done := make(chan error, 1)
		go func() {
			for i := 0; ; i++ {
				select {
				case <-stop:
					done <- nil
					return
				default:
				}
				n, err := admin.CreateNotice(ctx, statusd.AdminNoticeRequest{Type: testserver.Ptr("unplanned"),
					Subject: testserver.Ptr(fmt.Sprintf("Backup %d", i)), Content: testserver.Ptr(fmt.Sprintf("first %d", i)), ComponentIDs: &[]int64{10}})
				if err != nil {
					done <- fmt.Errorf("create %d: %v", i, err)
					return
				}
				if _, err := admin.PostUpdate(ctx, n.ID, statusd.AdminUpdateRequest{
					Content: testserver.Ptr(fmt.Sprintf("second %d", i)), State: testserver.Ptr("resolved")}); err != nil {
					done <- fmt.Errorf("update %d: %v", i, err)
					return
				}
				acked.Add(1)
			}
		}()
		time.Sleep(300 * time.Millisecond)
		before = acked.Load()
		start := time.Now()
		_, stderr, err := cli(t, "", "backup", "--db", db, hot)
		took := time.Since(start)
		after = acked.Load()
		time.Sleep(200 * time.Millisecond)
		close(stop)
		if werr := <-done; werr != nil {
			t.Fatalf("the writer failed during the backup: %v", werr)
		}
		if err != nil {
			t.Fatalf("backup while writing: %v\n%s", err, stderr)
		}
		t.Logf("backup while writing took %v; %d notices were acknowledged before it, %d after", took, before, after)
	})

	testserver.Step(t, "the copy taken while writing is whole and consistent", func(t *testing.T) {
		// It passes the integrity check, holds every write acknowledged
		// before the backup began and none that was not complete: each of
		// its notices has both updates or, if the second was not yet
		// written, only the first, never anything else.
		rbIntegrity(t, hot)
		hotDoc := exportDoc(t, hot)
		fixtureIDs := map[int64]bool{}
		for _, n := range testserver.Fixture(now).Notices {
			fixtureIDs[n.ID] = true
		}
		var written int64
		for _, n := range hotDoc.Notices {
			if fixtureIDs[n.ID] {
				continue
			}
			written++
			i, err := strconv.Atoi(strings.TrimPrefix(n.Subject, "Backup "))
			if err != nil {
				t.Fatalf("notice %d: subject %q", n.ID, n.Subject)
			}
			var contents []string
			for _, u := range n.Updates {
				contents = append(contents, u.Content)
			}
			want := []string{fmt.Sprintf("first %d", i), fmt.Sprintf("second %d", i)}
			if !slices.Equal(contents, want) && !slices.Equal(contents, want[:1]) {
				t.Errorf("notice %d in the hot copy has updates %q, want %q", n.ID, contents, want)
			}
			if !slices.Equal(n.ComponentIDs, []int64{10}) {
				t.Errorf("notice %d in the hot copy lists components %v, want [10]", n.ID, n.ComponentIDs)
			}
		}
		if written < before || written > after+1 {
			t.Errorf("the hot copy holds %d written notices; %d were acknowledged before the backup, %d after", written, before, after)
		}
		if len(hotDoc.Notices) != len(fixtureIDs)+int(written) {
			t.Errorf("the hot copy holds %d notices", len(hotDoc.Notices))
		}
	})

	testserver.Step(t, "backup never overwrites a file, sends PostgreSQL to pg_dump, and names a missing database", func(t *testing.T) {
		info, _ := os.Stat(hot)
		if _, _, err := cli(t, "", "backup", "--db", db, hot); err == nil || !strings.Contains(err.Error(), "exists") {
			t.Errorf("backup over an existing file: %v, want a refusal", err)
		}
		if again, _ := os.Stat(hot); again.ModTime() != info.ModTime() || again.Size() != info.Size() {
			t.Errorf("a refused backup changed the existing file")
		}
		_, stderr, err := cli(t, "", "backup", "--db", "postgres://statusd:secret@db.internal/statusd", filepath.Join(dir, "pg.db"))
		if err == nil || !strings.Contains(stderr, "pg_dump --format=custom") || !strings.Contains(stderr, "pg_restore") ||
			strings.Contains(stderr, "secret") {
			t.Errorf("backup of PostgreSQL: %v\n%s\nwant a refusal showing pg_dump and pg_restore, without the password", err, stderr)
		}
		if _, _, err := cli(t, "", "backup", "--db", filepath.Join(dir, "missing.db"), filepath.Join(dir, "x.db")); err == nil ||
			!strings.Contains(err.Error(), "no such database") {
			t.Errorf("backup of a missing database: %v", err)
		}
		if _, err := os.Stat(filepath.Join(dir, "missing.db")); err == nil {
			t.Errorf("backup of a missing database created it")
		}
	})

	testserver.Step(t, "a copy taken at rest passes the integrity check", func(t *testing.T) {
		if _, stderr, err := cli(t, "", "backup", "--db", db, cold); err != nil {
			t.Fatalf("backup at rest: %v\n%s", err, stderr)
		}
		rbIntegrity(t, cold)
	})

	copied := serveDB(t, cold) // until the end: the restored page is compared with it
	testserver.Step(t, "the copy taken at rest answers exactly as the original does", func(t *testing.T) {
		sameAnswers(t, srv.Server, copied)
	})

	testserver.Step(t, "restored by the README's procedure over a database left by SIGKILL, it gives back the page and the token", func(t *testing.T) {
		wantExport, _, _ := cli(t, "", "export", "--db", db)
		// Stop, remove the WAL files, copy the backup in place, start.
		srv.cmd.Process.Kill()
		srv.cmd.Wait()
		for _, suffix := range []string{"-wal", "-shm"} {
			os.Remove(db + suffix)
		}
		b, err := os.ReadFile(cold)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(db, b, 0o600); err != nil {
			t.Fatal(err)
		}
		restored := startReplica(t, db, "--rate-limit", "0")
		sameAnswers(t, copied, restored.Server)
		if got, _, _ := cli(t, "", "export", "--db", db); got != wantExport {
			t.Errorf("the restored database exports another document than the original")
		}
		// The token was restored too, and writes carry on.
		if _, err := restored.Admin(tok).UpdatePage(context.Background(), statusd.AdminPageRequest{Name: testserver.Ptr("Restored")}); err != nil {
			t.Errorf("a write after the restore: %v", err)
		}
		rbIntegrity(t, db)
	})
}

// --- The database goes away -------------------------------------------------

// TestRobustServeStale stops PostgreSQL under a running server: the public
// API and pages keep answering from the last snapshot, admin requests answer
// 503 unavailable and write nothing, and once PostgreSQL is back, writes work
// again without restarting statusd.
func TestRobustServeStale(t *testing.T) {
	cluster := testenv.NewCluster(t)
	db := cluster.URL
	now := time.Now().UTC().Truncate(time.Second)
	importDoc(t, db, testserver.Fixture(now))
	tok := newToken(t, db, "ops")
	srv := serveDB(t, db, "--log-level", "debug")
	adm, ctx := srv.Admin(tok), context.Background()
	public := []string{"/api/v1/status", "/api/v1/components", "/api/v1/notices", "/api/v1/notices/100",
		"/api/v1/notices?filter[type_eq]=unplanned", "/api/v1/components/10/metrics", "/v1/notices", "/api/notices/200"}
	answers := map[string]string{} // the answers before the outage, byte for byte
	var auditBefore int

	testserver.Step(t, "before the outage, a write and the answers", func(t *testing.T) {
		srv := srv.In(t)
		_, err := adm.UpdatePage(ctx, statusd.AdminPageRequest{Name: testserver.Ptr("Before the outage")})
		testserver.NoErr(t, "PATCH /page", err)
		auditBefore = srv.AuditTotal(tok)
		for _, p := range public {
			answers[p] = string(srv.Get(p, 200).Body)
		}
		srv.Get("/", 200)
	})

	stopped, restarted := false, false
	t.Cleanup(func() {
		if stopped && !restarted {
			cluster.Start()
		}
	})
	testserver.Step(t, "with PostgreSQL stopped, the public API and pages answer from the last snapshot", func(t *testing.T) {
		srv := srv.In(t)
		if err := cluster.Stop(); err != nil {
			t.Fatal(err)
		}
		stopped = true
		// Long enough for the watcher to have failed a few times.
		time.Sleep(time.Second)
		for _, p := range public {
			r := srv.Get(p, 200)
			if p == "/api/v1/status" && string(r.Body) != answers[p] {
				t.Errorf("%s with the database down: %s, want the last snapshot's %s", p, r.Body, answers[p])
			}
		}
		if r := srv.Do("GET", "/"); r.Status != 200 {
			t.Errorf("the status page with the database down: %d", r.Status)
		}
		if !strings.Contains(srv.Logs.String(), "serving the last snapshot") {
			t.Errorf("the server did not log that the store cannot be read:\n%s", srv.Logs)
		}
		if r := srv.Do("GET", "/readyz"); r.Status != 503 || testserver.At(t, r.JSON, "status") != "degraded" ||
			!strings.Contains(fmt.Sprint(testserver.At(t, r.JSON, "reasons")), "the database ") {
			t.Errorf("/readyz with the database down: %d %s, want 503 degraded for the database", r.Status, r.Body)
		}
	})

	testserver.Step(t, "with PostgreSQL stopped, every write answers 503 at once and changes nothing", func(t *testing.T) {
		srv := srv.In(t)
		writes := []struct{ method, path, body string }{
			{"PATCH", "/page", `{"name":"Written while down"}`},
			{"POST", "/notices", `{"type":"general","subject":"Written while down","content":"lost?"}`},
			{"POST", "/notices/100/updates", `{"content":"Written while down"}`},
			{"PATCH", "/notices/100", `{"subject":"Written while down"}`},
			{"DELETE", "/notices/101", ""},
			{"POST", "/components", `{"name":"Written while down"}`},
			{"DELETE", "/components/31", ""},
		}
		for _, w := range writes {
			start := time.Now()
			r := srv.Authed(w.method, testserver.AdminRoot+w.path, tok, w.body)
			testserver.AssertError(t, w.method+" "+w.path+" with the database down", r, 503, "unavailable")
			if msg := testserver.ErrorMessage(r); !strings.Contains(msg, "database") {
				t.Errorf("%s %s: message %q does not say the database is the trouble", w.method, w.path, msg)
			}
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("%s %s took %v to fail", w.method, w.path, d)
			}
		}
		if got := string(srv.Get("/api/v1/status", 200).Body); got != answers["/api/v1/status"] {
			t.Errorf("refused writes changed the public answer: %s", got)
		}
	})

	testserver.Step(t, "once PostgreSQL is back, writes work again without restarting statusd", func(t *testing.T) {
		if err := cluster.Start(); err != nil {
			t.Fatal(err)
		}
		restarted = true
		deadline := time.Now().Add(15 * time.Second)
		for {
			_, err := adm.UpdatePage(ctx, statusd.AdminPageRequest{Name: testserver.Ptr("After the outage")})
			if err == nil {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("writes did not come back within 15 s of PostgreSQL starting again: %v", err)
			}
			time.Sleep(100 * time.Millisecond)
		}
		if name := srv.In(t).Status().Name; name != "After the outage" {
			t.Errorf("after the outage the page is named %v", name)
		}
	})

	testserver.Step(t, "nothing of the refused writes landed", func(t *testing.T) {
		// One audit entry more (the write after), no notice, component or
		// update "Written while down".
		if got := srv.In(t).AuditTotal(tok); got != auditBefore+1 {
			t.Errorf("audit entries: %v before the outage, %v after one write, want %v", auditBefore, got, auditBefore+1)
		}
		doc := exportDoc(t, db)
		if strings.Contains(fmt.Sprint(doc), "Written while down") || len(doc.Notices) != len(testserver.Fixture(now).Notices) ||
			len(doc.Components) != 6 {
			t.Errorf("a write refused while the database was down landed: %d notices, %d components", len(doc.Notices), len(doc.Components))
		}
	})

	testserver.Step(t, "the store watcher sees the recovery on its next check", func(t *testing.T) {
		srv := srv.In(t)
		for wait := time.Now().Add(3 * time.Second); !strings.Contains(srv.Logs.String(), "the store can be read again"); {
			if time.Now().After(wait) {
				t.Errorf("the server did not log the recovery")
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
		testserver.AssertJSON(t, "/readyz after the outage", srv.Get("/readyz", 200).JSON, testserver.Obj{"status": "ok"})
	})
}

// --- Crash safety ----------------------------------------------------------

// rbNotice is what a crash test writer did with one notice.
type rbNotice struct {
	subject  string
	id       int64    // 0 while its creation was not answered
	acked    []string // update contents answered 2xx, the first one included
	pending  string   // the content of a write that got no answer
	tags     []string
	comps    []int64
	pendingC bool // the creation itself got no answer
}

// rbCrashWriter creates notices with a few updates each, through the admin
// client adm, until a request gets no answer, and records exactly what was
// acknowledged.
func rbCrashWriter(adm *client.Admin, w, round int, out *[]*rbNotice) error {
	ctx := context.Background()
	// refused tells a refusal of the server, which fails the writer, from
	// a request that got no answer, which ends it.
	refused := func(err error) bool {
		var e *client.Error
		return errors.As(err, &e)
	}
	for i := 0; ; i++ {
		n := &rbNotice{subject: fmt.Sprintf("Crash r%d w%d n%d", round, w, i), tags: []string{fmt.Sprintf("w%d", w), "crash"},
			comps: []int64{10 + int64(i%3), 20}}
		*out = append(*out, n)
		first := fmt.Sprintf("%s: first", n.subject)
		got, err := adm.CreateNotice(ctx, statusd.AdminNoticeRequest{Type: testserver.Ptr("unplanned"), Subject: &n.subject, Content: &first,
			ComponentIDs: &n.comps, TagList: &n.tags})
		switch {
		case refused(err):
			return fmt.Errorf("POST /notices: %v", err)
		case err != nil:
			n.pendingC, n.pending = true, first
			return nil
		case got.ID == 0:
			return fmt.Errorf("POST /notices: no id in %+v", got)
		}
		n.id, n.acked = got.ID, []string{first}
		for j := 0; j < 3; j++ {
			content := fmt.Sprintf("%s: update %d %s", n.subject, j, strings.Repeat("x", rand.IntN(2000)))
			u := statusd.AdminUpdateRequest{Content: &content}
			if j == 0 {
				u.State = testserver.Ptr("identified")
			}
			_, err := adm.PostUpdate(ctx, n.id, u)
			switch {
			case refused(err):
				return fmt.Errorf("POST update: %v", err)
			case err != nil:
				n.pending = content
				return nil
			}
			n.acked = append(n.acked, content)
		}
	}
}

// TestRobustCrashSafety kills statusd with SIGKILL in the middle of a stream
// of admin writes, twice, and checks after each restart that every
// acknowledged write is there, that no write is half there, that the audit
// log counts exactly the writes present, and that SQLite's integrity check
// passes.
func TestRobustCrashSafety(t *testing.T) {
	now := time.Now().UTC().Truncate(time.Second)
	db := filepath.Join(t.TempDir(), "statusd.db")
	importDoc(t, db, testserver.Fixture(now))
	tok := newToken(t, db, "ops")
	fixtureNotices := len(testserver.Fixture(now).Notices)
	var all []*rbNotice
	srv := startReplica(t, db, "--rate-limit", "0")
	auditStart := srv.AuditTotal(tok)
	for round := 1; round <= 2; round++ {
		testserver.Step(t, fmt.Sprintf("round %d: SIGKILL in the middle of a stream of writes", round), func(t *testing.T) {
			const writers = 3
			lists := make([][]*rbNotice, writers)
			errs := make(chan error, writers)
			adm := srv.Admin(tok)
			for w := range writers {
				go func() { errs <- rbCrashWriter(adm, w, round, &lists[w]) }()
			}
			time.Sleep(time.Duration(700+rand.IntN(800)) * time.Millisecond)
			if err := srv.cmd.Process.Signal(syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			srv.cmd.Wait()
			for range writers {
				if err := <-errs; err != nil {
					t.Fatalf("a writer failed before the kill: %v", err)
				}
			}
			var acked, pending int
			for _, l := range lists {
				all = append(all, l...)
				for _, n := range l {
					acked += len(n.acked)
					if n.pending != "" {
						pending++
					}
				}
			}
			t.Logf("round %d: SIGKILL after %d acknowledged writes, %d without an answer", round, acked, pending)
			if _, err := os.Stat(db + "-wal"); err != nil {
				t.Logf("no WAL file after the kill: %v", err)
			}
			rbIntegrity(t, db)
		})
		srv = startReplica(t, db, "--rate-limit", "0") // until the end: the next round kills it
		testserver.Step(t, fmt.Sprintf("round %d: after a restart every acknowledged write is there, and none half there", round), func(t *testing.T) {
			rbCheckCrash(t, srv.In(t), db, tok, all, fixtureNotices, auditStart)
		})
	}
	testserver.Step(t, "the restarted server takes writes and gives no id twice", func(t *testing.T) {
		got, err := srv.Admin(tok).CreateNotice(context.Background(), statusd.AdminNoticeRequest{Type: testserver.Ptr("general"),
			Subject: testserver.Ptr("After"), Content: testserver.Ptr("After the crashes.")})
		if err != nil {
			t.Fatalf("a write after the restart: %v", err)
		}
		for _, n := range all {
			if n.id == got.ID {
				t.Errorf("notice id %d given again after the restart", got.ID)
			}
		}
	})
}

// rbCheckCrash checks the database after a restart against what the
// writers recorded.
func rbCheckCrash(t *testing.T, srv *testserver.Server, db, tok string, all []*rbNotice, fixtureNotices, auditStart int) {
	t.Helper()
	doc := exportDoc(t, db)
	bySubject := map[string][]statusd.Notice{}
	for _, n := range doc.Notices {
		bySubject[n.Subject] = append(bySubject[n.Subject], n)
		if len(n.Updates) == 0 {
			t.Errorf("notice %d has no update", n.ID)
		}
	}
	present := 0 // writes present: notices created and updates posted by the writers
	ours := 0
	for _, w := range all {
		found := bySubject[w.subject]
		if len(found) > 1 {
			t.Errorf("%q is there %d times", w.subject, len(found))
			continue
		}
		if len(found) == 0 {
			if w.id != 0 {
				t.Errorf("notice %d %q was acknowledged and is gone", w.id, w.subject)
			}
			continue
		}
		n := found[0]
		ours++
		if w.id != 0 && n.ID != w.id {
			t.Errorf("%q has id %d, the server answered %d", w.subject, n.ID, w.id)
		}
		var contents []string
		for _, u := range n.Updates {
			contents = append(contents, u.Content)
		}
		withPending := append(slices.Clone(w.acked), w.pending)
		if !slices.Equal(contents, w.acked) && !(w.pending != "" && slices.Equal(contents, withPending)) {
			t.Errorf("notice %d %q has %d updates; %d were acknowledged (pending: %v)", n.ID, w.subject, len(contents), len(w.acked), w.pending != "")
		}
		if !slices.Equal(n.ComponentIDs, w.comps) || !slices.Equal(n.TagList, w.tags) {
			t.Errorf("notice %d %q: components %v tags %q, want %v %q", n.ID, w.subject, n.ComponentIDs, n.TagList, w.comps, w.tags)
		}
		present += len(contents)
		// The restarted server serves it whole.
		if w.id != 0 {
			if ups := srv.Notice(n.ID).Updates; len(ups) != len(contents) {
				t.Errorf("the API shows %d updates of notice %d, the database %d", len(ups), n.ID, len(contents))
			}
		}
	}
	if len(doc.Notices) != fixtureNotices+ours {
		t.Errorf("%d notices after the crash: %d of the fixture and %d written, so %d nobody wrote",
			len(doc.Notices), fixtureNotices, ours, len(doc.Notices)-fixtureNotices-ours)
	}
	// Every write present has its audit entry, and no other entry exists.
	if got := srv.AuditTotal(tok); got != auditStart+present {
		t.Errorf("audit log: %v entries, want %v (before) + %d writes present", got, auditStart, present)
	}
}

// --- Graceful shutdown -----------------------------------------------------

// rbLargeUpdates is how many updates notice 999 of rbLargeServer has.
const rbLargeUpdates = 430

// rbLargeServer serves the fixture with notice 999, whose detail is an
// 8.6 MB answer (rbLargeUpdates updates of 19,995 characters, under the
// longest content), from a child process; it returns the server, its
// database and the updates' contents joined.
func rbLargeServer(t *testing.T) (*replica, string, string) {
	t.Helper()
	now := time.Now().UTC().Truncate(time.Second)
	doc := testserver.Fixture(now)
	piece := strings.Repeat("All work and no play makes a large answer. ", 465)
	large := statusd.Notice{ID: 999, Type: statusd.General, Subject: "Large",
		TagList: []string{}, ComponentIDs: []int64{}, CreatedAt: now.Add(-time.Hour), UpdatedAt: now.Add(-time.Hour)}
	for range rbLargeUpdates {
		large.Updates = append(large.Updates, testserver.Upd("", now.Add(-time.Hour), piece))
	}
	doc.Notices = append(doc.Notices, large)
	big := strings.Repeat(piece, rbLargeUpdates)
	db := filepath.Join(t.TempDir(), "statusd.db")
	importDoc(t, db, doc)
	return startReplica(t, db, "--rate-limit", "0"), db, big
}

// rbJoined is the contents of updates, joined.
func rbJoined(updates []statusd.UpdateResource) string {
	var b strings.Builder
	for _, u := range updates {
		b.WriteString(u.Content)
	}
	return b.String()
}

// rbSlowRead is the outcome of a slow read.
type rbSlowRead struct {
	status int
	body   []byte
	err    error
}

// rbSlowReader fetches path over a connection with a small receive buffer,
// reading chunk bytes every pause once started (a pause of 0 stops reading
// for good after the first 64 KiB: a stalled client). It closes started
// when 64 KiB have arrived, so that the server is surely still writing.
func rbSlowReader(addr, path string, chunk int, pause time.Duration, started chan<- struct{}, done chan<- rbSlowRead) {
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		done <- rbSlowRead{err: err}
		return
	}
	defer conn.Close()
	conn.(*net.TCPConn).SetReadBuffer(64 << 10)
	fmt.Fprintf(conn, "GET %s HTTP/1.1\r\nHost: statusd.test\r\n\r\n", path)
	res, err := http.ReadResponse(bufio.NewReaderSize(conn, 4<<10), nil)
	if err != nil {
		done <- rbSlowRead{err: err}
		return
	}
	defer res.Body.Close()
	buf := make([]byte, chunk)
	var body bytes.Buffer
	for {
		n, err := res.Body.Read(buf)
		body.Write(buf[:n])
		if started != nil && body.Len() > 64<<10 {
			close(started)
			started = nil
			if pause == 0 {
				time.Sleep(15 * time.Second) // hold the connection, read nothing more
				done <- rbSlowRead{status: res.StatusCode, body: body.Bytes(), err: errors.New("stalled")}
				return
			}
		}
		if err == io.EOF {
			done <- rbSlowRead{status: res.StatusCode, body: body.Bytes()}
			return
		}
		if err != nil {
			done <- rbSlowRead{status: res.StatusCode, body: body.Bytes(), err: err}
			return
		}
		time.Sleep(pause)
	}
}

// rbExit is how a child process ended, and when.
type rbExit struct {
	err   error
	after time.Duration
}

// rbTerm sends SIGTERM to the server and reports its exit on the channel.
func rbTerm(t *testing.T, srv *replica) (time.Time, <-chan rbExit) {
	t.Helper()
	exited := make(chan rbExit, 1)
	at := time.Now()
	if err := srv.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	go func() {
		err := srv.cmd.Wait()
		exited <- rbExit{err, time.Since(at)}
	}()
	return at, exited
}

// TestRobustGracefulShutdown sends SIGTERM to statusd while a large answer
// is being read slowly and an admin request is still uploading its body:
// both finish with success, new connections are refused at once, and the
// process exits 0 well within the 10 s drain timeout.
func TestRobustGracefulShutdown(t *testing.T) {
	srv, db, big := rbLargeServer(t)
	tok := newToken(t, db, "ops")
	addr := testserver.HostPort(t, srv.URL)

	// The slow reader: about 8 MB/s at most, so a second or so.
	started := make(chan struct{})
	readerDone := make(chan rbSlowRead, 1)
	go rbSlowReader(addr, "/api/v1/notices/999", 16<<10, 2*time.Millisecond, started, readerDone)

	// The slow uploader: half of an admin body now, the rest after SIGTERM.
	upload := fmt.Sprintf(`{"content":"Posted across a shutdown %s."}`, strings.Repeat("z", 1000))
	up, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer up.Close()
	fmt.Fprintf(up, "POST /admin/api/v1/notices/100/updates HTTP/1.1\r\nHost: statusd.test\r\nAuthorization: Bearer %s\r\n"+
		"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", tok, len(upload), upload[:len(upload)/2])

	select {
	case <-started:
	case r := <-readerDone:
		t.Fatalf("the slow reader finished before SIGTERM: %d %v", r.status, r.err)
	case <-time.After(10 * time.Second):
		t.Fatal("the slow reader did not start")
	}
	time.Sleep(100 * time.Millisecond) // the upload is surely being read
	termAt, exited := rbTerm(t, srv)

	// New connections are refused while the two requests drain.
	refused := false
	for time.Since(termAt) < time.Second {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err != nil {
			refused = true
			break
		}
		c.Close()
		time.Sleep(5 * time.Millisecond)
	}
	refusedAfter := time.Since(termAt)
	if !refused {
		t.Errorf("new connections were still accepted a second after SIGTERM")
	}
	select {
	case e := <-exited:
		t.Fatalf("statusd exited (%v) with two requests in flight", e.err)
	default:
	}

	// The upload completes and is answered 201.
	if _, err := io.WriteString(up, upload[len(upload)/2:]); err != nil {
		t.Fatalf("the rest of the upload: %v", err)
	}
	up.SetReadDeadline(time.Now().Add(10 * time.Second))
	res, err := http.ReadResponse(bufio.NewReader(up), nil)
	if err != nil {
		t.Fatalf("the request in flight at SIGTERM got no answer: %v", err)
	}
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode != 201 {
		t.Errorf("the request in flight at SIGTERM: %d %s, want 201", res.StatusCode, b)
	}
	var r rbSlowRead
	select {
	case r = <-readerDone:
	case <-time.After(20 * time.Second):
		t.Fatal("the slow read did not finish")
	}
	var n statusd.NoticeResponse
	if r.err != nil || r.status != 200 {
		t.Errorf("the slow read in flight at SIGTERM: status %d, %d bytes, %v", r.status, len(r.body), r.err)
	} else if err := json.Unmarshal(r.body, &n); err != nil || len(n.Notice.Updates) != rbLargeUpdates || rbJoined(n.Notice.Updates) != big {
		t.Errorf("the slow read in flight at SIGTERM is not the whole notice (%d bytes): %v", len(r.body), err)
	}

	select {
	case e := <-exited:
		if e.err != nil {
			t.Errorf("statusd exited with %v after SIGTERM, want 0\n%s", e.err, srv.Logs)
		}
		if e.after > 10*time.Second {
			t.Errorf("statusd took %v to exit, more than the 10 s drain timeout", e.after)
		}
		t.Logf("after SIGTERM: new connections refused after %v, %d bytes read slowly, exit 0 after %v",
			refusedAfter.Round(time.Millisecond), len(r.body), e.after.Round(time.Millisecond))
	case <-time.After(15 * time.Second):
		t.Fatalf("statusd did not exit within 15 s of SIGTERM\n%s", srv.Logs)
	}
	if logs := srv.Logs.String(); !strings.Contains(logs, "statusd stopped") || strings.Contains(logs, "cut off") {
		t.Errorf("the log does not show a clean stop:\n%s", logs)
	}
	// The write answered during the drain is in the database.
	found := false
	for _, n := range exportDoc(t, db).Notices {
		if n.ID == 100 && strings.HasPrefix(n.Updates[len(n.Updates)-1].Content, "Posted across a shutdown") {
			found = true
		}
	}
	if !found {
		t.Errorf("the update answered 201 during the drain is not in the database")
	}
	rbIntegrity(t, db)
}

// TestRobustShutdownDrainTimeout sends SIGTERM while a client has stopped
// reading a large answer: statusd cuts that connection when the 10 s drain
// timeout ends, says so in its log, and exits 0 at once.
func TestRobustShutdownDrainTimeout(t *testing.T) {
	if testing.Short() {
		t.Skip("waits for the 10 s drain timeout; skipped with -short")
	}
	srv, _, _ := rbLargeServer(t)
	started := make(chan struct{})
	readerDone := make(chan rbSlowRead, 1)
	go rbSlowReader(testserver.HostPort(t, srv.URL), "/api/v1/notices/999", 16<<10, 0, started, readerDone)
	select {
	case <-started:
	case <-time.After(10 * time.Second):
		t.Fatal("the stalled reader did not start")
	}
	_, exited := rbTerm(t, srv)
	select {
	case e := <-exited:
		if e.err != nil {
			t.Errorf("statusd exited with %v, want 0\n%s", e.err, srv.Logs)
		}
		if e.after < 9*time.Second || e.after > 12500*time.Millisecond {
			t.Errorf("statusd exited %v after SIGTERM, want when the 10 s drain timeout ends", e.after)
		}
		t.Logf("with a stalled client, statusd exited %v after SIGTERM", e.after.Round(time.Millisecond))
	case <-time.After(20 * time.Second):
		t.Fatalf("statusd did not exit within 20 s of SIGTERM\n%s", srv.Logs)
	}
	if logs := srv.Logs.String(); !strings.Contains(logs, "cut off") || !strings.Contains(logs, "statusd stopped") {
		t.Errorf("the log does not say that a request was cut off:\n%s", logs)
	}
}

// --- Slow loris --------------------------------------------------------------

// TestRobustSlowLoris holds many connections that send their headers a byte
// at a time, and some that send nothing: normal requests are still answered
// quickly, and every slow connection is dropped after ReadHeaderTimeout (5 s).
func TestRobustSlowLoris(t *testing.T) {
	if testing.Short() {
		t.Skip("takes 7 s; skipped with -short")
	}
	srv := startServer(t, testserver.Fixture(time.Now().UTC().Truncate(time.Second)))
	addr := testserver.HostPort(t, srv.URL)
	const slow, silent = 150, 50
	type drop struct {
		after time.Duration
		err   error
	}
	drops := make(chan drop, slow+silent)
	stop := make(chan struct{})
	defer close(stop)
	for i := range slow + silent {
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		start := time.Now()
		go func() { // notices when the server hangs up
			conn.SetReadDeadline(time.Now().Add(20 * time.Second))
			_, err := io.Copy(io.Discard, conn)
			drops <- drop{time.Since(start), err}
		}()
		if i >= slow {
			continue
		}
		go func() {
			header := "GET /api/v1/status HTTP/1.1\r\nHost: statusd.test\r\nX-Slow: " + strings.Repeat("a", 1000)
			for j := 0; j < len(header); j++ {
				select {
				case <-stop:
					return
				case <-time.After(100 * time.Millisecond):
				}
				if _, err := conn.Write([]byte{header[j]}); err != nil {
					return
				}
			}
		}()
	}

	// Normal requests, each on a new connection, stay quick.
	client := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	var worst time.Duration
	for i := 0; i < 40; i++ {
		start := time.Now()
		res, err := client.Get(srv.URL + "/api/v1/notices?page=1")
		if err != nil {
			t.Fatalf("a normal request under slow loris: %v", err)
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		if res.StatusCode != 200 {
			t.Errorf("a normal request under slow loris: %d", res.StatusCode)
		}
		worst = max(worst, time.Since(start))
		time.Sleep(100 * time.Millisecond)
	}
	if worst > time.Second {
		t.Errorf("the slowest normal request under slow loris took %v", worst)
	}

	var first, last time.Duration
	for i := range slow + silent {
		select {
		case d := <-drops:
			var ne net.Error
			if errors.As(d.err, &ne) && ne.Timeout() {
				t.Fatalf("a slow connection was still open after 20 s")
			}
			if i == 0 || d.after < first {
				first = d.after
			}
			last = max(last, d.after)
		case <-time.After(15 * time.Second):
			t.Fatalf("only %d of %d slow connections were dropped", i, slow+silent)
		}
	}
	if first < 4*time.Second || last > 8*time.Second {
		t.Errorf("slow connections were dropped between %v and %v after they opened, want about 5 s", first, last)
	}
	t.Logf("%d slow-loris and %d silent connections: normal requests took at most %v; every slow one dropped between %v and %v",
		slow, silent, worst.Round(time.Millisecond), first.Round(time.Millisecond), last.Round(time.Millisecond))
}

// --- Secrets in logs ---------------------------------------------------------

// TestRobustTokensNotLogged runs admin requests with valid and invalid
// tokens, in every place a client might put one, at debug level, and checks
// that no secret appears in the log, the CLI's output or the audit log.
func TestRobustTokensNotLogged(t *testing.T) {
	now := time.Now().UTC().Truncate(time.Second)
	db := filepath.Join(t.TempDir(), "statusd.db")
	importDoc(t, db, testserver.Fixture(now))
	out, createErr, err := cli(t, "", "token", "create", "--db", db, "--name", "ops")
	if err != nil {
		t.Fatal(err)
	}
	valid := strings.TrimSpace(out)
	srv := serveDB(t, db, "--log-level", "debug")
	wrong, _ := rbNewSecret()
	revoked := newToken(t, db, "old")
	if _, _, err := cli(t, "", "token", "revoke", "--db", db, "old"); err != nil {
		t.Fatal(err)
	}
	secrets := map[string]string{"valid": valid, "wrong": wrong, "revoked": revoked}

	// send sends a request with auth as its Authorization header (none
	// when "") and the other headers given, and returns the status.
	send := func(method, path, auth, body string, header ...string) int {
		if auth != "" {
			header = append(header, "Authorization", auth)
		}
		return testserver.Fetch(t, method, srv.URL+path, body, header...).Status
	}
	codes := map[int]int{}
	for _, secret := range []string{valid, wrong, revoked} {
		for _, auth := range []string{"Bearer " + secret, "bearer  " + secret + " ", "Basic " + secret, secret, "Token " + secret} {
			codes[send("GET", testserver.AdminRoot+"/page", auth, "")]++
			codes[send("PATCH", testserver.AdminRoot+"/page", auth, `{"name":"Renamed"}`)]++
			codes[send("POST", testserver.AdminRoot+"/notices", auth, `{"type":"general","subject":"S","content":"C"}`)]++
			codes[send("POST", testserver.AdminRoot+"/notices", auth, `{not json`)]++
			codes[send("GET", testserver.AdminRoot+"/nowhere", auth, "")]++
			codes[send("PUT", testserver.AdminRoot+"/page", auth, "")]++
			codes[send("GET", "/api/v1/status", auth, "")]++
		}
		codes[send("GET", testserver.AdminRoot+"/page?token="+secret+"&access_token="+secret, "", "")]++
		codes[send("GET", testserver.AdminRoot+"/page", "", "", "X-Api-Key", secret, "Cookie", "token="+secret)]++
		codes[send("GET", "/api/v1/notices?filter[x]="+secret, "", "")]++
	}
	// Enough wrong tokens to be limited.
	for range 15 {
		codes[send("GET", testserver.AdminRoot+"/page", "Bearer "+wrong, "")]++
	}
	if codes[200] == 0 || codes[401] == 0 || codes[429] == 0 {
		t.Errorf("answers %v: want some 200, 401 and 429", codes)
	}
	logs := srv.Logs.String()
	if !strings.Contains(logs, "level=DEBUG") {
		t.Errorf("the server did not log at debug level; the check means nothing:\n%s", logs)
	}
	audit := srv.Authed("GET", testserver.AdminRoot+"/audit", valid, "")
	list, _, _ := cli(t, "", "token", "list", "--db", db)
	_, auditCLI, _ := cli(t, "", "audit", "--db", db)
	for name, secret := range secrets {
		for where, text := range map[string]string{"the server log": logs, "the audit API": string(audit.Body),
			"token list": list, "statusd audit": auditCLI, "token create's stderr": createErr} {
			for _, s := range []string{secret, strings.TrimPrefix(secret, "sdt_")} {
				if strings.Contains(text, s) {
					t.Errorf("the %s token appears in %s", name, where)
				}
			}
		}
	}
	t.Logf("%d bytes of debug log, answers %v, no secret in them", len(logs), codes)
}

// rbNewSecret returns a token secret that no database holds.
func rbNewSecret() (string, error) {
	b := make([]byte, 24)
	for i := range b {
		b[i] = "abcdefghijklmnopqrstuvwxyz0123456789"[rand.IntN(36)]
	}
	return "sdt_" + string(b), nil
}

// --- Bad input ---------------------------------------------------------------

// rbInjections are strings that break SQL built by concatenation.
var rbInjections = []string{
	`'; DROP TABLE notices; --`,
	`" OR 1=1 --`,
	`1 OR 1=1`,
	`1; DELETE FROM updates`,
	`x' UNION SELECT hash, name FROM tokens --`,
	`Robert'); DROP TABLE components;--`,
	`%' OR '%'='`,
	`\'; SELECT sqlite_version(); --`,
}

// TestRobustBadInput sends hostile input everywhere: SQL injection strings in
// every filter and admin body, path traversal attempts, ids beyond int64,
// huge page numbers and invalid UTF-8. Nothing answers 500, no file leaks,
// stored strings come back verbatim and the tables stay intact.
func TestRobustBadInput(t *testing.T) {
	srv := startServer(t, testserver.Fixture(time.Now().UTC().Truncate(time.Second)))
	tok := newToken(t, srv.DB, "ops")
	tables := rbTables(t, srv.DB)
	notices0 := len(exportDoc(t, srv.DB).Notices)

	// A 5xx, or anything but JSON from the API, fails.
	check := func(t *testing.T, what string, r testserver.Response, lo, hi int) {
		t.Helper()
		if r.Status < lo || r.Status > hi {
			t.Errorf("%s: status %d, want %d..%d: %.300s", what, r.Status, lo, hi, r.Body)
		}
		if !strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") {
			t.Errorf("%s: Content-Type %q, want JSON", what, r.Header.Get("Content-Type"))
		}
	}

	t.Run("sql injection in filters", func(t *testing.T) {
		srv := srv.In(t)
		keys := []string{"filter[type_eq]", "filter[type_in][]", "filter[timeline_state_eq]", "filter[timeline_state_in][]",
			"filter[metrics_component_id]", "filter[impact_timeframe_overlaps][]", "filter[parent_id_eq]",
			"filter[parent_id_null]", "filter[unknown]", "page", "timeframe_start", "timeframe_end", "show_calculations"}
		for _, inj := range rbInjections {
			for _, key := range keys {
				q := url.Values{key: {inj}}.Encode()
				for _, path := range []string{"/api/v1/notices", "/api/v1/components", "/api/v1/components/10/metrics"} {
					r := srv.Do("GET", path+"?"+q)
					check(t, path+"?"+q, r, 200, 400)
				}
				r := srv.Do("GET", "/api/v1/notices?"+url.Values{inj: {"1"}}.Encode())
				check(t, "injection as a key", r, 200, 400)
				if r.Status == 200 && r.Header.Get("X-Ignored-Filters") != "" && strings.ContainsAny(r.Header.Get("X-Ignored-Filters"), "\r\n") {
					t.Errorf("a header carries a line break")
				}
			}
			for _, p := range []string{"/", "/history", "/history.atom", "/notices/100", "/components/10/metrics"} {
				if r := srv.Do("GET", p+"?"+url.Values{"page": {inj}, "filter[type_eq]": {inj}}.Encode()); r.Status >= 500 {
					t.Errorf("%s with injections: %d", p, r.Status)
				}
			}
		}
		// A header injection through an ignored key.
		r := srv.Do("GET", "/api/v1/notices?filter[a%0d%0aSet-Cookie:%20x=1]=1")
		if r.Header.Get("Set-Cookie") != "" {
			t.Errorf("a filter key set a header: %q", r.Header.Get("Set-Cookie"))
		}
	})

	t.Run("sql injection in admin bodies", func(t *testing.T) {
		srv := srv.In(t)
		adm, ctx := srv.Admin(tok), context.Background()
		for i, inj := range rbInjections {
			name := fmt.Sprintf("%s %d", inj, i)
			c, err := adm.CreateComponent(ctx, statusd.AdminComponentRequest{Name: &name, Description: &inj})
			testserver.NoErr(t, "POST /components", err)
			if c.Name != name || c.Description != inj {
				t.Errorf("component: %q %q, want %q %q", c.Name, c.Description, name, inj)
			}
			n, err := adm.CreateNotice(ctx, statusd.AdminNoticeRequest{Type: testserver.Ptr("unplanned"), Subject: &inj, Content: &inj,
				TagList: &[]string{inj}, ComponentIDs: &[]int64{c.ID}})
			testserver.NoErr(t, "POST /notices", err)
			pub := srv.Notice(n.ID)
			if pub.Subject != inj || len(pub.Updates) != 1 || pub.Updates[0].Content != inj || !slices.Equal(pub.TagList, []string{inj}) {
				t.Errorf("notice %d does not give back %q verbatim: %+v", n.ID, inj, testserver.Normalize(t, pub))
			}
			_, err = adm.PostUpdate(ctx, n.ID, statusd.AdminUpdateRequest{Content: &inj})
			testserver.NoErr(t, "POST /notices/{id}/updates", err)
			p, err := adm.UpdatePage(ctx, statusd.AdminPageRequest{Name: &inj})
			testserver.NoErr(t, "PATCH /page", err)
			if p.Name != inj {
				t.Errorf("page name %q, want %q", p.Name, inj)
			}
		}
		// Injections where ids and enums go are refused, not run.
		for _, body := range []string{`{"type":"unplanned; DROP TABLE notices","subject":"s","content":"c"}`,
			`{"type":"unplanned","subject":"s","content":"c","component_ids":["1 OR 1=1"]}`,
			`{"type":"unplanned","subject":"s","content":"c","state":"resolved' --"}`} {
			testserver.AssertError(t, "POST "+body, srv.Authed("POST", testserver.AdminRoot+"/notices", tok, body), 422, "invalid_field")
		}
		testserver.AssertError(t, "admin id with an injection", srv.Authed("GET", testserver.AdminRoot+"/notices/1%20OR%201=1", tok, ""), 400, "invalid_parameter")
		if got := rbTables(t, srv.DB); !slices.Equal(got, tables) {
			t.Errorf("tables %v, were %v", got, tables)
		}
		doc := exportDoc(t, srv.DB)
		if len(doc.Notices) != notices0+len(rbInjections) {
			t.Errorf("%d notices, want %d", len(doc.Notices), notices0+len(rbInjections))
		}
		rbIntegrity(t, srv.DB)
	})

	t.Run("path traversal", func(t *testing.T) {
		srv := srv.In(t)
		targets := []string{
			"/api/v1/notices/..%2f..%2fetc%2fpasswd", "/api/v1/notices/..%2F..%2F..%2Fetc%2Fpasswd",
			"/../../etc/passwd", "/api/v1/../../../etc/passwd", "/assets/..%2f..%2f..%2fetc%2fpasswd",
			"/assets/%2e%2e/%2e%2e/%2e%2e/etc/passwd", "/assets/..%5c..%5cetc%5cpasswd", "/assets/....//....//etc/passwd",
			"/assets/%252e%252e%252fetc%252fpasswd", "/assets/..%2ftemplates%2flayout.html", "/assets/..%2fweb.go",
			"/assets/%2e%2e%2fassets.go", "/assets//etc/passwd", "/assets/style.css%00.go", "/assets/style.css/../../go.mod",
			"/favicon.ico/..%2f..%2fgo.mod", "/notices/..%2f..%2fetc%2fpasswd", "/components/..%2f..%2f/metrics",
			"/admin/api/v1/../../../etc/passwd", "/api/notices/..%2f1", "/etc/passwd", "/go.mod", "/.git/config",
			"/statusd.db", "/" + filepath.Base(srv.DB), "/api/v1/notices/%00", "/api/v1/components/1%00/metrics",
		}
		for _, target := range targets {
			status, header, body := testserver.RawGet(t, srv.URL, target)
			for hop := 0; status >= 300 && status < 400 && hop < 3; hop++ {
				loc := header.Get("Location")
				if !strings.HasPrefix(loc, "/") || strings.HasPrefix(loc, "//") {
					t.Errorf("%s redirects off the site to %q", target, loc)
					break
				}
				status, header, body = testserver.RawGet(t, srv.URL, loc)
			}
			if status < 400 || status > 499 {
				t.Errorf("GET %s: %d, want 4xx", target, status)
			}
			for _, leak := range []string{"root:x:0:0", "package web", "{{define", "module github.com", "[core]", "SQLite format"} {
				if strings.Contains(body, leak) {
					t.Errorf("GET %s leaks %q", target, leak)
				}
			}
		}
	})

	t.Run("ids beyond int64", func(t *testing.T) {
		srv := srv.In(t)
		for _, id := range []string{"9223372036854775808", "99999999999999999999999999", "18446744073709551616"} {
			for _, p := range []string{"/api/v1/notices/", "/v1/notices/", "/api/notices/"} {
				testserver.AssertErrorBody(t, p+id, srv.Do("GET", p+id), 404, "not_found")
			}
			testserver.AssertErrorBody(t, "metrics of "+id, srv.Do("GET", "/api/v1/components/"+id+"/metrics"), 404, "not_found")
			for _, m := range []string{"GET", "PATCH", "DELETE"} {
				for p, body := range map[string]string{"/notices/": `{"subject":"x"}`, "/components/": `{"name":"x"}`} {
					testserver.AssertError(t, m+" admin "+p+id, srv.Authed(m, testserver.AdminRoot+p+id, tok, body), 404, "not_found")
				}
			}
			testserver.AssertError(t, "update of "+id, srv.Authed("POST", testserver.AdminRoot+"/notices/"+id+"/updates", tok, `{"content":"x"}`), 404, "not_found")
			if r := srv.Do("GET", "/notices/"+id); r.Status != 404 {
				t.Errorf("the page of notice %s: %d, want 404", id, r.Status)
			}
			// A filter value is not an id of the path: not an integer, 400
			// (CONTRACT C2); in a body, a field that is not an int64, 422.
			testserver.AssertErrorBody(t, "parent_id_eq "+id, srv.Do("GET", "/api/v1/components?filter[parent_id_eq]="+id), 400, "invalid_parameter")
			r := srv.Authed("POST", testserver.AdminRoot+"/notices", tok, `{"type":"general","subject":"s","content":"c","component_ids":[`+id+`]}`)
			testserver.AssertError(t, "component_ids "+id, r, 422, "invalid_field")
			r = srv.Authed("POST", testserver.AdminRoot+"/components", tok, `{"name":"n","parent_id":`+id+`,"position":`+id+`}`)
			testserver.AssertError(t, "parent_id "+id, r, 422, "invalid_field")
		}
		// Integers no record can have are not found; other text is not an id.
		for _, id := range []string{"-1", "0", "-9223372036854775808"} {
			testserver.AssertErrorBody(t, "notice "+id, srv.Do("GET", "/api/v1/notices/"+id), 404, "not_found")
		}
		for _, id := range []string{"1e3", "0x10", "%2B1", "%20"} {
			testserver.AssertErrorBody(t, "notice "+id, srv.Do("GET", "/api/v1/notices/"+id), 400, "invalid_parameter")
		}
	})

	t.Run("huge page numbers", func(t *testing.T) {
		srv := srv.In(t)
		for _, page := range []string{"9223372036854775807", "9223372036854775806", "4611686018427387904", "368934881474191034", "99999999999999999999999"} {
			for _, p := range []string{"/api/v1/notices", "/api/v1/components", "/v1/notices?filter[type_eq]=general&"} {
				sep := "?"
				if strings.HasSuffix(p, "&") {
					sep = ""
				}
				r := srv.Get(p+sep+"page="+page, 200)
				if testserver.At(t, r.JSON, "meta.count") != 0.0 || testserver.At(t, r.JSON, "meta.next_page") != nil {
					t.Errorf("%s page %s: %s", p, page, r.Body)
				}
			}
			for _, p := range []string{"/notices", "/audit"} {
				// One page rule for both APIs (statusd.ParsePage): past
				// the end, an empty 200.
				r := srv.Authed("GET", testserver.AdminRoot+p+"?page="+page, tok, "")
				if r.Status != 200 || testserver.At(t, r.JSON, "meta.count") != 0.0 || testserver.At(t, r.JSON, "meta.next_page") != nil {
					t.Errorf("admin %s page %s: %d %s, want an empty 200", p, page, r.Status, r.Body)
				}
			}
			if r := srv.Do("GET", "/history?page="+page); r.Status >= 500 {
				t.Errorf("/history page %s: %d", page, r.Status)
			}
		}
	})

	t.Run("size limits", func(t *testing.T) {
		srv := srv.In(t)
		// Headers past MaxHeaderBytes (64 KiB) answer 431; an admin body
		// past 1 MiB answers 413 too_large and writes nothing.
		if r := srv.Do("GET", "/api/v1/status", "X-Big", strings.Repeat("a", 100<<10)); r.Status != 431 {
			t.Errorf("a 100 KiB header: %d, want 431", r.Status)
		}
		body := `{"type":"general","subject":"big","content":"` + strings.Repeat("x", 2<<20) + `"}`
		testserver.AssertError(t, "a 2 MiB admin body", srv.Authed("POST", testserver.AdminRoot+"/notices", tok, body), 413, "too_large")
		if n := len(exportDoc(t, srv.DB).Notices); n != notices0+len(rbInjections) {
			t.Errorf("%d notices after a refused large body", n)
		}
	})

	t.Run("invalid utf-8", func(t *testing.T) {
		srv := srv.In(t)
		for _, q := range []string{"filter[type_eq]=%ff", "filter[type_eq]=unplanned%c3%28", "filter[%ff%fe]=1", "page=%ff",
			"filter[timeline_state_in][]=%ed%a0%80", "timeframe_start=%c0%af", "filter[impact_timeframe_overlaps][]=%ff&filter[impact_timeframe_overlaps][]=%fe",
			"%ff=%ff", "filter[parent_id_eq]=%c3"} {
			for _, p := range []string{"/api/v1/notices", "/api/v1/components", "/api/v1/components/10/metrics"} {
				r := srv.Do("GET", p+"?"+q)
				check(t, p+"?"+q, r, 200, 400)
				if !json.Valid(r.Body) {
					t.Errorf("%s?%s: the answer is not valid JSON", p, q)
				}
			}
			if r := srv.Do("GET", "/history?"+q); r.Status >= 500 {
				t.Errorf("/history?%s: %d", q, r.Status)
			}
		}
		// Raw bytes in the request line.
		status, _, _ := testserver.RawGet(t, srv.URL, "/api/v1/notices?filter[type_eq]=\xff\xfe")
		if status >= 500 {
			t.Errorf("raw invalid UTF-8 in the query: %d", status)
		}
		// Admin bodies: bytes that are not UTF-8 in a key or a string are a
		// bad field, 422 naming it; outside any string the body is not
		// JSON, 400. An escaped lone surrogate is valid JSON, which
		// encoding/json reads as U+FFFD, as an import does: stored so.
		for _, c := range []struct {
			body   string
			status int
			code   string
			msg    string // the start of the message
		}{
			{"{\"type\":\"general\",\"subject\":\"bad \xff\xfe\",\"content\":\"c\"}", 422, "invalid_field", "subject: "},
			{"{\"type\":\"general\",\"subject\":\"overlong \xc0\xaf\",\"content\":\"c\"}", 422, "invalid_field", "subject: "},
			{"{\"type\":\"general\",\"subject\":\"surrogate \xed\xa0\x80\",\"content\":\"c\"}", 422, "invalid_field", "subject: "},
			{"{\"type\":\"general\",\"subject\":\"s\",\"content\":\"c\",\"tag_list\":[\"ok\",\"b\xffd\"]}", 422, "invalid_field", "tag_list[1]: "},
			{"{\"type\":\"general\",\"subj\xffect\":\"s\",\"content\":\"c\"}", 422, "invalid_field", "subj\uFFFDect: "},
			{"{\"type\":\"gen\xffral\",\"subject\":\"s\",\"content\":\"c\"}", 422, "invalid_field", "type: "},
			{"\xff\xfe{}", 400, "invalid_body", "the body is not valid UTF-8"},
		} {
			what := fmt.Sprintf("POST %q", c.body)
			r := srv.Authed("POST", testserver.AdminRoot+"/notices", tok, c.body)
			testserver.AssertError(t, what, r, c.status, c.code)
			if msg := testserver.ErrorMessage(r); !strings.HasPrefix(msg, c.msg) {
				t.Errorf("%s: message %q, want it to start with %q", what, msg, c.msg)
			}
		}
		r := srv.AdminOK("POST", "/notices", tok, "{\"type\":\"general\",\"subject\":\"escaped \\ud800\",\"content\":\"c\"}", 201)
		if r["subject"] != "escaped \uFFFD" {
			t.Errorf("an escaped lone surrogate is stored as %q, want U+FFFD", r["subject"])
		}
		doc := exportDoc(t, srv.DB)
		for _, n := range doc.Notices {
			if !utf8.ValidString(n.Subject) {
				t.Errorf("notice %d stores invalid UTF-8: %q", n.ID, n.Subject)
			}
		}
	})
}

// --- A 100 MB import ---------------------------------------------------------

// rbWriteBigDoc writes a valid import document of at least size bytes: many
// unplanned notices with long updates. It returns the number of notices.
func rbWriteBigDoc(t *testing.T, path string, size int64) int {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w := bufio.NewWriterSize(f, 1<<20)
	tm := func(tt time.Time) string { return tt.UTC().Format(statusd.TimeLayout) }
	base := time.Now().UTC().Add(-300 * 24 * time.Hour).Truncate(time.Second)
	fmt.Fprintf(w, `{"page":{"name":"Big","url":"https://big.test","created_at":%q},"components":[`, tm(base))
	for i := 1; i <= 20; i++ {
		if i > 1 {
			w.WriteString(",")
		}
		fmt.Fprintf(w, `{"id":%d,"name":"Component %d","metrics_enabled":true,"created_at":%q}`, i, i, tm(base))
	}
	w.WriteString(`],"notices":[`)
	words := strings.Fields("the api is slow again because a database replica fell behind and we are moving traffic away from it while it catches up")
	var written int64
	n := 0
	for ; written < size; n++ {
		if n > 0 {
			w.WriteString(",")
		}
		at := base.Add(time.Duration(n) * time.Minute)
		var sb strings.Builder
		states := []string{"investigating", "identified", "recovering", "resolved"}
		for j, st := range states {
			var content strings.Builder
			for content.Len() < 6000 {
				content.WriteString(words[rand.IntN(len(words))])
				content.WriteString(" ")
			}
			c, _ := json.Marshal(content.String())
			if j > 0 {
				sb.WriteString(",")
			}
			fmt.Fprintf(&sb, `{"state":%q,"content":%s,"created_at":%q}`, st, c, tm(at.Add(time.Duration(j)*10*time.Second)))
		}
		rec := fmt.Sprintf(`{"id":%d,"type":"unplanned","subject":"Incident %d","component_ids":[%d],"tag_list":["big"],"created_at":%q,"updates":[%s]}`,
			n+1, n+1, 1+n%20, tm(at), sb.String())
		w.WriteString(rec)
		written += int64(len(rec)) + 1
	}
	w.WriteString("]}\n")
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestRobustHugeImport imports a 100 MB document, generated on the fly,
// through a real statusd import process, and serves it: it imports whole,
// within bounds of time and memory, or is refused with a clear message.
func TestRobustHugeImport(t *testing.T) {
	if testing.Short() {
		t.Skip("writes and imports 100 MB; skipped with -short")
	}
	if rbRace() {
		t.Skip("measures memory and time, which mean nothing under -race; run without it")
	}
	dir := t.TempDir()
	doc := filepath.Join(dir, "big.json")
	notices := rbWriteBigDoc(t, doc, 100<<20)
	fi, _ := os.Stat(doc)
	db := filepath.Join(dir, "big.db")
	cmd := statusdCmd("import", "--db", db, doc)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	start := time.Now()
	err := cmd.Run()
	took := time.Since(start)
	rss := rbMaxRSS(cmd)
	size := float64(fi.Size()) / (1 << 20)
	t.Logf("import of %.1f MB (%d notices, %d updates): %v, exit %v, peak RSS %.0f MB; %s",
		size, notices, 4*notices, took.Round(time.Millisecond), err, rss, strings.TrimSpace(stderr.String()))
	if err != nil {
		// A refusal must say why, in a line a person can read.
		if msg := stderr.String(); !strings.Contains(msg, "statusd:") || len(msg) > 4000 {
			t.Errorf("the import failed without a clear message: %v\n%.4000s", err, msg)
		}
		return
	}
	if !strings.Contains(stderr.String(), fmt.Sprintf("%d notices", notices)) {
		t.Errorf("import reported %q", stderr.String())
	}
	// Generous bounds: the whole document is decoded in memory once (3.3
	// times its size when this was written).
	if rss > 8*size {
		t.Errorf("peak RSS %.0f MB for a %.0f MB document", rss, size)
	}
	if took > 3*time.Minute {
		t.Errorf("the import took %v", took)
	}
	rbIntegrity(t, db)

	// A server on it starts and answers.
	start = time.Now()
	srv := startReplica(t, db, "--rate-limit", "0")
	startup := time.Since(start)
	ctx := context.Background()
	r, err := srv.API.Notices(ctx, client.NoticeQuery{Types: []statusd.NoticeType{statusd.Unplanned}, Page: 3})
	testserver.NoErr(t, "GET /api/v1/notices?filter[type_eq]=unplanned&page=3", err)
	if total := r.Meta.TotalCount; total != notices {
		t.Errorf("the server counts %v notices, want %d", total, notices)
	}
	srv.Notice(int64(notices / 2))
	_, err = srv.API.Metrics(ctx, 1, client.MetricsQuery{})
	testserver.NoErr(t, "GET /api/v1/components/1/metrics", err)
	st, _ := rbProc(srv.cmd.Process.Pid)
	t.Logf("a server on it started in %v and holds %d MB resident", startup.Round(time.Millisecond), st.rssKB/1024)
}

// --- Soak --------------------------------------------------------------------

// TestRobustSoak runs 60 seconds of mixed reads and writes through a real
// statusd process and checks that its memory, threads and open files stay
// flat: the average of the last 10 seconds against the first 10. It runs
// only with STATUSD_SOAK=1 (and not with -short).
func TestRobustSoak(t *testing.T) {
	if testing.Short() {
		t.Skip("the soak test takes a minute; skipped with -short")
	}
	if os.Getenv("STATUSD_SOAK") != "1" {
		t.Skip("the soak test takes a minute; run it with STATUSD_SOAK=1 go test -run Soak ./cmd/statusd")
	}
	duration := 60 * time.Second
	if d, err := time.ParseDuration(os.Getenv("STATUSD_SOAK_DURATION")); err == nil && d >= 30*time.Second {
		duration = d
	}
	now := time.Now().UTC().Truncate(time.Second)
	db := filepath.Join(t.TempDir(), "statusd.db")
	importDoc(t, db, impBigFixture(now))
	tok := newToken(t, db, "ops")
	srv := startReplica(t, db, "--rate-limit", "0")
	pid := srv.cmd.Process.Pid

	ctx, cancel := context.WithTimeout(context.Background(), duration)
	defer cancel()
	var reads, writes, failures atomic.Int64
	var firstFailure atomic.Value
	fail := func(format string, args ...any) {
		failures.Add(1)
		firstFailure.CompareAndSwap(nil, fmt.Sprintf(format, args...))
	}
	paths := []string{"/api/v1/status", "/api/v1/components", "/api/v1/notices", "/api/v1/notices?page=2",
		"/api/v1/notices?filter[type_eq]=unplanned", "/api/v1/notices?filter[timeline_state_eq]=past",
		"/api/v1/notices/100", "/api/v1/components/10/metrics?show_calculations=true", "/v1/components",
		"/api/v1/nowhere", "/", "/history", "/notices/102", "/history.atom"}
	keepAlive := &http.Client{Timeout: 10 * time.Second}
	fresh := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	var wg sync.WaitGroup
	for r := 0; r < 4; r++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			client := keepAlive
			if r == 3 {
				client = fresh // a new connection each time
			}
			for i := 0; ctx.Err() == nil; i++ {
				p := paths[rand.IntN(len(paths))]
				res, err := client.Get(srv.URL + p)
				if err != nil {
					if ctx.Err() == nil {
						fail("GET %s: %v", p, err)
					}
					continue
				}
				io.Copy(io.Discard, res.Body)
				res.Body.Close()
				if res.StatusCode >= 500 || (res.StatusCode != 200 && p != "/api/v1/nowhere") {
					fail("GET %s: %d", p, res.StatusCode)
				}
				reads.Add(1)
			}
		}()
	}
	// The writer keeps the data about the same size: each notice it creates
	// it also deletes.
	wg.Add(1)
	go func() {
		defer wg.Done()
		adm := srv.Admin(tok)
		// wrote counts a write, or the failure of one (what).
		wrote := func(what string, err error) bool {
			if err != nil {
				if ctx.Err() == nil {
					fail("%s: %v", what, err)
				}
				return false
			}
			writes.Add(1)
			return true
		}
		for i := 0; ctx.Err() == nil; i++ {
			n, err := adm.CreateNotice(ctx, statusd.AdminNoticeRequest{Type: testserver.Ptr("unplanned"), Subject: testserver.Ptr(fmt.Sprintf("Soak %d", i)),
				Content: testserver.Ptr("Start."), ComponentIDs: &[]int64{11}})
			if !wrote("POST /notices", err) {
				continue
			}
			_, err = adm.PostUpdate(ctx, n.ID, statusd.AdminUpdateRequest{Content: testserver.Ptr("Found it."), State: testserver.Ptr("identified")})
			wrote("POST /notices/{id}/updates", err)
			_, err = adm.UpdateNotice(ctx, n.ID, statusd.AdminNoticeRequest{Subject: testserver.Ptr(fmt.Sprintf("Soak %d, renamed", i))})
			wrote("PATCH /notices/{id}", err)
			_, err = adm.UpdatePage(ctx, statusd.AdminPageRequest{Name: testserver.Ptr(fmt.Sprintf("Acme Status %d", i%7))})
			wrote("PATCH /page", err)
			wrote("DELETE /notices/{id}", adm.DeleteNotice(ctx, n.ID))
			time.Sleep(20 * time.Millisecond)
		}
	}()

	type sample struct {
		at time.Duration
		rbStat
		goroutines int // from /metrics; -1 when it does not say
	}
	var samples []sample
	start := time.Now()
	tick := time.NewTicker(500 * time.Millisecond)
	for ctx.Err() == nil {
		select {
		case <-ctx.Done():
		case <-tick.C:
			st, err := rbProc(pid)
			if err != nil {
				t.Fatalf("reading /proc/%d: %v", pid, err)
			}
			goroutines := -1
			if g, ok := testserver.MetricValue(testserver.Scrape(t, srv.URL, tok), "go_goroutines"); ok {
				goroutines = int(g)
			}
			samples = append(samples, sample{time.Since(start), st, goroutines})
		}
	}
	tick.Stop()
	wg.Wait()
	avg := func(from, to time.Duration) (rss, threads, fds, gs float64) {
		n := 0.0
		for _, s := range samples {
			if s.at >= from && s.at < to {
				rss, threads, fds, gs, n = rss+float64(s.rssKB)/1024, threads+float64(s.threads), fds+float64(s.fds), gs+float64(s.goroutines), n+1
			}
		}
		return rss / n, threads / n, fds / n, gs / n
	}
	end := samples[len(samples)-1].at
	rss0, th0, fd0, g0 := avg(0, 10*time.Second)
	rss1, th1, fd1, g1 := avg(end-10*time.Second, end+time.Second)
	peak := 0
	for _, s := range samples {
		peak = max(peak, s.rssKB)
	}
	t.Logf("soak %v: %d reads, %d writes (%.0f requests/s), %d failures; RSS %.1f -> %.1f MB (peak %.1f), threads %.1f -> %.1f, open files %.1f -> %.1f, goroutines %.1f -> %.1f",
		duration, reads.Load(), writes.Load(), float64(reads.Load()+writes.Load())/duration.Seconds(), failures.Load(),
		rss0, rss1, float64(peak)/1024, th0, th1, fd0, fd1, g0, g1)
	if g0 < 0 || g1 < 0 {
		t.Logf("/metrics does not give go_goroutines: goroutines not checked")
	} else if g1 > g0+25 {
		t.Errorf("goroutines grew from %.1f to %.1f", g0, g1)
	}
	if f := failures.Load(); f > 0 {
		t.Errorf("%d requests failed; the first: %v", f, firstFailure.Load())
	}
	if reads.Load() < 1000 || writes.Load() < 100 {
		t.Errorf("too little load to mean anything: %d reads, %d writes", reads.Load(), writes.Load())
	}
	if rss1 > rss0*1.5+16 {
		t.Errorf("resident memory grew from %.1f MB to %.1f MB", rss0, rss1)
	}
	if th1 > th0+8 {
		t.Errorf("threads grew from %.1f to %.1f", th0, th1)
	}
	if fd1 > fd0+20 {
		t.Errorf("open files grew from %.1f to %.1f", fd0, fd1)
	}
}
