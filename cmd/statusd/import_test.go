package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/internal/testserver"
)

// Black-box tests of CONTRACT C5 through the real import and export
// commands and the real server.

// impInvalidDoc has exactly three problems, one of each kind of rule.
const impInvalidDoc = `{
  "page": {"name": "", "url": "https://broken.acme.test", "created_at": "2026-01-01T00:00:00.000Z"},
  "components": [{"id": 1, "name": "API", "parent_id": 5, "created_at": "2026-01-01T00:00:00.000Z"}],
  "notices": [
    {"id": 1, "type": "unplanned", "subject": "Down", "created_at": "2026-02-01T10:00:00.000Z",
     "updates": [
       {"state": "investigating", "content": "Looking.", "created_at": "2026-02-01T10:00:00.000Z"},
       {"state": "resolvd", "content": "Fixed.", "created_at": "2026-02-01T11:00:00.000Z"}
     ]}
  ]
}`

// impInvalidProblems are the stderr lines import must print for
// impInvalidDoc (path, then the start of the message).
var impInvalidProblems = []string{
	"page.name: must not be empty",
	"components[0].parent_id: no component has id 5",
	`notices[0].updates[1].state: "resolvd" is not a state of an unplanned notice`,
}

// impOtherDoc is a small valid page, different from the fixture in every
// respect: name, components and notices.
const impOtherDoc = `{
  "page": {"name": "Other Status", "url": "https://other.acme.test", "created_at": "2026-01-05T00:00:00.000Z"},
  "components": [{"id": 5, "name": "Web", "created_at": "2026-01-05T00:00:00.000Z"}],
  "notices": [
    {"id": 900, "type": "unplanned", "subject": "Web down", "component_ids": [5],
     "created_at": "2026-02-01T10:00:00.000Z",
     "updates": [{"state": "investigating", "content": "Looking.", "created_at": "2026-02-01T10:00:00.000Z"}]}
  ]
}`

func impDecode(t *testing.T, doc string) *statusd.Document {
	t.Helper()
	d, err := statusd.DecodeDocument(strings.NewReader(doc))
	if err != nil {
		t.Fatalf("decode: %v\n%s", err, doc)
	}
	return d
}

// impExported is doc as export gives it back after importing it: with
// the store's subscribers and sources, none when doc lists none.
func impExported(t *testing.T, doc string) *statusd.Document {
	t.Helper()
	d := impDecode(t, doc)
	if d.Subscribers == nil {
		d.Subscribers = []statusd.Subscriber{}
	}
	if d.Sources == nil {
		d.Sources = []statusd.Source{}
	}
	return d
}

func impNoticeIDs(d *statusd.Document) []int64 {
	var out []int64
	for _, n := range d.Notices {
		out = append(out, n.ID)
	}
	return out
}

// impCheckRejected checks that an import of impInvalidDoc failed as C5 says.
func impCheckRejected(t *testing.T, stderr string, err error) {
	t.Helper()
	if err == nil {
		t.Fatalf("import of an invalid document succeeded\n%s", stderr)
	}
	if !strings.Contains(err.Error(), "nothing was imported") || !strings.Contains(err.Error(), "3 problem") {
		t.Errorf("error %q, want it to count 3 problems and say nothing was imported", err)
	}
	var lines []string
	for _, l := range strings.Split(stderr, "\n") {
		if strings.TrimSpace(l) != "" {
			lines = append(lines, l)
		}
	}
	if len(lines) != len(impInvalidProblems) {
		t.Errorf("stderr has %d lines, want one per problem (%d):\n%s", len(lines), len(impInvalidProblems), stderr)
	}
	for _, want := range impInvalidProblems {
		found := false
		for _, l := range lines {
			if strings.HasPrefix(l, want) {
				found = true
			}
		}
		if !found {
			t.Errorf("stderr lacks a line starting %q:\n%s", want, stderr)
		}
	}
}

