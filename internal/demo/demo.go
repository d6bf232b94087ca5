// Package demo builds the realistic demo page that `statusd serve --demo` publishes.
package demo

import (
	"slices"
	"time"

	"github.com/statusd/statusd"
)

// URL is the page url of the demo page; serve --demo uses it to recognise a database that holds the demo.
const URL = "https://status.demo.statusd.dev"

// pageName is the name of the demo page.
const pageName = "Northwind Cloud Status"

const (
	minute = time.Minute
	hour   = time.Hour
	day    = 24 * time.Hour
)

// Component ids, in position order: parents come right before their children.
const (
	webApp int64 = iota + 1
	dashboard
	signIn
	mobile
	api
	restAPI
	graphQL
	webhooks
	data
	databases
	fileStorage
	email
)

// Short names of the update states.
const (
	investigating = statusd.Investigating
	identified    = statusd.Identified
	recovering    = statusd.Recovering
	resolved      = statusd.Resolved
	falseAlarm    = statusd.FalseAlarm
	scheduled     = statusd.Scheduled
	underway      = statusd.Underway
	complete      = statusd.Complete
	cancelled     = statusd.Cancelled
	none          = statusd.State("")
)

// step is one update, posted after a notice's reference time: its first
// update for incidents and announcements, begins_at for maintenances.
type step struct {
	after time.Duration
	state statusd.State
	text  string
}

// clock places the demo's times relative to now: anchor is now truncated to
// the minute, midnight the start of its UTC day.
type clock struct {
	anchor, midnight time.Time
}

func newClock(now time.Time) clock {
	anchor := now.UTC().Truncate(minute)
	return clock{anchor: anchor, midnight: anchor.Truncate(day)}
}

// ago returns the time d days, h hours and m minutes before now.
func (c clock) ago(d, h, m int) time.Time {
	return c.anchor.Add(-(time.Duration(d)*day + time.Duration(h)*hour + time.Duration(m)*minute))
}

// at returns h:m UTC on the day d days after today (d < 0: before).
func (c clock) at(d, h, m int) time.Time {
	return c.midnight.Add(time.Duration(d)*day + time.Duration(h)*hour + time.Duration(m)*minute)
}

func tags(t ...string) []string {
	if t == nil {
		return []string{}
	}
	return t
}

func on(ids ...int64) []int64 {
	if ids == nil {
		return []int64{}
	}
	return ids
}

func notice(typ statusd.NoticeType, ref time.Time, subject string, tagList []string, comps []int64, steps []step) statusd.Notice {
	n := statusd.Notice{Type: typ, Subject: subject, TagList: tagList, ComponentIDs: comps}
	for _, s := range steps {
		t := ref.Add(s.after).UTC().Truncate(time.Millisecond)
		n.Updates = append(n.Updates, statusd.Update{State: s.state, Content: s.text, CreatedAt: t, UpdatedAt: t})
	}
	n.CreatedAt = n.Updates[0].CreatedAt
	n.UpdatedAt = n.Updates[len(n.Updates)-1].CreatedAt
	return n
}

// incident is an unplanned notice whose first update is posted at start.
func incident(start time.Time, subject string, tagList []string, comps []int64, steps ...step) statusd.Notice {
	return notice(statusd.Unplanned, start, subject, tagList, comps, steps)
}

// maintenance is a planned notice scheduled from begins for length; its
// steps are relative to begins.
func maintenance(begins time.Time, length time.Duration, subject string, tagList []string, comps []int64, steps ...step) statusd.Notice {
	n := notice(statusd.Planned, begins, subject, tagList, comps, steps)
	b, e := begins, begins.Add(length)
	n.BeginsAt, n.EndsAt = &b, &e
	return n
}

// announcement is a general notice posted at posted that expires at expires
// (nil: never).
func announcement(posted time.Time, expires *time.Time, subject string, tagList []string, comps []int64, steps ...step) statusd.Notice {
	n := notice(statusd.General, posted, subject, tagList, comps, steps)
	n.ExpiresAt = expires
	return n
}

func automated(n statusd.Notice) statusd.Notice {
	n.Automate = true
	return n
}

