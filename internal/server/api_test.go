package server_test

import (
	"context"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/internal/testserver"
)

// maint spells the maintenance state per variant (SPEC §9).
func maint(variant string) string {
	if variant == "b" {
		return "under-maintenance"
	}
	return "under_maintenance"
}

// fixtureServer serves the fixture in a variant; it returns the server and
// the "now" the fixture was timed against.
// (o.variant is set to variant).
func fixtureServer(t *testing.T, variant string, o options) (*testserver.Server, time.Time) {
	now := time.Now().UTC().Truncate(time.Second)
	o.variant = statusd.Variant(variant)
	return startServer(t, testserver.Fixture(now), o), now
}

func TestStatus(t *testing.T) {
	for _, variant := range []string{"a", "b"} {
		t.Run(variant, func(t *testing.T) {
			srv, now := fixtureServer(t, variant, options{})
			for _, path := range []string{"/api/v1/status", "/v1/status"} {
				r := srv.Get(path, 200)
				// Incident 100 is identified: the page is degraded even though
				// maintenance 200 is underway (SPEC §3). updated_at is the
				// latest change: 100's and 200's last updates, an hour ago.
				testserver.AssertJSON(t, path, r.JSON, testserver.Obj{"page": testserver.Obj{
					"name": "Acme Status", "state": "degraded", "state_text": "Some systems are degraded",
					"url": "https://status.acme.test",
					"links": testserver.Obj{
						"self":       "/api/v1",
						"components": testserver.Obj{"href": "/v1/components", "count": 6},
						"notices":    testserver.Obj{"href": "/v1/notices", "count": 15},
					},
					"created_at": "2026-01-01T00:00:00.000Z", "updated_at": testserver.TS(now.Add(-time.Hour)),
				}})
				if got := r.Header.Get("Content-Type"); got != "application/json; charset=utf-8" {
					t.Errorf("Content-Type %q", got)
				}
				if got := r.Header.Get("Access-Control-Allow-Origin"); got != "*" {
					t.Errorf("Access-Control-Allow-Origin %q", got)
				}
			}
		})
	}
}

// TestAPIIndex checks CONTRACT C1's page.links.self: /api/v1 (and its
// alias /v1) answers an index of the API's resources, with the headers of
// every API answer, HEAD and 304 as for the others, and 405 for writes.
func TestAPIIndex(t *testing.T) {
	srv, _ := fixtureServer(t, "a", options{rateLimit: 100})
	self := testserver.At(t, srv.Get("/api/v1/status", 200).JSON, "page.links.self").(string)
	if self != "/api/v1" {
		t.Fatalf("page.links.self %q, want /api/v1", self)
	}
	want := testserver.Obj{"links": testserver.Obj{"status": "/api/v1/status", "components": "/api/v1/components", "notices": "/api/v1/notices"}}
	for _, path := range []string{self, "/v1"} {
		r := srv.Get(path, 200)
		testserver.AssertJSON(t, path, r.JSON, want)
		for name, value := range map[string]string{"Content-Type": "application/json; charset=utf-8",
			"Access-Control-Allow-Origin": "*", "RateLimit-Limit": "100"} {
			if got := r.Header.Get(name); got != value {
				t.Errorf("%s: %s %q, want %q", path, name, got, value)
			}
		}
		etag := r.Header.Get("ETag")
		if etag == "" || !strings.HasPrefix(r.Header.Get("Cache-Control"), "public, max-age=") {
			t.Errorf("%s: ETag %q, Cache-Control %q", path, etag, r.Header.Get("Cache-Control"))
		}
		if r := srv.Do(http.MethodGet, path, "If-None-Match", etag); r.Status != 304 {
			t.Errorf("%s with If-None-Match: status %d, want 304", path, r.Status)
		}
		if r := srv.Do(http.MethodHead, path); r.Status != 200 || len(r.Body) != 0 || r.Header.Get("ETag") == "" {
			t.Errorf("HEAD %s: status %d, %d bytes, ETag %q", path, r.Status, len(r.Body), r.Header.Get("ETag"))
		}
		r = srv.Do(http.MethodPost, path)
		testserver.AssertErrorBody(t, "POST "+path, r, 405, "method_not_allowed")
		if got := r.Header.Get("Allow"); got != "GET, HEAD, OPTIONS" {
			t.Errorf("POST %s: Allow %q", path, got)
		}
		// Every link of the index resolves on statusd itself.
		for _, link := range want["links"].(testserver.Obj) {
			srv.Get(link.(string), 200)
		}
	}
}

