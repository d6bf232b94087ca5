package notify

import (
	"encoding/json"
	"errors"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/internal/snapshot"
)

// catchUp is how long after an event the snapshot may still lack its
// notice or update: the write that made the event is applied to the
// snapshot just after its transaction, and other replicas follow within a
// second. A notice still missing after that was deleted.
const catchUp = time.Minute

// errNotYet says the snapshot does not hold the event's notice or update
// yet: the delivery waits, without counting an attempt.
var errNotYet = errors.New("the snapshot does not hold the event's notice yet")

// voidError says there is nothing to send any more (the notice was
// deleted, the maintenance moved): the delivery is dropped with its text
// (statusd.Dropped).
type voidError string

func (e voidError) Error() string { return string(e) }

// message is what one event tells, whatever the channel and the
// subscriber: made once per event and snapshot, and shared by every
// delivery of the event.
type message struct {
	Kind     statusd.EventKind
	Thread   string // the notice's thread (statusd.Event.Thread)
	Page     string // the page's name
	PageURL  string // without its trailing slash
	PageHost string // the host of PageURL, for Message-IDs
	NoticeID int64  // 0 for a test or a confirmation
	Type     statusd.NoticeType
	Subject  string // the notice's subject
	// State is the update's state ("" on general notices); for a
	// reminder, the notice's.
	State statusd.State
	// Word is what the title says after the subject: the state's word,
	// or the type's for general notices.
	Word       string
	Text       string   // the update's content
	Components []string // the names of the event's components, in position order
	Posted     time.Time
	// BeganAt and EndedAt (incidents and maintenances that began), and
	// BeginsAt and EndsAt (maintenances).
	BeganAt, EndedAt, BeginsAt, EndsAt *time.Time
	Link                               string // the notice's page (the page itself for a test)

	// makeWebhook makes what every webhook body of the event carries;
	// parts calls it once.
	makeWebhook func() (webhookParts, error)
	webhookOnce sync.Once
	webhook     webhookParts
	webhookErr  error

	// The email's parts, rendered once for the subscribers without a
	// confirmation link ([0]) and once for those with one ([1])
	// (emailBody).
	emailOnce [2]sync.Once
	emails    [2]emailBody
	emailErrs [2]error
}

// Title is the message's one line: "[<page name>] <subject>: <word>"
// (CONTRACT C7), or the page's name and what the message is for.
func (m *message) Title() string {
	switch m.Kind {
	case statusd.TestMessage:
		return "[" + m.Page + "] Test message"
	case statusd.SubscriptionConfirm:
		return "[" + m.Page + "] Confirm your subscription"
	case statusd.MaintenanceReminder:
		return "[" + m.Page + "] " + m.Subject + ": Begins " + when(*m.BeginsAt)
	}
	return "[" + m.Page + "] " + m.Subject + ": " + m.Word
}

// Heading is what a chat message shows in large: the notice's subject,
// or the title of a message about no notice.
func (m *message) Heading() string {
	if m.NoticeID == 0 {
		return m.Title()
	}
	return m.Subject
}

// Schedule is a maintenance's window ("" for other notices).
func (m *message) Schedule() string {
	if m.BeginsAt == nil {
		return ""
	}
	s := when(*m.BeginsAt)
	if m.EndsAt != nil {
		s += " to " + when(*m.EndsAt)
	}
	return s
}

// Tone is the colour family of the message: what chat cards and the
// email's badge show.
func (m *message) Tone() tone {
	switch m.State {
	case statusd.Investigating, statusd.Identified:
		return toneBad
	case statusd.Recovering:
		return toneRecovering
	case statusd.Scheduled, statusd.Underway:
		return toneMaintenance
	case statusd.Resolved, statusd.FalseAlarm, statusd.Complete, statusd.Cancelled:
		return toneGood
	}
	return toneInfo
}

// tone is a message's colour family.
type tone int

const (
	toneInfo tone = iota
	toneBad
	toneRecovering
	toneMaintenance
	toneGood
)

