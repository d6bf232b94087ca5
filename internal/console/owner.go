package console

// The owner's screens (CONTRACT C8): the components, the page's settings,
// the admin API's tokens, the users and the audit log. Each screen reads
// or acts through the same actions as the admin API (internal/app), with the
// signed-in person as the actor, behind the least role of its action
// (app.Least, which the action checks again); a person whose
// role may not act sees the screen without its forms.

import (
	"net/http"
	"net/url"
	"strconv"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/internal/app"
	"github.com/statusd/statusd/internal/htmlkit"
	"github.com/statusd/statusd/internal/snapshot"
)

// may reports whether r's actor may do action.
func may(r *http.Request, action app.Action) bool { return app.May(actor(r), action) == nil }

// actor is r's signed-in person.
func actor(r *http.Request) statusd.Actor { return statusd.ActorOf(r.Context()) }

// pathID reads the path's {id}, the id of a what.
func pathID(r *http.Request, what string) (int64, error) {
	return statusd.ParseID(what, r.PathValue("id"))
}

// ---- components ----

// componentRow is a component in the tree, depth-first, with the
// positions that move it up or down among its siblings (0: it cannot).
type componentRow struct {
	ID          int64
	Name        string
	Key         string
	Description string
	State       statusd.PageState
	Depth       int
	ParentID    int64 // 0 at the top
	Metrics     bool
	Up, Down    int
}

// componentsView is the components screen, or one component's.
type componentsView struct {
	base
	Edit   bool // the person may change components
	Rows   []componentRow
	Add    form // the add form, as sent
	This   *componentRow
	Change form // this component's form, as sent
	Delete form // this component's delete form, as sent
}

// componentFields is a component form's fields: as sent, and the
// components it may be put under (all but Self).
type componentFields struct {
	Form form
	Rows []componentRow
	Self int64
}

// AddFields are the fields of the add form.
func (v componentsView) AddFields() componentFields { return componentFields{v.Add, v.Rows, 0} }

// ChangeFields are the fields of this component's form.
func (v componentsView) ChangeFields() componentFields {
	return componentFields{v.Change, v.Rows, v.This.ID}
}

// componentRows is the tree of the page's components, depth-first.
func componentRows(snap *snapshot.Snapshot) []componentRow {
	var rows []componentRow
	var walk func(list []*snapshot.Component, depth int)
	walk = func(list []*snapshot.Component, depth int) {
		for i, c := range list {
			row := componentRow{ID: c.ID, Name: c.Name, Key: c.Key, Description: c.Description, State: c.State, Depth: depth, Metrics: c.MetricsEnabled}
			if c.ParentID != nil {
				row.ParentID = *c.ParentID
			}
			if i > 0 {
				row.Up = list[i-1].Position
			}
			if i+1 < len(list) {
				row.Down = list[i+1].Position
			}
			rows = append(rows, row)
			walk(c.Children, depth+1)
		}
	}
	walk(htmlkit.Roots(snap), 0)
	return rows
}

// componentsScreen renders the components screen with the forms of v, and
// this component's when id is not 0.
func (s *Server) componentsScreen(w http.ResponseWriter, r *http.Request, status int, id int64, v componentsView) error {
	snap, err := s.app.Snapshot()
	if err != nil {
		return err
	}
	v.base, v.Edit, v.Rows = s.newBase(r, "Components"), may(r, app.ActAddComponent), componentRows(snap)
	if id == 0 {
		return s.render(w, status, "components", v)
	}
	for i := range v.Rows {
		if v.Rows[i].ID == id {
			v.This = &v.Rows[i]
		}
	}
	if v.This == nil {
		return statusd.Errorf(statusd.ENotFound, "component %d not found", id)
	}
	v.Title = v.This.Name
	if v.Change.Values == nil {
		v.Change.Values = url.Values{"name": {v.This.Name}, "key": {v.This.Key}, "description": {v.This.Description},
			"parent_id": {idText(v.This.ParentID)}}
		if v.This.Metrics {
			v.Change.Values.Set("metrics_enabled", "on")
		}
	}
	return s.render(w, status, "component", v)
}

