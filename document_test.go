package statusd

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"
)

// c5BaseDoc is a small valid import document (CONTRACT C5). Every invalid case
// below changes one thing in it.
const c5BaseDoc = `{
  "page": {"name": "Acme Status", "url": "https://status.acme.test",
           "created_at": "2026-01-01T00:00:00.000Z", "updated_at": "2026-01-02T00:00:00.000Z"},
  "components": [
    {"id": 1, "name": "API", "description": "Public REST API", "parent_id": null,
     "metrics_enabled": true,
     "created_at": "2026-01-01T00:00:00.000Z", "updated_at": "2026-01-01T00:00:00.000Z"},
    {"id": 2, "name": "API EU", "description": "", "parent_id": 1, "metrics_enabled": false,
     "created_at": "2026-01-01T00:00:00.000Z", "updated_at": "2026-01-01T00:00:00.000Z"}
  ],
  "notices": [
    {"id": 100, "type": "unplanned", "subject": "Elevated error rates",
     "tag_list": ["api"], "component_ids": [1],
     "impact_seconds": null,
     "created_at": "2026-02-01T10:00:00.000Z", "updated_at": "2026-02-01T11:00:00.000Z",
     "updates": [
       {"state": "investigating", "content": "We are looking into it.",
        "created_at": "2026-02-01T10:00:00.000Z", "updated_at": "2026-02-01T10:00:00.000Z"},
       {"state": "resolved", "content": "Fixed.",
        "created_at": "2026-02-01T11:00:00.000Z", "updated_at": "2026-02-01T11:00:00.000Z"}
     ]},
    {"id": 101, "type": "planned", "subject": "Database upgrade",
     "begins_at": "2026-03-01T02:00:00.000Z", "ends_at": "2026-03-01T03:00:00.000Z",
     "automate": true, "tag_list": [], "component_ids": [1],
     "created_at": "2026-02-20T00:00:00.000Z", "updated_at": "2026-02-20T00:00:00.000Z",
     "updates": [{"state": "scheduled", "content": "Planned.",
                  "created_at": "2026-02-20T00:00:00.000Z", "updated_at": "2026-02-20T00:00:00.000Z"}]},
    {"id": 102, "type": "general", "subject": "New status page", "expires_at": null,
     "tag_list": [], "component_ids": [],
     "created_at": "2026-01-01T00:00:00.000Z", "updated_at": "2026-01-01T00:00:00.000Z",
     "updates": [{"content": "Welcome.",
                  "created_at": "2026-01-01T00:00:00.000Z", "updated_at": "2026-01-01T00:00:00.000Z"}]}
  ]
}`

type c5obj = map[string]any

