package api

import (
	"net/http"
	"strconv"
	"time"

	"github.com/statusd/statusd/internal/httpjson"
	"github.com/statusd/statusd/internal/respcache"
)

// jsonHeader is sent with every cached JSON answer.
var jsonHeader = http.Header{"Content-Type": {"application/json; charset=utf-8"}}

// builder computes an answer at now; timeDependent says it changes with
// the clock, so that it is kept for the rest of the second only.
type builder func(now time.Time) (v any, timeDependent bool, err error)

// entry marshals what build computes into a cache entry.
func entry(build builder) func(now time.Time) (*respcache.Entry, error) {
	return func(now time.Time) (*respcache.Entry, error) {
		v, timeDependent, err := build(now)
		if err != nil {
			return nil, err
		}
		body, err := httpjson.Marshal(v)
		if err != nil {
			return nil, err
		}
		var until time.Time
		if timeDependent {
			until = now.Truncate(time.Second).Add(time.Second)
		}
		return respcache.NewEntry(body, jsonHeader, until), nil
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
