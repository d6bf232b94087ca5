package main

import (
	"context"
	"fmt"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/internal/testserver"
)

// The admin API scenarios that need the statusd commands beside the
// server; the others are in internal/server.

// TestAdminTokens: tokens created while the server runs work at once,
// revoked ones stop at once, and the audit log names each write's token.
func TestAdminTokens(t *testing.T) {
	now := time.Now().UTC().Truncate(time.Second)
	srv := startServer(t, testserver.Fixture(now))
	ctx := context.Background()
	ops := newToken(t, srv.DB, "ops")
	_, err := srv.Admin(ops).Page(ctx)
	testserver.NoErr(t, "GET /page with ops", err)
	audit0 := srv.AuditTotal(ops)
	var ci string

	testserver.Step(t, "a token created while the server runs works at once", func(t *testing.T) {
		ci = newToken(t, srv.DB, "ci")
		if ci == ops {
			t.Fatal("two tokens are the same")
		}
		_, err := srv.Admin(ci).UpdatePage(ctx, statusd.AdminPageRequest{Name: testserver.Ptr("By CI")})
		testserver.NoErr(t, "PATCH /page with ci", err)
		out, stderr, err := cli(t, "", "token", "list", "--db", srv.DB)
		if err != nil || !strings.Contains(out, "ops") || !strings.Contains(out, "ci") {
			t.Errorf("token list: %v\n%s%s", err, out, stderr)
		}
		if _, stderr, err := cli(t, "", "token", "create", "--db", srv.DB, "--name", "ops"); err == nil {
			t.Errorf("a second token named ops was created\n%s", stderr)
		}
	})

	testserver.Step(t, "a revoked token stops at once; the others go on", func(t *testing.T) {
		srv := srv.In(t)
		if _, stderr, err := cli(t, "", "token", "revoke", "--db", srv.DB, "ops"); err != nil {
			t.Fatalf("token revoke: %v\n%s", err, stderr)
		}
		srv.RefuseAs(ci, ops, http.MethodPatch, "/page", `{"name": "By ops"}`, 401, "unauthorized")
		r := srv.Authed(http.MethodGet, testserver.AdminRoot+"/page", ops, "")
		testserver.AssertError(t, "GET with a revoked token", r, 401, "unauthorized")
		_, err := srv.Admin(ci).Page(ctx)
		testserver.NoErr(t, "GET /page with ci", err)
	})

	testserver.Step(t, "the audit log names the token of each write", func(t *testing.T) {
		a, err := srv.Admin(ci).Audit(ctx, 0)
		testserver.NoErr(t, "GET /audit", err)
		if len(a.Audit) == 0 || a.Audit[0].Actor != "ci" || a.Audit[0].Action != "page.update" || a.Meta.TotalCount != audit0+1 {
			t.Errorf("audit %+v", a)
		}
	})
}

