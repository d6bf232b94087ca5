package client

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strconv"

	"github.com/statusd/statusd"
)

// AdminRoot is the path of the admin API (docs/ADMIN-API.md).
const AdminRoot = "/admin/api/v1"

// Admin calls the admin API of one statusd server, with a bearer token made
// by `statusd token create`: the page, its components, notices and their
// updates, and the audit log. Requests and answers are the Admin* wire types
// of package statusd, the ones the server decodes and encodes. Errors the
// server answers are *[Error] values, as with [Client]: a refused change is
// an *Error with status 422 and code invalid_field or invalid_transition
// whose message names what is wrong.
//
// An Admin never follows a redirect, whatever http.Client [WithHTTPClient]
// gives it: the request carries the token, which belongs to the server at
// the base URL. A redirect is an *Error with the redirect's status and its
// target in Location. It is safe for concurrent use.
//
// Notice writes tell subscribers unless their request sets
// Notify to false; the subscribers themselves, and the log of what was
// sent to them, are managed here too, as are the sources of alerts and the
// drafts their signals make (CONTRACT C9).
type Admin struct {
	c *Client
}

// NewAdmin returns a client of the admin API of the statusd server at
// baseURL (http://127.0.0.1:8080, or the --admin-addr listener) that sends
// token with every request. The options are those of [New].
func NewAdmin(baseURL, token string, opts ...Option) *Admin {
	c := New(baseURL, opts...)
	c.token = token
	hc := *c.http
	hc.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	c.http = &hc
	return &Admin{c: c}
}

// call sends method to the admin API path, relative to [AdminRoot], with in
// as the JSON body unless it is nil, and decodes the answer into a new R.
func call[R any](ctx context.Context, a *Admin, method, path string, in any) (*R, error) {
	out := new(R)
	if err := a.c.send(ctx, method, AdminRoot+path, in, out); err != nil {
		return nil, err
	}
	return out, nil
}

func componentPath(id int64) string  { return "/components/" + strconv.FormatInt(id, 10) }
func noticePath(id int64) string     { return "/notices/" + strconv.FormatInt(id, 10) }
func subscriberPath(id int64) string { return "/subscribers/" + strconv.FormatInt(id, 10) }

func pageQuery(path string, page int) string {
	return listQuery(path, url.Values{}, page)
}

// listQuery is path with the filters of q that are not empty and, past
// the first, the page.
func listQuery(path string, q url.Values, page int) string {
	for k, v := range q {
		if len(v) == 0 || v[0] == "" {
			q.Del(k)
		}
	}
	if page > 1 {
		q.Set("page", strconv.Itoa(page))
	}
	return withQuery(path, q)
}

// Page returns the page with its state texts (GET /page).
func (a *Admin) Page(ctx context.Context) (*statusd.AdminPage, error) {
	return call[statusd.AdminPage](ctx, a, http.MethodGet, "/page", nil)
}

// UpdatePage changes the page's name, URL or state texts, those set in r
// (PATCH /page).
func (a *Admin) UpdatePage(ctx context.Context, r statusd.AdminPageRequest) (*statusd.AdminPage, error) {
	return call[statusd.AdminPage](ctx, a, http.MethodPatch, "/page", r)
}

// Components returns every component, in position order (GET /components).
func (a *Admin) Components(ctx context.Context) ([]statusd.AdminComponent, error) {
	r, err := call[statusd.AdminComponentsResponse](ctx, a, http.MethodGet, "/components", nil)
	if err != nil {
		return nil, err
	}
	return r.Components, nil
}

// Component returns one component (GET /components/{id}).
func (a *Admin) Component(ctx context.Context, id int64) (*statusd.AdminComponent, error) {
	return call[statusd.AdminComponent](ctx, a, http.MethodGet, componentPath(id), nil)
}

// CreateComponent adds a component; r.Name is required (POST /components).
func (a *Admin) CreateComponent(ctx context.Context, r statusd.AdminComponentRequest) (*statusd.AdminComponent, error) {
	return call[statusd.AdminComponent](ctx, a, http.MethodPost, "/components", r)
}

