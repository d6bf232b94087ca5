package admin

// The admin API's own tokens and the console's users (CONTRACT C8).

import (
	"net/http"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/internal/httpjson"
)

// ListTokens answers every token, by name, without secrets or hashes:
// app.Tokens.
func (s *Server) ListTokens(w http.ResponseWriter, r *http.Request, actor statusd.Actor) error {
	list, err := s.app.Tokens(r.Context(), actor)
	if err != nil {
		return err
	}
	return httpjson.Write(w, r, http.StatusOK, statusd.AdminTokensResponse{Tokens: list})
}

// CreateToken adds a token (POST /tokens): app.AddToken, then the token
// with its secret, 201.
func (s *Server) CreateToken(w http.ResponseWriter, r *http.Request, actor statusd.Actor) error {
	var body statusd.AdminTokenRequest
	if err := decode(r, &body); err != nil {
		return err
	}
	t, err := s.app.AddToken(r.Context(), actor, body)
	if err != nil {
		return err
	}
	return httpjson.Write(w, r, http.StatusCreated, t)
}

// DeleteToken revokes a token (DELETE /tokens/{name}): app.RevokeToken,
// then 204.
func (s *Server) DeleteToken(w http.ResponseWriter, r *http.Request, actor statusd.Actor) error {
	if err := s.app.RevokeToken(r.Context(), actor, r.PathValue("name")); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// ListUsers answers every user, by id: app.Users.
func (s *Server) ListUsers(w http.ResponseWriter, r *http.Request, actor statusd.Actor) error {
	users, err := s.app.Users(r.Context(), actor)
	if err != nil {
		return err
	}
	return httpjson.Write(w, r, http.StatusOK, statusd.AdminUsersResponse{Users: users})
}

// CreateUser adds a user (POST /users): app.AddUser, then the user with
// its setup link under the console's URL, 201.
func (s *Server) CreateUser(w http.ResponseWriter, r *http.Request, actor statusd.Actor) error {
	var body statusd.AdminUserRequest
	if err := decode(r, &body); err != nil {
		return err
	}
	u, err := s.app.AddUser(r.Context(), actor, body)
	if err != nil {
		return err
	}
	u.SetupURL = s.consoleURL() + u.SetupURL
	return httpjson.Write(w, r, http.StatusCreated, u)
}

// DeleteUser removes a user (DELETE /users/{id}): app.RemoveUser, then
// 204.
func (s *Server) DeleteUser(w http.ResponseWriter, r *http.Request, actor statusd.Actor) error {
	id, err := statusd.ParseID("user", r.PathValue("id"))
	if err != nil {
		return err
	}
	if err := s.app.RemoveUser(r.Context(), actor, id); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// ResetUser resets a user (POST /users/{id}/reset): app.ResetUser, then
// the user with its new setup link under the console's URL.
func (s *Server) ResetUser(w http.ResponseWriter, r *http.Request, actor statusd.Actor) error {
	id, err := statusd.ParseID("user", r.PathValue("id"))
	if err != nil {
		return err
	}
	u, err := s.app.ResetUser(r.Context(), actor, id)
	if err != nil {
		return err
	}
	u.SetupURL = s.consoleURL() + u.SetupURL
	return httpjson.Write(w, r, http.StatusOK, u)
}