// idText is an id as a form's value: "" for none.
func idText(id int64) string {
	if id == 0 {
		return ""
	}
	return strconv.FormatInt(id, 10)
}

// Components shows the component tree, with the forms to add, reorder and
// change components for those who may.
func (s *Server) Components(w http.ResponseWriter, r *http.Request) error {
	return s.componentsScreen(w, r, http.StatusOK, 0, componentsView{})
}

// Component shows a component's forms: change, move, delete.
func (s *Server) Component(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "component")
	if err != nil {
		return err
	}
	return s.componentsScreen(w, r, http.StatusOK, id, componentsView{})
}

// componentRequest is the request of a component's form: name, key (""
// for none), description, metrics_enabled and parent_id ("" for the top).
func componentRequest(f *form) statusd.AdminComponentRequest {
	body := statusd.AdminComponentRequest{Name: f.text("name"), Description: f.text("description"), MetricsEnabled: f.check("metrics_enabled")}
	if key := f.text("key"); key != nil {
		body.Key = statusd.Some(*key)
	}
	if v := f.Get("parent_id"); v != "" {
		if id, err := strconv.ParseInt(v, 10, 64); err == nil {
			body.ParentID = statusd.Some(id)
		} else {
			body.ParentID = statusd.Some(int64(-1)) // no component has it: refused at parent_id
		}
	} else {
		body.ParentID = statusd.Field[int64]{Set: true}
	}
	return body
}

// componentKeys are the fields a component's form shows problems at.
var componentKeys = []string{"name", "key", "description", "parent_id", "position"}

// AddComponent adds a component (app.AddComponent).
func (s *Server) AddComponent(w http.ResponseWriter, r *http.Request) error {
	var id int64
	return submit(w, r, componentKeys, func(f *form) (err error) {
		id, err = s.app.AddComponent(r.Context(), actor(r), componentRequest(f))
		return err
	}, func(status int, f *form) error {
		return s.componentsScreen(w, r, status, 0, componentsView{Add: *f})
	}, func() error { return changed(w, r, "/components", "component-added", id)() })
}

// ChangeComponent changes a component's name, description, metrics and
// parent (app.ChangeComponent).
func (s *Server) ChangeComponent(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "component")
	if err != nil {
		return err
	}
	return submit(w, r, componentKeys, func(f *form) error {
		return s.app.ChangeComponent(r.Context(), actor(r), id, componentRequest(f))
	}, func(status int, f *form) error {
		return s.componentsScreen(w, r, status, id, componentsView{Change: *f})
	}, changed(w, r, "/components", "component-changed", id, s.parentOf(id)))
}

// parentOf is the id of the parent of component id now, before an action
// moves or deletes it (its state may follow), or 0 (no component).
func (s *Server) parentOf(id int64) int64 {
	if snap := s.snaps.Current(); snap != nil {
		if c := snap.Component(id); c != nil && c.ParentID != nil {
			return *c.ParentID
		}
	}
	return 0
}

// MoveComponent moves a component among its siblings: to the position
// the form's button sends (app.ChangeComponent).
func (s *Server) MoveComponent(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "component")
	if err != nil {
		return err
	}
	f, err := readForm(w, r, "position")
	if err != nil {
		return err
	}
	pos, err := strconv.Atoi(f.Get("position"))
	if err != nil {
		return statusd.Errorf(statusd.EInvalidParameter, "position: %q is not a position; use the up and down buttons", f.Get("position"))
	}
	if err := s.app.ChangeComponent(r.Context(), actor(r), id, statusd.AdminComponentRequest{Position: &pos}); err != nil {
		return err
	}
	return changed(w, r, "/components", "component-moved", id)()
}