func TestImportInvalidChangesNothing(t *testing.T) {
	now := time.Now().UTC().Truncate(time.Second)
	t.Run("db holding a page", func(t *testing.T) {
		db := filepath.Join(t.TempDir(), "statusd.db")
		importDoc(t, db, testserver.Fixture(now))
		before := export(t, db)
		for _, extra := range [][]string{nil, {"--replace"}} {
			args := append(append([]string{"import", "--db", db}, extra...), writeDoc(t, impInvalidDoc))
			_, stderr, err := cli(t, "", args...)
			impCheckRejected(t, stderr, err)
			if after := export(t, db); after != before {
				t.Errorf("import %v of an invalid document changed the database:\nbefore %s\nafter  %s", extra, before, after)
			}
		}
	})
	t.Run("fresh db", func(t *testing.T) {
		// A server creates and migrates the database, and goes on serving
		// it: it must still have no page after the failed import.
		srv := startServer(t, nil)
		_, stderr, err := cli(t, impInvalidDoc, "import", "--db", srv.DB, "-")
		impCheckRejected(t, stderr, err)
		out, _, err := cli(t, "", "export", "--db", srv.DB)
		if err == nil || !strings.Contains(err.Error(), "holds no page") {
			t.Errorf("export after a failed import: %v, want an error saying the db holds no page\n%s", err, out)
		}
		if out != "" {
			t.Errorf("export wrote %q", out)
		}
		time.Sleep(300 * time.Millisecond) // longer than the server's watch interval
		testserver.AssertErrorBody(t, "status after a failed import", srv.Do(http.MethodGet, "/api/v1/status"), 503, "unavailable")
	})
	t.Run("no db file", func(t *testing.T) {
		db := filepath.Join(t.TempDir(), "statusd.db")
		_, stderr, err := cli(t, "", "import", "--db", db, writeDoc(t, impInvalidDoc))
		impCheckRejected(t, stderr, err)
		if _, err := os.Stat(db); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("a failed import left a database file behind: %v", err)
		}
	})
}

func TestImportReplace(t *testing.T) {
	now := time.Now().UTC().Truncate(time.Second)
	db := filepath.Join(t.TempDir(), "statusd.db")
	importDoc(t, db, testserver.Fixture(now))
	before := export(t, db)
	other := writeDoc(t, impOtherDoc)

	_, stderr, err := cli(t, "", "import", "--db", db, other)
	if err == nil {
		t.Fatalf("import over a page without --replace succeeded\n%s", stderr)
	}
	if !strings.Contains(err.Error(), "--replace") {
		t.Errorf("error %q does not mention --replace", err)
	}
	if after := export(t, db); after != before {
		t.Errorf("a refused import changed the database:\nbefore %s\nafter  %s", before, after)
	}

	if _, stderr, err := cli(t, "", "import", "--db", db, "--replace", other); err != nil {
		t.Fatalf("import --replace: %v\n%s", err, stderr)
	}
	got := impDecode(t, export(t, db))
	want := impExported(t, impOtherDoc)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("after --replace the database holds\n%+v\nwant exactly the new document\n%+v", got, want)
	}
	if ids := impNoticeIDs(got); !reflect.DeepEqual(ids, []int64{900}) {
		t.Errorf("notices after --replace %v, want only [900]", ids)
	}

	// The old notices are gone from the API too.
	srv := serveDB(t, db)
	srv.Get("/api/v1/notices/900", 200)
	testserver.AssertErrorBody(t, "old notice", srv.Do(http.MethodGet, "/api/v1/notices/100"), 404, "not_found")
	r := srv.Get("/api/v1/status", 200)
	if name := testserver.At(t, r.JSON, "page.name"); name != "Other Status" {
		t.Errorf("page name %v", name)
	}
	if n := testserver.At(t, r.JSON, "page.links.notices.count"); n != float64(1) {
		t.Errorf("notice count %v, want 1", n)
	}
}

