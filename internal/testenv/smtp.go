package testenv

import (
	"bytes"
	"crypto/tls"
	"io"
	"mime"
	"mime/multipart"
	"net"
	"net/mail"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"
)

// SMTPServer is a real SMTP server (go-smtp) on 127.0.0.1 that keeps the
// messages that arrive.
type SMTPServer struct {
	// Addr is the server's host:port.
	Addr string

	opts   SMTPOptions
	mu     sync.Mutex
	conns  map[*smtp.Conn]bool // a STARTTLS starts a new session on the same connection
	authed int                 // successful AUTHs
	tls    int                 // sessions whose MAIL came over TLS
	got    []SMTPMessage
}

// SMTPMessage is a message as it arrived: the envelope and the raw data.
type SMTPMessage struct {
	From string
	To   []string
	Data []byte
}

// SMTPOptions shape an SMTPServer; the zero value is a plain server that
// takes every message.
type SMTPOptions struct {
	User, Pass string         // AUTH PLAIN required when User is set
	StartTLS   *tls.Config    // offered STARTTLS
	Implicit   *tls.Config    // TLS from the first byte (smtps)
	Reject     map[string]int // RCPT TO refused with this code
	DataReply  map[string]int // DATA answered with this code when the message holds the key
	// RcptRule, when set, answers every RCPT TO that Reject does not: nil
	// takes the recipient, an error (SMTPReply) refuses it. It may change
	// its answers over time (a relay that breaks, or mends).
	RcptRule func(to string) error
	// IdleTimeout, when set, is how long the server waits for a command
	// before it closes the connection (421); 10 s otherwise.
	IdleTimeout time.Duration
}

// StartSMTP starts a server on 127.0.0.1, stopped when the test ends.
func StartSMTP(t testing.TB, o SMTPOptions) *SMTPServer {
	t.Helper()
	s := &SMTPServer{opts: o, conns: map[*smtp.Conn]bool{}}
	srv := smtp.NewServer(smtp.BackendFunc(func(c *smtp.Conn) (smtp.Session, error) {
		s.mu.Lock()
		s.conns[c] = true
		s.mu.Unlock()
		return &smtpSession{s: s, c: c}, nil
	}))
	srv.Domain = "localhost"
	srv.ReadTimeout, srv.WriteTimeout = 10*time.Second, 10*time.Second
	if o.IdleTimeout > 0 {
		srv.ReadTimeout = o.IdleTimeout
	}
	srv.ErrorLog = quietLog{}
	var l net.Listener
	var err error
	if o.Implicit != nil {
		l, err = tls.Listen("tcp", "127.0.0.1:0", o.Implicit)
	} else {
		srv.TLSConfig = o.StartTLS
		l, err = net.Listen("tcp", "127.0.0.1:0")
	}
	if err != nil {
		t.Fatal(err)
	}
	s.Addr = l.Addr().String()
	go srv.Serve(l)
	t.Cleanup(func() { srv.Close() })
	return s
}

type quietLog struct{}

func (quietLog) Printf(string, ...any) {}
func (quietLog) Println(...any)        {}

// Messages returns the messages that arrived, oldest first.
func (s *SMTPServer) Messages() []SMTPMessage {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]SMTPMessage(nil), s.got...)
}

// WaitMessages polls up to 10 s until at least n messages arrived, and
// returns them; it fails the test when they do not.
func (s *SMTPServer) WaitMessages(t testing.TB, n int) []SMTPMessage {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		got := s.Messages()
		if len(got) >= n {
			return got
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d emails arrived within 10 s, want %d", len(got), n)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Reset forgets the messages that arrived.
func (s *SMTPServer) Reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.got = nil
}

// Counts returns the connections made, the successful AUTHs, and the
// messages whose MAIL FROM came over TLS.
func (s *SMTPServer) Counts() (conns, authed, overTLS int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.conns), s.authed, s.tls
}

type smtpSession struct {
	s      *SMTPServer
	c      *smtp.Conn
	authed bool
	from   string
	to     []string
}

func (x *smtpSession) AuthMechanisms() []string { return []string{sasl.Plain} }