// TestPageUpdatedAt checks that page.updated_at is the time of the latest
// change to the page, its components or its notices (their updated_at and
// their updates' times), and that the v1 API and Statuspage v2 agree.
func TestPageUpdatedAt(t *testing.T) {
	now := time.Now().UTC().Truncate(time.Second)
	doc := testserver.Fixture(now)
	// An update edited after its notice's updated_at: 101's last update,
	// half an hour ago, later than anything else (an hour ago at most).
	for i := range doc.Notices {
		if n := &doc.Notices[i]; n.ID == 101 {
			n.Updates[len(n.Updates)-1].UpdatedAt = now.Add(-30 * time.Minute)
		}
	}
	srv := startServer(t, doc, options{})
	check := func(what string, want time.Time) {
		t.Helper()
		v1 := testserver.At(t, srv.Get("/api/v1/status", 200).JSON, "page.updated_at")
		v2 := testserver.At(t, srv.Get("/api/v2/status.json", 200).JSON, "page.updated_at")
		if v1 != testserver.TS(want) || v2 != testserver.TS(want) {
			t.Errorf("%s: v1 page.updated_at %v, v2 %v, want %s", what, v1, v2, testserver.TS(want))
		}
	}
	check("imported", now.Add(-30*time.Minute))
	adm, ctx := srv.Admin(newToken(t, srv.DB, "ops")), context.Background()
	// written checks that a write sent at t0 or later was stamped at
	// stamp, and returns it.
	written := func(what string, t0 time.Time, stamp statusd.Time) time.Time {
		t.Helper()
		testserver.Within(t, what, stamp.Time, t0, time.Now())
		return stamp.Time
	}
	t0 := time.Now()
	n, err := adm.PostUpdate(ctx, 100, statusd.AdminUpdateRequest{Content: testserver.Ptr("Rolled back; watching.")})
	testserver.NoErr(t, "POST /notices/100/updates", err)
	check("after an update", written("the update's created_at", t0, n.Updates[len(n.Updates)-1].CreatedAt))
	t0 = time.Now()
	c, err := adm.UpdateComponent(ctx, 31, statusd.AdminComponentRequest{Description: testserver.Ptr("Read replica, EU")})
	testserver.NoErr(t, "PATCH /components/31", err)
	check("after a component edit", written("the component's updated_at", t0, c.UpdatedAt))
	t0 = time.Now()
	p, err := adm.UpdatePage(ctx, statusd.AdminPageRequest{Name: testserver.Ptr("Acme Cloud Status")})
	testserver.NoErr(t, "PATCH /page", err)
	check("after a page edit", written("the page's updated_at", t0, p.UpdatedAt))
}

// TestPageStates checks SPEC §3's page state table and the state texts.
func TestPageStates(t *testing.T) {
	now := time.Now().UTC().Truncate(time.Second)
	base := func(notices ...statusd.Notice) *statusd.Document {
		doc := testserver.Fixture(now)
		doc.Notices = notices
		return doc
	}
	all := testserver.Fixture(now).Notices
	byID := func(id int64) statusd.Notice {
		for _, n := range all {
			if n.ID == id {
				return n
			}
		}
		t.Fatalf("no notice %d", id)
		return statusd.Notice{}
	}
	cases := []struct {
		name    string
		doc     *statusd.Document
		variant string
		state   string
		text    string
	}{
		{"nothing current", base(byID(101), byID(105), byID(201), byID(300)), "a", "operational", "All systems operational"},
		{"no notices at all", base(), "b", "operational", "All systems operational"},
		{"maintenance only, A", base(byID(200), byID(105)), "a", "under_maintenance", "Maintenance is underway"},
		{"maintenance only, B", base(byID(200)), "b", "under-maintenance", "Maintenance is underway"},
		{"incident only", base(byID(100)), "b", "degraded", "Some systems are degraded"},
		{"both", base(byID(200), byID(100)), "a", "degraded", "Some systems are degraded"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := startServer(t, c.doc, options{variant: statusd.Variant(c.variant)})
			r := srv.Get("/api/v1/status", 200)
			if got := testserver.At(t, r.JSON, "page.state"); got != c.state {
				t.Errorf("state %v, want %s", got, c.state)
			}
			if got := testserver.At(t, r.JSON, "page.state_text"); got != c.text {
				t.Errorf("state_text %v, want %s", got, c.text)
			}
		})
	}
	t.Run("configured texts and base url", func(t *testing.T) {
		doc := base(byID(200))
		doc.Page.StateTexts.UnderMaintenance = "Planned work in progress"
		srv := startServer(t, doc, options{baseURL: "https://status.example.org"})
		r := srv.Get("/api/v1/status", 200)
		if got := testserver.At(t, r.JSON, "page.state_text"); got != "Planned work in progress" {
			t.Errorf("state_text %v", got)
		}
		if got := testserver.At(t, r.JSON, "page.url"); got != "https://status.example.org" {
			t.Errorf("url %v", got)
		}
		r = srv.Get("/api/v1/notices/200", 200)
		if got := testserver.At(t, r.JSON, "notice.url"); got != "https://status.example.org/notices/200" {
			t.Errorf("notice url %v", got)
		}
	})
}

