package main

// The console's flags and the user commands, which need run; the console
// itself is tested in internal/server.

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/statusd/statusd/internal/testserver"
)

// TestConsoleOIDCFlags: the three flags go together, the issuer is https
// or loopback, and with --admin-addr the redirect URI needs --console-url;
// each refusal is a usage error that says what to give.
func TestConsoleOIDCFlags(t *testing.T) {
	db := filepath.Join(t.TempDir(), "statusd.db")
	for _, tc := range []struct {
		env  map[string]string
		args []string
		want string
	}{
		{nil, []string{"--oidc-issuer", "https://id.acme.test"}, "needs --oidc-issuer, --oidc-client-id and --oidc-client-secret together; missing --oidc-client-id, --oidc-client-secret"},
		{map[string]string{"STATUSD_OIDC_CLIENT_ID": "c", "STATUSD_OIDC_CLIENT_SECRET": "hush-hush"}, nil, "missing --oidc-issuer"},
		{nil, []string{"--oidc-issuer", "http://id.acme.test", "--oidc-client-id", "c", "--oidc-client-secret", "hush-hush"}, `--oidc-issuer: "http://id.acme.test" must be https`},
		{nil, []string{"--oidc-issuer", "id.acme.test", "--oidc-client-id", "c", "--oidc-client-secret", "hush-hush"}, "is not an absolute https URL"},
		{nil, []string{"--admin-addr", "127.0.0.1:0", "--oidc-issuer", "https://id.acme.test", "--oidc-client-id", "c", "--oidc-client-secret", "hush-hush"}, "with --admin-addr needs --console-url"},
		{nil, []string{"--console-url", "admin.acme.test"}, "--console-url: \"admin.acme.test\" must be an absolute http or https URL"},
		// An address it cannot listen on: were the flag taken alone, serve
		// would fail at once, not run.
		{map[string]string{"STATUSD_OIDC_TRUST_EMAIL": "true"}, []string{"--addr", "nowhere:-1"}, "--oidc-trust-email is for sign-in with OpenID Connect"},
	} {
		args := append([]string{"serve", "--db", db}, tc.args...)
		_, stderr, err := cliEnv(t, tc.env, args...)
		if exitCode(err) != exitCodeUsage || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v %v: exit %d, %v; want 2 and %q", tc.env, tc.args, exitCode(err), err, tc.want)
		}
		if strings.Contains(err.Error()+stderr, "hush-hush") {
			t.Errorf("%v %v: the secret is shown: %v\n%s", tc.env, tc.args, err, stderr)
		}
	}
}

// TestConsoleOIDCHelp: serve -h names the redirect URI to register at the
// provider and --oidc-trust-email.
func TestConsoleOIDCHelp(t *testing.T) {
	out, _, err := cliEnv(t, nil, "serve", "-h")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"register the redirect URI <console URL>/manage/oidc/callback at the provider", "--oidc-trust-email"} {
		if !strings.Contains(strings.Join(strings.Fields(out), " "), want) {
			t.Errorf("serve -h lacks %q:\n%s", want, out)
		}
	}
}

// TestServeEnvFile: packaging/statusd.env lists the console's URL and the
// OpenID Connect settings, and each variable it lists is a serve flag's.
func TestServeEnvFile(t *testing.T) {
	env, err := os.ReadFile("../../packaging/statusd.env")
	if err != nil {
		t.Fatal(err)
	}
	help, _, err := cliEnv(t, nil, "serve", "-h")
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^#?STATUSD_([A-Z_]+)=`).FindAllStringSubmatch(string(env), -1) {
		listed[m[1]] = true
		if flag := "--" + strings.ReplaceAll(strings.ToLower(m[1]), "_", "-"); !strings.Contains(help, flag) {
			t.Errorf("statusd.env lists STATUSD_%s, but serve has no %s", m[1], flag)
		}
	}
	for _, v := range []string{"CONSOLE_URL", "OIDC_ISSUER", "OIDC_CLIENT_ID", "OIDC_CLIENT_SECRET", "OIDC_TRUST_EMAIL"} {
		if !listed[v] {
			t.Errorf("statusd.env does not list STATUSD_%s", v)
		}
	}
}

// TestConsoleURLUnknown: with --admin-addr and no --console-url statusd
// does not know where people reach the console: a setup link is its path,
// which the CLI says to open on the admin listener (that the session
// cookie is not Secure then is checked in internal/server).
func TestConsoleURLUnknown(t *testing.T) {
	srv := startServer(t, testserver.Fixture(time.Now().UTC()), "--admin-addr", "127.0.0.1:0")
	token := newToken(t, srv.DB, "alice")
	out, stderr, err := cli(t, "", "user", "add", "--email", "ann@example.com", "--role", "viewer", "--url", srv.AdminURL, "--token", token)
	if err != nil {
		t.Fatalf("user add: %v\n%s", err, stderr)
	}
	lines := strings.Split(out, "\n")
	link, _ := strings.CutPrefix(lines[1], "setup link: ")
	if !strings.HasPrefix(link, "/manage/setup?token=") || !strings.Contains(out, "open it on the admin listener") {
		t.Fatalf("user add:\n%s", out)
	}
	testserver.SetupToken(t, link)
}

// TestUserCLI: statusd user add prints the setup link; list, reset and
// remove work by id and say what to do when the id is unknown.
func TestUserCLI(t *testing.T) {
	srv := startServer(t, testserver.Fixture(time.Now().UTC()))
	token := newToken(t, srv.DB, "alice")
	out := opMust(t, srv, token, "user", "add", "--email", "Vic@Example.com", "--role", "viewer")
	lines := strings.Split(out, "\n")
	if lines[0] != "added user 1 vic@example.com (viewer)" || !strings.HasPrefix(lines[1], "setup link: ") {
		t.Fatalf("user add:\n%s", out)
	}
	first := testserver.SetupToken(t, strings.TrimPrefix(lines[1], "setup link: "))

	out = opMust(t, srv, token, "user", "list")
	if !regexp.MustCompile(`(?m)^ID +ROLE +STATE +CREATED +EMAIL\n1 +viewer +pending +\S+ +vic@example.com\n$`).MatchString(out) {
		t.Errorf("user list:\n%s", out)
	}
	out = opMust(t, srv, token, "user", "reset", "1")
	lines = strings.Split(out, "\n")
	if lines[0] != "reset user 1 vic@example.com (viewer)" || testserver.SetupToken(t, strings.TrimPrefix(lines[1], "setup link: ")) == first {
		t.Errorf("user reset:\n%s", out)
	}
	if out := opMust(t, srv, token, "user", "remove", "1"); out != "removed user 1, and ended its sessions\n" {
		t.Errorf("user remove: %q", out)
	}
	_, stderr, err := opCLI(t, srv, token, "user", "remove", "1")
	if exitCode(err) != exitCodeNotFound || !strings.Contains(err.Error()+stderr, "statusd user list shows the users") {
		t.Errorf("removing again: exit %d, %v %s", exitCode(err), err, stderr)
	}
	_, _, err = opCLI(t, srv, token, "user", "add", "--email", "x@example.com")
	if exitCode(err) != exitCodeUsage || !strings.Contains(err.Error(), "--role viewer, publisher or owner") {
		t.Errorf("add without a role: exit %d, %v", exitCode(err), err)
	}
	_, _, err = opCLI(t, srv, token, "user", "add", "--email", "not an address", "--role", "owner")
	if exitCode(err) != exitCodeRefused || !strings.Contains(err.Error(), `email: "not an address" is not an email address`) {
		t.Errorf("add of a bad address: exit %d, %v", exitCode(err), err)
	}
}