// mutate decodes c5BaseDoc into a generic tree, lets change edit it and
// returns the edited document.
func c5Mutate(t *testing.T, change func(d c5obj)) string {
	t.Helper()
	var d c5obj
	if err := json.Unmarshal([]byte(c5BaseDoc), &d); err != nil {
		t.Fatalf("c5BaseDoc: %v", err)
	}
	change(d)
	b, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Accessors into the generic tree.
func c5Page(d c5obj) c5obj             { return d["page"].(c5obj) }
func c5Comp(d c5obj, i int) c5obj      { return d["components"].([]any)[i].(c5obj) }
func c5Notice(d c5obj, i int) c5obj    { return d["notices"].([]any)[i].(c5obj) }
func c5Update(d c5obj, i, j int) c5obj { return c5Notice(d, i)["updates"].([]any)[j].(c5obj) }

// c5Want is a problem the decoder must report: the exact path and a
// phrase its message contains.
type c5Want struct{ path, phrase string }

func c5Decode(s string) (*Document, error) { return DecodeDocument(strings.NewReader(s)) }

// problems decodes doc and returns the problems reported, failing the test
// unless the error is a *ValidationError and no document comes back.
func c5Problems(t *testing.T, doc string) []Problem {
	t.Helper()
	got, err := c5Decode(doc)
	if err == nil {
		t.Fatalf("decoded without error, want problems; document:\n%s", doc)
	}
	var verr *ValidationError
	if !errors.As(err, &verr) {
		t.Fatalf("error %T %v, want *ValidationError", err, err)
	}
	if got != nil {
		t.Errorf("a document came back with the error")
	}
	if len(verr.Problems) == 0 {
		t.Fatalf("ValidationError without problems")
	}
	return verr.Problems
}

func c5CheckProblems(t *testing.T, got []Problem, want ...c5Want) {
	t.Helper()
	for _, w := range want {
		found := false
		for _, p := range got {
			if p.Path == w.path && strings.Contains(p.Message, w.phrase) {
				found = true
				break
			}
		}
		if !found {
			t.Errorf("no problem at %q containing %q; got:\n%s", w.path, w.phrase, (&ValidationError{got}).Error())
		}
	}
}

func TestC5BaseDocIsValid(t *testing.T) {
	if _, err := c5Decode(c5BaseDoc); err != nil {
		t.Fatalf("c5BaseDoc: %v", err)
	}
}

func TestDecodeDocumentRules(t *testing.T) {
	cases := []struct {
		name string
		raw  string        // the document as is, when set
		edit func(d c5obj) // else the change to c5BaseDoc
		want []c5Want
	}{
		// Syntax.
		{name: "not JSON", raw: `{"page": {"name": `, want: []c5Want{{"", "not a JSON document"}}},
		{name: "not JSON at all", raw: `page: Acme`, want: []c5Want{{"", "not a JSON document"}}},
		{name: "empty input", raw: ``, want: []c5Want{{"", "not a JSON document"}}},
		{name: "trailing data", raw: c5BaseDoc + ` {"page": null}`, want: []c5Want{{"", "trailing data"}}},
		{name: "trailing garbage", raw: c5BaseDoc + ` x`, want: []c5Want{{"", "trailing data"}}},
		{name: "top level is an array", raw: `[]`, want: []c5Want{{"", "must be an object"}}},
		{name: "top level is a string", raw: `"Acme"`, want: []c5Want{{"", "must be an object"}}},
		{name: "top level is null", raw: `null`, want: []c5Want{{"", "must be an object"}}},
		{name: "unknown top-level key", edit: func(d c5obj) { d["version"] = 2 },
			want: []c5Want{{"version", "unknown key"}}},

		// Page.
		{name: "missing page", edit: func(d c5obj) { delete(d, "page") }, want: []c5Want{{"page", "is required"}}},
		{name: "page null", edit: func(d c5obj) { d["page"] = nil }, want: []c5Want{{"page", "is required"}}},
		{name: "page not an object", edit: func(d c5obj) { d["page"] = "Acme" }, want: []c5Want{{"page", "must be an object"}}},
		{name: "page name empty", edit: func(d c5obj) { c5Page(d)["name"] = "" },
			want: []c5Want{{"page.name", "must not be empty"}}},
		{name: "page name blank", edit: func(d c5obj) { c5Page(d)["name"] = "   " },
			want: []c5Want{{"page.name", "must not be empty"}}},
		{name: "page name missing", edit: func(d c5obj) { delete(c5Page(d), "name") },
			want: []c5Want{{"page.name", "is required"}}},
		{name: "page name not a string", edit: func(d c5obj) { c5Page(d)["name"] = 7 },
			want: []c5Want{{"page.name", "must be a string"}}},
		{name: "page url not absolute", edit: func(d c5obj) { c5Page(d)["url"] = "/status" },
			want: []c5Want{{"page.url", "absolute"}}},
		{name: "page url without host", edit: func(d c5obj) { c5Page(d)["url"] = "https://" },
			want: []c5Want{{"page.url", "absolute"}}},
		{name: "page url not http", edit: func(d c5obj) { c5Page(d)["url"] = "ftp://status.acme.test" },
			want: []c5Want{{"page.url", "absolute"}}},
		{name: "page url missing", edit: func(d c5obj) { delete(c5Page(d), "url") },
			want: []c5Want{{"page.url", "is required"}}},
		{name: "page unknown key", edit: func(d c5obj) { c5Page(d)["theme"] = "dark" },
			want: []c5Want{{"page.theme", "unknown key"}}},
		{name: "page created_at malformed", edit: func(d c5obj) { c5Page(d)["created_at"] = "yesterday" },
			want: []c5Want{{"page.created_at", "must be a timestamp"}}},

		// Components.
		{name: "components not an array", edit: func(d c5obj) { d["components"] = c5obj{} },
			want: []c5Want{{"components", "must be an array"}}},
		{name: "component not an object", edit: func(d c5obj) { d["components"].([]any)[1] = 2 },
			want: []c5Want{{"components[1]", "must be an object"}}},
		{name: "component id missing", edit: func(d c5obj) { delete(c5Comp(d, 1), "id") },
			want: []c5Want{{"components[1].id", "is required"}}},
		{name: "component id null", edit: func(d c5obj) { c5Comp(d, 1)["id"] = nil },
			want: []c5Want{{"components[1].id", "is required"}}},
		{name: "component id not an integer", edit: func(d c5obj) { c5Comp(d, 1)["id"] = "2" },
			want: []c5Want{{"components[1].id", "must be an integer"}}},
		{name: "component id 1.5", edit: func(d c5obj) { c5Comp(d, 1)["id"] = 1.5 },
			want: []c5Want{{"components[1].id", "not an integer"}}},
		{name: "component id zero", edit: func(d c5obj) { c5Comp(d, 1)["id"] = 0 },
			want: []c5Want{{"components[1].id", "must be a positive integer"}}},
		{name: "component id negative", edit: func(d c5obj) { c5Comp(d, 1)["id"] = -2 },
			want: []c5Want{{"components[1].id", "must be a positive integer"}}},
		{name: "component id duplicate", edit: func(d c5obj) { c5Comp(d, 1)["id"] = 1 },
			want: []c5Want{{"components[1].id", "1 is used by another component"}}},
		{name: "component name empty", edit: func(d c5obj) { c5Comp(d, 0)["name"] = "" },
			want: []c5Want{{"components[0].name", "must not be empty"}}},
		{name: "component unknown key", edit: func(d c5obj) { c5Comp(d, 0)["position"] = 1 },
			want: []c5Want{{"components[0].position", "unknown key"}}},
		{name: "component metrics_enabled not a boolean", edit: func(d c5obj) { c5Comp(d, 0)["metrics_enabled"] = "yes" },
			want: []c5Want{{"components[0].metrics_enabled", "must be true or false"}}},
		{name: "component updated_at malformed", edit: func(d c5obj) { c5Comp(d, 0)["updated_at"] = 1767225600 },
			want: []c5Want{{"components[0].updated_at", "must be a timestamp"}}},
		{name: "component key not a string", edit: func(d c5obj) { c5Comp(d, 0)["key"] = 1 },
			want: []c5Want{{"components[0].key", "must be a string"}}},
		{name: "component key upper case", edit: func(d c5obj) { c5Comp(d, 0)["key"] = "API" },
			want: []c5Want{{"components[0].key", `"API" is not a key`}}},
		{name: "component key digits only", edit: func(d c5obj) { c5Comp(d, 1)["key"] = "2" },
			want: []c5Want{{"components[1].key", `"2" is not a key`}}},
		{name: "component key duplicate", edit: func(d c5obj) { c5Comp(d, 0)["key"] = "api"; c5Comp(d, 1)["key"] = "api" },
			want: []c5Want{{"components[1].key", `"api" is the key of component 1`}}},
		{name: "parent_id names a missing component", edit: func(d c5obj) { c5Comp(d, 1)["parent_id"] = 9 },
			want: []c5Want{{"components[1].parent_id", "no component has id 9"}}},
		{name: "parent_id not an integer", edit: func(d c5obj) { c5Comp(d, 1)["parent_id"] = "1" },
			want: []c5Want{{"components[1].parent_id", "must be an integer"}}},
		{name: "parent_id cycle a->b->a", edit: func(d c5obj) { c5Comp(d, 0)["parent_id"] = 2 },
			want: []c5Want{{"components[0].parent_id", "cycle"}, {"components[1].parent_id", "cycle"}}},
		{name: "parent_id self", edit: func(d c5obj) { c5Comp(d, 0)["parent_id"] = 1 },
			want: []c5Want{{"components[0].parent_id", "1 makes a cycle"}}},

		// Notices.
		{name: "notices not an array", edit: func(d c5obj) { d["notices"] = "none" },
			want: []c5Want{{"notices", "must be an array"}}},
		{name: "component_ids names a missing component", edit: func(d c5obj) { c5Notice(d, 0)["component_ids"] = []any{1, 7} },
			want: []c5Want{{"notices[0].component_ids[1]", "no component has id 7"}}},
		{name: "component_ids not an integer", edit: func(d c5obj) { c5Notice(d, 0)["component_ids"] = []any{"1"} },
			want: []c5Want{{"notices[0].component_ids[0]", "must be an integer"}}},
		{name: "component listed twice", edit: func(d c5obj) { c5Notice(d, 1)["component_ids"] = []any{1, 2, 1} },
			want: []c5Want{{"notices[1].component_ids[2]", "component 1 is listed twice"}}},
		{name: "notice id duplicate", edit: func(d c5obj) { c5Notice(d, 2)["id"] = 100 },
			want: []c5Want{{"notices[2].id", "100 is used by another notice"}}},
		{name: "notice id missing", edit: func(d c5obj) { delete(c5Notice(d, 0), "id") },
			want: []c5Want{{"notices[0].id", "is required"}}},
		{name: "notice id zero", edit: func(d c5obj) { c5Notice(d, 0)["id"] = 0 },
			want: []c5Want{{"notices[0].id", "must be a positive integer"}}},
		{name: "unknown notice type", edit: func(d c5obj) { c5Notice(d, 0)["type"] = "incident" },
			want: []c5Want{{"notices[0].type", `"incident" is not a notice type`}}},
		{name: "notice type missing", edit: func(d c5obj) { delete(c5Notice(d, 0), "type") },
			want: []c5Want{{"notices[0].type", "is required"}}},
		{name: "notice subject empty", edit: func(d c5obj) { c5Notice(d, 0)["subject"] = " " },
			want: []c5Want{{"notices[0].subject", "must not be empty"}}},
		{name: "notice without updates", edit: func(d c5obj) { c5Notice(d, 1)["updates"] = []any{} },
			want: []c5Want{{"notices[1].updates", "at least one update"}}},
		{name: "notice updates key missing", edit: func(d c5obj) { delete(c5Notice(d, 2), "updates") },
			want: []c5Want{{"notices[2].updates", "at least one update"}}},
		{name: "unknown key inside a notice", edit: func(d c5obj) { c5Notice(d, 0)["severity"] = "high" },
			want: []c5Want{{"notices[0].severity", "unknown key"}}},
		{name: "tag_list with a non-string", edit: func(d c5obj) { c5Notice(d, 0)["tag_list"] = []any{"api", 3} },
			want: []c5Want{{"notices[0].tag_list[1]", "must be a string"}}},
		{name: "tag_list not an array", edit: func(d c5obj) { c5Notice(d, 0)["tag_list"] = "api" },
			want: []c5Want{{"notices[0].tag_list", "must be an array"}}},
		{name: "notice created_at malformed", edit: func(d c5obj) { c5Notice(d, 0)["created_at"] = "2026-02-01 10:00:00" },
			want: []c5Want{{"notices[0].created_at", "must be a timestamp"}}},
		{name: "notice created_at missing", edit: func(d c5obj) { delete(c5Notice(d, 0), "created_at") },
			want: []c5Want{{"notices[0].created_at", "is required"}}},

		// Keys that belong to one type only.
		{name: "planned without begins_at", edit: func(d c5obj) { delete(c5Notice(d, 1), "begins_at") },
			want: []c5Want{{"notices[1].begins_at", "is required for planned notices"}}},
		{name: "planned with begins_at null", edit: func(d c5obj) { c5Notice(d, 1)["begins_at"] = nil },
			want: []c5Want{{"notices[1].begins_at", "is required for planned notices"}}},
		{name: "planned without ends_at", edit: func(d c5obj) { delete(c5Notice(d, 1), "ends_at") },
			want: []c5Want{{"notices[1].ends_at", "is required for planned notices"}}},
		{name: "begins_at equal to ends_at", edit: func(d c5obj) { c5Notice(d, 1)["ends_at"] = c5Notice(d, 1)["begins_at"] },
			want: []c5Want{{"notices[1].ends_at", "must be after begins_at"}}},
		{name: "begins_at after ends_at", edit: func(d c5obj) { c5Notice(d, 1)["ends_at"] = "2026-03-01T01:00:00.000Z" },
			want: []c5Want{{"notices[1].ends_at", "must be after begins_at"}}},
		{name: "begins_at malformed", edit: func(d c5obj) { c5Notice(d, 1)["begins_at"] = "2026-03-01" },
			want: []c5Want{{"notices[1].begins_at", "must be a timestamp"}}},
		{name: "begins_at on an unplanned notice", edit: func(d c5obj) { c5Notice(d, 0)["begins_at"] = "2026-03-01T02:00:00.000Z" },
			want: []c5Want{{"notices[0].begins_at", "only planned notices"}}},
		{name: "ends_at on a general notice", edit: func(d c5obj) { c5Notice(d, 2)["ends_at"] = "2026-03-01T02:00:00.000Z" },
			want: []c5Want{{"notices[2].ends_at", "only planned notices"}}},
		{name: "expires_at on planned", edit: func(d c5obj) { c5Notice(d, 1)["expires_at"] = "2026-04-01T00:00:00.000Z" },
			want: []c5Want{{"notices[1].expires_at", "only general notices"}}},
		{name: "expires_at on unplanned", edit: func(d c5obj) { c5Notice(d, 0)["expires_at"] = "2026-04-01T00:00:00.000Z" },
			want: []c5Want{{"notices[0].expires_at", "only general notices"}}},
		{name: "impact_seconds on general", edit: func(d c5obj) { c5Notice(d, 2)["impact_seconds"] = 60 },
			want: []c5Want{{"notices[2].impact_seconds", "only unplanned notices"}}},
		{name: "impact_seconds 0 on planned", edit: func(d c5obj) { c5Notice(d, 1)["impact_seconds"] = 0 },
			want: []c5Want{{"notices[1].impact_seconds", "only unplanned notices"}}},
		{name: "automate on unplanned", edit: func(d c5obj) { c5Notice(d, 0)["automate"] = true },
			want: []c5Want{{"notices[0].automate", "only planned notices"}}},
		{name: "automate false on general", edit: func(d c5obj) { c5Notice(d, 2)["automate"] = false },
			want: []c5Want{{"notices[2].automate", "only planned notices"}}},
		{name: "automate not a boolean", edit: func(d c5obj) { c5Notice(d, 1)["automate"] = "yes" },
			want: []c5Want{{"notices[1].automate", "must be true or false"}}},
		{name: "impact_seconds negative", edit: func(d c5obj) { c5Notice(d, 0)["impact_seconds"] = -1 },
			want: []c5Want{{"notices[0].impact_seconds", "must be 0 or more"}}},
		{name: "impact_seconds 1.5", edit: func(d c5obj) { c5Notice(d, 0)["impact_seconds"] = 1.5 },
			want: []c5Want{{"notices[0].impact_seconds", "not an integer"}}},
		// 100 years (36,525 days of 86,400 s) is the most; 300 years used
		// to wrap around to a negative impact.
		{name: "impact_seconds over 100 years", edit: func(d c5obj) { c5Notice(d, 0)["impact_seconds"] = 3_155_760_001 },
			want: []c5Want{{"notices[0].impact_seconds", "must be at most 3155760000 (100 years)"}}},
		{name: "impact_seconds of 300 years", edit: func(d c5obj) { c5Notice(d, 0)["impact_seconds"] = 300 * 31_557_600 },
			want: []c5Want{{"notices[0].impact_seconds", "must be at most 3155760000"}}},

		// Updates.
		{name: "update not an object", edit: func(d c5obj) { c5Notice(d, 0)["updates"].([]any)[1] = "Fixed." },
			want: []c5Want{{"notices[0].updates[1]", "must be an object"}}},
		{name: "update state invalid for type", edit: func(d c5obj) { c5Update(d, 0, 1)["state"] = "resolvd" },
			want: []c5Want{{"notices[0].updates[1].state", `"resolvd" is not a state of an unplanned notice`}}},
		{name: "unplanned state on a planned notice", edit: func(d c5obj) { c5Update(d, 1, 0)["state"] = "investigating" },
			want: []c5Want{{"notices[1].updates[0].state", `"investigating" is not a state of a planned notice`}}},
		{name: "planned state on an unplanned notice", edit: func(d c5obj) { c5Update(d, 0, 0)["state"] = "scheduled" },
			want: []c5Want{{"notices[0].updates[0].state", `"scheduled" is not a state of an unplanned notice`}}},
		{name: "general update with a state", edit: func(d c5obj) { c5Update(d, 2, 0)["state"] = "resolved" },
			want: []c5Want{{"notices[2].updates[0].state", "have no state"}}},
		{name: "unplanned update without state", edit: func(d c5obj) { delete(c5Update(d, 0, 0), "state") },
			want: []c5Want{{"notices[0].updates[0].state", "is required"}}},
		{name: "planned update with empty state", edit: func(d c5obj) { c5Update(d, 1, 0)["state"] = "" },
			want: []c5Want{{"notices[1].updates[0].state", "is required"}}},
		{name: "update state not a string", edit: func(d c5obj) { c5Update(d, 0, 0)["state"] = 1 },
			want: []c5Want{{"notices[0].updates[0].state", "must be a string"}}},
		{name: "update times going backwards", edit: func(d c5obj) { c5Update(d, 0, 1)["created_at"] = "2026-02-01T09:59:59.999Z" },
			want: []c5Want{{"notices[0].updates[1].created_at", "never go backwards"}}},
		{name: "update id duplicate across notices", edit: func(d c5obj) {
			c5Update(d, 0, 0)["id"] = 5
			c5Update(d, 2, 0)["id"] = 5
		}, want: []c5Want{{"notices[2].updates[0].id", "5 is used by another update"}}},
		{name: "update id negative", edit: func(d c5obj) { c5Update(d, 0, 1)["id"] = -4 },
			want: []c5Want{{"notices[0].updates[1].id", "must be a positive integer"}}},
		{name: "update id not an integer", edit: func(d c5obj) { c5Update(d, 0, 1)["id"] = "4" },
			want: []c5Want{{"notices[0].updates[1].id", "must be an integer"}}},
		{name: "update unknown key", edit: func(d c5obj) { c5Update(d, 0, 1)["author"] = "ops" },
			want: []c5Want{{"notices[0].updates[1].author", "unknown key"}}},
		{name: "update content missing", edit: func(d c5obj) { delete(c5Update(d, 0, 1), "content") },
			want: []c5Want{{"notices[0].updates[1].content", "is required"}}},
		{name: "update created_at malformed", edit: func(d c5obj) { c5Update(d, 0, 1)["created_at"] = "2026-02-01T11:00:00" },
			want: []c5Want{{"notices[0].updates[1].created_at", "must be a timestamp"}}},
		{name: "update updated_at malformed", edit: func(d c5obj) { c5Update(d, 0, 1)["updated_at"] = "2026-13-01T00:00:00Z" },
			want: []c5Want{{"notices[0].updates[1].updated_at", "must be a timestamp"}}},
		{name: "update created_at missing", edit: func(d c5obj) { delete(c5Update(d, 2, 0), "created_at") },
			want: []c5Want{{"notices[2].updates[0].created_at", "is required"}}},
	}
	seen := map[string]bool{}
	for _, c := range cases {
		if seen[c.name] {
			t.Fatalf("case %q twice", c.name)
		}
		seen[c.name] = true
		t.Run(c.name, func(t *testing.T) {
			doc := c.raw
			if c.edit != nil {
				doc = c5Mutate(t, c.edit)
			}
			c5CheckProblems(t, c5Problems(t, doc), c.want...)
		})
	}
}

// TestDecodeDocumentTrailingClosers: a document followed by a stray ] or }
// is trailing data too.
func TestDecodeDocumentTrailingClosers(t *testing.T) {
	for _, tail := range []string{"}", "]", " }}", "]x"} {
		c5CheckProblems(t, c5Problems(t, c5BaseDoc+tail), c5Want{"", "trailing data"})
	}
}

// TestDecodeDocumentUpdateIDZero: an update's id, when given, is positive;
// an explicit 0 is neither positive nor absent.
func TestDecodeDocumentUpdateIDZero(t *testing.T) {
	doc := c5Mutate(t, func(d c5obj) { c5Update(d, 0, 1)["id"] = 0 })
	c5CheckProblems(t, c5Problems(t, doc), c5Want{"notices[0].updates[1].id", "must be a positive integer"})
}

// TestDecodeDocumentSeveralProblems checks that every problem is reported,
// not just the first, for both structural and cross-document problems.
func TestDecodeDocumentSeveralProblems(t *testing.T) {
	t.Run("structure", func(t *testing.T) {
		doc := c5Mutate(t, func(d c5obj) {
			d["version"] = 2
			c5Page(d)["name"] = 7
			c5Comp(d, 1)["id"] = "2"
			c5Notice(d, 0)["severity"] = "high"
			c5Notice(d, 0)["tag_list"] = []any{"api", 3}
			c5Update(d, 2, 0)["created_at"] = "now"
		})
		want := []c5Want{
			{"version", "unknown key"},
			{"page.name", "must be a string"},
			{"components[1].id", "must be an integer"},
			{"notices[0].severity", "unknown key"},
			{"notices[0].tag_list[1]", "must be a string"},
			{"notices[2].updates[0].created_at", "must be a timestamp"},
		}
		got := c5Problems(t, doc)
		c5CheckProblems(t, got, want...)
		if len(got) != len(want) {
			t.Errorf("%d problems, want %d:\n%s", len(got), len(want), (&ValidationError{got}).Error())
		}
	})
	t.Run("rules", func(t *testing.T) {
		doc := c5Mutate(t, func(d c5obj) {
			c5Page(d)["url"] = "status.acme.test"
			c5Comp(d, 1)["parent_id"] = 9
			c5Notice(d, 0)["component_ids"] = []any{1, 7}
			c5Update(d, 0, 1)["state"] = "resolvd"
			c5Notice(d, 1)["ends_at"] = c5Notice(d, 1)["begins_at"]
			c5Notice(d, 2)["id"] = 101
			c5Update(d, 2, 0)["state"] = "resolved"
		})
		want := []c5Want{
			{"page.url", "absolute"},
			{"components[1].parent_id", "no component has id 9"},
			{"notices[0].component_ids[1]", "no component has id 7"},
			{"notices[0].updates[1].state", `"resolvd" is not a state of an unplanned notice`},
			{"notices[1].ends_at", "must be after begins_at"},
			{"notices[2].id", "101 is used by another notice"},
			{"notices[2].updates[0].state", "have no state"},
		}
		got := c5Problems(t, doc)
		c5CheckProblems(t, got, want...)
		if len(got) != len(want) {
			t.Errorf("%d problems, want %d:\n%s", len(got), len(want), (&ValidationError{got}).Error())
		}
	})
	t.Run("error text", func(t *testing.T) {
		doc := c5Mutate(t, func(d c5obj) {
			c5Update(d, 0, 1)["state"] = "resolvd"
			c5Notice(d, 0)["impact_seconds"] = -1
		})
		_, err := c5Decode(doc)
		if err == nil {
			t.Fatal("no error")
		}
		lines := strings.Split(err.Error(), "\n")
		if len(lines) != 2 {
			t.Fatalf("Error() has %d lines, want one a problem:\n%s", len(lines), err)
		}
		for _, prefix := range []string{"notices[0].impact_seconds: ", "notices[0].updates[1].state: "} {
			if !strings.Contains(err.Error(), prefix) {
				t.Errorf("Error() lacks %q:\n%s", prefix, err)
			}
		}
	})
}

func c5MustDecode(t *testing.T, doc string) *Document {
	t.Helper()
	d, err := c5Decode(doc)
	if err != nil {
		t.Fatalf("decode: %v\n%s", err, doc)
	}
	return d
}

func c5Time(s string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		panic(err)
	}
	return t.UTC()
}

