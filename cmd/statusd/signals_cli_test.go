package main

// The operator commands of the signals (CONTRACT C9): statusd source and
// statusd draft, run against a real server whose hook is posted to as a
// sender would.

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/internal/testserver"
)

// The signal commands join the table of every command, whose help and
// usage errors TestCLIHelpAndUsageExitCodes checks.
func init() {
	cliCommands = append(cliCommands, []struct {
		path []string
		bad  []string
	}{
		{[]string{"source"}, []string{"ad"}},
		{[]string{"source", "add"}, []string{"Scripts"}}, // no --format
		{[]string{"source", "list"}, []string{"extra"}},
		{[]string{"source", "rm"}, nil},
		{[]string{"source", "rotate"}, []string{"x"}},
		{[]string{"draft"}, nil},
		{[]string{"draft", "list"}, []string{"extra"}},
		{[]string{"draft", "show"}, nil},
		{[]string{"draft", "publish"}, []string{"1", "2"}},
		{[]string{"draft", "discard"}, []string{"0"}},
	}...)
}

// sigDoc is opDoc with keys on two of its components: website (1) and
// database (3); API (2) and Replica (4) have none. Nothing is current,
// and its one incident resolved 3 days ago: an alert on any component
// drafts a new incident (CONTRACT C9: no maintenance absorbs it, no open
// incident takes it, none resolved within 15 minutes to reopen).
func sigDoc(now time.Time) *statusd.Document {
	doc := opDoc(now)
	doc.Components[0].Key, doc.Components[2].Key = "website", "database"
	return doc
}

// sigHook posts a sender's body to a hook URL with a bearer token and
// returns the answer.
func sigHook(t *testing.T, hook, token, body string) testserver.Response {
	t.Helper()
	return testserver.Fetch(t, http.MethodPost, hook, body, testserver.Bearer(token)...)
}

// sigTake posts body to the hook, which must take it (202), and returns
// what became of each alert.
func sigTake(t *testing.T, hook, token, body string) statusd.HookResponse {
	t.Helper()
	r := sigHook(t, hook, token, body)
	if r.Status != http.StatusAccepted {
		t.Fatalf("POST %s: %d, want 202\n%s", hook, r.Status, r.Body)
	}
	var res statusd.HookResponse
	if err := json.Unmarshal(r.Body, &res); err != nil {
		t.Fatalf("the hook's answer: %v\n%s", err, r.Body)
	}
	return res
}

// sigFails runs a command that must fail with code, its error holding
// every one of says.
func sigFails(t *testing.T, srv *testserver.Server, token string, code int, args []string, says ...string) {
	t.Helper()
	_, stderr, err := opCLI(t, srv, token, args...)
	if exitCode(err) != code {
		t.Errorf("statusd %s: exit %d (%v), want %d\n%s", strings.Join(args, " "), exitCode(err), err, code, stderr)
	}
	for _, s := range says {
		if !strings.Contains(fmt.Sprint(err), s) {
			t.Errorf("statusd %s: %v; want it to say %q", strings.Join(args, " "), err, s)
		}
	}
}

// sigLines splits a command's output into its lines.
func sigLines(out string) []string { return strings.Split(strings.TrimSuffix(out, "\n"), "\n") }

