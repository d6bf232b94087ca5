package main

import (
	"encoding/json"
	"fmt"
	"net"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/statusd/statusd"
)

// opDoc is a small page on which nothing is current, so that every page
// and component state the operator tests see comes from their own notices:
//
//	components, in position order: 1 Website, 2 API, 3 Database,
//	4 Replica (child of 3)
//
// with a resolved incident on API 3 days ago and a welcome announcement.
func opDoc(now time.Time) *statusd.Document {
	comp := func(id int64, parent *int64, pos int, name string) statusd.Component {
		return statusd.Component{ID: id, ParentID: parent, Position: pos, Name: name, Description: name + " service",
			CreatedAt: pageCreated, UpdatedAt: pageCreated}
	}
	d3 := now.Add(-72 * time.Hour)
	return &statusd.Document{
		Page: statusd.Page{Name: "Ops Status", URL: "https://status.ops.test", CreatedAt: pageCreated, UpdatedAt: pageCreated},
		Components: []statusd.Component{
			comp(1, nil, 1, "Website"), comp(2, nil, 2, "API"), comp(3, nil, 3, "Database"), comp(4, ptr(int64(3)), 4, "Replica"),
		},
		Notices: []statusd.Notice{
			{ID: 50, Type: statusd.Unplanned, Subject: "API errors", ComponentIDs: []int64{2}, TagList: []string{},
				CreatedAt: d3, UpdatedAt: d3.Add(time.Hour), Updates: []statusd.Update{
					upd(statusd.Investigating, d3, "Errors."), upd(statusd.Resolved, d3.Add(time.Hour), "Fixed.")}},
			{ID: 60, Type: statusd.General, Subject: "Welcome", ComponentIDs: []int64{}, TagList: []string{},
				CreatedAt: d3, UpdatedAt: d3, Updates: []statusd.Update{upd("", d3, "Our status page.")}},
		},
	}
}

// opSetup starts a server with doc and returns it with a fresh admin token.
func opSetup(t *testing.T, doc any) (*testServer, string) {
	t.Helper()
	srv := startServer(t, doc)
	return srv, newToken(t, srv.DB, "ops")
}

// opCLI runs an operator command against srv with token.
func opCLI(t *testing.T, srv *testServer, token string, args ...string) (string, string, error) {
	t.Helper()
	return cliEnv(t, nil, append(args, "--url", srv.URL, "--token", token)...)
}

// opMust runs an operator command that must succeed and returns its stdout.
func opMust(t *testing.T, srv *testServer, token string, args ...string) string {
	t.Helper()
	out, stderr, err := opCLI(t, srv, token, args...)
	if err != nil {
		t.Fatalf("statusd %s: %v\nstderr: %s", strings.Join(args, " "), err, stderr)
	}
	return out
}

// opMatch fails unless s matches the regular expression and returns its
// first group.
func opMatch(t *testing.T, what, s, re string) string {
	t.Helper()
	m := regexp.MustCompile(re).FindStringSubmatch(s)
	if m == nil {
		t.Fatalf("%s: %q does not match %s", what, s, re)
	}
	if len(m) > 1 {
		return m[1]
	}
	return ""
}

// opPublic is what the public API says about the page, its components and
// one notice.
type opPublic struct {
	page, pageText string
	comps          map[string]string // component id -> state
	notice         map[string]any
}

func opRead(t *testing.T, srv *testServer, noticeID string) opPublic {
	t.Helper()
	status := srv.get("/api/v1/status", 200).JSON
	p := opPublic{page: at(t, status, "page.state").(string), pageText: at(t, status, "page.state_text").(string),
		comps: map[string]string{}}
	for _, c := range at(t, srv.get("/api/v1/components", 200).JSON, "components").([]any) {
		p.comps[fmt.Sprint(at(t, c, "id"))] = at(t, c, "state").(string)
	}
	if noticeID != "" {
		p.notice = at(t, srv.get("/api/v1/notices/"+noticeID, 200).JSON, "notice").(map[string]any)
	}
	return p
}

// opCheckPage checks the page state and every component's state.
func opCheckPage(t *testing.T, step string, p opPublic, page, text string, comps map[string]string) {
	t.Helper()
	if p.page != page || p.pageText != text {
		t.Errorf("%s: page state %q %q, want %q %q", step, p.page, p.pageText, page, text)
	}
	assertJSON(t, step+": component states", p.comps, comps)
}

// opParseTS parses an API timestamp.
func opParseTS(t *testing.T, v any) time.Time {
	t.Helper()
	s, ok := v.(string)
	if !ok {
		t.Fatalf("timestamp %v is not a string", v)
	}
	tm, err := time.Parse(statusd.TimeLayout, s)
	if err != nil {
		t.Fatal(err)
	}
	return tm
}

