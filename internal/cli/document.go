package cli

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/internal/sqlstore"
)

// importCommand is statusd import: it loads a page document, whole, in
// one transaction, after listing every problem it has, if any.
func (e Env) importCommand() *cobra.Command {
	var db string
	var replace bool
	c := Command("import [--db DATABASE] [--replace] FILE|-", "load a page document atomically")
	WithEnv(c).String(&db, "db", "statusd.db", DBUsage)
	c.Flags().BoolVar(&replace, "replace", false, "replace the page the database already holds, whole, in one transaction")
	c.RunE = func(c *cobra.Command, rest []string) error {
		ctx := c.Context()
		if len(rest) != 1 {
			return UsageError(c, "takes one FILE, or - for standard input")
		}
		in := e.Stdin
		if rest[0] != "-" {
			f, err := os.Open(rest[0])
			if err != nil {
				return err
			}
			defer f.Close()
			in = f
		}
		doc, err := statusd.DecodeDocument(in)
		if err != nil {
			var verr *statusd.ValidationError
			if errors.As(err, &verr) {
				for _, p := range verr.Problems {
					fmt.Fprintln(e.Stderr, printable(p.String()))
				}
				return fmt.Errorf("%s: %d problem(s) found; nothing was imported", rest[0], len(verr.Problems))
			}
			return err
		}
		store, err := sqlstore.Open(ctx, db)
		if err != nil {
			return err
		}
		defer store.Close()
		if err := store.Import(ctx, doc, replace); err != nil {
			var serr *statusd.Error
			if errors.As(err, &serr) {
				return fmt.Errorf("%s: %s", db, serr.Message)
			}
			return fmt.Errorf("%s: %w", db, err)
		}
		subs := ""
		if doc.Subscribers != nil {
			subs = fmt.Sprintf(", %d subscribers", len(doc.Subscribers))
		}
		if doc.Sources != nil {
			subs += fmt.Sprintf(", %d sources", len(doc.Sources))
		}
		fmt.Fprintf(e.Stderr, "imported %q: %d components, %d notices%s into %s\n",
			doc.Page.Name, len(doc.Components), len(doc.Notices), subs, db)
		return nil
	}
	return c
}

// exportCommand is statusd export: it writes the page document of a
// database, its subscribers included, to standard output.
func (e Env) exportCommand() *cobra.Command {
	var db string
	c := Command("export [--db DATABASE]", "write the page document to standard output")
	WithEnv(c).String(&db, "db", "statusd.db", DBUsage)
	c.RunE = func(c *cobra.Command, rest []string) error {
		ctx := c.Context()
		if len(rest) > 0 {
			return UsageError(c, "takes no arguments, got %q", rest)
		}
		store, doc, err := openPage(ctx, db)
		if err != nil {
			return err
		}
		defer store.Close()
		if doc.Subscribers, err = allSubscribers(ctx, store); err != nil {
			return err
		}
		doc.Sources = []statusd.Source{} // none: importing the document removes the store's
		err = store.Signals().Read(ctx, func(r statusd.SignalReads) error {
			list, err := r.Sources()
			doc.Sources = append(doc.Sources, list...)
			return err
		})
		if err != nil {
			return err
		}
		return statusd.EncodeDocument(e.Stdout, doc)
	}
	return c
}

// allSubscribers reads every subscriber of store, by id, for a document
// (CONTRACT C5): an empty list when there is none, so that importing the
// document removes the subscribers of the store it replaces.
func allSubscribers(ctx context.Context, store statusd.Store) ([]statusd.Subscriber, error) {
	const per = 1000
	all := []statusd.Subscriber{}
	for page := 1; ; page++ {
		subs, total, err := store.Subscribers().List(ctx, statusd.SubscriberFilter{}, page, per)
		if err != nil {
			return nil, err
		}
		all = append(all, subs...)
		if len(subs) < per || len(all) >= total {
			return all, nil
		}
	}
}