// RGB is the tone's colour as 0xRRGGBB.
func (t tone) RGB() int {
	return [...]int{0x6B7280, 0xDC2626, 0xD97706, 0x2563EB, 0x16A34A}[t]
}

// Hex is the tone's colour as #rrggbb.
func (t tone) Hex() string {
	s := strconv.FormatInt(int64(t.RGB()), 16)
	return "#" + strings.Repeat("0", 6-len(s)) + s
}

// links are a subscriber's own links, carried by every message to it.
type links struct {
	Manage      string // <page url>/subscriptions/manage?token=T
	Unsubscribe string // <page url>/subscriptions/unsubscribe?token=T
	Confirm     string // <page url>/subscriptions/confirm?token=C; only for a pending confirmation
}

func linksFor(pageURL string, s *statusd.Subscriber) links {
	confirm := ""
	if confirming(s) {
		confirm = url.QueryEscape(s.ConfirmToken)
	}
	return tokenLinks(pageURL, url.QueryEscape(s.Token), confirm)
}

// confirming reports whether the messages to s carry a confirmation link.
func confirming(s *statusd.Subscriber) bool {
	return s.State == statusd.SubscriberPending && s.ConfirmToken != ""
}

// tokenLinks are the links of the token and the confirmation token, both
// as they go in a query ("" confirm: none).
func tokenLinks(pageURL, token, confirm string) links {
	l := links{
		Manage:      pageURL + "/subscriptions/manage?token=" + token,
		Unsubscribe: pageURL + "/subscriptions/unsubscribe?token=" + token,
	}
	if confirm != "" {
		l.Confirm = pageURL + "/subscriptions/confirm?token=" + confirm
	}
	return l
}

// compose makes the message of event e from snap at now. It returns
// errNotYet while the snapshot lacks a young event's notice or update,
// and a voidError when there is nothing to tell any more.
func (w *Worker) compose(snap *snapshot.Snapshot, e statusd.Event, now time.Time) (*message, error) {
	if snap == nil {
		return nil, errNotYet
	}
	m := &message{Kind: e.Kind, Thread: e.Thread, Page: snap.Doc.Page.Name, PageURL: strings.TrimRight(snap.PageURL, "/")}
	m.PageHost = hostOf(m.PageURL)
	m.Link = m.PageURL + "/"
	m.Components = componentNames(snap, e.ComponentIDs)
	switch e.Kind {
	case statusd.TestMessage:
		m.Subject = "Test message from " + m.Page + " (not an incident)"
		m.Text = "This is a test message from " + m.Page + ": its notifications will come here."
		m.makeWebhook = func() (webhookParts, error) {
			told, n := sample(snap, m, now)
			return w.webhookParts(snap, told, n, now)
		}
		return m, nil
	case statusd.SubscriptionConfirm:
		m.makeWebhook = func() (webhookParts, error) { return w.webhookParts(snap, snap, nil, now) }
		return m, nil
	case statusd.ComponentUpdated:
		var c *snapshot.Component
		if len(e.ComponentIDs) == 1 {
			c = snap.Component(e.ComponentIDs[0])
		}
		switch {
		case c == nil && now.Sub(e.CreatedAt) < catchUp:
			return nil, errNotYet
		case c == nil:
			return nil, voidError("the component was deleted")
		}
		m.Subject, m.Components = c.Name, []string{c.Name}
		m.makeWebhook = func() (webhookParts, error) { return w.componentParts(snap, c, e, now) }
		return m, nil
	case statusd.NoticeCreated, statusd.NoticeUpdated, statusd.MaintenanceReminder:
	default:
		return nil, voidError("statusd does not know events of kind " + strconv.Quote(string(e.Kind)))
	}
	young := now.Sub(e.CreatedAt) < catchUp
	n := snap.Notice(e.NoticeID)
	if n == nil {
		if young {
			return nil, errNotYet
		}
		return nil, voidError("the notice was deleted")
	}
	if e.UpdateID != 0 {
		// The notice as the event's write left it, whatever came since
		// (CONTRACT C7): a retry after the next update still tells this one.
		through, ok := n.Through(e.UpdateID, now)
		switch {
		case !ok && young:
			return nil, errNotYet
		case !ok:
			return nil, voidError("the update was deleted")
		}
		n = through
	}
	u := n.Latest()
	m.NoticeID, m.Type, m.Subject = n.ID, n.Type(), n.Subject()
	m.Link = m.PageURL + "/notices/" + strconv.FormatInt(n.ID, 10)
	m.BeganAt, m.EndedAt, m.BeginsAt, m.EndsAt = n.BeganAt(), n.EndedAt(), n.BeginsAt(), n.EndsAt()
	m.State, m.Text, m.Posted = u.State, u.Content, u.CreatedAt
	m.Word = u.State.Word()
	if m.Word == "" {
		m.Word = m.Type.Word() // general notices have no state
	}
	if e.Kind == statusd.MaintenanceReminder {
		if !reminderHolds(n, e.Key) {
			return nil, voidError("the maintenance was rescheduled, begun or cancelled since the reminder was due")
		}
		m.State, m.Word = n.State(), n.State().Word()
	}
	m.makeWebhook = func() (webhookParts, error) { return w.webhookParts(snap, snap, n, now) }
	return m, nil
}