// TestDecodeDocumentNullForeignKeys: a key that does not belong to a
// notice's type may be present as null.
func TestDecodeDocumentNullForeignKeys(t *testing.T) {
	doc := c5Mutate(t, func(d c5obj) {
		for _, k := range []string{"begins_at", "ends_at", "automate", "expires_at"} {
			c5Notice(d, 0)[k] = nil
		}
		for _, k := range []string{"expires_at", "impact_seconds"} {
			c5Notice(d, 1)[k] = nil
		}
		for _, k := range []string{"begins_at", "ends_at", "automate", "impact_seconds"} {
			c5Notice(d, 2)[k] = nil
		}
	})
	got := c5MustDecode(t, doc)
	n0, n2 := got.Notices[0], got.Notices[2]
	if n0.BeginsAt != nil || n0.EndsAt != nil || n0.Automate || n0.ExpiresAt != nil {
		t.Errorf("unplanned notice with null planned keys: %+v", n0)
	}
	if n2.BeginsAt != nil || n2.ImpactSeconds != nil || n2.Automate {
		t.Errorf("general notice with null keys: %+v", n2)
	}
}

// TestDecodeDocumentDefaults checks the defaults of every omitted optional
// key.
func TestDecodeDocumentDefaults(t *testing.T) {
	doc := `{
	  "page": {"name": "Acme", "url": "http://status.acme.test", "created_at": "2026-01-01T00:00:00.000Z"},
	  "components": [{"id": 3, "name": "API", "created_at": "2026-01-02T00:00:00.000Z"}],
	  "notices": [
	    {"id": 1, "type": "unplanned", "subject": "Down", "created_at": "2026-02-01T00:00:00.000Z",
	     "updates": [{"state": "investigating", "content": "Looking.", "created_at": "2026-02-01T00:00:00.000Z"}]},
	    {"id": 2, "type": "planned", "subject": "Work", "created_at": "2026-02-02T00:00:00.000Z",
	     "begins_at": "2026-03-01T00:00:00.000Z", "ends_at": "2026-03-01T01:00:00.000Z",
	     "updates": [{"state": "scheduled", "content": "Planned.", "created_at": "2026-02-02T00:00:00.000Z"}]},
	    {"id": 3, "type": "general", "subject": "News", "created_at": "2026-02-03T00:00:00.000Z",
	     "updates": [{"content": "Hello.", "created_at": "2026-02-03T00:00:00.000Z"}]}
	  ]
	}`
	got := c5MustDecode(t, doc)
	if got.Page.UpdatedAt != got.Page.CreatedAt || got.Page.CreatedAt != c5Time("2026-01-01T00:00:00Z") {
		t.Errorf("page times %v %v", got.Page.CreatedAt, got.Page.UpdatedAt)
	}
	if got.Page.StateTexts != (StateTexts{}) {
		t.Errorf("page state texts %+v, want none", got.Page.StateTexts)
	}
	c := got.Components[0]
	want := Component{ID: 3, Position: 1, Name: "API", Description: "", ParentID: nil, MetricsEnabled: false,
		CreatedAt: c5Time("2026-01-02T00:00:00Z"), UpdatedAt: c5Time("2026-01-02T00:00:00Z")}
	if !reflect.DeepEqual(c, want) {
		t.Errorf("component %+v, want %+v", c, want)
	}
	for i, n := range got.Notices {
		if n.TagList == nil || len(n.TagList) != 0 {
			t.Errorf("notices[%d].TagList = %#v, want a non-nil empty list", i, n.TagList)
		}
		if n.ComponentIDs == nil || len(n.ComponentIDs) != 0 {
			t.Errorf("notices[%d].ComponentIDs = %#v, want a non-nil empty list", i, n.ComponentIDs)
		}
		if n.ImpactSeconds != nil || n.Automate || n.ExpiresAt != nil {
			t.Errorf("notices[%d]: impact %v automate %v expires %v, want nil false nil", i, n.ImpactSeconds, n.Automate, n.ExpiresAt)
		}
		if n.UpdatedAt != n.CreatedAt || n.CreatedAt.IsZero() {
			t.Errorf("notices[%d] times %v %v", i, n.CreatedAt, n.UpdatedAt)
		}
		for j, u := range n.Updates {
			if u.UpdatedAt != u.CreatedAt || u.CreatedAt.IsZero() {
				t.Errorf("notices[%d].updates[%d] times %v %v", i, j, u.CreatedAt, u.UpdatedAt)
			}
		}
	}
	if g := got.Notices[2].Updates[0].State; g != "" {
		t.Errorf("general update state %q, want none", g)
	}
	if b := got.Notices[1].BeginsAt; b == nil || *b != c5Time("2026-03-01T00:00:00Z") {
		t.Errorf("begins_at %v", b)
	}
	// updated_at given explicitly is kept, not replaced by created_at.
	full := c5MustDecode(t, c5BaseDoc)
	if full.Page.UpdatedAt != c5Time("2026-01-02T00:00:00Z") {
		t.Errorf("page updated_at %v, want the given one", full.Page.UpdatedAt)
	}
	if full.Notices[0].UpdatedAt != c5Time("2026-02-01T11:00:00Z") {
		t.Errorf("notice updated_at %v, want the given one", full.Notices[0].UpdatedAt)
	}
	if full.Components[0].Description != "Public REST API" || !full.Components[0].MetricsEnabled ||
		full.Components[1].ParentID == nil || *full.Components[1].ParentID != 1 {
		t.Errorf("components %+v", full.Components)
	}
	if n := full.Notices[1]; !n.Automate || n.EndsAt == nil || *n.EndsAt != c5Time("2026-03-01T03:00:00Z") {
		t.Errorf("planned notice %+v", n)
	}
	if tags := full.Notices[0].TagList; !reflect.DeepEqual(tags, []string{"api"}) {
		t.Errorf("tag_list %v", tags)
	}
}

