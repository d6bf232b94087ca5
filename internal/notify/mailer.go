package notify

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	netmail "net/mail"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/wneessen/go-mail"
	"github.com/wneessen/go-mail/smtp"
	"golang.org/x/time/rate"

	"github.com/statusd/statusd"
)

// Defaults of MailConfig.
const (
	// DefaultMailRate is how many messages a second the mailer sends at
	// most: 10,000 subscribers in 40 s, within the fan-out target's minute with room
	// for the rest of the work.
	DefaultMailRate = 250
	// DefaultMailConns is how many connections it sends on at once.
	DefaultMailConns = 4
)

// mailIdle is how long an idle connection is kept: one idle longer is
// closed and made again before it is used (servers drop idle ones).
const mailIdle = 30 * time.Second

// MailConfig configures sending email.
type MailConfig struct {
	// URL is the SMTP server: smtp://[user:pass@]host[:port] (port 25 by
	// default; STARTTLS when the server offers it) or
	// smtps://[user:pass@]host[:port] (implicit TLS; port 465). The
	// user and password, URL-encoded, authenticate, only over TLS.
	URL string
	// From is the sender: "Name <addr>" or "addr".
	From string
	// Rate bounds the messages sent a second (0: DefaultMailRate).
	Rate float64
	// Conns is how many connections send at once (0: DefaultMailConns).
	// Each carries many messages, one after the other.
	Conns int
	// TLSConfig, when not nil, is the TLS configuration (the default
	// verifies the server's certificate against the system's roots).
	TLSConfig *tls.Config
	// Now is the clock (nil: time.Now).
	Now func() time.Time
}

// Mailer sends email through one SMTP server, on a few reused
// connections, at a bounded rate. It is safe for concurrent use.
type Mailer struct {
	from    string
	client  *mail.Client // the settings; each connection is one of its smtp.Clients
	limiter *rate.Limiter
	now     func() time.Time
	// busy holds a token per connection in use. idle holds the others,
	// the most recently used last, to be used first: sends one after the
	// other go on one connection, and only sends at once open more.
	busy chan struct{}
	mu   sync.Mutex
	idle []*smtpConn
	// relay tells the relay's refusals from a mailbox's, and keeps its
	// trouble.
	relay *relayWatch
}

// smtpConn is one connection, made when first needed and again after it
// failed or idled.
type smtpConn struct {
	smtp *smtp.Client // nil when closed
	used time.Time
}

// NewMailer checks the configuration and returns a Mailer; it connects
// when it first sends.
func NewMailer(cfg MailConfig) (*Mailer, error) {
	u, err := url.Parse(cfg.URL)
	if err != nil || u.Host == "" || u.Hostname() == "" || (u.Scheme != "smtp" && u.Scheme != "smtps") || (u.Path != "" && u.Path != "/") {
		return nil, fmt.Errorf("the SMTP URL must be smtp://[user:pass@]host[:port] (STARTTLS) or smtps://[user:pass@]host[:port] (TLS), not %q", redactURL(cfg.URL))
	}
	from, err := netmail.ParseAddress(cfg.From)
	if err != nil {
		return nil, fmt.Errorf("the sender %q is not an address like \"Status <status@example.com>\" or status@example.com", cfg.From)
	}
	host := u.Hostname()
	opts := []mail.Option{mail.WithTimeout(statusd.AttemptTimeout), mail.WithoutNoop()}
	port := 25
	if u.Scheme == "smtps" {
		port = 465
		opts = append(opts, mail.WithSSL())
	} else {
		opts = append(opts, mail.WithTLSPolicy(mail.TLSOpportunistic))
	}
	if p := u.Port(); p != "" {
		if port, err = strconv.Atoi(p); err != nil || port < 1 || port > 65535 {
			return nil, fmt.Errorf("the SMTP URL's port %q is not a port number", p)
		}
	}
	opts = append(opts, mail.WithPort(port))
	tc := &tls.Config{MinVersion: tls.VersionTLS12}
	if cfg.TLSConfig != nil {
		tc = cfg.TLSConfig.Clone()
	}
	if tc.ServerName == "" {
		tc.ServerName = host
	}
	opts = append(opts, mail.WithTLSConfig(tc))
	if u.User != nil {
		pass, _ := u.User.Password()
		// The strongest mechanism the server offers; PLAIN and LOGIN only
		// over TLS.
		opts = append(opts, mail.WithSMTPAuth(mail.SMTPAuthAutoDiscover),
			mail.WithUsername(u.User.Username()), mail.WithPassword(pass))
	}
	m := &Mailer{from: from.String(), now: cfg.Now}
	if m.now == nil {
		m.now = time.Now
	}
	m.relay = newRelayWatch(net.JoinHostPort(host, strconv.Itoa(port)), m.now)
	if m.client, err = mail.NewClient(host, opts...); err != nil {
		return nil, fmt.Errorf("the SMTP URL: %w", err)
	}
	conns := int(orDefault(float64(cfg.Conns), DefaultMailConns))
	m.limiter = rate.NewLimiter(rate.Limit(orDefault(cfg.Rate, DefaultMailRate)), conns)
	m.busy = make(chan struct{}, conns)
	for range conns {
		m.idle = append(m.idle, &smtpConn{})
	}
	return m, nil
}

