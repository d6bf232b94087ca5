package server_test

import (
	"github.com/statusd/statusd/internal/testserver"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"
)

// CONTRACT C8: "After each action the console shows the public
// page's new state; the public API shows it before the console answers."

// outcome is what a console answer says of the public page after an
// action: what was done, the page's state and its words, and the states
// of the components it names, as "Name state", in order.
type outcome struct {
	Done, State, Text string
	Components        []string
}

var (
	outcomeBox = regexp.MustCompile(`(?s)<div class="done" role="status">\n<p><strong>([^<]*)</strong> The public page is now ` +
		stateBadge + `: “([^”]*)”\.</p>(.*?)</div>`)
	outcomeComponent = regexp.MustCompile(`<li>([^<]*) ` + stateBadge + `</li>`)
	// stateBadge is the status page's badge of a state (htmlkit's badges): its
	// word is caught, and read by badgeStates.
	stateBadge = `<span class="badge s-[a-z]+"><svg class="icon" aria-hidden="true" focusable="false"><use href="#i-[a-z]+"></use></svg>([A-Za-z ]+)</span>`
	// badgeStates are the API's state of each badge's word.
	badgeStates = map[string]string{"Operational": "operational", "Degraded": "degraded", "Under maintenance": "under_maintenance"}
	// indicators are /api/v2/status.json's indicator of each page state
	// (degraded is the worst impact of the current incidents, which these
	// tests leave minor, the default).
	indicators = map[string]string{"operational": "none", "degraded": "minor", "under_maintenance": "maintenance"}
)

// outcomeOf reads the outcome of a console answer; ok is false when it
// has none.
func outcomeOf(body string) (o outcome, ok bool) {
	m := outcomeBox.FindStringSubmatch(body)
	if m == nil {
		return o, false
	}
	o = outcome{Done: m[1], State: badgeStates[m[2]], Text: m[3]}
	for _, c := range outcomeComponent.FindAllStringSubmatch(m[4], -1) {
		o.Components = append(o.Components, c[1]+" "+badgeStates[c[2]])
	}
	return o, true
}

// wantOutcome fails unless the answer p says want, worked out by hand,
// and unless the public API says the same now: /api/v2/status.json's
// description and indicator, /api/v1/status's state and state_text, and
// the state of each named component in /api/v1/components.
func wantOutcome(t *testing.T, srv *testserver.Server, what string, p screen, want outcome) {
	t.Helper()
	got, ok := outcomeOf(p.body)
	if !ok {
		t.Fatalf("%s: the answer does not show the public page's state\n%s", what, p.body)
	}
	if strings.Join(got.Components, ", ") != strings.Join(want.Components, ", ") || got.Done != want.Done ||
		got.State != want.State || got.Text != want.Text {
		t.Errorf("%s: the answer says %+v, want %+v", what, got, want)
	}
	v2 := srv.Get("/api/v2/status.json", 200)
	if d, i := testserver.At(t, v2.JSON, "status.description"), testserver.At(t, v2.JSON, "status.indicator"); d != got.Text || i != indicators[got.State] {
		t.Errorf("%s: /api/v2/status.json says %q, %q; the console %q, %s (indicator %q)", what, d, i, got.Text, got.State, indicators[got.State])
	}
	if v1 := srv.Status(); v1.State != got.State || v1.StateText != got.Text {
		t.Errorf("%s: /api/v1/status says %s, %q; the console %s, %q", what, v1.State, v1.StateText, got.State, got.Text)
	}
	public := map[string]string{}
	for _, c := range srv.Components().Components {
		public[c.Name] = c.Name + " " + c.State
	}
	for _, c := range got.Components {
		name := c[:strings.LastIndexByte(c, ' ')]
		if public[name] != c {
			t.Errorf("%s: the console says %q, /api/v1/components %q", what, c, public[name])
		}
	}
}

// follow checks that p is a 303 to location and fetches it with b.
func follow(t *testing.T, b *browser, what string, p screen, location string) screen {
	t.Helper()
	p.want(t, what, 303, location)
	next := b.do("GET", location, nil)
	next.want(t, what+", then "+location, 200, "")
	return next
}

