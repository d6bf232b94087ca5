package server

import (
	"net/http"
	"strings"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/internal/admin"
)

// ungated are the paths the gate never refuses: the admin API, the probes
// and the metrics must answer most of all when the server is busy.
var ungated = []string{"/admin/", "/healthz", "/readyz", "/metrics"}

// publicChain is the middleware of the public listener, outermost first:
// nosniff; the request id, metrics and log line; panics answered 500; the
// API answers already cached, served before routing (api.Server.Front,
// which pays for itself: see BenchmarkRequest); the gate; the routes.
func (s *assembly) publicChain(mux *http.ServeMux) http.Handler {
	return noSniff(s.cfg.Metrics.Middleware(s.errs.Recover(s.api.Front(s.cfg.Gate.Wrap(mux, s.errs.Write), s.errs.Write))))
}

// adminChain is the middleware of the admin listener (--admin-addr).
func (s *assembly) adminChain(mux *http.ServeMux) http.Handler {
	return noSniff(s.cfg.Metrics.Middleware(s.errs.Recover(mux)))
}

// routes registers every route of the process: pub is the public
// listener's, adm the admin listener's (pub itself without one).
//
// The public routes are patterns without a method, so that the metrics
// name a route by its path (route="/api/v1/status") and a CORS preflight
// (OPTIONS) reaches the API's CORS handler; each answers GET and HEAD, and
// 405 method_not_allowed with Allow to anything else, in its adapter
// (api.Server.Read, web.Server.Page, ...). The admin routes are method
// patterns; any other method on their paths is 405 with Allow.
func (s *assembly) routes(pub, adm *http.ServeMux) {
	a, p, serve := s.api, s.pages, s.errs.Serve
	v2, badges, probes, ad := s.newStatuspage(), s.newBadges(), s.newHealth(), s.newAdmin()

	// The public v1 JSON API (SPEC.md), at /api/v1 and its alias /v1
	// (CONTRACT C1).
	for _, root := range []string{statusd.APIRoot, "/v1"} {
		pub.Handle(root, serve(a.Read(a.Index)))                              // GET HEAD
		pub.Handle(root+"/status", serve(a.Read(a.Status)))                   // GET HEAD
		pub.Handle(root+"/components", serve(a.Read(a.Components)))           // GET HEAD
		pub.Handle(root+"/components/{id}/metrics", serve(a.Read(a.Metrics))) // GET HEAD
		pub.Handle(root+"/notices", serve(a.Read(a.Notices)))                 // GET HEAD
		pub.Handle(root+"/notices/{id}", serve(a.Read(a.Notice)))             // GET HEAD
	}
	pub.Handle("/api/notices/{id}", serve(a.Read(a.Notice)))     // GET HEAD
	pub.Handle("/api/v1/openapi.json", serve(a.Read(a.OpenAPI))) // GET HEAD
	pub.Handle("/api/", serve(a.NotFound()))                     // any: JSON 404
	pub.Handle("/v1/", serve(a.NotFound()))                      // any: JSON 404

	// Atlassian Statuspage's public v2 API, mapped (internal/statuspage).
	for _, path := range []string{
		"/api/v2/summary.json",                         // GET HEAD
		"/api/v2/status.json",                          // GET HEAD
		"/api/v2/components.json",                      // GET HEAD
		"/api/v2/incidents.json",                       // GET HEAD
		"/api/v2/incidents/unresolved.json",            // GET HEAD
		"/api/v2/scheduled-maintenances.json",          // GET HEAD
		"/api/v2/scheduled-maintenances/upcoming.json", // GET HEAD
		"/api/v2/scheduled-maintenances/active.json",   // GET HEAD
	} {
		pub.Handle(path, serve(v2.Serve(path)))
	}

	// The status page: HTML, feeds and its assets (internal/web).
	pub.Handle("/", serve(p.Page(p.Index)))                          // GET HEAD; any other path: HTML 404
	pub.Handle("/notices/{id}", serve(p.Page(p.Notice)))             // GET HEAD
	pub.Handle("/history", serve(p.Page(p.History)))                 // GET HEAD
	pub.Handle("/history.atom", serve(p.Page(p.Atom)))               // GET HEAD
	pub.Handle("/history.rss", serve(p.Page(p.RSS)))                 // GET HEAD
	pub.Handle("/components/{id}/metrics", serve(p.Page(p.Metrics))) // GET HEAD
	pub.Handle("/assets/{name}", serve(p.Assets()))                  // GET HEAD
	pub.Handle("/favicon.ico", serve(p.Assets()))                    // GET HEAD

	// Badges (internal/badge).
	pub.Handle("/badge/status.json", serve(badges.StatusJSON()))      // GET HEAD
	pub.Handle("/badge/status.svg", serve(badges.StatusSVG()))        // GET HEAD
	pub.Handle("/badge/components/{file}", serve(badges.Component())) // GET HEAD
	pub.Handle("/badge/", serve(badges.NotFound()))                   // any: a "not found" badge

	// Health probes, on every listener (internal/health).
	for _, mux := range listeners(pub, adm) {
		mux.Handle("/healthz", serve(probes.Healthz)) // any method
		mux.Handle("/readyz", serve(probes.Readyz))   // any method
	}

	// The admin API (CONTRACT C6), every request with a bearer token.
	auth := newBearer(s.cfg.Store.Tokens(), s)
	const hint = "a valid token is required: send Authorization: Bearer <token> (create one with statusd token create)"
	authed := func(h admin.Handler) http.Handler {
		return serve(auth.require("statusd admin", hint, serve(ad.Serve(h))))
	}
	const v1 = "/admin/api/v1"
	s.handleMethods(adm, authed, []adminRoute{
		{"GET " + v1 + "/page", ad.GetPage},
		{"PATCH " + v1 + "/page", ad.PatchPage},
		{"GET " + v1 + "/components", ad.ListComponents},
		{"POST " + v1 + "/components", ad.CreateComponent},
		{"GET " + v1 + "/components/{id}", ad.GetComponent},
		{"PATCH " + v1 + "/components/{id}", ad.PatchComponent},
		{"DELETE " + v1 + "/components/{id}", ad.DeleteComponent},
		{"GET " + v1 + "/notices", ad.ListNotices},
		{"POST " + v1 + "/notices", ad.CreateNotice},
		{"GET " + v1 + "/notices/{id}", ad.GetNotice},
		{"PATCH " + v1 + "/notices/{id}", ad.PatchNotice},
		{"DELETE " + v1 + "/notices/{id}", ad.DeleteNotice},
		{"POST " + v1 + "/notices/{id}/updates", ad.PostUpdate},
		{"POST " + v1 + "/notices/{id}/reopen", ad.Reopen},
		{"GET " + v1 + "/audit", ad.Audit},
	})
	adm.Handle("/admin/", authed(func(w http.ResponseWriter, r *http.Request, _ string) error { // any: JSON 404
		return statusd.Errorf(statusd.ENotFound, "no such admin endpoint: %s", r.URL.Path)
	}))

	// Prometheus metrics, with an admin token unless --metrics-public.
	metrics := s.cfg.Metrics.Handler()
	if !s.cfg.MetricsPublic {
		metrics = serve(auth.require("statusd metrics", "the metrics need a valid admin token: send Authorization: Bearer <token> "+
			"(statusd token create), or serve them openly with --metrics-public", metrics))
	}
	adm.Handle("/metrics", metrics) // GET

	if pub != adm {
		pub.Handle("/admin/", s.jsonNotFound("the admin API is on its own listener (--admin-addr)"))
		adm.Handle("/", s.jsonNotFound("this listener serves only the admin API"))
	}
}

