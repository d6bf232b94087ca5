// Package notify sends notifications (CONTRACT C7): it turns the events of
// the outbox (statusd.SubscriberStore) into deliveries, renders each for
// its channel from the current snapshot, sends it, and records the
// attempt, never on the request path.
//
// Channels: email through an SMTP server (Mailer: STARTTLS or implicit
// TLS, a few reused connections, a bounded rate); signed webhooks in
// Statuspage's webhook shape (Standard Webhooks signatures); Slack,
// Microsoft Teams (Workflows) and Discord webhooks. HTTP requests go only
// to public addresses, checked at connect time, unless private targets are
// allowed.
//
// Subscriber addresses and URLs are logged at debug level only; other
// levels name the subscriber by id.
package notify

import (
	"context"
	"crypto/tls"
	"errors"
	"log/slog"
	"net/url"
	"regexp"
	"sync"
	"time"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/internal/snapshot"
)

// Defaults of Config.
const (
	// DefaultRetryBase is the first delay between two attempts
	// (--notify-retry-base).
	DefaultRetryBase = 30 * time.Second
	// DefaultPoll is how often the worker looks for work when nothing
	// wakes it.
	DefaultPoll = time.Second
	// DefaultLease is how long a claimed delivery is the worker's
	// (--notify-lease): a worker that dies leaves its deliveries to
	// another after it.
	DefaultLease = 2 * time.Minute
	// MinLease is the shortest lease. An attempt starts only by the
	// lease's end less AttemptTimeout and leaseMargin (15 s, startBy):
	// the lease must be longer than that, and 30 s leaves a claimed
	// delivery at least 15 s to start.
	MinLease = 30 * time.Second
	// DefaultDocumentation is the "documentation" of webhook bodies.
	DefaultDocumentation = "https://github.com/statusd/statusd#subscriptions"
)

const (
	// maxHTTP is how many HTTP deliveries are under way at once in their
	// first slowAfter (the fast places).
	maxHTTP = 16
	// slowAfter and maxSlow: an HTTP request not answered within
	// slowAfter gives up its fast place, and its lane's slot, for one of
	// maxSlow places of the slow (a receiver that accepts and never
	// answers holds one up to statusd.AttemptTimeout): waiting costs
	// nothing but a connection, and receivers that hang must not hold the
	// healthy ones back. 100 ms is far above a local answer and a short
	// wait for a distant one; a request over it still has its 10 s.
	slowAfter = 100 * time.Millisecond
	maxSlow   = 128
	// maxInFlight is how many claimed deliveries are being sent at once
	// in a lane: 128 HTTP deliveries that all time out end within 80 s,
	// inside the default lease (with a shorter one, those that cannot
	// start by startBy are left, unattempted, to a later claim).
	maxInFlight = 128
	// mailAhead is how much sending, at the mail rate, the email lane
	// claims ahead: its slots are the rate times this, so that a slow
	// relay's emails never wait for their turn past their lease.
	mailAhead = 10 * time.Second
	// batch is how many events are expanded, or deliveries claimed, in
	// one transaction.
	batch = 100
	// notYetPoll and notYetWait: a delivery whose notice the snapshot
	// does not hold yet is tried again every notYetPoll for notYetWait,
	// then left to its lease.
	notYetPoll = 100 * time.Millisecond
	notYetWait = 5 * time.Second
	// leaseMargin: an attempt starts only when it can end this long before
	// its lease does (startBy), so that no other sender takes the delivery
	// while it is under way.
	leaseMargin = 5 * time.Second
	// pruneEvery is how often the worker prunes the outbox; one pass is at
	// most pruneRounds transactions of pruneLimit deliveries (and events)
	// each, so that a backlog goes over the next hours rather than hold the
	// store long.
	pruneEvery  = time.Hour
	pruneRounds = 100
	pruneLimit  = 1000
	// restFactor and maxRest pace a lane while readers are busy (see
	// lane.hold): after each batch it rests restFactor times the batch's
	// wall time, at most maxRest. 4: the sender is under way at most a
	// fifth of the time, so that readers keep at least 0.8 of their rate.
	restFactor = 4
	maxRest    = time.Second
)