// UpdateComponent changes the settings of a component set in r: renames,
// describes or moves it, turns its metrics on or off (PATCH
// /components/{id}).
func (a *Admin) UpdateComponent(ctx context.Context, id int64, r statusd.AdminComponentRequest) (*statusd.AdminComponent, error) {
	return call[statusd.AdminComponent](ctx, a, http.MethodPatch, componentPath(id), r)
}

// DeleteComponentOptions are the choices of [Admin.DeleteComponent]: without
// them, a component with components below it, or listed by a notice, is not
// deleted (an *Error with code conflict).
type DeleteComponentOptions struct {
	// Recursive deletes the components below it too.
	Recursive bool
	// Detach removes it from the notices that list it.
	Detach bool
}

// DeleteComponent deletes a component (DELETE /components/{id}).
func (a *Admin) DeleteComponent(ctx context.Context, id int64, o DeleteComponentOptions) error {
	q := url.Values{}
	if o.Recursive {
		q.Set("recursive", "true")
	}
	if o.Detach {
		q.Set("detach", "true")
	}
	return a.c.send(ctx, http.MethodDelete, AdminRoot+withQuery(componentPath(id), q), nil, nil)
}

// Notices returns one page of notices, newest first, 25 a page, with the
// pagination meta (GET /notices); page 0 is the first.
func (a *Admin) Notices(ctx context.Context, page int) (*statusd.AdminNoticesResponse, error) {
	return call[statusd.AdminNoticesResponse](ctx, a, http.MethodGet, pageQuery("/notices", page), nil)
}

// Notice returns one notice with its updates (GET /notices/{id}).
func (a *Admin) Notice(ctx context.Context, id int64) (*statusd.AdminNotice, error) {
	return call[statusd.AdminNotice](ctx, a, http.MethodGet, noticePath(id), nil)
}

// CreateNotice publishes a notice: an incident, maintenance or announcement
// by r.Type, with r.Subject and the first update's r.Content (POST
// /notices).
func (a *Admin) CreateNotice(ctx context.Context, r statusd.AdminNoticeRequest) (*statusd.AdminNotice, error) {
	return call[statusd.AdminNotice](ctx, a, http.MethodPost, "/notices", r)
}

// UpdateNotice changes the settings of a notice set in r: subject, tags,
// components, schedule, automation, expiry, impact (PATCH /notices/{id}).
// Its state changes only with [Admin.PostUpdate].
func (a *Admin) UpdateNotice(ctx context.Context, id int64, r statusd.AdminNoticeRequest) (*statusd.AdminNotice, error) {
	return call[statusd.AdminNotice](ctx, a, http.MethodPatch, noticePath(id), r)
}

// DeleteNotice deletes a notice and its updates (DELETE /notices/{id}).
func (a *Admin) DeleteNotice(ctx context.Context, id int64) error {
	return a.c.send(ctx, http.MethodDelete, AdminRoot+noticePath(id), nil, nil)
}

// PostUpdate posts a progress update on a notice, moving it to r.State
// when set (POST /notices/{id}/updates).
func (a *Admin) PostUpdate(ctx context.Context, id int64, r statusd.AdminUpdateRequest) (*statusd.AdminNotice, error) {
	return call[statusd.AdminNotice](ctx, a, http.MethodPost, noticePath(id)+"/updates", r)
}

// Reopen reopens a closed incident with an update saying why, r.Content
// (r.State left out); it is investigating again (POST
// /notices/{id}/reopen).
func (a *Admin) Reopen(ctx context.Context, id int64, r statusd.AdminUpdateRequest) (*statusd.AdminNotice, error) {
	return call[statusd.AdminNotice](ctx, a, http.MethodPost, noticePath(id)+"/reopen", r)
}

// Audit returns one page of the audit log, newest first, 25 entries a page
// (GET /audit); page 0 is the first.
func (a *Admin) Audit(ctx context.Context, page int) (*statusd.AdminAuditResponse, error) {
	return call[statusd.AdminAuditResponse](ctx, a, http.MethodGet, pageQuery("/audit", page), nil)
}

