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
)

// Statuspage presents notices and the page as internal/statuspage does;
// the assembly wires its functions (statuspage.Notice, statuspage.PageID,
// statuspage.Indicator), so that a webhook's "incident" is, to the byte,
// what /api/v2/incidents.json lists.
type Statuspage struct {
	// Notice maps a notice as incidents.json or
	// scheduled-maintenances.json lists it; nil for one they leave out.
	Notice func(*snapshot.Snapshot, *snapshot.Notice) any
	// PageID is the page's id, made from its url.
	PageID func(pageURL string) string
	// Indicator maps the page's state and severity to status.indicator.
	Indicator func(*snapshot.Snapshot) string
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

// webhookParts marshals the parts of the webhook bodies of m: the page,
// and the notice n (nil for a test or a confirmation: then "incident" and
// "notice" are null).
func (w *Worker) webhookParts(snap *snapshot.Snapshot, n *snapshot.Notice, m *message, now time.Time) (webhookParts, error) {
	var p webhookParts
	var err error
	page := webhookPage{
		ID:                w.statuspage.PageID(snap.PageURL),
		StatusIndicator:   w.statuspage.Indicator(snap),
		StatusDescription: snap.Doc.Page.StateTexts.Text(snap.PageState),
	}
	var incident, notice any
	if n != nil {
		incident = w.statuspage.Notice(snap, n)
		notice = snap.NoticeDetail(n, now)
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

// webhookRequest is a webhook delivery's body and signed headers at the
// moment of the attempt. The body is Statuspage's webhook shape, plus the
// event and the notice as the v1 API presents it (CONTRACT C7):
//
//	{"meta": {...}, "page": {...}, "incident": {...}, "event": "...", "notice": {...}}
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
	body = append(append(body, `,"incident":`...), p.incident...)
	body = append(body, `,"event":`...)
	if body, err = httpjson.Append(body, string(m.Kind)); err != nil {
		return nil, nil, err
	}
	body = append(append(append(body, `,"notice":`...), p.notice...), '}')
	id := strconv.FormatInt(c.Delivery.ID, 10)
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