func (x *smtpSession) Auth(string) (sasl.Server, error) {
	return sasl.NewPlainServer(func(_, user, pass string) error {
		if x.s.opts.User == "" || user != x.s.opts.User || pass != x.s.opts.Pass {
			return smtp.ErrAuthFailed
		}
		x.authed = true
		x.s.mu.Lock()
		x.s.authed++
		x.s.mu.Unlock()
		return nil
	}), nil
}

func (x *smtpSession) Mail(from string, _ *smtp.MailOptions) error {
	if x.s.opts.User != "" && !x.authed {
		return smtp.ErrAuthRequired
	}
	if _, ok := x.c.TLSConnectionState(); ok {
		x.s.mu.Lock()
		x.s.tls++
		x.s.mu.Unlock()
	}
	x.from = from
	return nil
}

func (x *smtpSession) Rcpt(to string, _ *smtp.RcptOptions) error {
	if code := x.s.opts.Reject[to]; code != 0 {
		return &smtp.SMTPError{Code: code, EnhancedCode: smtp.EnhancedCode{code / 100, 1, 1}, Message: "no mailbox " + to}
	}
	if rule := x.s.opts.RcptRule; rule != nil {
		if err := rule(to); err != nil {
			return err
		}
	}
	x.to = append(x.to, to)
	return nil
}

// SMTPReply is an SMTP server's refusal, for SMTPOptions.RcptRule: the
// code, the enhanced status code (such as 5, 7, 1) and the text, as
// "554 5.7.1 <ann@example.test>: Relay access denied".
func SMTPReply(code int, enhanced [3]int, text string) error {
	return &smtp.SMTPError{Code: code, EnhancedCode: smtp.EnhancedCode(enhanced), Message: text}
}

func (x *smtpSession) Data(r io.Reader) error {
	data, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	for key, code := range x.s.opts.DataReply {
		if bytes.Contains(data, []byte(key)) {
			return &smtp.SMTPError{Code: code, EnhancedCode: smtp.EnhancedCode{code / 100, 0, 0}, Message: "not now"}
		}
	}
	x.s.mu.Lock()
	defer x.s.mu.Unlock()
	x.s.got = append(x.s.got, SMTPMessage{From: x.from, To: x.to, Data: data})
	return nil
}

func (x *smtpSession) Reset()        { x.from, x.to = "", nil }
func (x *smtpSession) Logout() error { return nil }

// Email is an email as it arrived, read with net/mail and mime/multipart.
type Email struct {
	Header     mail.Header
	Subject    string
	Text, HTML string
}

// ParseEmail reads data as a multipart/alternative email with a text and
// an HTML part (CRLF turned into LF), and fails the test when it is not.
func ParseEmail(t testing.TB, data []byte) Email {
	t.Helper()
	msg, err := mail.ReadMessage(strings.NewReader(string(data)))
	if err != nil {
		t.Fatalf("not an email: %v\n%s", err, data)
	}
	subject, err := new(mime.WordDecoder).DecodeHeader(msg.Header.Get("Subject"))
	if err != nil {
		t.Fatal(err)
	}
	p := Email{Header: msg.Header, Subject: subject}
	mt, params, err := mime.ParseMediaType(msg.Header.Get("Content-Type"))
	if err != nil || mt != "multipart/alternative" {
		t.Fatalf("Content-Type %q (%v), want multipart/alternative", msg.Header.Get("Content-Type"), err)
	}
	r := multipart.NewReader(msg.Body, params["boundary"])
	for {
		part, err := r.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(part) // quoted-printable decoded by the reader
		if err != nil {
			t.Fatal(err)
		}
		body = []byte(strings.ReplaceAll(string(body), "\r\n", "\n"))
		ct, _, _ := mime.ParseMediaType(part.Header.Get("Content-Type"))
		switch ct {
		case "text/plain":
			p.Text = string(body)
		case "text/html":
			p.HTML = string(body)
		default:
			t.Errorf("unexpected part %s", ct)
		}
	}
	if p.Text == "" || p.HTML == "" {
		t.Fatalf("want a text and an HTML part: %+v", p)
	}
	return p
}