// componentWant builds a component list entry by hand.
func componentWant(variant string, id int64, state, name, desc string, parent any, position, children int, metrics bool, now time.Time) testserver.Obj {
	o := testserver.Obj{
		"id": id, "state": state, "name": name, "description": desc, "parent_id": parent, "position": position,
		"links":      testserver.Obj{"children": testserver.Obj{"href": fmt.Sprintf("/api/v1/components?filter%%5Bparent_id_eq%%5D=%d", id), "count": children}},
		"created_at": "2026-01-01T00:00:00.000Z", "updated_at": "2026-01-01T01:00:00.000Z",
	}
	if variant == "a" {
		o["metrics_summary"] = nil
		if metrics {
			today := statusd.Day(now)
			o["metrics_summary"] = testserver.Obj{
				"timeframe_start":   today.AddDate(0, 0, -30).Format("2006-01-02"),
				"timeframe_end":     today.Format("2006-01-02"),
				"percentage_uptime": "checked separately",
				"url":               fmt.Sprintf("https://status.acme.test/components/%d/metrics", id),
			}
		}
	}
	return o
}

var uptimeWords = regexp.MustCompile(`^\d{1,3}\.\d\d%$`)

func TestComponents(t *testing.T) {
	for _, variant := range []string{"a", "b"} {
		t.Run(variant, func(t *testing.T) {
			srv, now := fixtureServer(t, variant, options{})
			m := maint(variant)
			// Maintenance 200 lists 30 and 20; incident 100 lists 11. A
			// parent is the worst of its subtree (CONTRACT C3): 10 is
			// degraded with 11; 30 stays under maintenance, its child 31
			// being operational.
			all := []testserver.Obj{
				componentWant(variant, 20, m, "Dashboard", "Web dashboard", nil, 1, 0, false, now),
				componentWant(variant, 10, "degraded", "API", "Public REST API", nil, 2, 2, true, now),
				componentWant(variant, 12, "operational", "API US", "API in the US", 10, 3, 0, false, now),
				componentWant(variant, 11, "degraded", "API EU", "API in the EU", 10, 4, 0, true, now),
				componentWant(variant, 30, m, "Database", "Primary database", nil, 5, 1, true, now),
				componentWant(variant, 31, "operational", "Replica", "Read replica", 30, 6, 0, false, now),
			}
			cases := []struct {
				query string
				want  []testserver.Obj
			}{
				{"", all},
				{"?filter[parent_id_null]=true", []testserver.Obj{all[0], all[1], all[4]}},
				{"?filter[parent_id_null]=false", []testserver.Obj{all[2], all[3], all[5]}},
				{"?filter[parent_id_eq]=10", []testserver.Obj{all[2], all[3]}},
				{"?filter%5Bparent_id_eq%5D=30", []testserver.Obj{all[5]}},
				{"?filter[parent_id_eq]=31", []testserver.Obj{}},
				{"?filter[parent_id_eq]=999", []testserver.Obj{}},
				{"?filter[parent_id_eq]=10&filter[parent_id_null]=false", []testserver.Obj{all[2], all[3]}},
				{"?filter[parent_id_eq]=10&filter[parent_id_null]=true", []testserver.Obj{}},
			}
			for _, c := range cases {
				for _, prefix := range []string{"/api/v1", "/v1"} {
					r := srv.Get(prefix+"/components"+c.query, 200)
					list := testserver.At(t, r.JSON, "components").([]any)
					checkSummaries(t, variant, list)
					testserver.AssertJSON(t, c.query, r.JSON, testserver.Obj{"components": c.want,
						"meta": testserver.Obj{"count": len(c.want), "total_count": len(c.want), "next_page": nil}})
				}
			}
		})
	}
}

