package main

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/statusd/statusd/client"
	"github.com/statusd/statusd/internal/mirror"
	"github.com/statusd/statusd/internal/testenv"
	"github.com/statusd/statusd/internal/testserver"
)

// TestMirrorKilled kills statusd with SIGKILL after it put a change's
// files to S3 and before mirror.json (whose PUT the server refuses): the
// bucket keeps the previous copy whole, and a new statusd catches it up
// once the dead one's claim on the bucket ran out (30 s).
func TestMirrorKilled(t *testing.T) {
	if testing.Short() {
		t.Skip("waits 30 s for a dead process's claim to run out")
	}
	s3 := testenv.S3(t, "copy")
	t.Setenv("AWS_ACCESS_KEY_ID", s3.AccessKey)
	t.Setenv("AWS_SECRET_ACCESS_KEY", s3.SecretKey)
	db := filepath.Join(t.TempDir(), "statusd.db")
	importDoc(t, db, testserver.Fixture(time.Now()))
	tok := newToken(t, db, "ops")
	flags := []string{"--mirror", "s3://copy/site", "--mirror-endpoint", s3.URL}
	rep := startReplica(t, db, flags...)
	pub := testserver.MirrorKey(t, db)
	bucket, err := mirror.Open("s3://copy/site", mirror.Options{Endpoint: s3.URL, AccessKey: s3.AccessKey, SecretKey: s3.SecretKey})
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the first copy", 20*time.Second, func() bool { _, _, ok := s3.Object("site/mirror.json"); return ok })
	first := testserver.MirrorCopy(t, bucket, pub)

	s3.RefusePut("site/mirror.json")
	rep.AdminOK(http.MethodPatch, "/page", tok, `{"name":"Acme Status, moved"}`, http.StatusOK)
	waitFor(t, "the refused manifest", 20*time.Second, func() bool { return strings.Contains(rep.Logs.String(), "mirror: push failed") })
	if err := rep.cmd.Process.Kill(); err != nil { // SIGKILL
		t.Fatal(err)
	}
	rep.cmd.Wait()
	var blobs int
	for key := range s3.Puts() {
		if strings.HasPrefix(key, "site/_blobs/") {
			blobs++
		}
	}
	if blobs == 0 {
		t.Fatalf("no changed file was put before the manifest: %v", s3.Puts())
	}
	if man := testserver.MirrorCopy(t, bucket, pub); man.Sequence != first.Sequence {
		t.Errorf("the manifest after the kill: sequence %d, want the previous %d", man.Sequence, first.Sequence)
	}
	status, _, _ := s3.Object("site/api/v1/status")
	if strings.Contains(string(status), "moved") {
		t.Errorf("the previous copy's /api/v1/status has the change before its manifest: %s", status)
	}

	s3.RefusePut("")
	rep = startReplica(t, db, flags...)
	waitFor(t, "the copy caught up", 60*time.Second, func() bool {
		man, err := testserver.ReadMirror(bucket, pub)
		if err != nil {
			return false
		}
		body, _ := bucket.Get(context.Background(), man.Files["/api/v1/status"].Key)
		return man.Sequence > first.Sequence && strings.Contains(string(body), `"name":"Acme Status, moved"`)
	})
	live := rep.Get("/api/v1/status", http.StatusOK)
	man := testserver.MirrorCopy(t, bucket, pub)
	if body, _ := bucket.Get(context.Background(), man.Files["/api/v1/status"].Key); string(body) != string(live.Body) {
		t.Errorf("the copy's /api/v1/status:\n%s\nlive:\n%s", body, live.Body)
	}
}

