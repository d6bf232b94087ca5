package main

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/statusd/statusd"
)

// config is what a generated page depends on.
type config struct {
	Notices    int       // total notices, the current incident included
	Components int       // total components, parents included
	Seed       uint64    // the random seed
	Now        time.Time // the history ends here
}

// info names ids of the generated page that the harness requests.
type info struct {
	Notices, Components, Unplanned, Planned, General int
	// NoticeID is a resolved incident with several updates, for the notice
	// detail request.
	NoticeID int64
	// WriteNoticeID is an old incident that the write measurements change.
	WriteNoticeID int64
	// MetricsParentID is a parent component with Metrics on whose subtree
	// holds many incidents.
	MetricsParentID int64
	// CurrentIncidentID is the one open incident.
	CurrentIncidentID int64
}

func (i info) env() string {
	return fmt.Sprintf("NOTICES=%d\nCOMPONENTS=%d\nUNPLANNED=%d\nPLANNED=%d\nGENERAL=%d\n"+
		"NOTICE_ID=%d\nWRITE_NOTICE_ID=%d\nMETRICS_PARENT_ID=%d\nCURRENT_INCIDENT_ID=%d\n",
		i.Notices, i.Components, i.Unplanned, i.Planned, i.General,
		i.NoticeID, i.WriteNoticeID, i.MetricsParentID, i.CurrentIncidentID)
}

var (
	areas = []string{"API", "Web app", "Databases", "Storage", "Networking", "Authentication", "Billing",
		"Search", "Email delivery", "CDN", "Messaging", "Analytics", "Mobile push", "Webhooks", "DNS",
		"Compute", "Object store", "Monitoring", "Support portal", "Payments"}
	regions = []string{"eu-west", "eu-central", "us-east", "us-west", "ap-south", "ap-northeast",
		"sa-east", "ca-central", "af-south", "me-central"}
	parts = []string{"frontend", "backend", "workers", "scheduler", "gateway", "primary", "replicas",
		"cache", "queue", "admin console", "public endpoint", "internal endpoint"}
	tags     = []string{"api", "database", "network", "latency", "errors", "deploy", "provider", "security", "capacity"}
	symptoms = []string{"Elevated error rates", "Increased latency", "Partial outage", "Degraded performance",
		"Intermittent timeouts", "Delayed processing", "Failed logins", "Connectivity issues"}
	causes = []string{"a faulty deploy", "an overloaded database primary", "a network provider incident",
		"an expired certificate", "a misconfigured load balancer", "disk pressure on storage nodes",
		"a runaway background job", "a DNS resolution problem upstream"}
	works = []string{"Database upgrade", "Network maintenance", "Storage migration", "Kernel patching",
		"Load balancer replacement", "Certificate rotation", "Data centre power work", "Cluster resize"}
	announcements = []string{"Our new status page is live.", "We are changing our maintenance windows.",
		"New region available.", "Scheduled maintenance notifications by email are now available.",
		"We have published the post-mortem of last week's incident."}
)

const ms = time.Millisecond