// checkSummaries checks the uptime of every metrics_summary (its numbers
// are the metrics issue's) and replaces it with the placeholder that
// componentWant puts there.
func checkSummaries(t *testing.T, variant string, list []any) {
	t.Helper()
	for _, c := range list {
		c := c.(map[string]any)
		s, ok := c["metrics_summary"].(map[string]any)
		if !ok {
			continue
		}
		up := s["percentage_uptime"].(map[string]any)
		pct, _ := up["percent"].(float64)
		words, _ := up["words"].(string)
		if pct < 0 || pct > 100 || !uptimeWords.MatchString(words) || len(up) != 2 {
			t.Errorf("component %v: percentage_uptime %v", c["id"], up)
		}
		s["percentage_uptime"] = "checked separately"
	}
}

// noticeFields builds the fields common to list entries and details.
func noticeFields(variant string, w noticeWant) testserver.Obj {
	o := testserver.Obj{
		"id": w.id, "type": w.typ, "timeline_state": w.timeline, "subject": w.subject,
		"url":        fmt.Sprintf("https://status.acme.test/notices/%d", w.id),
		"created_at": testserver.TS(w.created), "updated_at": testserver.TS(w.updated),
		"tag_list": w.tags, "links": testserver.Obj{"self": fmt.Sprintf("/api/notices/%d", w.id)},
	}
	tsOrNull := func(t *time.Time) any {
		if t == nil {
			return nil
		}
		return testserver.TS(*t)
	}
	if w.typ != "general" {
		o["state"] = w.state
		o["began_at"] = tsOrNull(w.began)
		o["ended_at"] = tsOrNull(w.ended)
	}
	if w.typ == "planned" {
		o["begins_at"] = testserver.TS(*w.begins)
		o["ends_at"] = testserver.TS(*w.ends)
	}
	if w.typ == "unplanned" && variant == "a" {
		o["impact_time"] = testserver.Obj{"seconds": w.impact, "words": w.words}
	}
	return o
}

// detailWant builds the detail of fixture notice w by hand: its fields,
// the components embedded in it and every update with its id (notices
// from fixUpdateIDs).
func detailWant(variant string, w noticeWant, notices map[int64]statusd.Notice, embedded []testserver.Obj) testserver.Obj {
	o := noticeFields(variant, w)
	o["components"] = embedded
	var ups []testserver.Obj
	for _, u := range notices[w.id].Updates {
		ups = append(ups, updateWant(u, true))
	}
	o["updates"] = ups
	return o
}

func updateWant(u statusd.Update, withID bool) testserver.Obj {
	o := testserver.Obj{"content": u.Content, "created_at": testserver.TS(u.CreatedAt), "updated_at": testserver.TS(u.UpdatedAt)}
	if u.State != "" {
		o["state"] = string(u.State)
	}
	if withID {
		o["id"] = u.ID
	}
	return o
}

// fixUpdateIDs gives the fixture's updates the ids import gives them: in
// document order from 1.
func fixUpdateIDs(doc *statusd.Document) map[int64]statusd.Notice {
	byID := map[int64]statusd.Notice{}
	var next int64
	for i := range doc.Notices {
		for j := range doc.Notices[i].Updates {
			next++
			doc.Notices[i].Updates[j].ID = next
		}
		byID[doc.Notices[i].ID] = doc.Notices[i]
	}
	return byID
}

// checkOpenImpact checks the still growing impact of incident 100 (2 hours
// up to now) and replaces it with the want placeholder.
func checkOpenImpact(t *testing.T, fields map[string]any, now time.Time) {
	t.Helper()
	it, ok := fields["impact_time"].(map[string]any)
	if !ok || fields["id"] != float64(100) {
		return
	}
	secs := it["seconds"].(float64)
	elapsed := time.Since(now).Seconds()
	if secs < 7200 || secs > 7200+elapsed+1 || !strings.HasPrefix(it["words"].(string), "2 hours") {
		t.Errorf("notice 100 impact_time %v, want 7200 s plus the %.0f s since the fixture", it, elapsed)
	}
	fields["impact_time"] = testserver.Obj{"seconds": -1, "words": ""}
}

