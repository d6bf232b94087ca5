// Package large builds the large pages that the Go benchmarks and the
// tests of scale read: many components, many notices, in a fixed shape.
package large

import (
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/statusd/statusd"
)

// Document builds a page of components (component 1 the parent of all the
// others, every one with Metrics on) and unplanned notices spread over the
// 13 months before now, each listing one child, with impacts of 1 to
// 120 minutes, one in ten reopened once.
func Document(components, notices int, now time.Time) *statusd.Document {
	rng := rand.New(rand.NewPCG(1, 2))
	doc := &statusd.Document{Page: statusd.Page{Name: "Bench", URL: "https://status.bench.test",
		CreatedAt: now.AddDate(-2, 0, 0), UpdatedAt: now.AddDate(-2, 0, 0)}}
	for i := 1; i <= components; i++ {
		c := statusd.Component{ID: int64(i), Position: i, Name: fmt.Sprintf("C%d", i), MetricsEnabled: true,
			CreatedAt: doc.Page.CreatedAt, UpdatedAt: doc.Page.CreatedAt}
		if i > 1 {
			c.ParentID = &doc.Components[0].ID
		}
		doc.Components = append(doc.Components, c)
	}
	span := now.Sub(now.AddDate(0, -13, 0))
	var uid int64
	up := func(s statusd.State, at time.Time) statusd.Update {
		uid++
		return statusd.Update{ID: uid, State: s, Content: "x", CreatedAt: at, UpdatedAt: at}
	}
	for i := 1; i <= notices; i++ {
		start := now.Add(-time.Duration(rng.Int64N(int64(span)))).Truncate(time.Millisecond)
		impact := time.Duration(1+rng.IntN(120)) * time.Minute
		ups := []statusd.Update{up(statusd.Investigating, start), up(statusd.Recovering, start.Add(impact))}
		if i%10 == 0 {
			ups = append(ups, up(statusd.Identified, start.Add(2*impact)), up(statusd.Resolved, start.Add(3*impact)))
		} else {
			ups = append(ups, up(statusd.Resolved, start.Add(impact+time.Minute)))
		}
		child := int64(2 + rng.IntN(max(1, components-1)))
		doc.Notices = append(doc.Notices, statusd.Notice{ID: int64(i), Type: statusd.Unplanned,
			Subject: "Incident", TagList: []string{}, ComponentIDs: []int64{min(child, int64(components))},
			CreatedAt: start, UpdatedAt: ups[len(ups)-1].CreatedAt, Updates: ups})
	}
	return doc
}
