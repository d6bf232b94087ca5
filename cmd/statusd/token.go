package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/internal/sqlstore"
)

const tokenSynopsis = `  statusd token create --name NAME [--db DATABASE]
  statusd token list [--db DATABASE]
  statusd token revoke NAME [--db DATABASE]
`

func tokenCmd(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	e := opEnv{getenv, stdout, stderr}
	sub := func(name string) func(context.Context, []string) error {
		return func(ctx context.Context, args []string) error { return e.token(ctx, name, args) }
	}
	return e.subcommand(ctx, "token", args, tokenSynopsis, map[string]func(context.Context, []string) error{
		"create": sub("create"), "list": sub("list"), "revoke": sub("revoke"),
	})
}

// token runs statusd token create, list or revoke.
func (e opEnv) token(ctx context.Context, sub string, args []string) error {
	synopsis := map[string]string{"create": "token create --name NAME", "list": "token list", "revoke": "token revoke NAME"}[sub]
	var db, name string
	fs := newFlagSet("token "+sub, synopsis+" [--db DATABASE]", e.getenv, e.stderr)
	fs.str(&db, "db", "statusd.db", dbUsage)
	if sub == "create" {
		fs.StringVar(&name, "name", "", "the token's `name`, shown in the audit log")
	}
	rest, err := fs.parse(args)
	if err != nil {
		return err
	}
	switch {
	case sub == "create" && (name == "" || len(rest) > 0):
		return fs.usageErr("needs --name NAME (and nothing else)")
	case sub == "list" && len(rest) > 0:
		return fs.usageErr("takes no arguments, got %q", rest)
	case sub == "revoke" && len(rest) != 1:
		return fs.usageErr("takes the token's NAME")
	}
	store, err := sqlstore.Open(ctx, db)
	if err != nil {
		return err
	}
	defer store.Close()
	tokens := store.Tokens()
	switch sub {
	case "create":
		secret, t, err := statusd.NewNamedToken(name, time.Now())
		if err != nil {
			return fs.usageErr("--%s", statusd.ErrorMessage(err))
		}
		if err := tokens.Create(ctx, t, nil); err != nil {
			return userError(err)
		}
		fmt.Fprintln(e.stdout, secret)
		fmt.Fprintf(e.stderr, "created token %q; it is shown only this once: keep it secret (statusd stores only its hash)\n", name)
		return nil
	case "list":
		list, err := tokens.List(ctx)
		if err != nil {
			return err
		}
		tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "NAME\tCREATED\tLAST USED")
		for _, t := range list {
			used := "never"
			if t.LastUsed != nil {
				used = t.LastUsed.Format(time.RFC3339)
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\n", printable(t.Name), t.CreatedAt.Format(time.RFC3339), used)
		}
		return tw.Flush()
	default: // revoke
		if err := tokens.Revoke(ctx, rest[0], nil); err != nil {
			return userError(err)
		}
		fmt.Fprintf(e.stderr, "revoked token %q\n", rest[0])
		return nil
	}
}

// auditCmd prints a page of the audit log: from the database that --db
// names, or from the server --url names when it is given and --db is not
// (either also from the environment).
func auditCmd(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	e := opEnv{getenv, stdout, stderr}
	cmd := e.command("audit", "audit [--db DATABASE] [--page N]")
	var db string
	var page int
	cmd.fs.str(&db, "db", "statusd.db", dbUsage+"; read when given, else the server --url names, if given")
	cmd.fs.IntVar(&page, "page", 1, "page `N` of the log, 25 entries a page, newest first")
	if _, err := cmd.parse(args); err != nil {
		return err
	}
	if page < 1 {
		return cmd.usageErr("--page: %d is not an integer >= 1", page)
	}
	given := map[string]bool{}
	cmd.fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	if given["url"] && !given["db"] {
		a, err := cmd.adm.Audit(ctx, page)
		if err != nil {
			return cmd.fail(ctx, err)
		}
		return cmd.answer(func(w io.Writer) error { return printAudit(w, stderr, a.Audit, a.Meta.TotalCount, page) })
	}
	if cmd.json {
		return cmd.usageErr("--json prints the server's answer: give --url URL, not --db")
	}
	store, err := sqlstore.Open(ctx, db)
	if err != nil {
		return err
	}
	defer store.Close()
	entries, total, err := store.Audit(ctx, page, 25)
	if err != nil {
		return err
	}
	list := make([]statusd.AdminAuditEntry, len(entries))
	for i, e := range entries {
		list[i] = statusd.AdminAuditEntryOf(e)
	}
	return printAudit(stdout, stderr, list, total, page)
}

// printAudit prints a page of the audit log as a table, and its count on
// stderr.
func printAudit(stdout, stderr io.Writer, entries []statusd.AdminAuditEntry, total, page int) error {
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "TIME\tACTOR\tACTION\tTARGET\tDETAIL")
	for _, e := range entries {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", e.At.UTC().Format(statusd.TimeLayout), printable(e.Actor), printable(e.Action),
			printable(e.Target), printable(e.Detail))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "%d of %d entries (page %d)\n", len(entries), total, page)
	return nil
}

// userError turns a *statusd.Error into its message alone.
func userError(err error) error {
	var e *statusd.Error
	if errors.As(err, &e) {
		return errors.New(e.Message)
	}
	return err
}
