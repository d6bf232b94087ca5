package statusd

import (
	"strconv"
	"time"
)

// The wire types of the admin API's signals (CONTRACT C9): sources, the
// hook's answer, signals and drafts (docs/ADMIN-API.md).

// AdminSource is a source as the admin API shows it; Token is set only in
// the answer that made or rotated it, the one time it is shown.
type AdminSource struct {
	ID              int64        `json:"id"`
	Name            string       `json:"name"`
	Format          string       `json:"format"`
	Rules           []SignalRule `json:"rules"`
	Heartbeat       *Heartbeat   `json:"heartbeat"`
	Signed          bool         `json:"signed"`
	State           string       `json:"state"`
	HookPath        string       `json:"hook_path"`
	Token           string       `json:"token,omitempty"`
	LastEventAt     *Time        `json:"last_event_at"`
	LastHeartbeatAt *Time        `json:"last_heartbeat_at"`
	CreatedAt       Time         `json:"created_at"`
}

// HookPath is the path of a source's hook.
func HookPath(id int64) string { return "/hooks/v1/" + strconv.FormatInt(id, 10) }

// AdminSourceOf is s as the admin API shows it at now.
func AdminSourceOf(s *Source, now time.Time) AdminSource {
	rules := s.Rules
	if rules == nil {
		rules = []SignalRule{}
	}
	return AdminSource{ID: s.ID, Name: s.Name, Format: s.Format, Rules: rules, Heartbeat: s.Heartbeat, Signed: s.Secret != "",
		State: s.StateAt(now), HookPath: HookPath(s.ID), LastEventAt: timePtr(s.LastEventAt),
		LastHeartbeatAt: timePtr(s.LastHeartbeatAt), CreatedAt: Time{s.CreatedAt}}
}

// AdminSourcesResponse is the body of GET /sources.
type AdminSourcesResponse struct {
	Sources []AdminSource `json:"sources"`
}

// AdminSourceRequest is the body of POST /sources (Name and Format
// required) and PATCH /sources/{id} (Format cannot change). Secret is
// Grafana's HMAC secret ("" for none).
type AdminSourceRequest struct {
	Name      *string          `json:"name,omitempty"`
	Format    *string          `json:"format,omitempty"`
	Rules     *[]SignalRule    `json:"rules,omitempty"`
	Heartbeat Field[Heartbeat] `json:"heartbeat,omitzero"`
	Secret    *string          `json:"secret,omitempty"`
}

// HookResponse is the answer of a source's hook: how many alerts the body
// held and what became of each.
type HookResponse struct {
	Received int          `json:"received"`
	Signals  []HookSignal `json:"signals"`
}

// HookSignal is what became of one alert: Action is drafted, attached,
// pending, proposed, lapsed, unchanged, ignored, unmapped or heartbeat.
type HookSignal struct {
	Key          string  `json:"key"`
	Status       string  `json:"status"`
	ComponentIDs []int64 `json:"component_ids"`
	Action       string  `json:"action"`
	DraftID      *int64  `json:"draft_id"`
}

// The actions of HookSignal.
const (
	HookDrafted   = "drafted"
	HookAttached  = "attached"
	HookPending   = "pending"
	HookProposed  = "proposed"
	HookLapsed    = "lapsed"
	HookUnchanged = "unchanged"
	HookIgnored   = "ignored"
	HookUnmapped  = "unmapped"
	HookHeartbeat = "heartbeat"
)

// AdminSignal is a signal as the admin API shows it.
type AdminSignal struct {
	ID           int64             `json:"id"`
	SourceID     int64             `json:"source_id"`
	Key          string            `json:"key"`
	Status       string            `json:"status"`
	Labels       map[string]string `json:"labels"`
	Annotations  map[string]string `json:"annotations"`
	URL          string            `json:"url"`
	Group        string            `json:"group"`
	StartsAt     *Time             `json:"starts_at"`
	EndsAt       *Time             `json:"ends_at"`
	FirstSeenAt  Time              `json:"first_seen_at"`
	LastSeenAt   Time              `json:"last_seen_at"`
	Pending      bool              `json:"pending"`
	Flapping     bool              `json:"flapping"`
	ComponentIDs []int64           `json:"component_ids"`
	DraftID      *int64            `json:"draft_id"`
	NoticeID     *int64            `json:"notice_id"`
}

