package statusd

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"text/template"
	"time"
	"unicode/utf8"
)

// This file holds the signals of CONTRACT C9: the sources that send alerts,
// the signals statusd keeps of them, and the drafts they make, which a
// person publishes. None of them is ever public.

// Source is a sender of alerts: a monitoring system's webhook, with its
// format, its mapping rules and its heartbeat.
type Source struct {
	ID        int64
	Name      string
	Format    string // alertmanager, grafana, uptime_kuma or generic
	Rules     []SignalRule
	Heartbeat *Heartbeat
	// TokenHash is the SHA-256 of the source's token (SecretHash); the
	// token itself is shown once.
	TokenHash []byte
	// Secret is Grafana's optional HMAC secret: empty for none.
	Secret    string
	CreatedAt time.Time
	// LastEventAt is when the source last sent anything; LastHeartbeatAt
	// when it last sent an event its heartbeat matches. Nil for never.
	LastEventAt     *time.Time
	LastHeartbeatAt *time.Time
	// Published holds, for each rule (by its index) that published a
	// draft by itself, when it last did: its cooldown starts then.
	Published map[int]time.Time
}

// SourceFormats are the formats a source can have (internal/signals
// decodes each).
var SourceFormats = []string{"alertmanager", "grafana", "uptime_kuma", "generic"}

// The states of a source: it sent nothing yet, it is heard, or its
// heartbeat is late.
const (
	SourceNever = "never"
	SourceOK    = "ok"
	SourceStale = "stale"
)

// StateAt is the source's state at now: never before its first event;
// stale when it has a heartbeat and no heartbeat came within the timeout
// (counted from its first event when none came yet); ok otherwise.
func (s *Source) StateAt(now time.Time) string {
	if s.LastEventAt == nil {
		return SourceNever
	}
	if s.Heartbeat == nil {
		return SourceOK
	}
	last := s.LastHeartbeatAt
	if last == nil {
		last = s.LastEventAt
	}
	if now.Sub(*last) > time.Duration(s.Heartbeat.Timeout) {
		return SourceStale
	}
	return SourceOK
}

// SignalRule is one mapping rule of a source: when its Match holds for
// an alert's labels, it decides the alert's components, what to do and
// the draft's texts. Rules are tried in order; the first that matches
// decides.
type SignalRule struct {
	// Match maps a label to a value it must have: "value" exactly,
	// "=~regex" (anchored) or "!=value"; all must hold. Empty matches
	// every alert.
	Match map[string]string `json:"match,omitempty"`
	// Components names the components by key or decimal id; or
	// ComponentLabel names the label whose value (comma-separated) does.
	Components     []string `json:"components,omitempty"`
	ComponentLabel string   `json:"component_label,omitempty"`
	// Action is draft (the default), ignore or publish.
	Action string `json:"action,omitempty"`
	// Subject and Content are Go templates over .Components, .Labels
	// and .Annotations; empty for the defaults.
	Subject string `json:"subject,omitempty"`
	Content string `json:"content,omitempty"`
	// Hold is how long the alert must stay firing before it drafts.
	Hold Span `json:"hold,omitempty"`
	// Notify, for publish rules: whether the publication tells
	// subscribers (false unless set).
	Notify *bool `json:"notify,omitempty"`
	// Cooldown, for publish rules: at most one publication per rule in
	// it (5 minutes when 0).
	Cooldown Span `json:"cooldown,omitempty"`
}

// The actions of a rule.
const (
	RuleDraft   = "draft"
	RuleIgnore  = "ignore"
	RulePublish = "publish"
)

// DefaultCooldown is a publish rule's cooldown when it sets none, and
// MinPublishHold the least hold a publish rule may have.
const (
	DefaultCooldown = 5 * time.Minute
	MinPublishHold  = time.Minute
)

// Heartbeat is a source's heartbeat: events whose labels Match holds only
// show that the source is alive (Alertmanager's always-firing Watchdog);
// past Timeout without one the source is stale.
type Heartbeat struct {
	Match   map[string]string `json:"match"`
	Timeout Span              `json:"timeout"`
}

// Span is a time.Duration written as a Go duration string ("90s",
// "10m") in JSON.
type Span time.Duration

// MarshalJSON writes d as a Go duration string.
func (d Span) MarshalJSON() ([]byte, error) { return json.Marshal(time.Duration(d).String()) }

// UnmarshalJSON reads a Go duration string, never negative.
func (d *Span) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("a duration is a string such as \"90s\" or \"10m\"")
	}
	v, err := time.ParseDuration(s)
	if err != nil || v < 0 {
		return fmt.Errorf("%q is not a duration such as \"90s\" or \"10m\"", s)
	}
	*d = Span(v)
	return nil
}