func c5UpdateIDs(d *Document) [][]int64 {
	var out [][]int64
	for _, n := range d.Notices {
		var ids []int64
		for _, u := range n.Updates {
			ids = append(ids, u.ID)
		}
		out = append(out, ids)
	}
	return out
}

func TestDecodeDocumentUpdateIDs(t *testing.T) {
	cases := []struct {
		name string
		edit func(d c5obj)
		want [][]int64
	}{
		{"none present: from 1 in document order", func(c5obj) {}, [][]int64{{1, 2}, {3}, {4}}},
		{"one present: from it plus one", func(d c5obj) { c5Update(d, 1, 0)["id"] = 7 }, [][]int64{{8, 9}, {7}, {10}}},
		{"several present: from the largest plus one", func(d c5obj) {
			c5Update(d, 0, 1)["id"] = 7
			c5Update(d, 2, 0)["id"] = 3
		}, [][]int64{{8, 7}, {9}, {3}}},
		{"all present: kept", func(d c5obj) {
			c5Update(d, 0, 0)["id"] = 40
			c5Update(d, 0, 1)["id"] = 20
			c5Update(d, 1, 0)["id"] = 30
			c5Update(d, 2, 0)["id"] = 10
		}, [][]int64{{40, 20}, {30}, {10}}},
		{"null id counts as absent", func(d c5obj) {
			c5Update(d, 0, 0)["id"] = nil
			c5Update(d, 0, 1)["id"] = 2
		}, [][]int64{{3, 2}, {4}, {5}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := c5UpdateIDs(c5MustDecode(t, c5Mutate(t, c.edit)))
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("update ids %v, want %v", got, c.want)
			}
		})
	}
}

