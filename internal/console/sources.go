package console

// The alert sources of CONTRACT C9, an owner's screens: the sources with
// their state and hook URL; add one, change, rotate its token, remove
// it; a source's signals that name no component. A token is shown once,
// in the answer that made it, with what its sender needs, ready to paste
// (Alertmanager, Grafana, Uptime Kuma, and Gatus or a script for the
// generic format). The console runs no script (its CSP allows none), so
// a configuration is a block whose one click selects it all.

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/internal/signals"
)

// sourceRow is a source in the list, with its hook's URL.
type sourceRow struct {
	statusd.AdminSource
	Hook string
}

// sourcesView is the sources screen.
type sourcesView struct {
	base
	Sources []sourceRow
	Add     *form
	Created *senderSetup // a source just added, with its token
}

// sourceFields are a source form's fields: the form, and the formats
// offered (nil: the format cannot change) or the source's format.
type sourceFields struct {
	Form    *form
	Formats []string
	Format  string
}

// AddFields are the fields of the add form.
func (v sourcesView) AddFields() sourceFields {
	return sourceFields{Form: v.Add, Formats: statusd.SourceFormats, Format: v.Add.Get("format")}
}

// sourceView is a source's screen.
type sourceView struct {
	base
	Source    statusd.AdminSource
	Hook      string
	Heartbeat string // in words; "" for none
	Rules     string // as JSON
	Change    *form
	Remove    *form
	Created   *senderSetup // its token, just rotated
	Unmapped  []signalView
}

// ChangeFields are the fields of the change form.
func (v sourceView) ChangeFields() sourceFields {
	return sourceFields{Form: v.Change, Format: v.Source.Format}
}

// senderSetup is what a sender needs to post to a source's hook: shown
// once, with the token, after the source is added or its token rotated.
type senderSetup struct {
	ID                        int64
	Name, Format, Hook, Token string
	Configs                   []senderConfig
}

// senderConfig is one sender's configuration: where it goes, and its
// text, to paste.
type senderConfig struct {
	ID, Title, Where, Text string
}

// hookURL is the URL of a hook's path, on the console's own origin: its
// configured URL, else the scheme and host the browser used; the hooks
// are on the console's listener.
func (s *Server) hookURL(r *http.Request, path string) string {
	if u := s.url(); u != "" {
		return u + path
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host + path
}

// setup is what src's sender needs, src having its token.
func (s *Server) setup(r *http.Request, src statusd.AdminSource) *senderSetup {
	hook := s.hookURL(r, src.HookPath)
	return &senderSetup{ID: src.ID, Name: src.Name, Format: src.Format, Hook: hook, Token: src.Token,
		Configs: senderConfigs(src.Format, hook, src.Token, src.Signed)}
}

// senderConfigs are the configurations of the senders of format that
// post to hook with token; signed: the source checks Grafana's HMAC.
func senderConfigs(format, hook, token string, signed bool) []senderConfig {
	switch format {
	case string(signals.Alertmanager):
		return []senderConfig{{ID: "config-alertmanager", Title: "Alertmanager",
			Where: "A receiver in alertmanager.yml; route the alerts to it (route: receiver: statusd).",
			Text: fmt.Sprintf(`receivers:
  - name: statusd
    webhook_configs:
      - url: "%s"
        send_resolved: true
        http_config:
          authorization:
            type: Bearer
            credentials: "%s"
`, hook, token)}}
	case string(signals.Grafana):
		text := fmt.Sprintf(`Integration: Webhook
URL: %s
HTTP Method: POST
Authorization Header - Scheme: Bearer
Authorization Header - Credentials: %s
`, hook, token)
		if signed {
			text += fmt.Sprintf(`HMAC Signature - Secret: the secret given to this source
HMAC Signature - Header: %s
HMAC Signature - Timestamp Header: %s
`, signals.SignatureHeader, signals.TimestampHeader)
		}
		return []senderConfig{{ID: "config-grafana", Title: "Grafana",
			Where: "A contact point (Alerting, Contact points, Add contact point), its optional Webhook settings as below.", Text: text}}
	case string(signals.UptimeKuma):
		return []senderConfig{{ID: "config-uptime-kuma", Title: "Uptime Kuma",
			Where: "A notification (Settings, Notifications, Setup Notification), then turn it on for the monitors.",
			Text: fmt.Sprintf(`Notification Type: Webhook
Post URL: %s
Request Body: Preset - application/json
Additional Headers: {"Authorization": "Bearer %s"}
`, hook, token)}}
	}
	return []senderConfig{{ID: "config-gatus", Title: "Gatus",
		Where: "The custom alerting provider in Gatus's config.yaml, and an alert of type custom on each endpoint. " +
			"Write the key of the component its endpoints check for <component key>, or name the endpoints by component keys " +
			`and give this source the rule [{"component_label": "endpoint"}].`,
		Text: fmt.Sprintf(`alerting:
  custom:
    url: "%s"
    method: "POST"
    headers:
      Authorization: "Bearer %s"
    body: |
      {"dedup_key": "gatus:[ENDPOINT_GROUP]/[ENDPOINT_NAME]", "status": "[ALERT_TRIGGERED_OR_RESOLVED]", "labels": {"component": "<component key>", "endpoint": "[ENDPOINT_NAME]"}, "annotations": {"description": "[ALERT_DESCRIPTION]"}}
endpoints:
  - name: website
    url: "https://example.com/health"
    conditions:
      - "[STATUS] == 200"
    alerts:
      - type: custom
        send-on-resolved: true
`, hook, token)}, {ID: "config-script", Title: "A script",
		Where: "One event with curl; status firing or resolved, the same dedup_key for both.",
		Text: fmt.Sprintf(`curl -X POST "%s" \
  -H "Authorization: Bearer %s" \
  -H "Content-Type: application/json" \
  -d '{"dedup_key": "disk-full", "status": "firing", "labels": {"component": "<component key>"}}'
`, hook, token)}}
}

// sourceKeys are the fields a source's form shows problems at.
var sourceKeys = []string{"name", "format", "rules", "heartbeat.match", "heartbeat.timeout", "secret"}

// sourceRequest reads a source's form: name, format (when adding), rules
// (JSON, empty for none), heartbeat (label=value, ..., and a timeout;
// both empty for none) and Grafana's secret (empty keeps it; clear_secret
// takes it away).
func (f *form) sourceRequest(adding bool) statusd.AdminSourceRequest {
	body := statusd.AdminSourceRequest{Name: f.text("name"), Rules: f.rules(), Heartbeat: f.heartbeat()}
	if adding {
		body.Format = f.text("format")
	}
	switch secret := strings.TrimSpace(f.Get("secret")); {
	case f.Has("clear_secret"):
		body.Secret = new("")
	case secret != "":
		body.Secret = &secret
	}
	return body
}

// rules reads the rules field: a JSON list of rules, or empty for none.
func (f *form) rules() *[]statusd.SignalRule {
	list := []statusd.SignalRule{}
	text := strings.TrimSpace(f.Get("rules"))
	if text == "" {
		return &list
	}
	_, found, err := statusd.DecodeJSON([]byte(text))
	if err != nil {
		f.problem("rules", "is not JSON: "+err.Error())
		return nil
	}
	for _, p := range found {
		f.problem("rules", p.String())
	}
	dec := json.NewDecoder(strings.NewReader(text))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&list); err != nil {
		f.problem("rules", "is not a list of rules such as the example: "+strings.TrimPrefix(err.Error(), "json: "))
		return nil
	}
	return &list
}