// RemoveComponent deletes a component once the form confirms it, with the
// choices of the admin API: recursive (its subtree too) and detach (out of
// the notices that list it) (app.RemoveComponent).
func (s *Server) RemoveComponent(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "component")
	if err != nil {
		return err
	}
	return submit(w, r, []string{"confirm"}, func(f *form) error {
		if !f.Has("confirm") {
			return statusd.FieldError(statusd.EInvalidField, "confirm", "tick the box to confirm the deletion")
		}
		return s.app.RemoveComponent(r.Context(), actor(r), id, f.Has("recursive"), f.Has("detach"))
	}, func(status int, f *form) error {
		return s.componentsScreen(w, r, status, id, componentsView{Delete: *f})
	}, changed(w, r, "/components", "component-deleted", s.parentOf(id)))
}

// ---- the page ----

// pageView is the page settings screen.
type pageView struct {
	base
	Edit bool
	Form form
}

// pageScreen renders the page settings, with f as sent, or the page's
// settings when f is empty.
func (s *Server) pageScreen(w http.ResponseWriter, r *http.Request, status int, f form) error {
	snap, err := s.app.Snapshot()
	if err != nil {
		return err
	}
	if f.Values == nil {
		p, t := snap.Page(), snap.Doc.Page.StateTexts
		f.Values = url.Values{"name": {p.Name}, "url": {p.URL}, "operational": {t.Operational}, "degraded": {t.Degraded},
			"under_maintenance": {t.UnderMaintenance}}
	}
	v := pageView{base: s.newBase(r, "Page settings"), Edit: may(r, app.ActSetPage), Form: f}
	return s.render(w, status, "page", v)
}

// PageSettings shows the page's name, url and state texts.
func (s *Server) PageSettings(w http.ResponseWriter, r *http.Request) error {
	return s.pageScreen(w, r, http.StatusOK, form{})
}

// pageKeys are the fields the page's form shows problems at.
var pageKeys = []string{"name", "url", "state_texts.operational", "state_texts.degraded", "state_texts.under_maintenance"}

// SetPage changes the page's name, url and state texts (app.SetPage).
func (s *Server) SetPage(w http.ResponseWriter, r *http.Request) error {
	return submit(w, r, pageKeys, func(f *form) error {
		body := statusd.AdminPageRequest{Name: f.text("name"), URL: f.text("url"), StateTexts: &statusd.AdminStateTextsRequest{
			Operational: f.text("operational"), Degraded: f.text("degraded"), UnderMaintenance: f.text("under_maintenance")}}
		return s.app.SetPage(r.Context(), actor(r), body)
	}, func(status int, f *form) error {
		return s.pageScreen(w, r, status, *f)
	}, changed(w, r, "/page", "page-saved"))
}

// ---- tokens ----

// tokensView is the tokens screen; Secret is a new token's, shown once.
type tokensView struct {
	base
	Edit    bool
	Tokens  []statusd.AdminToken
	Roles   []statusd.Role
	Form    form
	Created *statusd.AdminToken
}

func (s *Server) tokensScreen(w http.ResponseWriter, r *http.Request, status int, v tokensView) error {
	list, err := s.app.Tokens(r.Context(), actor(r))
	if err != nil {
		return err
	}
	v.base, v.Edit, v.Tokens, v.Roles = s.newBase(r, "Tokens"), may(r, app.ActAddToken), list, statusd.Roles
	if v.Form.Values == nil {
		v.Form.Values = url.Values{"role": {string(statusd.Owner)}}
	}
	return s.render(w, status, "tokens", v)
}

// Tokens lists the admin API's tokens, without their secrets.
func (s *Server) Tokens(w http.ResponseWriter, r *http.Request) error {
	return s.tokensScreen(w, r, http.StatusOK, tokensView{})
}