// opUpdates returns a notice's updates as [state, content] pairs.
func opUpdates(t *testing.T, n map[string]any) [][2]string {
	t.Helper()
	var out [][2]string
	for _, u := range n["updates"].([]any) {
		state, _ := u.(map[string]any)["state"].(string)
		out = append(out, [2]string{state, at(t, u, "content").(string)})
	}
	return out
}

// opWithin fails unless tm lies in [from, to] (times truncated to the
// millisecond, as the API stores them).
func opWithin(t *testing.T, what string, tm, from, to time.Time) {
	t.Helper()
	if tm.Before(from.Truncate(time.Millisecond)) || tm.After(to) {
		t.Errorf("%s = %s, want within [%s, %s]", what, tm.Format(statusd.TimeLayout), ts(from), ts(to))
	}
}

func TestOperatorIncidentLifecycle(t *testing.T) {
	srv, token := opSetup(t, opDoc(time.Now()))
	allOK := map[string]string{"1": "operational", "2": "operational", "3": "operational", "4": "operational"}
	opCheckPage(t, "before", opRead(t, srv, ""), "operational", "All systems operational", allOK)

	// Open on a component named by name, in another case; the subject is
	// the message's first sentence.
	msg1 := "Replica lag is growing. We are looking into it."
	before := time.Now()
	out := opMust(t, srv, token, "incident", "open", "--component", "replica", "-m", msg1, "--tag", "db")
	after := time.Now()
	id := opMatch(t, "open", out, `^opened incident (\d+) "Replica lag is growing" \(investigating\) on Replica\n$`)

	// A current incident on Replica: the page is degraded, Replica and its
	// parent Database (CONTRACT C3), the notice present.
	p := opRead(t, srv, id)
	opCheckPage(t, "open", p, "degraded", "Some systems are degraded",
		map[string]string{"1": "operational", "2": "operational", "3": "degraded", "4": "degraded"})
	n := p.notice
	assertJSON(t, "open: notice", obj{"type": n["type"], "timeline_state": n["timeline_state"], "state": n["state"],
		"subject": n["subject"], "ended_at": n["ended_at"], "tag_list": n["tag_list"], "component": at(t, n, "components.0.name"),
		"components": len(n["components"].([]any))},
		obj{"type": "unplanned", "timeline_state": "present", "state": "investigating", "subject": "Replica lag is growing",
			"ended_at": nil, "tag_list": []string{"db"}, "component": "Replica", "components": 1})
	assertJSON(t, "open: updates", opUpdates(t, n), [][2]string{{"investigating", msg1}})
	opened := opParseTS(t, at(t, n, "updates.0.created_at"))
	opWithin(t, "open: first update", opened, before, after)
	if n["began_at"] != at(t, n, "updates.0.created_at") || n["created_at"] != n["began_at"] {
		t.Errorf("open: began_at %v, created_at %v, want both the first update's time %v", n["began_at"], n["created_at"], at(t, n, "updates.0.created_at"))
	}

	// Identified is still current: nothing changes but the notice's state.
	msg2 := "A full disk; adding space."
	before = time.Now()
	out = opMust(t, srv, token, "incident", "update", id, "--state", "identified", "-m", msg2)
	after = time.Now()
	opMatch(t, "update", out, `^updated incident `+id+` "Replica lag is growing" \(identified\) on Replica\n$`)
	p = opRead(t, srv, id)
	opCheckPage(t, "identified", p, "degraded", "Some systems are degraded",
		map[string]string{"1": "operational", "2": "operational", "3": "degraded", "4": "degraded"})
	n = p.notice
	assertJSON(t, "identified: notice", obj{"timeline_state": n["timeline_state"], "state": n["state"], "ended_at": n["ended_at"],
		"began_at": n["began_at"]},
		obj{"timeline_state": "present", "state": "identified", "ended_at": nil, "began_at": ts(opened)})
	assertJSON(t, "identified: updates", opUpdates(t, n), [][2]string{{"investigating", msg1}, {"identified", msg2}})
	opWithin(t, "identified: update", opParseTS(t, at(t, n, "updates.1.created_at")), before, after)

	// Resolved: nothing is current any more; the notice ended at the
	// resolving update and is past_recent.
	msg3 := "Replica caught up."
	before = time.Now()
	out = opMust(t, srv, token, "incident", "resolve", id, "-m", msg3)
	after = time.Now()
	opMatch(t, "resolve", out, `^resolved incident `+id+` "Replica lag is growing" \(resolved\) on Replica\n$`)
	p = opRead(t, srv, id)
	opCheckPage(t, "resolved", p, "operational", "All systems operational", allOK)
	n = p.notice
	resolved := at(t, n, "updates.2.created_at")
	opWithin(t, "resolved: update", opParseTS(t, resolved), before, after)
	assertJSON(t, "resolved: notice", obj{"timeline_state": n["timeline_state"], "state": n["state"], "ended_at": n["ended_at"],
		"began_at": n["began_at"], "updated_at": n["updated_at"]},
		obj{"timeline_state": "past_recent", "state": "resolved", "ended_at": resolved, "began_at": ts(opened), "updated_at": resolved})
	assertJSON(t, "resolved: updates", opUpdates(t, n), [][2]string{{"investigating", msg1}, {"identified", msg2}, {"resolved", msg3}})

	// The admin view of the same notice agrees, and notice show says so.
	out = opMust(t, srv, token, "notice", "show", id)
	for _, want := range []string{"incident " + id, "Replica lag is growing", "resolved (past_recent)", "Replica (4, operational)", msg3} {
		if !strings.Contains(out, want) {
			t.Errorf("notice show: %q missing in\n%s", want, out)
		}
	}
	out = opMust(t, srv, token, "notice", "list")
	opMatch(t, "notice list", out, `(?m)^ID\s+TYPE\s+STATE\s+TIMELINE\s+UPDATED\s+SUBJECT\n`+id+`\s+unplanned\s+resolved\s+past_recent\s+\S+\s+Replica lag is growing$`)
}

