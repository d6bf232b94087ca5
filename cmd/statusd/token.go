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

func tokenCmd(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	const synopsis = "token create --name NAME | token list | token revoke NAME   [--db PATH]"
	if len(args) == 0 {
		fmt.Fprintln(stderr, "Usage: statusd "+synopsis)
		return errors.New("token: say create, list or revoke")
	}
	var db, name string
	fs := newFlagSet("token "+args[0], synopsis, getenv, stderr)
	fs.str(&db, "db", "statusd.db", "SQLite database `path`")
	if args[0] == "create" {
		fs.StringVar(&name, "name", "", "the token's `name`, shown in the audit log")
	}
	rest, err := fs.parse(args[1:])
	if err != nil {
		return err
	}
	store, err := sqlstore.Open(ctx, db)
	if err != nil {
		return err
	}
	defer store.Close()
	tokens := store.Tokens()
	switch args[0] {
	case "create":
		if name == "" || len(rest) > 0 {
			return errors.New("token create needs --name NAME (and nothing else)")
		}
		secret, hash := admin.NewToken()
		if err := tokens.Create(ctx, statusd.Token{Name: name, Hash: hash, CreatedAt: time.Now().UTC()}); err != nil {
			return userError(err)
		}
		fmt.Fprintln(stdout, secret)
		fmt.Fprintf(stderr, "created token %q; it is shown only this once: keep it secret (statusd stores only its hash)\n", name)
		return nil
	case "list":
		list, err := tokens.List(ctx)
		if err != nil {
			return err
		}
		tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "NAME\tCREATED\tLAST USED")
		for _, t := range list {
			used := "never"
			if t.LastUsed != nil {
				used = t.LastUsed.Format(time.RFC3339)
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\n", t.Name, t.CreatedAt.Format(time.RFC3339), used)
		}
		return tw.Flush()
	case "revoke":
		if len(rest) != 1 {
			return errors.New("token revoke takes the token's NAME")
		}
		if err := tokens.Revoke(ctx, rest[0]); err != nil {
			return userError(err)
		}
		fmt.Fprintf(stderr, "revoked token %q\n", rest[0])
		return nil
	}
	return fmt.Errorf("token: unknown subcommand %q; say create, list or revoke", args[0])
}

func auditCmd(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	var db string
	var page int
	fs := newFlagSet("audit", "audit [--db PATH] [--page N]", getenv, stderr)
	fs.str(&db, "db", "statusd.db", "SQLite database `path`")
	fs.IntVar(&page, "page", 1, "page `N` of the log, 25 entries a page, newest first")
	if _, err := fs.parse(args); err != nil {
		return err
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
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", e.At.Format(statusd.TimeLayout), e.Actor, e.Action, e.Target, e.Detail)
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
