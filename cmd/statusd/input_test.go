package main

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/internal/testenv"
	"github.com/statusd/statusd/internal/testserver"
)

// Black-box tests of bad input: NUL characters, keys given
// twice, impacts too long to represent and JSON syntax errors, refused the
// same way by the admin API and by statusd import, on SQLite and on
// PostgreSQL. Every helper here starts with in.

// inStores serves the fixture from a fresh SQLite database and a fresh
// PostgreSQL one, each with an admin token, and runs check on both.
func inStores(t *testing.T, check func(t *testing.T, srv *testserver.Server, tok string)) {
	now := time.Now().UTC().Truncate(time.Second)
	for _, store := range []string{"sqlite", "postgres"} {
		t.Run(store, func(t *testing.T) {
			var srv *testserver.Server
			if store == "sqlite" {
				srv = startServer(t, testserver.Fixture(now))
			} else {
				db := testenv.Postgres(t)
				importDoc(t, db, testserver.Fixture(now))
				srv = serveDB(t, db)
			}
			check(t, srv, newToken(t, srv.DB, "ops"))
		})
	}
}

// inImportRefused imports doc over the server's page with --replace and
// checks that it is refused with each of lines on standard error, and that
// the page did not change.
func inImportRefused(t *testing.T, srv *testserver.Server, doc string, lines ...string) {
	t.Helper()
	before := export(t, srv.DB)
	_, stderr, err := cli(t, "", "import", "--db", srv.DB, "--replace", writeDoc(t, doc))
	if err == nil || !strings.Contains(err.Error(), "nothing was imported") {
		t.Errorf("import: %v, want a refusal that says nothing was imported\n%s", err, stderr)
	}
	for _, line := range lines {
		if !strings.Contains(stderr, line+"\n") {
			t.Errorf("import: stderr lacks the line %q:\n%s", line, stderr)
		}
	}
	if after := export(t, srv.DB); after != before {
		t.Errorf("a refused import changed the page")
	}
}

// inDoc is a small valid document; inDoc with one change is a bad one.
const inDoc = `{
  "page": {"name": "P", "url": "https://p.test", "created_at": "2026-01-01T00:00:00.000Z"},
  "components": [{"id": 1, "name": "API", "created_at": "2026-01-01T00:00:00.000Z"}],
  "notices": [
    {"id": 1, "type": "unplanned", "subject": "Down", "component_ids": [1], "created_at": "2026-02-01T10:00:00.000Z",
     "updates": [{"state": "investigating", "content": "Looking.", "created_at": "2026-02-01T10:00:00.000Z"}]}
  ]
}`

func inChange(old, new string) string { return strings.Replace(inDoc, old, new, 1) }

// TestInputNUL: a NUL character in any text is refused, 422 naming the
// field by its JSON path in the admin API and a problem at its path in an
// import, on both stores (SQLite took it, PostgreSQL answered 500, and
// statusd migrate could not copy it).
func TestInputNUL(t *testing.T) {
	nul := "holds a NUL character"
	inStores(t, func(t *testing.T, srv *testserver.Server, tok string) {
		for _, tc := range []struct{ method, path, body, field string }{
			{http.MethodPatch, "/page", `{"name": "Acme\u0000"}`, "name"},
			{http.MethodPatch, "/page", `{"state_texts": {"operational": "\u0000"}}`, "state_texts.operational"},
			{http.MethodPost, "/components", `{"name": "Cache", "description": "a\u0000b"}`, "description"},
			{http.MethodPatch, "/components/10", `{"name": "API\u0000"}`, "name"},
			{http.MethodPost, "/notices", `{"type": "unplanned", "subject": "S", "content": "C", "tag_list": ["ok", "\u0000"]}`, "tag_list[1]"},
			{http.MethodPatch, "/notices/100", `{"subject": "\u0000 errors"}`, "subject"},
			{http.MethodPost, "/notices/100/updates", `{"content": "Still \u0000"}`, "content"},
			{http.MethodPost, "/notices/101/reopen", `{"content": "\u0000"}`, "content"},
		} {
			srv.Refuse(tok, tc.method, tc.path, tc.body, 422, "invalid_field", tc.field+": "+nul)
		}
		inImportRefused(t, srv, inChange(`"Looking."`, `"Looking.\u0000"`),
			`notices[0].updates[0].content: holds a NUL character (\u0000); remove it`)
	})
}

