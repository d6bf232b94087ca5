package server

import (
	"cmp"
	"context"
	"net/http"
	"slices"
	"strings"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/internal/admin"
	"github.com/statusd/statusd/internal/api"
	"github.com/statusd/statusd/internal/console"
	"github.com/statusd/statusd/internal/htmlkit"
	"github.com/statusd/statusd/internal/httpjson"
	"github.com/statusd/statusd/internal/route"
)

// ungated are the paths the gate never refuses: the admin API, the
// console, the probes and the metrics must answer most of all when the
// server is busy.
var ungated = []string{"/admin/", console.Root, "/healthz", "/readyz", "/metrics"}

// publicChain is the middleware of the public listener, outermost first:
// nosniff; the request id, metrics and log line; panics answered 500; the
// API answers already cached, served before routing (api.Server.Front,
// which pays for itself: see BenchmarkRequest); the gate; the routes.
func (s *assembly) publicChain(mux *route.Mux) http.Handler {
	errs := mux.Errors()
	return noSniff(s.cfg.Metrics.Middleware(s.cfg.Pressure.Wrap(errs.Recover(s.api.Front(s.cfg.Gate.Wrap(mux, errs.Write), errs.Write)))))
}

// adminChain is the middleware of the admin listener (--admin-addr).
func (s *assembly) adminChain(mux *route.Mux) http.Handler {
	return noSniff(s.cfg.Metrics.Middleware(mux.Errors().Recover(mux)))
}

