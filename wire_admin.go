package statusd

import (
	"strconv"
	"strings"
)

// This file holds the wire types of the admin API (docs/ADMIN-API.md), beside
// those of the public API that they extend: the server decodes the request
// bodies and encodes the answers, the admin client of package client does
// the reverse, and the CLI prints them.
//
// In a request body a nil pointer, or an unset Field, is a field left out:
// it is not sent, and the server leaves that setting as it is. A Field set
// to null clears the setting. Timestamps in request bodies are RFC 3339
// strings (TimeLayout is one).

// AdminPage is the page as the admin API shows it (GET and PATCH /page): the
// public fields and the state texts in use.
type AdminPage struct {
	PageResource
	StateTexts AdminStateTexts `json:"state_texts"`
}

// AdminStateTexts are the texts of the three page states.
type AdminStateTexts struct {
	Operational      string `json:"operational"`
	Degraded         string `json:"degraded"`
	UnderMaintenance string `json:"under_maintenance"`
}

// AdminPageRequest is the body of PATCH /page.
type AdminPageRequest struct {
	Name       *string                 `json:"name,omitempty"`
	URL        *string                 `json:"url,omitempty"`
	StateTexts *AdminStateTextsRequest `json:"state_texts,omitempty"`
}

// AdminStateTextsRequest changes some of the page state texts; an empty
// text is the state's default text.
type AdminStateTextsRequest struct {
	Operational      *string `json:"operational,omitempty"`
	Degraded         *string `json:"degraded,omitempty"`
	UnderMaintenance *string `json:"under_maintenance,omitempty"`
}

// AdminComponent is a component as the admin API shows it: the public
// fields, its key (null when it has none; never public) and whether its
// metrics are published.
type AdminComponent struct {
	ComponentResource
	Key            *string `json:"key"`
	MetricsEnabled bool    `json:"metrics_enabled"`
}

// AdminComponentsResponse is the body of GET /components: every component,
// in position order.
type AdminComponentsResponse struct {
	Components []AdminComponent `json:"components"`
}

// AdminComponentRequest is the body of POST /components (Name required) and
// of PATCH /components/{id}. Moving a component is setting ParentID (null
// for the top level) or Position, or both. Key set to null or "" clears
// the component's key.
type AdminComponentRequest struct {
	Name           *string       `json:"name,omitempty"`
	Key            Field[string] `json:"key,omitzero"`
	Description    *string       `json:"description,omitempty"`
	ParentID       Field[int64]  `json:"parent_id,omitzero"`
	Position       *int          `json:"position,omitempty"`
	MetricsEnabled *bool         `json:"metrics_enabled,omitempty"`
}

// AdminNotice is a notice as the admin API shows it: the public detail and
// the settings only operators see, each on the notice types it belongs to
// (Automate on planned, ExpiresAt on general, ImpactSeconds and Impact on
// unplanned notices).
type AdminNotice struct {
	NoticeDetail
	ComponentIDs  []int64      `json:"component_ids"`
	Automate      *bool        `json:"automate,omitempty"`
	ExpiresAt     Field[Time]  `json:"expires_at,omitzero"`
	ImpactSeconds Field[int64] `json:"impact_seconds,omitzero"`
	Impact        Severity     `json:"impact,omitempty"`
}

// AdminNoticesResponse is the body of GET /notices: a page of notices,
// newest first.
type AdminNoticesResponse struct {
	Notices []AdminNotice `json:"notices"`
	Meta    Meta          `json:"meta"`
}

// AdminNoticeRequest is the body of POST /notices (Type, Subject and
// Content required) and of PATCH /notices/{id} (without Type, State and
// Content, which change only through updates, and without Notify: an edit
// sends nothing).
type AdminNoticeRequest struct {
	Type          *string       `json:"type,omitempty"`
	Subject       *string       `json:"subject,omitempty"`
	State         *string       `json:"state,omitempty"`
	Content       *string       `json:"content,omitempty"`
	ComponentIDs  *[]int64      `json:"component_ids,omitempty"`
	TagList       *[]string     `json:"tag_list,omitempty"`
	BeginsAt      Field[string] `json:"begins_at,omitzero"`
	EndsAt        Field[string] `json:"ends_at,omitzero"`
	Automate      *bool         `json:"automate,omitempty"`
	ExpiresAt     Field[string] `json:"expires_at,omitzero"`
	ImpactSeconds Field[int64]  `json:"impact_seconds,omitzero"`
	// Impact is an unplanned notice's severity: minor (the default), major
	// or critical.
	Impact *string `json:"impact,omitempty"`
	// Notify false sends the new notice to no subscriber (default true).
	Notify *bool `json:"notify,omitempty"`
}

