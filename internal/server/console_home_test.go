package server_test

import (
	"context"
	"errors"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/client"
	"github.com/statusd/statusd/internal/testserver"
)

// TestConsoleHomeLinksAndFirstState: home links each open incident and
// each maintenance, underway or to come, to its screen in the console
// (and to the public page beside it); an incident opens investigating
// or identified, in the console as through the admin API; after a wrong
// password the password field has the focus, the email kept.
func TestConsoleHomeLinksAndFirstState(t *testing.T) {
	now := time.Now().UTC()
	doc := consoleDoc(now)
	// Maintenance 12 of API, underway since 10 minutes ago, for an hour.
	begins, ends := now.Add(-10*time.Minute).Truncate(time.Millisecond), now.Add(50*time.Minute).Truncate(time.Millisecond)
	created := now.Add(-time.Hour).Truncate(time.Millisecond)
	doc.Notices = append(doc.Notices, statusd.Notice{ID: 12, Type: statusd.Planned, Subject: "Database upgrade", TagList: []string{},
		ComponentIDs: []int64{1}, BeginsAt: &begins, EndsAt: &ends, CreatedAt: created, UpdatedAt: begins,
		Updates: []statusd.Update{
			{ID: 4, State: statusd.Scheduled, Content: "Planned.", CreatedAt: created, UpdatedAt: created},
			{ID: 5, State: statusd.Underway, Content: "Started.", CreatedAt: begins, UpdatedAt: begins},
		}})
	srv := startServer(t, doc, options{adminListener: true})
	adm := srv.Admin(newToken(t, srv.DB, "alice"))
	pat := signedIn(t, srv, adm, "pat@example.com", "publisher")

	testserver.Step(t, "home links to the console's screens", func(t *testing.T) {
		p := pat.do("GET", "/manage", nil)
		p.want(t, "home", 200, "")
		p.has(t, "home",
			`<a href="/manage/notices/10">EU errors</a>`,
			`<a class="manage" href="https://status.acme.test/notices/10">On the public page</a>`,
			`<h2 id="underway">Maintenance underway</h2>`,
			`<a href="/manage/notices/12">Database upgrade</a>`,
			`<a href="/manage/notices/11">Website move</a>`)
		if strings.Contains(p.body, `<a href="https://status.acme.test/notices/10">EU errors`) {
			t.Errorf("the incident's subject links to the public page:\n%s", p.body)
		}
	})

	testserver.Step(t, "an incident opens investigating or identified", func(t *testing.T) {
		p := pat.do("GET", "/manage/incidents/new", nil)
		p.has(t, "the incident form", `<option value="investigating" selected>`, `<option value="identified">`)
		if strings.Contains(p.body, `<option value="recovering"`) {
			t.Errorf("the form offers recovering:\n%s", p.body)
		}
		p = pat.do("POST", "/manage/incidents/new", url.Values{"subject": {"Slow"}, "state": {"recovering"},
			"component_ids": {"3"}, "content": {"Getting better."}}, sameSite...)
		p.want(t, "recovering first", 422, "")
		p.has(t, "recovering first", `<p class="problem" id="state-problem" role="alert">an incident opens investigating or identified; post recovering as an update once it is open</p>`)
		_, err := adm.CreateNotice(context.Background(), statusd.AdminNoticeRequest{Type: new("unplanned"), Subject: new("Slow"),
			State: new("recovering"), Content: new("Getting better."), ComponentIDs: &[]int64{3}})
		if apiErr := (*client.Error)(nil); !errors.As(err, &apiErr) || apiErr.Status != 422 {
			t.Errorf("the admin API's answer to recovering first: %v, want 422", err)
		}
		if n, err := adm.Notices(context.Background(), 1); err != nil || n.Meta.TotalCount != 3 {
			t.Errorf("notices after the refusals: %v %v, want the 3 of the document", n, err)
		}
	})

	testserver.Step(t, "after a wrong password the password has the focus", func(t *testing.T) {
		p := signInAs(t, srv, "pat@example.com", "not the password")
		p.want(t, "a wrong password", 401, "")
		p.has(t, "the sign-in again", `value="pat@example.com"`,
			`<input id="password" name="password" type="password" autocomplete="current-password" required autofocus>`)
		if strings.Contains(p.body, `required autofocus value="pat@example.com"`) {
			t.Errorf("the email has the focus:\n%s", p.body)
		}
	})
}