// CreateToken adds a token and shows its secret, this once: it is not
// kept, so it is answered at once rather than after a redirect
// (app.AddToken).
func (s *Server) CreateToken(w http.ResponseWriter, r *http.Request) error {
	var t statusd.AdminToken
	return submit(w, r, []string{"name", "role"}, func(f *form) (err error) {
		t, err = s.app.AddToken(r.Context(), actor(r), statusd.AdminTokenRequest{Name: f.text("name"), Role: f.text("role")})
		return err
	}, func(status int, f *form) error {
		return s.tokensScreen(w, r, status, tokensView{Form: *f})
	}, func() error {
		return s.tokensScreen(w, r, http.StatusCreated, tokensView{Created: &t})
	})
}

// RevokeToken revokes the token of the path's {name} (app.RevokeToken).
func (s *Server) RevokeToken(w http.ResponseWriter, r *http.Request) error {
	if err := s.app.RevokeToken(r.Context(), actor(r), r.PathValue("name")); err != nil {
		return err
	}
	return back(w, r, "/tokens")()
}

// ---- users ----

// usersView is the users screen; Link is a setup link, shown once.
type usersView struct {
	base
	Edit  bool
	Users []statusd.AdminUser
	Roles []statusd.Role
	Form  form
	Link  *statusd.AdminUser
}

func (s *Server) usersScreen(w http.ResponseWriter, r *http.Request, status int, v usersView) error {
	users, err := s.app.Users(r.Context(), actor(r))
	if err != nil {
		return err
	}
	v.Users = users
	v.base, v.Edit, v.Roles = s.newBase(r, "Users"), may(r, app.ActAddUser), statusd.Roles
	if v.Form.Values == nil {
		v.Form.Values = url.Values{"role": {string(statusd.Roles[0])}}
	}
	return s.render(w, status, "users", v)
}

// Users lists the console's users.
func (s *Server) Users(w http.ResponseWriter, r *http.Request) error {
	return s.usersScreen(w, r, http.StatusOK, usersView{})
}

// AddUser adds a user and shows the setup link, this once
// (app.AddUser).
func (s *Server) AddUser(w http.ResponseWriter, r *http.Request) error {
	var u statusd.AdminUser
	return submit(w, r, []string{"email", "role"}, func(f *form) (err error) {
		u, err = s.app.AddUser(r.Context(), actor(r), statusd.AdminUserRequest{Email: f.text("email"), Role: f.text("role")})
		u.SetupURL = s.url() + u.SetupURL
		return err
	}, func(status int, f *form) error {
		return s.usersScreen(w, r, status, usersView{Form: *f})
	}, func() error {
		return s.usersScreen(w, r, http.StatusCreated, usersView{Link: &u})
	})
}

// ResetUser ends a user's sessions, clears the password and shows the new
// setup link, this once (app.ResetUser).
func (s *Server) ResetUser(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "user")
	if err != nil {
		return err
	}
	u, err := s.app.ResetUser(r.Context(), actor(r), id)
	if err != nil {
		return err
	}
	u.SetupURL = s.url() + u.SetupURL
	return s.usersScreen(w, r, http.StatusOK, usersView{Link: &u})
}

// RemoveUser removes a user (app.RemoveUser).
func (s *Server) RemoveUser(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "user")
	if err != nil {
		return err
	}
	if err := s.app.RemoveUser(r.Context(), actor(r), id); err != nil {
		return err
	}
	return back(w, r, "/users")()
}

// ---- the audit log ----

// auditView is a page of the audit log.
type auditView struct {
	base
	pager
	Entries []statusd.AdminAuditEntry
}

// Audit shows a page (?page=) of the audit log, newest first, each entry
// naming the person or token that acted.
func (s *Server) Audit(w http.ResponseWriter, r *http.Request) error {
	page, err := app.PageOf(r.URL.Query())
	if err != nil {
		return err
	}
	list, total, err := s.app.AuditPage(r.Context(), actor(r), page)
	if err != nil {
		return err
	}
	v := auditView{base: s.newBase(r, "Audit log"), pager: pagerOf(Root+"/audit", r.URL.Query(), page, total), Entries: list}
	return s.render(w, http.StatusOK, "audit", v)
}