func TestImportStdin(t *testing.T) {
	db := filepath.Join(t.TempDir(), "statusd.db")
	if _, stderr, err := cli(t, impOtherDoc, "import", "--db", db, "-"); err != nil {
		t.Fatalf("import -: %v\n%s", err, stderr)
	}
	if got, want := impDecode(t, export(t, db)), impExported(t, impOtherDoc); !reflect.DeepEqual(got, want) {
		t.Errorf("import - stored\n%+v\nwant\n%+v", got, want)
	}
	// And again over it, with --replace, from stdin.
	now := time.Now().UTC().Truncate(time.Second)
	var buf bytes.Buffer
	if err := statusd.EncodeDocument(&buf, testserver.Fixture(now)); err != nil {
		t.Fatal(err)
	}
	if _, stderr, err := cli(t, buf.String(), "import", "--db", db, "--replace", "-"); err != nil {
		t.Fatalf("import --replace -: %v\n%s", err, stderr)
	}
	if got := impDecode(t, export(t, db)); got.Page.Name != "Acme Status" || len(got.Notices) != 15 {
		t.Errorf("after import --replace -: page %q with %d notices", got.Page.Name, len(got.Notices))
	}
}

// impBigFixture is the fixture with enough extra notices for the notice
// list to take two pages.
func impBigFixture(now time.Time) *statusd.Document {
	doc := testserver.Fixture(now)
	for i := range 30 {
		when := now.Add(-time.Duration(100+i) * 24 * time.Hour)
		n := statusd.Notice{ID: int64(1000 + i), Type: statusd.Unplanned, Subject: fmt.Sprintf("Old incident %d", i),
			TagList: []string{}, ComponentIDs: []int64{10 + int64(i%3)}, CreatedAt: when, UpdatedAt: when.Add(time.Hour),
			Updates: []statusd.Update{
				testserver.Upd(statusd.Investigating, when, "Looking."),
				testserver.Upd(statusd.Resolved, when.Add(time.Hour), "Fixed."),
			}}
		doc.Notices = append(doc.Notices, n)
	}
	return doc
}

func TestExportImportSameAnswers(t *testing.T) {
	now := time.Now().UTC().Truncate(time.Second)
	orig := startServer(t, impBigFixture(now))
	exported := export(t, orig.DB)

	db := filepath.Join(t.TempDir(), "copy.db")
	if _, stderr, err := cli(t, exported, "import", "--db", db, "-"); err != nil {
		t.Fatalf("import of the export: %v\n%s", err, stderr)
	}
	if again := export(t, db); again != exported {
		t.Errorf("export of the imported copy differs from the original export:\n%s\n---\n%s", exported, again)
	}
	copied := serveDB(t, db)

	comps, notices := sameAnswers(t, orig, copied)
	if len(comps) != 6 {
		t.Errorf("%d components, want 6", len(comps))
	}
	if len(notices) != 45 {
		t.Errorf("%d notices over all pages, want 45", len(notices))
	}
}

