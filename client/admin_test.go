package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/client"
)

// serveAdmin serves doc and returns the base URL and a new admin token.
func serveAdmin(t *testing.T, doc *statusd.Document) (string, string) {
	t.Helper()
	db := importPage(t, doc)
	out, err := exec.Command(statusdBinary(t), "token", "create", "--db", db, "--name", "sdk").Output()
	if err != nil {
		t.Fatalf("statusd token create: %v", err)
	}
	return serveDB(t, db), strings.TrimSpace(string(out))
}

// wantError fails unless err is an *client.Error with the status and code,
// whose message holds says, and is the sentinel.
func wantError(t *testing.T, what string, err error, status int, code string, sentinel error, says string) {
	t.Helper()
	var e *client.Error
	if !errors.As(err, &e) {
		t.Fatalf("%s: %T %v, want a *client.Error", what, err, err)
	}
	if e.Status != status || e.Code != code || !strings.Contains(e.Message, says) || !errors.Is(err, sentinel) {
		t.Errorf("%s: %+v, want %d %s saying %q", what, e, status, code, says)
	}
}

// state is a notice's state field, "" for none.
func state(f statusd.Field[string]) string {
	if f.Value != nil {
		return *f.Value
	}
	return ""
}

// TestAdmin calls every method of the admin client against the real server
// and checks what the public API shows afterwards.
func TestAdmin(t *testing.T) {
	now := time.Now().UTC().Truncate(time.Second)
	base, token := serveAdmin(t, page(now))
	var answers []string
	adm := client.NewAdmin(base, token, client.WithAnswers(func(b []byte) { answers = append(answers, string(b)) }))
	pub := client.New(base)
	ctx := context.Background()

	t.Run("Page", func(t *testing.T) {
		p, err := adm.Page(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if p.Name != "Client Test Status" || p.State != "degraded" || p.StateTexts.Degraded != "Some systems are degraded" {
			t.Errorf("page %+v", p)
		}
		p, err = adm.UpdatePage(ctx, statusd.AdminPageRequest{Name: ptr("Renamed Status"),
			StateTexts: &statusd.AdminStateTextsRequest{Degraded: ptr("Partly down")}})
		if err != nil {
			t.Fatal(err)
		}
		if p.Name != "Renamed Status" || p.StateText != "Partly down" || p.StateTexts.Degraded != "Partly down" ||
			p.StateTexts.Operational != "All systems operational" || p.URL != "https://status.client.test" {
			t.Errorf("changed page %+v", p)
		}
		// WithAnswers saw the server's own bytes.
		var raw statusd.AdminPage
		if err := json.Unmarshal([]byte(answers[len(answers)-1]), &raw); err != nil || raw.Name != "Renamed Status" {
			t.Errorf("the last answer %q (%v)", answers[len(answers)-1], err)
		}
		pp, err := pub.Status(ctx)
		if err != nil || pp.Name != "Renamed Status" || pp.StateText != "Partly down" {
			t.Errorf("public page %+v, %v", pp, err)
		}
	})

	t.Run("Components", func(t *testing.T) {
		list, err := adm.Components(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var ids []int64
		for _, c := range list {
			ids = append(ids, c.ID)
		}
		if !slices.Equal(ids, seq(1, 30)) || !list[1].MetricsEnabled || list[2].MetricsEnabled || *list[1].ParentID != 1 {
			t.Fatalf("components %v: %+v %+v", ids, list[1], list[2])
		}
		// Under API without a position: right after API's last
		// descendant, API EU, so third.
		c, err := adm.CreateComponent(ctx, statusd.AdminComponentRequest{Name: ptr("Cache"), Description: ptr("Redis"),
			ParentID: statusd.Some(int64(1)), MetricsEnabled: ptr(true)})
		if err != nil {
			t.Fatal(err)
		}
		if c.Name != "Cache" || c.Description != "Redis" || *c.ParentID != 1 || c.Position != 3 || !c.MetricsEnabled || c.State != "operational" {
			t.Errorf("created %+v", c)
		}
		got, err := adm.Component(ctx, c.ID)
		if err != nil || got.Name != "Cache" || got.Position != 3 {
			t.Errorf("component %d: %+v, %v", c.ID, got, err)
		}
		// Renamed and moved to the top, first.
		c, err = adm.UpdateComponent(ctx, c.ID, statusd.AdminComponentRequest{Name: ptr("Redis cache"), ParentID: statusd.Null[int64](),
			Position: ptr(1), MetricsEnabled: ptr(false)})
		if err != nil {
			t.Fatal(err)
		}
		if c.Name != "Redis cache" || c.ParentID != nil || c.Position != 1 || c.MetricsEnabled || c.Description != "Redis" {
			t.Errorf("changed %+v", c)
		}
		top, err := pub.Components(ctx, client.ComponentQuery{ParentIDNull: ptr(true)})
		if err != nil || !slices.Equal(componentIDs(top.Components), []int64{c.ID, 1, 3}) || top.Components[0].Name != "Redis cache" {
			t.Errorf("public top level %+v, %v", top, err)
		}
		if err := adm.DeleteComponent(ctx, c.ID, client.DeleteComponentOptions{}); err != nil {
			t.Fatal(err)
		}
		_, err = adm.Component(ctx, c.ID)
		wantError(t, "deleted component", err, 404, statusd.ENotFound, client.ErrNotFound, "not found")

		// Web has 27 components below it, and maintenance 46 lists it.
		err = adm.DeleteComponent(ctx, 3, client.DeleteComponentOptions{})
		wantError(t, "delete Web", err, 409, statusd.EConflict, client.ErrConflict, "27 components below it")
		err = adm.DeleteComponent(ctx, 3, client.DeleteComponentOptions{Recursive: true})
		wantError(t, "delete Web recursively", err, 409, statusd.EConflict, client.ErrConflict, "detach=true")
		if err := adm.DeleteComponent(ctx, 3, client.DeleteComponentOptions{Recursive: true, Detach: true}); err != nil {
			t.Fatal(err)
		}
		all, err := pub.Components(ctx, client.ComponentQuery{})
		if err != nil || !slices.Equal(componentIDs(all.Components), []int64{1, 2}) {
			t.Errorf("public components after the deletes: %+v, %v", all, err)
		}
	})

	t.Run("Notices", func(t *testing.T) {
		first, err := adm.Notices(ctx, 0)
		if err != nil {
			t.Fatal(err)
		}
		second, err := adm.Notices(ctx, 2)
		if err != nil {
			t.Fatal(err)
		}
		if first.Meta.Count != 25 || first.Meta.TotalCount != 46 || first.Meta.NextPage == nil ||
			*first.Meta.NextPage != "/admin/api/v1/notices?page=2" || second.Meta.Count != 21 || second.Meta.NextPage != nil {
			t.Errorf("meta %+v then %+v", first.Meta, second.Meta)
		}
		n, err := adm.Notice(ctx, 46)
		if err != nil {
			t.Fatal(err)
		}
		if n.Subject != "Web upgrade" || n.Automate == nil || *n.Automate || n.ExpiresAt.Set || n.ImpactSeconds.Set ||
			len(n.ComponentIDs) != 0 { // Web was detached above
			t.Errorf("notice 46 %+v", n)
		}
	})

	t.Run("Incident", func(t *testing.T) {
		n, err := adm.CreateNotice(ctx, statusd.AdminNoticeRequest{Type: ptr("unplanned"), Subject: ptr("Login fails"),
			Content: ptr("Looking."), ComponentIDs: &[]int64{1}, TagList: &[]string{"auth"}})
		if err != nil {
			t.Fatal(err)
		}
		if state(n.State) != "investigating" || n.TimelineState != "present" || !slices.Equal(n.ComponentIDs, []int64{1}) ||
			!slices.Equal(n.TagList, []string{"auth"}) || !n.ImpactSeconds.Set || n.ImpactSeconds.Value != nil || n.Automate != nil {
			t.Errorf("created %+v", n)
		}
		id := n.ID
		n, err = adm.UpdateNotice(ctx, id, statusd.AdminNoticeRequest{Subject: ptr("Login fails for some"), ImpactSeconds: statusd.Some(int64(600))})
		if err != nil {
			t.Fatal(err)
		}
		if n.Subject != "Login fails for some" || n.ImpactSeconds.Value == nil || *n.ImpactSeconds.Value != 600 {
			t.Errorf("changed %+v", n)
		}
		_, err = adm.UpdateNotice(ctx, id, statusd.AdminNoticeRequest{ExpiresAt: statusd.Some("2030-01-01T00:00:00Z")})
		wantError(t, "expires_at on an incident", err, 422, statusd.EInvalidField, client.ErrInvalidField, "expires_at: only general notices")

		n, err = adm.PostUpdate(ctx, id, statusd.AdminUpdateRequest{Content: ptr("Fixed."), State: ptr("resolved")})
		if err != nil {
			t.Fatal(err)
		}
		if state(n.State) != "resolved" || n.TimelineState != "past_recent" || len(n.Updates) != 2 || n.Updates[1].Content != "Fixed." {
			t.Errorf("resolved %+v", n)
		}
		_, err = adm.PostUpdate(ctx, id, statusd.AdminUpdateRequest{Content: ptr("Again."), State: ptr("investigating")})
		wantError(t, "resolved to investigating", err, 422, statusd.EInvalidTransition, client.ErrInvalidTransition, "reopen")

		n, err = adm.Reopen(ctx, id, statusd.AdminUpdateRequest{Content: new("Back.")})
		if err != nil {
			t.Fatal(err)
		}
		if state(n.State) != "investigating" || len(n.Updates) != 3 || n.Updates[2].Content != "Back." {
			t.Errorf("reopened %+v", n)
		}
		pn, err := pub.Notice(ctx, id)
		if err != nil || pn.Subject != "Login fails for some" || state(pn.State) != "investigating" || len(pn.Updates) != 3 {
			t.Errorf("public notice %+v, %v", pn, err)
		}

		if err := adm.DeleteNotice(ctx, id); err != nil {
			t.Fatal(err)
		}
		_, err = pub.Notice(ctx, id)
		wantError(t, "deleted notice", err, 404, statusd.ENotFound, client.ErrNotFound, "not found")
	})

	t.Run("MaintenanceAndAnnouncement", func(t *testing.T) {
		at := func(d time.Duration) string { return now.Add(d).Format(statusd.TimeLayout) }
		n, err := adm.CreateNotice(ctx, statusd.AdminNoticeRequest{Type: ptr("planned"), Subject: ptr("DB upgrade"),
			Content: ptr("Planned."), BeginsAt: statusd.Some(at(24 * time.Hour)), EndsAt: statusd.Some(at(25 * time.Hour))})
		if err != nil {
			t.Fatal(err)
		}
		// Rescheduled a day later.
		n, err = adm.UpdateNotice(ctx, n.ID, statusd.AdminNoticeRequest{BeginsAt: statusd.Some(at(48 * time.Hour)),
			EndsAt: statusd.Some(at(49 * time.Hour)), Automate: ptr(true)})
		if err != nil {
			t.Fatal(err)
		}
		if n.BeginsAt == nil || !n.BeginsAt.Equal(now.Add(48*time.Hour)) || !n.EndsAt.Equal(now.Add(49*time.Hour)) || !*n.Automate ||
			state(n.State) != "scheduled" {
			t.Errorf("rescheduled %+v", n)
		}
		n, err = adm.PostUpdate(ctx, n.ID, statusd.AdminUpdateRequest{Content: ptr("Started early."), State: ptr("underway")})
		if err != nil || state(n.State) != "underway" || n.TimelineState != "present" {
			t.Errorf("underway %+v, %v", n, err)
		}

		g, err := adm.CreateNotice(ctx, statusd.AdminNoticeRequest{Type: ptr("general"), Subject: ptr("New page"), Content: ptr("Hello.")})
		if err != nil {
			t.Fatal(err)
		}
		if g.TimelineState != "present" || !g.ExpiresAt.Set || g.ExpiresAt.Value != nil {
			t.Errorf("announced %+v", g)
		}
		// Withdrawn: it expires now, and is past.
		g, err = adm.UpdateNotice(ctx, g.ID, statusd.AdminNoticeRequest{ExpiresAt: statusd.Some(time.Now().UTC().Format(statusd.TimeLayout))})
		if err != nil {
			t.Fatal(err)
		}
		if g.TimelineState != "past_recent" || g.ExpiresAt.Value == nil {
			t.Errorf("withdrawn %+v", g)
		}
	})

	t.Run("Audit", func(t *testing.T) {
		a, err := adm.Audit(ctx, 0)
		if err != nil {
			t.Fatal(err)
		}
		// Newest first: the announcement's withdrawal and creation.
		if len(a.Audit) < 2 || a.Audit[0].Action != "notice.update" || a.Audit[1].Action != "notice.create" ||
			a.Audit[0].Actor != "sdk" || a.Audit[1].Detail != "general: New page" {
			t.Errorf("audit %+v", a.Audit)
		}
		// The import 1, the page 1, components 4, the incident 5
		// (refusals leave no record), the maintenance 3, the announcement 2.
		if a.Meta.TotalCount != 1+1+4+5+3+2 {
			t.Errorf("audit total %d, want 16", a.Meta.TotalCount)
		}
	})

	t.Run("Errors", func(t *testing.T) {
		_, err := client.NewAdmin(base, "sdt_wrong").Page(ctx)
		wantError(t, "wrong token", err, 401, statusd.EUnauthorized, client.ErrUnauthorized, "a valid token is required")
		_, err = adm.CreateComponent(ctx, statusd.AdminComponentRequest{})
		wantError(t, "no name", err, 422, statusd.EInvalidField, client.ErrInvalidField, "name: is required")
	})
}

// TestAdminDoesNotFollowRedirects: the token goes to the base URL only; a
// redirect is an *Error naming its target.
func TestAdminDoesNotFollowRedirects(t *testing.T) {
	var reached []string
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reached = append(reached, r.URL.Path+" "+r.Header.Get("Authorization"))
	}))
	defer target.Close()
	redirector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, target.URL+r.URL.RequestURI(), http.StatusTemporaryRedirect)
	}))
	defer redirector.Close()
	// Even through an http.Client that would follow it.
	adm := client.NewAdmin(redirector.URL, "sdt_secret", client.WithHTTPClient(&http.Client{}))
	_, err := adm.Page(context.Background())
	var e *client.Error
	if !errors.As(err, &e) || e.Status != http.StatusTemporaryRedirect || e.Location != target.URL+"/admin/api/v1/page" {
		t.Errorf("redirect: %T %+v", err, err)
	}
	if len(reached) > 0 {
		t.Errorf("the redirect was followed: %q", reached)
	}
}