func TestOperatorMaintenanceLifecycle(t *testing.T) {
	srv, token := opSetup(t, opDoc(time.Now()))
	allOK := map[string]string{"1": "operational", "2": "operational", "3": "operational", "4": "operational"}

	before := time.Now()
	out := opMust(t, srv, token, "maintenance", "schedule", "--subject", "Database upgrade", "--begins", "+2s", "--ends", "+4s",
		"--automate", "--component", "database")
	after := time.Now()
	id := opMatch(t, "schedule", out, `^scheduled maintenance (\d+) "Database upgrade" \(scheduled, automated\) from \S+ to \S+ on Database\n$`)

	// Scheduled: future, nothing under maintenance yet.
	p := opRead(t, srv, id)
	opCheckPage(t, "scheduled", p, "operational", "All systems operational", allOK)
	n := p.notice
	assertJSON(t, "scheduled: notice", obj{"type": n["type"], "timeline_state": n["timeline_state"], "state": n["state"],
		"began_at": n["began_at"], "ended_at": n["ended_at"]},
		obj{"type": "planned", "timeline_state": "future", "state": "scheduled", "began_at": nil, "ended_at": nil})
	assertJSON(t, "scheduled: updates", opUpdates(t, n), [][2]string{{"scheduled", "Scheduled maintenance."}})
	begins, ends := opParseTS(t, n["begins_at"]), opParseTS(t, n["ends_at"])
	opWithin(t, "begins_at", begins, before.Add(2*time.Second), after.Add(2*time.Second))
	opWithin(t, "ends_at", ends, before.Add(4*time.Second), after.Add(4*time.Second))

	// poll reads the public API every 100 ms until the notice leaves state
	// from, failing after the deadline. Once it has, it reads everything
	// again: the status read before the notice may predate the change.
	poll := func(from string, deadline time.Time) opPublic {
		t.Helper()
		for {
			p := opRead(t, srv, id)
			if p.notice["state"] != from {
				return opRead(t, srv, id)
			}
			if time.Now().After(deadline) {
				t.Fatalf("notice %s still %s at %s", id, from, ts(time.Now()))
			}
			time.Sleep(100 * time.Millisecond)
		}
	}

	// Underway at begins_at (within a second): Database under maintenance,
	// its child Replica not, the page under maintenance.
	p = poll("scheduled", begins.Add(3*time.Second))
	opCheckPage(t, "underway", p, "under_maintenance", "Maintenance is underway",
		map[string]string{"1": "operational", "2": "operational", "3": "under_maintenance", "4": "operational"})
	n = p.notice
	began := opParseTS(t, n["began_at"])
	opWithin(t, "began_at", began, begins, begins.Add(time.Second))
	assertJSON(t, "underway: notice", obj{"timeline_state": n["timeline_state"], "state": n["state"], "ended_at": n["ended_at"],
		"began_at": n["began_at"]},
		obj{"timeline_state": "present", "state": "underway", "ended_at": nil, "began_at": at(t, n, "updates.1.created_at")})
	assertJSON(t, "underway: updates", opUpdates(t, n),
		[][2]string{{"scheduled", "Scheduled maintenance."}, {"underway", "The scheduled maintenance has begun."}})

	// Complete at ends_at: past_recent, everything operational again.
	p = poll("underway", ends.Add(3*time.Second))
	opCheckPage(t, "complete", p, "operational", "All systems operational", allOK)
	n = p.notice
	ended := opParseTS(t, n["ended_at"])
	opWithin(t, "ended_at", ended, ends, ends.Add(time.Second))
	assertJSON(t, "complete: notice", obj{"timeline_state": n["timeline_state"], "state": n["state"], "ended_at": n["ended_at"],
		"began_at": n["began_at"]},
		obj{"timeline_state": "past_recent", "state": "complete", "ended_at": at(t, n, "updates.2.created_at"), "began_at": ts(began)})
	assertJSON(t, "complete: updates", opUpdates(t, n), [][2]string{{"scheduled", "Scheduled maintenance."},
		{"underway", "The scheduled maintenance has begun."}, {"complete", "The scheduled maintenance is complete."}})

	// By hand: schedule, start, cancel is refused once complete.
	out = opMust(t, srv, token, "maintenance", "schedule", "--subject", "Website move", "--begins", "+1h", "--ends", "+2h")
	id2 := opMatch(t, "schedule", out, `^scheduled maintenance (\d+) "Website move" \(scheduled\) from \S+ to \S+\n$`)
	opMatch(t, "start", opMust(t, srv, token, "maintenance", "start", id2), `^started maintenance `+id2+` "Website move" \(underway\)\n$`)
	opMatch(t, "complete", opMust(t, srv, token, "maintenance", "complete", id2, "-m", "Moved."), `^completed maintenance `+id2+` "Website move" \(complete\)\n$`)
	if _, _, err := opCLI(t, srv, token, "maintenance", "cancel", id2); exitCode(err) != exitCodeRefused ||
		!strings.Contains(err.Error(), "final") {
		t.Errorf("cancel after complete: exit %d, %v; want 5 saying complete is final", exitCode(err), err)
	}
	n = opRead(t, srv, id2).notice
	assertJSON(t, "by hand: updates", opUpdates(t, n), [][2]string{{"scheduled", "Scheduled maintenance."},
		{"underway", "The scheduled maintenance has begun."}, {"complete", "Moved."}})
}

