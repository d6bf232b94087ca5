package notify

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/internal/httpjson"
	"github.com/statusd/statusd/internal/snapshot"
	"github.com/statusd/statusd/internal/statuspage"
)

// componentUpdate is the "component_update" of Statuspage's component
// webhook.
type componentUpdate struct {
	CreatedAt   string `json:"created_at"`
	NewStatus   string `json:"new_status"`
	OldStatus   string `json:"old_status"`
	ID          string `json:"id"`
	ComponentID string `json:"component_id"`
}

// componentParts marshals the parts of the webhook bodies of a component's
// update e: the page of snap, the update, and the component c in its new
// state.
func (w *Worker) componentParts(snap *snapshot.Snapshot, c *snapshot.Component, e statusd.Event, now time.Time) (webhookParts, error) {
	p, err := w.webhookParts(snap, snap, nil, now)
	if err != nil {
		return p, err
	}
	p.componentUpdate, err = httpjson.Marshal(componentUpdate{
		CreatedAt:   e.CreatedAt.UTC().Format(statusd.TimeLayout),
		NewStatus:   statuspage.ChangedStatus(c, e.NewState, e.NewSeverity),
		OldStatus:   statuspage.ChangedStatus(c, e.OldState, e.OldSeverity),
		ID:          e.Thread,
		ComponentID: strconv.FormatInt(c.ID, 10),
	})
	if err != nil {
		return p, err
	}
	p.component, err = httpjson.Marshal(statuspage.ComponentIn(snap, c, e.NewState, e.NewSeverity))
	return p, err
}

type webhookMeta struct {
	Unsubscribe   string `json:"unsubscribe"`
	Documentation string `json:"documentation"`
	GeneratedAt   string `json:"generated_at"`
}

type webhookPage struct {
	ID                string `json:"id"`
	StatusIndicator   string `json:"status_indicator"`
	StatusDescription string `json:"status_description"`
}

// webhookParts marshals the parts of the webhook bodies of m: the page of
// snap, and the notice n of told (nil for a confirmation: then "incident"
// and "notice" are null).
func (w *Worker) webhookParts(snap, told *snapshot.Snapshot, n *snapshot.Notice, now time.Time) (webhookParts, error) {
	var p webhookParts
	var err error
	page := webhookPage{
		ID:                statuspage.PageID(snap.PageURL),
		StatusIndicator:   statuspage.Indicator(snap),
		StatusDescription: snap.Doc.Page.StateTexts.Text(snap.PageState),
	}
	var incident, notice any
	if n != nil {
		incident = statuspage.Notice(told, n)
		notice = told.NoticeDetail(n, now)
	}
	if p.page, err = httpjson.Marshal(page); err != nil {
		return p, err
	}
	if p.incident, err = httpjson.Marshal(incident); err != nil {
		return p, err
	}
	p.notice, err = httpjson.Marshal(notice)
	return p, err
}

// sample returns the incident a test message shows, and a snapshot of
// snap's page and components that holds it: receivers that parse
// Statuspage's webhooks refuse a body without an incident, so a test
// carries a realistic one, whose subject says it is a test. Its id, 0, is
// no notice's, and it lists no component, so that no receiver takes it
// for news of one.
func sample(snap *snapshot.Snapshot, m *message, now time.Time) (*snapshot.Snapshot, *snapshot.Notice) {
	n := statusd.Notice{Type: statusd.Unplanned, Subject: m.Subject, CreatedAt: now, UpdatedAt: now,
		Updates: []statusd.Update{{State: statusd.Investigating, Content: m.Text, CreatedAt: now, UpdatedAt: now, Notified: true}}}
	doc := &statusd.Document{Page: snap.Doc.Page, Components: snap.Doc.Components, Notices: []statusd.Notice{n}}
	told := snapshot.Build(doc, snap.Version, now, snap.Options)
	return told, told.Notice(0)
}

// webhookRequest is a webhook delivery's body and signed headers at the
// moment of the attempt. The body is Statuspage's webhook shape, plus the
// event and the notice as the v1 API presents it (CONTRACT C7):
//
//	{"meta": {...}, "page": {...}, "incident": {...}, "event": "...", "notice": {...}}
//
// or, for a component's update, Statuspage's component webhook:
//
//	{"meta": {...}, "page": {...}, "component_update": {...}, "component": {...}}
//
// It is put together from the parts marshalled once per message (which
// encoding/json would scan again as json.RawMessage, for every delivery).
func (w *Worker) webhookRequest(m *message, c *statusd.Claimed, at time.Time) ([]byte, http.Header, error) {
	p, err := m.parts()
	if err != nil {
		return nil, nil, err
	}
	body := make([]byte, 0, 256+len(p.page)+len(p.incident)+len(p.notice))
	body = append(body, `{"meta":`...)
	body, err = httpjson.Append(body, webhookMeta{
		Unsubscribe:   linksFor(m.PageURL, &c.Subscriber).Unsubscribe,
		Documentation: w.documentation,
		GeneratedAt:   at.UTC().Format(statusd.TimeLayout),
	})
	if err != nil {
		return nil, nil, err
	}
	body = append(append(body, `,"page":`...), p.page...)
	if m.Kind == statusd.ComponentUpdated {
		// Statuspage's component webhook: {meta, page, component_update, component}.
		body = append(append(body, `,"component_update":`...), p.componentUpdate...)
		body = append(append(append(body, `,"component":`...), p.component...), '}')
	} else {
		body = append(append(body, `,"incident":`...), p.incident...)
		body = append(body, `,"event":`...)
		if body, err = httpjson.Append(body, string(m.Kind)); err != nil {
			return nil, nil, err
		}
		body = append(append(append(body, `,"notice":`...), p.notice...), '}')
	}
	id := c.Delivery.MessageID
	sig, err := Sign(c.Subscriber.Secret, id, at, body)
	if err != nil {
		return nil, nil, err
	}
	h := http.Header{}
	h.Set("webhook-id", id)
	h.Set("webhook-timestamp", strconv.FormatInt(at.Unix(), 10))
	h.Set("webhook-signature", sig)
	return body, h, nil
}

// errSecret says a webhook's secret cannot sign.
var errSecret = errors.New("the webhook's secret is not whsec_ and base64; set a new one")

// Sign returns the webhook-signature of a Standard Webhooks message:
// "v1," and the base64 of the HMAC-SHA256, keyed with the base64-decoded
// secret after "whsec_", of "<id>.<timestamp>.<body>".
func Sign(secret, id string, at time.Time, body []byte) (string, error) {
	b64, ok := strings.CutPrefix(secret, "whsec_")
	key, err := base64.StdEncoding.DecodeString(b64)
	if !ok || err != nil || len(key) == 0 {
		return "", errSecret
	}
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(id + "." + strconv.FormatInt(at.Unix(), 10) + "."))
	mac.Write(body)
	return "v1," + base64.StdEncoding.EncodeToString(mac.Sum(nil)), nil
}