// Snapshots gives the current snapshot; *snapshot.Holder is one.
type Snapshots interface {
	Current() *snapshot.Snapshot
}

// Config configures a Worker.
type Config struct {
	Store     statusd.SubscriberStore
	Snapshots Snapshots
	// Mailer sends email; nil when email is off (an email delivery is
	// then dropped, saying so).
	Mailer *Mailer
	// AllowPrivate lets HTTP deliveries go to any address
	// (--allow-private-targets).
	AllowPrivate bool
	// RetryBase is the first delay between attempts (0: DefaultRetryBase).
	RetryBase time.Duration
	// Documentation is the "documentation" URL of webhook bodies (empty:
	// DefaultDocumentation).
	Documentation string
	// Poll and Lease (0: DefaultPoll, DefaultLease; a lease is at least
	// MinLease).
	Poll, Lease time.Duration
	// Keep is how long delivered and dropped deliveries are kept
	// (--notify-keep; 0: statusd.DeliveryRetention).
	Keep time.Duration
	// TLSConfig, when not nil, is the TLS configuration of HTTP
	// deliveries (tests trust their receivers' certificates with it).
	TLSConfig *tls.Config
	// Busy, when set, reports whether readers contend with the sender
	// for the processors (serve: many requests, server.Pressure, and
	// goroutines waiting to run, server.Contention): sending then gives
	// way (lane.hold). nil: never busy.
	Busy func() bool
	Now  func() time.Time // nil: time.Now
	Log  *slog.Logger
}

// Worker sends the outbox's deliveries. Run it once per process; any
// number of processes may share one store.
type Worker struct {
	store         statusd.SubscriberStore
	snaps         Snapshots
	mailer        *Mailer
	poster        *poster
	retryBase     time.Duration
	documentation string
	poll, lease   time.Duration
	keep          time.Duration
	now           func() time.Time
	busy          func() bool
	log           *slog.Logger

	wake  chan struct{} // Wake's signal
	freed chan struct{} // half a batch of a lane's slots is free again (release)
	lanes []*lane       // email, then HTTP
	http  chan struct{} // one per HTTP request under way in its first slowAfter (maxHTTP)
	slow  chan struct{} // one per HTTP request under way for longer (maxSlow)
	made  chan made     // attempts to record (recordLoop); never full, as each holds a lane's slot or a slow place
	msgs  messages
	// relayLogged is the mail relay's trouble as last logged (logRelay).
	relayLogged string
}

// lane is a part of the outbox that the worker claims and sends on its
// own: email, at the pace of the mail server's rate, and HTTP (webhooks
// and chat). A lane claims only its channels' deliveries, up to its free
// slots, so that neither holds the other up: emails waiting for the rate
// never keep a webhook from going, nor webhooks waiting for a slow
// receiver an email.
type lane struct {
	channels []statusd.Channel
	slots    chan struct{} // one per delivery under way, until recorded
	// relay, on the email lane with a mailer, is the relay's trouble and
	// until when email rests for it (relayWatch.state).
	relay func() (trouble string, until time.Time)
	// dry is set when the lane's last claim found fewer deliveries due
	// than it asked for: it claims again only when events may have come
	// (a wake, the poll), not on every round another lane's claims make,
	// each of which would read the whole outbox for nothing. Only Run's
	// goroutine reads and sets it.
	dry bool

	mu      sync.Mutex
	claimed time.Time // when the lane last claimed deliveries
	rested  time.Time // when its rest after the batch since ends
}

