package main

import (
	"encoding/json"
	"fmt"
	"net"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/internal/testserver"
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
			CreatedAt: testserver.PageCreated, UpdatedAt: testserver.PageCreated}
	}
	d3 := now.Add(-72 * time.Hour)
	return &statusd.Document{
		Page: statusd.Page{Name: "Ops Status", URL: "https://status.ops.test", CreatedAt: testserver.PageCreated, UpdatedAt: testserver.PageCreated},
		Components: []statusd.Component{
			comp(1, nil, 1, "Website"), comp(2, nil, 2, "API"), comp(3, nil, 3, "Database"), comp(4, testserver.Ptr(int64(3)), 4, "Replica"),
		},
		Notices: []statusd.Notice{
			{ID: 50, Type: statusd.Unplanned, Subject: "API errors", ComponentIDs: []int64{2}, TagList: []string{},
				CreatedAt: d3, UpdatedAt: d3.Add(time.Hour), Updates: []statusd.Update{
					testserver.Upd(statusd.Investigating, d3, "Errors."), testserver.Upd(statusd.Resolved, d3.Add(time.Hour), "Fixed.")}},
			{ID: 60, Type: statusd.General, Subject: "Welcome", ComponentIDs: []int64{}, TagList: []string{},
				CreatedAt: d3, UpdatedAt: d3, Updates: []statusd.Update{testserver.Upd("", d3, "Our status page.")}},
		},
	}
}

// opSetup starts a server with doc and returns it with a fresh admin token.
func opSetup(t *testing.T, doc any) (*testserver.Server, string) {
	t.Helper()
	srv := startServer(t, doc)
	return srv, newToken(t, srv.DB, "ops")
}

// opCLI runs an operator command against srv with token.
func opCLI(t *testing.T, srv *testserver.Server, token string, args ...string) (string, string, error) {
	t.Helper()
	return cliEnv(t, nil, append(args, "--url", srv.URL, "--token", token)...)
}

// opMust runs an operator command that must succeed and returns its stdout.
func opMust(t *testing.T, srv *testserver.Server, token string, args ...string) string {
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
	comps          map[int64]string // component id -> state
	notice         *statusd.NoticeDetail
}

// opRead reads the public API of srv, through the SDK, and the notice
// noticeID unless it is "".
func opRead(t *testing.T, srv *testserver.Server, noticeID string) opPublic {
	t.Helper()
	srv = srv.In(t)
	status := srv.Status()
	p := opPublic{page: status.State, pageText: status.StateText, comps: srv.ComponentStates()}
	if noticeID != "" {
		id, err := strconv.ParseInt(noticeID, 10, 64)
		if err != nil {
			t.Fatalf("notice id %q: %v", noticeID, err)
		}
		p.notice = srv.Notice(id)
	}
	return p
}

// opCheckPage checks the page state and every component's state.
func opCheckPage(t *testing.T, step string, p opPublic, page, text string, comps map[string]string) {
	t.Helper()
	if p.page != page || p.pageText != text {
		t.Errorf("%s: page state %q %q, want %q %q", step, p.page, p.pageText, page, text)
	}
	testserver.AssertJSON(t, step+": component states", p.comps, comps)
}

// opUpdates returns a notice's updates as [state, content] pairs.
func opUpdates(n *statusd.NoticeDetail) [][2]string {
	var out [][2]string
	for _, u := range n.Updates {
		state := ""
		if u.State != nil {
			state = *u.State
		}
		out = append(out, [2]string{state, u.Content})
	}
	return out
}

// opUpdateAt is when update i of n was posted; the test fails when n has
// no such update.
func opUpdateAt(t *testing.T, n *statusd.NoticeDetail, i int) time.Time {
	t.Helper()
	if i >= len(n.Updates) {
		t.Fatalf("notice %d has %d updates, no update %d", n.ID, len(n.Updates), i)
	}
	return n.Updates[i].CreatedAt.Time
}

