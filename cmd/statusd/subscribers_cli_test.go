package main

// The operator commands of subscriptions: statusd subscriber, statusd
// deliveries, and --no-notify on the commands that publish.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/client"
	"github.com/statusd/statusd/internal/testserver"
)

// The subscription commands join the table of every command, whose help
// and usage errors TestCLIHelpAndUsageExitCodes checks.
func init() {
	cliCommands = append(cliCommands, []struct {
		path []string
		bad  []string
	}{
		{[]string{"subscriber"}, []string{"subscribe"}},
		{[]string{"subscriber", "add"}, []string{"--address", "ann@example.com"}}, // no --channel
		{[]string{"subscriber", "list"}, []string{"--page", "0"}},
		{[]string{"subscriber", "show"}, nil},
		{[]string{"subscriber", "set"}, []string{"1"}}, // nothing to change
		{[]string{"subscriber", "reactivate"}, []string{"--id", "x"}},
		{[]string{"subscriber", "remove"}, []string{"x"}},
		{[]string{"subscriber", "test"}, []string{"1", "2"}},
		{[]string{"deliveries"}, []string{"--subscriber", "abc"}},
	}...)
}

// subCLI runs a command against srv with token and returns its stdout,
// stderr and exit code.
func subCLI(t *testing.T, srv *testserver.Server, token string, args ...string) (string, string, int) {
	t.Helper()
	return cliRun(t, nil, append(args, "--url", srv.URL, "--token", token)...)
}

// subCLIOK runs a command that must succeed and returns its stdout.
func subCLIOK(t *testing.T, srv *testserver.Server, token string, args ...string) string {
	t.Helper()
	out, stderr, code := subCLI(t, srv, token, args...)
	if code != 0 {
		t.Fatalf("statusd %s: exit %d\n%s", strings.Join(args, " "), code, stderr)
	}
	return out
}

// subMatch fails unless s matches the regular expression, and returns its
// groups.
func subMatch(t *testing.T, what, s, re string) []string {
	t.Helper()
	m := regexp.MustCompile(re).FindStringSubmatch(s)
	if m == nil {
		t.Fatalf("%s: %q does not match %s", what, s, re)
	}
	return m[1:]
}