// Subscribers returns one page of the subscribers the filter chooses, by
// id, 25 a page, with the pagination meta (GET /subscribers); page 0 is
// the first.
func (a *Admin) Subscribers(ctx context.Context, f statusd.SubscriberFilter, page int) (*statusd.AdminSubscribersResponse, error) {
	q := url.Values{"channel": {string(f.Channel)}, "state": {string(f.State)}}
	return call[statusd.AdminSubscribersResponse](ctx, a, http.MethodGet, listQuery("/subscribers", q, page), nil)
}

// Subscriber returns one subscriber (GET /subscribers/{id}).
func (a *Admin) Subscriber(ctx context.Context, id int64) (*statusd.AdminSubscriber, error) {
	return call[statusd.AdminSubscriber](ctx, a, http.MethodGet, subscriberPath(id), nil)
}

// CreateSubscriber adds a subscriber; r.Channel and r.Address are required
// (POST /subscribers). An email address is pending, and sent a
// confirmation, unless r.Confirmed is true. A webhook's answer carries its
// signing Secret: the only time it is shown.
func (a *Admin) CreateSubscriber(ctx context.Context, r statusd.AdminSubscriberRequest) (*statusd.AdminSubscriber, error) {
	return call[statusd.AdminSubscriber](ctx, a, http.MethodPost, "/subscribers", r)
}

// PatchSubscriber changes the components a subscriber follows, or sets it
// active again (r.State "active"), those set in r (PATCH
// /subscribers/{id}).
func (a *Admin) PatchSubscriber(ctx context.Context, id int64, r statusd.AdminSubscriberRequest) (*statusd.AdminSubscriber, error) {
	return call[statusd.AdminSubscriber](ctx, a, http.MethodPatch, subscriberPath(id), r)
}

// ReactivateSubscribers sets quarantined subscribers active again, those
// of r.Channel and, when r.IDs is set, those it lists (neither: every
// quarantined subscriber), and has each sent, for every notice, its
// newest update of the last 24 hours that it did not get (POST
// /subscribers/reactivate). It answers how many of each.
func (a *Admin) ReactivateSubscribers(ctx context.Context, r statusd.AdminReactivateRequest) (*statusd.AdminReactivateResponse, error) {
	return call[statusd.AdminReactivateResponse](ctx, a, http.MethodPost, "/subscribers/reactivate", r)
}

// DeleteSubscriber removes a subscriber and its deliveries (DELETE
// /subscribers/{id}).
func (a *Admin) DeleteSubscriber(ctx context.Context, id int64) error {
	return a.c.send(ctx, http.MethodDelete, AdminRoot+subscriberPath(id), nil, nil)
}

// TestSubscriber sends a test message to a subscriber now and returns its
// delivery as the attempt left it (POST /subscribers/{id}/test). A server
// without notifications configured answers an *Error with code
// unavailable.
func (a *Admin) TestSubscriber(ctx context.Context, id int64) (*statusd.AdminDelivery, error) {
	return call[statusd.AdminDelivery](ctx, a, http.MethodPost, subscriberPath(id)+"/test", nil)
}

// Deliveries returns one page of the delivery log the filter chooses,
// newest first, 25 a page, with the pagination meta (GET /deliveries);
// page 0 is the first.
func (a *Admin) Deliveries(ctx context.Context, f statusd.DeliveryFilter, page int) (*statusd.AdminDeliveriesResponse, error) {
	q := url.Values{"state": {string(f.State)}}
	if f.SubscriberID != 0 {
		q.Set("subscriber_id", strconv.FormatInt(f.SubscriberID, 10))
	}
	return call[statusd.AdminDeliveriesResponse](ctx, a, http.MethodGet, listQuery("/deliveries", q, page), nil)
}

func userPath(id int64) string { return "/users/" + strconv.FormatInt(id, 10) }

// Users returns every console user, by id (GET /users).
func (a *Admin) Users(ctx context.Context) ([]statusd.AdminUser, error) {
	r, err := call[statusd.AdminUsersResponse](ctx, a, http.MethodGet, "/users", nil)
	if err != nil {
		return nil, err
	}
	return r.Users, nil
}