// TestAdminAudit: one entry per write, newest first, with the token's name;
// paginated by 25; statusd audit prints them.
func TestAdminAudit(t *testing.T) {
	now := time.Now().UTC().Truncate(time.Second)
	srv := startServer(t, testserver.Fixture(now))
	tok := newToken(t, srv.DB, "ops")
	adm, ctx := srv.Admin(tok), context.Background()
	audit0 := srv.AuditTotal(tok) // entries written before (an import may write one)
	type entry struct{ action, target string }
	var writes []entry
	var t0, t1 time.Time

	testserver.Step(t, "every kind of write answers its status on the wire", func(t *testing.T) {
		// 200 for a change, 201 for a creation, 204 without a body for a
		// deletion: the statuses, which the SDK takes all alike, are
		// checked here, once for each kind of write.
		srv := srv.In(t)
		t0 = time.Now()
		srv.AdminOK(http.MethodPatch, "/page", tok, `{"name": "Audited"}`, 200)
		writes = append(writes, entry{"page.update", "page"})
		srv.AdminOK(http.MethodPost, "/components", tok, `{"name": "CDN"}`, 201)
		writes = append(writes, entry{"component.create", "component 32"})
		srv.AdminOK(http.MethodPatch, "/components/32", tok, `{"name": "Edge"}`, 200)
		writes = append(writes, entry{"component.update", "component 32"})
		srv.AdminOK(http.MethodPost, "/notices", tok, `{"type": "unplanned", "subject": "Down", "content": "Looking."}`, 201)
		writes = append(writes, entry{"notice.create", "notice 304"})
		srv.AdminOK(http.MethodPatch, "/notices/304", tok, `{"subject": "Down hard"}`, 200)
		writes = append(writes, entry{"notice.update", "notice 304"})
		srv.AdminOK(http.MethodPost, "/notices/304/updates", tok, `{"content": "Fixed.", "state": "resolved"}`, 201)
		writes = append(writes, entry{"notice.post_update", "notice 304"})
		srv.AdminOK(http.MethodPost, "/notices/304/reopen", tok, `{"content": "Back."}`, 201)
		writes = append(writes, entry{"notice.reopen", "notice 304"})
		srv.AdminOK(http.MethodDelete, "/notices/304", tok, "", 204)
		writes = append(writes, entry{"notice.delete", "notice 304"})
		srv.AdminOK(http.MethodDelete, "/components/32", tok, "", 204)
		writes = append(writes, entry{"component.delete", "component 32"})
		// Refused writes and reads are not recorded.
		srv.Authed(http.MethodPatch, testserver.AdminRoot+"/page", tok, `{"name": ""}`)
		srv.Authed(http.MethodGet, testserver.AdminRoot+"/notices", tok, "")
		t1 = time.Now()
	})

	n := audit0 + len(writes)
	testserver.Step(t, "one entry a write, newest first, with the token's name", func(t *testing.T) {
		a, err := adm.Audit(ctx, 0)
		testserver.NoErr(t, "GET /audit", err)
		testserver.AssertJSON(t, "audit meta", a.Meta, testserver.Obj{"count": n, "total_count": n, "next_page": nil})
		if len(a.Audit) != n {
			t.Fatalf("audit has %d entries, want %d", len(a.Audit), n)
		}
		for i, e := range a.Audit[:len(writes)] {
			w := writes[len(writes)-1-i]
			if e.Actor != "ops" || e.Action != w.action || e.Target != w.target {
				t.Errorf("audit[%d] = %+v, want ops %s %s", i, e, w.action, w.target)
			}
			testserver.Within(t, fmt.Sprintf("audit[%d].at", i), e.At.Time, t0, t1)
			if i > 0 {
				if prev := a.Audit[i-1]; e.ID >= prev.ID || e.At.After(prev.At.Time) {
					t.Errorf("audit not newest first: %+v after %+v", e, prev)
				}
			}
		}
	})

	testserver.Step(t, "statusd audit prints the same, newest first", func(t *testing.T) {
		out, stderr, err := cli(t, "", "audit", "--db", srv.DB)
		if err != nil {
			t.Fatalf("audit: %v\n%s", err, stderr)
		}
		lines := strings.Split(strings.TrimSpace(out), "\n")
		if len(lines) != n+1 || !strings.HasPrefix(lines[0], "TIME") {
			t.Fatalf("statusd audit printed %d lines, want a header and %d entries:\n%s", len(lines), n, out)
		}
		for i, line := range lines[1 : 1+len(writes)] {
			w := writes[len(writes)-1-i]
			if !strings.Contains(line, " ops ") || !strings.Contains(line, w.action) || !strings.Contains(line, w.target) {
				t.Errorf("statusd audit line %d %q, want ops %s %s", i+1, line, w.action, w.target)
			}
		}
	})

	testserver.Step(t, "25 entries a page", func(t *testing.T) {
		// 26 entries make two pages, the second holding the oldest.
		for i := n; i < 26; i++ {
			_, err := adm.UpdatePage(ctx, statusd.AdminPageRequest{Name: testserver.Ptr(fmt.Sprintf("Audited %d", i))})
			testserver.NoErr(t, "PATCH /page", err)
		}
		a, err := adm.Audit(ctx, 0)
		testserver.NoErr(t, "GET /audit", err)
		testserver.AssertJSON(t, "audit page 1 meta", a.Meta, testserver.Obj{"count": 25, "total_count": 26, "next_page": "/admin/api/v1/audit?page=2"})
		first := a.Audit[0].ID
		a, err = adm.Audit(ctx, 2)
		testserver.NoErr(t, "GET /audit?page=2", err)
		testserver.AssertJSON(t, "audit page 2 meta", a.Meta, testserver.Obj{"count": 1, "total_count": 26, "next_page": nil})
		if len(a.Audit) != 1 || a.Audit[0].ID >= first-24 {
			t.Errorf("page 2 holds %+v, want one entry older than page 1's (from %v down)", a.Audit, first)
		}
		srv.In(t).Refuse(tok, http.MethodGet, "/audit?page=0", "", 400, "invalid_parameter", "page")
	})
}

// TestTokenCreateNameRule: statusd token create keeps the admin API's rule
// on a token's name (internal/server's TestAdminTokensAPI checks the API's).
func TestTokenCreateNameRule(t *testing.T) {
	db := filepath.Join(t.TempDir(), "statusd.db")
	long := strings.Repeat("x", 101)
	if _, _, err := cli(t, "", "token", "create", "--db", db, "--name", long); err == nil || !strings.Contains(err.Error(), "at most 100") {
		t.Errorf("token create with a 101-byte name: %v, want refused", err)
	}
}

// TestTokenCreateRole: statusd token create --role makes a token that the
// server holds to its role (CONTRACT C9); token list shows each role; a
// role that is not one is a usage error that names the roles and creates
// nothing.
func TestTokenCreateRole(t *testing.T) {
	srv := startServer(t, testserver.Fixture(time.Now().UTC().Truncate(time.Second)))
	_, _, err := cli(t, "", "token", "create", "--db", srv.DB, "--name", "bot", "--role", "admin")
	if exitCode(err) != exitCodeUsage || err == nil || !strings.Contains(err.Error(), `--role: "admin" is not a role (viewer, publisher, owner)`) {
		t.Errorf("token create --role admin: exit %d, %v; want a usage error naming the roles", exitCode(err), err)
	}
	out, stderr, err := cli(t, "", "token", "create", "--db", srv.DB, "--name", "deploy", "--role", "publisher")
	if err != nil || !strings.Contains(stderr, "acting as publisher") {
		t.Fatalf("token create --role publisher: %q, %v", stderr, err)
	}
	deploy := strings.TrimSpace(out)
	ops := newToken(t, srv.DB, "ops") // without --role: an owner
	list, _, err := cli(t, "", "token", "list", "--db", srv.DB)
	testserver.NoErr(t, "token list", err)
	if !regexp.MustCompile(`(?m)^NAME\s+ROLE\s+CREATED\s+LAST USED\ndeploy\s+publisher\s+\S+\s+never\nops\s+owner\s`).MatchString(list) {
		t.Errorf("token list:\n%s\nwant deploy (publisher) and ops (owner), and no bot", list)
	}
	srv.AdminOK(http.MethodPost, "/notices", deploy, `{"type": "general", "subject": "Deployed", "content": "Done.", "notify": false}`, 201)
	srv.RefuseAs(ops, deploy, http.MethodPost, "/tokens", `{"name": "mine"}`, 403, "forbidden")
}