func TestCLISubscribers(t *testing.T) {
	srv := startServer(t, testserver.SubDoc(), "--notify-retry-base", "1h")
	tok := newToken(t, srv.DB, "ops")
	st := testserver.OpenStore(t, srv.DB)
	adm := srv.Admin(tok)
	var hook, ann, bob string
	var discord int64
	var inc int64 // the incident of the --no-notify step

	testserver.Step(t, "subscriber add prints a webhook's secret once, and the server's refusals", func(t *testing.T) {
		out := subCLIOK(t, srv, tok, "subscriber", "add", "--channel", "webhook", "--address", "https://hooks.example.com/cli", "--component", "api")
		m := subMatch(t, "add webhook", out, `^added webhook subscriber (\d+) \(active\), following components 2: https://hooks\.example\.com/cli\n`+
			`secret: (whsec_\S+)\nStore this secret now: it signs every delivery \(the webhook-signature header\), and it is not shown again\.\n$`)
		hook = m[0]
		if !testserver.SecretPattern.MatchString(m[1]) {
			t.Errorf("secret %q", m[1])
		}
		out = subCLIOK(t, srv, tok, "subscriber", "add", "--channel", "email", "--address", "ann@example.com", "--confirmed",
			"--component", "Database", "--component", "1")
		ann = subMatch(t, "add confirmed email", out, `^added email subscriber (\d+) \(active\), following components 3, 1: ann@example\.com\n$`)[0]
		out = subCLIOK(t, srv, tok, "subscriber", "add", "--channel", "email", "--address", "bob@example.com")
		bob = subMatch(t, "add email", out, `^added email subscriber (\d+) \(pending\), following the whole page: bob@example\.com\n`+
			`It is sent a confirmation email, and told of notices once the address confirms\.\n$`)[0]
		// --json is the server's answer, with the secret.
		out = subCLIOK(t, srv, tok, "subscriber", "add", "--channel", "discord", "--address", "https://discord.com/api/webhooks/1/x", "--json")
		var s statusd.AdminSubscriber
		if err := json.Unmarshal([]byte(out), &s); err != nil || s.Channel != "discord" || s.State != "active" || s.Secret != "" {
			t.Errorf("add --json: %v %+v\n%s", err, s, out)
		}
		discord = s.ID

		for _, c := range []struct {
			args []string
			code int
			says string
		}{
			{[]string{"--channel", "webhook", "--address", "https://hooks.example.com/cli"}, exitCodeRefused, "refused by the server"},
			{[]string{"--channel", "sms", "--address", "+15550100"}, exitCodeRefused, `channel: "sms" is not email, webhook, slack, teams or discord`},
			{[]string{"--channel", "webhook", "--address", "http://10.0.0.1/x"}, exitCodeRefused, "https"},
			{[]string{"--channel", "email", "--address", "nobody"}, exitCodeRefused, "not an email address"},
			{[]string{"--channel", "email", "--address", "cy@example.com", "--component", "Nope"}, exitCodeNotFound, `"Nope"`},
			{[]string{"--channel", "email"}, exitCodeUsage, "--address"},
			{[]string{"--address", "cy@example.com"}, exitCodeUsage, "--channel"},
		} {
			_, stderr, err := cliEnv(t, nil, append([]string{"subscriber", "add", "--url", srv.URL, "--token", tok}, c.args...)...)
			if code := exitCode(err); code != c.code || !strings.Contains(fmt.Sprint(err), c.says) {
				t.Errorf("subscriber add %q: exit %d (%v), want %d saying %q\n%s", c.args, code, err, c.code, c.says, stderr)
			}
		}
		if _, _, code := subCLI(t, srv, "sdt_wrong", "subscriber", "add", "--channel", "email", "--address", "cy@example.com"); code != exitCodeUnauthorized {
			t.Errorf("add with a wrong token: exit %d, want 3", code)
		}
	})

	testserver.Step(t, "subscriber list and show, filtered and paged", func(t *testing.T) {
		out, stderr, code := subCLI(t, srv, tok, "subscriber", "list")
		if code != 0 {
			t.Fatalf("list: exit %d\n%s", code, stderr)
		}
		lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		subMatch(t, "list header", lines[0], `^ID\s+CHANNEL\s+STATE\s+FOLLOWS\s+CREATED\s+ADDRESS$`)
		if len(lines) != 5 {
			t.Fatalf("list: %d lines, want the header and 4 subscribers:\n%s", len(lines), out)
		}
		subMatch(t, "list hook", lines[1], `^`+hook+`\s+webhook\s+active\s+components 2\s+\S+Z\s+https://hooks\.example\.com/cli$`)
		subMatch(t, "list ann", lines[2], `^`+ann+`\s+email\s+active\s+components 3, 1\s+\S+Z\s+ann@example\.com$`)
		subMatch(t, "list bob", lines[3], `^`+bob+`\s+email\s+pending\s+the whole page\s+\S+Z\s+bob@example\.com$`)
		if stderr != "4 of 4 subscribers (page 1)\n" {
			t.Errorf("list stderr %q", stderr)
		}
		out, stderr, _ = subCLI(t, srv, tok, "subscriber", "list", "--channel", "email", "--state", "pending")
		if strings.Count(out, "\n") != 2 || !strings.Contains(out, "bob@example.com") || stderr != "1 of 1 subscribers (page 1)\n" {
			t.Errorf("list pending email:\n%s%s", out, stderr)
		}
		if out, stderr, _ = subCLI(t, srv, tok, "subscriber", "list", "--page", "2"); strings.Count(out, "\n") != 1 || stderr != "0 of 4 subscribers (page 2)\n" {
			t.Errorf("list page 2:\n%s%s", out, stderr)
		}
		if _, _, code := subCLI(t, srv, tok, "subscriber", "list", "--state", "gone"); code != exitCodeRefused {
			t.Errorf("list --state gone: exit %d, want 5", code)
		}

		out = subCLIOK(t, srv, tok, "subscriber", "show", hook)
		for _, re := range []string{`^subscriber ` + hook + `\s+webhook\n`, `(?m)^address\s+https://hooks\.example\.com/cli$`,
			`(?m)^state\s+active$`, `(?m)^follows\s+components 2$`, `(?m)^created\s+\S+Z$`} {
			subMatch(t, "show", out, re)
		}
		out = subCLIOK(t, srv, tok, "subscriber", "show", hook, "--json")
		if strings.Contains(out, "secret") || strings.Contains(out, "whsec_") {
			t.Errorf("show --json shows the secret: %s", out)
		}
		if _, _, code := subCLI(t, srv, tok, "subscriber", "show", "999"); code != exitCodeNotFound {
			t.Errorf("show 999: exit %d, want 4", code)
		}
	})

	testserver.Step(t, "subscriber set changes the components and sets it active", func(t *testing.T) {
		out := subCLIOK(t, srv, tok, "subscriber", "set", hook, "--component", "Replica", "--component", "Website")
		subMatch(t, "set components", out, `^changed webhook subscriber `+hook+` \(active\), following components 4, 1: https://hooks\.example\.com/cli\n$`)
		out = subCLIOK(t, srv, tok, "subscriber", "set", hook, "--all-components")
		subMatch(t, "set all", out, `^changed webhook subscriber `+hook+` \(active\), following the whole page: `)
		// Quarantined, as the sender leaves it after failing: --active
		// sends to it again.
		id := subAtoi(t, hook)
		if _, err := st.Subscribers().Change(context.Background(), id, func(s *statusd.Subscriber) error {
			s.State = statusd.SubscriberQuarantined
			return nil
		}, nil); err != nil {
			t.Fatal(err)
		}
		subMatch(t, "set --active", subCLIOK(t, srv, tok, "subscriber", "set", hook, "--active"), `^changed webhook subscriber `+hook+` \(active\)`)
		for _, c := range []struct {
			args []string
			code int
		}{
			{[]string{bob, "--active"}, exitCodeRefused}, // pending: it confirms
			{[]string{hook}, exitCodeUsage},
			{[]string{hook, "--component", "API", "--all-components"}, exitCodeUsage},
			{[]string{"x", "--active"}, exitCodeUsage},
			{[]string{"999", "--active"}, exitCodeNotFound},
			{[]string{hook, "--component", "Nope"}, exitCodeNotFound},
		} {
			if _, stderr, code := subCLI(t, srv, tok, append([]string{"subscriber", "set"}, c.args...)...); code != c.code {
				t.Errorf("subscriber set %q: exit %d, want %d\n%s", c.args, code, c.code, stderr)
			}
		}
	})

	testserver.Step(t, "subscriber reactivate sets the quarantined active again, and says how many", func(t *testing.T) {
		// Quarantined, as the sender leaves it: no notice was sent since
		// it was added, so nothing is sent again.
		id := subAtoi(t, hook)
		if _, err := st.Subscribers().Change(context.Background(), id, func(s *statusd.Subscriber) error {
			s.State = statusd.SubscriberQuarantined
			return nil
		}, nil); err != nil {
			t.Fatal(err)
		}
		if out := subCLIOK(t, srv, tok, "subscriber", "reactivate", "--channel", "email"); out != "reactivated 0 subscribers; 0 messages will be sent again\n" {
			t.Errorf("reactivate --channel email: %q", out)
		}
		if out := subCLIOK(t, srv, tok, "subscriber", "reactivate", "--id", hook); out != "reactivated 1 subscribers; 0 messages will be sent again\n" {
			t.Errorf("reactivate --id %s: %q", hook, out)
		}
		if s, err := adm.Subscriber(context.Background(), id); err != nil || s.State != "active" {
			t.Errorf("after reactivate: %+v %v, want active", s, err)
		}
		for _, c := range []struct {
			args []string
			code int
			says string
		}{
			{[]string{"--id", hook}, exitCodeRefused, "is active, not quarantined"},
			{[]string{"--id", "999"}, exitCodeRefused, "ids[0]: no subscriber has id 999"},
			{[]string{"--channel", "sms"}, exitCodeRefused, `channel: "sms" is not email`},
			{[]string{"--id", "0"}, exitCodeUsage, "not a subscriber id"},
			{[]string{"extra"}, exitCodeUsage, "takes no arguments"},
		} {
			_, stderr, err := cliEnv(t, nil, append([]string{"subscriber", "reactivate", "--url", srv.URL, "--token", tok}, c.args...)...)
			if code := exitCode(err); code != c.code || !strings.Contains(fmt.Sprint(err), c.says) {
				t.Errorf("subscriber reactivate %q: exit %d (%v), want %d saying %q\n%s", c.args, code, err, c.code, c.says, stderr)
			}
		}
	})

	testserver.Step(t, "subscriber test sends the message now, and prints its delivery", func(t *testing.T) {
		// To a receiver on 127.0.0.1: a server of its own, with
		// --allow-private-targets (this one refuses such addresses).
		local := startServer(t, testserver.SubDoc(), "--allow-private-targets").In(t)
		ltok := newToken(t, local.DB, "ops")
		recv := testserver.StartReceiver(t)
		out := subCLIOK(t, local, ltok, "subscriber", "add", "--channel", "webhook", "--address", recv.URL+"/cli")
		m := subMatch(t, "add the local webhook", out, `^added webhook subscriber (\d+) \(active\), following the whole page: \S+\nsecret: (whsec_\S+)\n`)
		out = subCLIOK(t, local, ltok, "subscriber", "test", m[0])
		subMatch(t, "test", out, `^test message to subscriber `+m[0]+`: delivery \d+ delivered \(status 204\) at \S+Z\n$`)
		got := recv.Requests()
		if len(got) != 1 || got[0].Path != "/cli" {
			t.Fatalf("the receiver got %d requests, want one POST to /cli: %+v", len(got), got)
		}
		testserver.CheckSigned(t, "the test message", got[0], m[1])
		if _, _, code := subCLI(t, srv, tok, "subscriber", "test", "999"); code != exitCodeNotFound {
			t.Errorf("test 999: exit %d, want 4", code)
		}
	})

	testserver.Step(t, "--no-notify sends nothing for the command's write", func(t *testing.T) {
		notice := func(out, re string) int64 {
			t.Helper()
			return subAtoi(t, subMatch(t, "publish", out, re)[0])
		}
		inc = notice(subCLIOK(t, srv, tok, "incident", "open", "--component", "API", "-m", "Errors."), `^opened incident (\d+) `)
		is := fmt.Sprint(inc)
		subCLIOK(t, srv, tok, "incident", "update", is, "--state", "identified", "-m", "Found.", "--no-notify")
		subCLIOK(t, srv, tok, "incident", "resolve", is, "-m", "Fixed.", "--no-notify")
		subCLIOK(t, srv, tok, "incident", "reopen", is, "-m", "Back.", "--no-notify")
		subCLIOK(t, srv, tok, "notice", "update", is, "--state", "resolved", "-m", "Fixed again.", "--no-notify")
		subCLIOK(t, srv, tok, "notice", "reopen", is, "-m", "Back again.", "--no-notify")
		subCLIOK(t, srv, tok, "notice", "update", is, "-m", "Still looking.")
		quiet := notice(subCLIOK(t, srv, tok, "incident", "open", "--component", "API", "-m", "Hush.", "--no-notify"), `^opened incident (\d+) `)
		mnt := notice(subCLIOK(t, srv, tok, "maintenance", "schedule", "--subject", "Upgrade", "--begins", "+1h", "--ends", "+2h", "--no-notify"),
			`^scheduled maintenance (\d+) `)
		ms := fmt.Sprint(mnt)
		subCLIOK(t, srv, tok, "maintenance", "start", ms, "--no-notify")
		subCLIOK(t, srv, tok, "maintenance", "update", ms, "-m", "Halfway.", "--no-notify")
		subCLIOK(t, srv, tok, "maintenance", "complete", ms, "--no-notify")
		hush := notice(subCLIOK(t, srv, tok, "announce", "-m", "Hello.", "--no-notify"), `^announced notice (\d+) `)
		loud := notice(subCLIOK(t, srv, tok, "announce", "-m", "Hello again."), `^announced notice (\d+) `)
		testserver.SubExpand(t, st)

		n, err := adm.Notice(context.Background(), inc)
		if err != nil {
			t.Fatal(err)
		}
		first, last := n.Updates[0].ID, n.Updates[len(n.Updates)-1].ID
		// hook and the discord subscriber follow the whole page, ann
		// Database and Website, bob is pending.
		all := testserver.SubDeliveries(t, adm, statusd.DeliveryFilter{})
		hookID := subAtoi(t, hook)
		for _, c := range []struct {
			what   string
			notice int64
			want   []string
		}{
			{"the incident", inc, testserver.SubSorted(testserver.SubLines(statusd.NoticeCreated, first, hookID, discord), testserver.SubLines(statusd.NoticeUpdated, last, hookID, discord))},
			{"the quiet incident", quiet, []string{}},
			{"the maintenance", mnt, []string{}},
			{"the quiet announcement", hush, []string{}},
			{"the announcement", loud, testserver.SubSorted(testserver.SubLines(statusd.NoticeCreated, subLastUpdate(t, adm, loud), hookID, discord, subAtoi(t, ann)))},
		} {
			testserver.AssertJSON(t, "sent for "+c.what, testserver.SubSent(all, c.notice), c.want)
		}
	})

	testserver.Step(t, "deliveries lists what was sent, newest first", func(t *testing.T) {
		// The worker tries each once: hooks.example.com does not
		// resolve, and --notify-retry-base 1h puts the next attempt
		// after the test.
		// The webhook follows the whole page: besides the notices' events
		// it has API's component update (operational to degraded) of the
		// incident's opening. The writes with --no-notify stored none of
		// API's later changes, and "Still looking." left it degraded.
		testserver.SubSettled(t, adm, statusd.DeliveryFilter{SubscriberID: subAtoi(t, hook)}, func(ds []statusd.AdminDelivery) bool {
			return len(ds) == 4 && !slices.ContainsFunc(ds, func(d statusd.AdminDelivery) bool { return d.Attempts == 0 })
		})
		out, stderr, code := subCLI(t, srv, tok, "deliveries", "--subscriber", hook)
		if code != 0 {
			t.Fatalf("deliveries: exit %d\n%s", code, stderr)
		}
		lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		subMatch(t, "deliveries header", lines[0], `^ID\s+CREATED\s+SUBSCRIBER\s+EVENT\s+STATE\s+ATTEMPTS\s+LAST ATTEMPT\s+NEXT OR DELIVERED$`)
		if len(lines) != 5 || stderr != "4 of 4 deliveries (page 1)\n" {
			t.Fatalf("deliveries of the webhook: %d lines, stderr %q, want 4 deliveries:\n%s", len(lines), stderr, out)
		}
		// Newest first: the announcement, the incident's last update, then
		// the two of its opening, its creation and API's component update,
		// made by one write, in either order.
		subMatch(t, "newest delivery", lines[1], `^\d+\s+\S+Z\s+`+hook+`\s+notice\.created \(notice \d+\)\s+pending\s+1\s+the host name does not resolve`)
		subMatch(t, "update delivery", lines[2], `\snotice\.updated \(notice \d+\)\s`)
		created := regexp.MustCompile(`^\d+\s+\S+Z\s+` + hook + `\s+notice\.created \(notice ` + fmt.Sprint(inc) + `\)\s+pending\s+1\s+the host name does not resolve`)
		component := regexp.MustCompile(`^\d+\s+\S+Z\s+` + hook + `\s+component_update\s+pending\s+1\s+the host name does not resolve`)
		if !(created.MatchString(lines[3]) && component.MatchString(lines[4]) || component.MatchString(lines[3]) && created.MatchString(lines[4])) {
			t.Errorf("the oldest deliveries are not the incident's creation and API's component update:\n%s\n%s", lines[3], lines[4])
		}
		out, stderr, _ = subCLI(t, srv, tok, "deliveries", "--state", "delivered")
		if strings.Count(out, "\n") != 1 || stderr != "0 of 0 deliveries (page 1)\n" {
			t.Errorf("delivered deliveries:\n%s%s", out, stderr)
		}
		out = subCLIOK(t, srv, tok, "deliveries", "--subscriber", bob, "--json")
		var r statusd.AdminDeliveriesResponse
		if err := json.Unmarshal([]byte(out), &r); err != nil || len(r.Deliveries) != 1 || r.Deliveries[0].Event.Kind != string(statusd.SubscriptionConfirm) {
			t.Errorf("bob's deliveries --json: %v\n%s", err, out)
		}
		if _, _, code := subCLI(t, srv, tok, "deliveries", "--state", "sent"); code != exitCodeRefused {
			t.Errorf("deliveries --state sent: exit %d, want 5", code)
		}
	})

	testserver.Step(t, "subscriber remove takes its deliveries too", func(t *testing.T) {
		out := subCLIOK(t, srv, tok, "subscriber", "remove", hook)
		subMatch(t, "remove", out, `^removed webhook subscriber `+hook+`: https://hooks\.example\.com/cli, with its deliveries\n$`)
		if _, _, code := subCLI(t, srv, tok, "subscriber", "remove", hook); code != exitCodeNotFound {
			t.Errorf("remove twice: exit %d, want 4", code)
		}
		if r, err := adm.Deliveries(context.Background(), statusd.DeliveryFilter{SubscriberID: subAtoi(t, hook)}, 1); err != nil || r.Meta.TotalCount != 0 {
			t.Errorf("the removed subscriber's deliveries: %+v %v", r, err)
		}
	})

	testserver.Step(t, "an address with a character that reorders text is refused", func(t *testing.T) {
		// Email addresses and URLs alike (CONTRACT C7, "People"): nothing
		// stored can reorder what the CLI prints. What it prints of older
		// data is escaped all the same (internal/cli TestPrintable).
		for _, c := range []struct{ channel, addr string }{
			{"email", "eve\u202e@example.com"},
			{"webhook", "https://hooks.example.com/eve\u202e"},
		} {
			_, err := adm.CreateSubscriber(context.Background(), statusd.AdminSubscriberRequest{Channel: new(c.channel), Address: &c.addr,
				Confirmed: new(true)})
			if !errors.Is(err, client.ErrInvalidField) || !strings.Contains(err.Error(), "U+202E") {
				t.Errorf("the server takes %q: %v; want invalid_field naming U+202E", c.addr, err)
			}
		}
		if out := subCLIOK(t, srv, tok, "subscriber", "list", "--channel", "webhook"); strings.Contains(out, "\u202e") || strings.Contains(out, "eve") {
			t.Errorf("list shows a refused address:\n%q", out)
		}
	})
}

// subAtoi parses an id the CLI printed.
func subAtoi(t *testing.T, s string) int64 {
	t.Helper()
	var id int64
	if _, err := fmt.Sscan(s, &id); err != nil {
		t.Fatalf("id %q: %v", s, err)
	}
	return id
}

// subLastUpdate is the id of a notice's last update.
func subLastUpdate(t *testing.T, adm *client.Admin, id int64) int64 {
	t.Helper()
	n, err := adm.Notice(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return n.Updates[len(n.Updates)-1].ID
}