func TestCLISignals(t *testing.T) {
	now := time.Now().UTC().Truncate(time.Second)
	srv, tok := opSetup(t, sigDoc(now))
	adm, ctx := srv.Admin(tok), context.Background()
	var hook, token string
	var heard time.Time // when the hook first took an alert

	testserver.Step(t, "source add prints the hook URL and a token that works on it, once", func(t *testing.T) {
		out := opMust(t, srv, tok, "source", "add", "Scripts", "--format", "generic")
		// The first source of a fresh database is 1; its hook is
		// /hooks/v1/1 on the server --url names.
		m := subMatch(t, "source add", out, `^added generic source 1 "Scripts"\nhook:  (\S+)\ntoken: (sgn_[A-Za-z0-9_-]{43})\n`+
			`Store this token now: the sender sends it as Authorization: Bearer TOKEN to the hook, and it is not shown again `+
			`\(statusd source rotate 1 prints a new one\)\.\n$`)
		hook, token = m[0], m[1]
		if want := srv.URL + "/hooks/v1/1"; hook != want {
			t.Fatalf("hook %q, want %q", hook, want)
		}
		// A generic event on the component whose key is website (1):
		// a new incident draft, the first of the database.
		heard = time.Now()
		res := sigTake(t, hook, token, `{"dedup_key": "a", "status": "firing", "labels": {"component": "website"}}`)
		testserver.AssertJSON(t, "the hook's answer", res, testserver.Obj{"received": 1, "signals": []testserver.Obj{
			{"key": "a", "status": "firing", "component_ids": []int64{1}, "action": "drafted", "draft_id": 1}}})
		// A second on API (2), by id: another draft (another component,
		// no group).
		res = sigTake(t, hook, token, `{"dedup_key": "b", "status": "firing", "labels": {"component": "2"}}`)
		if len(res.Signals) != 1 || res.Signals[0].Action != "drafted" || res.Signals[0].DraftID == nil || *res.Signals[0].DraftID != 2 {
			t.Fatalf("the second event: %+v, want draft 2", res.Signals)
		}
		// The source is heard now.
		out = opMust(t, srv, tok, "source", "list")
		lines := sigLines(out)
		if len(lines) != 2 {
			t.Fatalf("source list: %d lines, want the header and one source\n%s", len(lines), out)
		}
		subMatch(t, "source list header", lines[0], `^ID\s+NAME\s+FORMAT\s+STATE\s+LAST EVENT$`)
		last := subMatch(t, "source list", lines[1], `^1\s+Scripts\s+generic\s+ok\s+(\S+)$`)[0]
		at, err := time.Parse(time.RFC3339, last)
		if err != nil {
			t.Fatalf("last event %q: %v", last, err)
		}
		testserver.Within(t, "last event", at, heard.Truncate(time.Second), time.Now())
	})

	testserver.Step(t, "draft list and show tell what each draft would publish; nothing is public yet", func(t *testing.T) {
		out := opMust(t, srv, tok, "draft", "list")
		lines := sigLines(out)
		if len(lines) != 3 {
			t.Fatalf("draft list: %d lines, want the header and 2 drafts\n%s", len(lines), out)
		}
		subMatch(t, "draft list header", lines[0], `^ID\s+KIND\s+STATE\s+SUBJECT\s+COMPONENTS\s+AGE$`)
		// The default subject is "Issues with" and the components'
		// names; a draft made a moment ago is seconds old.
		subMatch(t, "draft 1", lines[1], `^1\s+incident\s+open\s+Issues with Website\s+Website \(1\)\s+\d+s$`)
		subMatch(t, "draft 2", lines[2], `^2\s+incident\s+open\s+Issues with API\s+API \(2\)\s+\d+s$`)
		if out := opMust(t, srv, tok, "draft", "list", "--state", "published"); out != "ID  KIND  STATE  SUBJECT  COMPONENTS  AGE\n" {
			t.Errorf("draft list --state published: %q, want the header alone", out)
		}
		sigFails(t, srv, tok, exitCodeRefused, []string{"draft", "list", "--state", "gone"}, `state: "gone" is not open, published, discarded or lapsed`)

		out = opMust(t, srv, tok, "draft", "show", "1")
		for _, re := range []string{`^draft 1\s+incident, open\n`, `(?m)^subject\s+Issues with Website$`,
			`(?m)^content\s+We are investigating reports of problems with Website\.$`, `(?m)^notice state\s+investigating$`,
			`(?m)^components\s+Website \(1\)$`, `(?m)^notice\s+-$`, `(?m)^source\s+1$`, `(?m)^signals\s+1$`, `(?m)^version\s+1$`,
			`(?m)^warnings\s+-$`} {
			subMatch(t, "draft show 1", out, re)
		}
		sigFails(t, srv, tok, exitCodeNotFound, []string{"draft", "show", "99"}, "draft 99 not found; statusd draft list shows the drafts")
		// Drafts are not public: the page is as the fixture left it.
		opCheckPage(t, "drafts only", opRead(t, srv, ""), "operational", "All systems operational",
			map[string]string{"1": "operational", "2": "operational", "3": "operational", "4": "operational"})
	})

	var noticeID string
	testserver.Step(t, "draft publish publishes the draft as read, with the texts given", func(t *testing.T) {
		out := opMust(t, srv, tok, "draft", "publish", "1", "--subject", "Website down", "-m", "We are looking into it.", "--state", "identified", "--no-notify")
		m := subMatch(t, "publish", out, `^published draft 1: incident (\d+) "Website down" \(identified\) on Website\nurl: (\S+)\n$`)
		noticeID = m[0]
		if want := "https://status.ops.test/notices/" + noticeID; m[1] != want {
			t.Errorf("url %q, want %q", m[1], want)
		}
		// The public API shows the notice with the texts given, and
		// Website degraded.
		p := opRead(t, srv, noticeID)
		opCheckPage(t, "published", p, "degraded", "Some systems are degraded",
			map[string]string{"1": "degraded", "2": "operational", "3": "operational", "4": "operational"})
		n := p.notice
		testserver.AssertJSON(t, "the published notice", testserver.Obj{"type": n.Type, "subject": n.Subject, "state": n.State,
			"components": opComponents(n), "updates": opUpdates(n)},
			testserver.Obj{"type": "unplanned", "subject": "Website down", "state": "identified", "components": []string{"Website"},
				"updates": [][2]string{{"identified", "We are looking into it."}}})
		r := srv.Get("/api/v1/notices/"+noticeID, 200)
		if got := testserver.At(t, r.JSON, "notice.subject"); got != "Website down" {
			t.Errorf("GET /api/v1/notices/%s: subject %v", noticeID, got)
		}
		lines := sigLines(opMust(t, srv, tok, "draft", "list", "--state", "published"))
		if len(lines) != 2 {
			t.Fatalf("draft list --state published: %q, want the header and draft 1", lines)
		}
		subMatch(t, "published draft", lines[1], `^1\s+incident\s+published\s+Website down\s+Website \(1\)\s+\d+s$`)
		subMatch(t, "draft show 1", opMust(t, srv, tok, "draft", "show", "1"), `(?m)^notice\s+`+noticeID+`$`)
		// Once published, a draft is not published again.
		sigFails(t, srv, tok, exitCodeRefused, []string{"draft", "publish", "1"},
			"draft 1 is published: it can no longer be changed; statusd draft show 1 shows it")
	})

	testserver.Step(t, "draft discard discards another draft; it cannot be published then", func(t *testing.T) {
		out := opMust(t, srv, tok, "draft", "discard", "2", "--reason", "a test alert")
		if out != "discarded draft 2 \"Issues with API\"\n" {
			t.Errorf("discard: %q", out)
		}
		show := opMust(t, srv, tok, "draft", "show", "2")
		subMatch(t, "discarded", show, `^draft 2\s+incident, discarded\n`)
		subMatch(t, "reason", show, `(?m)^reason\s+a test alert$`)
		sigFails(t, srv, tok, exitCodeRefused, []string{"draft", "publish", "2"}, "draft 2 is discarded")
		sigFails(t, srv, tok, exitCodeNotFound, []string{"draft", "discard", "99"}, "draft 99 not found")
		if state := opRead(t, srv, "").comps[2]; state != "operational" {
			t.Errorf("API is %s after its draft was discarded, want operational", state)
		}
	})

	testserver.Step(t, "a draft that changed between its read and its publication is not published", func(t *testing.T) {
		// Draft 3, on database (3); a proxy changes it just before the
		// publication reaches the server, as another person would.
		res := sigTake(t, hook, token, `{"dedup_key": "c", "status": "firing", "labels": {"component": "database"}}`)
		if len(res.Signals) != 1 || res.Signals[0].DraftID == nil || *res.Signals[0].DraftID != 3 {
			t.Fatalf("the event on database: %+v, want draft 3", res.Signals)
		}
		target, err := url.Parse(srv.URL)
		if err != nil {
			t.Fatal(err)
		}
		forward := httputil.NewSingleHostReverseProxy(target)
		proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/drafts/3/publish") {
				d, err := adm.Draft(ctx, 3)
				if err == nil {
					_, err = adm.ChangeDraft(ctx, 3, statusd.AdminDraftRequest{Version: &d.Version, Subject: new("Changed meanwhile")})
				}
				if err != nil {
					t.Errorf("changing draft 3: %v", err)
				}
			}
			forward.ServeHTTP(w, r)
		}))
		defer proxy.Close()
		_, stderr, err := cliEnv(t, nil, "draft", "publish", "3", "--url", proxy.URL, "--token", tok)
		if exitCode(err) != exitCodeRefused || !strings.Contains(fmt.Sprint(err), "draft 3 changed since you read it (version 1, now 2)") ||
			!strings.HasSuffix(fmt.Sprint(err), "; the draft changed since it was read: run statusd draft show 3 and try again") {
			t.Errorf("publish of a changed draft: exit %d, %v\n%s", exitCode(err), err, stderr)
		}
		show := opMust(t, srv, tok, "draft", "show", "3")
		subMatch(t, "draft 3 after the refusal", show, `^draft 3\s+incident, open\n`)
		subMatch(t, "draft 3's subject", show, `(?m)^subject\s+Changed meanwhile$`)
		subMatch(t, "draft 3's version", show, `(?m)^version\s+2$`)
	})

	var rotated string
	testserver.Step(t, "source rotate prints a new token; the old one is refused at once", func(t *testing.T) {
		out := opMust(t, srv, tok, "source", "rotate", "1")
		m := subMatch(t, "rotate", out, `^new token for generic source 1 "Scripts"; the old one no longer works\nhook:  (\S+)\ntoken: (sgn_[A-Za-z0-9_-]{43})\n`+
			`Store this token now: .* \(statusd source rotate 1 prints a new one\)\.\n$`)
		rotated = m[1]
		if m[0] != hook || rotated == token {
			t.Fatalf("rotate: hook %q token %q; want the same hook %q and a new token", m[0], rotated, hook)
		}
		testserver.AssertError(t, "the old token", sigHook(t, hook, token, `{"dedup_key": "d", "status": "firing"}`), 401, "unauthorized")
		// The new one works: d names no component, so it is kept
		// unmapped and drafts nothing.
		res := sigTake(t, hook, rotated, `{"dedup_key": "d", "status": "firing"}`)
		if len(res.Signals) != 1 || res.Signals[0].Action != "unmapped" {
			t.Errorf("with the new token: %+v, want d unmapped", res.Signals)
		}
		sigFails(t, srv, tok, exitCodeNotFound, []string{"source", "rotate", "99"}, "source 99 not found; statusd source list shows the sources")
	})

	testserver.Step(t, "source rm removes the source and its hook; its drafts stay", func(t *testing.T) {
		out := opMust(t, srv, tok, "source", "rm", "1")
		if out != "removed generic source 1 \"Scripts\" and its signals; its hook and token no longer work\n" {
			t.Errorf("rm: %q", out)
		}
		testserver.AssertError(t, "the removed source's hook", sigHook(t, hook, rotated, `{"dedup_key": "e", "status": "firing"}`), 401, "unauthorized")
		if out := opMust(t, srv, tok, "source", "list"); out != "ID  NAME  FORMAT  STATE  LAST EVENT\n" {
			t.Errorf("source list after rm: %q, want the header alone", out)
		}
		if lines := sigLines(opMust(t, srv, tok, "draft", "list")); len(lines) != 4 {
			t.Errorf("draft list after rm: %q, want the header and drafts 1, 2 and 3", lines)
		}
		sigFails(t, srv, tok, exitCodeNotFound, []string{"source", "rm", "1"}, "source 1 not found")
	})

	testserver.Step(t, "source add takes rules and a heartbeat, and the rules map alerts", func(t *testing.T) {
		rules := filepath.Join(t.TempDir(), "rules.json")
		if err := os.WriteFile(rules, []byte(`[{"match": {"team": "db"}, "components": ["database"], "subject": "{{.Labels.team}}: trouble"}]`), 0o600); err != nil {
			t.Fatal(err)
		}
		out := opMust(t, srv, tok, "source", "add", "Prometheus", "--format", "alertmanager", "--rules", rules,
			"--heartbeat-match", "alertname=Watchdog", "--heartbeat-match", "env!=dev")
		id := subMatch(t, "add with rules", out, `^added alertmanager source (\d+) "Prometheus"\n`)[0]
		if id != "2" {
			t.Errorf("the second source is %s, want 2", id)
		}
		src, err := adm.Source(ctx, 2)
		testserver.NoErr(t, "GET /sources/2", err)
		testserver.AssertJSON(t, "the source's rules and heartbeat", testserver.Obj{"rules": src.Rules, "heartbeat": src.Heartbeat, "state": src.State},
			testserver.Obj{"rules": []testserver.Obj{{"match": testserver.Obj{"team": "db"}, "components": []string{"database"}, "subject": "{{.Labels.team}}: trouble"}},
				"heartbeat": testserver.Obj{"match": testserver.Obj{"alertname": "Watchdog", "env": "!=dev"}, "timeout": "5m0s"}, "state": "never"})

		// Rules from standard input, on a generic source: an event with
		// the label team=api and no component is mapped to API (2, by
		// id) by the rule, and its subject is the rule's. API has no
		// open incident, and no open draft (draft 2 was discarded): a
		// new draft. (Database would join draft 3, open and made within
		// 10 minutes.)
		stdout, stderr, err := cli(t, `[{"match": {"team": "api"}, "components": ["2"], "subject": "{{.Labels.team}}: trouble"}]`,
			"source", "add", "DB scripts", "--format", "generic", "--rules", "-", "--url", srv.URL, "--token", tok)
		if err != nil {
			t.Fatalf("source add --rules -: %v\n%s", err, stderr)
		}
		m := subMatch(t, "add with rules from stdin", stdout, `^added generic source 3 "DB scripts"\nhook:  (\S+)\ntoken: (\S+)\n`)
		res := sigTake(t, m[0], m[1], `{"dedup_key": "f", "status": "firing", "labels": {"team": "api"}}`)
		if len(res.Signals) != 1 || res.Signals[0].Action != "drafted" || fmt.Sprint(res.Signals[0].ComponentIDs) != "[2]" ||
			res.Signals[0].DraftID == nil || *res.Signals[0].DraftID != 4 {
			t.Fatalf("an event the rule maps: %+v, want draft 4 on component 2", res.Signals)
		}
		subMatch(t, "the rule's subject", opMust(t, srv, tok, "draft", "show", "4"), `(?m)^subject\s+api: trouble$`)

		// --json prints the server's answer, the token in it.
		out = opMust(t, srv, tok, "source", "add", "Kuma", "--format", "uptime_kuma", "--json")
		var s statusd.AdminSource
		if err := json.Unmarshal([]byte(out), &s); err != nil || s.ID != 4 || s.Format != "uptime_kuma" || !strings.HasPrefix(s.Token, "sgn_") ||
			s.HookPath != "/hooks/v1/4" {
			t.Errorf("add --json: %v %+v\n%s", err, s, out)
		}
	})

	testserver.Step(t, "source add's refusals", func(t *testing.T) {
		bad := filepath.Join(t.TempDir(), "bad.json")
		if err := os.WriteFile(bad, []byte(`[{"componets": ["database"]}]`), 0o600); err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			args []string
			code int
			says string
		}{
			{[]string{"X"}, exitCodeUsage, "--format"},
			{[]string{"X", "--format", "nagios"}, exitCodeRefused, `format: "nagios" is not a format`},
			{[]string{"X", "--format", "generic", "--secret", "s"}, exitCodeUsage, "only with --format grafana"},
			{[]string{"X", "--format", "generic", "--heartbeat-timeout", "1m"}, exitCodeUsage, "needs --heartbeat-match"},
			{[]string{"X", "--format", "generic", "--heartbeat-match", "Watchdog"}, exitCodeUsage, `"Watchdog" is not label=value`},
			{[]string{"X", "--format", "generic", "--rules", bad}, exitCodeFailure, `rules[0]: unknown field "componets"`},
			{[]string{"X", "--format", "generic", "--rules", bad + ".missing"}, exitCodeFailure, "no such file"},
			{[]string{"--format", "generic"}, exitCodeUsage, "takes NAME"},
		} {
			sigFails(t, srv, tok, c.code, append([]string{"source", "add"}, c.args...), c.says)
		}
		if list, err := adm.Sources(ctx); err != nil || len(list) != 3 {
			t.Errorf("sources after the refusals: %d, %v; want the 3 added before", len(list), err)
		}
	})
}
