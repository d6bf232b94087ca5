package client_test

import (
	"context"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/client"
)

// fakePage answers a few requests as a statusd page would, with fixed
// bodies, so that the example's output does not depend on the clock. The
// client's tests talk to the real server.
func fakePage() *httptest.Server {
	answers := map[string]string{
		"/api/v1/status": `{"page": {"name": "Acme Status", "state": "degraded", "state_text": "Some systems are degraded",
			"url": "https://status.acme.test",
			"links": {"self": "/api/v1", "components": {"href": "/v1/components", "count": 2}, "notices": {"href": "/v1/notices", "count": 2}},
			"created_at": "2026-01-01T00:00:00.000Z", "updated_at": "2026-01-01T00:00:00.000Z"}}`,
		"/api/v1/notices?filter%5Btimeline_state_eq%5D=present&filter%5Btype_eq%5D=unplanned": `{"notices": [
			{"id": 100, "type": "unplanned", "timeline_state": "present", "state": "identified", "subject": "Elevated error rates",
			 "url": "https://status.acme.test/notices/100", "began_at": "2026-02-01T10:00:00.000Z", "ended_at": null,
			 "created_at": "2026-02-01T10:00:00.000Z", "updated_at": "2026-02-01T10:30:00.000Z", "tag_list": ["api"],
			 "links": {"self": "/api/notices/100"},
			 "latest_update": {"state": "identified", "content": "A bad deploy; rolling back.",
			  "created_at": "2026-02-01T10:30:00.000Z", "updated_at": "2026-02-01T10:30:00.000Z"}}],
			"meta": {"count": 1, "total_count": 2,
			 "next_page": "/api/v1/notices?filter%5Btype_eq%5D=unplanned&filter%5Btimeline_state_eq%5D=present&page=2"}}`,
		"/api/v1/notices?filter%5Btype_eq%5D=unplanned&filter%5Btimeline_state_eq%5D=present&page=2": `{"notices": [
			{"id": 99, "type": "unplanned", "timeline_state": "present", "state": "investigating", "subject": "Slow dashboard",
			 "url": "https://status.acme.test/notices/99", "began_at": "2026-02-01T09:00:00.000Z", "ended_at": null,
			 "created_at": "2026-02-01T09:00:00.000Z", "updated_at": "2026-02-01T09:00:00.000Z", "tag_list": [],
			 "links": {"self": "/api/notices/99"},
			 "latest_update": {"state": "investigating", "content": "Looking into it.",
			  "created_at": "2026-02-01T09:00:00.000Z", "updated_at": "2026-02-01T09:00:00.000Z"}}],
			"meta": {"count": 1, "total_count": 2, "next_page": null}}`,
	}
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		body, ok := answers[r.URL.RequestURI()]
		if !ok {
			w.WriteHeader(http.StatusNotFound)
			fmt.Fprintf(w, `{"error": {"status": 404, "code": "not_found", "message": "notice %s not found"}}`, r.URL.Path[len("/api/v1/notices/"):])
			return
		}
		fmt.Fprint(w, body)
	}))
}

// Example reads a page's state, lists its current incidents over every
// page, and tells a missing notice from other errors.
func Example() {
	srv := fakePage()
	defer srv.Close()
	ctx := context.Background()

	c := client.New(srv.URL) // for example https://status.example.com
	page, err := c.Status(ctx)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s: %s\n", page.Name, page.StateText)

	current := client.NoticeQuery{
		Types:          []statusd.NoticeType{statusd.Unplanned},
		TimelineStates: []statusd.TimelineState{statusd.Present},
	}
	for n, err := range c.AllNotices(ctx, current) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("#%d %s (%s since %s)\n", n.ID, n.Subject, *n.State.Value, n.BeganAt.Value.Format("15:04"))
	}

	_, err = c.Notice(ctx, 12345)
	fmt.Println(client.IsNotFound(err), err)
	// Output:
	// Acme Status: Some systems are degraded
	// #100 Elevated error rates (identified since 10:00)
	// #99 Slow dashboard (investigating since 09:00)
	// true statusd: 404 not_found: notice 12345 not found
}
