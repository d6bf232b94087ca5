package server

import (
	"net/http"
	"net/netip"
	"time"

	"github.com/statusd/statusd/internal/httpjson"
	"github.com/statusd/statusd/internal/ratelimit"
	"github.com/statusd/statusd/internal/respcache"
	"github.com/statusd/statusd/internal/route"
	"github.com/statusd/statusd/internal/snapshot"
)

// Snapshots is where every handler reads the page: the snapshot valid
// now, or at a moment already read (the front); *snapshot.Holder is one,
// and the mirror's Pin, which it renders from (Renderer).
type Snapshots interface {
	Current() *snapshot.Snapshot
	At(now time.Time) *snapshot.Snapshot
}

// front is the way in of the JSON APIs' requests, before the gate and
// the routes: the one place where CORS and the rate limit are applied,
// and where an answer already cached is served without routing.
type front struct {
	snaps   Snapshots
	answers *respcache.PerSource // the handlers' answers (api, statuspage)
	limiter ratelimit.Allower    // nil: no limit
	trusted []netip.Prefix
	now     func() time.Time
	mux     *route.Mux // names the route of a refused request
}

// wrap gives every request to a JSON API's path (route.IsAPI) CORS
// (AllowAnyOrigin) and, but a CORS preflight (OPTIONS), the rate limit,
// whose refusal fail answers; then serves the answer that the current
// snapshot's cache holds for its target (respcache.Cache.Lookup: a GET or
// HEAD answered before by a route that aliased it), with the route's name
// as the request's Pattern, as routing would set it for telemetry. Any
// other request goes on to next: the gate, then the routes. A cached
// answer is never refused by the gate: it costs about what a refusal
// would.
func (f *front) wrap(next http.Handler, fail func(http.ResponseWriter, *http.Request, error)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !route.IsAPI(r.URL.Path) {
			next.ServeHTTP(w, r)
			return
		}
		httpjson.AllowAnyOrigin(w)
		if r.Method == http.MethodOptions {
			next.ServeHTTP(w, r)
			return
		}
		e := f.lookup(r)
		if err := ratelimit.Check(f.limiter, f.trusted, w, r); err != nil {
			if r.Pattern == "" {
				r.Pattern = f.mux.Route(r)
			}
			fail(w, r, err)
			return
		}
		if e == nil {
			next.ServeHTTP(w, r)
			return
		}
		respcache.Serve(w, r, e)
	})
}

// lookup returns the cached answer to r's target (path and raw query),
// when a GET or HEAD for it was answered from the current snapshot before
// and the answer still holds, and sets r's Pattern to the route that
// answered it; or nil.
func (f *front) lookup(r *http.Request) *respcache.Entry {
	if (r.Method != http.MethodGet && r.Method != http.MethodHead) || r.RequestURI == "" {
		return nil
	}
	now := f.now()
	snap := f.snaps.At(now)
	if snap == nil {
		return nil
	}
	e, pattern := f.answers.For(snap).Lookup(r.RequestURI, now)
	if e != nil {
		r.Pattern = pattern
	}
	return e
}
