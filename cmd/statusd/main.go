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
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Getenv, os.Stdin, os.Stdout, os.Stderr)
	stop()
	switch {
	case err == nil:
	case errors.Is(err, flag.ErrHelp):
		os.Exit(2)
	default:
		fmt.Fprintln(os.Stderr, "statusd:", err)
		os.Exit(1)
	}
}

const usage = `statusd publishes the status of a service.

Usage:
  statusd serve  [flags]          run the server (statusd serve --demo to try it)
  statusd import [flags] FILE|-   load a page document atomically
  statusd export [flags]          write the page document to standard output
  statusd token create --name N   print a new admin API token (also: token list, token revoke NAME)
  statusd audit [flags]           print the audit log, newest first

Run "statusd COMMAND -h" for a command's flags.
`

// run is the whole program behind main, so that tests can call it.
func run(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return errors.New("no command given")
	}
	switch args[0] {
	case "serve":
		return serve(ctx, args[1:], getenv, stderr)
	case "import":
		return importCmd(ctx, args[1:], getenv, stdin, stderr)
	case "export":
		return exportCmd(ctx, args[1:], getenv, stdout, stderr)
	case "token":
		return tokenCmd(ctx, args[1:], getenv, stdout, stderr)
	case "audit":
		return auditCmd(ctx, args[1:], getenv, stdout, stderr)
	case "help", "-h", "-help", "--help":
		fmt.Fprint(stdout, usage)
		return nil
	}
	fmt.Fprint(stderr, usage)
	return fmt.Errorf("unknown command %q", args[0])
}