// CreateUser adds a console user; r.Email and r.Role are required (POST
// /users). The answer carries the user's one-time SetupURL, valid for 24
// hours, where they set a password.
func (a *Admin) CreateUser(ctx context.Context, r statusd.AdminUserRequest) (*statusd.AdminUser, error) {
	return call[statusd.AdminUser](ctx, a, http.MethodPost, "/users", r)
}

// DeleteUser removes a console user and ends its sessions (DELETE
// /users/{id}).
func (a *Admin) DeleteUser(ctx context.Context, id int64) error {
	return a.c.send(ctx, http.MethodDelete, AdminRoot+userPath(id), nil, nil)
}

// ResetUser ends a console user's sessions, clears its password and
// returns it with a new SetupURL (POST /users/{id}/reset).
func (a *Admin) ResetUser(ctx context.Context, id int64) (*statusd.AdminUser, error) {
	return call[statusd.AdminUser](ctx, a, http.MethodPost, userPath(id)+"/reset", nil)
}

// Tokens returns every admin token, by name, without its secret (GET
// /tokens).
func (a *Admin) Tokens(ctx context.Context) ([]statusd.AdminToken, error) {
	r, err := call[statusd.AdminTokensResponse](ctx, a, http.MethodGet, "/tokens", nil)
	if err != nil {
		return nil, err
	}
	return r.Tokens, nil
}

// CreateToken adds an admin token named name (POST /tokens), an owner's.
// The answer carries its Secret, this once: the server keeps only its
// hash.
func (a *Admin) CreateToken(ctx context.Context, name string) (*statusd.AdminToken, error) {
	return a.CreateTokenAs(ctx, name, "")
}

// CreateTokenAs is CreateToken of a token that acts as role: owner,
// publisher or viewer ("": owner).
func (a *Admin) CreateTokenAs(ctx context.Context, name string, role statusd.Role) (*statusd.AdminToken, error) {
	body := statusd.AdminTokenRequest{Name: &name}
	if role != "" {
		r := string(role)
		body.Role = &r
	}
	return call[statusd.AdminToken](ctx, a, http.MethodPost, "/tokens", body)
}

// RevokeToken deletes the admin token named name (DELETE /tokens/{name}):
// requests with it are refused from then on.
func (a *Admin) RevokeToken(ctx context.Context, name string) error {
	return a.c.send(ctx, http.MethodDelete, AdminRoot+"/tokens/"+url.PathEscape(name), nil, nil)
}

func sourcePath(id int64) string { return "/sources/" + strconv.FormatInt(id, 10) }
func draftPath(id int64) string  { return "/drafts/" + strconv.FormatInt(id, 10) }

// Sources returns every source of alerts, by id, without its token (GET
// /sources).
func (a *Admin) Sources(ctx context.Context) ([]statusd.AdminSource, error) {
	r, err := call[statusd.AdminSourcesResponse](ctx, a, http.MethodGet, "/sources", nil)
	if err != nil {
		return nil, err
	}
	return r.Sources, nil
}

// Source returns one source, with its state: never, ok or stale (GET
// /sources/{id}).
func (a *Admin) Source(ctx context.Context, id int64) (*statusd.AdminSource, error) {
	return call[statusd.AdminSource](ctx, a, http.MethodGet, sourcePath(id), nil)
}

// CreateSource adds a source of alerts; r.Name and r.Format (alertmanager,
// grafana, uptime_kuma or generic) are required (POST /sources). The
// answer carries the source's Token, this once: its sender posts to
// HookPath with it as a bearer token, and the server keeps only its hash.
func (a *Admin) CreateSource(ctx context.Context, r statusd.AdminSourceRequest) (*statusd.AdminSource, error) {
	return call[statusd.AdminSource](ctx, a, http.MethodPost, "/sources", r)
}

// ChangeSource changes a source's name, rules, heartbeat or Grafana
// secret, those set in r; its format cannot change (PATCH /sources/{id}).
func (a *Admin) ChangeSource(ctx context.Context, id int64, r statusd.AdminSourceRequest) (*statusd.AdminSource, error) {
	return call[statusd.AdminSource](ctx, a, http.MethodPatch, sourcePath(id), r)
}

// DeleteSource removes a source and its signals; the drafts they made
// stay (DELETE /sources/{id}).
func (a *Admin) DeleteSource(ctx context.Context, id int64) error {
	return a.c.send(ctx, http.MethodDelete, AdminRoot+sourcePath(id), nil, nil)
}

