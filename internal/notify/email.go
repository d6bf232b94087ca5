package notify

import (
	"bytes"
	"embed"
	htmltemplate "html/template"
	"net/url"
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

// emailBody is an email's subject and parts as every subscriber of a
// message with (or without) a confirmation link gets them, but for the
// subscriber's tokens: marks where they go (tokenMark, confirmMark).
type emailBody struct {
	subject    string
	text, html marked
}

// marked is a text split at the marks of a subscriber's tokens: parts[i]
// is followed by the token that marks[i] stands for, the last part by
// nothing.
type marked struct {
	parts []string
	marks []string
}

// markText splits s at every tokenMark and confirmMark.
func markText(s string) marked {
	var m marked
	for {
		i, mark := strings.Index(s, tokenMark), tokenMark
		if j := strings.Index(s, confirmMark); j >= 0 && (i < 0 || j < i) {
			i, mark = j, confirmMark
		}
		if i < 0 {
			m.parts = append(m.parts, s)
			return m
		}
		m.parts, m.marks = append(m.parts, s[:i]), append(m.marks, mark)
		s = s[i+len(mark):]
	}
}

// fill is the text with token and confirm in place of their marks, made
// in one allocation of its size.
func (m marked) fill(token, confirm string) string {
	n := len(m.marks) * max(len(token), len(confirm))
	for _, p := range m.parts {
		n += len(p)
	}
	var b strings.Builder
	b.Grow(n)
	for i, p := range m.parts {
		b.WriteString(p)
		switch {
		case i == len(m.marks):
		case m.marks[i] == tokenMark:
			b.WriteString(token)
		default:
			b.WriteString(confirm)
		}
	}
	return b.String()
}

// The marks of a subscriber's token and confirmation token in an
// emailBody: letters, digits, "-" and "_", which neither part escapes, random to
// the process, so that no text a notice carries holds them.
var tokenMark, confirmMark = "tok" + statusd.NewToken(), "cnf" + statusd.NewToken()

// emailBody returns m's email parts for subscribers with a confirmation
// link (confirm) or without, rendered the first time: once per event,
// whatever the number of subscribers.
func (m *message) emailBody(confirm bool) (emailBody, error) {
	i := 0
	if confirm {
		i = 1
	}
	m.emailOnce[i].Do(func() {
		cmark := ""
		if confirm {
			cmark = confirmMark
		}
		d := emailData{message: m, Links: tokenLinks(m.PageURL, tokenMark, cmark)}
		var text, html bytes.Buffer
		if m.emailErrs[i] = textEmail.Execute(&text, d); m.emailErrs[i] != nil {
			return
		}
		if m.emailErrs[i] = htmlEmail.Execute(&html, d); m.emailErrs[i] != nil {
			return
		}
		m.emails[i] = emailBody{subject: d.Title(), text: markText(text.String()), html: markText(html.String())}
	})
	return m.emails[i], m.emailErrs[i]
}

// renderEmail renders m for the claimed delivery's subscriber: m's email
// parts (emailBody) with the subscriber's tokens in.
func renderEmail(m *message, c *statusd.Claimed) (*email, error) {
	s := &c.Subscriber
	b, err := m.emailBody(confirming(s))
	if err != nil {
		return nil, err
	}
	l := linksFor(m.PageURL, s)
	token, confirm := url.QueryEscape(s.Token), url.QueryEscape(s.ConfirmToken)
	e := &email{Subject: b.subject, Text: b.text.fill(token, confirm), HTML: b.html.fill(token, confirm)}
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
		e.Headers = append(e.Headers, [2]string{"List-Unsubscribe", "<" + l.Unsubscribe + ">"},
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