// opTime is a timestamp of a notice; the test fails when it is null or
// absent.
func opTime(t *testing.T, what string, tm *statusd.Time) time.Time {
	t.Helper()
	if tm == nil {
		t.Fatalf("%s is null or absent", what)
	}
	return tm.Time
}

// opComponents are the names of the components a notice lists.
func opComponents(n *statusd.NoticeDetail) []string {
	names := []string{}
	for _, c := range n.Components {
		names = append(names, c.Name)
	}
	return names
}

func TestOperatorIncidentLifecycle(t *testing.T) {
	srv, token := opSetup(t, opDoc(time.Now()))
	allOK := map[string]string{"1": "operational", "2": "operational", "3": "operational", "4": "operational"}
	var id, msg1, msg2 string
	var opened time.Time

	testserver.Step(t, "before anything happens, everything is operational", func(t *testing.T) {
		opCheckPage(t, "before", opRead(t, srv, ""), "operational", "All systems operational", allOK)
	})

	testserver.Step(t, "an incident opened on a component named in another case is current, its subject the first sentence", func(t *testing.T) {
		msg1 = "Replica lag is growing. We are looking into it."
		before := time.Now()
		out := opMust(t, srv, token, "incident", "open", "--component", "replica", "-m", msg1, "--tag", "db")
		after := time.Now()
		id = opMatch(t, "open", out, `^opened incident (\d+) "Replica lag is growing" \(investigating\) on Replica\n$`)

		// A current incident on Replica: the page is degraded, Replica and
		// its parent Database (CONTRACT C3), the notice present.
		p := opRead(t, srv, id)
		opCheckPage(t, "open", p, "degraded", "Some systems are degraded",
			map[string]string{"1": "operational", "2": "operational", "3": "degraded", "4": "degraded"})
		n := p.notice
		testserver.AssertJSON(t, "open: notice", testserver.Obj{"type": n.Type, "timeline_state": n.TimelineState, "state": n.State,
			"subject": n.Subject, "ended_at": n.EndedAt, "tag_list": n.TagList, "components": opComponents(n)},
			testserver.Obj{"type": "unplanned", "timeline_state": "present", "state": "investigating", "subject": "Replica lag is growing",
				"ended_at": nil, "tag_list": []string{"db"}, "components": []string{"Replica"}})
		testserver.AssertJSON(t, "open: updates", opUpdates(n), [][2]string{{"investigating", msg1}})
		opened = opUpdateAt(t, n, 0)
		testserver.Within(t, "open: first update", opened, before, after)
		testserver.AssertJSON(t, "open: began_at and created_at, the first update's time", []any{n.BeganAt, n.CreatedAt}, []string{testserver.TS(opened), testserver.TS(opened)})
	})

	testserver.Step(t, "identified is still current: only the notice's state changes", func(t *testing.T) {
		msg2 = "A full disk; adding space."
		before := time.Now()
		out := opMust(t, srv, token, "incident", "update", id, "--state", "identified", "-m", msg2)
		after := time.Now()
		opMatch(t, "update", out, `^updated incident `+id+` "Replica lag is growing" \(identified\) on Replica\n$`)
		p := opRead(t, srv, id)
		opCheckPage(t, "identified", p, "degraded", "Some systems are degraded",
			map[string]string{"1": "operational", "2": "operational", "3": "degraded", "4": "degraded"})
		n := p.notice
		testserver.AssertJSON(t, "identified: notice", testserver.Obj{"timeline_state": n.TimelineState, "state": n.State, "ended_at": n.EndedAt,
			"began_at": n.BeganAt},
			testserver.Obj{"timeline_state": "present", "state": "identified", "ended_at": nil, "began_at": testserver.TS(opened)})
		testserver.AssertJSON(t, "identified: updates", opUpdates(n), [][2]string{{"investigating", msg1}, {"identified", msg2}})
		testserver.Within(t, "identified: update", opUpdateAt(t, n, 1), before, after)
	})

	testserver.Step(t, "once resolved nothing is current, and the notice ended at the resolving update", func(t *testing.T) {
		// It is past_recent.
		msg3 := "Replica caught up."
		before := time.Now()
		out := opMust(t, srv, token, "incident", "resolve", id, "-m", msg3)
		after := time.Now()
		opMatch(t, "resolve", out, `^resolved incident `+id+` "Replica lag is growing" \(resolved\) on Replica\n$`)
		p := opRead(t, srv, id)
		opCheckPage(t, "resolved", p, "operational", "All systems operational", allOK)
		n := p.notice
		testserver.AssertJSON(t, "resolved: updates", opUpdates(n), [][2]string{{"investigating", msg1}, {"identified", msg2}, {"resolved", msg3}})
		resolved := opUpdateAt(t, n, 2)
		testserver.Within(t, "resolved: update", resolved, before, after)
		testserver.AssertJSON(t, "resolved: notice", testserver.Obj{"timeline_state": n.TimelineState, "state": n.State, "ended_at": n.EndedAt,
			"began_at": n.BeganAt, "updated_at": n.UpdatedAt},
			testserver.Obj{"timeline_state": "past_recent", "state": "resolved", "ended_at": testserver.TS(resolved), "began_at": testserver.TS(opened), "updated_at": testserver.TS(resolved)})
	})

	testserver.Step(t, "notice show and notice list say the same", func(t *testing.T) {
		out := opMust(t, srv, token, "notice", "show", id)
		for _, want := range []string{"incident " + id, "Replica lag is growing", "resolved (past_recent)", "Replica (4, operational)", "Replica caught up."} {
			if !strings.Contains(out, want) {
				t.Errorf("notice show: %q missing in\n%s", want, out)
			}
		}
		out = opMust(t, srv, token, "notice", "list")
		opMatch(t, "notice list", out, `(?m)^ID\s+TYPE\s+STATE\s+TIMELINE\s+UPDATED\s+SUBJECT\n`+id+`\s+unplanned\s+resolved\s+past_recent\s+\S+\s+Replica lag is growing$`)
	})
}