// RotateSourceToken gives a source a new token and returns the source with
// it, this once; the old token stops working at once (POST
// /sources/{id}/token).
func (a *Admin) RotateSourceToken(ctx context.Context, id int64) (*statusd.AdminSource, error) {
	return call[statusd.AdminSource](ctx, a, http.MethodPost, sourcePath(id)+"/token", nil)
}

// errSignalFilter refuses the fields of a statusd.SignalFilter that the
// admin API does not filter by.
var errSignalFilter = errors.New("client: the admin API filters signals by SourceID, Status and Unmapped only, not DraftID or NoticeID")

// Signals returns the signals kept of the sources' alerts that f chooses,
// by id: of f.SourceID (0: every source), of f.Status (firing, resolved;
// "": both), only those mapped to no component with f.Unmapped (GET
// /signals). The API has no filter by draft or notice: f.DraftID or
// f.NoticeID set is an error, and nothing is sent.
func (a *Admin) Signals(ctx context.Context, f statusd.SignalFilter) ([]statusd.AdminSignal, error) {
	if f.DraftID != 0 || f.NoticeID != 0 {
		return nil, errSignalFilter
	}
	q := url.Values{"status": {f.Status}}
	if f.SourceID != 0 {
		q.Set("source_id", strconv.FormatInt(f.SourceID, 10))
	}
	if f.Unmapped {
		q.Set("unmapped", "true")
	}
	r, err := call[statusd.AdminSignalsResponse](ctx, a, http.MethodGet, listQuery("/signals", q, 0), nil)
	if err != nil {
		return nil, err
	}
	return r.Signals, nil
}

// Drafts returns the drafts that signals made in state (open, published,
// discarded or lapsed; "": all), by id (GET /drafts).
func (a *Admin) Drafts(ctx context.Context, state string) ([]statusd.AdminDraft, error) {
	r, err := call[statusd.AdminDraftsResponse](ctx, a, http.MethodGet, listQuery("/drafts", url.Values{"state": {state}}, 0), nil)
	if err != nil {
		return nil, err
	}
	return r.Drafts, nil
}

// Draft returns one draft, with its Version, which a change, publication
// or discard must give back (GET /drafts/{id}).
func (a *Admin) Draft(ctx context.Context, id int64) (*statusd.AdminDraft, error) {
	return call[statusd.AdminDraft](ctx, a, http.MethodGet, draftPath(id), nil)
}

// ChangeDraft changes an open draft's subject, content, notice state or
// components, those set in r; r.Version, the draft's as read, is required:
// when the draft changed since, or is no longer open, the answer is an
// *Error with code conflict (PATCH /drafts/{id}).
func (a *Admin) ChangeDraft(ctx context.Context, id int64, r statusd.AdminDraftRequest) (*statusd.AdminDraft, error) {
	return call[statusd.AdminDraft](ctx, a, http.MethodPatch, draftPath(id), r)
}

// PublishDraft publishes an open or lapsed draft as the notice write it
// proposes (a new incident, an update, a reopening), with the changes set
// in r, and returns the draft and the notice it wrote; r.Version is
// required, as with [Admin.ChangeDraft] (409 conflict when stale or no
// longer publishable), and the write tells subscribers unless r.Notify is
// false (POST /drafts/{id}/publish).
func (a *Admin) PublishDraft(ctx context.Context, id int64, r statusd.AdminDraftRequest) (*statusd.AdminPublishedDraft, error) {
	return call[statusd.AdminPublishedDraft](ctx, a, http.MethodPost, draftPath(id)+"/publish", r)
}

// DiscardDraft discards a draft, for r.Reason (optional); r.Version is
// required, as with [Admin.ChangeDraft]. Its signals stay (POST
// /drafts/{id}/discard).
func (a *Admin) DiscardDraft(ctx context.Context, id int64, r statusd.AdminDiscardRequest) (*statusd.AdminDraft, error) {
	return call[statusd.AdminDraft](ctx, a, http.MethodPost, draftPath(id)+"/discard", r)
}