// adminRoute is a method pattern and its admin handler.
type adminRoute struct {
	pattern string
	h       admin.Handler
}

// handleMethods registers each route through wrap, and answers any other
// method on their paths 405 method_not_allowed with Allow.
func (s *assembly) handleMethods(mux *http.ServeMux, wrap func(admin.Handler) http.Handler, routes []adminRoute) {
	var paths []string
	allowed := map[string][]string{}
	for _, rt := range routes {
		method, path, _ := strings.Cut(rt.pattern, " ")
		if allowed[path] == nil {
			paths = append(paths, path)
		}
		allowed[path] = append(allowed[path], method)
		mux.Handle(rt.pattern, wrap(rt.h))
	}
	for _, path := range paths {
		allow := strings.Join(allowed[path], ", ")
		mux.Handle(path, wrap(func(w http.ResponseWriter, r *http.Request, _ string) error {
			w.Header().Set("Allow", allow)
			return statusd.Errorf(statusd.EMethodNotAllowed, "%s is not allowed on %s; use %s", r.Method, r.URL.Path, allow)
		}))
	}
}

// listeners are the distinct muxes of pub and adm.
func listeners(pub, adm *http.ServeMux) []*http.ServeMux {
	if pub == adm {
		return []*http.ServeMux{pub}
	}
	return []*http.ServeMux{pub, adm}
}

// jsonNotFound answers every request with a JSON 404: the paths of an API
// that a listener does not serve.
func (s *assembly) jsonNotFound(message string) http.Handler {
	return s.errs.Serve(func(w http.ResponseWriter, r *http.Request) error {
		return statusd.Errorf(statusd.ENotFound, "%s: %s", message, r.URL.Path)
	})
}