// hold reports whether the lane must not claim now, and until when (zero:
// until a slot is freed). Readers come first: while they are busy, the
// lane works in batches, one at a time, and after each rests restFactor
// times the batch's wall time (from its claim to its last record), at
// most maxRest. Its sending is then under way at most 1/(1+restFactor)
// of the time (a fifth; a batch over maxRest/restFactor, 250 ms, is one
// mostly waiting, for slow receivers or the mail rate, and rests
// maxRest), and less of the CPU, which the readers share;
// a fan-out still goes on, slower, however long the readers stay. The
// rest is measured in wall time, not CPU time, so that the rule holds
// on any machine without knowing what a message costs. When readers are
// not busy, the lane claims whenever it has free slots.
func (l *lane) hold(now time.Time, busy bool) (until time.Time, held bool) {
	if !busy {
		return time.Time{}, false
	}
	if len(l.slots) > 0 {
		return time.Time{}, true
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.rested, now.Before(l.rested)
}

// claim notes that the lane claimed deliveries at now.
func (l *lane) claim(now time.Time) {
	l.mu.Lock()
	l.claimed = now
	l.mu.Unlock()
}

// emptied notes that the lane's last delivery under way was recorded at
// now: the batch claimed last is over, and its rest starts.
func (l *lane) emptied(now time.Time) {
	l.mu.Lock()
	l.rested = now.Add(min(restFactor*now.Sub(l.claimed), maxRest))
	l.mu.Unlock()
}

// made is an attempt made, waiting to be recorded, and what it holds.
type made struct {
	c statusd.Claimed
	a statusd.Attempt
	h *holding
}

// holding is what a delivery under way holds: its lane's slot, until it
// is recorded, and, while its HTTP request waits for an answer, a fast
// place (Worker.http) or, after slowAfter, a slow one (Worker.slow) in
// place of both (Worker.slowDown).
type holding struct {
	l *lane

	mu                     sync.Mutex
	lane, fast, slow, done bool
}

// New returns a Worker for the configuration.
func New(cfg Config) *Worker {
	w := &Worker{
		store: cfg.Store, snaps: cfg.Snapshots, mailer: cfg.Mailer,
		retryBase: cfg.RetryBase, documentation: cfg.Documentation,
		poll: cfg.Poll, lease: cfg.Lease, keep: cfg.Keep, now: cfg.Now, busy: cfg.Busy, log: cfg.Log,
		wake:  make(chan struct{}, 1),
		freed: make(chan struct{}, 1),
		http:  make(chan struct{}, maxHTTP),
		slow:  make(chan struct{}, maxSlow),
		made:  make(chan made, 2*maxInFlight+maxSlow),
	}
	email := &lane{channels: []statusd.Channel{statusd.Email}, slots: make(chan struct{}, batch)} // without a mailer, emails are dropped at once
	if cfg.Mailer != nil {
		email.slots = make(chan struct{}, min(max(int(cfg.Mailer.rate()*mailAhead.Seconds()), 1), maxInFlight))
		email.relay = cfg.Mailer.relay.state
	}
	w.lanes = []*lane{email, {channels: statusd.HTTPChannels, slots: make(chan struct{}, maxInFlight)}}
	if w.retryBase <= 0 {
		w.retryBase = DefaultRetryBase
	}
	if w.documentation == "" {
		w.documentation = DefaultDocumentation
	}
	if w.poll <= 0 {
		w.poll = DefaultPoll
	}
	if w.lease <= 0 {
		w.lease = DefaultLease
	}
	w.lease = max(w.lease, MinLease)
	if w.keep <= 0 {
		w.keep = statusd.DeliveryRetention
	}
	if w.now == nil {
		w.now = time.Now
	}
	if w.busy == nil {
		w.busy = func() bool { return false }
	}
	if w.log == nil {
		w.log = slog.New(slog.DiscardHandler)
	}
	w.poster = newPoster(cfg.AllowPrivate, cfg.TLSConfig, w.now)
	return w
}

// Wake tells the worker that events were just stored, so that they go out
// now rather than at the next poll. It never blocks.
func (w *Worker) Wake() {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// testWait bounds how long Test waits for the attempt.
const testWait = statusd.AttemptTimeout + 5*time.Second

// Test sends a test message to a subscriber now and returns its delivery,
// as the attempt left it (or as it is, should the attempt not have ended
// within testWait). The message goes the way of every other, through Run,
// which must be running: one sender at a time. A test goes to an active
// or quarantined subscriber; to another, Test returns an *Error
// EConflict (ENotFound when there is none).
func (w *Worker) Test(ctx context.Context, subscriberID int64) (*statusd.Delivery, error) {
	now := w.now()
	eventID, err := w.store.Emit(ctx, statusd.Event{Kind: statusd.TestMessage, SubscriberID: subscriberID, CreatedAt: now})
	if err != nil {
		return nil, err
	}
	d, err := w.expanded(ctx, subscriberID, eventID)
	if err != nil {
		return nil, err
	}
	w.Wake()
	deadline := time.Now().Add(testWait)
	for d.Attempts == 0 && time.Now().Before(deadline) {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
		if d, err = w.store.Delivery(ctx, d.ID); err != nil {
			return nil, err
		}
	}
	return d, nil
}

// expanded expands the stored events until the one with eventID has made
// its delivery to the subscriber, and returns it. The store makes none for
// a subscriber that may not hear it: then the error says why.
func (w *Worker) expanded(ctx context.Context, subscriberID, eventID int64) (*statusd.Delivery, error) {
	// Another process may be expanding the event at this moment: give it
	// a little time.
	deadline := time.Now().Add(2 * time.Second)
	for {
		if _, err := w.store.Expand(ctx, w.now(), batch); err != nil {
			return nil, err
		}
		list, _, err := w.store.Deliveries(ctx, statusd.DeliveryFilter{SubscriberID: subscriberID}, 1, 10)
		if err != nil {
			return nil, err
		}
		for i := range list {
			if list[i].Event.ID == eventID {
				return &list[i], nil
			}
		}
		if time.Now().After(deadline) {
			break
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
	s, err := w.store.Get(ctx, subscriberID)
	if err != nil {
		return nil, err
	}
	return nil, statusd.Errorf(statusd.EConflict, "subscriber %d is %s: a test goes to an active or quarantined subscriber", s.ID, s.State)
}

// Run sends deliveries until ctx is done, then waits for the sends under
// way (cut short by ctx) and returns. A delivery it had claimed and not
// recorded goes to the next worker after its lease: each is delivered at
// least once.
func (w *Worker) Run(ctx context.Context) {
	var wg sync.WaitGroup
	defer wg.Wait()
	wg.Go(func() { w.recordLoop(ctx) })
	wg.Go(func() { w.pruneLoop(ctx) })
	t := time.NewTicker(w.poll)
	defer t.Stop()
	failing := false // log a failure once, and the recovery once
	// Events are stored by writes, which wake the worker, and by other
	// processes, which the poll finds: only then are they looked for
	// (each look is a write transaction, which competes with Record).
	expand := true
	for {
		more, rest, err := w.round(ctx, &wg, expand)
		expand = false
		switch {
		case ctx.Err() != nil:
			return
		case err != nil && !failing:
			w.log.Warn("notifications: the store cannot be used; trying again", "err", err)
		case err == nil && failing:
			w.log.Info("notifications: the store can be used again")
		}
		failing = err != nil
		if more && err == nil {
			continue
		}
		var rested <-chan time.Time // nil: no lane rests
		if !rest.IsZero() {
			rested = time.After(rest.Sub(w.now()))
		}
		select {
		case <-ctx.Done():
			return
		case <-w.wake:
			expand = true
		case <-t.C:
			expand = true
		case <-w.freed:
		case <-rested:
		}
	}
}

// pruneLoop prunes the outbox when Run starts, then every pruneEvery,
// until ctx is done.
func (w *Worker) pruneLoop(ctx context.Context) {
	t := time.NewTicker(pruneEvery)
	defer t.Stop()
	for {
		w.prune(ctx)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// prune removes the delivered and dropped deliveries, and the events
// without deliveries, made more than w.keep ago: one pass, of at most
// pruneRounds transactions.
func (w *Worker) prune(ctx context.Context) {
	before := w.now().Add(-w.keep)
	var deliveries, events int
	for range pruneRounds {
		d, e, err := w.store.Prune(ctx, before, pruneLimit)
		if err != nil {
			if ctx.Err() == nil {
				w.log.Warn("notifications: old deliveries could not be pruned; trying again later", "err", err)
			}
			break
		}
		deliveries, events = deliveries+d, events+e
		if d < pruneLimit && e < pruneLimit {
			break
		}
	}
	if deliveries+events > 0 {
		w.log.Info("notifications: pruned the outbox", "deliveries", deliveries, "events", events, "made_before", before)
	}
}

// round expands the stored events, when expand is set, and claims, in
// each lane that does not hold (lane.hold), as many of its deliveries as
// it has free slots, sending each in its own goroutine. more reports that
// a lane claimed all it asked for, so that there may be more; rest, when
// not zero, is when the first resting lane may claim again.
func (w *Worker) round(ctx context.Context, wg *sync.WaitGroup, expand bool) (more bool, rest time.Time, err error) {
	now := w.now()
	if expand {
		for {
			n, err := w.store.Expand(ctx, now, batch)
			if err != nil {
				return false, rest, err
			}
			if n < batch {
				break
			}
		}
	}
	startBy := now.Add(w.lease - statusd.AttemptTimeout - leaseMargin)
	busy := w.busy()
	for _, l := range w.lanes {
		if expand {
			l.dry = false
		}
		if l.dry {
			continue // the wake or the poll ends the wait
		}
		if until, held := l.hold(now, busy); held {
			if !until.IsZero() && (rest.IsZero() || until.Before(rest)) {
				rest = until
			}
			continue // w.freed, or the rest's end, ends the wait
		}
		free := min(cap(l.slots)-len(l.slots), batch)
		if l.relay != nil {
			// The relay is in trouble: email rests, then tries it with one
			// message at a time until one is taken.
			if trouble, until := l.relay(); trouble != "" {
				if now.Before(until) {
					if rest.IsZero() || until.Before(rest) {
						rest = until
					}
					continue
				}
				free = min(free, 1-len(l.slots))
			}
		}
		if free <= 0 {
			continue // w.freed ends the wait
		}
		claimed, err := w.store.Claim(ctx, now, w.lease, free, l.channels)
		if err != nil {
			return false, rest, err
		}
		if len(claimed) > 0 {
			l.claim(now)
		}
		for _, c := range claimed {
			l.slots <- struct{}{}
			wg.Go(func() { w.deliver(ctx, c, l, startBy) })
		}
		l.dry = len(claimed) < free
		more = more || !l.dry
	}
	return more, rest, nil
}

// release frees a delivery's slot in its lane, and tells the loop once
// half the lane's batch of slots is free: claiming fewer at a time would
// cost more transactions.
func (w *Worker) release(l *lane) {
	<-l.slots
	if len(l.slots) == 0 {
		l.emptied(w.now())
	}
	if free := cap(l.slots) - len(l.slots); free < min(cap(l.slots), batch)/2 {
		return
	}
	select {
	case w.freed <- struct{}{}:
	default:
	}
}

// deliver renders and sends one claimed delivery, and hands the attempt
// to recordLoop, which frees its slot; an attempt that cannot start by
// startBy is not made, and the slot is freed at once.
func (w *Worker) deliver(ctx context.Context, c statusd.Claimed, l *lane, startBy time.Time) {
	h := &holding{l: l, lane: true}
	a, ok := w.attempt(ctx, &c, startBy, h)
	if !ok || ctx.Err() != nil {
		w.free(h)
		return // left to the lease, no attempt counted
	}
	w.made <- made{c, a, h}
}

// slowDown moves a request not answered within slowAfter from its fast
// place and its lane's slot to a slow place, when one is free (otherwise
// it keeps them), so that other deliveries take them.
func (w *Worker) slowDown(h *holding) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.done || !h.fast {
		return
	}
	select {
	case w.slow <- struct{}{}:
	default:
		return
	}
	h.slow, h.fast = true, false
	<-w.http
	if h.lane {
		h.lane = false
		w.release(h.l)
	}
}

// answered frees the fast place of a request that was answered (or
// failed) in it.
func (w *Worker) answered(h *holding) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.done = true
	if h.fast {
		h.fast = false
		<-w.http
	}
}

// free frees what a delivery still holds once it is recorded (or left
// unattempted): its lane's slot, or its slow place.
func (w *Worker) free(h *holding) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.lane {
		h.lane = false
		w.release(h.l)
	}
	if h.slow {
		h.slow = false
		<-w.slow
	}
}

// recordLoop records the attempts made, until ctx is done: each time, all
// that came since the last were recorded (up to batch), in one
// transaction (RecordMany). Sends that end faster than the store records
// one at a time make bigger batches, and fewer transactions.
func (w *Worker) recordLoop(ctx context.Context) {
	for {
		var ms []made
		select {
		case <-ctx.Done():
			return
		case m := <-w.made:
			ms = append(ms, m)
		}
	gather:
		for len(ms) < batch {
			select {
			case m := <-w.made:
				ms = append(ms, m)
			default:
				break gather
			}
		}
		w.record(ctx, ms)
	}
}

// record records the attempts, logs what became of each, and frees their
// slots.
func (w *Worker) record(ctx context.Context, ms []made) {
	defer func() {
		for _, m := range ms {
			w.free(m.h)
		}
	}()
	attempts := make([]statusd.DeliveryAttempt, len(ms))
	for i, m := range ms {
		attempts[i] = statusd.DeliveryAttempt{DeliveryID: m.c.Delivery.ID, Attempt: m.a}
	}
	ds, err := w.store.RecordMany(ctx, attempts, w.retryBase)
	if err != nil {
		if ctx.Err() == nil {
			w.log.Warn("notifications: attempts could not be recorded; they will be made again after the lease",
				"deliveries", len(ms), "err", err)
		}
		return
	}
	for i := range ms {
		w.logAttempt(&ms[i].c, ms[i].a, ds[i])
	}
	w.logRelay()
}

// logRelay logs the mail relay's trouble when it begins or changes, and
// its end, naming the relay. Only recordLoop calls it.
func (w *Worker) logRelay() {
	if w.mailer == nil {
		return
	}
	trouble, _ := w.mailer.relay.state()
	switch {
	case trouble == w.relayLogged:
		return
	case trouble != "":
		w.log.Warn("notifications: the mail relay is in trouble; email rests and is retried, no subscriber is blamed",
			"relay", w.mailer.relay.name, "trouble", trouble)
	default:
		w.log.Info("notifications: the mail relay takes email again", "relay", w.mailer.relay.name)
	}
	w.relayLogged = trouble
}

// attempt makes one attempt of the delivery, started by startBy. ok is
// false when none was made: the snapshot did not hold its notice yet,
// after waiting a little, or its turn (a free connection, the mail rate)
// did not come by startBy, or ctx ended. The delivery is then left for
// later, without an attempt counted.
func (w *Worker) attempt(ctx context.Context, c *statusd.Claimed, startBy time.Time, h *holding) (a statusd.Attempt, ok bool) {
	wait, cancel := context.WithDeadline(ctx, startBy)
	defer cancel()
	e := c.Delivery.Event
	deadline := w.now().Add(notYetWait)
	for {
		now := w.now()
		snap := w.snaps.Current()
		m, err := w.msgs.get(snap, e, func() (*message, error) { return w.compose(snap, e, now) })
		switch {
		case err == nil:
			return w.send(ctx, wait, m, c, h)
		case !errors.Is(err, errNotYet): // a voidError: nothing to send
			return dropped(now, err.Error())
		case now.After(deadline):
			return statusd.Attempt{}, false
		}
		select {
		case <-wait.Done():
			return statusd.Attempt{}, false
		case <-time.After(notYetPoll):
		}
	}
}

// dropped is the attempt of a delivery with nothing to send, and why: it
// ends the delivery without counting an attempt (statusd.Dropped).
func dropped(at time.Time, why string) (statusd.Attempt, bool) {
	return statusd.Attempt{At: at, Outcome: statusd.Dropped, Error: clip(why, maxErrorText, nil)}, true
}

// send renders m for the subscriber's channel and sends it, once its turn
// comes, unless wait ends first (ok false: no attempt made). An HTTP
// request takes a fast place, and a slow one after slowAfter (h).
func (w *Worker) send(ctx, wait context.Context, m *message, c *statusd.Claimed, h *holding) (a statusd.Attempt, ok bool) {
	s := &c.Subscriber
	failed := func(err error) (statusd.Attempt, bool) {
		return statusd.Attempt{At: w.now(), Outcome: statusd.Failed, Error: clip(err.Error(), maxErrorText, nil)}, true
	}
	switch {
	case m.Kind == statusd.SubscriptionConfirm && s.Channel != statusd.Email:
		return dropped(w.now(), "only email subscriptions are confirmed")
	case m.Kind == statusd.SubscriptionConfirm && s.State == statusd.SubscriberPending && s.ConfirmToken == "":
		return dropped(w.now(), "the subscriber has no confirmation token to send")
	case !s.Channel.Carries(m.Kind):
		return dropped(w.now(), "only webhooks carry "+string(m.Kind)+" events")
	}
	var body []byte
	var err error
	var header map[string][]string
	switch s.Channel {
	case statusd.Email:
		if w.mailer == nil {
			return dropped(w.now(), "email is off: statusd runs without an SMTP server (--smtp-url)")
		}
		at := w.now()
		e, err := renderEmail(m, c)
		if err != nil {
			return failed(err)
		}
		msg, err := e.msg(w.mailer.from, s.Address, at)
		if err != nil {
			return failed(err)
		}
		return w.mailer.send(ctx, wait, msg, s.Address)
	case statusd.Webhook:
		body, header, err = w.webhookRequest(m, c, w.now())
	case statusd.Slack:
		body, err = slack(m)
	case statusd.Teams:
		body, err = teams(m)
	case statusd.Discord:
		body, err = discord(m)
	default:
		err = errors.New("statusd does not know the channel " + string(s.Channel))
	}
	if err != nil {
		return failed(err)
	}
	if wait.Err() != nil {
		return statusd.Attempt{}, false
	}
	select {
	case w.http <- struct{}{}:
	case <-wait.Done():
		return statusd.Attempt{}, false
	}
	h.mu.Lock()
	h.fast = true
	h.mu.Unlock()
	slow := time.AfterFunc(slowAfter, func() { w.slowDown(h) })
	a = w.poster.post(ctx, s.Address, body, header)
	slow.Stop()
	w.answered(h)
	return a, true
}

// logAttempt logs what became of an attempt: delivered at debug level,
// anything else at info or warn, naming the subscriber by id (its
// address only at debug level).
func (w *Worker) logAttempt(c *statusd.Claimed, a statusd.Attempt, d *statusd.Delivery) {
	s := &c.Subscriber
	attrs := []any{"delivery", c.Delivery.ID, "event", c.Delivery.Event.ID, "subscriber", s.ID, "channel", string(s.Channel)}
	w.log.Debug("notification attempt", append(attrs, "address", s.Address, "outcome", int(a.Outcome), "status", a.Status, "err", a.Error)...)
	if a.Outcome == statusd.Delivered {
		return
	}
	attrs = append(attrs, "status", a.Status, "err", redact(a.Error, s))
	switch {
	case a.Outcome == statusd.Gone:
		w.log.Info("notification receiver is gone (410); the subscriber is unsubscribed", attrs...)
	case a.Outcome == statusd.Rejected:
		w.log.Info("notification address rejected by the mail server; the subscriber is quarantined", attrs...)
	case a.Outcome == statusd.Dropped:
		w.log.Info("notification dropped: nothing to send", attrs...)
	case d != nil && d.State == statusd.DeliveryFailed:
		w.log.Warn("notification failed for good", append(attrs, "attempts", d.Attempts)...)
	case a.Outcome == statusd.Deferred:
		w.log.Info("the mail server did not take the notification; it will be retried, not counted against the subscriber", attrs...)
	default:
		w.log.Info("notification attempt failed; it will be retried", attrs...)
	}
}

// redact removes the subscriber's address, and a URL's host, from an
// error text, whatever their case.
func redact(text string, s *statusd.Subscriber) string {
	hide := []string{s.Address}
	if u, err := url.Parse(s.Address); err == nil && u.Host != "" {
		hide = append(hide, u.Host, u.Hostname())
	}
	for _, h := range hide {
		if h != "" {
			text = regexp.MustCompile("(?i)"+regexp.QuoteMeta(h)).ReplaceAllLiteralString(text, "<address>")
		}
	}
	return text
}
