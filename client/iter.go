package client

import (
	"context"
	"fmt"
	"iter"
	"strings"

	"github.com/statusd/statusd"
)

// AllComponents iterates over every component the query selects, page after
// page from q.Page, following meta.next_page. An error ends the iteration:
// it is yielded once, with a zero component. Breaking out of the loop stops
// fetching.
func (c *Client) AllComponents(ctx context.Context, q ComponentQuery) iter.Seq2[statusd.ComponentResource, error] {
	return all(ctx, c, q.path(), nil, func(r *statusd.ComponentsResponse) ([]statusd.ComponentResource, statusd.Meta) {
		return r.Components, r.Meta
	})
}

// AllNotices iterates over every notice the query selects, newest first,
// page after page from q.Page, following meta.next_page. An error ends the
// iteration: it is yielded once, with a zero notice. Breaking out of the loop
// stops fetching.
func (c *Client) AllNotices(ctx context.Context, q NoticeQuery) iter.Seq2[statusd.NoticeListEntry, error] {
	path, err := q.path()
	return all(ctx, c, path, err, func(r *statusd.NoticesResponse) ([]statusd.NoticeListEntry, statusd.Meta) {
		return r.Notices, r.Meta
	})
}

// maxPages bounds a walk over a collection, against a server whose next_page
// never ends.
const maxPages = 100000

// all walks a collection from path. next_page must be a path on the API
// (/api/...), as real clients of the interface require, and must change from
// page to page.
func all[R any, T any](ctx context.Context, c *Client, path string, err error, split func(*R) ([]T, statusd.Meta)) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		var zero T
		if err != nil {
			yield(zero, err)
			return
		}
		for range maxPages {
			var r R
			if err := c.get(ctx, path, &r); err != nil {
				yield(zero, err)
				return
			}
			items, meta := split(&r)
			for _, item := range items {
				if !yield(item, nil) {
					return
				}
			}
			if meta.NextPage == nil || len(items) == 0 {
				return
			}
			next := *meta.NextPage
			if !strings.HasPrefix(next, "/api/") || next == path {
				yield(zero, fmt.Errorf("statusd client: the server answered next_page %q after %s", next, path))
				return
			}
			path = next
		}
		yield(zero, fmt.Errorf("statusd client: more than %d pages", maxPages))
	}
}
