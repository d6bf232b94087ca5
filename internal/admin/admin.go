// Package admin is the authenticated write API of statusd (CONTRACT C6):
// JSON in, JSON out, under /admin/api/v1/, every request with a bearer
// token (checked by the assembly's middleware, internal/server). A handler
// reads its request, calls the action of internal/app, which checks the
// actor's role, runs the write in one store transaction recorded in the
// audit log and has the public API show it, and answers the result.
package admin

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/internal/app"
	"github.com/statusd/statusd/internal/httpjson"
	"github.com/statusd/statusd/internal/openapi"
	"github.com/statusd/statusd/internal/ratelimit"
	"github.com/statusd/statusd/internal/route"
	"github.com/statusd/statusd/internal/snapshot"
)

// MaxBody is the largest request body the admin API reads.
const MaxBody = app.MaxBody

// Config configures a Server.
type Config struct {
	// App runs the actions.
	App *app.App
	Now func() time.Time
	// ConsoleURL is the console's URL, under which setup links are made;
	// "" (or nil): unknown, and a setup link is its path alone.
	ConsoleURL func() string
}

// Server is the admin API. It is safe for concurrent use.
type Server struct {
	app        *app.App
	now        func() time.Time
	consoleURL func() string
	hooks      *ratelimit.Limiter // of each source's hook
}

// The limit of each source's hook (CONTRACT C9): hookRate requests a
// second, hookBurst at once.
const (
	hookRate  = 10
	hookBurst = 50
)

// New returns a Server for the configuration.
func New(cfg Config) *Server {
	s := &Server{app: cfg.App, now: cfg.Now, consoleURL: cfg.ConsoleURL, hooks: ratelimit.New(hookRate, hookBurst)}
	if s.consoleURL == nil {
		s.consoleURL = func() string { return "" }
	}
	return s
}

// Handler serves an authenticated request of actor: the request's token,
// or the console's user.
type Handler func(w http.ResponseWriter, r *http.Request, actor statusd.Actor) error

// Serve adapts h, behind the middleware that authenticated the actor
// (statusd.WithActor): never cached, the body limited to MaxBody; the
// error it returns is the one to answer with.
func (s *Server) Serve(h Handler) route.Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		w.Header().Set("Cache-Control", "no-store")
		r.Body = http.MaxBytesReader(w, r.Body, MaxBody)
		return h(w, r, statusd.ActorOf(r.Context()))
	}
}

// listMeta is the meta of a list's page: count items of total, 25 a page.
// The next page's link is path (under /admin/api/v1) with the list's
// filters, those of query that are not empty.
func listMeta(path string, query url.Values, page int64, count, total int) statusd.Meta {
	meta := statusd.Meta{Count: count, TotalCount: total}
	if page < (int64(total)+snapshot.PageSize-1)/snapshot.PageSize {
		q := url.Values{"page": {strconv.FormatInt(page+1, 10)}}
		for k, v := range query {
			if len(v) > 0 && v[0] != "" {
				q.Set(k, v[0])
			}
		}
		next := "/admin/api/v1" + path + "?" + q.Encode()
		meta.NextPage = &next
	}
	return meta
}

// OpenAPI answers GET /openapi.json: the admin API's OpenAPI document.
func (s *Server) OpenAPI(w http.ResponseWriter, r *http.Request, _ statusd.Actor) error {
	return httpjson.Write(w, r, http.StatusOK, json.RawMessage(openapi.Admin()))
}