func TestNoticesList(t *testing.T) {
	for _, variant := range []string{"a", "b"} {
		t.Run(variant, func(t *testing.T) {
			srv, now := fixtureServer(t, variant, options{})
			notices := fixUpdateIDs(testserver.Fixture(now))
			wants := fixtureWant(now)
			var want []testserver.Obj
			for _, w := range wants {
				o := noticeFields(variant, w)
				ups := notices[w.id].Updates
				o["latest_update"] = updateWant(ups[len(ups)-1], false)
				want = append(want, o)
			}
			for _, path := range []string{"/api/v1/notices", "/v1/notices"} {
				r := srv.Get(path, 200)
				for _, n := range testserver.At(t, r.JSON, "notices").([]any) {
					checkOpenImpact(t, n.(map[string]any), now)
				}
				testserver.AssertJSON(t, path, r.JSON, testserver.Obj{"notices": want,
					"meta": testserver.Obj{"count": 15, "total_count": 15, "next_page": nil}})
			}
		})
	}
}

func TestNoticeDetail(t *testing.T) {
	for _, variant := range []string{"a", "b"} {
		t.Run(variant, func(t *testing.T) {
			srv, now := fixtureServer(t, variant, options{})
			doc := testserver.Fixture(now)
			notices := fixUpdateIDs(doc)
			comps := map[int64]testserver.Obj{}
			m := maint(variant)
			for _, c := range []struct {
				id     int64
				state  string
				parent any
			}{{20, m, nil}, {10, "degraded", nil}, {12, "operational", 10}, {11, "degraded", 10}, {30, m, nil}, {31, "operational", 30}} {
				for _, dc := range doc.Components {
					if dc.ID == c.id {
						// Exactly the seven keys of SPEC §2.
						comps[c.id] = testserver.Obj{"id": c.id, "state": c.state, "name": dc.Name, "description": dc.Description,
							"parent_id": c.parent, "created_at": "2026-01-01T00:00:00.000Z", "updated_at": "2026-01-01T01:00:00.000Z"}
					}
				}
			}
			for _, w := range fixtureWant(now) {
				embedded := []testserver.Obj{}
				for _, id := range w.comps {
					embedded = append(embedded, comps[id])
				}
				o := detailWant(variant, w, notices, embedded)
				for _, path := range []string{"/api/v1/notices/%d", "/v1/notices/%d", "/api/notices/%d"} {
					p := fmt.Sprintf(path, w.id)
					r := srv.Get(p, 200)
					checkOpenImpact(t, testserver.At(t, r.JSON, "notice").(map[string]any), now)
					testserver.AssertJSON(t, p, r.JSON, testserver.Obj{"notice": o})
				}
			}
		})
	}
}