// generate builds the page of cfg. The same cfg always gives the same
// document.
func generate(cfg config) (*statusd.Document, info) {
	rng := rand.New(rand.NewPCG(cfg.Seed, cfg.Seed^0x9e3779b97f4a7c15))
	now := cfg.Now.Truncate(ms)
	yearAgo := now.AddDate(-1, 0, 0)
	born := now.AddDate(-2, 0, 0)
	doc := &statusd.Document{Page: statusd.Page{Name: "Bench Cloud Status", URL: "https://status.bench.test",
		CreatedAt: born, UpdatedAt: born}}

	// The component tree: one parent for every ten components (at least
	// one), each followed by its children, in document (position) order.
	// Parents have Metrics on, and every third child.
	groups := max(1, (cfg.Components+9)/10)
	children := cfg.Components - groups
	var parentIDs []int64
	childrenOf := map[int64][]int64{}
	id := int64(0)
	for g := range groups {
		id++
		pid := id
		parentIDs = append(parentIDs, pid)
		name := areas[g%len(areas)]
		if groups > len(areas) {
			name += " " + regions[(g/len(areas))%len(regions)]
			if g >= len(areas)*len(regions) {
				name += fmt.Sprintf(" %d", g/(len(areas)*len(regions))+1)
			}
		}
		doc.Components = append(doc.Components, statusd.Component{ID: pid, Position: len(doc.Components) + 1,
			Name: name, Description: "Everything behind " + name, MetricsEnabled: true,
			CreatedAt: born, UpdatedAt: born})
		n := children / groups
		if g < children%groups {
			n++
		}
		for k := range n {
			id++
			c := statusd.Component{ID: id, ParentID: &parentIDs[len(parentIDs)-1], Position: len(doc.Components) + 1,
				Name: name + " " + parts[k%len(parts)], MetricsEnabled: k%3 == 0, CreatedAt: born, UpdatedAt: born}
			if k >= len(parts) {
				c.Name += fmt.Sprintf(" %d", k/len(parts)+1)
			}
			doc.Components = append(doc.Components, c)
			childrenOf[pid] = append(childrenOf[pid], id)
		}
	}
	pickGroup := func() int64 { return parentIDs[rng.IntN(len(parentIDs))] }
	pickChild := func(p int64) int64 {
		if cs := childrenOf[p]; len(cs) > 0 {
			return cs[rng.IntN(len(cs))]
		}
		return p
	}

	var uid int64
	up := func(s statusd.State, at time.Time, content string) statusd.Update {
		uid++
		return statusd.Update{ID: uid, State: s, Content: content, CreatedAt: at, UpdatedAt: at}
	}
	// at picks a uniformly random moment in [from, to).
	at := func(from, to time.Time) time.Time {
		return from.Add(time.Duration(rng.Int64N(int64(to.Sub(from))))).Truncate(ms)
	}
	// minutes draws a log-normal duration around median minutes, clamped.
	minutes := func(median float64, lo, hi time.Duration) time.Duration {
		d := time.Duration(median * math.Exp(rng.NormFloat64()) * float64(time.Minute))
		return min(max(d, lo), hi).Truncate(ms)
	}
	tagList := func() []string {
		out := []string{}
		for range rng.IntN(3) {
			t := tags[rng.IntN(len(tags))]
			if !slices.Contains(out, t) {
				out = append(out, t)
			}
		}
		return out
	}

	general := min(cfg.Notices/10, 3+cfg.Notices/10000)
	future := 2 + cfg.Notices/20000
	planned := cfg.Notices*8/100 + future
	unplanned := cfg.Notices - general - planned // the current incident included
	var notices []statusd.Notice

	// Unplanned: resolved incidents, some false alarms, some reopened.
	for range unplanned - 1 {
		g := pickGroup()
		var comps []int64
		switch r := rng.IntN(100); {
		case r < 70:
			comps = []int64{pickChild(g)}
		case r < 85:
			comps = []int64{pickChild(g)}
			if c := pickChild(g); c != comps[0] {
				comps = append(comps, c)
			}
		case r < 95:
			comps = []int64{g}
		default:
			comps = []int64{pickChild(g)}
			for range 2 {
				if c := pickChild(pickGroup()); !slices.Contains(comps, c) {
					comps = append(comps, c)
				}
			}
		}
		symptom := symptoms[rng.IntN(len(symptoms))]
		where := doc.Components[comps[0]-1].Name
		cause := causes[rng.IntN(len(causes))]
		impact := minutes(40, 3*time.Minute, 12*time.Hour)
		start := at(yearAgo, now.Add(-3*impact-2*time.Hour))
		var ups []statusd.Update
		t := start
		next := func(frac float64) time.Time {
			t = t.Add(max(time.Duration(float64(impact)*frac), time.Second)).Truncate(ms)
			return t
		}
		ups = append(ups, up(statusd.Investigating, t, fmt.Sprintf("We are investigating %s on %s.", strings.ToLower(symptom), where)))
		switch r := rng.IntN(100); {
		case r < 5: // a false alarm
			if rng.IntN(2) == 0 {
				ups = append(ups, up(statusd.Investigating, next(0.3), "We are still looking into the reports."))
			}
			ups = append(ups, up(statusd.FalseAlarm, next(0.5), "This was a monitoring error; the service was not affected."))
		case r < 8: // reopened once
			ups = append(ups, up(statusd.Identified, next(0.3), "The cause is "+cause+"."))
			ups = append(ups, up(statusd.Resolved, next(0.7), "The issue is resolved."))
			ups = append(ups, up(statusd.Investigating, next(0.4), "The errors are back; we are investigating again."))
			ups = append(ups, up(statusd.Identified, next(0.2), "Same cause as before; applying a permanent fix."))
			ups = append(ups, up(statusd.Resolved, next(0.6), "The permanent fix is in place. We apologise for the disruption."))
		default:
			if rng.IntN(10) < 3 {
				ups = append(ups, up(statusd.Investigating, next(0.15), "We are still investigating; more in 30 minutes."))
			}
			if rng.IntN(10) < 7 {
				ups = append(ups, up(statusd.Identified, next(0.3), "We have identified the cause: "+cause+"."))
				if rng.IntN(10) < 2 {
					ups = append(ups, up(statusd.Identified, next(0.2), "A fix is being rolled out."))
				}
			}
			if rng.IntN(10) < 6 {
				ups = append(ups, up(statusd.Recovering, next(0.5), "A fix has been applied; the service is recovering."))
				ups = append(ups, up(statusd.Resolved, next(0.6), "The service has fully recovered."))
			} else {
				ups = append(ups, up(statusd.Resolved, next(0.5), "The issue has been resolved."))
			}
		}
		n := statusd.Notice{Type: statusd.Unplanned, Subject: symptom + " on " + where, TagList: tagList(),
			ComponentIDs: comps, CreatedAt: start, UpdatedAt: ups[len(ups)-1].CreatedAt, Updates: ups}
		if rng.IntN(100) == 0 {
			s := int64(impact / time.Second / 2)
			n.ImpactSeconds = &s
		}
		notices = append(notices, n)
	}

	// The current incident, on a child of the first group (Metrics on).
	{
		c := pickChild(parentIDs[0])
		start := now.Add(-25 * time.Minute)
		notices = append(notices, statusd.Notice{Type: statusd.Unplanned,
			Subject: "Elevated error rates on " + doc.Components[c-1].Name, TagList: []string{"errors"},
			ComponentIDs: []int64{c}, CreatedAt: start, UpdatedAt: now.Add(-10 * time.Minute),
			Updates: []statusd.Update{
				up(statusd.Investigating, start, "We are investigating elevated error rates."),
				up(statusd.Identified, now.Add(-10*time.Minute), "We have identified the cause and are working on a fix."),
			}})
	}

	// Planned: completed maintenance, some cancelled, a few upcoming.
	for i := range planned {
		g := pickGroup()
		comps := []int64{g}
		for range rng.IntN(4) {
			if c := pickChild(g); !slices.Contains(comps, c) {
				comps = append(comps, c)
			}
		}
		work := works[rng.IntN(len(works))]
		length := time.Duration(30+rng.IntN(8)*30) * time.Minute
		var begins time.Time
		if i < future {
			begins = now.Add(time.Duration(1+rng.IntN(14)) * 24 * time.Hour).Truncate(time.Hour)
		} else {
			begins = at(yearAgo, now.Add(-length-time.Hour)).Truncate(time.Minute)
		}
		ends := begins.Add(length)
		created := begins.Add(-time.Duration(1+rng.IntN(14*24)) * time.Hour)
		if i < future && created.After(now) {
			created = now.Add(-time.Hour)
		}
		ups := []statusd.Update{up(statusd.Scheduled, created, fmt.Sprintf("%s is scheduled; short interruptions are possible.", work))}
		switch r := rng.IntN(100); {
		case i < future:
		case r < 10:
			ups = append(ups, up(statusd.Cancelled, begins.Add(-time.Duration(1+rng.IntN(20))*time.Hour).Truncate(ms),
				"This maintenance has been cancelled and will be rescheduled."))
			if ups[1].CreatedAt.Before(created) {
				ups[1].CreatedAt, ups[1].UpdatedAt = created.Add(time.Minute), created.Add(time.Minute)
			}
		default:
			ups = append(ups, up(statusd.Underway, begins, "The maintenance has begun."))
			if rng.IntN(10) < 3 {
				ups = append(ups, up(statusd.Underway, begins.Add(length/2), "The maintenance is half way through."))
			}
			ups = append(ups, up(statusd.Complete, ends, "The maintenance is complete."))
		}
		notices = append(notices, statusd.Notice{Type: statusd.Planned, Subject: work + " (" + doc.Components[g-1].Name + ")",
			TagList: []string{"maintenance"}, ComponentIDs: comps, BeginsAt: &begins, EndsAt: &ends, Automate: false,
			CreatedAt: created, UpdatedAt: ups[len(ups)-1].CreatedAt, Updates: ups})
	}

	// General: one current announcement, the others expired.
	for i := range general {
		created := at(yearAgo, now.Add(-31*24*time.Hour))
		n := statusd.Notice{Type: statusd.General, Subject: announcements[i%len(announcements)], TagList: []string{},
			ComponentIDs: []int64{}, CreatedAt: created, UpdatedAt: created,
			Updates: []statusd.Update{up("", created, announcements[i%len(announcements)]+" Read more on our blog.")}}
		if i == 0 {
			n.CreatedAt = now.Add(-3 * 24 * time.Hour)
			n.UpdatedAt, n.Updates[0].CreatedAt, n.Updates[0].UpdatedAt = n.CreatedAt, n.CreatedAt, n.CreatedAt
		} else {
			exp := created.Add(time.Duration(7+rng.IntN(21)) * 24 * time.Hour)
			n.ExpiresAt = &exp
		}
		notices = append(notices, n)
	}

	// Ids follow creation, as on a live page.
	slices.SortStableFunc(notices, func(a, b statusd.Notice) int { return a.CreatedAt.Compare(b.CreatedAt) })
	inf := info{Notices: len(notices), Components: len(doc.Components), Unplanned: unplanned, Planned: planned,
		General: general, MetricsParentID: parentIDs[0]}
	for i := range notices {
		n := &notices[i]
		n.ID = int64(i + 1)
		if n.Type != statusd.Unplanned {
			continue
		}
		switch {
		case n.Updates[len(n.Updates)-1].State == statusd.Identified:
			inf.CurrentIncidentID = n.ID
		case inf.WriteNoticeID == 0 && len(n.Updates) >= 3:
			inf.WriteNoticeID = n.ID
		case i >= len(notices)/2 && inf.NoticeID == 0 && len(n.Updates) >= 4:
			inf.NoticeID = n.ID
		}
	}
	doc.Notices = notices
	return doc, inf
}
