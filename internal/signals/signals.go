// Package signals reads the alert webhooks that monitoring sends statusd
// (CONTRACT C9): Alertmanager's, Grafana's, Uptime Kuma's and a generic
// shape for everything else (Gatus custom alerts, Datadog, scripts). It
// only decodes: a body becomes a Batch of Alerts, each with the dedupe key,
// status, labels and times statusd keeps of it, or a *statusd.Error that
// names every problem. Storing, grouping and answering the hook are done
// elsewhere.
package signals

import (
	"time"
)

// The most a hook takes in one request (CONTRACT C9): a body over MaxBody
// bytes, or one holding more than MaxAlerts alerts, is refused with 413
// too_large.
const (
	MaxBody   = 1 << 20
	MaxAlerts = 1000
)

// Format is the kind of webhook body a source sends.
type Format string

// The formats a source can have.
const (
	// Alertmanager is Prometheus Alertmanager's webhook body, version "4".
	Alertmanager Format = "alertmanager"
	// Grafana is the body of Grafana's webhook contact point, version "1".
	Grafana Format = "grafana"
	// UptimeKuma is the body of Uptime Kuma's webhook notification.
	UptimeKuma Format = "uptime_kuma"
	// Generic is statusd's own shape: one event, or {"events": [...]}.
	Generic Format = "generic"
)

// Valid reports whether f is one of the formats above.
func (f Format) Valid() bool {
	switch f {
	case Alertmanager, Grafana, UptimeKuma, Generic:
		return true
	}
	return false
}

// Status is what an alert says of the thing it watches.
type Status string

// The statuses of an alert.
const (
	// Firing: the problem is there.
	Firing Status = "firing"
	// Resolved: the problem is gone.
	Resolved Status = "resolved"
	// Unchanged: the alert says nothing new, as Uptime Kuma's pending
	// and maintenance heartbeats; it changes no signal's status.
	Unchanged Status = "unchanged"
)

// Alert is one alert of a body, as statusd keeps it.
type Alert struct {
	// Key identifies the alert across bodies, to deduplicate them:
	// Alertmanager's and Grafana's fingerprint, "kuma:<monitor id>" for
	// Uptime Kuma, the generic dedup_key. Never empty.
	Key    string
	Status Status
	// Labels and Annotations are never nil.
	Labels      map[string]string
	Annotations map[string]string
	// URL links to the alert at its sender: Alertmanager's and Grafana's
	// generatorURL, Uptime Kuma's monitor URL, the generic url. May be
	// empty.
	URL string
	// StartsAt and EndsAt are in UTC, zero when the sender gives none
	// (Alertmanager's 0001-01-01T00:00:00Z is none).
	StartsAt time.Time
	EndsAt   time.Time
	// Group is the groupKey of an Alertmanager or Grafana body, shared by
	// its alerts; empty for the other formats.
	Group string
}

// Batch is what one body holds.
type Batch struct {
	// Alerts in the body's order.
	Alerts []Alert
	// Test is true for Uptime Kuma's test message (heartbeat and monitor
	// both null), which holds no alerts and is to be stored as nothing.
	Test bool
	// Receiver, ExternalURL and Truncated are those of an Alertmanager or
	// Grafana body: the receiver's name, the sender's own URL, and how
	// many alerts the sender left out (its max_alerts).
	Receiver    string
	ExternalURL string
	Truncated   int
}
