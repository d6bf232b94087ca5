package statusd

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
)

// TestDocumentUpdateChanges: an update's notified and component_changes
// import, export and import again as they were; absent, they are false and
// none, and export leaves them out, so that documents without them read
// and write as before.
func TestDocumentUpdateChanges(t *testing.T) {
	doc := c5Mutate(t, func(d c5obj) {
		u := c5Update(d, 0, 0)
		u["notified"] = true
		u["component_changes"] = []any{
			c5obj{"component_id": 1, "old_state": "operational", "new_state": "degraded"},
			c5obj{"component_id": 2, "old_state": "under_maintenance", "new_state": "degraded"},
			c5obj{"component_id": 3, "old_state": "degraded", "old_impact": "minor", "new_state": "degraded", "new_impact": "critical"},
		}
	})
	got := c5MustDecode(t, doc)
	want := []ComponentChange{{ComponentID: 1, Old: PageOperational, New: PageDegraded}, {ComponentID: 2, Old: PageUnderMaintenance, New: PageDegraded},
		{ComponentID: 3, Old: PageDegraded, New: PageDegraded, OldSeverity: SeverityMinor, NewSeverity: SeverityCritical}}
	if u := got.Notices[0].Updates[0]; !u.Notified || !reflect.DeepEqual(u.Changes, want) {
		t.Errorf("update: notified %v, changes %+v; want true, %+v", u.Notified, u.Changes, want)
	}
	if u := got.Notices[0].Updates[1]; u.Notified || u.Changes != nil {
		t.Errorf("an update without the keys: notified %v, changes %+v; want false, none", u.Notified, u.Changes)
	}
	var out bytes.Buffer
	if err := EncodeDocument(&out, got); err != nil {
		t.Fatal(err)
	}
	const first = `"notified": true,
          "component_changes": [
            {
              "component_id": 1,
              "old_state": "operational",
              "new_state": "degraded"
            },`
	if s := out.String(); !strings.Contains(s, first) || strings.Count(s, `"notified"`) != 1 || strings.Count(s, `"component_changes"`) != 1 {
		t.Errorf("export, want the first update's keys only:\n%s", s)
	}
	again := c5MustDecode(t, out.String())
	if !reflect.DeepEqual(again.Notices, got.Notices) {
		t.Errorf("import of the export:\n%+v\nwant\n%+v", again.Notices, got.Notices)
	}
}

// TestDocumentUpdateChangesRules: each change names a component by a
// positive id and component states, impacts only beside degraded, and
// changes the state or the impact.
func TestDocumentUpdateChangesRules(t *testing.T) {
	doc := c5Mutate(t, func(d c5obj) {
		c5Update(d, 0, 0)["component_changes"] = []any{
			c5obj{"component_id": 0, "old_state": "operational", "new_state": "degraded"},
			c5obj{"component_id": 1, "old_state": "broken", "new_state": "operational"},
			c5obj{"component_id": 1, "old_state": "degraded", "new_state": "degraded", "extra": 1},
			c5obj{"component_id": 1, "old_state": "operational", "old_impact": "minor", "new_state": "degraded", "new_impact": "huge"},
			c5obj{"component_id": 1, "old_state": "degraded", "old_impact": "major", "new_state": "degraded", "new_impact": "major"},
		}
		c5Update(d, 0, 1)["notified"] = "yes"
	})
	p := "notices[0].updates[0].component_changes"
	c5CheckProblems(t, c5Problems(t, doc),
		c5Want{p + "[0].component_id", "must be a positive integer"},
		c5Want{p + "[1].old_state", `"broken" is not a component state`},
		c5Want{p + "[2].new_state", "is the old state"},
		c5Want{p + "[2].extra", "unknown key"},
		c5Want{p + "[3].old_impact", "is only given beside a degraded old_state"},
		c5Want{p + "[3].new_impact", `"huge" is not an impact`},
		c5Want{p + "[4].new_state", "is the old state, with the old impact"},
		c5Want{"notices[0].updates[1].notified", "must be true or false"})
}
