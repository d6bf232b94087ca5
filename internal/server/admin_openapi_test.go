package server_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers/legacy"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/internal/openapi"
	"github.com/statusd/statusd/internal/testserver"
)

// TestAdminOpenAPI runs every operation of the admin API on the real
// server, and some refusals, and validates each request body and each
// answer against the document served at /admin/api/v1/openapi.json, so
// that the document and the admin API cannot drift apart.
func TestAdminOpenAPI(t *testing.T) {
	srv := startServer(t, oaDoc(time.Now().UTC().Truncate(time.Second)), options{allowPrivate: true})
	tok := newToken(t, srv.DB, "ops")
	served := srv.Authed(http.MethodGet, openapi.AdminPath, tok, "")
	if served.Status != 200 || !bytes.Contains(served.Body, []byte(`"title":"statusd admin API"`)) {
		t.Fatalf("GET %s: %d\n%.300s", openapi.AdminPath, served.Status, served.Body)
	}
	doc, err := openapi3.NewLoader().LoadFromData(served.Body)
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		t.Fatalf("the admin document is not valid OpenAPI: %v", err)
	}
	router, err := legacy.NewRouter(doc)
	if err != nil {
		t.Fatal(err)
	}
	done := map[string]bool{}
	// call sends a request with token and body, wants status, validates
	// the exchange, and returns the answer's "id" ("" for none).
	call := func(token, method, path, body string, want int) string {
		t.Helper()
		r := srv.Authed(method, "/admin/api/v1"+path, token, body)
		if r.Status != want {
			t.Fatalf("%s %s %s: %d, want %d\n%s", method, path, body, r.Status, want, r.Body)
		}
		req, _ := http.NewRequest(method, "http://statusd.test/admin/api/v1"+path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+token)
		if body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		route, params, err := router.FindRoute(req)
		if err != nil {
			t.Fatalf("%s %s is not described: %v", method, path, err)
		}
		done[method+" "+route.Path] = true
		in := &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route,
			Options: &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true, AuthenticationFunc: openapi3filter.NoopAuthenticationFunc}}
		if want < 300 {
			if err := openapi3filter.ValidateRequest(context.Background(), in); err != nil {
				t.Errorf("request %s %s %s: %v", method, path, body, err)
			}
		}
		req.Body = io.NopCloser(strings.NewReader(""))
		if err := oaValidateResponse(in, r.Status, r.Header, r.Body); err != nil {
			t.Error(err)
		}
		if m, ok := r.JSON.(map[string]any); ok {
			if id, ok := m["id"].(float64); ok {
				return fmt.Sprint(int64(id))
			}
		}
		return ""
	}

	call(tok, "GET", "/page", "", 200)
	call(tok, "PATCH", "/page", `{"name": "Acme Status", "state_texts": {"degraded": ""}}`, 200)
	call(tok, "GET", "/components", "", 200)
	c := call(tok, "POST", "/components", `{"name": "Queue", "key": "queue", "description": "Jobs", "parent_id": null, "position": 1, "metrics_enabled": true}`, 201)
	call(tok, "GET", "/components/"+c, "", 200)
	call(tok, "PATCH", "/components/"+c, `{"parent_id": 20, "position": 2, "key": null}`, 200)
	call(tok, "GET", "/notices?page=2", "", 200)
	n := call(tok, "POST", "/notices", `{"type": "unplanned", "subject": "Queue slow", "content": "Looking.", "component_ids": [`+c+`], "tag_list": ["q"], "impact_seconds": 60, "notify": false}`, 201)
	call(tok, "GET", "/notices/"+n, "", 200)
	call(tok, "PATCH", "/notices/"+n, `{"subject": "Queue slow again", "impact_seconds": null}`, 200)
	call(tok, "POST", "/notices/"+n+"/updates", `{"content": "Fixed.", "state": "resolved"}`, 201)
	call(tok, "POST", "/notices/"+n+"/reopen", `{"content": "Slow again."}`, 201)
	call(tok, "POST", "/notices", `{"type": "planned", "subject": "Upgrade", "content": "Soon.", "begins_at": "2030-01-01T02:00:00Z", "ends_at": "2030-01-01T03:00:00Z", "automate": true}`, 201)
	g := call(tok, "POST", "/notices", `{"type": "general", "subject": "Hello", "content": "News.", "expires_at": "2030-01-01T00:00:00Z"}`, 201)
	call(tok, "DELETE", "/notices/"+g, "", 204)
	call(tok, "DELETE", "/components/"+c+"?detach=true", "", 204)
	s := call(tok, "POST", "/subscribers", `{"channel": "webhook", "address": "http://127.0.0.1:9/hook", "component_ids": [20]}`, 201)
	call(tok, "GET", "/subscribers?channel=webhook", "", 200)
	call(tok, "GET", "/subscribers/"+s, "", 200)
	call(tok, "PATCH", "/subscribers/"+s, `{"component_ids": []}`, 200)
	call(tok, "POST", "/subscribers/"+s+"/test", "", 201)
	call(tok, "POST", "/subscribers/reactivate", `{"channel": "webhook"}`, 200)
	call(tok, "POST", "/subscribers/reactivate", `{"ids": [99999]}`, 422)
	call(tok, "GET", "/deliveries?subscriber_id="+s, "", 200)
	call(tok, "DELETE", "/subscribers/"+s, "", 204)
	u := call(tok, "POST", "/users", `{"email": "pat@example.com", "role": "publisher"}`, 201)
	call(tok, "GET", "/users", "", 200)
	call(tok, "POST", "/users/"+u+"/reset", "", 200)
	call(tok, "DELETE", "/users/"+u, "", 204)
	call(tok, "POST", "/tokens", `{"name": "ci", "role": "publisher"}`, 201)
	call(tok, "GET", "/tokens", "", 200)
	call(tok, "DELETE", "/tokens/ci", "", 204)
	call(tok, "GET", "/audit?page=1", "", 200)
	call(tok, "GET", "/openapi.json", "", 200)
	// The signals (CONTRACT C9): a source, alerts through its hook, the
	// drafts they make.
	src := call(tok, "POST", "/sources", `{"name": "Scripts", "format": "generic", "rules": [{"match": {"team": "=~db|api"}, "component_label": "svc", "hold": "0s"}], "heartbeat": {"match": {"alertname": "Watchdog"}, "timeout": "5m"}}`, 201)
	call(tok, "GET", "/sources", "", 200)
	call(tok, "GET", "/sources/"+src, "", 200)
	call(tok, "PATCH", "/sources/"+src, `{"name": "Cron scripts", "heartbeat": null}`, 200)
	call(tok, "POST", "/sources/"+src+"/token", "", 201)
	token := srv.AdminOK("POST", "/sources/"+src+"/token", tok, "", 201)["token"].(string) // the latest token works
	hook := testserver.Fetch(t, "POST", srv.URL+"/hooks/v1/"+src, `{"events": [{"dedup_key": "a", "status": "firing", "labels": {"team": "api", "svc": "20"}},
		{"dedup_key": "b", "status": "firing", "labels": {"team": "db", "svc": "31"}}]}`, testserver.Bearer(token)...)
	if hook.Status != 202 {
		t.Fatalf("POST /hooks/v1/%s: %d\n%s", src, hook.Status, hook.Body)
	}
	call(tok, "GET", "/signals?source_id="+src+"&status=firing&unmapped=false", "", 200)
	call(tok, "GET", "/drafts?state=open", "", 200)
	draftPath := func() (string, string) {
		list := srv.AdminOK("GET", "/drafts?state=open", tok, "", 200)["drafts"].([]any)
		d := list[0].(map[string]any)
		return fmt.Sprintf("/drafts/%v", d["id"]), fmt.Sprint(d["version"])
	}
	d, v := draftPath()
	call(tok, "GET", d, "", 200)
	call(tok, "PATCH", d, `{"version": `+v+`, "subject": "Dashboard and replica trouble", "component_ids": [20, 31]}`, 200)
	d, v = draftPath()
	call(tok, "POST", d+"/publish", `{"version": `+v+`, "notify": false, "content": "Looking."}`, 201)
	testserver.Fetch(t, "POST", srv.URL+"/hooks/v1/"+src, `{"dedup_key": "c", "status": "firing", "labels": {"team": "api", "svc": "12"}}`, testserver.Bearer(token)...)
	d, v = draftPath()
	call(tok, "POST", d+"/discard", `{"version": `+v+`, "reason": "known"}`, 200)
	call(tok, "POST", d+"/publish", `{"version": `+v+`}`, 409)
	call(tok, "DELETE", "/sources/"+src, "", 204)
	call(tok, "GET", "/mirror", "", 200) // the mirror's key (CONTRACT C10), without destinations
	// Refusals, each in the document's error shape.
	call(tok, "POST", "/notices", `{"type": "unplanned", "subject": 5, "content": true, "colour": "red"}`, 422)
	call(tok, "GET", "/notices/99999", "", 404)
	call(tok, "POST", "/components", `{"name": "Cache", "key": "Cache!"}`, 422)
	call(newRoleToken(t, srv.DB, "bot", statusd.Viewer), "POST", "/tokens", `{"name": "more"}`, 403)
	call("sd_wrong", "GET", "/page", "", 401)

	for path, item := range doc.Paths.Map() {
		for method := range item.Operations() {
			if !done[method+" "+path] {
				t.Errorf("%s %s is described but was not exercised", method, path)
			}
		}
	}
}