// impWaitForPage polls /api/v1/status every 50 ms for at most a second
// until the page has the given name, and returns how long that took.
func impWaitForPage(t *testing.T, srv *testserver.Server, name string) time.Duration {
	t.Helper()
	start := time.Now()
	deadline := start.Add(time.Second)
	for {
		page, err := srv.API.Status(context.Background())
		if err == nil && page.Name == name {
			return time.Since(start)
		}
		if time.Now().After(deadline) {
			t.Fatalf("after 1s /api/v1/status still answers %+v %v, want page %q", page, err, name)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestRunningServerSeesImport(t *testing.T) {
	now := time.Now().UTC().Truncate(time.Second)
	srv := startServer(t, testserver.Fixture(now))
	srv.Get("/api/v1/status", 200)
	if _, stderr, err := cli(t, "", "import", "--db", srv.DB, "--replace", writeDoc(t, impOtherDoc)); err != nil {
		t.Fatalf("import --replace: %v\n%s", err, stderr)
	}
	impWaitForPage(t, srv, "Other Status")
	// The whole page changed, not only its name.
	srv.Get("/api/v1/notices/900", 200)
	testserver.AssertErrorBody(t, "old notice", srv.Do(http.MethodGet, "/api/v1/notices/100"), 404, "not_found")
}

func TestEmptyDatabaseThenImport(t *testing.T) {
	srv := startServer(t, nil)
	for _, path := range []string{"/api/v1/status", "/api/v1/components", "/api/v1/notices"} {
		r := srv.Do(http.MethodGet, path)
		testserver.AssertErrorBody(t, path+" on an empty database", r, 503, "unavailable")
		if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
			t.Errorf("%s: Content-Type %q, want JSON", path, ct)
		}
	}
	now := time.Now().UTC().Truncate(time.Second)
	importDoc(t, srv.DB, testserver.Fixture(now))
	impWaitForPage(t, srv, "Acme Status")
	srv.Get("/api/v1/notices/100", 200)
}

func TestExportMissingDB(t *testing.T) {
	db := filepath.Join(t.TempDir(), "missing.db")
	out, _, err := cli(t, "", "export", "--db", db)
	if err == nil {
		t.Fatalf("export of a missing database succeeded: %s", out)
	}
	if !strings.Contains(err.Error(), "--db") || !strings.Contains(err.Error(), db) {
		t.Errorf("error %q, want it to name the path and --db", err)
	}
	if out != "" {
		t.Errorf("export wrote %q", out)
	}
	if _, err := os.Stat(db); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("export created %s: %v", db, err)
	}
}

// impSubscribers are subscribers of the fixture's components, one of each
// channel and state, as C7 gives them; the webhook's secret is its own.
const impSubscribers = `[
  {"id": 3, "channel": "email", "address": "ops@example.com", "component_ids": [10],
   "state": "active", "created_at": "2026-01-05T00:00:00.000Z"},
  {"id": 7, "channel": "webhook", "address": "https://hooks.example.com/statusd", "component_ids": [],
   "state": "quarantined", "secret": "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "created_at": "2026-01-06T00:00:00.000Z"},
  {"id": 8, "channel": "slack", "address": "https://hooks.slack.com/services/T0/B0/x", "component_ids": [11, 31],
   "state": "pending", "created_at": "2026-01-07T00:00:00.000Z"},
  {"id": 9, "channel": "teams", "address": "http://10.0.0.7:8080/teams", "component_ids": [],
   "state": "unsubscribed", "created_at": "2026-01-08T00:00:00.000Z"},
  {"id": 12, "channel": "discord", "address": "https://discord.com/api/webhooks/1/x", "component_ids": [30],
   "state": "active", "created_at": "2026-01-09T00:00:00.000Z"}
]`

// TestImportExportSubscribers: the subscribers of an import document (C5,
// C7) are exported as they were imported, and an import of the export
// gives back the same export; a replace without subscribers keeps them,
// with an empty list removes them.
func TestImportExportSubscribers(t *testing.T) {
	now := time.Now().UTC().Truncate(time.Second)
	db := filepath.Join(t.TempDir(), "statusd.db")
	doc := testserver.Fixture(now)
	importDoc(t, db, doc)
	// The fixture with subscribers, as export writes it.
	withSubs := strings.Replace(export(t, db), `"subscribers": []`, `"subscribers": `+impSubscribers, 1)
	importDoc(t, db, withSubs, "--replace")
	exported := export(t, db)
	got, want := impDecode(t, exported), impDecode(t, withSubs)
	if len(got.Subscribers) != 5 || !reflect.DeepEqual(got.Subscribers, want.Subscribers) {
		t.Errorf("exported subscribers:\n%+v\nwant as imported:\n%+v", got.Subscribers, want.Subscribers)
	}
	if strings.Count(exported, `"secret": "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"`) != 1 || strings.Count(exported, `"secret"`) != 1 {
		t.Errorf("the export carries the webhook's secret, and only it:\n%s", exported)
	}
	copyDB := filepath.Join(t.TempDir(), "copy.db")
	if _, stderr, err := cli(t, exported, "import", "--db", copyDB, "-"); err != nil || !strings.Contains(stderr, "5 subscribers") {
		t.Fatalf("import of the export: %v\n%s", err, stderr)
	}
	if again := export(t, copyDB); again != exported {
		t.Errorf("export of the imported copy differs:\n%s\n---\n%s", exported, again)
	}
	importDoc(t, db, doc, "--replace")
	if n := len(impDecode(t, export(t, db)).Subscribers); n != 5 {
		t.Errorf("a replace without subscribers left %d of 5", n)
	}
	doc.Subscribers = []statusd.Subscriber{}
	importDoc(t, db, doc, "--replace")
	if n := len(impDecode(t, export(t, db)).Subscribers); n != 0 {
		t.Errorf("a replace with an empty list left %d subscribers", n)
	}
}

// TestImportBadSubscribers: subscribers that break the rules are refused,
// each problem with its JSON path, and nothing is imported.
func TestImportBadSubscribers(t *testing.T) {
	db := filepath.Join(t.TempDir(), "statusd.db")
	importDoc(t, db, impOtherDoc)
	before := export(t, db)
	bad := strings.Replace(impOtherDoc, `"notices": [`, `"subscribers": [
	  {"id": 1, "channel": "email", "address": "not-an-address", "created_at": "2026-01-05T00:00:00.000Z"},
	  {"id": 1, "channel": "webhook", "address": "https://hooks.example.com/x", "component_ids": [6],
	   "created_at": "2026-01-05T00:00:00.000Z"}
	], "notices": [`, 1)
	_, stderr, err := cli(t, "", "import", "--db", db, "--replace", writeDoc(t, bad))
	if err == nil || !strings.Contains(err.Error(), "3 problem") || !strings.Contains(err.Error(), "nothing was imported") {
		t.Errorf("import of bad subscribers: %v, want 3 problems and nothing imported\n%s", err, stderr)
	}
	for _, want := range []string{
		`subscribers[0].address: "not-an-address" is not an email address`,
		"subscribers[1].id: 1 is used by another subscriber",
		"subscribers[1].component_ids[0]: no component has id 6",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	if after := export(t, db); after != before {
		t.Errorf("a refused import changed the database")
	}
}

// TestExportSources: the sources of alerts travel in the document (C9)
// with their token hashes: a sender keeps posting with its token to the
// database the document was imported into; signals are not exported.
func TestExportSources(t *testing.T) {
	db := filepath.Join(t.TempDir(), "statusd.db")
	importDoc(t, db, testserver.Fixture(time.Now().UTC().Truncate(time.Second)))
	tok := newToken(t, db, "ops")
	srv := serveDB(t, db)
	src := srv.AdminOK(http.MethodPost, "/sources", tok, `{"name": "Scripts", "format": "generic", "rules": [{"components": ["12"], "hold": "0s"}]}`, 201)
	hook, token := src["hook_path"].(string), src["token"].(string)
	event := `{"dedup_key": "a", "status": "firing"}`
	if r := testserver.Fetch(t, http.MethodPost, srv.URL+hook, event, testserver.Bearer(token)...); r.Status != 202 {
		t.Fatalf("POST %s: %d %s", hook, r.Status, r.Body)
	}
	exported := export(t, db)
	if !strings.Contains(exported, `"name": "Scripts"`) || !strings.Contains(exported, `"token_hash": "`) || strings.Contains(exported, token) ||
		strings.Contains(exported, `"dedup_key"`) || strings.Contains(exported, `"a"`) {
		t.Fatalf("the export: want the source with its token's hash, never the token, nor its signal:\n%s", exported)
	}
	copyDB := filepath.Join(t.TempDir(), "copy.db")
	if _, stderr, err := cli(t, exported, "import", "--db", copyDB, "-"); err != nil || !strings.Contains(stderr, "1 sources") {
		t.Fatalf("import of the export: %v\n%s", err, stderr)
	}
	if again := export(t, copyDB); again != exported {
		t.Errorf("export of the imported copy differs:\n%s\n---\n%s", exported, again)
	}
	other := serveDB(t, copyDB)
	r := testserver.Fetch(t, http.MethodPost, other.URL+hook, event, testserver.Bearer(token)...)
	if r.Status != 202 || !strings.Contains(string(r.Body), `"action":"drafted"`) {
		t.Errorf("the same token on the copy: %d %s; want 202, drafted (the copy has no signal of it)", r.Status, r.Body)
	}
}
