package server_test

// Signals (CONTRACT C9) through the real server: a source is made with the
// admin API, its sender's real payloads (internal/signals/testdata) are
// posted to its hook, and what the hook answers, the drafts, the
// publication and the public answers are checked. Every helper here
// starts with sg.

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/internal/testenv"
	"github.com/statusd/statusd/internal/testserver"
)

// sgDoc is the fixture with keys on its components: api (10), api-eu
// (11), api-us (12), dashboard (20), database (30), replica (31).
func sgDoc() *statusd.Document {
	doc := testserver.Fixture(time.Now().UTC().Truncate(time.Second))
	keys := map[int64]string{10: "api", 11: "api-eu", 12: "api-us", 20: "dashboard", 30: "database", 31: "replica"}
	for i := range doc.Components {
		doc.Components[i].Key = keys[doc.Components[i].ID]
	}
	return doc
}

// sgPayload is a sender's real payload from internal/signals/testdata,
// with each of the replacements (old, new, ...) made.
func sgPayload(t *testing.T, name string, replace ...string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "signals", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return strings.NewReplacer(replace...).Replace(string(b))
}

// sgDecode decodes a JSON answer into a T.
func sgDecode[T any](t *testing.T, r testserver.Response) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(r.Body, &v); err != nil {
		t.Fatalf("the answer does not decode into %T: %v\n%s", v, err, r.Body)
	}
	return v
}

// sgSource makes a source with the body's settings and returns it with
// its token.
func sgSource(t *testing.T, srv *testserver.Server, tok, body string) statusd.AdminSource {
	t.Helper()
	r := srv.Authed(http.MethodPost, testserver.AdminRoot+"/sources", tok, body)
	if r.Status != http.StatusCreated {
		t.Fatalf("POST /sources %s: %d\n%s", body, r.Status, r.Body)
	}
	src := sgDecode[statusd.AdminSource](t, r)
	if !strings.HasPrefix(src.Token, "sgn_") || len(src.Token) != 4+43 || src.HookPath != fmt.Sprintf("/hooks/v1/%d", src.ID) {
		t.Fatalf("POST /sources: token %q, hook %q; want sgn_ and 43 characters, /hooks/v1/%d", src.Token, src.HookPath, src.ID)
	}
	return src
}

// sgHook posts body to the source's hook with its token; it answers
// want.
func sgHook(t *testing.T, srv *testserver.Server, src statusd.AdminSource, body string, want int) testserver.Response {
	t.Helper()
	r := testserver.Fetch(t, http.MethodPost, srv.URL+src.HookPath, body, testserver.Bearer(src.Token)...)
	if r.Status != want {
		t.Fatalf("POST %s: %d, want %d\n%s", src.HookPath, r.Status, want, r.Body)
	}
	return r
}

// sgTake posts body to the hook, which must take it (202), and returns
// the action of each alert, in order.
func sgTake(t *testing.T, srv *testserver.Server, src statusd.AdminSource, body string) statusd.HookResponse {
	t.Helper()
	return sgDecode[statusd.HookResponse](t, sgHook(t, srv, src, body, http.StatusAccepted))
}

// sgActions are the actions of an answer, in order.
func sgActions(res statusd.HookResponse) []string {
	var out []string
	for _, s := range res.Signals {
		out = append(out, s.Action)
	}
	return out
}

// sgDrafts lists the drafts in state.
func sgDrafts(t *testing.T, srv *testserver.Server, tok, state string) []statusd.AdminDraft {
	t.Helper()
	r := srv.Authed(http.MethodGet, testserver.AdminRoot+"/drafts?state="+state, tok, "")
	if r.Status != 200 {
		t.Fatalf("GET /drafts?state=%s: %d\n%s", state, r.Status, r.Body)
	}
	return sgDecode[statusd.AdminDraftsResponse](t, r).Drafts
}