func withImpact(n statusd.Notice, seconds int64) statusd.Notice {
	n.ImpactSeconds = &seconds
	return n
}

func ptr(t time.Time) *time.Time { return &t }

// Document returns the demo page with every time relative to now (deterministic for a given now).
func Document(now time.Time) *statusd.Document {
	c := newClock(now)
	created := c.at(-395, 9, 30)
	doc := &statusd.Document{
		Page: statusd.Page{
			Name:      pageName,
			URL:       URL,
			CreatedAt: created,
			UpdatedAt: c.at(-120, 14, 5),
		},
		Components: components(created),
		Notices:    notices(c),
	}
	return doc
}

func components(created time.Time) []statusd.Component {
	list := []struct {
		parent      int64
		name        string
		description string
		metrics     bool
	}{
		{0, "Web Application", "The Northwind Cloud web app at app.northwind.cloud.", true},
		{webApp, "Dashboard", "Projects, charts and reports in the web app.", true},
		{webApp, "Sign-in & SSO", "Password, Google and SAML single sign-on.", false},
		{webApp, "Mobile Apps", "The iOS and Android apps and their push notifications.", false},
		{0, "API", "Programmatic access to Northwind Cloud.", false},
		{api, "REST API", "The v2 REST API at api.northwind.cloud.", true},
		{api, "GraphQL API", "Queries, mutations and real-time subscriptions.", false},
		{api, "Webhooks", "Delivery of event notifications to customer endpoints.", true},
		{0, "Data & Storage", "Where customer data lives.", true},
		{data, "Databases", "The managed PostgreSQL clusters behind every project.", false},
		{data, "File Storage", "Uploads, attachments and exports.", true},
		{0, "Email Notifications", "Alerts, digests and account emails sent to users.", false},
	}
	out := make([]statusd.Component, len(list))
	for i, l := range list {
		out[i] = statusd.Component{
			ID:             int64(i + 1),
			Position:       i + 1,
			Name:           l.name,
			Description:    l.description,
			MetricsEnabled: l.metrics,
			CreatedAt:      created,
			UpdatedAt:      created,
		}
		if l.parent != 0 {
			p := l.parent
			out[i].ParentID = &p
		}
	}
	return out
}

