package statusd

import (
	"bytes"
	"encoding/json"
	"time"
)

// This file holds the wire types of the public v1 API (SPEC §2 and §4). The
// server marshals them and the SDK unmarshals them; field order follows
// the API's answers (docs/API.md, GET /api/v1/openapi.json).

// TimeLayout is the layout of timestamps on the wire (CONTRACT C2).
const TimeLayout = "2006-01-02T15:04:05.000Z"

// Time is a timestamp that marshals as yyyy-mm-ddThh:mm:ss.sssZ in UTC.
type Time struct{ time.Time }

// MarshalJSON implements json.Marshaler.
func (t Time) MarshalJSON() ([]byte, error) {
	return AppendTime(make([]byte, 0, len(TimeLayout)+2), t.Time), nil
}

// AppendTime appends t as a JSON string in TimeLayout, in UTC. It writes
// the digits itself, without the allocations of time.Time.AppendFormat,
// for the years of four digits; AppendFormat writes the others.
func AppendTime(b []byte, t time.Time) []byte {
	t = t.UTC()
	year, month, day := t.Date()
	if year < 0 || year > 9999 {
		b = append(b, '"')
		return append(t.AppendFormat(b, TimeLayout), '"')
	}
	hour, minute, second := t.Clock()
	digits := func(b []byte, v, n int) []byte {
		for d := n - 1; d >= 0; d-- {
			b = append(b, byte('0'+v/pow10[d]%10))
		}
		return b
	}
	b = append(b, '"')
	b = digits(b, year, 4)
	b = digits(append(b, '-'), int(month), 2)
	b = digits(append(b, '-'), day, 2)
	b = digits(append(b, 'T'), hour, 2)
	b = digits(append(b, ':'), minute, 2)
	b = digits(append(b, ':'), second, 2)
	b = digits(append(b, '.'), t.Nanosecond()/1e6, 3)
	return append(b, 'Z', '"')
}

var pow10 = [...]int{1, 10, 100, 1000}

// UnmarshalJSON implements json.Unmarshaler; it accepts any RFC 3339 time.
func (t *Time) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	v, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return err
	}
	t.Time = v.UTC()
	return nil
}

// TimePtr returns a *Time for t, or nil when t is nil.
func TimePtr(t *time.Time) *Time {
	if t == nil {
		return nil
	}
	return &Time{*t}
}

// Field is a JSON value that may be absent, null or set: with the omitzero
// option it is absent while Set is false, and null while Value is nil.
type Field[T any] struct {
	Set   bool
	Value *T
}

// Some returns a set Field holding v.
func Some[T any](v T) Field[T] { return Field[T]{Set: true, Value: &v} }

// Null returns a set Field holding null.
func Null[T any]() Field[T] { return Field[T]{Set: true} }

// IsZero reports whether the field is absent, for the omitzero option.
func (f Field[T]) IsZero() bool { return !f.Set }

// MarshalJSON implements json.Marshaler. A value that marshals itself (a
// Time) is asked directly, without a second pass of encoding/json over it.
func (f Field[T]) MarshalJSON() ([]byte, error) {
	if f.Value == nil {
		return []byte("null"), nil
	}
	if m, ok := any(f.Value).(json.Marshaler); ok {
		return m.MarshalJSON()
	}
	return json.Marshal(*f.Value)
}

// UnmarshalJSON implements json.Unmarshaler.
func (f *Field[T]) UnmarshalJSON(b []byte) error {
	f.Set = true
	if bytes.Equal(b, []byte("null")) {
		f.Value = nil
		return nil
	}
	f.Value = new(T)
	return json.Unmarshal(b, f.Value)
}

// Link is a relative path with the number of records behind it.
type Link struct {
	Href  string `json:"href"`
	Count int    `json:"count"`
}

// StatusResponse is the body of GET /api/v1/status.
type StatusResponse struct {
	Page PageResource `json:"page"`
}

// PageResource is the page of SPEC §2.
type PageResource struct {
	Name      string    `json:"name"`
	State     string    `json:"state"`
	StateText string    `json:"state_text"`
	URL       string    `json:"url"`
	Links     PageLinks `json:"links"`
	CreatedAt Time      `json:"created_at"`
	UpdatedAt Time      `json:"updated_at"`
}

// PageLinks are the page's links: to the API's index and to its
// collections.
type PageLinks struct {
	Self       string `json:"self"`
	Components Link   `json:"components"`
	Notices    Link   `json:"notices"`
}

// APIRoot is the path of the API's index, GET /api/v1 (CONTRACT C1).
const APIRoot = "/api/v1"

// IndexResponse is the body of GET /api/v1: the paths of the API's
// resources.
type IndexResponse struct {
	Links IndexLinks `json:"links"`
}

// IndexLinks are the paths of the API's resources.
type IndexLinks struct {
	Status     string `json:"status"`
	Components string `json:"components"`
	Notices    string `json:"notices"`
}

// Meta is the pagination block of list responses.
type Meta struct {
	Count      int     `json:"count"`
	TotalCount int     `json:"total_count"`
	NextPage   *string `json:"next_page"`
}

// ComponentsResponse is the body of GET /api/v1/components.
type ComponentsResponse struct {
	Components []ComponentResource `json:"components"`
	Meta       Meta                `json:"meta"`
}