// AdminUpdateRequest is the body of POST /notices/{id}/updates (State
// left out: unchanged) and of POST /notices/{id}/reopen (Content only).
type AdminUpdateRequest struct {
	Content *string `json:"content,omitempty"`
	State   *string `json:"state,omitempty"`
	// Notify false sends the update to no subscriber (default true).
	Notify *bool `json:"notify,omitempty"`
}

// AdminAuditEntry is one record of the audit log.
type AdminAuditEntry struct {
	ID     int64  `json:"id"`
	At     Time   `json:"at"`
	Actor  string `json:"actor"`
	Action string `json:"action"`
	Target string `json:"target"`
	Detail string `json:"detail"`
}

// AdminAuditEntryOf returns the wire form of an audit log entry.
func AdminAuditEntryOf(e AuditEntry) AdminAuditEntry {
	return AdminAuditEntry{ID: e.ID, At: Time{e.At}, Actor: e.Actor, Action: e.Action, Target: e.Target, Detail: e.Detail}
}

// AdminAuditResponse is the body of GET /audit: a page of the audit log,
// newest first.
type AdminAuditResponse struct {
	Audit []AdminAuditEntry `json:"audit"`
	Meta  Meta              `json:"meta"`
}

// AdminSubscriber is a subscriber as the admin API shows it.
// Secret is a webhook's signing secret, carried only by the answer that
// created it (and empty, so left out, everywhere else).
type AdminSubscriber struct {
	ID      int64  `json:"id"`
	Channel string `json:"channel"`
	// Address is the email address, or the target URL.
	Address string `json:"address"`
	// ComponentIDs are the components it follows, never null; empty means
	// the whole page.
	ComponentIDs []int64 `json:"component_ids"`
	State        string  `json:"state"`
	Secret       string  `json:"secret,omitempty"`
	CreatedAt    Time    `json:"created_at"`
	UpdatedAt    Time    `json:"updated_at"`
}

// AdminSubscriberOf returns the wire form of a subscriber, without its
// secret.
func AdminSubscriberOf(s *Subscriber) AdminSubscriber {
	ids := s.ComponentIDs
	if ids == nil {
		ids = []int64{} // a list, never null
	}
	return AdminSubscriber{ID: s.ID, Channel: string(s.Channel), Address: s.Address, ComponentIDs: ids,
		State: string(s.State), CreatedAt: Time{s.CreatedAt}, UpdatedAt: Time{s.UpdatedAt}}
}

// Follows says what a subscriber following the components ids follows,
// for people: "the whole page" (no ids) or "components 10, 11".
func Follows(ids []int64) string {
	if len(ids) == 0 {
		return "the whole page"
	}
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = strconv.FormatInt(id, 10)
	}
	return "components " + strings.Join(s, ", ")
}

// AdminSubscribersResponse is the body of GET /subscribers: a page of
// subscribers, by id.
type AdminSubscribersResponse struct {
	Subscribers []AdminSubscriber `json:"subscribers"`
	Meta        Meta              `json:"meta"`
}

// AdminSubscriberRequest is the body of POST /subscribers (Channel and
// Address required; ComponentIDs and Confirmed optional) and of PATCH
// /subscribers/{id} (ComponentIDs, and State set back to "active").
type AdminSubscriberRequest struct {
	Channel      *string  `json:"channel,omitempty"`
	Address      *string  `json:"address,omitempty"`
	ComponentIDs *[]int64 `json:"component_ids,omitempty"`
	// Confirmed makes an email subscriber active at once, without the
	// confirmation email (addresses moved from elsewhere). The other
	// channels, added by an operator, are active at once whatever it says.
	Confirmed *bool   `json:"confirmed,omitempty"`
	State     *string `json:"state,omitempty"`
}

// AdminReactivateRequest is the body of POST /subscribers/reactivate: it
// chooses the quarantined subscribers to set active again, those of
// Channel and, when IDs is given, those it lists; neither chooses every
// quarantined subscriber.
type AdminReactivateRequest struct {
	Channel *string  `json:"channel,omitempty"`
	IDs     *[]int64 `json:"ids,omitempty"`
}

// AdminReactivateResponse is the answer of POST /subscribers/reactivate:
// how many subscribers were set active again, and how many messages are
// sent to them again (for each notice, its newest update of the last 24
// hours that they did not get).
type AdminReactivateResponse struct {
	Reactivated int `json:"reactivated"`
	Requeued    int `json:"requeued"`
}

