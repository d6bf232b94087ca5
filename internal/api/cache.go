package api

import (
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/internal/httpjson"
	"github.com/statusd/statusd/internal/respcache"
	"github.com/statusd/statusd/internal/snapshot"
)

// builder computes an answer at now, and until when it holds (zero: as
// long as the snapshot).
type builder func(now time.Time) (v any, until time.Time, err error)

// untilNextSecond is the validity of an answer that changes with the clock:
// the rest of the second it was computed in.
func untilNextSecond(now time.Time) time.Time { return now.Truncate(time.Second).Add(time.Second) }

// untilTomorrow is the validity of an answer that depends on the date
// only: the rest of the UTC day.
func untilTomorrow(now time.Time) time.Time { return statusd.Day(now).AddDate(0, 0, 1) }

// timeDependent is the validity of an answer that changes with the clock
// when changes is true, and lives as long as the snapshot otherwise.
func timeDependent(now time.Time, changes bool) time.Time {
	if changes {
		return untilNextSecond(now)
	}
	return time.Time{}
}

// releaser is an answer that holds room to reuse, given back by entry
// once the answer is marshalled.
type releaser interface{ release() }

// noticePages are the rooms of notices pages, reused: the entries of a page
// are a third of what computing one allocates, and under a flood of pages
// the cache cannot hold, what is allocated sets how often the collector
// runs.
var noticePages = sync.Pool{New: func() any {
	page := make([]statusd.NoticeListEntry, 0, snapshot.PageSize)
	return &page
}}

// pooledNotices is a notices answer whose list is the room of a
// noticePages, given back once marshalled.
type pooledNotices struct {
	statusd.NoticesResponse
	room *[]statusd.NoticeListEntry
}

// AppendJSON appends the answer's JSON, written directly rather than by
// encoding/json (see snapshot.AppendNoticesJSON).
func (p pooledNotices) AppendJSON(b []byte) []byte {
	return snapshot.AppendNoticesJSON(b, p.NoticesResponse)
}

func (p pooledNotices) release() {
	*p.room = p.Notices[:0]
	clear(p.Notices[:cap(p.Notices)]) // nothing of the page kept alive
	noticePages.Put(p.room)
}

// entry marshals what build computes into a cache entry, sent with header.
func entry(header http.Header, build builder) func(now time.Time) (*respcache.Entry, error) {
	return func(now time.Time) (*respcache.Entry, error) {
		v, until, err := build(now)
		if err != nil {
			return nil, err
		}
		e, err := respcache.Compute(func(dst []byte) ([]byte, error) { return httpjson.Append(dst, v) }, header, until)
		if r, ok := v.(releaser); ok {
			r.release()
		}
		return e, err
	}
}

// CacheControl are the caching directives of successful answers, so that a
// CDN or proxy in front can absorb a spike.
type CacheControl struct {
	MaxAge, StaleWhileRevalidate, StaleIfError time.Duration
}

func (c CacheControl) header() string {
	secs := func(d time.Duration) string { return strconv.Itoa(int(d / time.Second)) }
	return "public, max-age=" + secs(c.MaxAge) + ", stale-while-revalidate=" + secs(c.StaleWhileRevalidate) +
		", stale-if-error=" + secs(c.StaleIfError)
}