func TestConsoleShowsPublicState(t *testing.T) {
	// consoleDoc: API (1) with the child API EU (2), Website (3); incident
	// 10 identified on API EU, maintenance 11 on Website tomorrow. The page
	// is degraded, with the text "Some systems are degraded"; the other
	// texts are the defaults.
	srv := startServer(t, consoleDoc(time.Now().UTC()), options{adminListener: true})
	adm := srv.Admin(newToken(t, srv.DB, "alice"))
	olga := signedIn(t, srv, adm, "olga@example.com", "owner")
	const degraded = "Some systems are degraded"

	testserver.Step(t, "declare an incident on Website: its page says degraded, Website degraded", func(t *testing.T) {
		p := olga.do("POST", "/manage/incidents/new", url.Values{"subject": {"Login failures"}, "state": {"investigating"},
			"component_ids": {"3"}, "content": {"Sign-in fails."}}, sameSite...)
		p = follow(t, olga, "declare", p, "/manage/notices/12?done=published&component=3")
		wantOutcome(t, srv.In(t), "declare", p, outcome{"Published.", "degraded", degraded, []string{"Website degraded"}})
	})

	testserver.Step(t, "resolve incident 10: API EU and its group API operational, the page still degraded by incident 12", func(t *testing.T) {
		p := olga.do("POST", "/manage/notices/10/updates", url.Values{"form": {"resolve"}, "state": {"resolved"}, "content": {"Fixed."}}, sameSite...)
		p = follow(t, olga, "resolve", p, "/manage/notices/10?done=resolved&component=2")
		wantOutcome(t, srv.In(t), "resolve", p, outcome{"Resolved.", "degraded", degraded, []string{"API operational", "API EU operational"}})
	})

	testserver.Step(t, "move Website under API: API takes Website's degraded state", func(t *testing.T) {
		p := olga.do("POST", "/manage/components/3", url.Values{"name": {"Website"}, "parent_id": {"1"}}, sameSite...)
		p = follow(t, olga, "move under API", p, "/manage/components?done=component-changed&component=3")
		wantOutcome(t, srv.In(t), "move under API", p, outcome{"Component changed.", "degraded", degraded, []string{"API degraded", "Website degraded"}})
	})

	testserver.Step(t, "delete Website, out of incident 12: API operational; the page stays degraded (incident 12 is current)", func(t *testing.T) {
		p := olga.do("POST", "/manage/components/3/delete", url.Values{"confirm": {"yes"}, "detach": {"true"}}, sameSite...)
		p = follow(t, olga, "delete Website", p, "/manage/components?done=component-deleted&component=1")
		wantOutcome(t, srv.In(t), "delete Website", p, outcome{"Component deleted.", "degraded", degraded, []string{"API operational"}})
	})

	testserver.Step(t, "a new text for degraded: the page says it", func(t *testing.T) {
		p := olga.do("POST", "/manage/page", url.Values{"name": {"Acme Status"}, "url": {"https://status.acme.test"},
			"operational": {""}, "degraded": {"Trouble on some systems"}, "under_maintenance": {""}}, sameSite...)
		p = follow(t, olga, "page settings", p, "/manage/page?done=page-saved")
		wantOutcome(t, srv.In(t), "page settings", p, outcome{"Page settings saved.", "degraded", "Trouble on some systems", nil})
	})

	testserver.Step(t, "delete incident 12, the last current one: operational, with the default text", func(t *testing.T) {
		p := olga.do("POST", "/manage/notices/12/delete", url.Values{}, sameSite...)
		p.want(t, "delete incident 12", 200, "")
		wantOutcome(t, srv.In(t), "delete incident 12", p, outcome{"Deleted.", "operational", "All systems operational", nil})
	})

	testserver.Step(t, "a query that names no action, or no component, shows nothing of it", func(t *testing.T) {
		p := olga.do("GET", "/manage/components?done=nothing&component=1", nil)
		p.want(t, "an unknown done", 200, "")
		if _, ok := outcomeOf(p.body); ok {
			t.Errorf("an unknown done shows an outcome:\n%s", p.body)
		}
		p = olga.do("GET", "/manage/components?done=component-added&component=x&component=99&component=-1", nil)
		p.want(t, "components that are not", 200, "")
		wantOutcome(t, srv.In(t), "components that are not", p, outcome{"Component added.", "operational", "All systems operational", nil})
	})
}