// routes registers every route of the process: pub is the public
// listener's, adm the admin listener's (pub itself without one).
//
// Every route is a method pattern; any other method on its path is 405
// method_not_allowed with Allow, in the shape of the path (route.Mux).
// Read registers GET and HEAD, and OPTIONS for CORS preflights when given
// one, under one route name, the path (route="/api/v1/status" in the
// metrics). A pattern without a method is a catch-all: any method.
func (s *assembly) routes(pub, adm *route.Mux) {
	a, p := s.api, s.pages
	v2, badges, probes, ad := s.newStatuspage(), s.newBadges(), s.newHealth(), s.newAdmin()

	// The public v1 JSON API (SPEC.md), at /api/v1 and its alias /v1
	// (CONTRACT C1): GET HEAD OPTIONS, CORS and the rate limit on every
	// answer.
	v1 := pub.With(a.Public)
	read := func(path string, h api.Handler) { v1.Read(path, a.Read(h), httpjson.Preflight) }
	for _, root := range []string{statusd.APIRoot, "/v1"} {
		read(root, a.Index)
		read(root+"/status", a.Status)
		read(root+"/components", a.Components)
		read(root+"/components/{id}/metrics", a.Metrics)
		read(root+"/notices", a.Notices)
		read(root+"/notices/{id}", a.Notice)
	}
	read("/api/notices/{id}", a.Notice)
	read("/api/v1/openapi.json", a.OpenAPI)
	v1.Handle("/api/", api.NotFound) // any: JSON 404
	v1.Handle("/v1/", api.NotFound)  // any: JSON 404

	// Atlassian Statuspage's public v2 API, mapped (internal/statuspage),
	// with CORS and the rate limit as the v1 API.
	v2r := pub.With(v2.Public)
	for _, path := range []string{
		"/api/v2/summary.json",                         // GET HEAD OPTIONS
		"/api/v2/status.json",                          // GET HEAD OPTIONS
		"/api/v2/components.json",                      // GET HEAD OPTIONS
		"/api/v2/incidents.json",                       // GET HEAD OPTIONS
		"/api/v2/incidents/unresolved.json",            // GET HEAD OPTIONS
		"/api/v2/scheduled-maintenances.json",          // GET HEAD OPTIONS
		"/api/v2/scheduled-maintenances/upcoming.json", // GET HEAD OPTIONS
		"/api/v2/scheduled-maintenances/active.json",   // GET HEAD OPTIONS
	} {
		v2r.Read(path, v2.Serve(path), httpjson.Preflight)
	}

	// The status page: HTML, feeds and its assets (internal/web); GET HEAD.
	pub.Read("/{$}", p.Page(p.Index), nil)
	pub.Read("/notices/{id}", p.Page(p.Notice), nil)
	pub.Read("/history", p.Page(p.History), nil)
	pub.Read("/history.atom", p.Page(p.Atom), nil)
	pub.Read("/history.rss", p.Page(p.RSS), nil)
	pub.Read("/components/{id}/metrics", p.Page(p.Metrics), nil)
	// Email subscription (CONTRACT C7), when statusd can send email: the
	// pages of a token are Private (no-store, no-referrer). The forms'
	// POSTs are refused from other sites (SameOrigin); the one-click
	// unsubscription is not, as mail providers send it (RFC 8058). Without
	// email, these paths are the HTML 404 of the catch-all.
	if s.cfg.EmailSubscriptions {
		pub.Read("/subscribe", p.Page(p.SubscribeForm), nil)
		pub.Handle("POST /subscribe", p.Private(p.SameOrigin(p.Subscribe)))
		pub.Read("/subscriptions/confirm", p.Private(p.ConfirmForm), nil)
		pub.Handle("POST /subscriptions/confirm", p.Private(p.SameOrigin(p.Confirm)))
		pub.Read("/subscriptions/manage", p.Private(p.ManageForm), nil)
		pub.Handle("POST /subscriptions/manage", p.Private(p.SameOrigin(p.Manage)))
		pub.Read("/subscriptions/unsubscribe", p.Private(p.UnsubscribeForm), nil)
		pub.Handle("POST /subscriptions/unsubscribe", p.Private(p.Unsubscribe))
	}
	pub.Read("/assets/{name}", p.Assets(), nil)
	pub.Read("/favicon.ico", p.Assets(), nil)
	pub.Handle("/", htmlkit.NotFound) // any other path, any: HTML 404

	// Badges (internal/badge); GET HEAD.
	pub.Read("/badge/status.json", badges.StatusJSON(), nil)
	pub.Read("/badge/status.svg", badges.StatusSVG(), nil)
	pub.Read("/badge/components/{file}", badges.Component(), nil)
	pub.Handle("/badge/", badges.NotFound()) // any: a "not found" badge

	// Health probes, on every listener (internal/health); GET HEAD.
	for _, mux := range listeners(pub, adm) {
		mux.Read("/healthz", probes.Healthz, nil)
		mux.Read("/readyz", probes.Readyz, nil)
	}

	// The admin API (CONTRACT C6, with C7's subscribers and deliveries and
	// C8's users), every request with a bearer token, which acts as an
	// owner; each route names the least role it needs (adminRoutes).
	auth := newBearer(s.cfg.Store.Tokens(), s)
	const hint = "a valid token is required: send Authorization: Bearer <token> (create one with statusd token create)"
	authed := adm.With(func(h route.Handler) route.Handler { return auth.require("statusd admin", hint, h) })
	for _, rt := range adminRoutes(ad) {
		authed.Handle(rt.pattern, permit(rt.least, ad.Serve(rt.h)))
	}
	authed.Handle("/admin/", notFound("no such admin endpoint")) // any: JSON 404

	// The operator console (CONTRACT C8, internal/console), on the admin
	// API's listener: HTML screens, each behind a session (SignedIn) and
	// the least role it needs (permit, as the admin API's routes); every
	// POST refused from other sites (SameOrigin); GET HEAD POST.
	con := s.newConsole(ad)
	s.console = con
	const m = console.Root
	adm.Read(m+"/assets/{name}", con.Assets(), nil) // the page's stylesheet, for its look, and the console's
	adm.Read(m+"/login", con.LoginForm, nil)
	adm.Handle("POST "+m+"/login", con.SameOrigin(con.Login))
	adm.Handle("POST "+m+"/logout", con.SameOrigin(con.Logout))
	adm.Read(m+"/setup", con.SetupForm, nil)
	adm.Handle("POST "+m+"/setup", con.SameOrigin(con.Setup))
	// Sign-in with OpenID Connect (--oidc-issuer): the button starts the
	// flow, the provider sends the browser back to the callback; GET HEAD.
	// The provider's discovery starts now, in the background: serve does
	// not wait for it.
	if s.cfg.OIDC != nil {
		adm.Read(m+"/oidc/login", con.OIDCLogin, nil)
		adm.Read(console.OIDCCallbackPath, con.OIDCCallback, nil)
		go con.Discover(context.Background())
	}
	adm.Read(m, con.SignedIn(permit(statusd.Viewer, con.Home)), nil)
	// The notice screens and the owner's, each with the least role of the
	// admin route it does the same as (leastOf), so that the two cannot
	// drift apart.
	for _, sc := range slices.Concat(noticeScreens(con), ownerScreens(con)) {
		h := con.SignedIn(permit(leastOf(sc.api), sc.h))
		if method, path, _ := strings.Cut(sc.pattern, " "); method == http.MethodGet {
			adm.Read(path, h, nil)
		} else {
			adm.Handle(sc.pattern, con.SameOrigin(h))
		}
	}

	// Prometheus metrics, with an admin token unless --metrics-public;
	// GET HEAD.
	metrics := route.Plain(s.cfg.Metrics.Handler())
	if !s.cfg.MetricsPublic {
		metrics = auth.require("statusd metrics", "the metrics need a valid admin token: send Authorization: Bearer <token> "+
			"(statusd token create), or serve them openly with --metrics-public", metrics)
	}
	adm.Read("/metrics", metrics, nil)

	if pub != adm {
		pub.Handle("/admin/", notFound("the admin API is on its own listener (--admin-addr)")) // any: JSON 404
		for _, path := range []string{console.Root, console.Root + "/"} {
			pub.Handle(path, notFound("the console is on the admin API's listener (--admin-addr)")) // any: HTML 404
		}
		adm.Handle("/", notFound("this listener serves only the admin API and the console")) // any: JSON 404
	}
}