// waitFor polls ok for at most d.
func waitFor(t *testing.T, what string, d time.Duration, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not after %v", what, d)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestMirrorOutlivesTheOrigin: the demo page (40 notices, two pages of
// them) is pushed to a folder; the origin is killed; statusd serve
// --from-mirror on that folder, checking the signature with the key that
// statusd mirror key printed, answers what Sorry's and Statuspage's
// clients ask for, page 2 included, and refuses writes.
func TestMirrorOutlivesTheOrigin(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(t.TempDir(), "statusd.db")
	origin := startReplica(t, db, "--demo", "--mirror", "file://"+dir)
	waitFor(t, "the first copy", 20*time.Second, func() bool {
		_, err := os.Stat(filepath.Join(dir, mirror.SignatureKey))
		return err == nil
	})
	pem, stderr, err := cli(t, "", "mirror", "key", "--db", db)
	if err != nil {
		t.Fatalf("mirror key: %v\n%s", err, stderr)
	}
	keyFile := filepath.Join(t.TempDir(), "key.pem")
	if err := os.WriteFile(keyFile, []byte(pem), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := origin.cmd.Process.Kill(); err != nil { // SIGKILL
		t.Fatal(err)
	}
	origin.cmd.Wait()

	out, stderr, err := cli(t, "", "mirror", "verify", "file://"+dir, "--key", keyFile)
	if err != nil || !strings.Contains(out, "every hash matches") || !strings.Contains(out, ": fresh") {
		t.Fatalf("mirror verify: %v\n%s%s", err, out, stderr)
	}
	cp := serveDB(t, filepath.Join(t.TempDir(), "none.db"), "--from-mirror", "file://"+dir, "--mirror-key", keyFile)
	testserver.WaitLog(t, cp.Logs, `msg="serving a copy of the mirror"`)
	ctx := context.Background()

	// Sorry's clients: the status, the top-level components, the
	// notices under way, and every notice, page after page.
	page, err := cp.API.Status(ctx)
	if err != nil || page.Name != "Northwind Cloud Status" {
		t.Errorf("the copy's status: %+v %v", page, err)
	}
	top := true
	comps, err := cp.API.Components(ctx, client.ComponentQuery{ParentIDNull: &top})
	if err != nil || comps.Meta.TotalCount == 0 {
		t.Errorf("the copy's top-level components: %+v %v", comps, err)
	}
	var ids []int64
	for n, err := range cp.API.AllNotices(ctx, client.NoticeQuery{}) {
		if err != nil {
			t.Fatalf("the copy's notices: %v", err)
		}
		ids = append(ids, n.ID)
	}
	slices.Sort(ids)
	if len(ids) != 40 || len(slices.Compact(ids)) != 40 {
		t.Errorf("the copy's notices, followed page by page: %d, want the demo's 40 once each", len(ids))
	}
	if _, err := cp.API.Notice(ctx, ids[0]); err != nil {
		t.Errorf("the copy's notice %d: %v", ids[0], err)
	}
	// A client that writes the brackets raw, in another order, with a
	// cache buster.
	r := cp.Get("/api/v1/notices?_=1&filter[timeline_state_eq]=present", http.StatusOK)
	if r.JSON.(map[string]any)["meta"] == nil {
		t.Errorf("the present notices: %s", r.Body)
	}
	// Statuspage's clients.
	for _, path := range []string{"/api/v2/summary.json", "/api/v2/status.json", "/api/v2/components.json",
		"/api/v2/incidents/unresolved.json", "/api/v2/scheduled-maintenances/upcoming.json"} {
		if r := cp.Get(path, http.StatusOK); !strings.Contains(string(r.Body), `"page":{`) {
			t.Errorf("%s: %s", path, r.Body)
		}
	}
	// People: the page, with the copy's freshness check.
	if r := cp.Get("/", http.StatusOK); !strings.Contains(string(r.Body), `data-mirror="/mirror.json"`) {
		t.Errorf("the copy's home page lacks its freshness check")
	}
	testserver.AssertError(t, "a write to the copy", cp.Do(http.MethodPost, "/api/v1/notices"), http.StatusMethodNotAllowed, "method_not_allowed")
	testserver.AssertError(t, "the admin API of the copy", cp.Do(http.MethodGet, "/admin/api/v1/page"), http.StatusNotFound, "not_found")
}