func TestOperatorMaintenanceLifecycle(t *testing.T) {
	srv, token := opSetup(t, opDoc(time.Now()))
	allOK := map[string]string{"1": "operational", "2": "operational", "3": "operational", "4": "operational"}
	var id string
	var begins, ends, began time.Time

	// poll reads the public API every 100 ms until the notice leaves state
	// from, failing after the deadline. Once it has, it reads everything
	// again: the status read before the notice may predate the change.
	poll := func(t *testing.T, from string, deadline time.Time) opPublic {
		t.Helper()
		for {
			p := opRead(t, srv, id)
			if testserver.Value(p.notice.State) != from {
				return opRead(t, srv, id)
			}
			if time.Now().After(deadline) {
				t.Fatalf("notice %s still %s at %s", id, from, testserver.TS(time.Now()))
			}
			time.Sleep(100 * time.Millisecond)
		}
	}

	testserver.Step(t, "a scheduled maintenance is in the future, and nothing is under maintenance yet", func(t *testing.T) {
		before := time.Now()
		out := opMust(t, srv, token, "maintenance", "schedule", "--subject", "Database upgrade", "--begins", "+2s", "--ends", "+4s",
			"--automate", "--component", "database")
		after := time.Now()
		id = opMatch(t, "schedule", out, `^scheduled maintenance (\d+) "Database upgrade" \(scheduled, automated\) from \S+ to \S+ on Database\n$`)
		p := opRead(t, srv, id)
		opCheckPage(t, "scheduled", p, "operational", "All systems operational", allOK)
		n := p.notice
		testserver.AssertJSON(t, "scheduled: notice", testserver.Obj{"type": n.Type, "timeline_state": n.TimelineState, "state": n.State,
			"began_at": n.BeganAt, "ended_at": n.EndedAt},
			testserver.Obj{"type": "planned", "timeline_state": "future", "state": "scheduled", "began_at": nil, "ended_at": nil})
		testserver.AssertJSON(t, "scheduled: updates", opUpdates(n), [][2]string{{"scheduled", "Scheduled maintenance."}})
		begins, ends = opTime(t, "begins_at", n.BeginsAt), opTime(t, "ends_at", n.EndsAt)
		testserver.Within(t, "begins_at", begins, before.Add(2*time.Second), after.Add(2*time.Second))
		testserver.Within(t, "ends_at", ends, before.Add(4*time.Second), after.Add(4*time.Second))
	})

	testserver.Step(t, "at begins_at it is underway: Database under maintenance, its child Replica not", func(t *testing.T) {
		// Within a second; the page is under maintenance.
		p := poll(t, "scheduled", begins.Add(3*time.Second))
		opCheckPage(t, "underway", p, "under_maintenance", "Maintenance is underway",
			map[string]string{"1": "operational", "2": "operational", "3": "under_maintenance", "4": "operational"})
		n := p.notice
		began = opTime(t, "began_at", n.BeganAt.Value)
		testserver.Within(t, "began_at", began, begins, begins.Add(time.Second))
		testserver.AssertJSON(t, "underway: updates", opUpdates(n),
			[][2]string{{"scheduled", "Scheduled maintenance."}, {"underway", "The scheduled maintenance has begun."}})
		testserver.AssertJSON(t, "underway: notice", testserver.Obj{"timeline_state": n.TimelineState, "state": n.State, "ended_at": n.EndedAt,
			"began_at": n.BeganAt},
			testserver.Obj{"timeline_state": "present", "state": "underway", "ended_at": nil, "began_at": testserver.TS(opUpdateAt(t, n, 1))})
	})

	testserver.Step(t, "at ends_at it is complete, past_recent, and everything is operational again", func(t *testing.T) {
		p := poll(t, "underway", ends.Add(3*time.Second))
		opCheckPage(t, "complete", p, "operational", "All systems operational", allOK)
		n := p.notice
		testserver.Within(t, "ended_at", opTime(t, "ended_at", n.EndedAt.Value), ends, ends.Add(time.Second))
		testserver.AssertJSON(t, "complete: updates", opUpdates(n), [][2]string{{"scheduled", "Scheduled maintenance."},
			{"underway", "The scheduled maintenance has begun."}, {"complete", "The scheduled maintenance is complete."}})
		testserver.AssertJSON(t, "complete: notice", testserver.Obj{"timeline_state": n.TimelineState, "state": n.State, "ended_at": n.EndedAt,
			"began_at": n.BeganAt},
			testserver.Obj{"timeline_state": "past_recent", "state": "complete", "ended_at": testserver.TS(opUpdateAt(t, n, 2)), "began_at": testserver.TS(began)})
	})

	testserver.Step(t, "by hand: scheduled, started, completed, and then cancel is refused", func(t *testing.T) {
		out := opMust(t, srv, token, "maintenance", "schedule", "--subject", "Website move", "--begins", "+1h", "--ends", "+2h")
		id2 := opMatch(t, "schedule", out, `^scheduled maintenance (\d+) "Website move" \(scheduled\) from \S+ to \S+\n$`)
		opMatch(t, "start", opMust(t, srv, token, "maintenance", "start", id2), `^started maintenance `+id2+` "Website move" \(underway\)\n$`)
		opMatch(t, "complete", opMust(t, srv, token, "maintenance", "complete", id2, "-m", "Moved."), `^completed maintenance `+id2+` "Website move" \(complete\)\n$`)
		if _, _, err := opCLI(t, srv, token, "maintenance", "cancel", id2); exitCode(err) != exitCodeRefused ||
			!strings.Contains(err.Error(), "final") {
			t.Errorf("cancel after complete: exit %d, %v; want 5 saying complete is final", exitCode(err), err)
		}
		n := opRead(t, srv, id2).notice
		testserver.AssertJSON(t, "by hand: updates", opUpdates(n), [][2]string{{"scheduled", "Scheduled maintenance."},
			{"underway", "The scheduled maintenance has begun."}, {"complete", "Moved."}})
	})
}

