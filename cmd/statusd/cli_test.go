package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/statusd/statusd/internal/testserver"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"
)

// cliCommands is every command and subcommand of statusd, each with
// arguments that make a usage error after it.
var cliCommands = []struct {
	path []string
	bad  []string
}{
	{[]string{"serve"}, []string{"extra"}},
	{[]string{"init"}, []string{"--url", "https://a.test"}}, // no --name
	{[]string{"import"}, nil},                               // no FILE
	{[]string{"export"}, []string{"extra"}},
	{[]string{"token"}, nil},           // no subcommand
	{[]string{"token", "create"}, nil}, // no --name
	{[]string{"token", "list"}, []string{"extra"}},
	{[]string{"token", "revoke"}, nil}, // no NAME
	{[]string{"audit"}, []string{"--page", "0"}},
	{[]string{"migrate"}, []string{"--from", "a.db"}}, // no --to
	{[]string{"backup"}, nil},                         // no FILE
	{[]string{"version"}, []string{"extra"}},
	{[]string{"incident"}, []string{"close"}},
	{[]string{"incident", "open"}, []string{"-m", "Down."}}, // no --component
	{[]string{"incident", "update"}, []string{"abc", "-m", "x"}},
	{[]string{"incident", "resolve"}, []string{"1"}}, // no -m
	{[]string{"incident", "reopen"}, nil},
	{[]string{"maintenance"}, nil},
	{[]string{"maintenance", "schedule"}, []string{"--subject", "X"}}, // no times
	{[]string{"maintenance", "start"}, nil},
	{[]string{"maintenance", "complete"}, []string{"1", "2"}},
	{[]string{"maintenance", "cancel"}, []string{"x"}},
	{[]string{"announce"}, nil}, // no -m
	{[]string{"component"}, nil},
	{[]string{"component", "add"}, nil},
	{[]string{"component", "list"}, []string{"extra"}},
	{[]string{"component", "move"}, []string{"API"}}, // not saying where
	{[]string{"component", "rm"}, nil},
	{[]string{"notice"}, nil},
	{[]string{"notice", "list"}, []string{"--page", "0"}},
	{[]string{"notice", "show"}, nil},
	{[]string{"incident", "edit"}, []string{"1"}},      // nothing to change
	{[]string{"maintenance", "update"}, []string{"1"}}, // no -m
	{[]string{"maintenance", "reschedule"}, []string{"1"}},
	{[]string{"maintenance", "edit"}, []string{"1", "--expires", "+1h"}},
	{[]string{"announcement"}, nil},
	{[]string{"announcement", "withdraw"}, nil},
	{[]string{"announcement", "edit"}, []string{"1"}},
	{[]string{"notice", "edit"}, []string{"1"}},
	{[]string{"notice", "update"}, []string{"1"}},
	{[]string{"notice", "reopen"}, []string{"1"}},
	{[]string{"notice", "rm"}, nil},
	{[]string{"component", "show"}, nil},
	{[]string{"component", "edit"}, []string{"API"}},
	{[]string{"page"}, nil},
	{[]string{"page", "show"}, []string{"extra"}},
	{[]string{"page", "edit"}, nil},
}

// cliRun runs statusd in the process with env and returns its stdout,
// stderr and exit code.
func cliRun(t *testing.T, env map[string]string, args ...string) (string, string, int) {
	t.Helper()
	stdout, stderr, err := cliEnv(t, env, args...)
	return stdout, stderr, exitCode(err)
}

// TestCLIHelpAndUsageExitCodes: -h and --help print a command's help and
// exit 0, statusd help COMMAND prints the same on stdout, and a usage
// error exits 2, for every command and subcommand. Nothing touches a
// database or the network on the way.
func TestCLIHelpAndUsageExitCodes(t *testing.T) {
	t.Chdir(t.TempDir())
	for _, c := range cliCommands {
		name := strings.Join(c.path, " ")
		t.Run(name, func(t *testing.T) {
			for _, h := range []string{"-h", "--help"} {
				stdout, stderr, code := cliRun(t, nil, append(c.path, h)...)
				if code != 0 || !strings.Contains(stdout+stderr, "statusd "+name) {
					t.Errorf("%s %s: exit %d, output %q; want 0 and its help", name, h, code, stdout+stderr)
				}
			}
			stdout, stderr, code := cliRun(t, nil, append([]string{"help"}, c.path...)...)
			if code != 0 || !strings.Contains(stdout, "statusd "+name) {
				t.Errorf("help %s: exit %d, stdout %q, stderr %q; want 0 and its help on stdout", name, code, stdout, stderr)
			}
			for _, bad := range [][]string{c.bad, {"--bogus"}} {
				if _, stderr, code := cliRun(t, nil, append(c.path, bad...)...); code != exitCodeUsage {
					t.Errorf("%s %q: exit %d, want 2 (a usage error)\n%s", name, bad, code, stderr)
				}
			}
		})
	}
	for _, tc := range []struct {
		args []string
		code int
	}{{nil, 2}, {[]string{"bogus"}, 2}, {[]string{"help", "bogus"}, 2}, {[]string{"help"}, 0}, {[]string{"-h"}, 0}} {
		if _, _, code := cliRun(t, nil, tc.args...); code != tc.code {
			t.Errorf("statusd %q: exit %d, want %d", tc.args, code, tc.code)
		}
	}
	if left, _ := os.ReadDir("."); len(left) > 0 {
		t.Errorf("the commands left %v in the working directory", left)
	}
}

