package server_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/internal/testserver"
)

// bigDoc has 30 components (ids 1-30, positions in reverse id order, 2-30
// children of 1) and 60 notices (ids 1-60): odd ids unplanned and resolved
// long ago, even ids general and present; notice i was created i hours ago,
// so the list runs 1, 2, 3, ... 60.
func bigDoc(now time.Time) *statusd.Document {
	doc := testserver.Fixture(now)
	doc.Components = nil
	for i := 30; i >= 1; i-- {
		c := statusd.Component{ID: int64(i), Name: fmt.Sprintf("C%d", i), Position: 31 - i,
			CreatedAt: testserver.PageCreated, UpdatedAt: testserver.PageCreated}
		if i > 1 {
			c.ParentID = testserver.Ptr(int64(1))
		}
		doc.Components = append(doc.Components, c)
	}
	// The parent must come first in position order: give it position 1.
	doc.Components = append([]statusd.Component{doc.Components[29]}, doc.Components[:29]...)
	for i := range doc.Components {
		doc.Components[i].Position = i + 1
	}
	doc.Notices = nil
	for i := 1; i <= 60; i++ {
		at := now.Add(-time.Duration(i) * time.Hour).Add(-30 * 24 * time.Hour)
		n := statusd.Notice{ID: int64(i), Subject: fmt.Sprintf("N%d", i), TagList: []string{}, ComponentIDs: []int64{},
			CreatedAt: at, UpdatedAt: at}
		if i%2 == 1 {
			n.Type = statusd.Unplanned
			n.ComponentIDs = []int64{2}
			n.Updates = []statusd.Update{testserver.Upd(statusd.Investigating, at, "x"), testserver.Upd(statusd.Resolved, at.Add(time.Minute), "y")}
		} else {
			n.Type = statusd.General
			n.Updates = []statusd.Update{testserver.Upd("", at, "z")}
		}
		doc.Notices = append(doc.Notices, n)
	}
	return doc
}

func ids(t *testing.T, r testserver.Response, key string) []int {
	t.Helper()
	var out []int
	for _, v := range testserver.At(t, r.JSON, key).([]any) {
		out = append(out, int(v.(map[string]any)["id"].(float64)))
	}
	return out
}

func seq(from, to, step int) []int {
	var out []int
	for i := from; i <= to; i += step {
		out = append(out, i)
	}
	return out
}

