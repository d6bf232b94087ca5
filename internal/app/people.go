package app

// The admin API's own tokens and the console's users (CONTRACT C8). A
// token's secret is answered once; statusd keeps only its hash. A user is
// added with a one-time setup link, listed, removed, and reset (sessions
// ended, password cleared, a new link); passwords are set by the users
// themselves, in the console.

import (
	"context"
	"fmt"
	"time"

	"github.com/statusd/statusd"
)

// tokenTarget names a token in the audit log.
func tokenTarget(name string) string { return "token " + name }

// Tokens returns every token, by name, without secrets or hashes.
func (a *App) Tokens(ctx context.Context, actor statusd.Actor) ([]statusd.AdminToken, error) {
	if err := May(actor, ActRead); err != nil {
		return nil, err
	}
	tokens, err := a.store.Tokens().List(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]statusd.AdminToken, len(tokens))
	for i := range tokens {
		out[i] = statusd.AdminTokenOf(&tokens[i])
	}
	return out, nil
}

// AddToken adds the token of body, acting as its role (owner when left
// out), and returns it with its secret, which is not kept.
func (a *App) AddToken(ctx context.Context, actor statusd.Actor, body statusd.AdminTokenRequest) (statusd.AdminToken, error) {
	if err := May(actor, ActAddToken); err != nil {
		return statusd.AdminToken{}, err
	}
	var name, role string
	if body.Name != nil {
		name = *body.Name
	}
	if body.Role != nil {
		role = *body.Role
	}
	secret, t, err := statusd.NewNamedToken(name, statusd.Role(role), a.now())
	if err != nil {
		return statusd.AdminToken{}, err
	}
	e := a.entry(actor, "token.create", tokenTarget(name), "created a token for the role "+string(t.Role))
	if err := a.store.Tokens().Create(ctx, t, &e); err != nil {
		return statusd.AdminToken{}, err
	}
	out := statusd.AdminTokenOf(&t)
	out.Secret = secret
	return out, nil
}

// RevokeToken deletes the token named name: a request with it is refused
// from then on.
func (a *App) RevokeToken(ctx context.Context, actor statusd.Actor, name string) error {
	if err := May(actor, ActRevokeToken); err != nil {
		return err
	}
	e := a.entry(actor, "token.revoke", tokenTarget(name), "revoked a token")
	return a.store.Tokens().Revoke(ctx, name, &e)
}

// userTarget names a user in the audit log.
func userTarget(id int64) string { return fmt.Sprintf("user %d", id) }

// SetupPath is the path of a setup link, under the console's URL (which
// the adapters know); its secret follows.
const SetupPath = "/manage/setup?token="

// setupLink returns a new setup link's secret hash and its path
// (SetupPath: the console's URL goes before it), and when it expires.
func setupLink(now time.Time) (hash []byte, link string, expires time.Time) {
	secret, hash := statusd.NewSecret()
	return hash, SetupPath + secret, now.Add(statusd.SetupValid)
}

// AddUser adds the user of body and returns it with its one-time setup
// link.
func (a *App) AddUser(ctx context.Context, actor statusd.Actor, body statusd.AdminUserRequest) (statusd.AdminUser, error) {
	if err := May(actor, ActAddUser); err != nil {
		return statusd.AdminUser{}, err
	}
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
	now := a.stamp()
	u := statusd.User{Email: email, Role: statusd.Role(*body.Role), CreatedAt: now, UpdatedAt: now}
	hash, link, expires := setupLink(now)
	e := a.entry(actor, "user.create", "", email+" as "+*body.Role)
	if err := a.store.Users().Add(ctx, &u, hash, expires, &e); err != nil {
		return statusd.AdminUser{}, err
	}
	out := statusd.AdminUserOf(&u)
	out.SetupURL = link
	return out, nil
}

// RemoveUser removes user id and ends its sessions.
func (a *App) RemoveUser(ctx context.Context, actor statusd.Actor, id int64) error {
	if err := May(actor, ActRemoveUser); err != nil {
		return err
	}
	return a.store.Users().Delete(ctx, id, a.entry(actor, "user.delete", userTarget(id), "removed a user"))
}

// ResetUser ends user id's sessions, clears its password and returns it with a
// new setup link.
func (a *App) ResetUser(ctx context.Context, actor statusd.Actor, id int64) (statusd.AdminUser, error) {
	if err := May(actor, ActResetUser); err != nil {
		return statusd.AdminUser{}, err
	}
	now := a.stamp()
	hash, link, expires := setupLink(now)
	e := a.entry(actor, "user.reset", userTarget(id), "ended its sessions and cleared its password")
	u, err := a.store.Users().Reset(ctx, id, hash, expires, e)
	if err != nil {
		return statusd.AdminUser{}, err
	}
	out := statusd.AdminUserOf(u)
	out.SetupURL = link
	return out, nil
}

// Users returns every user, by id.
func (a *App) Users(ctx context.Context, actor statusd.Actor) ([]statusd.AdminUser, error) {
	if err := May(actor, ActRead); err != nil {
		return nil, err
	}
	users, err := a.store.Users().List(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]statusd.AdminUser, len(users))
	for i := range users {
		out[i] = statusd.AdminUserOf(&users[i])
	}
	return out, nil
}