// TestCLIExitCodesOfTheBinary: main exits with what run says, 0 for help.
func TestCLIExitCodesOfTheBinary(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
	}{
		{[]string{"serve", "-h"}, 0},
		{[]string{"incident", "open", "--help"}, 0},
		{[]string{"help", "import"}, 0},
		{[]string{"serve", "--bogus"}, 2},
		{[]string{"import"}, 2},
		{nil, 2},
	} {
		cmd := statusdCmd(tc.args...)
		cmd.Dir = t.TempDir()
		out, err := cmd.CombinedOutput()
		code := 0
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		if code != tc.code {
			t.Errorf("statusd %q: exit %d, want %d\n%s", tc.args, code, tc.code, out)
		}
	}
}

// TestCLIDatabaseHelp: the --db of every command that opens either kind of
// database says so; backup's says it copies SQLite only.
func TestCLIDatabaseHelp(t *testing.T) {
	for _, path := range [][]string{{"serve"}, {"init"}, {"import"}, {"export"}, {"token", "create"}, {"token", "list"},
		{"token", "revoke"}, {"audit"}} {
		stdout, _, _ := cliRun(t, nil, append([]string{"help"}, path...)...)
		if !strings.Contains(stdout, "-db database\n") || !strings.Contains(stdout, "a SQLite file path or a postgres:// URL") {
			t.Errorf("statusd help %s does not say --db takes a SQLite path or a PostgreSQL URL:\n%s", strings.Join(path, " "), stdout)
		}
	}
	stdout, _, _ := cliRun(t, nil, "help", "backup")
	if !strings.Contains(stdout, "SQLite database path") || !strings.Contains(stdout, "pg_dump") {
		t.Errorf("statusd help backup does not say it copies SQLite, with pg_dump for PostgreSQL:\n%s", stdout)
	}
}