func TestDecodeDocumentPositions(t *testing.T) {
	doc := c5Mutate(t, func(d c5obj) {
		// Children before parents, ids out of order: positions still follow
		// the array.
		d["components"] = []any{
			c5obj{"id": 9, "name": "C", "parent_id": 5, "created_at": "2026-01-01T00:00:00Z"},
			c5obj{"id": 5, "name": "A", "created_at": "2026-01-01T00:00:00Z"},
			c5obj{"id": 1, "name": "B", "parent_id": 9, "created_at": "2026-01-01T00:00:00Z"},
			c5obj{"id": 2, "name": "D", "created_at": "2026-01-01T00:00:00Z"},
		}
	})
	got := c5MustDecode(t, doc)
	var ids []int64
	var positions []int
	for _, c := range got.Components {
		ids = append(ids, c.ID)
		positions = append(positions, c.Position)
	}
	if !reflect.DeepEqual(ids, []int64{9, 5, 1, 2}) || !reflect.DeepEqual(positions, []int{1, 2, 3, 4}) {
		t.Errorf("ids %v positions %v, want [9 5 1 2] [1 2 3 4]", ids, positions)
	}
}

func TestDecodeDocumentTimestamps(t *testing.T) {
	cases := []struct{ in, want string }{
		{"2026-02-01T12:30:00.123456789+02:00", "2026-02-01T10:30:00.123Z"},
		{"2026-02-01T00:15:00.9999-01:00", "2026-02-01T01:15:00.999Z"},
		{"2026-02-01T10:00:00Z", "2026-02-01T10:00:00.000Z"},
		{"2026-02-01T10:00:00.5Z", "2026-02-01T10:00:00.500Z"},
		{"2026-01-01T01:00:00.0001+01:00", "2026-01-01T00:00:00.000Z"},
		{"2025-12-31T23:30:00-00:45", "2026-01-01T00:15:00.000Z"},
	}
	for _, c := range cases {
		t.Run(c.in, func(t *testing.T) {
			doc := c5Mutate(t, func(d c5obj) {
				c5Page(d)["created_at"] = c.in
				delete(c5Page(d), "updated_at")
				c5Comp(d, 0)["updated_at"] = c.in
				c5Notice(d, 1)["begins_at"] = c.in
				c5Update(d, 2, 0)["created_at"] = c.in
				c5Update(d, 2, 0)["updated_at"] = c.in
			})
			got := c5MustDecode(t, doc)
			want, err := time.Parse(TimeLayout, c.want)
			if err != nil {
				t.Fatal(err)
			}
			for name, v := range map[string]time.Time{
				"page.created_at":                  got.Page.CreatedAt,
				"page.updated_at":                  got.Page.UpdatedAt,
				"components[0].updated_at":         got.Components[0].UpdatedAt,
				"notices[1].begins_at":             *got.Notices[1].BeginsAt,
				"notices[2].updates[0].created_at": got.Notices[2].Updates[0].CreatedAt,
				"notices[2].updates[0].updated_at": got.Notices[2].Updates[0].UpdatedAt,
			} {
				if !v.Equal(want) || v.Location() != time.UTC || v.Nanosecond()%int(time.Millisecond) != 0 {
					t.Errorf("%s = %v (%s), want %v UTC in whole milliseconds", name, v, v.Location(), want)
				}
				if !reflect.DeepEqual(v, want) {
					t.Errorf("%s = %#v, want %#v", name, v, want)
				}
			}
		})
	}
}