// sgPublicNotices is the public list of notices without each one's
// impact_time, which moves with the clock while an incident is open: what
// a write to the notices would change.
func sgPublicNotices(t *testing.T, srv *testserver.Server) string {
	t.Helper()
	list := sgDecode[map[string]any](t, srv.Get("/api/v1/notices", 200))
	for _, n := range list["notices"].([]any) {
		delete(n.(map[string]any), "impact_time")
	}
	b, err := json.Marshal(list)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// sgServers runs test on a server with SQLite and one with PostgreSQL.
func sgServers(t *testing.T, test func(t *testing.T, srv *testserver.Server, tok string)) {
	for _, db := range []string{"sqlite", "postgres"} {
		t.Run(db, func(t *testing.T) {
			o := options{}
			if db == "postgres" {
				o.db = testenv.Postgres(t)
			}
			srv := startServer(t, sgDoc(), o)
			test(t, srv, newToken(t, srv.DB, "ops"))
		})
	}
}

// TestSignalsDraftPublishRecover follows one alert from Alertmanager's
// payload to the public page: it drafts an incident that nothing public
// shows, a person publishes it, the alert resolves and a recovering
// proposal waits for a person again.
func TestSignalsDraftPublishRecover(t *testing.T) {
	sgServers(t, func(t *testing.T, srv *testserver.Server, tok string) {
		src := sgSource(t, srv, tok, `{"name": "Prometheus", "format": "alertmanager"}`)
		publicBefore := sgPublicNotices(t, srv)
		// The payload: api-1 firing on component api (10), api-2
		// resolved (never seen firing: unchanged... it is new, so kept
		// as resolved, which drafts nothing).
		res := sgTake(t, srv, src, sgPayload(t, "alertmanager.json"))
		if res.Received != 2 || strings.Join(sgActions(res), ",") != "drafted,unchanged" {
			t.Fatalf("the hook answered %+v; want 2 received, drafted then unchanged", res)
		}
		first := res.Signals[0]
		if first.Key != "3f9a1c2b7d4e5f60" || first.Status != "firing" || fmt.Sprint(first.ComponentIDs) != "[10]" || first.DraftID == nil {
			t.Fatalf("the firing alert: %+v; want key 3f9a1c2b7d4e5f60, firing, component 10, a draft", first)
		}
		drafts := sgDrafts(t, srv, tok, "open")
		if len(drafts) != 1 || drafts[0].ID != *first.DraftID || drafts[0].Kind != "incident" || drafts[0].Subject != "Issues with API" ||
			drafts[0].Content != "Instance api-1:9100 down" && drafts[0].Content != "We are investigating reports of problems with API." ||
			drafts[0].NoticeState != statusd.Investigating {
			t.Fatalf("the open drafts: %+v; want one incident draft, Issues with API, investigating", drafts)
		}
		// Nothing public: the same notices, and no text of the alert
		// anywhere on the page.
		if after := sgPublicNotices(t, srv); after != publicBefore {
			t.Errorf("a draft changed the public notices")
		}
		for _, path := range []string{"/", "/api/v2/summary.json", "/history.atom", "/api/v1/status"} {
			if body := string(srv.Get(path, 200).Body); strings.Contains(body, "Issues with API") || strings.Contains(body, "api-1:9100") {
				t.Errorf("GET %s shows the draft or the alert", path)
			}
		}
		// A repeat changes nothing.
		if again := sgTake(t, srv, src, sgPayload(t, "alertmanager.json")); strings.Join(sgActions(again), ",") != "unchanged,unchanged" {
			t.Errorf("the same payload again: %v, want unchanged twice", sgActions(again))
		}
		// A stale version publishes nothing; the right one publishes.
		d := drafts[0]
		srv.Refuse(tok, http.MethodPost, fmt.Sprintf("/drafts/%d/publish", d.ID), fmt.Sprintf(`{"version": %d}`, d.Version-1), 409, "conflict")
		pub := srv.AdminOK(http.MethodPost, fmt.Sprintf("/drafts/%d/publish", d.ID), tok,
			fmt.Sprintf(`{"version": %d, "notify": false}`, d.Version), 201)
		noticeID := int64(testserver.At(t, pub, "notice.id").(float64))
		if testserver.At(t, pub, "draft.state") != "published" || int64(testserver.At(t, pub, "draft.notice_id").(float64)) != noticeID {
			t.Errorf("the published draft: %v", pub["draft"])
		}
		detail := srv.Get(fmt.Sprintf("/api/v1/notices/%d", noticeID), 200)
		if !strings.Contains(string(detail.Body), `"subject":"Issues with API"`) || !strings.Contains(string(detail.Body), `"state":"investigating"`) {
			t.Errorf("the public notice %d: %s", noticeID, detail.Body)
		}
		srv.Refuse(tok, http.MethodPost, fmt.Sprintf("/drafts/%d/publish", d.ID), fmt.Sprintf(`{"version": %d}`, d.Version+1), 409, "conflict")
		// The alert resolves: a proposal to post recovering, nothing
		// public yet.
		resolved := sgPayload(t, "alertmanager.json", `"status": "firing",
      "labels": {
        "alertname": "InstanceDown",
        "instance": "api-1:9100"`, `"status": "resolved",
      "labels": {
        "alertname": "InstanceDown",
        "instance": "api-1:9100"`)
		if got := sgActions(sgTake(t, srv, src, resolved)); strings.Join(got, ",") != "proposed,unchanged" {
			t.Fatalf("api-1 resolved: %v, want proposed, unchanged", got)
		}
		if !strings.Contains(string(srv.Get(fmt.Sprintf("/api/v1/notices/%d", noticeID), 200).Body), `"state":"investigating"`) {
			t.Errorf("a proposal changed the public notice")
		}
		proposals := sgDrafts(t, srv, tok, "open")
		if len(proposals) != 1 || proposals[0].Kind != "update" || proposals[0].NoticeState != statusd.Recovering ||
			proposals[0].NoticeID == nil || *proposals[0].NoticeID != noticeID {
			t.Fatalf("the proposal: %+v; want one update draft of notice %d, recovering", proposals, noticeID)
		}
		p := proposals[0]
		srv.AdminOK(http.MethodPost, fmt.Sprintf("/drafts/%d/publish", p.ID), tok, fmt.Sprintf(`{"version": %d, "notify": false}`, p.Version), 201)
		if !strings.Contains(string(srv.Get(fmt.Sprintf("/api/v1/notices/%d", noticeID), 200).Body), `"state":"recovering"`) {
			t.Errorf("the accepted proposal did not make the notice recovering")
		}
	})
}

// TestSignalsGrouping: C9's grouping order, with Alertmanager, Uptime
// Kuma and generic payloads: an underway maintenance absorbs, an open
// incident attaches (an update draft proposes its new component), the
// same group joins one draft, a lapse, and an unmapped alert.
func TestSignalsGrouping(t *testing.T) {
	sgServers(t, func(t *testing.T, srv *testserver.Server, tok string) {
		am := sgSource(t, srv, tok, `{"name": "Prometheus", "format": "alertmanager"}`)
		// database (30) is under maintenance 200: absorbed, no draft.
		res := sgTake(t, srv, am, sgPayload(t, "alertmanager.json", `"statusd_component": "api"`, `"statusd_component": "database"`))
		if res.Signals[0].Action != "attached" || res.Signals[0].DraftID != nil {
			t.Errorf("an alert on a component under maintenance: %+v, want attached without a draft", res.Signals[0])
		}
		// api-eu (11) has incident 100 open: attached; with replica
		// (31) too, an update draft proposes replica.
		res = sgTake(t, srv, am, sgPayload(t, "alertmanager.json", `"statusd_component": "api"`, `"statusd_component": "api-eu,replica"`,
			"3f9a1c2b7d4e5f60", "eu-fingerprint"))
		if res.Signals[0].Action != "attached" || res.Signals[0].DraftID == nil {
			t.Fatalf("an alert on an open incident's component and another: %+v, want attached with an update draft", res.Signals[0])
		}
		up := sgDrafts(t, srv, tok, "open")
		if len(up) != 1 || up[0].Kind != "update" || *up[0].NoticeID != 100 || fmt.Sprint(up[0].ComponentIDs) != "[11 31]" {
			t.Fatalf("the drafts: %+v; want an update of notice 100 adding component 31", up)
		}
		// Two generic events of one script, on api-us (12): one draft
		// (the second names its component within 10 minutes).
		gen := sgSource(t, srv, tok, `{"name": "Scripts", "format": "generic"}`)
		res = sgTake(t, srv, gen, `{"events": [{"dedup_key": "a", "status": "firing", "labels": {"component": "api-us"}},
			{"dedup_key": "b", "status": "FIRING", "labels": {"component": "12"}}]}`)
		if strings.Join(sgActions(res), ",") != "drafted,attached" || *res.Signals[0].DraftID != *res.Signals[1].DraftID {
			t.Fatalf("two events on one component: %+v, want drafted then attached to the same draft", res.Signals)
		}
		draft := *res.Signals[0].DraftID
		// An event that names no component is kept, unmapped.
		if got := sgActions(sgTake(t, srv, gen, `{"dedup_key": "c", "status": "firing", "labels": {"component": "nope"}}`)); got[0] != "unmapped" {
			t.Errorf("an event on no component: %v, want unmapped", got)
		}
		unmapped := sgDecode[statusd.AdminSignalsResponse](t, srv.Authed(http.MethodGet, testserver.AdminRoot+"/signals?unmapped=true", tok, ""))
		if len(unmapped.Signals) != 1 || unmapped.Signals[0].Key != "c" {
			t.Errorf("GET /signals?unmapped=true: %+v, want the one of key c", unmapped.Signals)
		}
		// Both resolve before anyone looked: the draft lapses.
		res = sgTake(t, srv, gen, `{"events": [{"dedup_key": "a", "status": "resolved"}, {"dedup_key": "b", "status": "ok"}]}`)
		if strings.Join(sgActions(res), ",") != "unchanged,lapsed" {
			t.Fatalf("both resolved: %v, want unchanged then lapsed", sgActions(res))
		}
		lapsed := sgDrafts(t, srv, tok, "lapsed")
		if len(lapsed) != 1 || lapsed[0].ID != draft {
			t.Fatalf("the lapsed drafts: %+v, want draft %d", lapsed, draft)
		}
		// Publishing it later writes a closed incident.
		pub := srv.AdminOK(http.MethodPost, fmt.Sprintf("/drafts/%d/publish", draft), tok, fmt.Sprintf(`{"version": %d, "notify": false}`, lapsed[0].Version), 201)
		if testserver.At(t, pub, "notice.state") != "resolved" {
			t.Errorf("a lapsed draft published: notice state %v, want resolved", testserver.At(t, pub, "notice.state"))
		}
		// Uptime Kuma: its test message stores nothing; a monitor down
		// on dashboard (20), which has incident 105 open (recovering):
		// attached.
		kuma := sgSource(t, srv, tok, `{"name": "Kuma", "format": "uptime_kuma", "rules": [{"components": ["dashboard"]}]}`)
		if res := sgTake(t, srv, kuma, sgPayload(t, "uptime_kuma_test.json")); len(res.Signals) != 0 {
			t.Errorf("Uptime Kuma's test message: %+v, want nothing kept", res)
		}
		if got := sgActions(sgTake(t, srv, kuma, sgPayload(t, "uptime_kuma_down.json"))); got[0] != "attached" {
			t.Errorf("Uptime Kuma down on the dashboard: %v, want attached to incident 105", got)
		}
	})
}

// TestHookRefusals: the hook's refusals, each with its code and nothing
// kept: 401 alike for an unknown source, a wrong token and none; 400 not
// JSON; 422 another format, naming the path; 413 over 1 MiB; 429 over
// the source's rate.
func TestHookRefusals(t *testing.T) {
	srv := startServer(t, sgDoc(), options{})
	tok := newToken(t, srv.DB, "ops")
	src := sgSource(t, srv, tok, `{"name": "Prometheus", "format": "alertmanager"}`)
	body := sgPayload(t, "alertmanager.json")
	var unauthorized []string
	for _, tc := range []struct{ path, token string }{
		{src.HookPath, ""}, {src.HookPath, "sgn_wrong"}, {src.HookPath, tok}, {"/hooks/v1/999", src.Token}, {"/hooks/v1/x", src.Token},
	} {
		r := testserver.Fetch(t, http.MethodPost, srv.URL+tc.path, body, testserver.Bearer(tc.token)...)
		testserver.AssertError(t, "POST "+tc.path, r, 401, "unauthorized")
		unauthorized = append(unauthorized, testserver.ErrorMessage(r))
	}
	for _, m := range unauthorized[1:] {
		if m != unauthorized[0] {
			t.Errorf("401 messages differ, telling a source that exists from one that does not: %q, %q", unauthorized[0], m)
		}
	}
	testserver.AssertError(t, "not JSON", sgHook(t, srv, src, "{not json", 400), 400, "invalid_body")
	r := sgHook(t, srv, src, sgPayload(t, "grafana.json"), 422)
	if !strings.Contains(testserver.ErrorMessage(r), "version") {
		t.Errorf("Grafana's body to an Alertmanager source: %q, want it to name version", testserver.ErrorMessage(r))
	}
	sgHook(t, srv, src, `{"x": "`+strings.Repeat("a", 1<<20)+`"}`, 413)
	if signals := sgDecode[statusd.AdminSignalsResponse](t, srv.Authed(http.MethodGet, testserver.AdminRoot+"/signals", tok, "")); len(signals.Signals) != 0 {
		t.Errorf("refused requests kept signals: %+v", signals.Signals)
	}
	// 10 a second, burst 50: of 60 at once, some are 429 with
	// Retry-After.
	limited := 0
	for range 60 {
		r := testserver.Fetch(t, http.MethodPost, srv.URL+src.HookPath, `{"version": "4", "status": "firing", "alerts": []}`, testserver.Bearer(src.Token)...)
		if r.Status == 429 {
			limited++
			if r.Header.Get("Retry-After") == "" {
				t.Errorf("a 429 without Retry-After")
			}
		}
	}
	if limited < 5 {
		t.Errorf("%d of 60 quick requests refused 429, want at least 5 (burst 50)", limited)
	}
}

// TestDraftVersions: a draft's every change moves its version; a stale
// one answers 409 and changes nothing; a discarded draft cannot be
// published; a viewer cannot publish.
func TestDraftVersions(t *testing.T) {
	srv := startServer(t, sgDoc(), options{})
	tok := newToken(t, srv.DB, "ops")
	viewer := newRoleToken(t, srv.DB, "watcher", statusd.Viewer)
	src := sgSource(t, srv, tok, `{"name": "Scripts", "format": "generic"}`)
	res := sgTake(t, srv, src, `{"dedup_key": "a", "status": "firing", "labels": {"component": "api-us"}}`)
	id := *res.Signals[0].DraftID
	d := sgDecode[statusd.AdminDraft](t, srv.Authed(http.MethodGet, fmt.Sprintf("%s/drafts/%d", testserver.AdminRoot, id), tok, ""))
	path := fmt.Sprintf("/drafts/%d", id)
	changed := srv.AdminOK(http.MethodPatch, path, tok, fmt.Sprintf(`{"version": %d, "subject": "US API errors"}`, d.Version), 200)
	if v := int64(changed["version"].(float64)); v != d.Version+1 || changed["subject"] != "US API errors" {
		t.Fatalf("PATCH: version %d subject %v; want %d, US API errors", v, changed["subject"], d.Version+1)
	}
	srv.Refuse(tok, http.MethodPatch, path, fmt.Sprintf(`{"version": %d, "subject": "Lost"}`, d.Version), 409, "conflict")
	srv.Refuse(tok, http.MethodPatch, path, `{"subject": "No version"}`, 422, "invalid_field", "version")
	srv.Refuse(tok, http.MethodPatch, path, fmt.Sprintf(`{"version": %d, "notice_state": "resolved", "component_ids": [12, 999]}`, d.Version+1),
		422, "invalid_field", `notice_state: "resolved" is not a state this incident draft can publish (investigating or identified)`,
		"component_ids[1]: no component has id 999")
	srv.Refuse(tok, http.MethodPost, "/sources", `{"name": "S", "format": "generic", "secret": "s"}`, 422, "invalid_field", "secret: only a grafana source")
	srv.Refuse(tok, http.MethodGet, "/drafts?state=gone", "", 400, "invalid_parameter", `state: "gone" is not open, published, discarded or lapsed`)
	srv.RefuseAs(tok, viewer, http.MethodPost, path+"/publish", fmt.Sprintf(`{"version": %d}`, d.Version+1), 403, "forbidden")
	srv.AdminOK(http.MethodPost, path+"/discard", tok, fmt.Sprintf(`{"version": %d, "reason": "a test"}`, d.Version+1), 200)
	srv.Refuse(tok, http.MethodPost, path+"/publish", fmt.Sprintf(`{"version": %d}`, d.Version+2), 409, "conflict", "discarded")
}

// TestSourceHeartbeat: a source's heartbeat alert (Alertmanager's
// Watchdog) only refreshes it: never, then ok; no signal is kept.
func TestSourceHeartbeat(t *testing.T) {
	srv := startServer(t, sgDoc(), options{})
	tok := newToken(t, srv.DB, "ops")
	src := sgSource(t, srv, tok, `{"name": "Prometheus", "format": "alertmanager", "heartbeat": {"match": {"alertname": "Watchdog"}, "timeout": "5m"}}`)
	if src.State != "never" {
		t.Errorf("a new source is %s, want never", src.State)
	}
	res := sgTake(t, srv, src, sgPayload(t, "alertmanager.json", `"alertname": "InstanceDown",
        "instance": "api-1:9100"`, `"alertname": "Watchdog",
        "instance": "api-1:9100"`))
	if res.Signals[0].Action != "heartbeat" {
		t.Errorf("the Watchdog alert: %v, want heartbeat", res.Signals[0].Action)
	}
	got := sgDecode[statusd.AdminSource](t, srv.Authed(http.MethodGet, fmt.Sprintf("%s/sources/%d", testserver.AdminRoot, src.ID), tok, ""))
	if got.State != "ok" || got.LastHeartbeatAt == nil {
		t.Errorf("after a heartbeat the source is %s (last heartbeat %v), want ok", got.State, got.LastHeartbeatAt)
	}
	signals := sgDecode[statusd.AdminSignalsResponse](t, srv.Authed(http.MethodGet, testserver.AdminRoot+"/signals", tok, ""))
	if len(signals.Signals) != 1 || signals.Signals[0].Key == "3f9a1c2b7d4e5f60" {
		t.Errorf("signals kept: %+v; want only api-2's, not the heartbeat", signals.Signals)
	}
	stale := func() (float64, string) {
		v, _ := testserver.MetricValue(testserver.Scrape(t, srv.URL, tok), "statusd_signal_source_stale", "source", "Prometheus")
		return v, string(srv.Get("/readyz", 200).Body)
	}
	if v, ready := stale(); v != 0 || strings.Contains(ready, "stale") {
		t.Errorf("with a heartbeat: statusd_signal_source_stale %v, /readyz %s; want 0 and no note", v, ready)
	}
	// A timeout of a second, and no heartbeat for more.
	srv.AdminOK(http.MethodPatch, fmt.Sprintf("/sources/%d", src.ID), tok, `{"heartbeat": {"match": {"alertname": "Watchdog"}, "timeout": "1s"}}`, 200)
	time.Sleep(1100 * time.Millisecond)
	if v, ready := stale(); v != 1 || !strings.Contains(ready, "source Prometheus is stale: no heartbeat since") {
		t.Errorf("a second past the timeout: statusd_signal_source_stale %v, /readyz %s; want 1 and a note naming the source", v, ready)
	}
}

// TestRealAlertmanager: a real Prometheus Alertmanager (v0.35.0, built by
// bench/alertmanager.sh) sends to a source's hook: an alert on component
// api drafts an incident; resolved, the draft lapses.
func TestRealAlertmanager(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs Alertmanager")
	}
	srv := startServer(t, sgDoc(), options{})
	tok := newToken(t, srv.DB, "ops")
	src := sgSource(t, srv, tok, `{"name": "Alertmanager", "format": "alertmanager"}`)
	am := testenv.Alertmanager(t, srv.URL+src.HookPath, src.Token)
	start := time.Now().Add(-time.Minute).UTC()
	alert := testenv.AMAlert{Labels: map[string]string{"alertname": "APIDown", "statusd_component": "api", "severity": "page"},
		Annotations: map[string]string{"summary": "api is down"}, StartsAt: start}
	testenv.PostAlerts(t, am, alert)
	wait := func(state string) statusd.AdminDraft {
		t.Helper()
		for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
			if list := sgDrafts(t, srv, tok, state); len(list) == 1 {
				return list[0]
			}
		}
		t.Fatalf("no %s draft 15 s after Alertmanager was told", state)
		return statusd.AdminDraft{}
	}
	d := wait("open")
	if d.Kind != "incident" || fmt.Sprint(d.ComponentIDs) != "[10]" || d.Subject != "Issues with API" {
		t.Errorf("the draft from Alertmanager: %+v; want an incident draft on component 10, Issues with API", d)
	}
	alert.EndsAt = time.Now().Add(-time.Second).UTC()
	testenv.PostAlerts(t, am, alert)
	if lapsed := wait("lapsed"); lapsed.ID != d.ID {
		t.Errorf("the lapsed draft is %d, want %d", lapsed.ID, d.ID)
	}
}

