package cli

import (
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/internal/sqlstore"
)

// initCommand is statusd init: it starts a page in an empty database: the page, created now, and
// its top-level components in the order given. A database that already
// holds a page is left as it is.
func (e Env) initCommand() *cobra.Command {
	var db, name, pageURL string
	var metrics bool
	c := Command("init [--db DATABASE] --name NAME --url URL [--metrics] [COMPONENT...]", "start a page and its components in an empty database")
	WithEnv(c).String(&db, "db", "statusd.db", DBUsage+"; created when missing")
	c.Flags().StringVar(&name, "name", "", "the page's `name`, such as \"Acme Status\"")
	c.Flags().StringVar(&pageURL, "url", "", "the page's public `URL`, such as https://status.acme.com")
	c.Flags().BoolVar(&metrics, "metrics", false, "publish the components' metrics (uptime bars on the page, the metrics API)")
	c.RunE = func(c *cobra.Command, comps []string) error {
		ctx := c.Context()
		if name == "" || pageURL == "" {
			return UsageError(c, "needs --name NAME and --url URL")
		}
		now := time.Now().UTC().Truncate(time.Millisecond)
		doc := &statusd.Document{Page: statusd.Page{Name: name, URL: pageURL, CreatedAt: now, UpdatedAt: now}}
		for i, comp := range comps {
			doc.Components = append(doc.Components, statusd.Component{ID: int64(i + 1), Name: comp, Position: i + 1,
				MetricsEnabled: metrics, CreatedAt: now, UpdatedAt: now})
		}
		if problems := doc.Validate(); len(problems) > 0 {
			list := make([]string, len(problems))
			for i, p := range problems {
				list[i] = p.String()
			}
			return UsageError(c, "%s", strings.Join(list, "; "))
		}
		store, err := sqlstore.Open(ctx, db)
		if err != nil {
			return err
		}
		defer store.Close()
		where := sqlstore.Redact(db)
		existing, _, err := store.Load(ctx)
		if err != nil {
			return err
		}
		if existing != nil {
			return fmt.Errorf("%s already holds the page %q; init starts a page only in an empty database (statusd import --replace replaces a page whole)",
				where, existing.Page.Name)
		}
		if err := store.Import(ctx, doc, false); err != nil {
			return fmt.Errorf("%s: %w", where, userError(err))
		}
		fmt.Fprintf(e.Stderr, "started the page %q (%s) with %d component(s) in %s; next: statusd token create --db %s --name NAME, and statusd serve --db %s\n",
			name, pageURL, len(comps), where, db, db)
		return nil
	}
	return c
}
