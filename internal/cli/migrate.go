package cli

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/internal/sqlstore"
)

// migrateCommand is statusd migrate: it copies a whole store into another:
// the page, the subscribers (whole, the tokens of their links included,
// but not their deliveries), the admin tokens (their hashes), the
// console's users (copyUsers) and the audit log, typically from SQLite
// into PostgreSQL.
func (e Env) migrateCommand() *cobra.Command {
	var from, to string
	var replace bool
	c := Command("migrate --from SOURCE --to TARGET [--replace]", "copy a whole store, e.g. SQLite into PostgreSQL")
	c.Flags().StringVar(&from, "from", "", "the store to copy: a SQLite `path` or a postgres:// URL")
	c.Flags().StringVar(&to, "to", "", "the store to fill: a postgres:// `URL` or a SQLite path")
	c.Flags().BoolVar(&replace, "replace", false, "replace the page the target already holds")
	c.RunE = func(c *cobra.Command, rest []string) error {
		ctx := c.Context()
		if from == "" || to == "" || len(rest) > 0 {
			return UsageError(c, "needs --from and --to, and nothing else")
		}
		src, err := sqlstore.Open(ctx, from)
		if err != nil {
			return err
		}
		defer src.Close()
		doc, _, err := src.Load(ctx)
		if err != nil {
			return err
		}
		if doc == nil {
			return fmt.Errorf("%s holds no page to copy", sqlstore.Redact(from))
		}
		if doc.Subscribers, err = allSubscribers(ctx, src); err != nil {
			return err
		}
		dst, err := sqlstore.Open(ctx, to)
		if err != nil {
			return err
		}
		defer dst.Close()
		if err := dst.Import(ctx, doc, replace); err != nil {
			return fmt.Errorf("%s: %w", sqlstore.Redact(to), userError(err))
		}
		tokens, err := src.Tokens().List(ctx)
		if err != nil {
			return err
		}
		copied := 0
		for _, t := range tokens {
			err := dst.Tokens().Create(ctx, t, nil)
			switch {
			case err == nil:
				copied++
			case statusd.ErrorCode(err) == statusd.EConflict: // the target has one of that name: keep it
			default:
				return err
			}
		}
		users, err := copyUsers(ctx, src, dst)
		if err != nil {
			return err
		}
		entries, err := copyAudit(ctx, src, dst)
		if err != nil {
			return err
		}
		fmt.Fprintf(e.Stderr, "copied %q (%d components, %d notices, %d subscribers), %d token(s), %d console user(s) and %d audit entries from %s to %s\n",
			doc.Page.Name, len(doc.Components), len(doc.Notices), len(doc.Subscribers), copied, users, entries, sqlstore.Redact(from), sqlstore.Redact(to))
		return nil
	}
	return c
}

// copyUsers copies the console's users, with their roles and password
// hashes, and returns how many it copied. A user whose email the target
// has is left as the target has it; sessions and setup links are not
// copied: people sign in again, and one who had not set a password yet
// needs statusd user reset.
func copyUsers(ctx context.Context, src, dst statusd.Store) (int, error) {
	users, err := src.Users().List(ctx)
	if err != nil {
		return 0, err
	}
	copied := 0
	for _, u := range users {
		err := dst.Users().Add(ctx, &u, nil, time.Time{}, nil)
		switch {
		case err == nil:
			copied++
		case statusd.ErrorCode(err) != statusd.EConflict:
			return copied, err
		}
	}
	return copied, nil
}

// copyAudit appends the source's audit log to the target's, oldest first.
func copyAudit(ctx context.Context, src, dst statusd.Store) (int, error) {
	const per = 500
	var all []statusd.AuditEntry
	for page := 1; ; page++ {
		entries, total, err := src.Audit(ctx, page, per)
		if err != nil {
			return 0, err
		}
		all = append(all, entries...)
		if len(all) >= total || len(entries) == 0 {
			break
		}
	}
	_, err := dst.Write(ctx, func(tx statusd.Tx) error {
		for i := len(all) - 1; i >= 0; i-- {
			if err := tx.Audit(all[i]); err != nil {
				return err
			}
		}
		return nil
	})
	return len(all), err
}
