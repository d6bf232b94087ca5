package notify

import (
	"context"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Telling the relay's refusals from a mailbox's (CONTRACT C7, "Whose fault
// a failure is"). An SMTP relay answers every RCPT TO itself: a refusal
// may be about the mailbox (550 5.1.1 user unknown) or about statusd
// (554 5.7.1 Relay access denied when its address or login is no longer
// accepted; 451 or 452 when the relay's disk is full), and only the first
// may count against the subscriber. The relay's own refusals come alike
// for everyone, whatever the domain; a mailbox's for one address, while
// others, at its domain or elsewhere, are taken.
const (
	// relayPeriod is how long an answer counts as evidence.
	relayPeriod = 2 * time.Minute
	// relayDomains is how many domains refused alike make the relay's
	// fault; as many domains that took recipients since, a mailbox's.
	relayDomains = 3
	// judgeWait is how long a refusal waits for evidence (other answers
	// of the relay) before it is left undecided: retried, blaming no one.
	judgeWait = 3 * time.Second
	// relayPause is how long email rests after the relay's trouble was
	// last seen: then one message at a time tries it again
	// (Worker.round), until one is taken.
	relayPause = 30 * time.Second
)

// verdict is whose fault a refused recipient is.
type verdict int

const (
	undecided  verdict = iota // not enough evidence: nobody's, retried
	mailbox                   // the subscriber's address
	relayFault                // the relay's: it refuses everyone alike
)

// relayWatch keeps the relay's recent answers to RCPT TO, by domain, and
// the relay's trouble, for Mailer. It is safe for concurrent use.
type relayWatch struct {
	name  string // host:port, naming the relay in logs and /readyz
	now   func() time.Time
	pause time.Duration // relayPause, but in tests

	mu       sync.Mutex
	accepted map[string]time.Time            // domain: its last recipient taken
	refused  map[string]map[string]time.Time // reply: domain: its last refusal so
	changed  chan struct{}                   // closed at each new answer
	pruned   time.Time
	trouble  string    // what is wrong with the relay; "" when nothing
	seen     time.Time // when the trouble was last seen
}

func newRelayWatch(name string, now func() time.Time) *relayWatch {
	return &relayWatch{name: name, now: now, pause: relayPause, accepted: map[string]time.Time{},
		refused: map[string]map[string]time.Time{}, changed: make(chan struct{})}
}

// domainOf is the domain of an address, in lower case.
func domainOf(addr string) string {
	return strings.ToLower(addr[strings.LastIndexByte(addr, '@')+1:])
}

// addrText matches what looks like an address in a reply's text.
var addrText = regexp.MustCompile(`<?[^\s<>@]+@[^\s<>]+>?`)

// replyKey is what makes two refusals alike: the code and the text, the
// addresses in it taken out (Postfix names the recipient).
func replyKey(code int, text string) string {
	return strconv.Itoa(code) + " " + addrText.ReplaceAllString(text, "<>")
}

// accept notes that the relay took a recipient at domain: the relay
// works, and its trouble, if any, is over.
func (r *relayWatch) accept(domain string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.accepted[domain] = r.now()
	r.trouble = ""
	r.notify()
}

// fail notes the relay's trouble for the whole session (no connection,
// the login refused, 421, MAIL FROM or DATA refused).
func (r *relayWatch) fail(what string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.trouble, r.seen = what, r.now()
}

// refuse notes that the relay refused a recipient at domain with reply.
func (r *relayWatch) refuse(domain, reply string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	now := r.now()
	r.prune(now)
	if r.refused[reply] == nil {
		r.refused[reply] = map[string]time.Time{}
	}
	r.refused[reply][domain] = now
	r.notify()
}

// notify wakes the refusals waiting for evidence; r.mu is held.
func (r *relayWatch) notify() {
	close(r.changed)
	r.changed = make(chan struct{})
}

// judge notes a refusal of a recipient at domain with reply, and says
// whose fault it is, waiting up to judgeWait (or until wait ends) for
// evidence from the relay's other answers.
func (r *relayWatch) judge(wait context.Context, domain, reply string) verdict {
	r.refuse(domain, reply)
	timer := time.NewTimer(judgeWait)
	defer timer.Stop()
	for {
		r.mu.Lock()
		v := r.verdict(domain, reply)
		if v == relayFault {
			r.trouble = "refuses recipients at several domains alike (" + reply + ")"
			r.seen = r.now()
		}
		changed := r.changed
		r.mu.Unlock()
		if v != undecided {
			return v
		}
		select {
		case <-changed:
		case <-timer.C:
			return undecided
		case <-wait.Done():
			return undecided
		}
	}
}

// verdict is the rule, on the answers of the last relayPeriod: the
// relay's fault when recipients at relayDomains domains or more were
// refused alike (reply), at each more lately than one was taken there;
// the mailbox's when, since the last refusal alike at
// another domain, the relay took a recipient at this domain, or at
// relayDomains others; otherwise undecided. r.mu is held.
func (r *relayWatch) verdict(domain, reply string) verdict {
	n := 0               // domains refused alike
	since := time.Time{} // the last refusal alike at another domain
	for d, at := range r.refused[reply] {
		if at.After(r.accepted[d]) {
			n++
		}
		if d != domain && at.After(since) {
			since = at
		}
	}
	if n >= relayDomains {
		return relayFault
	}
	if r.accepted[domain].After(since) {
		return mailbox
	}
	taken := 0
	for _, at := range r.accepted {
		if at.After(since) {
			if taken++; taken >= relayDomains {
				return mailbox
			}
		}
	}
	return undecided
}

// prune forgets the answers older than relayPeriod, once a period; r.mu
// is held.
func (r *relayWatch) prune(now time.Time) {
	if now.Sub(r.pruned) < relayPeriod {
		return
	}
	r.pruned = now
	old := now.Add(-relayPeriod)
	for d, at := range r.accepted {
		if at.Before(old) {
			delete(r.accepted, d)
		}
	}
	for reply, domains := range r.refused {
		for d, at := range domains {
			if at.Before(old) {
				delete(domains, d)
			}
		}
		if len(domains) == 0 {
			delete(r.refused, reply)
		}
	}
}

// state says what is wrong with the relay ("" when nothing is known to
// be), and until when email rests for it.
func (r *relayWatch) state() (trouble string, until time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.trouble == "" {
		return "", time.Time{}
	}
	return r.trouble, r.seen.Add(r.pause)
}