// roundTrip encodes doc and decodes it again.
func c5RoundTrip(t *testing.T, doc *Document) (*Document, string) {
	t.Helper()
	var buf bytes.Buffer
	if err := EncodeDocument(&buf, doc); err != nil {
		t.Fatal(err)
	}
	back, err := DecodeDocument(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatalf("decoding the encoded document: %v\n%s", err, buf.String())
	}
	return back, buf.String()
}

func TestEncodeDecodeRoundTrip(t *testing.T) {
	t.Run("decoded document", func(t *testing.T) {
		doc := c5MustDecode(t, c5Mutate(t, func(d c5obj) {
			c5Page(d)["state_texts"] = c5obj{"operational": "All good", "under_maintenance": "Working on it"}
			c5Notice(d, 0)["impact_seconds"] = 0
			c5Notice(d, 2)["expires_at"] = "2026-05-01T00:00:00.250+02:00"
			c5Update(d, 0, 1)["id"] = 11
			c5Comp(d, 1)["key"] = "api-eu"
			c5Comp(d, 0)["key"] = nil // null: none
		}))
		if doc.Components[1].Key != "api-eu" || doc.Components[0].Key != "" {
			t.Errorf("keys %q and %q, want none and api-eu", doc.Components[0].Key, doc.Components[1].Key)
		}
		back, enc := c5RoundTrip(t, doc)
		if !reflect.DeepEqual(back, doc) {
			t.Errorf("round trip differs:\ngot  %+v\nwant %+v\nencoded:\n%s", back, doc, enc)
		}
		// The second encoding is the same text as the first.
		if _, enc2 := c5RoundTrip(t, back); enc2 != enc {
			t.Errorf("encoding is not stable:\n%s\n---\n%s", enc, enc2)
		}
	})
	t.Run("built document", func(t *testing.T) {
		ts := func(s string) time.Time { return c5Time(s) }
		p := func(t time.Time) *time.Time { return &t }
		i := func(v int64) *int64 { return &v }
		doc := &Document{
			Page: Page{Name: "Acme", URL: "https://status.acme.test/sub", StateTexts: StateTexts{Degraded: "Uh oh"},
				CreatedAt: ts("2026-01-01T00:00:00.001Z"), UpdatedAt: ts("2026-01-03T00:00:00Z")},
			Components: []Component{
				{ID: 7, Position: 1, Name: "Child", ParentID: i(3), CreatedAt: ts("2026-01-01T00:00:00Z"), UpdatedAt: ts("2026-01-01T00:00:00Z")},
				{ID: 3, Position: 2, Name: "Parent", Key: "0_parent-1", Description: "Top", MetricsEnabled: true,
					CreatedAt: ts("2026-01-01T00:00:00Z"), UpdatedAt: ts("2026-01-02T00:00:00.999Z")},
			},
			Notices: []Notice{
				{ID: 1, Type: Unplanned, Subject: "Down", TagList: []string{"a", "b"}, ComponentIDs: []int64{3, 7},
					ImpactSeconds: i(90), CreatedAt: ts("2026-02-01T00:00:00Z"), UpdatedAt: ts("2026-02-01T01:00:00Z"),
					Updates: []Update{
						{ID: 2, State: Investigating, Content: "Looking.", CreatedAt: ts("2026-02-01T00:00:00Z"), UpdatedAt: ts("2026-02-01T00:00:00Z")},
						{ID: 1, State: FalseAlarm, Content: "Nothing.", CreatedAt: ts("2026-02-01T01:00:00Z"), UpdatedAt: ts("2026-02-01T02:00:00Z")},
					}},
				{ID: 2, Type: Planned, Subject: "Work", TagList: []string{}, ComponentIDs: []int64{},
					BeginsAt: p(ts("2026-03-01T00:00:00Z")), EndsAt: p(ts("2026-03-01T00:00:00.001Z")),
					CreatedAt: ts("2026-02-02T00:00:00Z"), UpdatedAt: ts("2026-02-02T00:00:00Z"),
					Updates: []Update{{ID: 5, State: Scheduled, Content: "", CreatedAt: ts("2026-02-02T00:00:00Z"), UpdatedAt: ts("2026-02-02T00:00:00Z")}}},
				{ID: 3, Type: General, Subject: "News", TagList: []string{"news"}, ComponentIDs: []int64{7},
					ExpiresAt: p(ts("2026-04-01T00:00:00Z")), CreatedAt: ts("2026-02-03T00:00:00Z"), UpdatedAt: ts("2026-02-03T00:00:00Z"),
					Updates: []Update{{ID: 9, Content: "Hello.", CreatedAt: ts("2026-02-03T00:00:00Z"), UpdatedAt: ts("2026-02-03T00:00:00Z")}}},
			},
		}
		back, enc := c5RoundTrip(t, doc)
		if !reflect.DeepEqual(back, doc) {
			t.Errorf("round trip differs:\ngot  %+v\nwant %+v\nencoded:\n%s", back, doc, enc)
		}
	})
}

