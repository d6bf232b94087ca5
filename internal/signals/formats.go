package signals

import (
	"net/url"
	"strconv"
	"strings"
	"time"
)

// decodeGroup reads an Alertmanager body, or Grafana's, which has the
// same shape and more keys (orgId, title, state, message; per alert
// silenceURL, dashboardURL, panelURL, values, imageURL...) that statusd
// does not read. The version must be want: a body of another version is
// refused naming the version alone, as the rest of it may mean other
// things. what names the body for that message.
//
// Shapes: Alertmanager's docs/configuration.md (<webhook_config>) and
// notify/webhook/webhook.go; Grafana's receivers/webhook/v1/webhook.go and
// templates/template_data.go in github.com/grafana/alerting.
func decodeGroup(root map[string]any, want, what string) (Batch, error) {
	r := &reader{}
	if v := r.str(root, "", "version", true); v != want {
		if v != "" {
			r.add("version", "is %q; %s has version %q", v, what, want)
		}
		return Batch{}, r.err()
	}
	b := Batch{
		Receiver:    r.str(root, "", "receiver", false),
		ExternalURL: r.str(root, "", "externalURL", false),
	}
	if root["truncatedAlerts"] != nil {
		n, _ := r.integer(root, "", "truncatedAlerts")
		if n < 0 {
			r.add("truncatedAlerts", "must not be negative")
		}
		b.Truncated = int(n)
	}
	group := r.str(root, "", "groupKey", false)
	items, err := r.list(root, "alerts")
	if err != nil {
		return Batch{}, err
	}
	for i, item := range items {
		p := index("alerts", i)
		m := r.object(p, item)
		if m == nil {
			continue
		}
		a := Alert{
			Key:         r.key(m, p, "fingerprint"),
			Labels:      r.labels(m, p, "labels"),
			Annotations: r.labels(m, p, "annotations"),
			URL:         r.str(m, p, "generatorURL", false),
			StartsAt:    r.timestamp(m, p, "startsAt"),
			EndsAt:      r.timestamp(m, p, "endsAt"),
			Group:       group,
		}
		switch s := r.str(m, p, "status", true); s {
		case "firing":
			a.Status = Firing
		case "resolved":
			a.Status = Resolved
		case "": // noted by str
		default:
			r.add(join(p, "status"), "must be \"firing\" or \"resolved\", not %q", s)
		}
		b.Alerts = append(b.Alerts, a)
	}
	return b, r.err()
}

// decodeUptimeKuma reads the body of Uptime Kuma's webhook notification,
// {"heartbeat", "monitor", "msg"}, as one alert keyed by the monitor's id
// (server/notification-providers/webhook.js, with Heartbeat.toJSONAsync
// and Monitor.toJSON of server/model in github.com/louislam/uptime-kuma).
// Both null is its test message (and its certificate and domain expiry
// notices, which are sent the same way).
func decodeUptimeKuma(root map[string]any) (Batch, error) {
	r := &reader{}
	hv, hok := root["heartbeat"]
	mv, mok := root["monitor"]
	if !hok {
		r.add("heartbeat", "is required (null in a test message)")
	}
	if !mok {
		r.add("monitor", "is required (null in a test message)")
	}
	if !hok || !mok {
		return Batch{}, r.err()
	}
	if hv == nil && mv == nil {
		return Batch{Test: true}, nil
	}
	a := Alert{Labels: map[string]string{}, Annotations: map[string]string{}}
	if msg := r.str(root, "", "msg", false); msg != "" {
		a.Annotations["msg"] = msg
	}
	if m := r.object("monitor", mv); m != nil {
		if id, ok := r.integer(m, "monitor", "id"); ok {
			a.Key = "kuma:" + strconv.FormatInt(id, 10)
			a.Labels["monitor_id"] = strconv.FormatInt(id, 10)
		}
		a.Labels["monitor_name"] = r.str(m, "monitor", "name", false)
		a.Labels["monitor_type"] = r.str(m, "monitor", "type", false)
		a.URL = webURL(r.str(m, "monitor", "url", false))
	}
	if h := r.object("heartbeat", hv); h != nil {
		at := r.kumaTime(h, "time")
		if status, ok := r.integer(h, "heartbeat", "status"); ok {
			switch status {
			case 0: // DOWN
				a.Status, a.StartsAt = Firing, at
			case 1: // UP; lastDownTime is when it went down
				a.Status, a.StartsAt, a.EndsAt = Resolved, r.kumaTime(h, "lastDownTime"), at
			default: // 2 PENDING, 3 MAINTENANCE
				a.Status = Unchanged
			}
		}
	}
	if err := r.err(); err != nil {
		return Batch{}, err
	}
	return Batch{Alerts: []Alert{a}}, nil
}

