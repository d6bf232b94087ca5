package main

import (
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/emersion/go-smtp"
)

// tally counts the distinct messages that arrived for each channel in the
// current round (a retry of the same message counts once) and notes when
// each channel's count reached the number expected.
type tally struct {
	mu     sync.Mutex
	want   int
	start  time.Time
	seen   map[string]bool      // channel + "/" + recipient
	counts map[string]int       // by channel
	done   map[string]time.Time // when counts reached want
	total  int                  // every message, repeats included
}

func newTally(want int) *tally {
	t := &tally{want: want}
	t.reset()
	return t
}

// reset starts a round: nothing arrived yet.
func (t *tally) reset() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.start = time.Now()
	t.seen, t.counts, t.done, t.total = map[string]bool{}, map[string]int{}, map[string]time.Time{}, 0
}

// add records a message to recipient on channel.
func (t *tally) add(channel, recipient string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.total++
	key := channel + "/" + recipient
	if t.seen[key] {
		return
	}
	t.seen[key] = true
	t.counts[channel]++
	if t.counts[channel] == t.want {
		t.done[channel] = time.Now()
	}
}

// status returns, for each channel, how many arrived and when the last
// expected one did (zero when not all arrived yet), and the messages
// counted with repeats.
func (t *tally) status() (counts map[string]int, done map[string]time.Time, total int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	counts, done = map[string]int{}, map[string]time.Time{}
	for k, v := range t.counts {
		counts[k] = v
	}
	for k, v := range t.done {
		done[k] = v
	}
	return counts, done, t.total
}

// receiver answers every POST /<channel>/<n> with 200 and counts it: the
// local webhook, Slack, Teams and Discord endpoints of the subscribers.
type receiver struct {
	tally *tally
	srv   *http.Server
	URL   string
}

// startReceiver serves on l until close.
func startReceiver(l net.Listener, t *tally) *receiver {
	r := &receiver{tally: t, URL: "http://" + l.Addr().String()}
	r.srv = &http.Server{Handler: r, ReadHeaderTimeout: 10 * time.Second}
	go r.srv.Serve(l)
	return r
}

func (r *receiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	if _, err := io.Copy(io.Discard, req.Body); err != nil {
		http.Error(w, "could not read the body", http.StatusBadRequest)
		return
	}
	channel, n, ok := strings.Cut(strings.TrimPrefix(req.URL.Path, "/"), "/")
	if req.Method != http.MethodPost || !ok {
		http.Error(w, "POST /<channel>/<n> only", http.StatusNotFound)
		return
	}
	r.tally.add(channel, n)
	io.WriteString(w, "ok")
}

func (r *receiver) close() { r.srv.Close() }

// smtpSink is an SMTP server (go-smtp) that takes every message and
// counts it by recipient; it keeps nothing else.
type smtpSink struct {
	srv  *smtp.Server
	Addr string
}

// startSMTP serves on l until close.
func startSMTP(l net.Listener, t *tally) *smtpSink {
	srv := smtp.NewServer(smtp.BackendFunc(func(*smtp.Conn) (smtp.Session, error) {
		return &smtpSession{tally: t}, nil
	}))
	srv.Domain = "localhost"
	srv.ReadTimeout, srv.WriteTimeout = 10*time.Second, 10*time.Second
	srv.ErrorLog = quietLog{}
	go srv.Serve(l)
	return &smtpSink{srv: srv, Addr: l.Addr().String()}
}

func (s *smtpSink) close() { s.srv.Close() }

type quietLog struct{}

func (quietLog) Printf(string, ...any) {}
func (quietLog) Println(...any)        {}

type smtpSession struct {
	tally *tally
	to    []string
}

func (s *smtpSession) Mail(string, *smtp.MailOptions) error { return nil }

func (s *smtpSession) Rcpt(to string, _ *smtp.RcptOptions) error {
	s.to = append(s.to, to)
	return nil
}

func (s *smtpSession) Data(r io.Reader) error {
	if _, err := io.Copy(io.Discard, r); err != nil {
		return err
	}
	for _, to := range s.to {
		s.tally.add("email", to)
	}
	return nil
}

func (s *smtpSession) Reset()        { s.to = nil }
func (s *smtpSession) Logout() error { return nil }
