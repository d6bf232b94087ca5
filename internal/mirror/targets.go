package mirror

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"regexp"
	"strconv"
	"strings"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/internal/snapshot"
)

// Targets are the requests whose answers the copy holds (CONTRACT C10),
// as a client sends them, before the pages that answers lead to (Render
// follows next_page and the history's page links): the pages, feeds,
// badges and assets; the v1 API's status, index, lists (unfiltered and
// with the filters that real clients send), notices and, in Variant A,
// metrics; the Statuspage v2 files of the page (not the file of each
// notice: each carries the page's updated_at, so every change would put
// them all again, and Statuspage's clients read the lists).
func Targets(snap *snapshot.Snapshot, variant statusd.Variant) []string {
	t := []string{"/", "/history", "/history.atom", "/history.rss",
		"/assets/style.css", "/assets/app.js", "/assets/icon.svg", "/favicon.ico",
		"/badge/status.json", "/badge/status.svg",
		"/api/v1", "/api/v1/status", "/api/v1/components", "/api/v1/notices",
		"/api/v1/components?" + filter("parent_id_null", "true"),
		"/api/v2/summary.json", "/api/v2/status.json", "/api/v2/components.json", "/api/v2/incidents.json",
		"/api/v2/scheduled-maintenances.json", "/api/v2/incidents/unresolved.json",
		"/api/v2/scheduled-maintenances/upcoming.json", "/api/v2/scheduled-maintenances/active.json",
	}
	for _, state := range []string{"present", "future", "past"} {
		t = append(t, "/api/v1/notices?"+filter("timeline_state_eq", state))
	}
	for _, typ := range []string{"general", "planned", "unplanned"} {
		t = append(t, "/api/v1/notices?"+filter("type_eq", typ))
	}
	parents := map[int64]bool{}
	for _, c := range snap.AllComponents {
		id := strconv.FormatInt(c.ID, 10)
		t = append(t, "/badge/components/"+id+".json", "/badge/components/"+id+".svg")
		if c.ParentID != nil && !parents[*c.ParentID] {
			parents[*c.ParentID] = true
			t = append(t, "/api/v1/components?"+filter("parent_id_eq", strconv.FormatInt(*c.ParentID, 10)))
		}
		if variant == statusd.VariantA && c.MetricsEnabled {
			t = append(t, "/components/"+id+"/metrics", "/api/v1/components/"+id+"/metrics")
		}
	}
	for _, n := range snap.AllNotices() {
		id := strconv.FormatInt(n.ID, 10)
		t = append(t, "/notices/"+id, "/api/v1/notices/"+id)
	}
	return t
}

// filter is the query of one filter, its brackets percent-encoded as the
// API's next_page writes them.
func filter(key, value string) string { return "filter%5B" + key + "%5D=" + value }

// Answer is one file of the copy: a target's answer.
type Answer struct {
	Target      string
	Body        []byte
	ContentType string
	SHA256      string
}

// Render asks h, the public reads' handler (server.Renderer), for each
// target, and for the further pages the answers lead to, and hands each
// successful answer to take, in the order asked, as it comes: a push
// holds only the answers it has yet to put. A target answered other than
// 200 is left out.
func Render(ctx context.Context, h http.Handler, targets []string, take func(Answer)) error {
	seen := make(map[string]bool, len(targets))
	queue := make([]string, 0, len(targets))
	for _, t := range targets {
		if !seen[t] {
			seen[t] = true
			queue = append(queue, t)
		}
	}
	for i := 0; i < len(queue); i++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		a, ok := render(ctx, h, queue[i])
		if !ok {
			continue
		}
		for _, next := range further(a) {
			if !seen[next] {
				seen[next] = true
				queue = append(queue, next)
			}
		}
		take(a)
	}
	return nil
}

// render asks h for target; ok is false when the answer is not a 200.
func render(ctx context.Context, h http.Handler, target string) (Answer, bool) {
	r, err := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
	if err != nil {
		return Answer{}, false
	}
	r.RemoteAddr = "127.0.0.1:0"
	w := &recorder{header: http.Header{}}
	h.ServeHTTP(w, r)
	if w.status != 0 && w.status != http.StatusOK {
		return Answer{}, false
	}
	body := w.body.Bytes()
	return Answer{Target: target, Body: body, ContentType: w.header.Get("Content-Type"), SHA256: Hash(body)}, true
}

// historyPage matches the history's links to its other pages.
var historyPage = regexp.MustCompile(`href="(/history\?page=[0-9]+)"`)

// further are the targets an answer leads to: a list's next page, the
// history's other pages.
func further(a Answer) []string {
	switch {
	case strings.HasPrefix(a.Target, "/api/v1/"):
		var list struct {
			Meta *struct {
				NextPage *string `json:"next_page"`
			} `json:"meta"`
		}
		if json.Unmarshal(a.Body, &list) == nil && list.Meta != nil && list.Meta.NextPage != nil {
			return []string{*list.Meta.NextPage}
		}
	case a.Target == "/history" || strings.HasPrefix(a.Target, "/history?"):
		var out []string
		for _, m := range historyPage.FindAllSubmatch(a.Body, -1) {
			out = append(out, string(m[1]))
		}
		return out
	}
	return nil
}

// recorder keeps an in-process answer.
type recorder struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (w *recorder) Header() http.Header { return w.header }

func (w *recorder) WriteHeader(status int) {
	if w.status == 0 {
		w.status = status
	}
}

func (w *recorder) Write(b []byte) (int, error) {
	w.WriteHeader(http.StatusOK)
	return w.body.Write(b)
}
