// Command statusd publishes the status of a service: a read-only JSON API
// (and later HTML pages) served from an embedded SQLite database.
//
// Usage:
//
//	statusd serve  [flags]          run the server
//	statusd import [flags] FILE|-   load a page document atomically
//	statusd export [flags]          write the page document to standard output
//
// Run "statusd COMMAND -h" for a command's flags.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Getenv, os.Stdin, os.Stdout, os.Stderr)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "statusd:", printable(err.Error()))
		code := exitCodeFailure
		var ee *exitError
		if errors.As(err, &ee) {
			code = ee.Code
		}
		os.Exit(code)
	}
}

const usage = `statusd publishes the status of a service.

Usage:
  statusd serve  [flags]          run the server (statusd serve --demo to try it)
  statusd init --name N --url U [COMPONENT...]
                                  start a page and its components in an empty database
  statusd import [flags] FILE|-   load a page document atomically
  statusd export [flags]          write the page document to standard output
  statusd token create --name N   print a new admin API token (also: token list, token revoke NAME)
  statusd audit [flags]           print the audit log, newest first
  statusd migrate --from A --to B copy a whole store, e.g. SQLite into PostgreSQL
  statusd backup [--db PATH] FILE an online, consistent copy of a SQLite database
  statusd version                 print the version, commit and Go version

Operator commands, clients of a running server's admin API:
  statusd incident open|update|resolve|reopen|edit    publish an incident and its progress
  statusd maintenance schedule|start|complete|cancel|update|reschedule|edit
                                                      publish planned maintenance
  statusd announce -m MESSAGE [--expires T]           publish a general notice
  statusd announcement withdraw|edit                  take it off the page, change it
  statusd notice list|show|edit|update|reopen|rm      read and change any notice
  statusd component add|list|show|edit|move|rm        manage the page's components
  statusd page show|edit                              the page's name, URL and state texts
  statusd subscriber add|list|show|set|remove|test    who is told of notices: email, webhooks, chat
  statusd deliveries [--subscriber ID] [--state S]    what was sent to them, newest first
  statusd user add|list|remove|reset                  who may sign in to the console (/manage)
  statusd audit --url URL                             the audit log, from the server
Each takes --url (or $STATUSD_URL, default http://127.0.0.1:8080),
--token (or $STATUSD_TOKEN, from statusd token create) and --json (print the
server's JSON answer instead of a summary). Components are named by id or name.
Publishing a notice or an update tells its subscribers, unless --no-notify.

Exit codes (3 to 6 from the operator commands only):
  0 success, and help (-h)        4 not found (404)
  1 any other failure             5 refused by the server (400, 409, 413, 422)
  2 usage error (flags, arguments, an ambiguous component name)
  3 not authorized (401)          6 server unreachable or unavailable (no answer, 429, 5xx)

Run "statusd COMMAND -h" or "statusd help COMMAND" for a command's flags.
`

// run is the whole program behind main, so that tests can call it. Help
// asked for with -h is a success.
func run(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error {
	if err := command(ctx, args, getenv, stdin, stdout, stderr); !errors.Is(err, flag.ErrHelp) {
		return err
	}
	return nil
}

// isHelp reports whether arg asks for help instead of naming a command.
func isHelp(arg string) bool {
	return arg == "help" || arg == "-h" || arg == "-help" || arg == "--help"
}

// command runs the command args name.
func command(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return exitErrorf(exitCodeUsage, "no command given")
	}
	if args[0] == "help" && len(args) > 1 {
		// statusd help incident open: that command's help, on stdout.
		return command(ctx, slices.Concat(args[1:], []string{"-h"}), getenv, stdin, stdout, stdout)
	}
	if isHelp(args[0]) {
		fmt.Fprint(stdout, usage)
		return nil
	}
	switch args[0] {
	case "serve":
		return serve(ctx, args[1:], getenv, stderr)
	case "init":
		return initCmd(ctx, args[1:], getenv, stderr)
	case "import":
		return importCmd(ctx, args[1:], getenv, stdin, stderr)
	case "export":
		return exportCmd(ctx, args[1:], getenv, stdout, stderr)
	case "token":
		return tokenCmd(ctx, args[1:], getenv, stdout, stderr)
	case "audit":
		return auditCmd(ctx, args[1:], getenv, stdout, stderr)
	case "migrate":
		return migrateCmd(ctx, args[1:], getenv, stderr)
	case "backup":
		return backupCmd(ctx, args[1:], getenv, stderr)
	case "incident":
		return incidentCmd(ctx, args[1:], getenv, stdout, stderr)
	case "maintenance":
		return maintenanceCmd(ctx, args[1:], getenv, stdout, stderr)
	case "announce":
		return announceCmd(ctx, args[1:], getenv, stdout, stderr)
	case "announcement":
		return announcementCmd(ctx, args[1:], getenv, stdout, stderr)
	case "page":
		return pageCmd(ctx, args[1:], getenv, stdout, stderr)
	case "component":
		return componentCmd(ctx, args[1:], getenv, stdout, stderr)
	case "notice":
		return noticeCmd(ctx, args[1:], getenv, stdout, stderr)
	case "subscriber":
		return subscriberCmd(ctx, args[1:], getenv, stdout, stderr)
	case "user":
		return userCmd(ctx, args[1:], getenv, stdout, stderr)
	case "deliveries":
		return deliveriesCmd(ctx, args[1:], getenv, stdout, stderr)
	case "version", "--version":
		return versionCmd(args[1:], getenv, stdout, stderr)
	}
	fmt.Fprint(stderr, usage)
	return exitErrorf(exitCodeUsage, "unknown command %q", args[0])
}
