package notify

import (
	"bytes"
	"embed"
	htmltemplate "html/template"
	"strconv"
	"strings"
	texttemplate "text/template"
	"time"

	"github.com/wneessen/go-mail"

	"github.com/statusd/statusd"
)

//go:embed templates/email.txt templates/email.html
var templateFS embed.FS

// The email's two parts, parsed once, when the program starts: the text
// part as it is, the HTML part escaped by html/template.
var (
	textEmail = texttemplate.Must(texttemplate.New("email.txt").Funcs(texttemplate.FuncMap(templateFuncs)).ParseFS(templateFS, "templates/email.txt"))
	htmlEmail = htmltemplate.Must(htmltemplate.New("email.html").Funcs(htmltemplate.FuncMap(templateFuncs)).ParseFS(templateFS, "templates/email.html"))
)

var templateFuncs = map[string]any{
	"when":  whenAny,
	"join":  strings.Join,
	"lower": strings.ToLower,
}

// whenAny is when for templates, which hold times and optional times.
func whenAny(v any) string {
	switch t := v.(type) {
	case time.Time:
		return when(t)
	case *time.Time:
		if t != nil {
			return when(*t)
		}
	}
	return ""
}

// emailData is what the templates see.
type emailData struct {
	*message
	Links links
}

// Title is the email's subject: the message's title, or, for an active
// subscriber who asked to subscribe again, what the email gives it.
func (d emailData) Title() string {
	if d.Kind == statusd.SubscriptionConfirm && d.Links.Confirm == "" {
		return "[" + d.Page + "] Your subscription"
	}
	return d.message.Title()
}

// email is an email's content: its subject, headers and two parts.
type email struct {
	Subject   string
	MessageID string // without its angle brackets
	// Headers are the headers beyond From, To, Subject, Date and
	// Message-ID, as they are written: threading, unsubscription.
	Headers    [][2]string
	Text, HTML string
}

// renderEmail renders m for the claimed delivery's subscriber.
func renderEmail(m *message, c *statusd.Claimed) (*email, error) {
	s := &c.Subscriber
	d := emailData{message: m, Links: linksFor(m.PageURL, s)}
	var text, html bytes.Buffer
	if err := textEmail.Execute(&text, d); err != nil {
		return nil, err
	}
	if err := htmlEmail.Execute(&html, d); err != nil {
		return nil, err
	}
	e := &email{Subject: d.Title(), Text: text.String(), HTML: html.String()}
	// Ids unique for good (CONTRACT C7): the delivery's random id, and
	// for the notice's first message to the subscriber, which the others
	// reply to, the notice's random thread with the subscriber's id.
	e.MessageID = c.Delivery.MessageID + "@" + m.PageHost
	first := m.Thread + ".s" + strconv.FormatInt(s.ID, 10) + "@" + m.PageHost
	switch {
	case m.NoticeID == 0 || m.Thread == "":
	case m.Kind == statusd.NoticeCreated:
		e.MessageID = first
	default:
		e.Headers = append(e.Headers, [2]string{"In-Reply-To", "<" + first + ">"}, [2]string{"References", "<" + first + ">"})
	}
	if m.Kind != statusd.SubscriptionConfirm {
		// RFC 8058 one-click unsubscription.
		e.Headers = append(e.Headers, [2]string{"List-Unsubscribe", "<" + d.Links.Unsubscribe + ">"},
			[2]string{"List-Unsubscribe-Post", "List-Unsubscribe=One-Click"})
	}
	// RFC 3834: no auto-replies to this.
	e.Headers = append(e.Headers, [2]string{"Auto-Submitted", "auto-generated"})
	return e, nil
}

// msg makes the email into a message from from to the address, dated at.
func (e *email) msg(from, to string, at time.Time) (*mail.Msg, error) {
	msg := mail.NewMsg(mail.WithNoDefaultUserAgent())
	if err := msg.From(from); err != nil {
		return nil, err
	}
	if err := msg.To(to); err != nil {
		return nil, err
	}
	msg.Subject(e.Subject)
	msg.SetDateWithValue(at)
	msg.SetMessageIDWithValue(e.MessageID)
	for _, h := range e.Headers {
		msg.SetGenHeaderPreformatted(mail.Header(h[0]), h[1])
	}
	msg.SetBodyString(mail.TypeTextPlain, e.Text)
	msg.AddAlternativeString(mail.TypeTextHTML, e.HTML)
	return msg, nil
}
