package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/internal/admin"
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
		secret, hash := admin.NewToken()
		if err := tokens.Create(ctx, statusd.Token{Name: name, Hash: hash, CreatedAt: time.Now().UTC()}); err != nil {
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
		if err := tokens.Revoke(ctx, rest[0]); err != nil {
			return userError(err)
		}
		fmt.Fprintf(e.stderr, "revoked token %q\n", rest[0])
		return nil
	}
}

func auditCmd(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	var db string
	var page int
	fs := newFlagSet("audit", "audit [--db DATABASE] [--page N]", getenv, stderr)
	fs.str(&db, "db", "statusd.db", dbUsage)
	fs.IntVar(&page, "page", 1, "page `N` of the log, 25 entries a page, newest first")
	rest, err := fs.parse(args)
	if err != nil {
		return err
	}
	switch {
	case len(rest) > 0:
		return fs.usageErr("takes no arguments, got %q", rest)
	case page < 1:
		return fs.usageErr("--page: %d is not an integer >= 1", page)
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
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "TIME\tACTOR\tACTION\tTARGET\tDETAIL")
	for _, e := range entries {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", e.At.Format(statusd.TimeLayout), printable(e.Actor), printable(e.Action),
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