// orDefault returns v, or def when v is not positive.
func orDefault(v, def float64) float64 {
	if v > 0 {
		return v
	}
	return def
}

// redactURL hides the password of a URL, for messages.
func redactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(not a URL)"
	}
	return u.Redacted()
}

// rate is how many messages a second the mailer sends at most.
func (m *Mailer) rate() float64 { return float64(m.limiter.Limit()) }

// Close closes the mailer's connections, waiting for the sends under way.
func (m *Mailer) Close() error {
	for range cap(m.busy) {
		m.busy <- struct{}{}
	}
	var errs []error
	for _, c := range m.idle {
		errs = append(errs, m.quit(c))
	}
	return errors.Join(errs...)
}

// Trouble says what is wrong with the SMTP relay, naming it, or "" when
// nothing is known to be: it could not be reached, refused statusd's
// login, sender or message, or refuses recipients at several domains
// alike. Email rests meanwhile and is retried (Worker); no subscriber is
// blamed. The next message the relay takes ends it.
func (m *Mailer) Trouble() string {
	trouble, _ := m.relay.state()
	if trouble == "" {
		return ""
	}
	return "the mail relay " + m.relay.name + ": " + trouble + "; email rests and is retried, no subscriber is blamed"
}

// send sends msg to the address to, waiting for its turn (the rate, a
// free connection) until wait ends (ok false: not sent), and tells how it
// went: delivered when the relay accepts it; deferred, the relay's
// trouble and not the recipient's (statusd.Deferred), when it cannot be
// reached, refuses TLS or the login, answers 421 or nothing, or refuses
// MAIL FROM (statusd's own sender) or DATA (the message, the same for
// every subscriber but for its links). A refused recipient (RCPT TO) is
// judged against the relay's other answers (relayWatch): the relay's
// fault when it refuses recipients at several domains alike (deferred);
// the mailbox's when it takes others (rejected for a 5xx, failed for a
// 4xx); deferred, blaming no one, when it cannot yet be told.
func (m *Mailer) send(ctx, wait context.Context, msg *mail.Msg, to string) (a statusd.Attempt, ok bool) {
	a, ok = m.transmit(ctx, wait, msg)
	if !ok {
		return a, ok
	}
	switch a.Outcome {
	case statusd.Delivered:
		m.relay.accept(domainOf(to))
	case statusd.Deferred:
		m.relay.fail(a.Error)
	case statusd.Rejected, statusd.Failed:
		switch m.relay.judge(ctx, domainOf(to), replyKey(a.Status, a.Error)) {
		case relayFault:
			a.Outcome = statusd.Deferred
			a.Error = clip("the relay refuses recipients at several domains alike: "+a.Error, maxErrorText, nil)
		case undecided:
			a.Outcome = statusd.Deferred
			a.Error = clip("not counted against the address (the relay's refusal could not be told from the mailbox's): "+a.Error, maxErrorText, nil)
		}
	}
	return a, true
}