func TestOperatorExitCodes(t *testing.T) {
	srv, token := opSetup(t, opDoc(time.Now()))
	out := opMust(t, srv, token, "incident", "open", "--component", "API", "-m", "Errors!")
	id := opMatch(t, "open", out, `^opened incident (\d+) "Errors" \(investigating\) on API\n$`)
	opMust(t, srv, token, "incident", "resolve", id, "-m", "Fixed.")

	// A closed port: listen, note the address, close.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + ln.Addr().String()
	ln.Close()

	for _, tc := range []struct {
		name string
		env  map[string]string
		args []string
		code int
		says []string // in the error
	}{
		{"wrong token", nil, []string{"notice", "list", "--url", srv.URL, "--token", "sdt_wrong"}, exitCodeUnauthorized,
			[]string{"STATUSD_TOKEN", "--token", "statusd token create"}},
		{"no token", nil, []string{"notice", "list", "--url", srv.URL}, exitCodeUnauthorized, []string{"STATUSD_TOKEN"}},
		{"unknown notice", nil, []string{"notice", "show", "9999", "--url", srv.URL, "--token", token}, exitCodeNotFound,
			[]string{"notice 9999 not found", "statusd notice list"}},
		{"unknown component", nil, []string{"component", "rm", "Cache", "--url", srv.URL, "--token", token}, exitCodeNotFound,
			[]string{`"Cache"`, "statusd component list"}},
		{"resolved back to investigating", nil, []string{"incident", "update", id, "--state", "investigating", "-m", "Again.",
			"--url", srv.URL, "--token", token}, exitCodeRefused, []string{"refused by the server", "reopen"}},
		{"delete a parent", nil, []string{"component", "rm", "Database", "--url", srv.URL, "--token", token}, exitCodeRefused,
			[]string{"1 components below it", "--recursive"}},
		{"bad schedule", nil, []string{"maintenance", "schedule", "--subject", "X", "--begins", "+2h", "--ends", "+1h",
			"--url", srv.URL, "--token", token}, exitCodeRefused, []string{"ends_at: must be after begins_at"}},
		{"unreachable", nil, []string{"notice", "list", "--url", closed, "--token", token}, exitCodeUnavailable,
			[]string{"cannot reach statusd at " + closed, "--url"}},
		{"unreachable through STATUSD_URL", map[string]string{"STATUSD_URL": closed, "STATUSD_TOKEN": token},
			[]string{"notice", "list"}, exitCodeUnavailable, []string{closed}},
		{"unknown flag", nil, []string{"incident", "open", "--bogus", "--url", srv.URL}, exitCodeUsage, []string{"-bogus"}},
		{"unknown subcommand", nil, []string{"incident", "close", "1"}, exitCodeUsage, []string{`"close"`}},
		{"no message", nil, []string{"incident", "resolve", id, "--url", srv.URL}, exitCodeUsage, []string{"-m MESSAGE"}},
		{"no component", nil, []string{"incident", "open", "-m", "Down.", "--url", srv.URL}, exitCodeUsage, []string{"--component"}},
		{"bad id", nil, []string{"incident", "update", "abc", "-m", "x", "--url", srv.URL}, exitCodeUsage, []string{`"abc"`}},
		{"extra argument", nil, []string{"notice", "show", "1", "2", "--url", srv.URL}, exitCodeUsage, []string{"takes ID"}},
		{"bad time", nil, []string{"maintenance", "schedule", "--subject", "X", "--begins", "tomorrow", "--ends", "+1h",
			"--url", srv.URL}, exitCodeUsage, []string{"--begins", "RFC 3339"}},
		{"bad url", nil, []string{"notice", "list", "--url", "127.0.0.1:8080"}, exitCodeUsage, []string{"--url"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stdout, _, err := cliEnv(t, tc.env, tc.args...)
			if code := exitCode(err); code != tc.code {
				t.Fatalf("exit code %d (%v), want %d", code, err, tc.code)
			}
			for _, s := range tc.says {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q does not say %q", err, s)
				}
			}
			if stdout != "" {
				t.Errorf("stdout %q, want nothing on failure", stdout)
			}
		})
	}

	// The refused update changed nothing; reopen is the way back.
	n := opRead(t, srv, id).notice
	if n["state"] != "resolved" || len(n["updates"].([]any)) != 2 {
		t.Fatalf("after the refused update: state %v with %d updates, want resolved with 2", n["state"], len(n["updates"].([]any)))
	}
	opMatch(t, "reopen", opMust(t, srv, token, "incident", "reopen", id, "-m", "Back."), `^reopened incident `+id+` "Errors" \(investigating\) on API\n$`)

	// --json prints the server's answer, valid JSON, for reads and writes;
	// the environment supplies the URL and token.
	env := map[string]string{"STATUSD_URL": srv.URL, "STATUSD_TOKEN": token}
	for _, args := range [][]string{
		{"notice", "show", id, "--json"},
		{"notice", "list", "--json"},
		{"component", "list", "--json"},
		{"incident", "update", id, "--state", "identified", "-m", "Found it.", "--json"},
		{"announce", "-m", "New page! Have a look.", "--expires", "+1d", "--json"},
	} {
		out, _, err := cliEnv(t, env, args...)
		if err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		var v map[string]any
		if err := json.Unmarshal([]byte(out), &v); err != nil {
			t.Fatalf("%v: not JSON: %v\n%s", args, err, out)
		}
		if args[0] == "announce" {
			assertJSON(t, "announce --json", obj{"type": v["type"], "subject": v["subject"], "timeline_state": v["timeline_state"]},
				obj{"type": "general", "subject": "New page", "timeline_state": "present"})
		}
	}
	out, _, _ = cliEnv(t, env, "notice", "show", id, "--json")
	var shown map[string]any
	json.Unmarshal([]byte(out), &shown)
	if fmt.Sprint(shown["id"]) != id || shown["state"] != "identified" || len(shown["updates"].([]any)) != 4 {
		t.Errorf("notice show --json: id %v state %v, want %s identified with 4 updates", shown["id"], shown["state"], id)
	}
}