// TestNoticeFilters checks every filter alone and combined against the
// hand-worked timeline states of fixtureWant.
func TestNoticeFilters(t *testing.T) {
	srv, _ := fixtureServer(t, "a", options{})
	cases := []struct {
		query string
		ids   []int64
	}{
		{"filter[type_eq]=unplanned", []int64{100, 105, 101, 103, 104, 102}},
		{"filter[type_eq]=planned", []int64{201, 200, 202, 203, 204}},
		{"filter[type_eq]=general", []int64{300, 302, 303, 301}},
		{"filter[timeline_state_eq]=present", []int64{100, 105, 300, 200, 301}},
		{"filter[timeline_state_eq]=future", []int64{201}},
		{"filter[timeline_state_eq]=past_recent", []int64{101, 202, 302}},
		{"filter[timeline_state_eq]=past_distant", []int64{103, 104, 203, 303, 102, 204}},
		{"filter[timeline_state_eq]=past", []int64{101, 202, 302, 103, 104, 203, 303, 102, 204}},
		// The current incidents (SPEC §4.4's example).
		{"filter[timeline_state_eq]=present&filter[type_eq]=unplanned", []int64{100, 105}},
		{"filter[type_eq]=general&filter[timeline_state_eq]=past", []int64{302, 303}},
		{"filter[type_in][]=general&filter[type_in][]=planned&filter[timeline_state_eq]=present", []int64{300, 200, 301}},
		{"filter[timeline_state_in][]=future&filter[timeline_state_in][]=past_recent", []int64{201, 101, 202, 302}},
		{"filter[timeline_state_in][]=past&filter[type_eq]=planned", []int64{202, 203, 204}},
		{"filter[type_eq]=planned&filter[type_in][]=general", []int64{}},
		// Notices that count for a component: unplanned with an impact (not
		// false alarms), listing it or a descendant (CONTRACT C4).
		{"filter[metrics_component_id]=10", []int64{100, 104, 102}},
		{"filter[metrics_component_id]=11", []int64{100, 104}},
		{"filter[metrics_component_id]=12", []int64{}},
		{"filter[metrics_component_id]=30", []int64{101, 102}},
		{"filter[metrics_component_id]=20", []int64{105}},
		{"filter[metrics_component_id]=999", []int64{}},
		{"filter[metrics_component_id]=10&filter[timeline_state_eq]=present", []int64{100}},
		// Blank values are not applied, as Ransack does.
		{"filter[type_eq]=&filter[timeline_state_eq]=future", []int64{201}},
		// Unknown filters and parameters are ignored.
		{"filter[foo]=bar&per_page=5&_=123&filter[timeline_state_eq]=future", []int64{201}},
		{"filter%5Btype_eq%5D=general&filter%5Btimeline_state_eq%5D=present", []int64{300, 301}},
	}
	for _, c := range cases {
		r := srv.Get("/api/v1/notices?"+c.query, 200)
		var got []int64
		for _, n := range testserver.At(t, r.JSON, "notices").([]any) {
			got = append(got, int64(n.(map[string]any)["id"].(float64)))
		}
		if fmt.Sprint(got) != fmt.Sprint(c.ids) && !(len(got) == 0 && len(c.ids) == 0) {
			t.Errorf("%s: ids %v, want %v", c.query, got, c.ids)
		}
		testserver.AssertJSON(t, c.query+" meta", testserver.At(t, r.JSON, "meta"), testserver.Obj{"count": len(c.ids), "total_count": len(c.ids), "next_page": nil})
	}
}

// TestEmittedHrefsEncoded checks CONTRACT C1 (revised 2026-11-25): the
// query strings statusd emits write their brackets percent-encoded, as the
// real service does, and a plain GET of each answers exactly what the same
// query with raw brackets answers.
func TestEmittedHrefsEncoded(t *testing.T) {
	srv, now := fixtureServer(t, "a", options{})
	// same follows an emitted path and checks that it lists what the same
	// query with raw brackets lists (the records' ids and the meta block:
	// their metrics move with the clock between two requests).
	same := func(srv *testserver.Server, collection, emitted, raw string) testserver.Response {
		t.Helper()
		got, want := srv.Get(emitted, 200), srv.Get(raw, 200)
		if g, w := fmt.Sprint(ids(t, got, collection), testserver.At(t, got.JSON, "meta")), fmt.Sprint(ids(t, want, collection), testserver.At(t, want.JSON, "meta")); g != w {
			t.Errorf("GET %s lists %s; GET %s lists %s", emitted, g, raw, w)
		}
		return got
	}
	// links.children.href of every component.
	for _, c := range testserver.At(t, srv.Get("/api/v1/components", 200).JSON, "components").([]any) {
		id := int64(c.(map[string]any)["id"].(float64))
		href := testserver.At(t, c, "links.children.href")
		if want := fmt.Sprintf("/api/v1/components?filter%%5Bparent_id_eq%%5D=%d", id); href != want {
			t.Errorf("component %d: children href %v, want %s", id, href, want)
		}
		same(srv, "components", href.(string), fmt.Sprintf("/api/v1/components?filter[parent_id_eq]=%d", id))
	}
	// The metrics notices href: the default timeframe, today - 30 days to
	// today; 10 counts 100 (open) and 104 (20 days ago), not 102 (40).
	r := srv.Get("/api/v1/components/10/metrics?show_calculations=true", 200)
	start, end := day(now.AddDate(0, 0, -30)), day(now)
	href := testserver.At(t, r.JSON, "calculation_data_in_timeframe.notices.href")
	want := "/api/v1/notices?filter%5Bmetrics_component_id%5D=10&filter%5Bimpact_timeframe_overlaps%5D%5B%5D=" + start +
		"T00:00:00&filter%5Bimpact_timeframe_overlaps%5D%5B%5D=" + end + "T23:59:59"
	if href != want {
		t.Errorf("metrics notices href %v, want %s", href, want)
	}
	listed := same(srv, "notices", href.(string), "/api/v1/notices?filter[metrics_component_id]=10&filter[impact_timeframe_overlaps][]="+
		start+"T00:00:00&filter[impact_timeframe_overlaps][]="+end+"T23:59:59")
	if got := fmt.Sprint(ids(t, listed, "notices")); got != "[100 104]" {
		t.Errorf("the metrics href lists %s, want [100 104]", got)
	}
	// next_page keeps every applied filter, in the fixed order, encoded:
	// 30 past notices, the 5 last on page 2.
	big := startServer(t, bigDoc(now), options{})
	r = big.Get("/api/v1/notices?filter[timeline_state_eq]=past&filter[type_in][]=general&filter[type_in][]=unplanned", 200)
	next := testserver.At(t, r.JSON, "meta.next_page")
	want = "/api/v1/notices?filter%5Btype_in%5D%5B%5D=general&filter%5Btype_in%5D%5B%5D=unplanned&filter%5Btimeline_state_eq%5D=past&page=2"
	if next != want {
		t.Fatalf("next_page %v, want %s", next, want)
	}
	page2 := same(big, "notices", want, "/api/v1/notices?filter[type_in][]=general&filter[type_in][]=unplanned&filter[timeline_state_eq]=past&page=2")
	if got := fmt.Sprint(ids(t, page2, "notices")); got != fmt.Sprint(seq(51, 59, 2)) {
		t.Errorf("page 2 lists %s, want %v", got, seq(51, 59, 2))
	}
}