// AdminSignalOf is s as the admin API shows it at now.
func AdminSignalOf(s *Signal, now time.Time) AdminSignal {
	return AdminSignal{ID: s.ID, SourceID: s.SourceID, Key: s.Key, Status: s.Status, Labels: s.Labels, Annotations: s.Annotations,
		URL: s.URL, Group: s.Group, StartsAt: timePtr(s.StartsAt), EndsAt: timePtr(s.EndsAt), FirstSeenAt: Time{s.FirstSeenAt},
		LastSeenAt: Time{s.LastSeenAt}, Pending: s.HeldUntil != nil, Flapping: s.Flapping(now), ComponentIDs: nonNil(s.ComponentIDs),
		DraftID: s.DraftID, NoticeID: s.NoticeID}
}

// AdminSignalsResponse is the body of GET /signals.
type AdminSignalsResponse struct {
	Signals []AdminSignal `json:"signals"`
}

// AdminDraft is a draft as the admin API shows it.
type AdminDraft struct {
	ID           int64    `json:"id"`
	Kind         string   `json:"kind"`
	State        string   `json:"state"`
	NoticeID     *int64   `json:"notice_id"`
	SourceID     int64    `json:"source_id"`
	Subject      string   `json:"subject"`
	Content      string   `json:"content"`
	NoticeState  State    `json:"notice_state"`
	ComponentIDs []int64  `json:"component_ids"`
	SignalIDs    []int64  `json:"signal_ids"`
	Warnings     []string `json:"warnings"`
	PublishAt    *Time    `json:"publish_at,omitempty"`
	Reason       string   `json:"reason,omitempty"`
	Version      int64    `json:"version"`
	CreatedAt    Time     `json:"created_at"`
	UpdatedAt    Time     `json:"updated_at"`
}

// AdminDraftOf is d as the admin API shows it.
func AdminDraftOf(d *Draft) AdminDraft {
	warnings := d.Warnings
	if warnings == nil {
		warnings = []string{}
	}
	return AdminDraft{ID: d.ID, Kind: d.Kind, State: d.State, NoticeID: d.NoticeID, SourceID: d.SourceID, Subject: d.Subject,
		Content: d.Content, NoticeState: d.NoticeState, ComponentIDs: nonNil(d.ComponentIDs), SignalIDs: nonNil(d.SignalIDs),
		Warnings: warnings, PublishAt: timePtr(d.PublishAt), Reason: d.Reason, Version: d.Version, CreatedAt: Time{d.CreatedAt},
		UpdatedAt: Time{d.UpdatedAt}}
}

// AdminDraftsResponse is the body of GET /drafts.
type AdminDraftsResponse struct {
	Drafts []AdminDraft `json:"drafts"`
}

// AdminDraftRequest is the body of PATCH /drafts/{id} and, with Notify,
// of POST /drafts/{id}/publish: Version, the draft's as read, is
// required; the other fields change what the draft (or its publication)
// writes.
type AdminDraftRequest struct {
	Version      *int64   `json:"version,omitempty"`
	Subject      *string  `json:"subject,omitempty"`
	Content      *string  `json:"content,omitempty"`
	NoticeState  *string  `json:"notice_state,omitempty"`
	ComponentIDs *[]int64 `json:"component_ids,omitempty"`
	// Notify false publishes without telling subscribers (default true);
	// only in a publication.
	Notify *bool `json:"notify,omitempty"`
}

// AdminDiscardRequest is the body of POST /drafts/{id}/discard.
type AdminDiscardRequest struct {
	Version *int64 `json:"version,omitempty"`
	Reason  string `json:"reason,omitempty"`
}

// AdminPublishedDraft is the answer of POST /drafts/{id}/publish: the
// draft, published, and the notice it wrote.
type AdminPublishedDraft struct {
	Draft  AdminDraft  `json:"draft"`
	Notice AdminNotice `json:"notice"`
}

// timePtr is t on the wire, nil for nil.
func timePtr(t *time.Time) *Time {
	if t == nil {
		return nil
	}
	return &Time{*t}
}

// nonNil is ids, or an empty list for nil, so that JSON shows [].
func nonNil(ids []int64) []int64 {
	if ids == nil {
		return []int64{}
	}
	return ids
}