func TestOperatorComponents(t *testing.T) {
	srv, token := opSetup(t, opDoc(time.Now()))
	// comps returns the public components as "id name parent position".
	comps := func() []string {
		var out []string
		for _, c := range at(t, srv.get("/api/v1/components", 200).JSON, "components").([]any) {
			parent := "-"
			if v := at(t, c, "parent_id"); v != nil {
				parent = fmt.Sprint(v)
			}
			out = append(out, fmt.Sprintf("%v %v %s %v", at(t, c, "id"), at(t, c, "name"), parent, at(t, c, "position")))
		}
		return out
	}

	out := opMust(t, srv, token, "component", "add", "Cache", "--description", "Redis", "--parent", "DATABASE", "--position", "4", "--metrics")
	cache := opMatch(t, "add", out, `^added component (\d+) "Cache" under "Database" \(3\), position 4\n$`)
	assertJSON(t, "after add", comps(), []string{"1 Website - 1", "2 API - 2", "3 Database - 3", cache + " Cache 3 4", "4 Replica 3 5"})

	out = opMust(t, srv, token, "component", "list")
	opMatch(t, "list", out, `(?m)^ID\s+NAME\s+STATE\s+PARENT\s+POS\s+METRICS\s+DESCRIPTION\n1\s+Website\s+operational\s+-\s+1\s+off\s+Website service$`)
	opMatch(t, "list", out, `(?m)^`+cache+`\s{3,}Cache\s+operational\s+3\s+4\s+on\s+Redis$`)

	// Move by name: under Website first (without a position it joins
	// Website's group, right after it), then to the top at position 1.
	out = opMust(t, srv, token, "component", "move", "cache", "--parent", "website")
	opMatch(t, "move", out, `^moved component `+cache+` "Cache" under "Website" \(1\), position 2\n$`)
	out = opMust(t, srv, token, "component", "move", "Cache", "--top", "--position", "1")
	opMatch(t, "move", out, `^moved component `+cache+` "Cache" at the top level, position 1\n$`)
	assertJSON(t, "after move", comps(), []string{cache + " Cache - 1", "1 Website - 2", "2 API - 3", "3 Database - 4", "4 Replica 3 5"})
	if _, _, err := opCLI(t, srv, token, "component", "move", "Cache", "--top", "--parent", "API"); exitCode(err) != exitCodeUsage {
		t.Errorf("move with --top and --parent: exit %d, want 2", exitCode(err))
	}

	// A second "api": the name is ambiguous, and the error lists both.
	out = opMust(t, srv, token, "component", "add", "api", "--parent", "Database")
	api2 := opMatch(t, "add", out, `^added component (\d+) "api" under "Database" \(3\), position 6\n$`)
	for _, args := range [][]string{{"component", "rm", "API"}, {"incident", "open", "--component", "Api", "-m", "Down."}} {
		_, _, err := opCLI(t, srv, token, args...)
		if exitCode(err) != exitCodeUsage {
			t.Fatalf("%v: exit %d (%v), want 2", args, exitCode(err), err)
		}
		for _, want := range []string{`2 "API" (top level)`, api2 + ` "api" (under 3 "Database")`, "by its id"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("%v: error %q does not list %q", args, err, want)
			}
		}
	}
	// An id is never ambiguous.
	opMatch(t, "rm", opMust(t, srv, token, "component", "rm", api2), `^removed component `+api2+` "api"\n$`)
	opMatch(t, "rm", opMust(t, srv, token, "component", "rm", "cache"), `^removed component `+cache+` "Cache"\n$`)
	assertJSON(t, "after rm", comps(), []string{"1 Website - 1", "2 API - 2", "3 Database - 3", "4 Replica 3 4"})

	// A parent goes only with --recursive, and takes its subtree along.
	if _, _, err := opCLI(t, srv, token, "component", "rm", "Database"); exitCode(err) != exitCodeRefused {
		t.Fatalf("rm Database: exit %d (%v), want 5", exitCode(err), err)
	}
	assertJSON(t, "after the refused rm", comps(), []string{"1 Website - 1", "2 API - 2", "3 Database - 3", "4 Replica 3 4"})
	out = opMust(t, srv, token, "component", "rm", "database", "--recursive")
	opMatch(t, "rm --recursive", out, `^removed component 3 "Database" and the 1 component\(s\) below it\n$`)
	assertJSON(t, "after rm --recursive", comps(), []string{"1 Website - 1", "2 API - 2"})

	// API is listed by incident 50: it goes only with --detach, which takes
	// it out of the incident too.
	_, _, err := opCLI(t, srv, token, "component", "rm", "API")
	if exitCode(err) != exitCodeRefused {
		t.Fatalf("rm API: exit %d (%v), want 5", exitCode(err), err)
	}
	for _, want := range []string{`component 2 is listed by notice 50 ("API errors")`, "--detach"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("rm API: error %q does not say %q", err, want)
		}
	}
	assertJSON(t, "after the refused rm of API", comps(), []string{"1 Website - 1", "2 API - 2"})
	out = opMust(t, srv, token, "component", "rm", "API", "--detach")
	opMatch(t, "rm --detach", out, `^removed component 2 "API"\n$`)
	assertJSON(t, "after rm --detach", comps(), []string{"1 Website - 1"})
	assertJSON(t, "notice 50 after rm --detach", opRead(t, srv, "50").notice["components"], []any{})
}