// hook posts a sender's body to a source's hook with its token and
// returns the status and what became of each alert.
func hook(t *testing.T, base string, src *statusd.AdminSource, token, body string) (int, statusd.HookResponse) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, base+src.HookPath, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var out statusd.HookResponse
	if res.StatusCode == http.StatusAccepted {
		if err := json.NewDecoder(res.Body).Decode(&out); err != nil {
			t.Fatal(err)
		}
	}
	return res.StatusCode, out
}

// TestAdminSignals calls every method of the admin client for the signals
// of CONTRACT C9 against the real server: a source, alerts on its hook,
// their signals, the drafts they make, published and discarded.
func TestAdminSignals(t *testing.T) {
	now := time.Now().UTC().Truncate(time.Second)
	base, token := serveAdmin(t, page(now))
	adm, pub, ctx := client.NewAdmin(base, token), client.New(base), context.Background()
	var src *statusd.AdminSource
	var noticeID int64

	t.Run("Sources", func(t *testing.T) {
		var err error
		src, err = adm.CreateSource(ctx, statusd.AdminSourceRequest{Name: ptr("Scripts"), Format: ptr("generic")})
		if err != nil {
			t.Fatal(err)
		}
		if src.ID != 1 || src.HookPath != "/hooks/v1/1" || !strings.HasPrefix(src.Token, "sgn_") || src.State != "never" || src.Rules == nil {
			t.Fatalf("created %+v", src)
		}
		list, err := adm.Sources(ctx)
		if err != nil || len(list) != 1 || list[0].Name != "Scripts" || list[0].Token != "" {
			t.Errorf("sources %+v, %v; want Scripts without its token", list, err)
		}
		// A rule maps the alerts of team web to Web (3).
		rules := []statusd.SignalRule{{Match: map[string]string{"team": "web"}, Components: []string{"3"}}}
		changed, err := adm.ChangeSource(ctx, src.ID, statusd.AdminSourceRequest{Name: ptr("Web scripts"), Rules: &rules})
		if err != nil {
			t.Fatal(err)
		}
		got, err := adm.Source(ctx, src.ID)
		if err != nil || got.Name != "Web scripts" || len(got.Rules) != 1 || got.Rules[0].Components[0] != "3" || changed.Name != "Web scripts" {
			t.Errorf("changed %+v, then %+v, %v", changed, got, err)
		}
		_, err = adm.ChangeSource(ctx, src.ID, statusd.AdminSourceRequest{Format: ptr("grafana")})
		wantError(t, "a new format", err, 422, statusd.EInvalidField, client.ErrInvalidField, "format: cannot change")
		_, err = adm.Source(ctx, 99)
		wantError(t, "source 99", err, 404, statusd.ENotFound, client.ErrNotFound, "source 99 not found")
	})

	t.Run("Signals", func(t *testing.T) {
		// a is mapped by the rule to Web (3), which no notice lists: a
		// new draft, the first; u names no component: kept, unmapped.
		status, res := hook(t, base, src, src.Token, `{"events": [{"dedup_key": "a", "status": "firing", "labels": {"team": "web"}},
			{"dedup_key": "u", "status": "firing"}]}`)
		if status != 202 || len(res.Signals) != 2 || res.Signals[0].Action != "drafted" || *res.Signals[0].DraftID != 1 ||
			res.Signals[1].Action != "unmapped" {
			t.Fatalf("the hook: %d %+v", status, res)
		}
		keys := func(f statusd.SignalFilter) string {
			t.Helper()
			list, err := adm.Signals(ctx, f)
			if err != nil {
				t.Fatalf("signals %+v: %v", f, err)
			}
			var ks []string
			for _, s := range list {
				ks = append(ks, s.Key)
			}
			return strings.Join(ks, ",")
		}
		for _, c := range []struct {
			f    statusd.SignalFilter
			want string
		}{
			{statusd.SignalFilter{}, "a,u"},
			{statusd.SignalFilter{Unmapped: true}, "u"},
			{statusd.SignalFilter{SourceID: src.ID, Status: "firing"}, "a,u"},
			{statusd.SignalFilter{Status: "resolved"}, ""},
			{statusd.SignalFilter{SourceID: 99}, ""},
		} {
			if got := keys(c.f); got != c.want {
				t.Errorf("signals %+v: %q, want %q", c.f, got, c.want)
			}
		}
		_, err := adm.Signals(ctx, statusd.SignalFilter{Status: "gone"})
		wantError(t, "status gone", err, 400, statusd.EInvalidParameter, client.ErrInvalidParameter, `status: "gone" is not firing or resolved`)
		// The API has no filter by draft: the client refuses it, sending
		// nothing, rather than answer every signal.
		var e *client.Error
		if _, err := adm.Signals(ctx, statusd.SignalFilter{DraftID: 1}); err == nil || errors.As(err, &e) || !strings.Contains(err.Error(), "not DraftID") {
			t.Errorf("a filter by draft: %v, want the client's refusal", err)
		}
	})

	t.Run("Publish", func(t *testing.T) {
		open, err := adm.Drafts(ctx, "open")
		if err != nil || len(open) != 1 || open[0].ID != 1 || open[0].Subject != "Issues with Web" || !slices.Equal(open[0].ComponentIDs, []int64{3}) {
			t.Fatalf("open drafts %+v, %v", open, err)
		}
		d, err := adm.Draft(ctx, 1)
		if err != nil || d.Version != 1 || d.Kind != "incident" || d.NoticeState != statusd.Investigating {
			t.Fatalf("draft 1 %+v, %v", d, err)
		}
		d, err = adm.ChangeDraft(ctx, 1, statusd.AdminDraftRequest{Version: ptr(int64(1)), Subject: ptr("Web trouble")})
		if err != nil || d.Version != 2 || d.Subject != "Web trouble" {
			t.Fatalf("changed %+v, %v", d, err)
		}
		_, err = adm.ChangeDraft(ctx, 1, statusd.AdminDraftRequest{Version: ptr(int64(1)), Subject: ptr("Lost")})
		wantError(t, "a stale change", err, 409, statusd.EConflict, client.ErrConflict, "changed since you read it")
		p, err := adm.PublishDraft(ctx, 1, statusd.AdminDraftRequest{Version: ptr(int64(2)), Notify: ptr(false)})
		if err != nil {
			t.Fatal(err)
		}
		noticeID = p.Notice.ID
		if p.Draft.State != "published" || p.Draft.NoticeID == nil || *p.Draft.NoticeID != noticeID || p.Notice.Subject != "Web trouble" ||
			state(p.Notice.State) != "investigating" || !slices.Equal(p.Notice.ComponentIDs, []int64{3}) {
			t.Errorf("published %+v", p)
		}
		n, err := pub.Notice(ctx, noticeID)
		if err != nil || n.Subject != "Web trouble" || state(n.State) != "investigating" {
			t.Errorf("public notice %+v, %v", n, err)
		}
		_, err = adm.PublishDraft(ctx, 1, statusd.AdminDraftRequest{Version: ptr(int64(3))})
		wantError(t, "published again", err, 409, statusd.EConflict, client.ErrConflict, "draft 1 is published")
	})

	t.Run("Discard", func(t *testing.T) {
		// Web 5 (5): no notice lists it, no open draft names it.
		if status, res := hook(t, base, src, src.Token, `{"dedup_key": "b", "status": "firing", "labels": {"component": "5"}}`); status != 202 ||
			res.Signals[0].DraftID == nil || *res.Signals[0].DraftID != 2 {
			t.Fatalf("the hook: %d %+v, want draft 2", status, res)
		}
		d, err := adm.DiscardDraft(ctx, 2, statusd.AdminDiscardRequest{Version: ptr(int64(1)), Reason: "noise"})
		if err != nil || d.State != "discarded" || d.Reason != "noise" || d.Version != 2 {
			t.Fatalf("discarded %+v, %v", d, err)
		}
		_, err = adm.DiscardDraft(ctx, 2, statusd.AdminDiscardRequest{Version: ptr(int64(2))})
		wantError(t, "discarded again", err, 409, statusd.EConflict, client.ErrConflict, "draft 2 is discarded")
		all, err := adm.Drafts(ctx, "")
		if err != nil || len(all) != 2 || all[0].State != "published" || all[1].State != "discarded" {
			t.Errorf("every draft %+v, %v", all, err)
		}
		_, err = adm.Drafts(ctx, "gone")
		wantError(t, "state gone", err, 400, statusd.EInvalidParameter, client.ErrInvalidParameter, `state: "gone" is not open, published, discarded or lapsed`)
		_, err = adm.Draft(ctx, 99)
		wantError(t, "draft 99", err, 404, statusd.ENotFound, client.ErrNotFound, "draft 99 not found")
	})

	t.Run("RotateAndDelete", func(t *testing.T) {
		rotated, err := adm.RotateSourceToken(ctx, src.ID)
		if err != nil || !strings.HasPrefix(rotated.Token, "sgn_") || rotated.Token == src.Token {
			t.Fatalf("rotated %+v, %v", rotated, err)
		}
		if status, _ := hook(t, base, src, src.Token, `{"dedup_key": "c", "status": "firing"}`); status != 401 {
			t.Errorf("the old token: %d, want 401", status)
		}
		if status, _ := hook(t, base, src, rotated.Token, `{"dedup_key": "c", "status": "firing"}`); status != 202 {
			t.Errorf("the new token: %d, want 202", status)
		}
		if err := adm.DeleteSource(ctx, src.ID); err != nil {
			t.Fatal(err)
		}
		_, err = adm.Source(ctx, src.ID)
		wantError(t, "deleted source", err, 404, statusd.ENotFound, client.ErrNotFound, "not found")
		if status, _ := hook(t, base, src, rotated.Token, `{"dedup_key": "c", "status": "firing"}`); status != 401 {
			t.Errorf("a deleted source's hook: %d, want 401", status)
		}
		// Its drafts stay, and its notice.
		if all, err := adm.Drafts(ctx, ""); err != nil || len(all) != 2 {
			t.Errorf("drafts after the deletion: %+v, %v", all, err)
		}
	})
}