// TestSignalsReplicas: two servers on one PostgreSQL database get the
// same alerts at once, many times: one signal per key and one draft in
// all; a held signal drafts once, whichever server's timer sees it.
func TestSignalsReplicas(t *testing.T) {
	db := testenv.Postgres(t)
	a := startServer(t, sgDoc(), options{db: db})
	b := startServer(t, nil, options{db: db})
	tok := newToken(t, db, "ops")
	src := sgSource(t, a, tok, `{"name": "Prometheus", "format": "alertmanager", "rules": [{"match": {"severity": "hold"}, "hold": "1s"}]}`)
	body := sgPayload(t, "alertmanager.json")
	held := sgPayload(t, "alertmanager.json", `"severity": "page"`, `"severity": "hold"`, "3f9a1c2b7d4e5f60", "held-1", "a07e2b91c4d3e8f5", "held-2")
	var wg sync.WaitGroup
	for i := range 20 {
		srv := []*testserver.Server{a, b}[i%2]
		wg.Go(func() {
			for _, payload := range []string{body, held} {
				r, err := testserver.Send(http.MethodPost, srv.URL+src.HookPath, payload, testserver.Bearer(src.Token)...)
				if err != nil || r.Status != http.StatusAccepted {
					t.Errorf("POST the hook: %v %d %s", err, r.Status, r.Body)
				}
			}
		})
	}
	wg.Wait()
	signals := sgDecode[statusd.AdminSignalsResponse](t, b.Authed(http.MethodGet, testserver.AdminRoot+"/signals", tok, "")).Signals
	var keys []string
	for _, s := range signals {
		keys = append(keys, s.Key)
	}
	if strings.Join(keys, ",") != "3f9a1c2b7d4e5f60,a07e2b91c4d3e8f5,held-1,held-2" {
		t.Errorf("the signals of 40 posts of 2 payloads through 2 servers: %v; want the 4 keys once each", keys)
	}
	time.Sleep(1500 * time.Millisecond) // the hold of held-1 is over; both servers' timers ran
	drafts := sgDrafts(t, a, tok, "")
	if len(drafts) != 1 || len(drafts[0].SignalIDs) != 2 {
		t.Fatalf("the drafts: %+v; want one, of the 2 firing keys (the held one joined it once its hold was over)", drafts)
	}
}

