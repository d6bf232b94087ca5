// Package cli is the statusd command line but for serve: the operator
// commands, clients of a running server's admin API (client.Admin), and
// the commands that work on a database directly (init, import, export,
// token, audit, migrate, backup). It is built on cobra: -h and --help
// print a command's help on standard output, "statusd completion
// bash|zsh|fish" prints a shell's completion script, and a mistyped
// command is answered with the ones it may have meant.
//
// Every error a command returns that is not a plain failure is an
// *ExitError carrying the exit code the process ends with; usage errors
// (exit 2) print the command's synopsis first. Flags read their
// STATUSD_* environment variable when not given (EnvFlags).
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
)

// Env is what the commands get from the process: its environment,
// standard input and outputs.
type Env struct {
	Getenv         func(string) string
	Stdin          io.Reader
	Stdout, Stderr io.Writer
}

// Exit codes, which scripts can rely on: main exits with the Code of the
// *ExitError a command returns, 1 for any other error. 3 to 6 come from
// the operator commands only.
const (
	ExitFailure      = 1 // any other failure
	ExitUsage        = 2 // bad flags or arguments
	ExitUnauthorized = 3 // 401: no token, or a wrong or revoked one
	ExitNotFound     = 4 // 404: no such notice, component, subscriber or endpoint
	ExitRefused      = 5 // 400, 409, 413, 422: the server refused the request
	ExitUnavailable  = 6 // no answer, 429 or 5xx
)

// ExitError is an error with the exit code the process should end with.
type ExitError struct {
	Code int
	Err  error
}

// Error is the message of the error carried.
func (e *ExitError) Error() string { return e.Err.Error() }

// Unwrap returns the error carried.
func (e *ExitError) Unwrap() error { return e.Err }

// Errorf returns an *ExitError with code and a formatted message.
func Errorf(code int, format string, args ...any) *ExitError {
	return &ExitError{Code: code, Err: fmt.Errorf(format, args...)}
}

// ExitCode is the code the process exits with after err: 0 for nil, the
// Code of an *ExitError, else 1.
func ExitCode(err error) int {
	var ee *ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee):
		return ee.Code
	}
	return ExitFailure
}

// rootUsage is the help of statusd itself.
const rootUsage = `statusd publishes the status of a service.

Usage:
  statusd serve  [flags]          run the server (statusd serve --demo to try it)
  statusd init --name N --url U [--metrics] [COMPONENT...]
                                  start a page and its components in an empty database
  statusd import [flags] FILE|-   load a page document atomically
  statusd export [flags]          write the page document to standard output
  statusd token create --name N   print a new admin API token (also: token list, token revoke NAME)
  statusd audit [flags]           print the audit log, newest first
  statusd migrate --from A --to B copy a whole store, e.g. SQLite into PostgreSQL
  statusd backup [--db PATH] FILE an online, consistent copy of a SQLite database
  statusd mirror verify URL --key KEY.pem
                                  check a mirror's signature and files, and print its age
  statusd version                 print the version, commit and Go version
  statusd completion bash|zsh|fish
                                  print a shell's completion script

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
  statusd source add|list|rm|rotate                   the senders of alerts, each with its hook and token
  statusd draft list|show|publish|discard             the notices alerts propose, published by a person
  statusd audit --url URL                             the audit log, from the server
Each takes --url (or $STATUSD_URL, default http://127.0.0.1:8080),
--token (or $STATUSD_TOKEN, from statusd token create) and --json (print the
server's JSON answer instead of a summary). Components are named by id, key or name.
Publishing a notice or an update tells its subscribers, unless --no-notify.

Exit codes (3 to 6 from the operator commands only):
  0 success, and help (-h)        4 not found (404)
  1 any other failure             5 refused by the server (400, 409, 413, 422)
  2 usage error (flags, arguments, an ambiguous component name)
  3 not authorized (401)          6 server unreachable or unavailable (no answer, 429, 5xx)

Run "statusd COMMAND -h" or "statusd help COMMAND" for a command's flags.
`

// New returns the root command with every command of this package; the
// caller adds serve and version, and runs it with Execute.
func New(env Env) *cobra.Command {
	root := &cobra.Command{
		Use:                        "statusd COMMAND",
		Short:                      "statusd publishes the status of a service",
		Args:                       cobra.ArbitraryArgs,
		SuggestionsMinimumDistance: 2,
		SilenceErrors:              true, // main prints the error, once
		SilenceUsage:               true,
		RunE: func(c *cobra.Command, args []string) error {
			if len(args) == 0 {
				fmt.Fprint(env.Stderr, rootUsage)
				return Errorf(ExitUsage, "no command given")
			}
			return unknownCommand(c, args[0])
		},
		PersistentPreRunE: func(c *cobra.Command, _ []string) error { return applyEnv(c, env.Getenv) },
	}
	root.SetIn(env.Stdin)
	root.SetOut(env.Stdout)
	root.SetErr(env.Stderr)
	root.SetFlagErrorFunc(flagError)
	root.SetHelpFunc(func(c *cobra.Command, _ []string) { writeHelp(c.OutOrStdout(), c) })
	root.SetHelpCommand(&cobra.Command{
		Use:   "help [COMMAND]",
		Short: "print a command's help",
		RunE: func(c *cobra.Command, args []string) error {
			target, rest, err := c.Root().Find(args)
			if err != nil {
				return err
			}
			if len(rest) > 0 {
				return unknownCommand(target, rest[0])
			}
			writeHelp(c.OutOrStdout(), target)
			return nil
		},
	})
	root.AddCommand(
		env.initCommand(), env.importCommand(), env.exportCommand(), env.tokenCommand(), env.auditCommand(),
		env.migrateCommand(), env.backupCommand(), env.mirrorCommand(),
		env.incidentCommand(), env.maintenanceCommand(), env.announceCommand(), env.announcementCommand(),
		env.noticeCommand(), env.componentCommand(), env.pageCommand(), env.subscriberCommand(),
		env.deliveriesCommand(), env.userCommand(), env.sourceCommand(), env.draftCommand(),
	)
	return root
}

