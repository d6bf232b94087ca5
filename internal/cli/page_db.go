package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/internal/sqlstore"
)

// openPage opens the database at db for a command that works on a page
// already there, and returns it with the page. A SQLite file that does not
// exist is not created, and a database that holds no page is refused: both
// name statusd init, so that a command run in the wrong folder says so
// rather than write into a new, empty database.
func openPage(ctx context.Context, db string) (*sqlstore.Store, *statusd.Document, error) {
	where := dbName(db)
	const hint = "give --db the database statusd serve uses, or start a page there with statusd init --db %s --name NAME --url URL"
	if !sqlstore.IsPostgres(db) {
		if _, err := os.Stat(db); err != nil {
			return nil, nil, fmt.Errorf("%s: no such database; "+hint, where, db)
		}
	}
	store, err := sqlstore.Open(ctx, db)
	if err != nil {
		return nil, nil, err
	}
	doc, _, err := store.Load(ctx)
	if err == nil && doc == nil {
		err = fmt.Errorf("%s holds no page; "+hint, where, db)
	}
	if err != nil {
		store.Close()
		return nil, nil, err
	}
	return store, doc, nil
}

// dbName names the database at db in messages: a SQLite file by its
// absolute path, so that the folder it is in shows; a PostgreSQL URL
// without its password.
func dbName(db string) string {
	if sqlstore.IsPostgres(db) {
		return sqlstore.Redact(db)
	}
	if abs, err := filepath.Abs(db); err == nil {
		return abs
	}
	return db
}