// adminRoute is a route of the admin API and the least role it needs.
type adminRoute struct {
	pattern string
	least   statusd.Role
	h       admin.Handler
}

// adminRoutes is the admin API's table of routes and permissions
// (CONTRACT C8): a viewer reads; a publisher also writes notices and their
// updates and sends test messages; an owner also manages the page,
// components, users and subscribers. The console's actions go through
// the same handlers, so this is their one permission table too.
func adminRoutes(ad *admin.Server) []adminRoute {
	const v1a = "/admin/api/v1"
	return []adminRoute{
		{"GET " + v1a + "/page", statusd.Viewer, ad.GetPage},
		{"PATCH " + v1a + "/page", statusd.Owner, ad.PatchPage},
		{"GET " + v1a + "/components", statusd.Viewer, ad.ListComponents},
		{"POST " + v1a + "/components", statusd.Owner, ad.CreateComponent},
		{"GET " + v1a + "/components/{id}", statusd.Viewer, ad.GetComponent},
		{"PATCH " + v1a + "/components/{id}", statusd.Owner, ad.PatchComponent},
		{"DELETE " + v1a + "/components/{id}", statusd.Owner, ad.DeleteComponent},
		{"GET " + v1a + "/notices", statusd.Viewer, ad.ListNotices},
		{"POST " + v1a + "/notices", statusd.Publisher, ad.CreateNotice},
		{"GET " + v1a + "/notices/{id}", statusd.Viewer, ad.GetNotice},
		{"PATCH " + v1a + "/notices/{id}", statusd.Publisher, ad.PatchNotice},
		{"DELETE " + v1a + "/notices/{id}", statusd.Publisher, ad.DeleteNotice},
		{"POST " + v1a + "/notices/{id}/updates", statusd.Publisher, ad.PostUpdate},
		{"POST " + v1a + "/notices/{id}/reopen", statusd.Publisher, ad.PostReopen},
		{"GET " + v1a + "/audit", statusd.Viewer, ad.Audit},
		{"GET " + v1a + "/subscribers", statusd.Viewer, ad.ListSubscribers},
		{"POST " + v1a + "/subscribers", statusd.Owner, ad.CreateSubscriber},
		{"GET " + v1a + "/subscribers/{id}", statusd.Viewer, ad.GetSubscriber},
		{"PATCH " + v1a + "/subscribers/{id}", statusd.Owner, ad.PatchSubscriber},
		{"DELETE " + v1a + "/subscribers/{id}", statusd.Owner, ad.DeleteSubscriber},
		{"POST " + v1a + "/subscribers/{id}/test", statusd.Publisher, ad.TestSubscriber},
		{"GET " + v1a + "/deliveries", statusd.Viewer, ad.ListDeliveries},
		{"GET " + v1a + "/users", statusd.Viewer, ad.ListUsers},
		{"POST " + v1a + "/users", statusd.Owner, ad.CreateUser},
		{"DELETE " + v1a + "/users/{id}", statusd.Owner, ad.DeleteUser},
		{"POST " + v1a + "/users/{id}/reset", statusd.Owner, ad.ResetUser},
		{"GET " + v1a + "/tokens", statusd.Viewer, ad.ListTokens},
		{"POST " + v1a + "/tokens", statusd.Owner, ad.CreateToken},
		{"DELETE " + v1a + "/tokens/{name}", statusd.Owner, ad.DeleteToken},
	}
}

