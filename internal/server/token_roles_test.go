package server_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/internal/testserver"
)

// TestTokenRoles: an admin token acts in its role (CONTRACT C9, the table
// of C8): a publisher token publishes but manages neither tokens nor
// components, a viewer token reads and writes nothing; each refusal is 403
// forbidden and changes nothing. A token made without a role is an
// owner's, as every token was before roles.
func TestTokenRoles(t *testing.T) {
	now := time.Now().UTC().Truncate(time.Second)
	srv := startServer(t, testserver.Fixture(now), options{})
	ops := newToken(t, srv.DB, "ops")
	var deploy, grafana string

	testserver.Step(t, "POST /tokens takes a role, owner by default, and lists it", func(t *testing.T) {
		srv := srv.In(t)
		deploy = srv.AdminOK(http.MethodPost, "/tokens", ops, `{"name": "deploy", "role": "publisher"}`, 201)["secret"].(string)
		viewer, err := srv.Admin(ops).CreateTokenAs(context.Background(), "grafana", statusd.Viewer) // the SDK's way
		testserver.NoErr(t, "CreateTokenAs grafana viewer", err)
		if grafana = viewer.Secret; viewer.Role != "viewer" {
			t.Errorf("CreateTokenAs: %+v, want a viewer", viewer)
		}
		plain := srv.AdminOK(http.MethodPost, "/tokens", ops, `{"name": "plain"}`, 201)
		if plain["role"] != "owner" {
			t.Errorf("a token made without a role: %v, want role owner", plain)
		}
		list := testserver.At(t, srv.AdminOK(http.MethodGet, "/tokens", ops, "", 200), "tokens").([]any)
		roles := map[string]any{}
		for _, x := range list {
			roles[x.(map[string]any)["name"].(string)] = x.(map[string]any)["role"]
		}
		testserver.AssertJSON(t, "the tokens' roles", roles,
			testserver.Obj{"deploy": "publisher", "grafana": "viewer", "ops": "owner", "plain": "owner"})
		srv.Refuse(ops, http.MethodPost, "/tokens", `{"name": "x", "role": "admin"}`, 422, "invalid_field",
			`role: "admin" is not a role (viewer, publisher, owner)`)
		srv.Refuse(ops, http.MethodPost, "/tokens", `{"role": "root"}`, 422, "invalid_field", "name: ", "role: ")
	})

	testserver.Step(t, "a publisher token publishes, as itself in the audit log", func(t *testing.T) {
		srv := srv.In(t)
		srv.AdminOK(http.MethodPost, "/notices", deploy, `{"type": "general", "subject": "Deployed", "content": "Version 2 is out.", "notify": false}`, 201)
		entry := testserver.At(t, srv.AdminOK(http.MethodGet, "/audit", deploy, "", 200), "audit").([]any)[0].(map[string]any)
		if entry["actor"] != "deploy" || entry["action"] != "notice.create" {
			t.Errorf("the newest audit entry %v, want notice.create by deploy", entry)
		}
	})

	testserver.Step(t, "a publisher token may not manage tokens or components", func(t *testing.T) {
		srv := srv.In(t)
		r := srv.RefuseAs(ops, deploy, http.MethodPost, "/tokens", `{"name": "mine", "role": "owner"}`, 403, "forbidden")
		if msg := testserver.ErrorMessage(r); msg != "this needs the role owner or more; deploy is publisher" {
			t.Errorf("403 message %q", msg)
		}
		srv.RefuseAs(ops, deploy, http.MethodDelete, "/tokens/ops", "", 403, "forbidden")
		srv.RefuseAs(ops, deploy, http.MethodPatch, "/components/10", `{"name": "Mine"}`, 403, "forbidden")
		srv.RefuseAs(ops, deploy, http.MethodPost, "/components", `{"name": "Mine"}`, 403, "forbidden")
	})

	testserver.Step(t, "a viewer token reads and may not write", func(t *testing.T) {
		srv := srv.In(t)
		for _, path := range []string{"/page", "/components", "/notices", "/notices/100", "/tokens", "/audit"} {
			srv.AdminOK(http.MethodGet, path, grafana, "", 200)
		}
		srv.RefuseAs(ops, grafana, http.MethodPost, "/notices", `{"type": "general", "subject": "Hi", "content": "News."}`, 403, "forbidden")
		srv.RefuseAs(ops, grafana, http.MethodPost, "/notices/100/updates", `{"content": "More."}`, 403, "forbidden")
		srv.RefuseAs(ops, grafana, http.MethodPatch, "/page", `{"name": "Mine"}`, 403, "forbidden")
	})
}