// MatchLabels reports whether every condition of match holds for labels
// (SignalRule.Match); a condition whose regular expression does not
// compile never holds (CheckSource refuses it first).
func MatchLabels(match, labels map[string]string) bool {
	for name, want := range match {
		got := labels[name]
		switch {
		case strings.HasPrefix(want, "=~"):
			re, err := regexp.Compile("^(?:" + want[2:] + ")$")
			if err != nil || !re.MatchString(got) {
				return false
			}
		case strings.HasPrefix(want, "!="):
			if got == want[2:] {
				return false
			}
		case got != want:
			return false
		}
	}
	return true
}

// CheckSource returns the problems of a source's settings, each named by
// its JSON path.
func CheckSource(s *Source) []Problem {
	var bad []Problem
	add := func(path, format string, args ...any) { bad = append(bad, Problem{path, fmt.Sprintf(format, args...)}) }
	switch {
	case strings.TrimSpace(s.Name) == "":
		add("name", "is required: the source's name, as the audit log and the console show it")
	case len(s.Name) > 100:
		add("name", "is %d bytes long; at most 100", len(s.Name))
	}
	if !slices.Contains(SourceFormats, s.Format) {
		add("format", "%q is not a format (%s)", s.Format, strings.Join(SourceFormats, ", "))
	}
	checkMatch := func(path string, m map[string]string) {
		for name, want := range m {
			if re, ok := strings.CutPrefix(want, "=~"); ok {
				if _, err := regexp.Compile("^(?:" + re + ")$"); err != nil {
					add(path+"."+name, "%q is not a regular expression: %v", re, err)
				}
			}
		}
	}
	for i, r := range s.Rules {
		p := fmt.Sprintf("rules[%d]", i)
		checkMatch(p+".match", r.Match)
		if len(r.Components) > 0 && r.ComponentLabel != "" {
			add(p, "names components or a component_label, not both")
		}
		switch r.Action {
		case "", RuleDraft, RuleIgnore:
		case RulePublish:
			if time.Duration(r.Hold) < MinPublishHold {
				add(p+".hold", "a publish rule needs a hold of at least %v, so that a flap publishes nothing", MinPublishHold)
			}
		default:
			add(p+".action", "%q is not an action (draft, ignore, publish)", r.Action)
		}
		for _, t := range []struct{ field, text string }{{"subject", r.Subject}, {"content", r.Content}} {
			if _, err := ParseSignalTemplate(t.text); err != nil {
				add(p+"."+t.field, "%v", err)
			}
		}
	}
	if s.Secret != "" && s.Format != "grafana" {
		add("secret", "only a grafana source signs its requests; leave secret out")
	}
	if s.Heartbeat != nil {
		if len(s.Heartbeat.Match) == 0 {
			add("heartbeat.match", "is required: the labels of the heartbeat alert, such as {\"alertname\": \"Watchdog\"}")
		}
		checkMatch("heartbeat.match", s.Heartbeat.Match)
		if s.Heartbeat.Timeout <= 0 {
			add("heartbeat.timeout", "is required: how long without a heartbeat makes the source stale, such as \"5m\"")
		}
	}
	return bad
}

// Signal is what statusd keeps of one alert of a source, by its dedupe
// key: one per (source, key).
type Signal struct {
	ID          int64
	SourceID    int64
	Key         string
	Status      string // firing or resolved
	Labels      map[string]string
	Annotations map[string]string
	URL         string
	Group       string
	StartsAt    *time.Time
	EndsAt      *time.Time
	FirstSeenAt time.Time
	LastSeenAt  time.Time
	// FiringSince is when statusd last saw it start firing: its hold
	// counts from then.
	FiringSince *time.Time
	// HeldUntil, while it fires within its rule's hold, is when the hold
	// ends: it drafts then, unless it resolved first. Nil otherwise.
	HeldUntil *time.Time
	// Rule is the index of the rule that mapped it, or -1.
	Rule         int
	ComponentIDs []int64
	// DraftID is the draft it is part of; NoticeID the notice it joined
	// (an underway maintenance, an open incident, a published draft's).
	DraftID  *int64
	NoticeID *int64
	// Resolves are the times it resolved in the last FlapWindow.
	Resolves []time.Time
}

// Flapping: a signal that resolved FlapResolves times within FlapWindow
// is flapping.
const (
	FlapResolves = 3
	FlapWindow   = 30 * time.Minute
)

// Flapping reports whether the signal resolved FlapResolves times within
// FlapWindow before now.
func (s *Signal) Flapping(now time.Time) bool {
	n := 0
	for _, t := range s.Resolves {
		if now.Sub(t) <= FlapWindow {
			n++
		}
	}
	return n >= FlapResolves
}