// heartbeat reads the heartbeat fields: label=value conditions,
// comma-separated, and a timeout; none when both are empty.
func (f *form) heartbeat() statusd.Field[statusd.Heartbeat] {
	match, timeout := strings.TrimSpace(f.Get("heartbeat_match")), strings.TrimSpace(f.Get("heartbeat_timeout"))
	if match == "" && timeout == "" {
		return statusd.Null[statusd.Heartbeat]()
	}
	hb := statusd.Heartbeat{Match: map[string]string{}}
	for part := range strings.SplitSeq(match, ",") {
		if part = strings.TrimSpace(part); part == "" {
			continue
		}
		name, value, ok := strings.Cut(part, "=")
		if name = strings.TrimSpace(name); !ok || name == "" {
			f.problem("heartbeat.match", fmt.Sprintf("%q is not label=value, such as alertname=Watchdog", part))
			continue
		}
		hb.Match[name] = strings.TrimSpace(value)
	}
	if timeout != "" {
		d, err := time.ParseDuration(timeout)
		if err != nil || d <= 0 {
			f.problem("heartbeat.timeout", fmt.Sprintf("%q is not a duration such as 90s or 5m", timeout))
		}
		hb.Timeout = statusd.Span(d)
	}
	return statusd.Some(hb)
}

// matchText is a heartbeat's match as its field shows it.
func matchText(m map[string]string) string {
	var parts []string
	for _, p := range pairs(m) {
		parts = append(parts, p.Name+"="+p.Value)
	}
	return strings.Join(parts, ", ")
}

// sourcesScreen renders the sources screen with v's forms.
func (s *Server) sourcesScreen(w http.ResponseWriter, r *http.Request, status int, v sourcesView) error {
	list, _, err := s.sources(r)
	if err != nil {
		return err
	}
	v.base = s.newBase(r, "Alert sources")
	for _, src := range list {
		v.Sources = append(v.Sources, sourceRow{AdminSource: src, Hook: s.hookURL(r, src.HookPath)})
	}
	if v.Add == nil {
		v.Add = newForm(url.Values{"format": {string(signals.Alertmanager)}})
	}
	return s.render(w, status, "sources", v)
}