// leastOf is the least role of the admin route pattern ("POST
// /admin/api/v1/notices"), from adminRoutes: the console's screens take
// theirs from it. A pattern that is no admin route panics, when the routes
// are registered: a screen must do what a route does.
func leastOf(pattern string) statusd.Role {
	for _, rt := range adminRoutes(nil) {
		if rt.pattern == pattern {
			return rt.least
		}
	}
	panic("leastOf: no admin route " + pattern)
}

// consoleScreen is a console route (GET or POST) and the admin route it
// does the same as (a GET: shows its form or reads what it reads), and so
// needs that route's least role.
type consoleScreen struct {
	pattern, api string
	h            route.Handler
}

// ownerScreens are the console's screens of components, the page, tokens,
// users, the audit log (internal/console/owner.go), the subscribers and
// the delivery log (subscribers.go).
func ownerScreens(con *console.Server) []consoleScreen {
	const m, v1a = console.Root, "/admin/api/v1"
	return []consoleScreen{
		{"GET " + m + "/components", "GET " + v1a + "/components", con.Components},
		{"POST " + m + "/components", "POST " + v1a + "/components", con.AddComponent},
		{"GET " + m + "/components/{id}", "GET " + v1a + "/components/{id}", con.Component},
		{"POST " + m + "/components/{id}", "PATCH " + v1a + "/components/{id}", con.ChangeComponent},
		{"POST " + m + "/components/{id}/move", "PATCH " + v1a + "/components/{id}", con.MoveComponent},
		{"POST " + m + "/components/{id}/delete", "DELETE " + v1a + "/components/{id}", con.RemoveComponent},
		{"GET " + m + "/page", "GET " + v1a + "/page", con.PageSettings},
		{"POST " + m + "/page", "PATCH " + v1a + "/page", con.SetPage},
		{"GET " + m + "/tokens", "GET " + v1a + "/tokens", con.Tokens},
		{"POST " + m + "/tokens", "POST " + v1a + "/tokens", con.CreateToken},
		{"POST " + m + "/tokens/{name}/revoke", "DELETE " + v1a + "/tokens/{name}", con.RevokeToken},
		{"GET " + m + "/users", "GET " + v1a + "/users", con.Users},
		{"POST " + m + "/users", "POST " + v1a + "/users", con.AddUser},
		{"POST " + m + "/users/{id}/reset", "POST " + v1a + "/users/{id}/reset", con.ResetUser},
		{"POST " + m + "/users/{id}/remove", "DELETE " + v1a + "/users/{id}", con.RemoveUser},
		{"GET " + m + "/audit", "GET " + v1a + "/audit", con.Audit},
		{"GET " + m + "/subscribers", "GET " + v1a + "/subscribers", con.Subscribers},
		{"POST " + m + "/subscribers", "POST " + v1a + "/subscribers", con.AddSubscriber},
		{"POST " + m + "/subscribers/{id}", "PATCH " + v1a + "/subscribers/{id}", con.ChangeSubscriber},
		{"POST " + m + "/subscribers/{id}/activate", "PATCH " + v1a + "/subscribers/{id}", con.ActivateSubscriber},
		{"POST " + m + "/subscribers/{id}/remove", "DELETE " + v1a + "/subscribers/{id}", con.RemoveSubscriber},
		{"POST " + m + "/subscribers/{id}/test", "POST " + v1a + "/subscribers/{id}/test", con.TestSubscriber},
		{"GET " + m + "/deliveries", "GET " + v1a + "/deliveries", con.Deliveries},
	}
}

