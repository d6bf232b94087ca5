package admin

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/internal/app"
	"github.com/statusd/statusd/internal/demo"
	"github.com/statusd/statusd/internal/route"
	"github.com/statusd/statusd/internal/snapshot"
	"github.com/statusd/statusd/internal/sqlstore"
)

// fuzzTargets are the admin endpoints that read a JSON body; %d is an id
// taken from the input.
var fuzzTargets = []struct{ method, path string }{
	{http.MethodPatch, "/page"},
	{http.MethodPost, "/components"},
	{http.MethodPatch, "/components/%d"},
	{http.MethodPost, "/notices"},
	{http.MethodPatch, "/notices/%d"},
	{http.MethodPost, "/notices/%d/updates"},
	{http.MethodPost, "/notices/%d/reopen"},
	{http.MethodPost, "/subscribers"},
	{http.MethodPatch, "/subscribers/%d"},
}

// FuzzAdminBodies sends arbitrary bodies to every admin endpoint that reads
// one, through the real handler on a real SQLite store: no input panics or
// answers 5xx, every answer is JSON (an error envelope whose status matches
// the answer's), and a refused request writes nothing: not the page, not a
// subscriber, not the audit log.
//
// The seed corpus is below and in testdata/fuzz/FuzzAdminBodies. A longer run:
//
//	go test ./internal/admin -run '^$' -fuzz FuzzAdminBodies -fuzztime 60s
func FuzzAdminBodies(f *testing.F) {
	seeds := []struct {
		target uint8
		id     int64
		body   string
	}{
		{0, 0, `{"name": "Renamed", "url": "https://status.example.test", "state_texts": {"operational": "Fine"}}`},
		{0, 0, `{"url": "ftp://nope"}`},
		{1, 0, `{"name": "Search", "description": "d", "parent_id": 5, "position": 1, "metrics_enabled": true}`},
		{1, 0, `{"name": "Loop", "parent_id": 99999999999999999999}`},
		{2, 6, `{"parent_id": 7, "position": 0}`},
		{2, 5, `{"parent_id": 6}`},
		{2, 1, `{"parent_id": null, "position": 9223372036854775807}`},
		{3, 0, `{"type": "unplanned", "subject": "Errors", "content": "Looking.", "component_ids": [1, 2], "tag_list": ["api"]}`},
		{3, 0, `{"type": "planned", "subject": "Upgrade", "content": "Soon.", "begins_at": "2030-01-01T00:00:00Z", "ends_at": "2030-01-01T01:00:00Z", "automate": true}`},
		{3, 0, `{"type": "general", "subject": "Hello", "content": "Hi.", "expires_at": "2000-01-01T00:00:00+14:00"}`},
		{3, 0, `{"type": "unplanned", "subject": "s", "content": "c", "state": "resolved", "impact_seconds": -1}`},
		{4, 1, `{"subject": "New", "tag_list": [], "component_ids": [3, 3], "impact_seconds": 60}`},
		{4, 2, `{"begins_at": null, "ends_at": "not a time"}`},
		{5, 1, `{"content": "Update.", "state": "identified"}`},
		{5, 1, `{"content": "Fixed.", "state": "resolved"}`},
		{6, 1, `{"content": "Back."}`},
		{6, 1, `{"content": "Back.", "state": "investigating"}`},
		{3, 0, `{"type": "unplanned", "subject": "\u0000\ud800", "content": "` + strings.Repeat("x", 100) + `"}`},
		{3, 0, "{\"type\":\"general\",\"subject\":\"\xff\",\"content\":\"c\"}"},
		{3, 0, `{"type": "unplanned"} {"extra": 1}`},
		{3, 0, `[1, 2, 3]`},
		{3, 0, `{"type": 1}`},
		{3, 0, `{"subjet": "typo"}`},
		{3, 0, ``},
		{3, 0, `null`},
		{3, 0, `{"type": "general", "subject": "s", "content": "c", "component_ids": null, "tag_list": null}`},
		{3, 0, `{"type": "general", "subject": "s", "content": "c", "notify": false}`},
		{4, 1, `{"subject": "s", "notify": true}`},
		{5, 1, `{"content": "Quietly.", "notify": false}`},
		{6, 1, `{"content": "Back.", "notify": "no"}`},
		{7, 0, `{"channel": "email", "address": "ann@example.com", "component_ids": [1], "confirmed": true}`},
		{7, 0, `{"channel": "email", "address": "bob@example.com"}`},
		{7, 0, `{"channel": "webhook", "address": "https://hooks.example.com/x", "component_ids": []}`},
		{7, 0, `{"channel": "slack", "address": "http://127.0.0.1/x"}`},
		{7, 0, `{"channel": "teams", "address": "https://[::1]:99999/"}`},
		{7, 0, `{"channel": "discord", "address": "https://discord.com/api/webhooks/1/x", "component_ids": [99999999999, 1, 1]}`},
		{7, 0, `{"channel": "sms", "address": "Ann <ann@example.com>", "state": "active"}`},
		{8, 1, `{"component_ids": [1, 2]}`},
		{8, 1, `{"state": "active"}`},
		{8, 2, `{"state": "quarantined", "address": "x"}`},
		{8, 1, `{"component_ids": null, "confirmed": true}`},
	}
	for _, s := range seeds {
		f.Add(s.target, s.id, []byte(s.body))
	}

	ctx := context.Background()
	var logs bytes.Buffer
	a := newTestAdmin(f, &logs, app.Config{})
	store, holder, mux := a.store, a.holder, a.mux
	reset := func() error { return store.Import(ctx, demo.Document(time.Now()), true) }
	// What a write leaves behind, and a refused one must not: the page's
	// version, the subscribers and the audit log.
	written := func(tb testing.TB) [3]int {
		v, err := store.Version(ctx)
		if err != nil {
			tb.Fatal(err)
		}
		_, subs, err := store.Subscribers().List(ctx, statusd.SubscriberFilter{}, 1, 1)
		if err != nil {
			tb.Fatal(err)
		}
		_, audit, err := store.Audit(ctx, 1, 1)
		if err != nil {
			tb.Fatal(err)
		}
		return [3]int{int(v), subs, audit}
	}

	f.Fuzz(func(t *testing.T, target uint8, id int64, body []byte) {
		// Keep the page small, so that every write stays quick.
		if snap := holder.Current(); snap == nil || snap.NoticeCount() > 500 || len(snap.AllComponents) > 200 {
			if err := reset(); err != nil {
				t.Fatal(err)
			}
			if err := holder.Refresh(ctx); err != nil {
				t.Fatal(err)
			}
		}
		if subs, _, err := store.Subscribers().List(ctx, statusd.SubscriberFilter{}, 1, 100); err != nil {
			t.Fatal(err)
		} else if len(subs) == 100 {
			for _, s := range subs {
				if err := store.Subscribers().Delete(ctx, s.ID, statusd.AuditEntry{At: time.Now(), Actor: "fuzz", Action: "reset"}); err != nil {
					t.Fatal(err)
				}
			}
		}
		tg := fuzzTargets[int(target)%len(fuzzTargets)]
		path := "/admin/api/v1" + tg.path
		if strings.Contains(path, "%d") {
			path = fmt.Sprintf(path, id)
		}
		before := written(t)
		req := httptest.NewRequest(tg.method, "http://statusd.test"+path, bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+a.token)
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		logs.Reset()
		mux.ServeHTTP(rec, req)
		what := fmt.Sprintf("%s %s %q", tg.method, path, body)
		if rec.Code >= 500 {
			t.Fatalf("%s: %d %s\n%s", what, rec.Code, rec.Body, logs.String())
		}
		if ct := rec.Header().Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
			t.Fatalf("%s: Content-Type %q", what, ct)
		}
		var answer map[string]any
		if err := json.Unmarshal(rec.Body.Bytes(), &answer); err != nil {
			t.Fatalf("%s: the answer is not a JSON object: %v\n%s", what, err, rec.Body)
		}
		if rec.Code < 300 {
			return
		}
		e, _ := answer["error"].(map[string]any)
		msg, _ := e["message"].(string)
		if len(answer) != 1 || e["status"] != float64(rec.Code) || e["code"] == "" || msg == "" {
			t.Fatalf("%s: %d with an error body %s", what, rec.Code, rec.Body)
		}
		if after := written(t); after != before {
			t.Fatalf("%s: refused with %d, yet the store changed (version, subscribers, audit entries %v to %v)", what, rec.Code, before, after)
		}
	})
}