// TestCLIEmptyFlagIsAUsageError: a flag that reads a variable, given an
// empty value on the command line, is a usage error naming it; neither the
// variable's value nor nothing is used instead. The empty --token once
// published an incident with the token of $STATUSD_TOKEN.
func TestCLIEmptyFlagIsAUsageError(t *testing.T) {
	srv, token := opSetup(t, opDoc(time.Now()))
	env := map[string]string{"STATUSD_URL": srv.URL, "STATUSD_TOKEN": token}
	for _, tc := range []struct {
		args []string
		flag string
	}{
		{[]string{"incident", "open", "--component", "API", "-m", "Down.", "--token", ""}, "--token"},
		{[]string{"incident", "open", "--token=", "--component", "API", "-m", "Down."}, "--token"},
		{[]string{"announce", "-m", "Hello.", "--token", "  "}, "--token"},
		{[]string{"notice", "list", "--url", ""}, "--url"},
	} {
		stdout, _, err := cliEnv(t, env, tc.args...)
		if exitCode(err) != exitCodeUsage || !strings.Contains(fmt.Sprint(err), tc.flag+" is empty") || stdout != "" {
			t.Errorf("%q: exit %d (%v), stdout %q; want 2 saying %s is empty", tc.args, exitCode(err), err, stdout, tc.flag)
		}
	}
	if n := len(testserver.At(t, srv.Get("/api/v1/notices", 200).JSON, "notices").([]any)); n != 2 {
		t.Errorf("%d notices after the refused commands, want the 2 imported", n)
	}

	// Every other flag that reads a variable: the variable holds a good
	// value, the flag is given empty.
	db := srv.DB
	for _, tc := range []struct {
		args      []string
		flag, env string
		says      string // in the error; "--FLAG is empty" when ""
	}{
		{[]string{"serve", "--addr", "127.0.0.1:0", "--db", ""}, "db", db, ""},
		{[]string{"serve", "--db", db, "--addr", ""}, "addr", "127.0.0.1:0", ""},
		{[]string{"serve", "--db", db, "--addr", "127.0.0.1:0", "--variant", ""}, "variant", "b", ""},
		{[]string{"serve", "--db", db, "--addr", "127.0.0.1:0", "--rate-limit", ""}, "rate-limit", "5", ""},
		{[]string{"serve", "--db", db, "--addr", "127.0.0.1:0", "--log-level", ""}, "log-level", "debug", ""},
		{[]string{"serve", "--db", db, "--addr", "127.0.0.1:0", "--log-format", ""}, "log-format", "json", ""},
		{[]string{"serve", "--db", db, "--addr", "127.0.0.1:0", "--admin-addr", ""}, "admin-addr", "127.0.0.1:0", ""},
		{[]string{"serve", "--db", db, "--addr", "127.0.0.1:0", "--base-url", ""}, "base-url", "https://status.example.com", ""},
		{[]string{"serve", "--db", db, "--addr", "127.0.0.1:0", "--trusted-proxies", ""}, "trusted-proxies", "10.0.0.0/8", ""},
		{[]string{"serve", "--db", db, "--addr", "127.0.0.1:0", "--max-in-flight", ""}, "max-in-flight", "10", "invalid value \"\" for flag -max-in-flight"},
		{[]string{"export", "--db", ""}, "db", db, ""},
		{[]string{"import", "--db", "", "doc.json"}, "db", db, ""},
		{[]string{"token", "list", "--db", ""}, "db", db, ""},
		{[]string{"audit", "--db", ""}, "db", db, ""},
		{[]string{"backup", "--db", "", filepath.Join(t.TempDir(), "copy.db")}, "db", db, ""},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			// A serve that started anyway stops after 3 s, with success.
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
			defer cancel()
			env := map[string]string{"STATUSD_" + strings.ToUpper(strings.ReplaceAll(tc.flag, "-", "_")): tc.env}
			var out, errOut strings.Builder
			err := run(ctx, tc.args, func(k string) string { return env[k] }, strings.NewReader(""), &out, &errOut)
			says := tc.says
			if says == "" {
				says = "--" + tc.flag + " is empty"
			}
			if code := exitCode(err); code != exitCodeUsage || !strings.Contains(fmt.Sprint(err), says) {
				t.Errorf("exit %d (%v), want 2 saying %s\n%s", code, err, says, errOut.String())
			}
		})
	}
}

// TestCLIComponentOwnParent: moving a component under itself or under one
// of its descendants is refused with 422 invalid_field saying which, in the
// admin API and through the CLI (exit 5), and changes nothing.
func TestCLIComponentOwnParent(t *testing.T) {
	srv, token := opSetup(t, opDoc(time.Now())) // 3 Database has the child 4 Replica
	for _, tc := range []struct {
		id, body, want string
	}{
		{"2", `{"parent_id": 2}`, "parent_id: a component cannot be its own parent"},
		{"3", `{"parent_id": 4}`, "parent_id: a component cannot be moved under its own descendant 4"},
		{"3", `{"parent_id": 4, "position": 1}`, "parent_id: a component cannot be moved under its own descendant 4"},
	} {
		r := srv.Refuse(token, "PATCH", "/components/"+tc.id, tc.body, 422, "invalid_field")
		if msg := testserver.ErrorMessage(r); msg != tc.want {
			t.Errorf("PATCH /components/%s %s: message %q, want %q", tc.id, tc.body, msg, tc.want)
		}
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"component", "move", "API", "--parent", "API"}, "refused by the server: parent_id: a component cannot be its own parent"},
		{[]string{"component", "move", "database", "--parent", "4"}, "refused by the server: parent_id: a component cannot be moved under its own descendant 4"},
	} {
		_, _, err := opCLI(t, srv, token, tc.args...)
		if exitCode(err) != exitCodeRefused || fmt.Sprint(err) != tc.want {
			t.Errorf("%q: exit %d (%v), want 5 with %q", tc.args, exitCode(err), err, tc.want)
		}
	}
}