// reminderHolds reports whether a reminder made with key still holds for
// n: it is still scheduled, to begin when the key says.
func reminderHolds(n *snapshot.Notice, key string) bool {
	b := n.BeginsAt()
	if n.State() != statusd.Scheduled || b == nil {
		return false
	}
	return key == "" || key == statusd.ReminderKey(n.ID, *b)
}

// componentNames names the components with the ids that the snapshot
// still has, in position order.
func componentNames(snap *snapshot.Snapshot, ids []int64) []string {
	var out []string
	for _, c := range snap.AllComponents {
		for _, id := range ids {
			if c.ID == id {
				out = append(out, c.Name)
				break
			}
		}
	}
	return out
}

// hostOf returns the host of a page url as a Message-ID's right side:
// the name, or an address literal in brackets.
func hostOf(pageURL string) string {
	u, err := url.Parse(pageURL)
	if err != nil || u.Hostname() == "" {
		return "statusd.invalid"
	}
	if h := u.Hostname(); strings.Contains(h, ":") {
		return "[" + h + "]"
	}
	return u.Hostname()
}

// when writes a moment for readers, in UTC: "15 Jan 2026, 14:00 UTC", as
// the status page does.
func when(t time.Time) string { return t.UTC().Format("2 Jan 2006, 15:04 UTC") }

// messages keeps the messages of the current snapshot by event, so that
// the thousands of deliveries of one event compose it once.
type messages struct {
	mu   sync.Mutex
	snap *snapshot.Snapshot
	byID map[int64]*message
}

// maxCached bounds the messages kept for one snapshot.
const maxCached = 1024

// get returns the message of e in snap, composed the first time.
func (c *messages) get(snap *snapshot.Snapshot, e statusd.Event, compose func() (*message, error)) (*message, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.snap != snap || len(c.byID) >= maxCached {
		c.snap, c.byID = snap, map[int64]*message{}
	}
	if m := c.byID[e.ID]; m != nil {
		return m, nil
	}
	m, err := compose()
	if err != nil {
		return nil, err
	}
	c.byID[e.ID] = m
	return m, nil
}

// webhookParts are the parts of a webhook body that do not depend on the
// subscriber or the moment of the attempt, marshalled once: a notice's
// incident and notice, or a component's update and component.
type webhookParts struct {
	page, incident, notice     json.RawMessage
	componentUpdate, component json.RawMessage
}

// parts returns the webhook parts of m, made the first time.
func (m *message) parts() (webhookParts, error) {
	m.webhookOnce.Do(func() { m.webhook, m.webhookErr = m.makeWebhook() })
	return m.webhook, m.webhookErr
}