func TestOperatorExitCodes(t *testing.T) {
	srv, token := opSetup(t, opDoc(time.Now()))
	var id string
	testserver.Step(t, "an incident opened and resolved", func(t *testing.T) {
		out := opMust(t, srv, token, "incident", "open", "--component", "API", "-m", "Errors!")
		id = opMatch(t, "open", out, `^opened incident (\d+) "Errors" \(investigating\) on API\n$`)
		opMust(t, srv, token, "incident", "resolve", id, "-m", "Fixed.")
	})

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
		{"resolved again", nil, []string{"incident", "resolve", id, "-m", "Fixed.", "--url", srv.URL, "--token", token}, exitCodeRefused,
			[]string{"refused by the server", "is already resolved", "nothing was posted and no one was notified"}},
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

	testserver.Step(t, "the refused update changed nothing; reopen is the way back", func(t *testing.T) {
		n := opRead(t, srv, id).notice
		if testserver.Value(n.State) != "resolved" || len(n.Updates) != 2 {
			t.Fatalf("after the refused update: state %q with %d updates, want resolved with 2", testserver.Value(n.State), len(n.Updates))
		}
		opMatch(t, "reopen", opMust(t, srv, token, "incident", "reopen", id, "-m", "Back."), `^reopened incident `+id+` "Errors" \(investigating\) on API\n$`)
	})

	testserver.Step(t, "--json prints the server's answer for reads and writes", func(t *testing.T) {
		// Valid JSON; the environment supplies the URL and token.
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
				var n statusd.AdminNotice
				if err := json.Unmarshal([]byte(out), &n); err != nil {
					t.Fatalf("announce --json is not a notice: %v\n%s", err, out)
				}
				testserver.AssertJSON(t, "announce --json", testserver.Obj{"type": n.Type, "subject": n.Subject, "timeline_state": n.TimelineState},
					testserver.Obj{"type": "general", "subject": "New page", "timeline_state": "present"})
			}
		}
		out, _, _ := cliEnv(t, env, "notice", "show", id, "--json")
		var shown statusd.AdminNotice
		json.Unmarshal([]byte(out), &shown)
		if fmt.Sprint(shown.ID) != id || testserver.Value(shown.State) != "identified" || len(shown.Updates) != 4 {
			t.Errorf("notice show --json: id %v state %q with %d updates, want %s identified with 4 updates", shown.ID, testserver.Value(shown.State), len(shown.Updates), id)
		}
	})
}