// Draft is a notice write that signals proposed and a person publishes:
// a new incident, an update of an open one (new components, or
// recovering when its signals resolved), or the reopening of a resolved
// one.
type Draft struct {
	ID       int64
	Kind     string // incident, update or reopen
	State    string // open, published, discarded or lapsed
	NoticeID *int64 // the incident an update or reopen is for; the one published
	SourceID int64
	Group    string
	Subject  string
	Content  string
	// NoticeState is the state the write gives the notice.
	NoticeState  State
	ComponentIDs []int64
	SignalIDs    []int64
	Warnings     []string
	// Edited is true once a person changed the texts: new signals no
	// longer rewrite them.
	Edited bool
	// Rule is the index of the source's rule that made it (-1: none),
	// and PublishAt, for a publish rule's draft, when it publishes
	// itself.
	Rule      int
	PublishAt *time.Time
	Reason    string // why it was discarded
	Version   int64
	CreatedAt time.Time
	UpdatedAt time.Time
}

// The kinds and states of a draft.
const (
	DraftIncident = "incident"
	DraftUpdate   = "update"
	DraftReopen   = "reopen"

	DraftOpen      = "open"
	DraftPublished = "published"
	DraftDiscarded = "discarded"
	DraftLapsed    = "lapsed"
)

// DraftStates are the states of a draft, for a list's filter.
var DraftStates = []string{DraftOpen, DraftPublished, DraftDiscarded, DraftLapsed}

// Publishable reports whether a person may still publish the draft: it
// is open, or it lapsed (its alerts cleared before anyone looked).
func (d *Draft) Publishable() bool { return d.State == DraftOpen || d.State == DraftLapsed }

// SignalFilter selects signals for a list: of one source (0: all), of
// one status ("": all), only those that name no component, only those
// whose hold ends by HeldBy (when not zero), only those of Keys (when
// not nil).
type SignalFilter struct {
	SourceID int64
	Status   string
	Unmapped bool
	HeldBy   time.Time
	Keys     []string
	// DraftID and NoticeID, when not 0, keep the signals of that draft
	// or notice.
	DraftID  int64
	NoticeID int64
}

// SignalText is what the templates of a rule see: the components' names
// ("A, B and C"), the alert's labels and annotations.
type SignalText struct {
	Components  string
	Labels      map[string]string
	Annotations map[string]string
}

// The texts of a draft when its rule gives no template.
const (
	DefaultDraftSubject = "Issues with {{.Components}}"
	DefaultDraftContent = "We are investigating reports of problems with {{.Components}}."
)

// ParseSignalTemplate parses a rule's subject or content template (empty
// for the default); a label the alert lacks reads as empty.
func ParseSignalTemplate(text string) (*template.Template, error) {
	t, err := template.New("").Option("missingkey=zero").Parse(text)
	if err != nil {
		return nil, fmt.Errorf("is not a template: %v", strings.TrimPrefix(err.Error(), "template: :"))
	}
	return t, nil
}

// DraftTexts renders a draft's subject and content for the rule (nil: no
// rule) and an alert: the rule's templates, or the defaults, which show
// no label or annotation text but the annotation statusd_summary, taken
// as the content. A template that fails renders as the default. Both are
// cut to MaxSubject and MaxContent.
func DraftTexts(rule *SignalRule, names []string, labels, annotations map[string]string) (subject, content string) {
	data := SignalText{Components: JoinNames(names), Labels: labels, Annotations: annotations}
	subjectT, contentT := DefaultDraftSubject, DefaultDraftContent
	if rule != nil && rule.Subject != "" {
		subjectT = rule.Subject
	}
	if rule != nil && rule.Content != "" {
		contentT = rule.Content
	}
	render := func(text, fallback string) string {
		var b strings.Builder
		if t, err := ParseSignalTemplate(text); err == nil && t.Execute(&b, data) == nil && strings.TrimSpace(b.String()) != "" {
			return b.String()
		}
		b.Reset()
		template.Must(ParseSignalTemplate(fallback)).Execute(&b, data)
		return b.String()
	}
	subject = render(subjectT, DefaultDraftSubject)
	if summary := annotations["statusd_summary"]; summary != "" && (rule == nil || rule.Content == "") {
		content = summary
	} else {
		content = render(contentT, DefaultDraftContent)
	}
	return cut(subject, MaxSubject), cut(content, MaxContent)
}

// cut shortens s to at most n bytes, at a character's start.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// JoinNames joins names as a sentence does: "A", "A and B", "A, B and C".
func JoinNames(names []string) string {
	switch len(names) {
	case 0:
		return "our services"
	case 1:
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}
