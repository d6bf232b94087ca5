package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/internal/sqlstore"
)

func (e Env) tokenCommand() *cobra.Command {
	return group("token", "admin API tokens, in the database", "", e.token("create"), e.token("list"), e.token("revoke"))
}

// token is statusd token create, list or revoke.
func (e Env) token(sub string) *cobra.Command {
	use := map[string]string{"create": "create --name NAME [--role ROLE]", "list": "list", "revoke": "revoke NAME"}[sub]
	short := map[string]string{"create": "print a new admin API token", "list": "list the tokens", "revoke": "revoke a token"}[sub]
	var db, name, role string
	c := Command(use+" [--db DATABASE]", short)
	WithEnv(c).String(&db, "db", "statusd.db", DBUsage)
	if sub == "create" {
		c.Flags().StringVar(&name, "name", "", "the token's `name`, shown in the audit log")
		c.Flags().StringVar(&role, "role", string(statusd.Owner), "what a request with it may do, its `role`: owner, publisher (notices and their updates) or viewer (reads)")
	}
	c.RunE = func(c *cobra.Command, rest []string) error {
		ctx := c.Context()
		switch {
		case sub == "create" && (name == "" || len(rest) > 0):
			return UsageError(c, "needs --name NAME (and nothing else)")
		case sub == "list" && len(rest) > 0:
			return UsageError(c, "takes no arguments, got %q", rest)
		case sub == "revoke" && len(rest) != 1:
			return UsageError(c, "takes the token's NAME")
		}
		var secret string
		var t statusd.Token
		if sub == "create" {
			var err error
			if secret, t, err = statusd.NewNamedToken(name, statusd.Role(role), time.Now()); err != nil {
				return UsageError(c, "--%s", statusd.ErrorMessage(err))
			}
		}
		store, _, err := openPage(ctx, db)
		if err != nil {
			return err
		}
		defer store.Close()
		tokens := store.Tokens()
		switch sub {
		case "create":
			if err := tokens.Create(ctx, t, nil); err != nil {
				return userError(err)
			}
			fmt.Fprintln(e.Stdout, secret)
			fmt.Fprintf(e.Stderr, "created token %q in %s, acting as %s; it is shown only this once: keep it secret (statusd stores only its hash)\n", name, dbName(db), t.Role)
			return nil
		case "list":
			list, err := tokens.List(ctx)
			if err != nil {
				return err
			}
			tw := tabwriter.NewWriter(e.Stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "NAME\tROLE\tCREATED\tLAST USED")
			for _, t := range list {
				used := "never"
				if t.LastUsed != nil {
					used = t.LastUsed.Format(time.RFC3339)
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", printable(t.Name), t.Role, t.CreatedAt.Format(time.RFC3339), used)
			}
			return tw.Flush()
		default: // revoke
			if err := tokens.Revoke(ctx, rest[0], nil); err != nil {
				return userError(err)
			}
			fmt.Fprintf(e.Stderr, "revoked token %q\n", rest[0])
			return nil
		}
	}
	return c
}

// auditCommand prints a page of the audit log: from the database that
// --db names, or from the server --url names when it is given and --db is
// not (either also from the environment).
func (e Env) auditCommand() *cobra.Command {
	cmd := e.operator("audit [--db DATABASE] [--page N]", "print the audit log, newest first")
	var db string
	var page int
	WithEnv(cmd.c).String(&db, "db", "statusd.db", DBUsage+"; read when given, else the server --url names, if given")
	cmd.fs.IntVar(&page, "page", 1, "page `N` of the log, 25 entries a page, newest first")
	return cmd.run(func(ctx context.Context, args []string) error {
		if _, err := cmd.connect(args); err != nil {
			return err
		}
		if page < 1 {
			return cmd.usageErr("--page: %d is not an integer >= 1", page)
		}
		if cmd.fs.Changed("url") && !cmd.fs.Changed("db") {
			a, err := cmd.adm.Audit(ctx, page)
			if err != nil {
				return cmd.fail(ctx, err)
			}
			return cmd.answer(func(w io.Writer) error { return printAudit(w, e.Stderr, a.Audit, a.Meta.TotalCount, page) })
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
		for i, entry := range entries {
			list[i] = statusd.AdminAuditEntryOf(entry)
		}
		return printAudit(e.Stdout, e.Stderr, list, total, page)
	})
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
