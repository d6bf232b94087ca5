package statuspage

// The wire types of Atlassian Statuspage's public v2 API
// (https://<page>/api/v2/...), with every key its published examples show.
// Ids are strings, as there; times are RFC 3339 in UTC with milliseconds;
// absent values are null, never missing keys.

// Page is the "page" object every answer starts with.
type Page struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	URL       string `json:"url"`
	TimeZone  string `json:"time_zone"`
	UpdatedAt string `json:"updated_at"`
}

// Status is the rollup of the whole page.
type Status struct {
	// Indicator is none, minor, major, critical or maintenance.
	Indicator   string `json:"indicator"`
	Description string `json:"description"`
}

// Component is a component or, with Group set, a group of components.
type Component struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	// Status is operational, degraded_performance, partial_outage,
	// major_outage or under_maintenance.
	Status             string  `json:"status"`
	CreatedAt          string  `json:"created_at"`
	UpdatedAt          string  `json:"updated_at"`
	Position           int     `json:"position"`
	Description        *string `json:"description"`
	Showcase           bool    `json:"showcase"`
	StartDate          *string `json:"start_date"` // yyyy-mm-dd
	GroupID            *string `json:"group_id"`
	PageID             string  `json:"page_id"`
	Group              bool    `json:"group"`
	OnlyShowIfDegraded bool    `json:"only_show_if_degraded"`
	// Components lists the ids of a group's members; absent on others.
	Components []string `json:"components,omitempty"`
}

// Incident is an incident or, in a scheduled maintenance, its common part.
type Incident struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	// Status is investigating, identified, monitoring, resolved or
	// postmortem for an incident; scheduled, in_progress, verifying or
	// completed for a maintenance.
	Status       string  `json:"status"`
	CreatedAt    string  `json:"created_at"`
	UpdatedAt    string  `json:"updated_at"`
	MonitoringAt *string `json:"monitoring_at"`
	ResolvedAt   *string `json:"resolved_at"`
	// Impact is none, minor, major, critical or maintenance.
	Impact          string      `json:"impact"`
	Shortlink       string      `json:"shortlink"`
	StartedAt       string      `json:"started_at"`
	PageID          string      `json:"page_id"`
	IncidentUpdates []Update    `json:"incident_updates"`
	Components      []Component `json:"components"`
}

// Maintenance is a scheduled maintenance.
type Maintenance struct {
	Incident
	ScheduledFor   string `json:"scheduled_for"`
	ScheduledUntil string `json:"scheduled_until"`
}

// Update is one of an incident's updates.
type Update struct {
	ID         string `json:"id"`
	Status     string `json:"status"`
	Body       string `json:"body"`
	IncidentID string `json:"incident_id"`
	CreatedAt  string `json:"created_at"`
	UpdatedAt  string `json:"updated_at"`
	DisplayAt  string `json:"display_at"`
	// AffectedComponents are the components whose status the update's
	// write changed (null when none); DeliverNotifications tells whether
	// it notified subscribers.
	AffectedComponents   []AffectedComponent `json:"affected_components"`
	DeliverNotifications bool                `json:"deliver_notifications"`
	CustomTweet          *string             `json:"custom_tweet"`
	TweetID              *string             `json:"tweet_id"`
}

// AffectedComponent is a component whose status an update changed: Code
// is its id.
type AffectedComponent struct {
	Code      string `json:"code"`
	Name      string `json:"name"`
	OldStatus string `json:"old_status"`
	NewStatus string `json:"new_status"`
}

// SummaryResponse is /api/v2/summary.json.
type SummaryResponse struct {
	Page                  Page          `json:"page"`
	Components            []Component   `json:"components"`
	Incidents             []Incident    `json:"incidents"`
	ScheduledMaintenances []Maintenance `json:"scheduled_maintenances"`
	Status                Status        `json:"status"`
}

// StatusResponse is /api/v2/status.json.
type StatusResponse struct {
	Page   Page   `json:"page"`
	Status Status `json:"status"`
}

// ComponentsResponse is /api/v2/components.json.
type ComponentsResponse struct {
	Page       Page        `json:"page"`
	Components []Component `json:"components"`
}

// IncidentsResponse is /api/v2/incidents.json and incidents/unresolved.json.
type IncidentsResponse struct {
	Page      Page       `json:"page"`
	Incidents []Incident `json:"incidents"`
}

// MaintenancesResponse is /api/v2/scheduled-maintenances.json and its
// upcoming and active variants.
type MaintenancesResponse struct {
	Page                  Page          `json:"page"`
	ScheduledMaintenances []Maintenance `json:"scheduled_maintenances"`
}

// IncidentResponse is /api/v2/incidents/{id}.json.
type IncidentResponse struct {
	Page     Page     `json:"page"`
	Incident Incident `json:"incident"`
}

// MaintenanceResponse is /api/v2/scheduled-maintenances/{id}.json.
type MaintenanceResponse struct {
	Page                 Page        `json:"page"`
	ScheduledMaintenance Maintenance `json:"scheduled_maintenance"`
}