func TestOperatorComponents(t *testing.T) {
	srv, token := opSetup(t, opDoc(time.Now()))
	// comps returns the public components as "id name parent position".
	comps := func(t *testing.T) []string {
		t.Helper()
		var out []string
		for _, c := range srv.In(t).Components().Components {
			parent := "-"
			if c.ParentID != nil {
				parent = fmt.Sprint(*c.ParentID)
			}
			out = append(out, fmt.Sprintf("%d %s %s %d", c.ID, c.Name, parent, c.Position))
		}
		return out
	}
	var cache string

	testserver.Step(t, "add under a parent named in another case, at a position", func(t *testing.T) {
		out := opMust(t, srv, token, "component", "add", "Cache", "--key", "cache", "--description", "Redis", "--parent", "DATABASE", "--position", "4", "--metrics")
		cache = opMatch(t, "add", out, `^added component (\d+) "Cache" under "Database" \(3\), position 4\n$`)
		testserver.AssertJSON(t, "after add", comps(t), []string{"1 Website - 1", "2 API - 2", "3 Database - 3", cache + " Cache 3 4", "4 Replica 3 5"})
	})

	testserver.Step(t, "list shows every component", func(t *testing.T) {
		out := opMust(t, srv, token, "component", "list")
		opMatch(t, "list", out, `(?m)^ID\s+NAME\s+KEY\s+STATE\s+PARENT\s+POS\s+METRICS\s+DESCRIPTION\n1\s+Website\s+-\s+operational\s+-\s+1\s+off\s+Website service$`)
		opMatch(t, "list", out, `(?m)^`+cache+`\s{3,}Cache\s+cache\s+operational\s+3\s+4\s+on\s+Redis$`)
	})

	testserver.Step(t, "a key names a component, is refused when taken, and --key \"\" clears it", func(t *testing.T) {
		opMatch(t, "edit", opMust(t, srv, token, "component", "edit", "Cache", "--key", "redis"), `^changed component `+cache+` "Cache" `)
		opMatch(t, "show", opMust(t, srv, token, "component", "show", "redis"), `(?m)^component `+cache+`\s+Cache\nkey\s+redis\n`)
		_, _, err := opCLI(t, srv, token, "component", "add", "Redis", "--key", "redis")
		if err == nil || !strings.Contains(err.Error(), `key: "redis" is the key of component `+cache) {
			t.Errorf("add with a taken key: %v, want refused naming the component that has it", err)
		}
		opMust(t, srv, token, "component", "edit", "redis", "--key", "")
		opMatch(t, "list", opMust(t, srv, token, "component", "list"), `(?m)^`+cache+`\s{3,}Cache\s+-\s+operational\s`)
		testserver.AssertJSON(t, "after the refused add", comps(t), []string{"1 Website - 1", "2 API - 2", "3 Database - 3", cache + " Cache 3 4", "4 Replica 3 5"})
	})

	testserver.Step(t, "move by name, under a parent and to the top", func(t *testing.T) {
		// Under Website first (without a position it joins Website's
		// group, right after it), then to the top at position 1.
		out := opMust(t, srv, token, "component", "move", "cache", "--parent", "website")
		opMatch(t, "move", out, `^moved component `+cache+` "Cache" under "Website" \(1\), position 2\n$`)
		out = opMust(t, srv, token, "component", "move", "Cache", "--top", "--position", "1")
		opMatch(t, "move", out, `^moved component `+cache+` "Cache" at the top level, position 1\n$`)
		testserver.AssertJSON(t, "after move", comps(t), []string{cache + " Cache - 1", "1 Website - 2", "2 API - 3", "3 Database - 4", "4 Replica 3 5"})
		if _, _, err := opCLI(t, srv, token, "component", "move", "Cache", "--top", "--parent", "API"); exitCode(err) != exitCodeUsage {
			t.Errorf("move with --top and --parent: exit %d, want 2", exitCode(err))
		}
	})

	testserver.Step(t, "an ambiguous name is refused, listing each component it could be; an id never is", func(t *testing.T) {
		// A second "api": the error lists both.
		out := opMust(t, srv, token, "component", "add", "api", "--parent", "Database")
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
		opMatch(t, "rm", opMust(t, srv, token, "component", "rm", api2), `^removed component `+api2+` "api"\n$`)
		opMatch(t, "rm", opMust(t, srv, token, "component", "rm", "cache"), `^removed component `+cache+` "Cache"\n$`)
		testserver.AssertJSON(t, "after rm", comps(t), []string{"1 Website - 1", "2 API - 2", "3 Database - 3", "4 Replica 3 4"})
	})

	testserver.Step(t, "a parent goes only with --recursive, and takes its subtree along", func(t *testing.T) {
		if _, _, err := opCLI(t, srv, token, "component", "rm", "Database"); exitCode(err) != exitCodeRefused {
			t.Fatalf("rm Database: exit %d (%v), want 5", exitCode(err), err)
		}
		testserver.AssertJSON(t, "after the refused rm", comps(t), []string{"1 Website - 1", "2 API - 2", "3 Database - 3", "4 Replica 3 4"})
		out := opMust(t, srv, token, "component", "rm", "database", "--recursive")
		opMatch(t, "rm --recursive", out, `^removed component 3 "Database" and the 1 component\(s\) below it\n$`)
		testserver.AssertJSON(t, "after rm --recursive", comps(t), []string{"1 Website - 1", "2 API - 2"})
	})

	testserver.Step(t, "a component listed by a notice goes only with --detach, which takes it out of the notice", func(t *testing.T) {
		// API is listed by incident 50.
		_, _, err := opCLI(t, srv, token, "component", "rm", "API")
		if exitCode(err) != exitCodeRefused {
			t.Fatalf("rm API: exit %d (%v), want 5", exitCode(err), err)
		}
		for _, want := range []string{`component 2 is listed by notice 50 ("API errors")`, "--detach"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("rm API: error %q does not say %q", err, want)
			}
		}
		testserver.AssertJSON(t, "after the refused rm of API", comps(t), []string{"1 Website - 1", "2 API - 2"})
		out := opMust(t, srv, token, "component", "rm", "API", "--detach")
		opMatch(t, "rm --detach", out, `^removed component 2 "API"\n$`)
		testserver.AssertJSON(t, "after rm --detach", comps(t), []string{"1 Website - 1"})
		testserver.AssertJSON(t, "notice 50 after rm --detach", srv.In(t).Notice(50).Components, []any{})
	})
}

