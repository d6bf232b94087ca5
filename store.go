package statusd

import "context"

// Store keeps the page. Implementations are safe for concurrent use.
type Store interface {
	// Load returns the whole page and the store's version. When the store
	// holds no page yet it returns a nil Document and no error.
	Load(ctx context.Context) (*Document, int64, error)
	// Import writes doc atomically, all or nothing. When the store already
	// holds a page it returns an *Error with code EConflict unless replace is
	// true, in which case the old page is replaced whole.
	Import(ctx context.Context, doc *Document, replace bool) error
	// Version returns a number that changes with every write, cheaply, so
	// that readers can notice writes made by other processes.
	Version(ctx context.Context) (int64, error)
	// Close releases the store's resources.
	Close() error
}