func notices(c clock) []statusd.Notice {
	list := []statusd.Notice{
		// Future: scheduled maintenances.
		automated(maintenance(c.at(9, 2, 0), 2*hour, "Primary database major version upgrade",
			tags("database"), on(databases),
			step{-11 * day, scheduled, "We will upgrade our primary PostgreSQL clusters to the next major version. Writes will be paused for up to 10 minutes during the window; reads stay available throughout."},
		)),
		automated(maintenance(c.at(3, 3, 0), 90*minute, "Webhook delivery pipeline migration",
			tags("webhooks"), on(webhooks),
			step{-7 * day, scheduled, "We are moving webhook delivery to a new queueing system. Deliveries may be delayed by up to 5 minutes during the window; no events will be lost."},
			step{-4 * day, scheduled, "Reminder: this maintenance is still on schedule. Retries of failed deliveries will be paused for its duration."},
		)),
		maintenance(c.at(16, 1, 0), 3*hour, "File storage replication upgrade",
			tags("storage"), on(fileStorage),
			step{-18 * day, scheduled, "We are upgrading the replication layer of our file storage. Uploads may fail intermittently during the window; downloads are not affected."},
			step{-17 * day, scheduled, "We have moved this window one week later so that it does not overlap with the database upgrade."},
		),

		// Present.
		incident(c.ago(0, 0, 52), "Elevated latency loading dashboards",
			tags("performance"), on(dashboard),
			step{0, investigating, "We are investigating reports of slow page loads and timeouts on the dashboard. Some customers see charts fail to render."},
			step{18 * minute, identified, "We have identified a slow query against the reporting replica, introduced by this morning's deploy. We are rolling the change back."},
			step{41 * minute, identified, "The rollback is 60% complete. Dashboards load normally again for most customers; some charts may still take longer than usual."},
		),
		maintenance(c.ago(0, 1, 10), 3*hour, "Email delivery provider migration",
			tags("email"), on(email),
			step{-5 * day, scheduled, "We are moving outgoing email to a new delivery provider. Notification emails may be delayed by up to 15 minutes during the window."},
			step{0, underway, "The migration has started. We are moving traffic to the new provider in stages, starting with digest emails."},
		),
		incident(c.ago(0, 4, 5), "Delayed webhook deliveries",
			tags("webhooks"), on(webhooks),
			step{0, investigating, "Webhook deliveries are delayed by up to 20 minutes. We are investigating."},
			step{25 * minute, identified, "A consumer group on our event queue stopped processing after a broker failover. We have restarted the consumers."},
			step{70 * minute, recovering, "The consumers are working through the backlog. New events are delivered in real time; delayed events will arrive, in order, over the next hour."},
		),
		announcement(c.at(-21, 16, 0), nil, "Follow status updates in your feed reader",
			tags("announcement"), on(),
			step{0, none, "You can follow this page in a feed reader to hear about incidents and maintenance as they happen: the Atom and RSS feeds are linked at the bottom of every page."},
		),
		announcement(c.at(-3, 9, 0), ptr(c.at(25, 0, 0)), "Upcoming changes to API rate limits",
			tags("api"), on(restAPI, graphQL),
			step{0, none, "From next month, API rate limits will be applied per token instead of per account. Most integrations will not notice a difference."},
			step{day, none, "We have published the new limits and a migration guide in the developer docs."},
		),

		// Recently ended.
		incident(c.at(-2, 8, 14), "Sign-in failures for SSO users",
			tags("sso", "third-party"), on(signIn),
			step{0, investigating, "Some customers using SAML single sign-on cannot sign in. Password and Google sign-in work normally. We are investigating."},
			step{12 * minute, identified, "An identity provider rotated its signing certificate without notice and our service provider rejects the new signatures. We are deploying the new certificate."},
			step{37 * minute, resolved, "The new certificate is deployed and SSO sign-in works again. Customers who were signed out can sign in as usual."},
		),
		incident(c.at(-4, 15, 2), "Increased GraphQL error rates",
			tags("api"), on(graphQL),
			step{0, investigating, "About 8% of GraphQL requests are failing with internal errors. We are investigating."},
			step{20 * minute, identified, "A schema change made some nested queries exceed the query cost limit and fail. We are reverting it."},
			step{45 * minute, recovering, "The revert is deployed and error rates are back to normal. We are watching closely."},
			step{90 * minute, resolved, "Error rates have stayed normal for 45 minutes. This incident is resolved; we will add cost-limit checks to our schema review."},
		),
		incident(c.at(-5, 19, 40), "Push notifications delayed on mobile apps",
			tags("mobile", "third-party"), on(mobile),
			step{0, investigating, "Push notifications to the iOS and Android apps are arriving late. We are investigating."},
			step{35 * minute, identified, "Our push provider is having an incident that delays deliveries. We are following their updates."},
			step{125 * minute, resolved, "Our push provider has resolved their incident and notifications are delivered in real time again."},
		),
		maintenance(c.at(-3, 1, 0), 2*hour, "Network equipment upgrade in the primary region",
			tags("network"), on(restAPI, graphQL, webhooks),
			step{-6 * day, scheduled, "We will replace core switches in our primary region. We expect no downtime, but some API requests may see extra latency while traffic moves between network paths."},
			step{0, underway, "The maintenance has started. Traffic has moved to the secondary network path."},
			step{105 * minute, complete, "The upgrade finished ahead of schedule. All traffic is back on the primary network path."},
		),
		announcement(c.at(-12, 10, 0), ptr(c.ago(2, 0, 0)), "Reduced support coverage this week",
			tags("support"), on(),
			step{0, none, "Our support team is at its yearly offsite this week. Expect replies within one business day; urgent incidents are still handled around the clock."},
		),

		// Past: resolved incidents over the last year.
		incident(c.at(-12, 13, 21), "Slow file uploads",
			tags("storage", "performance"), on(fileStorage),
			step{0, investigating, "Uploads larger than 50 MB are slow or time out. We are investigating."},
			step{28 * minute, identified, "One of our storage gateways is saturated after a burst of export jobs. We are adding capacity."},
			step{74 * minute, resolved, "Capacity has been added and upload speeds are back to normal."},
		),
		incident(c.at(-19, 7, 48), "REST API requests failing with 502 errors",
			tags("api"), on(restAPI, graphQL),
			step{0, investigating, "A share of API requests are failing with 502 Bad Gateway. We are investigating."},
			step{14 * minute, identified, "A bad configuration push left part of our load balancer fleet without healthy backends. We are rolling it back."},
			step{31 * minute, recovering, "The rollback is complete and error rates are dropping."},
			step{62 * minute, resolved, "Error rates have been normal for 30 minutes. We are adding a canary stage to configuration pushes."},
		),
		incident(c.at(-27, 10, 5), "Dashboard unavailable for some customers in Europe",
			tags("performance"), on(dashboard),
			step{0, investigating, "Some customers in Europe cannot load the dashboard. We are investigating."},
			step{47 * minute, resolved, "A CDN edge location was serving stale error pages. Our CDN provider has fixed it and the dashboard loads normally."},
		),
		incident(c.at(-34, 22, 17), "Reports of failed sign-ins",
			tags("sso"), on(signIn),
			step{0, investigating, "Our monitoring reports failed sign-ins. We are investigating."},
			step{19 * minute, falseAlarm, "This was a false alarm: a monitoring probe was using an expired test account. No customers were affected."},
		),
		incident(c.at(-45, 16, 3), "Webhook deliveries timing out",
			tags("webhooks"), on(webhooks),
			step{0, investigating, "Some webhook deliveries are timing out. We are investigating."},
			step{20 * minute, identified, "Outbound connections are exhausting a NAT gateway's port range. We are moving webhook traffic to additional gateways."},
			step{55 * minute, resolved, "Webhook traffic now uses the additional gateways and deliveries succeed again."},
			step{130 * minute, investigating, "We are seeing delivery timeouts again and have reopened this incident."},
			step{220 * minute, resolved, "A second gateway had the same port limit. Both are now resized and deliveries have been healthy for an hour. Failed deliveries have been retried."},
		),
		withImpact(incident(c.at(-58, 3, 40), "Brief write errors during database failover",
			tags("database"), on(databases, restAPI),
			step{0, investigating, "We received alerts about failed writes on one of our database clusters. We are investigating."},
			step{11 * minute, identified, "The cluster failed over to its standby after a disk failure. Writes failed for about four minutes during the failover."},
			step{40 * minute, resolved, "The cluster is healthy on the new primary and a replacement standby is in sync. Customer impact was limited to the four minutes of failed writes."},
		), 240),
		incident(c.at(-71, 11, 30), "Email notifications delayed",
			tags("email"), on(email),
			step{0, investigating, "Alert and digest emails are arriving up to an hour late. We are investigating."},
			step{33 * minute, identified, "A mail relay was throttled by a receiving provider. We have spread sending across more IP addresses."},
			step{95 * minute, resolved, "The queue has drained and emails are delivered on time again."},
		),
		incident(c.at(-83, 18, 12), "iOS app crashing on launch",
			tags("mobile"), on(mobile),
			step{0, investigating, "We are investigating reports of the iOS app crashing on launch after today's update."},
			step{40 * minute, identified, "The crash affects devices on older iOS versions. We have stopped the rollout and submitted a fixed build."},
			step{6 * hour, recovering, "The fixed build is available in the App Store. Please update the app if it still crashes."},
			step{26 * hour, resolved, "Nearly all affected devices have updated and crash reports are back to normal."},
		),
		incident(c.at(-96, 14, 55), "Degraded performance across the web application",
			tags("performance"), on(dashboard, signIn),
			step{0, investigating, "Pages in the web app are loading slowly. We are investigating."},
			step{25 * minute, identified, "A cache cluster lost a node and the remaining nodes are overloaded. We are replacing it."},
			step{58 * minute, resolved, "The cache cluster is back at full capacity and page loads are fast again."},
		),
		incident(c.at(-112, 9, 8), "Elevated error rates on file downloads",
			tags("storage"), on(fileStorage),
			step{0, investigating, "Some file downloads fail with errors. We are investigating."},
			step{22 * minute, identified, "Signed download links were generated with a clock skew on two servers. We have corrected their time sync."},
			step{36 * minute, resolved, "Downloads work normally. Links created during the incident may need to be generated again."},
		),
		incident(c.at(-127, 20, 41), "Partial outage of the REST API",
			tags("api"), on(restAPI),
			step{0, investigating, "Around a third of REST API requests are failing. We are investigating."},
			step{16 * minute, identified, "A database connection pool limit was lowered by mistake in the last deploy. We are raising it back."},
			step{29 * minute, recovering, "The fix is deployed and requests are succeeding. We are monitoring."},
			step{57 * minute, resolved, "The API has been stable for half an hour. This incident is resolved."},
		),
		incident(c.at(-141, 8, 2), "SSO sign-in loop for Okta customers",
			tags("sso", "third-party"), on(signIn),
			step{0, investigating, "Customers who sign in through Okta are sent back to the sign-in page. We are investigating."},
			step{42 * minute, identified, "A cookie setting change broke the SAML callback in some browsers. We are reverting it."},
			step{71 * minute, resolved, "The revert is live and Okta sign-in works again."},
		),
		incident(c.at(-158, 12, 26), "Delayed data in dashboards",
			tags("database"), on(dashboard, databases),
			step{0, investigating, "Dashboards are showing data that is up to 30 minutes old. We are investigating."},
			step{38 * minute, identified, "Replication to the reporting replicas fell behind after a large batch import. We are throttling the import."},
			step{2 * hour, resolved, "The replicas have caught up and dashboards show current data again."},
		),
		incident(c.at(-176, 5, 50), "Upstream DNS provider outage",
			tags("dns", "third-party"), on(dashboard, restAPI, graphQL, webhooks),
			step{0, investigating, "Some customers cannot resolve our domains. We are investigating."},
			step{15 * minute, identified, "Our DNS provider is having a global outage. We are switching to our secondary provider."},
			step{48 * minute, recovering, "Our domains resolve through the secondary provider. Some resolvers may still have failed lookups cached for a few minutes."},
			step{95 * minute, resolved, "Resolution is working everywhere and the primary provider has recovered."},
		),
		incident(c.at(-214, 17, 33), "GraphQL subscriptions disconnecting",
			tags("api"), on(graphQL),
			step{0, investigating, "GraphQL subscription connections are dropping every few minutes. We are investigating."},
			step{50 * minute, identified, "A load balancer idle timeout was shortened during an upgrade. We are restoring the previous value."},
			step{84 * minute, resolved, "The timeout is restored and subscriptions stay connected."},
		),
		incident(c.at(-259, 2, 15), "Slow writes on a database cluster",
			tags("database", "performance"), on(databases),
			step{0, investigating, "Writes to one database cluster are slower than usual. We are investigating."},
			step{27 * minute, identified, "The cluster's storage volume is nearly full and compaction is falling behind. We are expanding the volume."},
			step{100 * minute, resolved, "The volume has been expanded and write latency is back to normal. We have lowered the alert threshold for disk usage."},
		),
		incident(c.at(-302, 15, 10), "Outbound email bouncing for some domains",
			tags("email"), on(email),
			step{0, investigating, "Emails to some corporate domains are bouncing. We are investigating."},
			step{3 * hour, resolved, "Our sending domain's SPF record exceeded the DNS lookup limit. It has been flattened and emails are delivered again."},
		),
		incident(c.at(-349, 11, 44), "Webhook signatures failing verification",
			tags("webhooks", "security"), on(webhooks),
			step{0, investigating, "Some customers report that webhook signatures do not verify. We are investigating."},
			step{34 * minute, identified, "A library upgrade changed how request bodies are serialized before signing. We are reverting it."},
			step{66 * minute, resolved, "Signatures verify again for all new deliveries. Deliveries that failed verification have been retried."},
		),

		// Past: maintenances.
		maintenance(c.at(-20, 2, 0), time.Hour, "TLS certificate rotation on API load balancers",
			tags("api", "security"), on(restAPI, graphQL),
			step{-5 * day, scheduled, "We will rotate the TLS certificates on our API load balancers. Clients that pin certificates must trust the new chain, published in the developer docs."},
			step{0, underway, "The rotation has started."},
			step{40 * minute, complete, "All load balancers serve the new certificates. No errors were observed."},
		),
		maintenance(c.at(-50, 3, 0), 2*hour, "Database minor version upgrade",
			tags("database"), on(databases),
			step{-7 * day, scheduled, "We will apply a minor PostgreSQL upgrade to all clusters. Each cluster fails over once, causing up to 30 seconds of write errors."},
			step{0, underway, "The upgrade has started, one cluster at a time."},
			step{95 * minute, complete, "All clusters run the new version. Failovers took 12 seconds on average."},
		),
		maintenance(c.at(-90, 1, 0), 4*hour, "File storage migration to new hardware",
			tags("storage"), on(fileStorage),
			step{-10 * day, scheduled, "We will move file storage to new hardware. Uploads will be read-only for up to 30 minutes at the start of the window."},
			step{0, underway, "The migration has started and uploads are briefly read-only."},
			step{35 * minute, underway, "Uploads are enabled again. We continue to copy older files in the background."},
			step{4*hour + 10*minute, complete, "The migration is complete, slightly later than planned. All files are served from the new hardware."},
		),
		maintenance(c.at(-150, 2, 0), 2*hour, "Search index rebuild",
			tags("search"), on(dashboard),
			step{-7 * day, scheduled, "We will rebuild the dashboard search index. Search results may be incomplete during the window."},
			step{-2 * day, cancelled, "This maintenance is cancelled: the index was rebuilt online without any impact."},
		),
		maintenance(c.at(-200, 2, 0), 2*hour, "Kubernetes cluster upgrade",
			tags("infrastructure"), on(dashboard, restAPI, graphQL, webhooks),
			step{-6 * day, scheduled, "We will upgrade our application clusters. We expect no downtime, but long-running connections such as GraphQL subscriptions will reconnect."},
			step{0, underway, "The upgrade is underway."},
			step{2 * hour, complete, "The upgrade is complete and all services are healthy."},
		),
		maintenance(c.at(-240, 4, 0), 90*minute, "Mail relay maintenance",
			tags("email"), on(email),
			step{-8 * day, scheduled, "We will patch our mail relays. Emails sent during the window may be delayed by a few minutes."},
			step{-1 * day, cancelled, "We have cancelled this maintenance; the patch will be applied as part of next month's relay replacement."},
		),
		maintenance(c.at(-280, 2, 0), time.Hour, "Dashboard CDN migration",
			tags("performance"), on(dashboard),
			step{-4 * day, scheduled, "We will move the dashboard's static assets to a new CDN. Some users may need to reload the page once."},
			step{0, underway, "The migration has started."},
			step{55 * minute, complete, "The migration is complete. Assets are served from the new CDN."},
		),

		// Past: expired announcements.
		announcement(c.at(-70, 15, 0), ptr(c.at(-55, 0, 0)), "REST API v1 is being retired",
			tags("api"), on(restAPI),
			step{0, none, "REST API v1 will stop accepting requests in two weeks. Please move your integrations to v2; the migration guide is in the developer docs."},
			step{7 * day, none, "One week left: v1 requests now return a deprecation warning header."},
		),
		announcement(c.at(-190, 10, 0), ptr(c.at(-175, 0, 0)), "New data region in Frankfurt",
			tags("announcement"), on(),
			step{0, none, "Northwind Cloud is now available in Frankfurt. New projects can choose the EU region, and existing projects can request a migration from support."},
		),
	}
	slices.SortStableFunc(list, func(a, b statusd.Notice) int { return a.CreatedAt.Compare(b.CreatedAt) })
	var updateID int64
	for i := range list {
		list[i].ID = int64(i + 1)
		for j := range list[i].Updates {
			updateID++
			list[i].Updates[j].ID = updateID
		}
	}
	return list
}