// ComponentResource is a component in the components list.
type ComponentResource struct {
	ID          int64  `json:"id"`
	State       string `json:"state"`
	Name        string `json:"name"`
	Description string `json:"description"`
	ParentID    *int64 `json:"parent_id"`
	Position    int    `json:"position"`
	// MetricsSummary is absent in Variant B and null when Metrics are off.
	MetricsSummary Field[MetricsSummary] `json:"metrics_summary,omitzero"`
	Links          ComponentLinks        `json:"links"`
	CreatedAt      Time                  `json:"created_at"`
	UpdatedAt      Time                  `json:"updated_at"`
}

// ComponentLinks links a component to its children.
type ComponentLinks struct {
	Children Link `json:"children"`
}

// MetricsSummary is a component's uptime over the default timeframe.
type MetricsSummary struct {
	TimeframeStart   string `json:"timeframe_start"`
	TimeframeEnd     string `json:"timeframe_end"`
	PercentageUptime Uptime `json:"percentage_uptime"`
	URL              string `json:"url"`
}

// Uptime is a percentage in numbers and words; Calculation is set only when
// calculations were asked for.
type Uptime struct {
	Percent     float64 `json:"percent"`
	Words       string  `json:"words"`
	Calculation string  `json:"calculation,omitempty"`
}

// Duration is a length of time in whole seconds and in words; Calculation is
// set only when calculations were asked for.
type Duration struct {
	Seconds     int64  `json:"seconds"`
	Words       string `json:"words"`
	Calculation string `json:"calculation,omitempty"`
}

// EmbeddedComponent is a component inside a notice detail: exactly the seven
// keys of SPEC §2.
type EmbeddedComponent struct {
	ID          int64  `json:"id"`
	State       string `json:"state"`
	Name        string `json:"name"`
	Description string `json:"description"`
	ParentID    *int64 `json:"parent_id"`
	CreatedAt   Time   `json:"created_at"`
	UpdatedAt   Time   `json:"updated_at"`
}

// NoticeFields are the fields shared by a notice list entry and a notice
// detail, with the presence rules of SPEC §2.
type NoticeFields struct {
	ID            int64         `json:"id"`
	Type          string        `json:"type"`
	TimelineState string        `json:"timeline_state"`
	State         Field[string] `json:"state,omitzero"`
	Subject       string        `json:"subject"`
	URL           string        `json:"url"`
	BeganAt       Field[Time]   `json:"began_at,omitzero"`
	EndedAt       Field[Time]   `json:"ended_at,omitzero"`
	BeginsAt      *Time         `json:"begins_at,omitempty"`
	EndsAt        *Time         `json:"ends_at,omitempty"`
	CreatedAt     Time          `json:"created_at"`
	UpdatedAt     Time          `json:"updated_at"`
	ImpactTime    *Duration     `json:"impact_time,omitempty"`
	TagList       []string      `json:"tag_list"`
	Links         NoticeLinks   `json:"links"`
}

// NoticeLinks holds a notice's own path.
type NoticeLinks struct {
	Self string `json:"self"`
}

// NoticeListEntry is a notice in the notices list.
type NoticeListEntry struct {
	NoticeFields
	LatestUpdate UpdateResource `json:"latest_update"`
}

// NoticeDetail is the body of a single notice.
type NoticeDetail struct {
	NoticeFields
	Components []EmbeddedComponent `json:"components"`
	Updates    []UpdateResource    `json:"updates"`
}

// UpdateResource is a progress update. ID is present in a notice detail's
// updates and absent (zero) in latest_update; State is absent on general
// notices.
type UpdateResource struct {
	ID        int64   `json:"id,omitempty"`
	State     *string `json:"state,omitempty"`
	Content   string  `json:"content"`
	CreatedAt Time    `json:"created_at"`
	UpdatedAt Time    `json:"updated_at"`
}

// NoticesResponse is the body of GET /api/v1/notices.
type NoticesResponse struct {
	Notices []NoticeListEntry `json:"notices"`
	Meta    Meta              `json:"meta"`
}

// NoticeResponse is the body of GET /api/v1/notices/{id}.
type NoticeResponse struct {
	Notice NoticeDetail `json:"notice"`
}

// MetricsResponse is the body of GET /api/v1/components/{id}/metrics: no
// envelope (CONTRACT C4).
type MetricsResponse struct {
	Component               MetricsComponent `json:"component"`
	TimeframeStart          string           `json:"timeframe_start"`
	TimeframeEnd            string           `json:"timeframe_end"`
	PercentageUptime        Uptime           `json:"percentage_uptime"`
	MeanTimeToRecovery      Duration         `json:"mean_time_to_recovery"`
	MeanTimeBetweenFailures Duration         `json:"mean_time_between_failures"`
	URL                     string           `json:"url"`
	CalculationData         *CalculationData `json:"calculation_data_in_timeframe,omitempty"`
}

// MetricsComponent names the component of a metrics response; its id is a
// JSON string (CONTRACT C1).
type MetricsComponent struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// CalculationData is the data behind the metrics equations.
type CalculationData struct {
	TotalTime       Duration `json:"total_time"`
	TotalImpactTime Duration `json:"total_impact_time"`
	Notices         Link     `json:"notices"`
}

// ErrorResponse is the body of every error answer (CONTRACT C2).
type ErrorResponse struct {
	Error ErrorBody `json:"error"`
}

// ErrorBody is the error inside an ErrorResponse.
type ErrorBody struct {
	Status  int    `json:"status"`
	Code    string `json:"code"`
	Message string `json:"message"`
}