// TestDecodeDocumentRefusesWhatDecodeJSONRefuses: a NUL character in any
// text and a key given twice are problems at their JSON paths, reported
// with the document's other problems; a syntax error names its line and
// column.
func TestDecodeDocumentRefusesWhatDecodeJSONRefuses(t *testing.T) {
	doc := c5Mutate(t, func(d c5obj) {
		c5Page(d)["name"] = "Acme\x00"
		c5Page(d)["state_texts"] = c5obj{"degraded": "\x00"}
		c5Comp(d, 1)["description"] = "EU\x00"
		c5Notice(d, 0)["tag_list"] = []any{"api", "a\x00b"}
		c5Update(d, 1, 0)["content"] = "\x00Planned."
		c5Notice(d, 2)["id"] = 101
	})
	// json.Marshal writes the NUL as \u0000; a second subject is added by
	// hand.
	doc = strings.Replace(doc, `"subject":"Elevated error rates"`, `"subject":"Elevated error rates","subject":"Again"`, 1)
	// json.Marshal writes invalid UTF-8 as U+FFFD: bytes that are not
	// UTF-8 are put in by hand.
	doc = strings.Replace(doc, `"description":"EU`, "\"description\":\"E\xffU", 1)
	nul := "holds a NUL character"
	got := c5Problems(t, doc)
	want := []c5Want{
		{"page.name", nul},
		{"page.state_texts.degraded", nul},
		{"components[1].description", nul},
		{"components[1].description", "not valid UTF-8"},
		{"notices[0].subject", "given twice"},
		{"notices[0].tag_list[1]", nul},
		{"notices[1].updates[0].content", nul},
		{"notices[2].id", "101 is used by another notice"},
	}
	c5CheckProblems(t, got, want...)
	if len(got) != len(want) {
		t.Errorf("%d problems, want %d:\n%s", len(got), len(want), (&ValidationError{got}).Error())
	}
	// Line 3 is `  "components": [` and the bracket is missing its value.
	syntax := strings.Replace(c5BaseDoc, `"components": [`, `"components": [,`, 1)
	c5CheckProblems(t, c5Problems(t, syntax), c5Want{"", "not a JSON document: line 4, column 18: invalid character ','"})
}

