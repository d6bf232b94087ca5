package admin

// The console's users (CONTRACT C8): added with a one-time setup link,
// listed, removed, and reset (sessions ended, password cleared, a new
// link). Passwords are set by the users themselves, in the console.

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/internal/httpjson"
)

// userTarget names a user in the audit log.
func userTarget(id int64) string { return fmt.Sprintf("user %d", id) }

// setupLink returns a new setup link's secret hash and URL, under the
// console's URL (Config.ConsoleURL; the path alone while it is unknown),
// and when it expires.
func (s *Server) setupLink(now time.Time) (hash []byte, link string, expires time.Time) {
	secret, hash := statusd.NewSecret()
	return hash, s.consoleURL() + "/manage/setup?token=" + secret, now.Add(statusd.SetupValid)
}

// ListUsers answers every user, by id.
func (s *Server) ListUsers(w http.ResponseWriter, r *http.Request, _ string) error {
	users, err := s.store.Users().List(r.Context())
	if err != nil {
		return err
	}
	out := statusd.AdminUsersResponse{Users: make([]statusd.AdminUser, len(users))}
	for i := range users {
		out.Users[i] = statusd.AdminUserOf(&users[i])
	}
	return httpjson.Write(w, r, http.StatusOK, out)
}

// CreateUser adds a user (POST /users): AddUser, then the user with its
// setup link, 201.
func (s *Server) CreateUser(w http.ResponseWriter, r *http.Request, actor string) error {
	var body statusd.AdminUserRequest
	if err := decode(r, &body); err != nil {
		return err
	}
	u, err := s.AddUser(r.Context(), actor, body)
	if err != nil {
		return err
	}
	return httpjson.Write(w, r, http.StatusCreated, u)
}

// AddUser adds the user of body and returns it with its one-time setup
// link.
func (s *Server) AddUser(ctx context.Context, actor string, body statusd.AdminUserRequest) (statusd.AdminUser, error) {
	var bad problems
	var email string
	if body.Email == nil {
		bad.add("email", "is required: the address the person signs in with")
	} else {
		var err error
		email, err = statusd.NormalizeEmail(*body.Email)
		bad.check(err)
	}
	roles := oneOf(statusd.Roles)
	switch {
	case body.Role == nil:
		bad.add("role", "is required: %s", roles)
	case !statusd.Role(*body.Role).Valid():
		bad.add("role", "%q is not %s", *body.Role, roles)
	}
	if err := bad.err(); err != nil {
		return statusd.AdminUser{}, err
	}
	now := s.now().UTC().Truncate(time.Millisecond)
	u := statusd.User{Email: email, Role: statusd.Role(*body.Role), CreatedAt: now, UpdatedAt: now}
	hash, link, expires := s.setupLink(now)
	e := s.entry(actor, "user.create", "", email+" as "+*body.Role)
	if err := s.store.Users().Add(ctx, &u, hash, expires, &e); err != nil {
		return statusd.AdminUser{}, err
	}
	out := statusd.AdminUserOf(&u)
	out.SetupURL = link
	return out, nil
}

// DeleteUser removes a user (DELETE /users/{id}): RemoveUser, then 204.
func (s *Server) DeleteUser(w http.ResponseWriter, r *http.Request, actor string) error {
	id, err := statusd.ParseID("user", r.PathValue("id"))
	if err != nil {
		return err
	}
	if err := s.RemoveUser(r.Context(), actor, id); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// RemoveUser removes user id and ends its sessions.
func (s *Server) RemoveUser(ctx context.Context, actor string, id int64) error {
	return s.store.Users().Delete(ctx, id, s.entry(actor, "user.delete", userTarget(id), "removed a user"))
}

// ResetUser resets a user (POST /users/{id}/reset): Reset, then the user
// with its new setup link.
func (s *Server) ResetUser(w http.ResponseWriter, r *http.Request, actor string) error {
	id, err := statusd.ParseID("user", r.PathValue("id"))
	if err != nil {
		return err
	}
	u, err := s.Reset(r.Context(), actor, id)
	if err != nil {
		return err
	}
	return httpjson.Write(w, r, http.StatusOK, u)
}

// Reset ends user id's sessions, clears its password and returns it with a
// new setup link.
func (s *Server) Reset(ctx context.Context, actor string, id int64) (statusd.AdminUser, error) {
	now := s.now().UTC().Truncate(time.Millisecond)
	hash, link, expires := s.setupLink(now)
	e := s.entry(actor, "user.reset", userTarget(id), "ended its sessions and cleared its password")
	u, err := s.store.Users().Reset(ctx, id, hash, expires, e)
	if err != nil {
		return statusd.AdminUser{}, err
	}
	out := statusd.AdminUserOf(u)
	out.SetupURL = link
	return out, nil
}
