package cli

import (
	"context"
	"strings"
	"testing"
)

// execute runs statusd with args, as main does but for serve and version,
// in an empty environment, and returns its stdout, stderr and exit code.
func execute(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var stdout, stderr strings.Builder
	env := Env{Getenv: func(string) string { return "" }, Stdin: strings.NewReader(""), Stdout: &stdout, Stderr: &stderr}
	err := Execute(context.Background(), New(env), args)
	return stdout.String(), stderr.String(), ExitCode(err)
}

// TestHelpOnStdout: -h, --help and help COMMAND print the command's help
// on stdout, with nothing on stderr, and exit 0.
func TestHelpOnStdout(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-h"}, "Run \"statusd COMMAND -h\""},
		{[]string{"--help"}, "statusd completion bash|zsh|fish"},
		{[]string{"help"}, "statusd incident open|update"},
		{[]string{"incident", "-h"}, "\n  statusd incident open --component C"},
		{[]string{"help", "incident"}, "\n  statusd incident resolve ID -m MESSAGE"},
		{[]string{"incident", "open", "-h"}, "Usage: statusd incident open --component C"},
		{[]string{"incident", "open", "--help"}, "\n  --component id, key or name\n"},
		{[]string{"help", "incident", "open"}, "Usage: statusd incident open --component C"},
		{[]string{"notice", "ls", "-h"}, "Usage: statusd notice list [--page N]"},
		{[]string{"token", "create", "--help"}, "Usage: statusd token create --name NAME [--role ROLE] [--db DATABASE]"},
		{[]string{"import", "-h"}, "Usage: statusd import [--db DATABASE] [--replace] FILE|-"},
		{[]string{"source", "--help"}, "\n  statusd source add NAME --format alertmanager|grafana|uptime_kuma|generic [--rules FILE|-]"},
		{[]string{"source", "add", "-h"}, "\nExamples:\n  statusd source add Prometheus --format alertmanager --heartbeat-match alertname=Watchdog\n"},
		{[]string{"draft", "--help"}, "\n  statusd draft publish ID [--subject S] [-m MESSAGE] [--state STATE] [--no-notify]"},
		{[]string{"help", "draft", "publish"}, "\n  --no-notify\n"},
	} {
		stdout, stderr, code := execute(t, tc.args...)
		if code != 0 || stderr != "" || !strings.Contains(stdout, tc.want) {
			t.Errorf("statusd %q: exit %d, stderr %q, stdout %q; want 0, nothing on stderr, %q on stdout", tc.args, code, stderr, stdout, tc.want)
		}
	}
}

// TestCompletion: statusd completion SHELL prints that shell's completion
// script on stdout.
func TestCompletion(t *testing.T) {
	for _, tc := range []struct{ shell, want string }{
		{"bash", "# bash completion V2 for statusd"},
		{"zsh", "#compdef statusd"},
		{"fish", "# fish completion for statusd"},
	} {
		stdout, stderr, code := execute(t, "completion", tc.shell)
		if code != 0 || !strings.HasPrefix(stdout, tc.want) {
			t.Errorf("completion %s: exit %d, stderr %q, stdout begins %.60q; want 0 and %q", tc.shell, code, stderr, stdout, tc.want)
		}
	}
	// The script completes the commands through statusd itself.
	stdout, _, code := execute(t, "__complete", "inc")
	if code != 0 || !strings.HasPrefix(stdout, "incident\t") {
		t.Errorf("__complete inc: exit %d, %q; want incident first", code, stdout)
	}
}

// TestDidYouMean: a mistyped command or subcommand is a usage error that
// names the ones it may have meant.
func TestDidYouMean(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"incidnet"}, `statusd: unknown command "incidnet"; did you mean incident?`},
		{[]string{"incident", "opn"}, `statusd: incident: unknown subcommand "opn"; did you mean open?`},
		{[]string{"component", "remove", "API"}, `statusd: component: unknown subcommand "remove"; did you mean move or rm?`},
		{[]string{"user", "delete", "1"}, `statusd: user: unknown subcommand "delete"; did you mean remove?`},
		{[]string{"help", "maintenace"}, `statusd: unknown command "maintenace"; did you mean maintenance?`},
	} {
		var stdout, stderr strings.Builder
		env := Env{Getenv: func(string) string { return "" }, Stdout: &stdout, Stderr: &stderr}
		err := Execute(context.Background(), New(env), tc.args)
		code := Report(&stderr, err)
		if code != ExitUsage || !strings.Contains(stderr.String(), tc.want+"\n") || stdout.Len() > 0 {
			t.Errorf("statusd %q: exit %d, stdout %q, stderr %q; want 2 and %q", tc.args, code, stdout.String(), stderr.String(), tc.want)
		}
	}
}

// TestFlagPlaceholders: help names a flag's value by the backquoted word
// of its help, never by a value that would read as its default, and says
// the variable a flag reads and its default.
func TestFlagPlaceholders(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"subscriber", "add", "-h"}, []string{
			"\n  --channel channel\n    \thow it is told, its channel: email, webhook",
			"\n  --url URL\n    \tURL of the statusd server ($STATUSD_URL) (default \"http://127.0.0.1:8080\")\n",
		}},
		{[]string{"user", "add", "-h"}, []string{"\n  --role role\n"}},
		{[]string{"incident", "open", "-h"}, []string{"\n  -m, --message text\n", "\n  --state state\n"}},
		{[]string{"export", "-h"}, []string{"\n  --db database\n    \tthe database: a SQLite file path or a postgres:// URL ($STATUSD_DB) (default \"statusd.db\")\n"}},
	} {
		stdout, _, code := execute(t, tc.args...)
		for _, want := range tc.want {
			if code != 0 || !strings.Contains(stdout, want) {
				t.Errorf("statusd %q: exit %d; %q missing in\n%s", tc.args, code, want, stdout)
			}
		}
	}
}

// TestFlagErrors: a flag that does not parse is a usage error worded as
// the flag package words it, after the command's synopsis.
func TestFlagErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"notice", "list", "--bogus"}, "notice list: flag provided but not defined: --bogus"},
		{[]string{"notice", "list", "-x"}, "notice list: flag provided but not defined: -x"},
		{[]string{"export", "-db", "x.db"}, "export: flag provided but not defined: -d (a long flag takes two dashes: --db)"},
		{[]string{"notice", "list", "-page=2"}, "notice list: flag provided but not defined: -p (a long flag takes two dashes: --page)"},
		{[]string{"notice", "list", "--page"}, "notice list: flag needs an argument: --page"},
		{[]string{"notice", "list", "--page", "two"}, `notice list: invalid value "two" for flag -page: invalid syntax`},
		{[]string{"incident", "--bogus"}, "incident: flag provided but not defined: --bogus"},
	} {
		var stdout, stderr strings.Builder
		env := Env{Getenv: func(string) string { return "" }, Stdout: &stdout, Stderr: &stderr}
		err := Execute(context.Background(), New(env), tc.args)
		if ExitCode(err) != ExitUsage || err.Error() != tc.want || !strings.HasPrefix(stderr.String(), "Usage: statusd ") {
			t.Errorf("statusd %q: exit %d (%v), stderr %q; want 2 with %q after the synopsis", tc.args, ExitCode(err), err, stderr.String(), tc.want)
		}
		if strings.Contains(stderr.String(), "not defined") {
			t.Errorf("statusd %q: the error is printed before main prints it:\n%s", tc.args, stderr.String())
		}
	}
}