// transmit sends msg, as send does, telling a refused recipient by the
// reply alone: rejected for a 5xx, failed for a 4xx.
func (m *Mailer) transmit(ctx, wait context.Context, msg *mail.Msg) (a statusd.Attempt, ok bool) {
	if wait.Err() != nil || m.limiter.Wait(wait) != nil {
		return statusd.Attempt{}, false
	}
	select {
	case m.busy <- struct{}{}:
	case <-wait.Done():
		return statusd.Attempt{}, false
	}
	m.mu.Lock()
	c := m.idle[len(m.idle)-1]
	m.idle = m.idle[:len(m.idle)-1]
	m.mu.Unlock()
	defer func() {
		m.mu.Lock()
		m.idle = append(m.idle, c)
		m.mu.Unlock()
		<-m.busy
	}()
	if c.smtp != nil && m.now().Sub(c.used) > mailIdle {
		m.quit(c)
	}
	reused := c.smtp != nil
	if c.smtp == nil {
		if a, err := m.connect(ctx, c); err != nil {
			return a, true
		}
	}
	err := m.client.SendWithSMTPClient(c.smtp, msg)
	if reused && closedWhileIdle(err) {
		// The server closed the connection while it was kept (many time
		// idle ones out well within mailIdle): the message was not taken,
		// and goes once more, on a new connection.
		c.drop()
		if a, err := m.connect(ctx, c); err != nil {
			return a, true
		}
		err = m.client.SendWithSMTPClient(c.smtp, msg)
	}
	c.used = m.now()
	a = statusd.Attempt{At: c.used, Outcome: statusd.Delivered, Status: 250}
	if err == nil {
		return a, true
	}
	a.Outcome, a.Status, a.Error = statusd.Deferred, 0, clip(sendErrorText(err), maxErrorText, nil)
	var se *mail.SendError
	if !errors.As(err, &se) {
		c.drop()
		return a, true
	}
	a.Status = se.ErrorCode()
	switch {
	case a.Status == 0 || a.Status == 421 || se.Reason == mail.ErrConnCheck:
		// No answer, or the server is closing: connect again next time.
		c.drop()
	case se.Reason == mail.ErrSMTPRcptTo && a.Status >= 500:
		a.Outcome = statusd.Rejected
	case se.Reason == mail.ErrSMTPRcptTo:
		a.Outcome = statusd.Failed
	}
	return a, true
}

// connect makes c's connection. When it cannot, the error is not nil and
// the attempt says why: deferred, the relay's trouble.
func (m *Mailer) connect(ctx context.Context, c *smtpConn) (statusd.Attempt, error) {
	dial, cancel := context.WithTimeout(ctx, statusd.AttemptTimeout)
	defer cancel()
	conn, err := m.client.DialToSMTPClientWithContext(dial)
	if err != nil {
		a := statusd.Attempt{At: m.now(), Outcome: statusd.Deferred, Error: "the SMTP server: " + describe(err)}
		var se *mail.SendError
		if errors.As(err, &se) {
			a.Status = se.ErrorCode()
		}
		return a, err
	}
	c.smtp = conn
	return statusd.Attempt{}, nil
}

// closedWhileIdle reports whether a send failed at its first command,
// MAIL FROM, for want of a connection: no answer, or 421 (the server is
// closing). On a connection kept from an earlier send, that is the server
// having timed it out; nothing of the message was taken.
func closedWhileIdle(err error) bool {
	var se *mail.SendError
	return errors.As(err, &se) && se.Reason == mail.ErrSMTPMailFrom && (se.ErrorCode() == 0 || se.ErrorCode() == 421)
}

// quit ends the connection politely (QUIT), if it is open.
func (m *Mailer) quit(c *smtpConn) error {
	if c.smtp == nil {
		return nil
	}
	err := m.client.CloseWithSMTPClient(c.smtp)
	c.drop()
	return err
}

// drop closes the connection, without a word to the server.
func (c *smtpConn) drop() {
	if c.smtp != nil {
		c.smtp.Close()
		c.smtp = nil
	}
}

// sendErrorText is what went wrong, without the recipient and the
// message id that go-mail's errors append.
func sendErrorText(err error) string {
	s := err.Error()
	for _, cut := range []string{", affected recipient(s): ", ", affected message ID: "} {
		if i := strings.Index(s, cut); i >= 0 {
			s = s[:i]
		}
	}
	return s
}
