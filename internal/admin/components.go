package admin

import (
	"net/http"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/internal/httpjson"
	"github.com/statusd/statusd/internal/snapshot"
)

func (s *Server) pageRepr(snap *snapshot.Snapshot) statusd.AdminPage {
	t := snap.Doc.Page.StateTexts
	return statusd.AdminPage{PageResource: snap.Page(), StateTexts: statusd.AdminStateTexts{
		Operational:      t.Text(statusd.PageOperational),
		Degraded:         t.Text(statusd.PageDegraded),
		UnderMaintenance: t.Text(statusd.PageUnderMaintenance),
	}}
}

// GetPage answers the page's settings.
func (s *Server) GetPage(w http.ResponseWriter, r *http.Request, _ statusd.Actor) error {
	snap, err := s.app.Snapshot()
	if err != nil {
		return err
	}
	return httpjson.Write(w, r, http.StatusOK, s.pageRepr(snap))
}

// PatchPage changes the page's settings (PATCH /page): app.SetPage, then
// the page.
func (s *Server) PatchPage(w http.ResponseWriter, r *http.Request, actor statusd.Actor) error {
	var body statusd.AdminPageRequest
	if err := decode(r, &body); err != nil {
		return err
	}
	if err := s.app.SetPage(r.Context(), actor, body); err != nil {
		return err
	}
	return s.GetPage(w, r, actor)
}

func (s *Server) componentRepr(snap *snapshot.Snapshot, c *snapshot.Component) statusd.AdminComponent {
	out := statusd.AdminComponent{ComponentResource: snap.ComponentResource(c, s.now()), MetricsEnabled: c.MetricsEnabled}
	if key := c.Key; key != "" {
		out.Key = &key
	}
	return out
}

// ListComponents answers every component.
func (s *Server) ListComponents(w http.ResponseWriter, r *http.Request, _ statusd.Actor) error {
	snap, err := s.app.Snapshot()
	if err != nil {
		return err
	}
	list := make([]statusd.AdminComponent, 0, len(snap.AllComponents))
	for _, c := range snap.AllComponents {
		list = append(list, s.componentRepr(snap, c))
	}
	return httpjson.Write(w, r, http.StatusOK, statusd.AdminComponentsResponse{Components: list})
}

// GetComponent answers one component.
func (s *Server) GetComponent(w http.ResponseWriter, r *http.Request, _ statusd.Actor) error {
	id, err := statusd.ParseID("component", r.PathValue("id"))
	if err != nil {
		return err
	}
	return s.answerComponent(w, r, http.StatusOK, id)
}

func (s *Server) answerComponent(w http.ResponseWriter, r *http.Request, status int, id int64) error {
	snap, err := s.app.Snapshot()
	if err != nil {
		return err
	}
	c := snap.Component(id)
	if c == nil {
		return statusd.Errorf(statusd.ENotFound, "component %d not found", id)
	}
	return httpjson.Write(w, r, status, s.componentRepr(snap, c))
}

// CreateComponent adds a component (POST /components): app.AddComponent,
// then the component, 201.
func (s *Server) CreateComponent(w http.ResponseWriter, r *http.Request, actor statusd.Actor) error {
	var body statusd.AdminComponentRequest
	if err := decode(r, &body); err != nil {
		return err
	}
	id, err := s.app.AddComponent(r.Context(), actor, body)
	if err != nil {
		return err
	}
	return s.answerComponent(w, r, http.StatusCreated, id)
}

// PatchComponent changes a component (PATCH /components/{id}):
// app.ChangeComponent, then the component.
func (s *Server) PatchComponent(w http.ResponseWriter, r *http.Request, actor statusd.Actor) error {
	id, err := statusd.ParseID("component", r.PathValue("id"))
	if err != nil {
		return err
	}
	var body statusd.AdminComponentRequest
	if err := decode(r, &body); err != nil {
		return err
	}
	if err := s.app.ChangeComponent(r.Context(), actor, id, body); err != nil {
		return err
	}
	return s.answerComponent(w, r, http.StatusOK, id)
}

// DeleteComponent removes a component (DELETE /components/{id}, with
// ?recursive= and ?detach=): app.RemoveComponent, then 204.
func (s *Server) DeleteComponent(w http.ResponseWriter, r *http.Request, actor statusd.Actor) error {
	id, err := statusd.ParseID("component", r.PathValue("id"))
	if err != nil {
		return err
	}
	recursive, err := boolParam(r, "recursive")
	if err != nil {
		return err
	}
	detach, err := boolParam(r, "detach")
	if err != nil {
		return err
	}
	if err := s.app.RemoveComponent(r.Context(), actor, id, recursive, detach); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// boolParam reads a true-or-false query parameter; absent is false.
func boolParam(r *http.Request, name string) (bool, error) {
	switch v := r.URL.Query().Get(name); v {
	case "", "false", "0":
		return false, nil
	case "true", "1":
		return true, nil
	default:
		return false, statusd.Errorf(statusd.EInvalidParameter, "%s: %q is not true or false", name, v)
	}
}
