package server

import (
	"context"
	"net/http"
	"slices"
	"strings"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/internal/admin"
	"github.com/statusd/statusd/internal/api"
	"github.com/statusd/statusd/internal/app"
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
// nosniff; the request id, metrics and log line; the readers counted
// (Pressure); panics answered 500; the JSON APIs' CORS and rate limit,
// and their answers already cached, served before routing (front, which
// pays for itself: see BenchmarkFront); the gate; the routes.
func (s *assembly) publicChain(mux *route.Mux) http.Handler {
	errs := mux.Errors()
	f := &front{snaps: s.cfg.Snapshots, answers: &s.answers, limiter: s.cfg.Limiter, trusted: s.cfg.TrustedProxies,
		now: s.cfg.Now, mux: mux}
	return noSniff(s.cfg.Metrics.Middleware(s.cfg.Pressure.Wrap(errs.Recover(f.wrap(s.cfg.Gate.Wrap(mux, errs.Write), errs.Write)))))
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
	probes, ad := s.newHealth(), s.newAdmin()
	s.reads(pub)
	p := s.pages
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

	// Health probes, on every listener (internal/health); GET HEAD.
	for _, mux := range listeners(pub, adm) {
		mux.Read("/healthz", probes.Healthz, nil)
		mux.Read("/readyz", probes.Readyz, nil)
	}

	// The admin API (CONTRACT C6, with C7's subscribers and deliveries and
	// C8's users), every request with a bearer token, which acts as an
	// owner; each route names its action and so the least role it needs
	// (adminRoutes, from internal/app's table).
	auth := newBearer(s.cfg.Store.Tokens(), s)
	const hint = "a valid token is required: send Authorization: Bearer <token> (create one with statusd token create)"
	authed := adm.With(func(h route.Handler) route.Handler { return auth.require("statusd admin", hint, h) })
	for _, rt := range adminRoutes(ad) {
		h := ad.Serve(rt.h)
		if strings.HasPrefix(rt.pattern, http.MethodGet+" ") {
			h = permit(rt.least, h) // a write's role is checked by its action (internal/app)
		}
		handle(authed, rt.pattern, h)
	}
	authed.Handle("/admin/", notFound("no such admin endpoint")) // any: JSON 404

	// The sources' hooks (CONTRACT C9): each authenticates with its own
	// token, not an admin one; on the admin API's listener, and on the
	// public one with --hooks-public; POST.
	for _, mux := range listeners(pub, adm) {
		switch {
		case mux == adm || s.cfg.HooksPublic:
			mux.Handle("POST /hooks/v1/{id}", ad.Hook)
		default:
			mux.Handle("/hooks/", notFound("the hooks are on the admin API's listener (--admin-addr); serve them here with --hooks-public"))
		}
	}

	// The operator console (CONTRACT C8, internal/console), on the admin
	// API's listener: HTML screens, each behind a session (SignedIn) and
	// the least role it needs (permit, as the admin API's routes); every
	// POST refused from other sites (SameOrigin); GET HEAD POST.
	con := s.newConsole()
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
	// action it does (app.Least), so that a screen and its admin route
	// cannot drift apart; a refused person's form is not even read (the
	// action checks the role again).
	for _, sc := range slices.Concat(noticeScreens(con), ownerScreens(con)) {
		h := con.SignedIn(permit(app.Least(sc.action), sc.h))
		if method, path, _ := strings.Cut(sc.pattern, " "); method == http.MethodGet {
			adm.Read(path, h, nil)
		} else {
			handle(adm, sc.pattern, con.SameOrigin(h))
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

// reads registers the public reads on pub: the JSON APIs, the status
// page's HTML, feeds and assets, and the badges, each with its 404 for
// the paths it does not serve: the routes of the live listener and of the
// mirror's renderer (Renderer), which copies every answer they give.
func (s *assembly) reads(pub *route.Mux) {
	a, p := s.api, s.pages
	v2, badges := s.newStatuspage(), s.newBadges()

	// The public v1 JSON API (docs/API.md), at /api/v1 and its alias /v1
	// (CONTRACT C1): GET HEAD OPTIONS; CORS and the rate limit on every
	// answer under /api/ and /v1 are the front's (publicChain).
	read := func(path string, h api.Handler) { pub.Read(path, a.Read(h), httpjson.Preflight) }
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
	pub.Handle("/api/", api.NotFound) // any: JSON 404
	pub.Handle("/v1/", api.NotFound)  // any: JSON 404

	// Atlassian Statuspage's public v2 API, mapped (internal/statuspage),
	// with CORS and the rate limit as the v1 API.
	for _, path := range []string{
		"/api/v2/summary.json",                // GET HEAD OPTIONS
		"/api/v2/status.json",                 // GET HEAD OPTIONS
		"/api/v2/components.json",             // GET HEAD OPTIONS
		"/api/v2/incidents.json",              // GET HEAD OPTIONS
		"/api/v2/scheduled-maintenances.json", // GET HEAD OPTIONS
	} {
		pub.Read(path, v2.Serve(path), httpjson.Preflight)
	}
	// Their folders, each one route (a wildcard route beside fixed ones
	// would conflict): incidents/unresolved.json and
	// scheduled-maintenances/upcoming.json and active.json, each named by
	// its own path, and one notice's <id>.json.
	for _, dir := range []string{
		"/api/v2/incidents/",              // {file}: GET HEAD OPTIONS
		"/api/v2/scheduled-maintenances/", // {file}: GET HEAD OPTIONS
	} {
		pub.Read(dir+"{file}", v2.Folder(dir), httpjson.Preflight)
	}

	// The status page: HTML, feeds and its assets (internal/web); GET HEAD.
	pub.Read("/{$}", p.Page(p.Index), nil)
	pub.Read("/notices/{id}", p.Page(p.Notice), nil)
	pub.Read("/history", p.Page(p.History), nil)
	pub.Read("/history.atom", p.Page(p.Atom), nil)
	pub.Read("/history.rss", p.Page(p.RSS), nil)
	pub.Read("/components/{id}/metrics", p.Page(p.Metrics), nil)
	pub.Read("/assets/{name}", p.Assets(), nil)
	pub.Read("/favicon.ico", p.Assets(), nil)
	pub.Handle("/", htmlkit.NotFound) // any other path, any: HTML 404

	// Badges (internal/badge); GET HEAD.
	pub.Read("/badge/status.json", badges.StatusJSON(), nil)
	pub.Read("/badge/status.svg", badges.StatusSVG(), nil)
	pub.Read("/badge/components/{file}", badges.Component(), nil)
	pub.Handle("/badge/", badges.NotFound()) // any: a "not found" badge

}

// besideWildcards are the routes whose literal path a route of wildcards
// matches too (reactivate beside {id}): they are registered without the
// 405 of their path's other methods, which would conflict with that route
// (route.Mux.HandleOnly).
var besideWildcards = []string{
	"POST /admin/api/v1/subscribers/reactivate",
	"POST " + console.Root + "/subscribers/reactivate",
}

// handle registers h for pattern on mux (besideWildcards).
func handle(mux *route.Mux, pattern string, h route.Handler) {
	if slices.Contains(besideWildcards, pattern) {
		mux.HandleOnly(pattern, h)
		return
	}
	mux.Handle(pattern, h)
}

// adminRoute is a route of the admin API, the action it does and the
// least role that action needs (app.Least).
type adminRoute struct {
	pattern string
	action  app.Action
	least   statusd.Role
	h       admin.Handler
}

// adminRoutes is the admin API's table of routes and their actions: each
// write's role is internal/app's (CONTRACT C8), which the action checks;
// a read needs a viewer.
func adminRoutes(ad *admin.Server) []adminRoute {
	const v1a = "/admin/api/v1"
	routes := []adminRoute{
		{pattern: "GET " + v1a + "/page", action: app.ActRead, h: ad.GetPage},
		{pattern: "PATCH " + v1a + "/page", action: app.ActSetPage, h: ad.PatchPage},
		{pattern: "GET " + v1a + "/components", action: app.ActRead, h: ad.ListComponents},
		{pattern: "POST " + v1a + "/components", action: app.ActAddComponent, h: ad.CreateComponent},
		{pattern: "GET " + v1a + "/components/{id}", action: app.ActRead, h: ad.GetComponent},
		{pattern: "PATCH " + v1a + "/components/{id}", action: app.ActChangeComponent, h: ad.PatchComponent},
		{pattern: "DELETE " + v1a + "/components/{id}", action: app.ActRemoveComponent, h: ad.DeleteComponent},
		{pattern: "GET " + v1a + "/notices", action: app.ActRead, h: ad.ListNotices},
		{pattern: "POST " + v1a + "/notices", action: app.ActPublish, h: ad.CreateNotice},
		{pattern: "GET " + v1a + "/notices/{id}", action: app.ActRead, h: ad.GetNotice},
		{pattern: "PATCH " + v1a + "/notices/{id}", action: app.ActEdit, h: ad.PatchNotice},
		{pattern: "DELETE " + v1a + "/notices/{id}", action: app.ActDeleteNotice, h: ad.DeleteNotice},
		{pattern: "POST " + v1a + "/notices/{id}/updates", action: app.ActAddUpdate, h: ad.PostUpdate},
		{pattern: "POST " + v1a + "/notices/{id}/reopen", action: app.ActReopen, h: ad.PostReopen},
		{pattern: "GET " + v1a + "/audit", action: app.ActRead, h: ad.Audit},
		{pattern: "GET " + v1a + "/subscribers", action: app.ActRead, h: ad.ListSubscribers},
		{pattern: "POST " + v1a + "/subscribers", action: app.ActAddSubscriber, h: ad.CreateSubscriber},
		{pattern: "POST " + v1a + "/subscribers/reactivate", action: app.ActChangeSubscriber, h: ad.ReactivateSubscribers},
		{pattern: "GET " + v1a + "/subscribers/{id}", action: app.ActRead, h: ad.GetSubscriber},
		{pattern: "PATCH " + v1a + "/subscribers/{id}", action: app.ActChangeSubscriber, h: ad.PatchSubscriber},
		{pattern: "DELETE " + v1a + "/subscribers/{id}", action: app.ActRemoveSubscriber, h: ad.DeleteSubscriber},
		{pattern: "POST " + v1a + "/subscribers/{id}/test", action: app.ActSendTest, h: ad.TestSubscriber},
		{pattern: "GET " + v1a + "/deliveries", action: app.ActRead, h: ad.ListDeliveries},
		{pattern: "GET " + v1a + "/users", action: app.ActRead, h: ad.ListUsers},
		{pattern: "POST " + v1a + "/users", action: app.ActAddUser, h: ad.CreateUser},
		{pattern: "DELETE " + v1a + "/users/{id}", action: app.ActRemoveUser, h: ad.DeleteUser},
		{pattern: "POST " + v1a + "/users/{id}/reset", action: app.ActResetUser, h: ad.ResetUser},
		{pattern: "GET " + v1a + "/tokens", action: app.ActRead, h: ad.ListTokens},
		{pattern: "POST " + v1a + "/tokens", action: app.ActAddToken, h: ad.CreateToken},
		{pattern: "DELETE " + v1a + "/tokens/{name}", action: app.ActRevokeToken, h: ad.DeleteToken},
		{pattern: "GET " + v1a + "/sources", action: app.ActRead, h: ad.ListSources},
		{pattern: "POST " + v1a + "/sources", action: app.ActManageSources, h: ad.CreateSource},
		{pattern: "GET " + v1a + "/sources/{id}", action: app.ActRead, h: ad.GetSource},
		{pattern: "PATCH " + v1a + "/sources/{id}", action: app.ActManageSources, h: ad.PatchSource},
		{pattern: "DELETE " + v1a + "/sources/{id}", action: app.ActManageSources, h: ad.DeleteSource},
		{pattern: "POST " + v1a + "/sources/{id}/token", action: app.ActManageSources, h: ad.RotateSource},
		{pattern: "GET " + v1a + "/signals", action: app.ActRead, h: ad.ListSignals},
		{pattern: "GET " + v1a + "/drafts", action: app.ActRead, h: ad.ListDrafts},
		{pattern: "GET " + v1a + "/drafts/{id}", action: app.ActRead, h: ad.GetDraft},
		{pattern: "PATCH " + v1a + "/drafts/{id}", action: app.ActChangeDraft, h: ad.PatchDraft},
		{pattern: "POST " + v1a + "/drafts/{id}/publish", action: app.ActPublishDraft, h: ad.PublishDraft},
		{pattern: "POST " + v1a + "/drafts/{id}/discard", action: app.ActChangeDraft, h: ad.DiscardDraft},
		{pattern: "GET " + v1a + "/mirror", action: app.ActRead, h: ad.GetMirror},
		{pattern: "GET " + v1a + "/openapi.json", action: app.ActRead, h: ad.OpenAPI},
	}
	for i := range routes {
		routes[i].least = app.Least(routes[i].action)
	}
	return routes
}

// consoleScreen is a console route (GET or POST) and the action it does
// (a GET: shows its form, or reads), and so needs that action's least
// role.
type consoleScreen struct {
	pattern string
	action  app.Action
	h       route.Handler
}

// ownerScreens are the console's screens of components, the page, tokens,
// users, the audit log (internal/console/owner.go), the subscribers and
// the delivery log (subscribers.go), and the alert sources (sources.go),
// which only an owner sees.
func ownerScreens(con *console.Server) []consoleScreen {
	const m = console.Root
	return []consoleScreen{
		{"GET " + m + "/components", app.ActRead, con.Components},
		{"POST " + m + "/components", app.ActAddComponent, con.AddComponent},
		{"GET " + m + "/components/{id}", app.ActRead, con.Component},
		{"POST " + m + "/components/{id}", app.ActChangeComponent, con.ChangeComponent},
		{"POST " + m + "/components/{id}/move", app.ActChangeComponent, con.MoveComponent},
		{"POST " + m + "/components/{id}/delete", app.ActRemoveComponent, con.RemoveComponent},
		{"GET " + m + "/page", app.ActRead, con.PageSettings},
		{"POST " + m + "/page", app.ActSetPage, con.SetPage},
		{"GET " + m + "/tokens", app.ActRead, con.Tokens},
		{"POST " + m + "/tokens", app.ActAddToken, con.CreateToken},
		{"POST " + m + "/tokens/{name}/revoke", app.ActRevokeToken, con.RevokeToken},
		{"GET " + m + "/users", app.ActRead, con.Users},
		{"POST " + m + "/users", app.ActAddUser, con.AddUser},
		{"POST " + m + "/users/{id}/reset", app.ActResetUser, con.ResetUser},
		{"POST " + m + "/users/{id}/remove", app.ActRemoveUser, con.RemoveUser},
		{"GET " + m + "/audit", app.ActRead, con.Audit},
		{"GET " + m + "/subscribers", app.ActRead, con.Subscribers},
		{"POST " + m + "/subscribers", app.ActAddSubscriber, con.AddSubscriber},
		{"POST " + m + "/subscribers/reactivate", app.ActChangeSubscriber, con.ReactivateSubscribers},
		{"POST " + m + "/subscribers/{id}", app.ActChangeSubscriber, con.ChangeSubscriber},
		{"POST " + m + "/subscribers/{id}/activate", app.ActChangeSubscriber, con.ActivateSubscriber},
		{"POST " + m + "/subscribers/{id}/remove", app.ActRemoveSubscriber, con.RemoveSubscriber},
		{"POST " + m + "/subscribers/{id}/test", app.ActSendTest, con.TestSubscriber},
		{"GET " + m + "/deliveries", app.ActRead, con.Deliveries},
		{"GET " + m + "/sources", app.ActManageSources, con.Sources},
		{"POST " + m + "/sources", app.ActManageSources, con.AddSource},
		{"GET " + m + "/sources/{id}", app.ActManageSources, con.Source},
		{"POST " + m + "/sources/{id}", app.ActManageSources, con.ChangeSource},
		{"POST " + m + "/sources/{id}/rotate", app.ActManageSources, con.RotateSourceToken},
		{"POST " + m + "/sources/{id}/remove", app.ActManageSources, con.RemoveSource},
	}
}

// noticeScreens are the console's screens of notices
// (internal/console/notices.go): declare an incident, schedule
// maintenance, announce, and a notice's page with its update, resolve,
// reopen, edit and delete; and the drafts that alerts make
// (drafts.go): review one, publish it, discard it.
func noticeScreens(con *console.Server) []consoleScreen {
	const m = console.Root
	return []consoleScreen{
		{"GET " + m + "/incidents/new", app.ActPublish, con.IncidentForm},
		{"POST " + m + "/incidents/new", app.ActPublish, con.DeclareIncident},
		{"GET " + m + "/maintenance/new", app.ActPublish, con.MaintenanceForm},
		{"POST " + m + "/maintenance/new", app.ActPublish, con.ScheduleMaintenance},
		{"GET " + m + "/announcements/new", app.ActPublish, con.AnnouncementForm},
		{"POST " + m + "/announcements/new", app.ActPublish, con.Announce},
		{"GET " + m + "/notices/{id}", app.ActRead, con.Notice},
		{"POST " + m + "/notices/{id}/updates", app.ActAddUpdate, con.PostUpdate},
		{"POST " + m + "/notices/{id}/reopen", app.ActReopen, con.Reopen},
		{"GET " + m + "/notices/{id}/edit", app.ActEdit, con.EditForm},
		{"POST " + m + "/notices/{id}/edit", app.ActEdit, con.Edit},
		{"GET " + m + "/notices/{id}/delete", app.ActDeleteNotice, con.DeleteForm},
		{"POST " + m + "/notices/{id}/delete", app.ActDeleteNotice, con.Delete},
		{"GET " + m + "/drafts/{id}", app.ActPublishDraft, con.ReviewDraft},
		{"POST " + m + "/drafts/{id}/publish", app.ActPublishDraft, con.PublishDraft},
		{"POST " + m + "/drafts/{id}/discard", app.ActChangeDraft, con.DiscardDraft},
	}
}

// permit lets through to h only the requests whose actor
// (statusd.ActorOf) has at least the role least; any other is answered
// 403 forbidden, having changed nothing.
func permit(least statusd.Role, h route.Handler) route.Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		if err := app.Permit(statusd.ActorOf(r.Context()), least); err != nil {
			return err
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