// TestOperatorCoversTheAdminAPI: the commands added so that every admin
// route has one, each checked through the public API afterwards.
func TestOperatorCoversTheAdminAPI(t *testing.T) {
	srv, token := opSetup(t, opDoc(time.Now()))
	env := map[string]string{"STATUSD_URL": srv.URL, "STATUSD_TOKEN": token}
	// pubNotice is the public view of notice id.
	pubNotice := func(t *testing.T, id string) *statusd.NoticeDetail {
		t.Helper()
		return opRead(t, srv, id).notice
	}

	t.Run("page", func(t *testing.T) {
		out := opMust(t, srv, token, "page", "edit", "--name", "Ops Status 2", "--degraded-text", "Partly down")
		opMatch(t, "page edit", out, `(?m)^name\s+Ops Status 2$`)
		opMatch(t, "page edit", out, `(?m)^degraded text\s+Partly down$`)
		opMatch(t, "page edit", out, `(?m)^operational text\s+All systems operational$`)
		if p := srv.In(t).Status(); p.Name != "Ops Status 2" || p.URL != "https://status.ops.test" {
			t.Errorf("public page %+v", p)
		}
		opMatch(t, "page show", opMust(t, srv, token, "page", "show"), `(?m)^components\s+4$`)
		// --json is the server's answer, byte for byte.
		out, _, err := cliEnv(t, env, "page", "show", "--json")
		if want := srv.In(t).Authed("GET", testserver.AdminRoot+"/page", token, "").Body; err != nil || out != string(want)+"\n" {
			t.Errorf("page show --json: %v\n%s\nwant\n%s", err, out, want)
		}
	})

	t.Run("component", func(t *testing.T) {
		out := opMust(t, srv, token, "component", "edit", "api", "--name", "Public API", "--description", "REST", "--metrics")
		opMatch(t, "component edit", out, `^changed component 2 "Public API" at the top level, position 2\n$`)
		c := srv.In(t).Component(2)
		if c.Name != "Public API" || c.Description != "REST" || c.MetricsSummary.Value == nil {
			t.Errorf("public component 2 %+v, want renamed, described, with metrics", testserver.Normalize(t, c))
		}
		out = opMust(t, srv, token, "component", "show", "public api")
		for _, re := range []string{`(?m)^component 2\s+Public API$`, `(?m)^description\s+REST$`, `(?m)^metrics\s+true$`} {
			opMatch(t, "component show", out, re)
		}
		opMust(t, srv, token, "component", "edit", "2", "--metrics=false")
		if c := srv.In(t).Component(2); c.MetricsSummary.Value != nil || c.Name != "Public API" {
			t.Errorf("after --metrics=false: %+v", testserver.Normalize(t, c))
		}
	})

	t.Run("incident", func(t *testing.T) {
		id := opMatch(t, "open", opMust(t, srv, token, "incident", "open", "--component", "Website", "-m", "Down."), `^opened incident (\d+) `)
		out := opMust(t, srv, token, "incident", "edit", id, "--subject", "Website down", "--tag", "web", "--tag", "edge",
			"--component", "Database", "--impact-seconds", "600")
		opMatch(t, "incident edit", out, `^changed incident `+id+` "Website down" \(investigating\) on Database\n$`)
		n := pubNotice(t, id)
		var comps []int64
		for _, c := range n.Components {
			comps = append(comps, c.ID)
		}
		testserver.AssertJSON(t, "edited incident", testserver.Obj{"subject": n.Subject, "tag_list": n.TagList, "components": comps},
			testserver.Obj{"subject": "Website down", "tag_list": []string{"web", "edge"}, "components": []int64{3}})
		out, _, err := cliEnv(t, env, "notice", "show", id, "--json")
		var shown statusd.AdminNotice
		if err != nil || json.Unmarshal([]byte(out), &shown) != nil || shown.ImpactSeconds.Value == nil || *shown.ImpactSeconds.Value != 600 {
			t.Errorf("impact_seconds after edit: %v %v", err, testserver.Normalize(t, shown.ImpactSeconds))
		}
		opMust(t, srv, token, "incident", "edit", id, "--no-tags", "--no-impact-override")
		if n := pubNotice(t, id); len(n.TagList) != 0 {
			t.Errorf("tags after --no-tags: %v", n.TagList)
		}

		// The generic notice commands: resolve, reopen, remove.
		opMatch(t, "notice update", opMust(t, srv, token, "notice", "update", id, "--state", "resolved", "-m", "Up."),
			`^updated incident `+id+` "Website down" \(resolved\) on Database\n$`)
		opMatch(t, "notice reopen", opMust(t, srv, token, "notice", "reopen", id, "-m", "Down again."),
			`^reopened incident `+id+` "Website down" \(investigating\) on Database\n$`)
		testserver.AssertJSON(t, "reopened", opUpdates(pubNotice(t, id)), [][2]string{{"investigating", "Down."}, {"resolved", "Up."}, {"investigating", "Down again."}})
		opMatch(t, "notice rm", opMust(t, srv, token, "notice", "rm", id), `^removed incident `+id+` "Website down"\n$`)
		testserver.AssertErrorBody(t, "removed notice", srv.In(t).Do("GET", "/api/v1/notices/"+id), 404, "not_found")
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
		n := pubNotice(t, id)
		testserver.Within(t, "rescheduled begins_at", opTime(t, "begins_at", n.BeginsAt), before.Add(3*time.Hour), after.Add(3*time.Hour))
		testserver.Within(t, "rescheduled ends_at", opTime(t, "ends_at", n.EndsAt), before.Add(4*time.Hour), after.Add(4*time.Hour))
		out = opMust(t, srv, token, "maintenance", "update", id, "--state", "underway", "-m", "Started early.")
		opMatch(t, "maintenance update", out, `^updated maintenance `+id+` "Upgrade" \(underway\)\n$`)
		n = pubNotice(t, id)
		if testserver.Value(n.State) != "underway" || n.TimelineState != "present" {
			t.Errorf("after maintenance update: %q %q, want underway, present", testserver.Value(n.State), n.TimelineState)
		}
	})

	t.Run("announcement", func(t *testing.T) {
		id := opMatch(t, "announce", opMust(t, srv, token, "announce", "-m", "New office. Come by."), `^announced notice (\d+) "New office" \(present, until removed\)\n$`)
		opMatch(t, "withdraw", opMust(t, srv, token, "announcement", "withdraw", id), `^withdrew notice `+id+` "New office" \(past_recent, expires \S+\)\n$`)
		if n := pubNotice(t, id); n.TimelineState != "past_recent" {
			t.Errorf("withdrawn announcement is %v, want past_recent", n.TimelineState)
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
