package server_test

import (
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/internal/testserver"
)

// Declaring an incident in three actions (CONTRACT C8): Declare, the
// message, Publish.

// oneComponentDoc is a page with one component, Website (id 3), and no
// notice.
func oneComponentDoc(now time.Time) *statusd.Document {
	at := now.Add(-48 * time.Hour).Truncate(time.Millisecond)
	return &statusd.Document{
		Page:       statusd.Page{Name: "Acme Status", URL: "https://status.acme.test", CreatedAt: at, UpdatedAt: at},
		Components: []statusd.Component{{ID: 3, Position: 1, Name: "Website", CreatedAt: at, UpdatedAt: at}},
		Notices:    []statusd.Notice{},
	}
}

// TestConsoleDeclareInThreeActions: on a page of one component the
// incident form has it ticked and the message first with the focus; sent
// as the browser sends it with the subject left empty, the incident is
// published with the message's first sentence as its subject. On a page
// of several components none is ticked.
func TestConsoleDeclareInThreeActions(t *testing.T) {
	srv := startServer(t, oneComponentDoc(time.Now().UTC()), options{adminListener: true})
	adm := srv.Admin(newToken(t, srv.DB, "alice"))
	pat := signedIn(t, srv, adm, "pat@example.com", "publisher")

	p := pat.do("GET", "/manage/incidents/new", nil)
	p.want(t, "the incident form", 200, "")
	p.has(t, "the incident form", `<input type="checkbox" name="component_ids" value="3" checked> Website`,
		`<textarea id="content" name="content" rows="4" required autofocus>`,
		`<input id="subject" name="subject" value="" autocomplete="off">`)
	if i, j := strings.Index(p.body, `id="content"`), strings.Index(p.body, `id="subject"`); i < 0 || j < i {
		t.Errorf("the message (at %d) does not come before the subject (at %d)", i, j)
	}

	// What the browser sends after Declare, a message and Publish.
	p = pat.do("POST", "/manage/incidents/new", url.Values{"content": {"Checkout is down. We are looking into it."},
		"subject": {""}, "state": {"investigating"}, "component_ids": {"3"}, "notify": {"on"}}, sameSite...)
	p.want(t, "declare", 303, "/manage/notices/1?done=published&component=3")
	n := srv.Notice(1)
	if n.Subject != "Checkout is down" || testserver.Value(n.State) != "investigating" || len(n.Components) != 1 || n.Components[0].ID != 3 {
		t.Errorf("the API's notice 1: %+v; want \"Checkout is down\", investigating, on Website", n)
	}

	// The same for an announcement, which has no component ticked.
	p = pat.do("GET", "/manage/announcements/new", nil)
	if strings.Contains(p.body, "checked> Website") {
		t.Errorf("the announcement form ticks Website:\n%s", p.body)
	}
	pat.do("POST", "/manage/announcements/new", url.Values{"content": {"New office hours! From Monday."}, "subject": {""}},
		sameSite...).want(t, "announce", 303, "/manage/notices/2?done=published")
	if n := srv.Notice(2); n.Subject != "New office hours" {
		t.Errorf("the announcement's subject %q, want \"New office hours\"", n.Subject)
	}

	many := startServer(t, consoleDoc(time.Now().UTC()), options{adminListener: true})
	pat = signedIn(t, many, many.Admin(newToken(t, many.DB, "alice")), "pat@example.com", "publisher")
	p = pat.do("GET", "/manage/incidents/new", nil)
	p.want(t, "the incident form of three components", 200, "")
	if regexp.MustCompile(`name="component_ids" value="\d+" checked`).MatchString(p.body) {
		t.Errorf("a component is ticked on a page of three:\n%s", p.body)
	}
}