// Execute runs the command args name under root. Help asked for with -h,
// --help or "help" is a success.
func Execute(ctx context.Context, root *cobra.Command, args []string) error {
	if args == nil {
		args = []string{} // cobra reads os.Args when given none
	}
	root.SetArgs(args)
	return root.ExecuteContext(ctx)
}

// Command returns a command whose synopsis, after "statusd PARENT", is
// use: its first word is its name.
func Command(use, short string) *cobra.Command {
	return &cobra.Command{Use: use, Short: short}
}

// group returns a command that only holds subcommands: without one, or
// with one it does not know, it is a usage error; long is what its help
// adds below the synopses of its subcommands.
func group(name, short, long string, subs ...*cobra.Command) *cobra.Command {
	g := &cobra.Command{Use: name + " COMMAND", Short: short, Long: long, SuggestionsMinimumDistance: 2,
		RunE: func(c *cobra.Command, args []string) error {
			if len(args) == 0 {
				writeSynopses(c.ErrOrStderr(), c)
				return Errorf(ExitUsage, "%s: say which subcommand", commandName(c))
			}
			return unknownCommand(c, args[0])
		}}
	g.AddCommand(subs...)
	return g
}

// unknownCommand is the usage error of a command c does not have, with
// the ones it may have meant.
func unknownCommand(c *cobra.Command, name string) error {
	msg := fmt.Sprintf("unknown command %q", name)
	if c.HasParent() {
		msg = fmt.Sprintf("%s: unknown subcommand %q", commandName(c), name)
	}
	if s := c.SuggestionsFor(name); len(s) > 0 {
		msg += fmt.Sprintf("; did you mean %s?", strings.Join(s, " or "))
	}
	fmt.Fprintf(c.ErrOrStderr(), "Run \"%s -h\" for the commands.\n", c.CommandPath())
	return Errorf(ExitUsage, "%s", msg)
}

// commandName is the path of c, a subcommand, without "statusd":
// "incident open".
func commandName(c *cobra.Command) string {
	return strings.TrimPrefix(c.CommandPath(), c.Root().Name()+" ")
}

// synopsis is c's usage line: "statusd incident open --component C ...".
func synopsis(c *cobra.Command) string {
	if c.HasParent() {
		return c.Parent().CommandPath() + " " + c.Use
	}
	return c.Use
}

// UsageError prints c's synopsis and returns a usage error (exit code 2)
// that names the command.
func UsageError(c *cobra.Command, format string, args ...any) error {
	fmt.Fprintf(c.ErrOrStderr(), "Usage: %s\nRun \"%s -h\" for its flags.\n", synopsis(c), c.CommandPath())
	if !c.HasParent() {
		return Errorf(ExitUsage, format, args...) // main says "statusd: " before it
	}
	return Errorf(ExitUsage, "%s: %s", commandName(c), fmt.Sprintf(format, args...))
}

// writeHelp writes c's help: statusd's own, a group's subcommands, or a
// command's synopsis and flags.
func writeHelp(w io.Writer, c *cobra.Command) {
	switch {
	case !c.HasParent():
		fmt.Fprint(w, rootUsage)
	case c.HasAvailableSubCommands():
		writeSynopses(w, c)
	default:
		fmt.Fprintf(w, "Usage: %s\n", synopsis(c))
		if c.Long != "" {
			fmt.Fprintf(w, "\n%s\n", strings.TrimSpace(c.Long))
		}
		if c.HasAvailableFlags() {
			fmt.Fprintf(w, "\nFlags:\n")
			writeFlags(w, c.Flags())
		}
	}
}

// writeSynopses writes the synopses of a group's subcommands and the
// group's notes.
func writeSynopses(w io.Writer, c *cobra.Command) {
	fmt.Fprintln(w, "Usage:")
	for _, sub := range c.Commands() {
		if sub.IsAvailableCommand() {
			fmt.Fprintf(w, "  %s\n", synopsis(sub))
		}
	}
	if c.Long != "" {
		fmt.Fprintf(w, "  %s\n", strings.ReplaceAll(strings.TrimSpace(c.Long), "\n", "\n  "))
	}
	fmt.Fprintf(w, "Run \"%s COMMAND -h\" for a command's flags.\n", c.CommandPath())
}

// Report prints err on w as the last word of the process, "statusd: " and
// its message made printable, and returns the code to exit with.
func Report(w io.Writer, err error) int {
	fmt.Fprintln(w, "statusd:", printable(err.Error()))
	return ExitCode(err)
}