func TestPagination(t *testing.T) {
	now := time.Now().UTC().Truncate(time.Second)
	srv := startServer(t, bigDoc(now), options{variant: statusd.VariantB})
	// Components: position order is 1, 30, 29, ..., 2.
	compOrder := append([]int{1}, seq(2, 30, 1)...)
	for i, j := 1, len(compOrder)-1; i < j; i, j = i+1, j-1 {
		compOrder[i], compOrder[j] = compOrder[j], compOrder[i]
	}
	next := func(s string) any { return s }
	cases := []struct {
		path      string
		ids       []int
		total     int
		nextPage  any
		collector string
	}{
		{"/api/v1/components", compOrder[:25], 30, next("/api/v1/components?page=2"), "components"},
		{"/api/v1/components?page=2", compOrder[25:], 30, nil, "components"},
		{"/v1/components?page=2", compOrder[25:], 30, nil, "components"},
		{"/api/v1/components?page=3", nil, 30, nil, "components"},
		{"/api/v1/components?filter[parent_id_eq]=1", compOrder[1:26], 29,
			next("/api/v1/components?filter%5Bparent_id_eq%5D=1&page=2"), "components"},
		{"/api/v1/components?page=1&filter%5Bparent_id_eq%5D=1&filter[parent_id_null]=false&foo=1", compOrder[1:26], 29,
			next("/api/v1/components?filter%5Bparent_id_null%5D=false&filter%5Bparent_id_eq%5D=1&page=2"), "components"},
		{"/api/v1/notices", seq(1, 25, 1), 60, next("/api/v1/notices?page=2"), "notices"},
		{"/api/v1/notices?page=2", seq(26, 50, 1), 60, next("/api/v1/notices?page=3"), "notices"},
		{"/api/v1/notices?page=3", seq(51, 60, 1), 60, nil, "notices"},
		{"/api/v1/notices?page=4", nil, 60, nil, "notices"},
		{"/api/v1/notices?page=99999999999999999999", nil, 60, nil, "notices"},
		{"/api/v1/notices?page=0002", seq(26, 50, 1), 60, next("/api/v1/notices?page=3"), "notices"},
		// next_page keeps every applied filter and changes only page.
		{"/api/v1/notices?filter[type_eq]=unplanned&filter[foo]=1", seq(1, 49, 2), 30,
			next("/api/v1/notices?filter%5Btype_eq%5D=unplanned&page=2"), "notices"},
		{"/api/v1/notices?page=2&filter[type_eq]=unplanned", seq(51, 59, 2), 30, nil, "notices"},
		{"/api/v1/notices?filter[timeline_state_eq]=past&filter[metrics_component_id]=1", seq(1, 49, 2), 30,
			next("/api/v1/notices?filter%5Btimeline_state_eq%5D=past&filter%5Bmetrics_component_id%5D=1&page=2"), "notices"},
		{"/api/v1/notices?filter[type_in][]=general&filter[type_in][]=unplanned", seq(1, 25, 1), 60,
			next("/api/v1/notices?filter%5Btype_in%5D%5B%5D=general&filter%5Btype_in%5D%5B%5D=unplanned&page=2"), "notices"},
		{"/api/v1/notices?filter[timeline_state_eq]=present", seq(2, 50, 2), 30,
			next("/api/v1/notices?filter%5Btimeline_state_eq%5D=present&page=2"), "notices"},
	}
	for _, c := range cases {
		r := srv.Get(c.path, 200)
		if got := ids(t, r, c.collector); fmt.Sprint(got) != fmt.Sprint(c.ids) && !(len(got) == 0 && len(c.ids) == 0) {
			t.Errorf("%s: ids %v, want %v", c.path, got, c.ids)
		}
		testserver.AssertJSON(t, c.path+" meta", testserver.At(t, r.JSON, "meta"), testserver.Obj{"count": len(c.ids), "total_count": c.total, "next_page": c.nextPage})
		// Following next_page on statusd itself gives the next page.
		if np, ok := c.nextPage.(string); ok {
			r2 := srv.Get(np, 200)
			if got := testserver.At(t, r2.JSON, "meta.total_count"); got != float64(c.total) {
				t.Errorf("%s: total_count %v after following next_page", np, got)
			}
		}
	}
}

// TestTimelineMovesWithoutWrite checks that a notice turns from past_recent
// to past_distant by itself, 7 days after it ended, with no write.
func TestTimelineMovesWithoutWrite(t *testing.T) {
	now := time.Now().UTC().Truncate(time.Millisecond)
	ended := now.Add(-statusd.RecentPeriod + 1500*time.Millisecond)
	doc := testserver.Fixture(now)
	doc.Notices = []statusd.Notice{{ID: 1, Type: statusd.Unplanned, Subject: "Edge", TagList: []string{},
		ComponentIDs: []int64{}, CreatedAt: ended.Add(-time.Hour), UpdatedAt: ended,
		Updates: []statusd.Update{testserver.Upd(statusd.Investigating, ended.Add(-time.Hour), "a"), testserver.Upd(statusd.Resolved, ended, "b")}},
		{ID: 2, Type: statusd.General, Subject: "Expiring", TagList: []string{}, ComponentIDs: []int64{},
			ExpiresAt: testserver.Ptr(now.Add(1500 * time.Millisecond)), CreatedAt: now.Add(-time.Hour), UpdatedAt: now.Add(-time.Hour),
			Updates: []statusd.Update{testserver.Upd("", now.Add(-time.Hour), "c")}}}
	srv := startServer(t, doc, options{})
	timeline := func(id int) any {
		return testserver.At(t, srv.Get(fmt.Sprintf("/api/v1/notices/%d", id), 200).JSON, "notice.timeline_state")
	}
	if got := timeline(1); got != "past_recent" {
		t.Fatalf("notice 1 before the boundary: %v", got)
	}
	if got := timeline(2); got != "present" {
		t.Fatalf("notice 2 before it expires: %v", got)
	}
	time.Sleep(time.Until(now.Add(1600 * time.Millisecond)))
	if got := timeline(1); got != "past_distant" {
		t.Errorf("notice 1 after the boundary: %v, want past_distant", got)
	}
	if got := timeline(2); got != "past_recent" {
		t.Errorf("notice 2 after it expired: %v, want past_recent", got)
	}
	r := srv.Get("/api/v1/notices?filter[timeline_state_eq]=past_distant", 200)
	if got := ids(t, r, "notices"); fmt.Sprint(got) != "[1]" {
		t.Errorf("past_distant list %v, want [1]", got)
	}
}