// TestHooksListener: with an admin listener, the hooks are on it; the
// public listener answers a JSON 404 that says where they are, unless
// --hooks-public serves them there too (for senders hosted elsewhere).
func TestHooksListener(t *testing.T) {
	for _, public := range []bool{false, true} {
		t.Run(fmt.Sprint("hooks-public=", public), func(t *testing.T) {
			srv := startServer(t, sgDoc(), options{adminListener: true, hooksPublic: public})
			tok := newToken(t, srv.DB, "ops")
			r := testserver.Fetch(t, http.MethodPost, srv.AdminURL+testserver.AdminRoot+"/sources",
				`{"name": "Scripts", "format": "generic"}`, testserver.Bearer(tok)...)
			if r.Status != 201 {
				t.Fatalf("POST /sources on the admin listener: %d %s", r.Status, r.Body)
			}
			src := sgDecode[statusd.AdminSource](t, r)
			event := `{"dedup_key": "a", "status": "firing", "labels": {"component": "api-us"}}`
			if r := testserver.Fetch(t, http.MethodPost, srv.AdminURL+src.HookPath, event, testserver.Bearer(src.Token)...); r.Status != 202 {
				t.Errorf("the hook on the admin listener: %d %s", r.Status, r.Body)
			}
			r = testserver.Fetch(t, http.MethodPost, srv.URL+src.HookPath, event, testserver.Bearer(src.Token)...)
			switch {
			case public && r.Status != 202:
				t.Errorf("the hook on the public listener with --hooks-public: %d %s, want 202", r.Status, r.Body)
			case !public:
				testserver.AssertError(t, "the hook on the public listener", r, 404, "not_found")
				if !strings.Contains(testserver.ErrorMessage(r), "--hooks-public") {
					t.Errorf("the 404 says %q; want it to name --hooks-public", testserver.ErrorMessage(r))
				}
			}
		})
	}
}