// testAdmin is a Server on a real SQLite store holding the demo page, its
// write routes as internal/server registers them (less the bearer token,
// which internal/server checks), and a token for the audit log's actor.
type testAdmin struct {
	store  *sqlstore.Store
	holder *snapshot.Holder
	mux    *http.ServeMux
	token  string
}

// newTestAdmin starts a testAdmin with cfg (Store, Snapshots and Now set
// here), its errors logged to logs.
func newTestAdmin(tb testing.TB, logs *bytes.Buffer, cfg app.Config) *testAdmin {
	ctx := context.Background()
	store, err := sqlstore.Open(ctx, filepath.Join(tb.TempDir(), "admin.db"))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { store.Close() })
	if err := store.Import(ctx, demo.Document(time.Now()), true); err != nil {
		tb.Fatal(err)
	}
	secret, token, err := statusd.NewNamedToken("test", statusd.Owner, time.Now())
	if err != nil {
		tb.Fatal(err)
	}
	if err := store.Tokens().Create(ctx, token, nil); err != nil {
		tb.Fatal(err)
	}
	log := slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelError}))
	holder := snapshot.NewHolder(store, snapshot.Options{Variant: statusd.VariantA}, time.Now, log)
	if err := holder.Refresh(ctx); err != nil {
		tb.Fatal(err)
	}
	cfg.Store, cfg.Snapshots, cfg.Now = store, holder, time.Now
	s := New(Config{App: app.New(cfg), Now: time.Now})
	owner := statusd.Actor{Name: "test", Role: statusd.Owner, Kind: statusd.ByToken}
	errs := route.NewErrors(log, nil)
	mux := http.NewServeMux()
	for pattern, h := range map[string]Handler{
		"PATCH /admin/api/v1/page":                s.PatchPage,
		"POST /admin/api/v1/components":           s.CreateComponent,
		"PATCH /admin/api/v1/components/{id}":     s.PatchComponent,
		"POST /admin/api/v1/notices":              s.CreateNotice,
		"PATCH /admin/api/v1/notices/{id}":        s.PatchNotice,
		"POST /admin/api/v1/notices/{id}/updates": s.PostUpdate,
		"POST /admin/api/v1/notices/{id}/reopen":  s.PostReopen,
		"POST /admin/api/v1/subscribers":          s.CreateSubscriber,
		"PATCH /admin/api/v1/subscribers/{id}":    s.PatchSubscriber,
	} {
		mux.Handle(pattern, errs.Serve(func(w http.ResponseWriter, r *http.Request) error {
			return s.Serve(h)(w, r.WithContext(statusd.WithActor(r.Context(), owner)))
		}))
	}
	return &testAdmin{store: store, holder: holder, mux: mux, token: secret}
}