// TestInputDuplicateKeys: a key given twice in a body or a document is
// refused, naming it; so is a key given again in another case, which
// encoding/json takes for the same field.
func TestInputDuplicateKeys(t *testing.T) {
	srv := startServer(t, testserver.Fixture(time.Now().UTC().Truncate(time.Second)))
	tok := newToken(t, srv.DB, "ops")
	twice := "the key is given twice in the object"
	srv.Refuse(tok, http.MethodPatch, "/page", `{"name": "A", "name": "B"}`, 422, "invalid_field", "name: "+twice)
	srv.Refuse(tok, http.MethodPatch, "/page", `{"state_texts": {"degraded": "A", "degraded": "B"}}`, 422, "invalid_field",
		"state_texts.degraded: "+twice)
	srv.Refuse(tok, http.MethodPatch, "/notices/100", `{"subject": "A", "Subject": "B"}`, 422, "invalid_field",
		`Subject: `+twice+`, as "subject" and "Subject"`)
	srv.Refuse(tok, http.MethodPost, "/notices/100/updates", `{"content": "A", "state": "resolved", "state": "identified"}`,
		422, "invalid_field", "state: "+twice)
	inImportRefused(t, srv, inChange(`"subject": "Down",`, `"subject": "Down", "subject": "Up",`),
		"notices[0].subject: "+twice+"; give it once")
}

// TestInputImpactBound: impact_seconds is at most 100 years (36,525 days
// of 86,400 s); 300 years used to wrap around to a negative impact_time.
// The most allowed shows as itself.
func TestInputImpactBound(t *testing.T) {
	srv := startServer(t, testserver.Fixture(time.Now().UTC().Truncate(time.Second)))
	tok := newToken(t, srv.DB, "ops")
	srv.Refuse(tok, http.MethodPatch, "/notices/100", `{"impact_seconds": 9467280000}`, 422, "invalid_field",
		"impact_seconds: must be at most 3155760000 (100 years)")
	inImportRefused(t, srv, inChange(`"component_ids": [1],`, `"component_ids": [1], "impact_seconds": 9467280000,`),
		"notices[0].impact_seconds: must be at most 3155760000 (100 years)")
	_, err := srv.Admin(tok).UpdateNotice(context.Background(), 100, statusd.AdminNoticeRequest{ImpactSeconds: statusd.Some[int64](3155760000)})
	testserver.NoErr(t, "PATCH /notices/100", err)
	testserver.AssertJSON(t, "impact_time of 100 years", srv.Notice(100).ImpactTime, testserver.Obj{"seconds": 3155760000, "words": "36525 days"})
}

// TestInputSyntaxError: an import that is not JSON says on which line and
// column it goes wrong.
func TestInputSyntaxError(t *testing.T) {
	srv := startServer(t, testserver.Fixture(time.Now().UTC().Truncate(time.Second)))
	// Line 2 is `  "page": {"name": "P",}`: the } is its 24th character.
	inImportRefused(t, srv, "{\n  \"page\": {\"name\": \"P\",}\n}",
		"not a JSON document: line 2, column 24: invalid character '}' looking for beginning of object key string")
	// An admin body says it too.
	tok := newToken(t, srv.DB, "ops")
	srv.Refuse(tok, http.MethodPatch, "/page", "{\n\"name\": \"A\"\n\"url\": \"B\"}", 400, "invalid_body",
		"line 3, column 1: invalid character '\"' after object key:value pair")
}