func TestOperatorSubject(t *testing.T) {
	long := strings.Repeat("word ", 30)
	for _, tc := range []struct{ msg, want string }{
		{"Login fails. We are on it.", "Login fails"},
		{"  Errors on checkout; investigating", "Errors on checkout"},
		{"Down!", "Down"},
		{"Is it down? Maybe", "Is it down"},
		{"first line\nsecond line", "first line"},
		{"no punctuation at all", "no punctuation at all"},
		{long, strings.TrimSpace(strings.Repeat("word ", 16))}, // 16 words are 79 characters
		{strings.Repeat("x", 100), strings.Repeat("x", 80)},
		{strings.Repeat("ab ", 26) + "cd efgh", strings.TrimSpace(strings.Repeat("ab ", 26)) + " cd"}, // 78+2 = 80 exactly
		{"...", "..."},
	} {
		if got := opSubject(tc.msg); got != tc.want {
			t.Errorf("opSubject(%q) = %q, want %q", tc.msg, got, tc.want)
		}
		if n := len([]rune(opSubject(tc.msg))); n > 80 {
			t.Errorf("opSubject(%q) has %d characters", tc.msg, n)
		}
	}
	for _, tc := range []struct {
		in   string
		want time.Duration
	}{{"+90s", 90 * time.Second}, {"+2h", 2 * time.Hour}, {"1d12h", 36 * time.Hour}, {"+7d", 7 * 24 * time.Hour}} {
		got, err := opDuration(strings.TrimPrefix(tc.in, "+"))
		if err != nil || got != tc.want {
			t.Errorf("opDuration(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
}

// TestOperatorCoversTheAdminAPI: the commands added so that every admin
// route has one, each checked through the public API afterwards.
func TestOperatorCoversTheAdminAPI(t *testing.T) {
	srv, token := opSetup(t, opDoc(time.Now()))
	env := map[string]string{"STATUSD_URL": srv.URL, "STATUSD_TOKEN": token}
	// pubNotice is the public view of notice id.
	pubNotice := func(id string) map[string]any {
		t.Helper()
		return at(t, srv.get("/api/v1/notices/"+id, 200).JSON, "notice").(map[string]any)
	}
	// pubComponent is the public view of component id.
	pubComponent := func(id float64) map[string]any {
		t.Helper()
		for _, c := range at(t, srv.get("/api/v1/components", 200).JSON, "components").([]any) {
			if at(t, c, "id") == id {
				return c.(map[string]any)
			}
		}
		t.Fatalf("no component %v", id)
		return nil
	}

	t.Run("page", func(t *testing.T) {
		out := opMust(t, srv, token, "page", "edit", "--name", "Ops Status 2", "--degraded-text", "Partly down")
		opMatch(t, "page edit", out, `(?m)^name\s+Ops Status 2$`)
		opMatch(t, "page edit", out, `(?m)^degraded text\s+Partly down$`)
		opMatch(t, "page edit", out, `(?m)^operational text\s+All systems operational$`)
		status := srv.get("/api/v1/status", 200).JSON
		if at(t, status, "page.name") != "Ops Status 2" || at(t, status, "page.url") != "https://status.ops.test" {
			t.Errorf("public page %v", status)
		}
		opMatch(t, "page show", opMust(t, srv, token, "page", "show"), `(?m)^components\s+4$`)
		// --json is the server's answer, byte for byte.
		out, _, err := cliEnv(t, env, "page", "show", "--json")
		if want := srv.admin("GET", admPrefix+"/page", token, "").Body; err != nil || out != string(want)+"\n" {
			t.Errorf("page show --json: %v\n%s\nwant\n%s", err, out, want)
		}
	})

	t.Run("component", func(t *testing.T) {
		out := opMust(t, srv, token, "component", "edit", "api", "--name", "Public API", "--description", "REST", "--metrics")
		opMatch(t, "component edit", out, `^changed component 2 "Public API" at the top level, position 2\n$`)
		c := pubComponent(2)
		if c["name"] != "Public API" || c["description"] != "REST" || c["metrics_summary"] == nil {
			t.Errorf("public component 2 %v, want renamed, described, with metrics", c)
		}
		out = opMust(t, srv, token, "component", "show", "public api")
		for _, re := range []string{`(?m)^component 2\s+Public API$`, `(?m)^description\s+REST$`, `(?m)^metrics\s+true$`} {
			opMatch(t, "component show", out, re)
		}
		opMust(t, srv, token, "component", "edit", "2", "--metrics=false")
		if c := pubComponent(2); c["metrics_summary"] != nil || c["name"] != "Public API" {
			t.Errorf("after --metrics=false: %v", c)
		}
	})

	t.Run("incident", func(t *testing.T) {
		id := opMatch(t, "open", opMust(t, srv, token, "incident", "open", "--component", "Website", "-m", "Down."), `^opened incident (\d+) `)
		out := opMust(t, srv, token, "incident", "edit", id, "--subject", "Website down", "--tag", "web", "--tag", "edge",
			"--component", "Database", "--impact-seconds", "600")
		opMatch(t, "incident edit", out, `^changed incident `+id+` "Website down" \(investigating\) on Database\n$`)
		n := pubNotice(id)
		assertJSON(t, "edited incident", obj{"subject": n["subject"], "tag_list": n["tag_list"], "component": at(t, n, "components.0.id"),
			"components": len(n["components"].([]any))},
			obj{"subject": "Website down", "tag_list": []string{"web", "edge"}, "component": 3, "components": 1})
		out, _, err := cliEnv(t, env, "notice", "show", id, "--json")
		var shown map[string]any
		if err != nil || json.Unmarshal([]byte(out), &shown) != nil || shown["impact_seconds"] != 600.0 {
			t.Errorf("impact_seconds after edit: %v %v", err, shown["impact_seconds"])
		}
		opMust(t, srv, token, "incident", "edit", id, "--no-tags", "--no-impact-override")
		if n := pubNotice(id); len(n["tag_list"].([]any)) != 0 {
			t.Errorf("tags after --no-tags: %v", n["tag_list"])
		}

		// The generic notice commands: resolve, reopen, remove.
		opMatch(t, "notice update", opMust(t, srv, token, "notice", "update", id, "--state", "resolved", "-m", "Up."),
			`^updated incident `+id+` "Website down" \(resolved\) on Database\n$`)
		opMatch(t, "notice reopen", opMust(t, srv, token, "notice", "reopen", id, "-m", "Down again."),
			`^reopened incident `+id+` "Website down" \(investigating\) on Database\n$`)
		assertJSON(t, "reopened", opUpdates(t, pubNotice(id)), [][2]string{{"investigating", "Down."}, {"resolved", "Up."}, {"investigating", "Down again."}})
		opMatch(t, "notice rm", opMust(t, srv, token, "notice", "rm", id), `^removed incident `+id+` "Website down"\n$`)
		assertErrorBody(t, "removed notice", srv.do("GET", "/api/v1/notices/"+id), 404, "not_found")
		if _, _, err := opCLI(t, srv, token, "notice", "rm", id); exitCode(err) != exitCodeNotFound {
			t.Errorf("notice rm twice: exit %d (%v), want 4", exitCode(err), err)
		}
	})

	t.Run("maintenance", func(t *testing.T) {
		out := opMust(t, srv, token, "maintenance", "schedule", "--subject", "Upgrade", "--begins", "+1h", "--ends", "+2h")
		id := opMatch(t, "schedule", out, `^scheduled maintenance (\d+) `)
		before := time.Now()
		out = opMust(t, srv, token, "maintenance", "reschedule", id, "--begins", "+3h", "--ends", "+4h", "--automate")
		after := time.Now()
		opMatch(t, "reschedule", out, `^changed maintenance `+id+` "Upgrade" \(scheduled\)\n  from \S+ to \S+ \(automated: true\)\n$`)
		n := pubNotice(id)
		opWithin(t, "rescheduled begins_at", opParseTS(t, n["begins_at"]), before.Add(3*time.Hour), after.Add(3*time.Hour))
		opWithin(t, "rescheduled ends_at", opParseTS(t, n["ends_at"]), before.Add(4*time.Hour), after.Add(4*time.Hour))
		out = opMust(t, srv, token, "maintenance", "update", id, "--state", "underway", "-m", "Started early.")
		opMatch(t, "maintenance update", out, `^updated maintenance `+id+` "Upgrade" \(underway\)\n$`)
		n = pubNotice(id)
		if n["state"] != "underway" || n["timeline_state"] != "present" {
			t.Errorf("after maintenance update: %v %v, want underway, present", n["state"], n["timeline_state"])
		}
	})

	t.Run("announcement", func(t *testing.T) {
		id := opMatch(t, "announce", opMust(t, srv, token, "announce", "-m", "New office. Come by."), `^announced notice (\d+) "New office" \(present, until removed\)\n$`)
		opMatch(t, "withdraw", opMust(t, srv, token, "announcement", "withdraw", id), `^withdrew notice `+id+` "New office" \(past_recent, expires \S+\)\n$`)
		if n := pubNotice(id); n["timeline_state"] != "past_recent" {
			t.Errorf("withdrawn announcement is %v, want past_recent", n["timeline_state"])
		}
		// Only an announcement can be withdrawn: notice 50 is an incident.
		if _, _, err := opCLI(t, srv, token, "announcement", "withdraw", "50"); exitCode(err) != exitCodeRefused ||
			!strings.Contains(err.Error(), "only general notices") {
			t.Errorf("withdraw an incident: exit %d (%v), want 5", exitCode(err), err)
		}
	})

	t.Run("audit", func(t *testing.T) {
		out, stderr, err := cliEnv(t, env, "audit")
		if err != nil {
			t.Fatalf("audit: %v\n%s", err, stderr)
		}
		// Newest first: the withdrawal, then the announcement.
		opMatch(t, "audit", out, `^TIME\s+ACTOR\s+ACTION\s+TARGET\s+DETAIL\n\S+\s+ops\s+notice\.update\s+notice \d+\s+changed New office\n\S+\s+ops\s+notice\.create\s+notice \d+\s+general: New office\n`)
		out, _, err = cliEnv(t, env, "audit", "--json")
		var a struct {
			Audit []statusd.AdminAuditEntry `json:"audit"`
		}
		if err != nil || json.Unmarshal([]byte(out), &a) != nil || len(a.Audit) == 0 || a.Audit[0].Action != "notice.update" {
			t.Errorf("audit --json: %v\n%s", err, out)
		}
	})

	t.Run("usage", func(t *testing.T) {
		for _, args := range [][]string{
			{"notice", "edit", "50"},
			{"component", "edit", "API"},
			{"page", "edit"},
			{"incident", "edit", "50", "--tag", "x", "--no-tags"},
			{"maintenance", "reschedule", "50", "--expires", "+1h"}, // not a flag of maintenance
			{"audit", "--db", srv.DB, "--json"},
		} {
			if _, _, err := opCLI(t, srv, token, args...); exitCode(err) != exitCodeUsage {
				t.Errorf("%q: exit %d (%v), want 2", args, exitCode(err), err)
			}
		}
	})
}
