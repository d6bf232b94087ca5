package console

// What an action did to the public page (CONTRACT C8: "after each action
// the console shows the public page's new state"). An action that changes
// what the public page shows answers 303 to a screen whose query says what
// was done and which components it touched (doneURL); that screen reads the
// snapshot the public API reads, which the action refreshed before it
// returned, and shows the page's state, its words, and the touched
// components' states above its content (the layout's "outcome").

import (
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/statusd/statusd"
)

// doneWords say what was done, by the done parameter of a screen.
var doneWords = map[string]string{
	"published":         "Published.",
	"updated":           "Update posted.",
	"resolved":          "Resolved.",
	"reopened":          "Reopened.",
	"edited":            "Changes saved.",
	"deleted":           "Deleted.",
	"component-added":   "Component added.",
	"component-changed": "Component changed.",
	"component-moved":   "Component moved.",
	"component-deleted": "Component deleted.",
	"page-saved":        "Page settings saved.",
}

// outcome is what a screen shows after an action: what was done, the
// public page's state and its words (the v1 API's state and state_text,
// /api/v2/status.json's description), and the states of the components
// the action touched and of the groups above them, in the public order.
type outcome struct {
	Done       string
	State      statusd.PageState
	Text       string
	Components []componentState
	// Link is where to see it on the public page, LinkText its words.
	Link, LinkText string
}

// componentState is a component's name and state on the public page.
type componentState struct {
	Name  string
	State statusd.PageState
}

// doneURL is the console's path (under Root) with the query that makes
// its screen show the outcome of what (a key of doneWords), touching the
// components ids (each once; 0 is none).
func doneURL(path, what string, ids []int64) string {
	var b strings.Builder
	b.WriteString(path + "?done=" + what)
	for i, id := range ids {
		if id > 0 && !slices.Contains(ids[:i], id) {
			b.WriteString("&component=" + strconv.FormatInt(id, 10))
		}
	}
	return b.String()
}

// changed is a done of submit for an action that changes the public page:
// 303 to the console's path with the outcome of what, touching ids.
func changed(w http.ResponseWriter, r *http.Request, path, what string, ids ...int64) func() error {
	return func() error { return back(w, r, doneURL(path, what, ids))() }
}

// outcomeOf is the outcome that r's query names (a GET after an action's
// 303), or nil: no done, or one of no action. Component ids that are not
// ids, or of no component (any more), are left out: the query only says
// what to show.
func (s *Server) outcomeOf(r *http.Request) *outcome {
	if r.Method != http.MethodGet {
		return nil
	}
	q := r.URL.Query()
	words := doneWords[q.Get("done")]
	if words == "" {
		return nil
	}
	var ids []int64
	for _, v := range q["component"] {
		if id, err := strconv.ParseInt(v, 10, 64); err == nil {
			ids = append(ids, id)
		}
	}
	return s.outcome(words, ids)
}

// outcome is the public page's state now, after an action described by
// words that touched the components ids; nil when there is no page.
func (s *Server) outcome(words string, ids []int64) *outcome {
	snap := s.snaps.Current()
	if snap == nil {
		return nil
	}
	o := &outcome{Done: words, State: snap.PageState, Text: snap.Page().StateText,
		Link: snap.Page().URL, LinkText: "See the public page"}
	shown := map[int64]bool{}
	for _, id := range ids {
		// The component and the groups above it, whose states follow it.
		for c := snap.Component(id); c != nil && !shown[c.ID]; {
			shown[c.ID] = true
			if c.ParentID == nil {
				break
			}
			c = snap.Component(*c.ParentID)
		}
	}
	for _, c := range snap.AllComponents {
		if shown[c.ID] {
			o.Components = append(o.Components, componentState{Name: c.Name, State: c.State})
		}
	}
	return o
}