// kumaTime returns the time heartbeat[key] in UTC: Uptime Kuma writes
// "2006-01-02 15:04:05.000" in UTC (R.isoDateTimeMillis); RFC 3339 is
// taken too. Zero when absent or null.
func (r *reader) kumaTime(heartbeat map[string]any, key string) time.Time {
	s := r.str(heartbeat, "heartbeat", key, false)
	if s == "" {
		return time.Time{}
	}
	t, err := time.Parse(time.DateTime, s) // the fraction is taken, though unnamed
	if err != nil {
		t, err = time.Parse(time.RFC3339Nano, s)
	}
	if err != nil {
		r.add(join("heartbeat", key), "must be a time like 2026-01-01 00:00:00.000 (UTC), not %q", s)
		return time.Time{}
	}
	return utc(t)
}

// webURL returns u when it is an http or https URL with a host, else "":
// Uptime Kuma leaves its form's "https://" in the url of monitors that
// have none.
func webURL(u string) string {
	p, err := url.Parse(u)
	if err != nil || p.Host == "" || (p.Scheme != "http" && p.Scheme != "https") {
		return ""
	}
	return u
}

// decodeGeneric reads statusd's generic body: one event
// {dedup_key, status, labels, annotations, url, started_at, ended_at},
// or {"events": [...]} of them.
func decodeGeneric(root map[string]any) (Batch, error) {
	r := &reader{}
	if _, ok := root["events"]; !ok {
		return Batch{Alerts: []Alert{r.event(root, "")}}, r.err()
	}
	items, err := r.list(root, "events")
	if err != nil {
		return Batch{}, err
	}
	var b Batch
	for i, item := range items {
		p := index("events", i)
		if m := r.object(p, item); m != nil {
			b.Alerts = append(b.Alerts, r.event(m, p))
		}
	}
	return b, r.err()
}

// The status words of a generic event, in any letter case.
var (
	firingWords   = []string{"firing", "triggered", "problem"}
	resolvedWords = []string{"resolved", "ok", "recovered"}
)

// event reads one generic event m, at path.
func (r *reader) event(m map[string]any, path string) Alert {
	a := Alert{
		Key:         r.key(m, path, "dedup_key"),
		Labels:      r.labels(m, path, "labels"),
		Annotations: r.labels(m, path, "annotations"),
		URL:         r.str(m, path, "url", false),
		StartsAt:    r.timestamp(m, path, "started_at"),
		EndsAt:      r.timestamp(m, path, "ended_at"),
	}
	switch s := r.str(m, path, "status", true); {
	case s == "": // noted by str
	case containsFold(firingWords, s):
		a.Status = Firing
	case containsFold(resolvedWords, s):
		a.Status = Resolved
	default:
		r.add(join(path, "status"), "%q is not a status: firing, triggered or problem; resolved, ok or recovered", s)
	}
	return a
}

func containsFold(words []string, s string) bool {
	for _, w := range words {
		if strings.EqualFold(w, s) {
			return true
		}
	}
	return false
}