// TestCLIDoesNotFollowRedirects: a server that answers a redirect gets no
// second request and the bearer token goes nowhere else; the error names
// the server URL to give --url instead (exit 2).
func TestCLIDoesNotFollowRedirects(t *testing.T) {
	var mu sync.Mutex
	var reached []string // requests the redirect target received, with their Authorization
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		reached = append(reached, r.Method+" "+r.URL.String()+" "+r.Header.Get("Authorization"))
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"notices": [], "components": [], "meta": {"count": 0, "total_count": 0, "next_page": null}}`)
	}))
	defer target.Close()
	redirector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Query().Get("page") {
		case "2": // relative, to another prefix on the same server
			http.Redirect(w, r, "/status"+r.URL.RequestURI(), http.StatusMovedPermanently)
		default: // absolute, to another server, keeping the method and body
			http.Redirect(w, r, target.URL+r.URL.RequestURI(), http.StatusTemporaryRedirect)
		}
	}))
	defer redirector.Close()

	for _, tc := range []struct {
		args []string
		to   string
	}{
		{[]string{"notice", "list"}, target.URL},
		{[]string{"incident", "open", "--component", "1", "-m", "Down."}, target.URL},
		{[]string{"notice", "list", "--page", "2"}, redirector.URL + "/status"},
	} {
		stdout, _, err := cliEnv(t, nil, append(tc.args, "--url", redirector.URL, "--token", "sdt_secret")...)
		want := "the server answered a redirect to " + tc.to + "; use that URL with --url"
		if exitCode(err) != exitCodeUsage || fmt.Sprint(err) != want || stdout != "" {
			t.Errorf("%q: exit %d (%v), stdout %q; want 2 with %q", tc.args, exitCode(err), err, stdout, want)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(reached) > 0 {
		t.Errorf("the redirect was followed: %q", reached)
	}
}

// cliAssertPrintable fails unless out holds no control character but the
// newline, no format character and no line or paragraph separator, and
// holds every one of want.
func cliAssertPrintable(t *testing.T, what, out string, want ...string) {
	t.Helper()
	for _, r := range out {
		if r != '\n' && (unicode.IsControl(r) || unicode.In(r, unicode.Cf, unicode.Zl, unicode.Zp) || r == utf8.RuneError) {
			t.Errorf("%s: the output holds %U:\n%s", what, r, out)
			break
		}
	}
	for _, w := range want {
		if !strings.Contains(out, w) {
			t.Errorf("%s: %q missing in\n%s", what, w, out)
		}
	}
}

// TestCLIEscapesControlCharacters: names, subjects, contents, tags and
// audit details holding terminal escapes, bidi overrides, tabs and
// newlines are printed escaped by every human-readable output, so that a
// token holder cannot hide or forge lines of statusd audit; --json prints
// them exactly.
func TestCLIEscapesControlCharacters(t *testing.T) {
	srv, _ := opSetup(t, opDoc(time.Now()))
	evilToken := newToken(t, srv.DB, "mallory\x1b[1A\x1b[2K")
	const (
		name    = "Evil\x1b[2K\rInnocent\u202e"
		nameEsc = `Evil\x1b[2K\x0dInnocent\u202e`
		subject = "Outage\x1b]0;pwned\x07\u2066"
		subjEsc = `Outage\x1b]0;pwned\x07\u2066`
	)
	body, _ := json.Marshal(map[string]any{"name": name, "description": "a\tcolumn\nand a line\u0085"})
	comp := srv.AdminOK("POST", "/components", evilToken, string(body), 201)
	id := fmt.Sprint(comp["id"])
	body, _ = json.Marshal(map[string]any{"type": "unplanned", "subject": subject, "state": "investigating",
		"content": "first\x1b[31m red\x1b[0m", "component_ids": []any{comp["id"]}, "tag_list": []string{"tag\x1b[8m"}})
	notice := fmt.Sprint(srv.AdminOK("POST", "/notices", evilToken, string(body), 201)["id"])

	env := map[string]string{"STATUSD_URL": srv.URL, "STATUSD_TOKEN": evilToken}
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"component", "list"}, []string{nameEsc, `a\x09column\x0aand a line\u0085`}},
		{[]string{"notice", "list"}, []string{subjEsc}},
		{[]string{"notice", "show", notice}, []string{subjEsc, nameEsc + " (" + id, `tag\x1b[8m`, `first\x1b[31m red\x1b[0m`}},
		{[]string{"incident", "update", notice, "-m", "Still\x1b[2J on it."}, []string{" on " + nameEsc + "\n"}},
		{[]string{"audit", "--db", srv.DB}, []string{`mallory\x1b[1A\x1b[2K`, nameEsc}},
		{[]string{"token", "list", "--db", srv.DB}, []string{`mallory\x1b[1A\x1b[2K`}},
	} {
		stdout, stderr, err := cliEnv(t, env, tc.args...)
		if err != nil {
			t.Fatalf("%q: %v\n%s", tc.args, err, stderr)
		}
		cliAssertPrintable(t, strings.Join(tc.args, " "), stdout+stderr, tc.want...)
	}

	// --json is the server's answer, exactly.
	out, _, err := cliEnv(t, env, "component", "list", "--json")
	var list struct {
		Components []struct{ Name string } `json:"components"`
	}
	if err != nil || json.Unmarshal([]byte(out), &list) != nil || list.Components[len(list.Components)-1].Name != name {
		t.Errorf("component list --json: %v, %q; want the name %q exactly", err, out, name)
	}

	// The problems of an import document, such as a key of its own.
	doc := writeDoc(t, `{"page": {"name": "P", "url": "https://p.test", "created_at": "2026-01-01T00:00:00Z", "k\u001b[2K": 1}}`)
	_, problems, err := cliEnv(t, nil, "import", "--db", filepath.Join(t.TempDir(), "new.db"), doc)
	if err == nil {
		t.Error("import of a document with an unknown key succeeded")
	}
	cliAssertPrintable(t, "import", problems, `page.k\x1b[2K: unknown key`)

	// An error message from a server is escaped too, by the binary.
	fake := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(422)
		json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"status": 422, "code": "invalid_field",
			"message": "name: \x1b[2K" + name}})
	}))
	defer fake.Close()
	cmd := statusdCmd("component", "add", "X", "--url", fake.URL, "--token", "sdt_x")
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	var ee *exec.ExitError
	if err := cmd.Run(); !errors.As(err, &ee) || ee.ExitCode() != exitCodeRefused {
		t.Errorf("component add against a refusing server: %v, want exit 5", err)
	}
	cliAssertPrintable(t, "the error", stdout.String()+stderr.String(), `name: \x1b[2K`+nameEsc)
}

// TestCLIServeRefusesABaseURLWithoutScheme: serve starts only with a
// --base-url (or $STATUSD_BASE_URL) that is an absolute http or https URL
// with a host; anything else is a usage error at start naming it.
func TestCLIServeRefusesABaseURLWithoutScheme(t *testing.T) {
	db := filepath.Join(t.TempDir(), "statusd.db")
	importDoc(t, db, opDoc(time.Now()))
	for _, tc := range []struct {
		base string
		env  bool
	}{
		{"status.example.com", false},
		{"status.example.com/acme", true},
		{"//status.example.com", false},
		{"ftp://status.example.com", false},
		{"https://", false},
		{"https:status.example.com", false},
		{"/status", true},
	} {
		// A serve that started anyway stops after 3 s, with success.
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		args := []string{"serve", "--db", db, "--addr", "127.0.0.1:0"}
		env := map[string]string{}
		if tc.env {
			env["STATUSD_BASE_URL"] = tc.base
		} else {
			args = append(args, "--base-url", tc.base)
		}
		var logs strings.Builder
		err := run(ctx, args, func(k string) string { return env[k] }, nil, io.Discard, &logs)
		cancel()
		want := fmt.Sprintf("--base-url: %q must be an absolute http or https URL", tc.base)
		if exitCode(err) != exitCodeUsage || !strings.Contains(fmt.Sprint(err), want) || strings.Contains(logs.String(), "listening") {
			t.Errorf("--base-url %q (in the environment: %v): exit %d (%v), want 2 at start saying %s\n%s", tc.base, tc.env, exitCode(err), err, want, logs.String())
		}
	}
	srv := serveDB(t, db, "--base-url", "http://status.example.com:8443/acme")
	if got := testserver.At(t, srv.Get("/api/v1/status", 200).JSON, "page.url"); got != "http://status.example.com:8443/acme" {
		t.Errorf("page.url %v with a good --base-url", got)
	}
}

// TestCLIDemoSaysItIsRebuilt: serve --demo says in its log that the demo
// page is rebuilt at every start and replaces what was published on it.
func TestCLIDemoSaysItIsRebuilt(t *testing.T) {
	srv := serveDB(t, filepath.Join(t.TempDir(), "demo.db"), "--demo")
	const want = `msg="the demo page is rebuilt around the current time at every start; what was published on it before is replaced"`
	if !strings.Contains(srv.Logs.String(), want) {
		t.Errorf("the log does not say %s:\n%s", want, srv.Logs)
	}
}

// TestCLIInit: statusd init starts a page in an empty database, with its
// top-level components in the order given, and refuses a database that
// holds a page, naming it, without changing it.
func TestCLIInit(t *testing.T) {
	db := filepath.Join(t.TempDir(), "statusd.db")
	before := time.Now()
	if _, stderr, err := cli(t, "", "init", "--db", db, "--name", "Acme Status", "--url", "https://status.acme.test",
		"API", "Web site", "Database"); err != nil {
		t.Fatalf("init: %v\n%s", err, stderr)
	}
	after := time.Now()
	out, doc := cliExport(t, db)
	created := testserver.ParseTS(t, testserver.At(t, doc, "page.created_at"))
	testserver.Within(t, "page.created_at", created, before, after)
	stamp := testserver.TS(created)
	comp := func(id int, name string) testserver.Obj {
		return testserver.Obj{"id": id, "name": name, "description": "", "parent_id": nil, "metrics_enabled": false,
			"created_at": stamp, "updated_at": stamp}
	}
	testserver.AssertJSON(t, "the document", doc, testserver.Obj{
		"page":        testserver.Obj{"name": "Acme Status", "url": "https://status.acme.test", "created_at": stamp, "updated_at": stamp},
		"components":  []testserver.Obj{comp(1, "API"), comp(2, "Web site"), comp(3, "Database")},
		"notices":     []any{},
		"subscribers": []any{}, // export writes them (C5), and init makes none
		"sources":     []any{}, // the same (C9)
	})

	// A database with a page: exit 1 naming the page, nothing changed.
	_, _, err := cli(t, "", "init", "--db", db, "--name", "Other", "--url", "https://other.test", "X")
	if code := exitCode(err); code != exitCodeFailure || !strings.Contains(fmt.Sprint(err), `"Acme Status"`) {
		t.Errorf("init over a page: exit %d (%v), want 1 naming \"Acme Status\"", code, err)
	}
	if again, _, _ := cli(t, "", "export", "--db", db); again != out {
		t.Errorf("the refused init changed the database:\n%s", again)
	}

	// Usage errors, found before any database is created.
	fresh := filepath.Join(t.TempDir(), "fresh.db")
	for _, tc := range []struct {
		args []string
		says string
	}{
		{[]string{"--url", "https://a.test"}, "--name"},
		{[]string{"--name", "A"}, "--url"},
		{[]string{"--name", "A", "--url", "status.acme.test"}, `page.url: "status.acme.test" must be an absolute http or https URL`},
		{[]string{"--name", " ", "--url", "https://a.test"}, "page.name: must not be empty"},
		{[]string{"--name", "A", "--url", "https://a.test", "API", ""}, "components[1].name: must not be empty"},
	} {
		_, _, err := cli(t, "", append([]string{"init", "--db", fresh}, tc.args...)...)
		if code := exitCode(err); code != exitCodeUsage || !strings.Contains(fmt.Sprint(err), tc.says) {
			t.Errorf("init %q: exit %d (%v), want 2 saying %s", tc.args, code, err, tc.says)
		}
	}
	if _, err := os.Stat(fresh); err == nil {
		t.Errorf("a refused init created %s", fresh)
	}
}

// TestCLIImportDefaultsThePageCreatedAt: a document whose page has no
// created_at gets the time of the import (and updated_at the same).
func TestCLIImportDefaultsThePageCreatedAt(t *testing.T) {
	db := filepath.Join(t.TempDir(), "statusd.db")
	before := time.Now()
	importDoc(t, db, `{"page": {"name": "Hand Made", "url": "https://hand.test"},
		"components": [{"id": 1, "name": "API", "created_at": "2026-01-01T00:00:00Z"}]}`)
	after := time.Now()
	_, doc := cliExport(t, db)
	testserver.Within(t, "page.created_at", testserver.ParseTS(t, testserver.At(t, doc, "page.created_at")), before, after)
	if testserver.At(t, doc, "page.updated_at") != testserver.At(t, doc, "page.created_at") {
		t.Errorf("page.updated_at %v, want its created_at %v", testserver.At(t, doc, "page.updated_at"), testserver.At(t, doc, "page.created_at"))
	}
}

// cliExport exports the database at db and returns the document, as text
// and decoded.
func cliExport(t *testing.T, db string) (string, map[string]any) {
	t.Helper()
	out := export(t, db)
	var doc map[string]any
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	return out, doc
}