// TestDecodeDocumentImpactBound: 100 years of impact, 36,525 days of
// 86,400 s, is the most a notice may claim.
func TestDecodeDocumentImpactBound(t *testing.T) {
	doc := c5MustDecode(t, c5Mutate(t, func(d c5obj) { c5Notice(d, 0)["impact_seconds"] = 3_155_760_000 }))
	if got := doc.Notices[0].ImpactSecondsAt(time.Now()); got != 3_155_760_000 {
		t.Errorf("impact of 100 years: %d seconds", got)
	}
}

// TestDecodeDocumentLinear: a document of 40,000 notices, or components,
// each with a problem, is validated about as fast as a clean one of the
// same size. Each problem used to be compared with every one found before
// (40,000 notices with two problems each took 38 s, where the clean
// document takes under one), and each component's parents were followed
// up to the root, which a long chain of components makes quadratic too.
func TestDecodeDocumentLinear(t *testing.T) {
	const n = 40000
	page := `{"page": {"name": "P", "url": "https://p.test", "created_at": "2026-01-01T00:00:00Z"}, `
	notices := func(extra, components string) string {
		var b strings.Builder
		b.WriteString(page + `"components": [], "notices": [`)
		for i := 1; i <= n; i++ {
			if i > 1 {
				b.WriteString(",\n")
			}
			fmt.Fprintf(&b, `{"id": %d, "type": "unplanned", "subject": "s", %s"component_ids": [%s], "created_at": "2026-01-01T00:00:00Z",`+
				` "updates": [{"state": "investigating", "content": "c", "created_at": "2026-01-01T00:00:00Z"}]}`, i, extra, components)
		}
		b.WriteString("]}")
		return b.String()
	}
	// parent gives the parent_id of component i, from 1.
	components := func(parent func(i int) string) string {
		var b strings.Builder
		b.WriteString(page + `"notices": [], "components": [`)
		for i := 1; i <= n; i++ {
			if i > 1 {
				b.WriteString(",\n")
			}
			fmt.Fprintf(&b, `{"id": %d, "name": "c", "parent_id": %s, "created_at": "2026-01-01T00:00:00Z"}`, i, parent(i))
		}
		b.WriteString("]}")
		return b.String()
	}
	for _, tc := range []struct {
		name       string
		clean, bad string
		want       []c5Want // the problems of the last notice or component
	}{
		// Each notice has an unknown key and lists a component that does
		// not exist.
		{"notices", notices("", ""), notices(`"colour": 1, `, "9"),
			[]c5Want{{fmt.Sprintf("notices[%d].colour", n-1), "unknown key"},
				{fmt.Sprintf("notices[%d].component_ids[0]", n-1), "no component has id 9"}}},
		// One chain of components, 1 under 40,000 under 39,999 ... under
		// 1: a cycle through every one; the clean tree is flat.
		{"components", components(func(int) string { return "null" }),
			components(func(i int) string { return fmt.Sprint((i+n-2)%n + 1) }),
			[]c5Want{{fmt.Sprintf("components[%d].parent_id", n-1), fmt.Sprintf("%d makes a cycle", n-1)}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			c5MustDecode(t, tc.clean)
			cleanTook := time.Since(start)
			start = time.Now()
			got := c5Problems(t, tc.bad)
			badTook := time.Since(start)
			t.Logf("%d %s: %v clean, %v with %d problems", n, tc.name, cleanTook, badTook, len(got))
			if len(got) != len(tc.want)*n {
				t.Errorf("%d problems, want %d", len(got), len(tc.want)*n)
			}
			c5CheckProblems(t, got, tc.want...)
			if badTook > 5*cleanTook+time.Second {
				t.Errorf("the problems took %v to find, the clean document %v to read: not linear", badTook, cleanTook)
			}
		})
	}
}