// AdminDelivery is one message owed to one subscriber, as the delivery log
// shows it. The optional values are null when there is none: the notice
// of a test message, the status of an attempt that got no answer, the next
// attempt of a delivery that is no longer pending.
type AdminDelivery struct {
	ID            int64              `json:"id"`
	Event         AdminDeliveryEvent `json:"event"`
	SubscriberID  int64              `json:"subscriber_id"`
	State         string             `json:"state"`
	Attempts      int                `json:"attempts"`
	LastStatus    *int               `json:"last_status"`
	LastError     *string            `json:"last_error"`
	NextAttemptAt *Time              `json:"next_attempt_at"`
	DeliveredAt   *Time              `json:"delivered_at"`
	CreatedAt     Time               `json:"created_at"`
}

// AdminDeliveryEvent is the event a delivery tells of.
type AdminDeliveryEvent struct {
	ID       int64  `json:"id"`
	Kind     string `json:"kind"`
	NoticeID *int64 `json:"notice_id"`
	UpdateID *int64 `json:"update_id"`
}

// AdminDeliveryOf returns the wire form of a delivery.
func AdminDeliveryOf(d *Delivery) AdminDelivery {
	return AdminDelivery{ID: d.ID, SubscriberID: d.SubscriberID, State: string(d.State), Attempts: d.Attempts,
		Event: AdminDeliveryEvent{ID: d.Event.ID, Kind: string(d.Event.Kind),
			NoticeID: nonZero(d.Event.NoticeID), UpdateID: nonZero(d.Event.UpdateID)},
		LastStatus: nonZero(d.LastStatus), LastError: nonZero(d.LastError),
		NextAttemptAt: TimePtr(d.NextAttemptAt), DeliveredAt: TimePtr(d.DeliveredAt), CreatedAt: Time{d.CreatedAt}}
}

// nonZero is a pointer to v, or nil when v is its type's zero value.
func nonZero[T comparable](v T) *T {
	var zero T
	if v == zero {
		return nil
	}
	return &v
}

// AdminDeliveriesResponse is the body of GET /deliveries: a page of the
// delivery log, newest first.
type AdminDeliveriesResponse struct {
	Deliveries []AdminDelivery `json:"deliveries"`
	Meta       Meta            `json:"meta"`
}

// AdminUser is a console user as the admin API shows it.
// State is "pending" until the user has set a password through a setup
// link, "active" after.
type AdminUser struct {
	ID        int64  `json:"id"`
	Email     string `json:"email"`
	Role      string `json:"role"`
	State     string `json:"state"`
	CreatedAt Time   `json:"created_at"`
	UpdatedAt Time   `json:"updated_at"`
	// SetupURL is the one-time setup link, carried only by the answers of
	// POST /users and POST /users/{id}/reset.
	SetupURL string `json:"setup_url,omitempty"`
}

// AdminUserOf returns the wire form of a user, without a setup link.
func AdminUserOf(u *User) AdminUser {
	state := "active"
	if u.PasswordHash == "" {
		state = "pending"
	}
	return AdminUser{ID: u.ID, Email: u.Email, Role: string(u.Role), State: state,
		CreatedAt: Time{u.CreatedAt}, UpdatedAt: Time{u.UpdatedAt}}
}

// AdminUsersResponse is the answer of GET /users: every user, by id.
type AdminUsersResponse struct {
	Users []AdminUser `json:"users"`
}

// AdminUserRequest is the body of POST /users; both fields are required.
type AdminUserRequest struct {
	Email *string `json:"email,omitempty"`
	Role  *string `json:"role,omitempty"`
}

// AdminToken is an admin API token as the admin API shows it: never its
// hash, and its secret only in the answer of POST /tokens.
type AdminToken struct {
	Name string `json:"name"`
	// Role is what a request with the token may do: owner, publisher or
	// viewer.
	Role      string `json:"role"`
	CreatedAt Time   `json:"created_at"`
	// LastUsedAt is null until the token is first used.
	LastUsedAt *Time `json:"last_used_at"`
	// Secret is the token itself, carried only by the answer of POST
	// /tokens: statusd keeps only its hash.
	Secret string `json:"secret,omitempty"`
}

// AdminTokenOf returns the wire form of a token, without its secret.
func AdminTokenOf(t *Token) AdminToken {
	return AdminToken{Name: t.Name, Role: string(t.Role), CreatedAt: Time{t.CreatedAt}, LastUsedAt: TimePtr(t.LastUsed)}
}

// AdminTokensResponse is the answer of GET /tokens: every token, by name.
type AdminTokensResponse struct {
	Tokens []AdminToken `json:"tokens"`
}

// AdminTokenRequest is the body of POST /tokens; the name is required,
// the role is owner when left out.
type AdminTokenRequest struct {
	Name *string `json:"name,omitempty"`
	Role *string `json:"role,omitempty"`
}