func TestIgnoredFiltersHeader(t *testing.T) {
	srv, _ := fixtureServer(t, "a", options{})
	cases := []struct{ path, header string }{
		{"/api/v1/notices?filter[foo]=1&filter[bar]=2&filter[foo]=3", "filter[foo],filter[bar]"},
		{"/api/v1/notices?filter%5Bfoo%5D=1", "filter[foo]"},
		{"/api/v1/components?filter[type_eq]=general", "filter[type_eq]"},
		{"/api/v1/notices?filter[parent_id_eq]=1&filter[type_eq]=", "filter[parent_id_eq],filter[type_eq]"},
		{"/api/v1/notices?per_page=100&filter[type_eq]=general", ""},
	}
	for _, c := range cases {
		r := srv.Get(c.path, 200)
		if got := r.Header.Get("X-Ignored-Filters"); got != c.header {
			t.Errorf("%s: X-Ignored-Filters %q, want %q", c.path, got, c.header)
		}
		if _, present := r.Header["X-Ignored-Filters"]; present != (c.header != "") {
			t.Errorf("%s: header present %v", c.path, present)
		}
	}
}

func TestMethodsAndUnknownPaths(t *testing.T) {
	srv, _ := fixtureServer(t, "a", options{})
	for _, method := range []string{http.MethodPost, http.MethodPut, http.MethodDelete, http.MethodPatch} {
		r := srv.Do(method, "/api/v1/notices")
		if r.Status != 405 || r.Header.Get("Allow") != "GET, HEAD, OPTIONS" {
			t.Errorf("%s: status %d, Allow %q", method, r.Status, r.Header.Get("Allow"))
		}
		testserver.AssertErrorBody(t, method, r, 405, "method_not_allowed")
	}
	for _, path := range []string{"/api/v1/nope", "/v1/components/1", "/api/v2/status", "/api/notices", "/api/v1/notices/1/updates"} {
		r := srv.Do(http.MethodGet, path)
		testserver.AssertErrorBody(t, path, r, 404, "not_found")
	}
	r := srv.Do(http.MethodHead, "/api/v1/status")
	if r.Status != 200 || len(r.Body) != 0 || r.Header.Get("Content-Length") == "0" {
		t.Errorf("HEAD: status %d, body %d bytes, Content-Length %q", r.Status, len(r.Body), r.Header.Get("Content-Length"))
	}
	r = srv.Do(http.MethodOptions, "/api/v1/notices", "Origin", "https://example.org",
		"Access-Control-Request-Method", "GET", "Access-Control-Request-Headers", "if-none-match")
	if r.Status != 204 || r.Header.Get("Access-Control-Allow-Origin") != "*" ||
		!strings.Contains(r.Header.Get("Access-Control-Allow-Methods"), "GET") ||
		r.Header.Get("Access-Control-Allow-Headers") != "if-none-match" {
		t.Errorf("preflight: %d %v", r.Status, r.Header)
	}
}
