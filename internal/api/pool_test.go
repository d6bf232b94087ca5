package api

import (
	"testing"

	"github.com/statusd/statusd"
)

// TestPooledNoticesRelease: a page's room goes back empty, with nothing of
// the page left in it to keep alive or to show on the next page.
func TestPooledNoticesRelease(t *testing.T) {
	room := make([]statusd.NoticeListEntry, 0, 4)
	list := append(room, statusd.NoticeListEntry{NoticeFields: statusd.NoticeFields{ID: 7, Subject: "db down"}},
		statusd.NoticeListEntry{NoticeFields: statusd.NoticeFields{ID: 8, TagList: []string{"eu"}}})
	p := pooledNotices{statusd.NoticesResponse{Notices: list}, &room}
	p.release()
	if len(room) != 0 || cap(room) != 4 {
		t.Fatalf("room back with length %d, capacity %d; want 0, 4", len(room), cap(room))
	}
	for i, e := range room[:cap(room)] {
		if e.ID != 0 || e.Subject != "" || e.TagList != nil {
			t.Errorf("entry %d kept: %+v", i, e.NoticeFields)
		}
	}
}