// Sources lists the alert sources, with the form that adds one.
func (s *Server) Sources(w http.ResponseWriter, r *http.Request) error {
	return s.sourcesScreen(w, r, http.StatusOK, sourcesView{})
}

// AddSource adds a source (app.AddSource) and shows its token and its
// sender's configuration, this once: the token is not kept, so it is
// answered at once rather than after a redirect.
func (s *Server) AddSource(w http.ResponseWriter, r *http.Request) error {
	var src statusd.AdminSource
	return submit(w, r, sourceKeys, func(f *form) (err error) {
		if body := f.sourceRequest(true); !f.Failed() {
			src, err = s.app.AddSource(r.Context(), actor(r), body)
		}
		return err
	}, func(status int, f *form) error {
		return s.sourcesScreen(w, r, status, sourcesView{Add: f})
	}, func() error {
		return s.sourcesScreen(w, r, http.StatusCreated, sourcesView{Created: s.setup(r, src)})
	})
}

// sourceScreen renders source id's screen with v's forms.
func (s *Server) sourceScreen(w http.ResponseWriter, r *http.Request, status int, id int64, v sourceView) error {
	src, err := s.app.Source(r.Context(), actor(r), id)
	if err != nil {
		return err
	}
	unmapped, err := s.app.Signals(r.Context(), actor(r), statusd.SignalFilter{SourceID: id, Unmapped: true})
	if err != nil {
		return err
	}
	v.base, v.Source, v.Hook = s.newBase(r, src.Name), src, s.hookURL(r, src.HookPath)
	v.Unmapped = signalViews(unmapped, map[int64]string{src.ID: src.Name})
	if len(src.Rules) > 0 {
		b, _ := json.MarshalIndent(src.Rules, "", "  ")
		v.Rules = string(b)
	}
	values := url.Values{"name": {src.Name}, "rules": {v.Rules}}
	if hb := src.Heartbeat; hb != nil {
		v.Heartbeat = fmt.Sprintf("%s, within %s", matchText(hb.Match), time.Duration(hb.Timeout))
		values.Set("heartbeat_match", matchText(hb.Match))
		values.Set("heartbeat_timeout", time.Duration(hb.Timeout).String())
	}
	if v.Change == nil {
		v.Change = newForm(values)
	}
	if v.Remove == nil {
		v.Remove = newForm(nil)
	}
	return s.render(w, status, "source", v)
}

// Source shows a source: its settings, its hook, its forms and its
// signals that name no component.
func (s *Server) Source(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "source")
	if err != nil {
		return err
	}
	return s.sourceScreen(w, r, http.StatusOK, id, sourceView{})
}

// ChangeSource changes a source's name, rules, heartbeat or secret
// (app.ChangeSource).
func (s *Server) ChangeSource(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "source")
	if err != nil {
		return err
	}
	return submit(w, r, sourceKeys, func(f *form) (err error) {
		if body := f.sourceRequest(false); !f.Failed() {
			_, err = s.app.ChangeSource(r.Context(), actor(r), id, body)
		}
		return err
	}, func(status int, f *form) error {
		return s.sourceScreen(w, r, status, id, sourceView{Change: f})
	}, back(w, r, fmt.Sprintf("/sources/%d", id)))
}

// RotateSourceToken gives a source a new token (app.RotateSourceToken)
// and shows it, this once, with its sender's configuration; the old one
// stops working at once.
func (s *Server) RotateSourceToken(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "source")
	if err != nil {
		return err
	}
	src, err := s.app.RotateSourceToken(r.Context(), actor(r), id)
	if err != nil {
		return err
	}
	return s.sourceScreen(w, r, http.StatusOK, id, sourceView{Created: s.setup(r, src)})
}

// RemoveSource removes a source and its signals, once the form confirms
// it (app.RemoveSource); its drafts stay.
func (s *Server) RemoveSource(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "source")
	if err != nil {
		return err
	}
	return submit(w, r, []string{"confirm"}, func(f *form) error {
		if !f.Has("confirm") {
			return statusd.FieldError(statusd.EInvalidField, "confirm", "tick the box to confirm the removal")
		}
		return s.app.RemoveSource(r.Context(), actor(r), id)
	}, func(status int, f *form) error {
		return s.sourceScreen(w, r, status, id, sourceView{Remove: f})
	}, back(w, r, "/sources"))
}

// formats are the formats a source may have, with their senders, for
// the add form.
var formats = map[string]string{
	string(signals.Alertmanager): "Alertmanager (Prometheus)",
	string(signals.Grafana):      "Grafana",
	string(signals.UptimeKuma):   "Uptime Kuma",
	string(signals.Generic):      "Generic (Gatus, scripts)",
}

// formatWord names a source's format for a reader.
func formatWord(format string) string {
	if w, ok := formats[format]; ok {
		return w
	}
	return format
}