// noticeScreens are the console's screens of notices
// (internal/console/notices.go): declare an incident, schedule
// maintenance, announce, and a notice's page with its update, resolve,
// reopen, edit and delete.
func noticeScreens(con *console.Server) []consoleScreen {
	const m, v1a = console.Root, "/admin/api/v1"
	const publish, notice = "POST " + v1a + "/notices", v1a + "/notices/{id}"
	return []consoleScreen{
		{"GET " + m + "/incidents/new", publish, con.IncidentForm},
		{"POST " + m + "/incidents/new", publish, con.DeclareIncident},
		{"GET " + m + "/maintenance/new", publish, con.MaintenanceForm},
		{"POST " + m + "/maintenance/new", publish, con.ScheduleMaintenance},
		{"GET " + m + "/announcements/new", publish, con.AnnouncementForm},
		{"POST " + m + "/announcements/new", publish, con.Announce},
		{"GET " + m + "/notices/{id}", "GET " + notice, con.Notice},
		{"POST " + m + "/notices/{id}/updates", "POST " + notice + "/updates", con.PostUpdate},
		{"POST " + m + "/notices/{id}/reopen", "POST " + notice + "/reopen", con.Reopen},
		{"GET " + m + "/notices/{id}/edit", "PATCH " + notice, con.EditForm},
		{"POST " + m + "/notices/{id}/edit", "PATCH " + notice, con.Edit},
		{"GET " + m + "/notices/{id}/delete", "DELETE " + notice, con.DeleteForm},
		{"POST " + m + "/notices/{id}/delete", "DELETE " + notice, con.Delete},
	}
}

// permit lets through to h only the requests whose actor
// (statusd.ActorOf) has at least the role least; any other is answered
// 403 forbidden, having changed nothing.
func permit(least statusd.Role, h route.Handler) route.Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		if a := statusd.ActorOf(r.Context()); !a.Role.Allows(least) {
			return statusd.Errorf(statusd.EForbidden, "this needs the role %s or more; %s is %s", least, a.Name, cmp.Or(string(a.Role), "not signed in"))
		}
		return h(w, r)
	}
}

// listeners are the distinct muxes of pub and adm.
func listeners(pub, adm *route.Mux) []*route.Mux {
	if pub == adm {
		return []*route.Mux{pub}
	}
	return []*route.Mux{pub, adm}
}

// notFound answers every request 404 with message and the path: the paths
// that a listener does not serve.
func notFound(message string) route.Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		return statusd.Errorf(statusd.ENotFound, "%s: %s", message, r.URL.Path)
	}
}
