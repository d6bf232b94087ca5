// Command statusd publishes the status of a service: a read-only JSON API,
// HTML pages, feeds and notifications, served from a SQLite or PostgreSQL
// database, with an admin API, a console, and a CLI.
//
// Usage:
//
//	statusd serve  [flags]          run the server
//	statusd import [flags] FILE|-   load a page document atomically
//	statusd export [flags]          write the page document to standard output
//	statusd incident open ...       an operator command, a client of the admin API
//
// Run "statusd -h" for every command, "statusd COMMAND -h" for a
// command's flags, and "statusd completion bash|zsh|fish" for a shell's
// completion script.
//
// This package is the process: signals, the exit code, and serve, whose
// flags, wiring and lifecycle are in serve.go. Every other command is in
// internal/cli, which builds the command tree on cobra.
package main

import (
	"context"
	"io"
	"os"
	"os/signal"
	"syscall"

	commands "github.com/statusd/statusd/internal/cli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Getenv, os.Stdin, os.Stdout, os.Stderr)
	stop()
	if err != nil {
		os.Exit(commands.Report(os.Stderr, err))
	}
}

// run is the whole program behind main, so that tests can call it: the
// commands of internal/cli, serve and version. Help asked for with -h is
// a success.
func run(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error {
	env := commands.Env{Getenv: getenv, Stdin: stdin, Stdout: stdout, Stderr: stderr}
	root := commands.New(env)
	root.AddCommand(serveCommand(env), versionCommand(env))
	root.Version = versionText()
	root.SetVersionTemplate("{{.Version}}")
	return commands.Execute(ctx, root, args)
}
