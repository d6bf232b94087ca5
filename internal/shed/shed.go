// Package shed refuses the requests a server has no capacity for, at once,
// with 503 and Retry-After, so that the requests that are served stay fast
// instead of queueing for seconds.
//
// Three signals say that capacity is exceeded. The first is the number of
// requests in flight, bounded. The second is queue time: with few
// processors, a handler for a cached answer runs to completion without
// yielding, so requests in flight stay few while the real queue builds up
// outside the handlers: bytes in the kernel's socket buffers, which the Go
// runtime polls at most 128 connections at a time, and goroutines ready to
// run waiting for a processor. Neither is visible from the handlers, but
// the kernel stamps each segment with the time it arrived: a request's
// wait is the time from its bytes' arrival to its handler (see
// Limiter.Listen). Once most requests have waited past a target for long
// enough to be a standing queue, those that did are refused (see Watch and
// controller). The third is the queue of computations, the answers no
// cache holds: one that would wait past half the target behind those
// already admitted is refused before it starts (see Limiter.Admit). Those
// admitted take turns, with the network polled after each half millisecond of
// computing, so that a request is read, and refused if need be, within
// about that of its arrival (see turns), and the network is polled when
// the runtime's background sweeper would keep it from being polled (see
// nudge).
//
// Under a flood, the connections of Listen refuse such requests before
// net/http reads them, for a fraction of what a refusal through net/http
// costs (see early.go); while clients retry at once, without waiting,
// they read a refused connection again only after its Retry-After (see
// pause.go).
package shed

import (
	"context"
	"log/slog"
	"net"
	"net/http"
	"runtime"
	"runtime/metrics"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/statusd/statusd/internal/httpjson"
)

// Limiter holds the bounds. It is safe for concurrent use.
type Limiter struct {
	max         int64
	queueTarget time.Duration
	inFlight    atomic.Int64
	shed        atomic.Int64
	// overloaded is set by Watch during an episode of overload: then a
	// request that waited past queueTarget is refused.
	overloaded atomic.Bool
	// timing is set by Watch while the connections of Listen read the
	// arrival times of requests; see observe. timed tells nudge that it
	// was set, lastRead is the arrival time of the bytes a connection
	// read last (Unix ns), and nudges counts nudge's polls.
	timing   atomic.Bool
	timed    chan struct{}
	lastRead atomic.Int64
	nudges   atomic.Int64
	// Since Watch's last reading: the requests whose wait is known, those
	// of them that waited past queueTarget, those of these that were not
	// cached, and those refused.
	waited, late, lateCostly, lateRefused atomic.Int64
	// cached are the probes of Cached, exempt the prefixes of Exempt.
	cached []func(*http.Request) bool
	exempt []string
	// refusal answers the refusals made before net/http: refuseRequest,
	// behind the middleware of AnswerThrough.
	refusal http.Handler
	// readHeaders are the request headers that refusal reads.
	readHeaders []string
	log         *slog.Logger
	// Admit's state: the processors, the computations admitted and not
	// yet started, the moving average of their cost, in ns, the line in
	// which they take turns, and the refusals since Watch's last reading.
	procs       int64
	queued      atomic.Int64
	computeCost atomic.Int64
	turns       turns
	gateRefused atomic.Int64
	// refusing is the time the early refusals took since Watch's last
	// reading (ns), pausing whether connections pause after one, and
	// paused how many did in the episode of pausing (see pause.go).
	refusing atomic.Int64
	pausing  atomic.Bool
	paused   atomic.Int64
}

// Cached sets the probes that tell whether a request would be answered
// from a cache, without computing anything. Such a request is never
// refused for queue time: refusing it would cost the server about what
// serving it does, and the client would get nothing. Only requests that
// would be computed are, and only they start an episode. Call it before
// serving.
func (l *Limiter) Cached(probes ...func(*http.Request) bool) { l.cached = probes }

// New returns a Limiter of max requests in flight (0 or less: no bound) that
// also refuses requests that waited longer than queueTarget once most
// requests do (0 or less: never; the wait is known only for the
// connections of Listen, and Watch must run), and computations that would
// wait longer than half of it (see Admit).
func New(max int, queueTarget time.Duration, log *slog.Logger) *Limiter {
	l := &Limiter{max: int64(max), queueTarget: queueTarget, log: log, procs: int64(runtime.GOMAXPROCS(0)),
		timed: make(chan struct{}, 1)}
	l.refusal = http.HandlerFunc(l.refuseRequest)
	return l
}

// Shed is the number of requests refused so far, for either reason.
func (l *Limiter) Shed() int64 { return l.shed.Load() }

// Wrap bounds next. Paths with one of the prefixes of Exempt are never
// refused.
func (l *Limiter) Wrap(next http.Handler) http.Handler {
	if l.max <= 0 && l.queueTarget <= 0 {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if l.exempted(r.URL.Path) {
			next.ServeHTTP(w, r)
			return
		}
		// Queue time: the connection stays open, since reconnecting would
		// cost the server more than the refused request.
		if l.queueTarget > 0 && l.tooLate(r) {
			l.refuseRequest(w, r)
			return
		}
		if l.max <= 0 {
			next.ServeHTTP(w, r)
			return
		}
		if l.inFlight.Add(1) > l.max {
			l.inFlight.Add(-1)
			w.Header().Set("Connection", "close")
			l.refuseRequest(w, r)
			return
		}
		defer l.inFlight.Add(-1)
		next.ServeHTTP(w, r)
	})
}

// refuseRequest counts r as shed and answers it 503: JSON on the API paths,
// text elsewhere.
func (l *Limiter) refuseRequest(w http.ResponseWriter, r *http.Request) {
	l.shed.Add(1)
	if strings.HasPrefix(r.URL.Path, "/api/") || strings.HasPrefix(r.URL.Path, "/v1/") {
		busyJSON.write(w, r)
		return
	}
	busyPage.write(w, r)
}

// busyJSON and busyPage are the answers of refuseRequest, made once: a
// refusal must cost as little as it can. busyJSON is httpjson.Error's
// answer to ErrBusy.
var busyJSON, busyPage = busyAnswers()

// canned is an answer made once, written as it is.
type canned struct {
	header http.Header // values clipped: appending to one copies it
	body   []byte
}

func busyAnswers() (api, page canned) {
	a := &answer{header: http.Header{}}
	httpjson.Error(a, &http.Request{Method: http.MethodGet}, slog.New(slog.DiscardHandler), ErrBusy)
	api = canned{a.header, a.body}
	text := BusyText + "\n"
	page = canned{http.Header{
		"Retry-After":    {"1"},
		"Content-Type":   {"text/plain; charset=utf-8"},
		"Cache-Control":  {"no-store"},
		"Content-Length": {strconv.Itoa(len(text))},
	}, []byte(text)}
	for _, h := range []http.Header{api.header, page.header} {
		for k, v := range h {
			h[k] = slices.Clip(v)
		}
	}
	return api, page
}

// write answers r with c, keeping the header values set before (the
// request id, say).
func (c canned) write(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	for k, v := range c.header {
		h[k] = v
	}
	w.WriteHeader(http.StatusServiceUnavailable)
	if r.Method != http.MethodHead {
		w.Write(c.body)
	}
}

// BusyText tells a person that a page was refused for load, and what to
// do.
const BusyText = "The status page is very busy right now. Please try again in a second."

// tooLate counts r's wait, when known, and reports whether to refuse it:
// during an episode of overload, when it waited past the target and its
// answer is not cached.
func (l *Limiter) tooLate(r *http.Request) bool {
	if !l.timing.Load() {
		return false // the common case: no wait is read
	}
	at := arrived(r.Context())
	if at == 0 {
		return false
	}
	l.waited.Add(1)
	if time.Duration(time.Now().UnixNano()-at) <= l.queueTarget {
		return false
	}
	l.late.Add(1)
	if l.isCached(r) {
		return false
	}
	l.lateCostly.Add(1)
	if !l.overloaded.Load() {
		return false
	}
	l.lateRefused.Add(1)
	return true
}

// isCached reports whether a probe of Cached says r's answer is cached.
func (l *Limiter) isCached(r *http.Request) bool {
	for _, cached := range l.cached {
		if cached(r) {
			return true
		}
	}
	return false
}

// samplePeriod is how often Watch reads the counts of waits.
const samplePeriod = 25 * time.Millisecond

// minWaits is the fewest requests in a period that say anything of a
// queue: fewer than 16 in 25 ms is a server doing a few hundred requests a
// second, where a handful held up by one long task (a snapshot made after
// a write, say) would otherwise read as a queue, and be refused on a quiet
// server.
const minWaits = 16

// Watch reads the counts of waits every samplePeriod and tells the
// requests whether the server is overloaded (see controller), until ctx is
// done; then it stops refusing for queue time and returns. While it runs,
// the computations that Admit lets through take turns (see turns). It
// returns at once when the Limiter has no queue target; without the
// kernel's receive times (off Linux), it only paces the turns.
func (l *Limiter) Watch(ctx context.Context) {
	if l.queueTarget <= 0 {
		return
	}
	paced := make(chan struct{})
	go func() {
		defer close(paced)
		if err := l.turns.pace(ctx, l.procs); err != nil {
			l.log.Warn("computations do not take turns: a burst of them can keep new requests unread", "err", err)
		}
	}()
	defer func() { <-paced }()
	if !receiveTimes {
		l.log.Info("queue-time shedding is off: it needs the kernel's receive times, read on Linux only; --max-in-flight and the gate of computations still apply")
		<-ctx.Done()
		return
	}
	nudged := make(chan struct{})
	go func() {
		defer close(nudged)
		l.nudge(ctx)
	}()
	defer func() { <-nudged }()
	defer l.overloaded.Store(false)
	defer l.timing.Store(false)
	defer l.pausing.Store(false)
	s := []metrics.Sample{{Name: runnableGoroutines}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		// Without the count, times are read all along.
		l.readTimes()
		s = nil
	}
	c, p := controller{}, pacer{}
	tick := time.NewTicker(samplePeriod)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		var runnable uint64
		if s != nil {
			metrics.Read(s)
			runnable = s[0].Value.Uint64()
		}
		l.observe(&c, runnable)
		l.pace(&p)
	}
}

// runnableGoroutines is the runtime metric of the goroutines ready to run,
// waiting for a processor.
const runnableGoroutines = "/sched/goroutines/runnable:goroutines"

// queueing is the number of goroutines waiting to run at which the
// connections start reading arrival times: a few dozen clients in a
// closed loop never make that many, a flood of requests does, as the
// runtime hands them out up to 128 connections at a time.
const queueing = 64

// observe feeds the counts since the last reading to c, starts the next
// period's, and turns the reading of times on when runnable goroutines are
// queueing or computations were refused (so that the next are refused
// before net/http), off when the readings have been calm for as long as an
// episode's end takes (see calmAfter). It logs each episode's start and
// end, so that an operator sees when and how much the server refused.
func (l *Limiter) observe(c *controller, runnable uint64) {
	waited, late, costly, refused := l.waited.Swap(0), l.late.Swap(0), l.lateCostly.Swap(0), l.lateRefused.Swap(0)
	gated := l.gateRefused.Swap(0)
	was := c.on
	on := c.update(waited >= minWaits && 2*late > waited && costly > 0, refused > 0)
	l.overloaded.Store(on)
	c.refused += refused
	switch {
	case on && !was:
		c.refused = 0
		l.log.Warn("overloaded: most requests waited longer than the queue target; refusing those that do (503)",
			"queue_target", l.queueTarget, "requests", waited, "late", late)
	case was && !on:
		l.log.Info("no longer overloaded", "refused", c.refused)
	}
	switch {
	case runnable >= queueing || on || 2*late > waited || gated > 0:
		c.quiet = 0
		l.readTimes()
	case l.timing.Load():
		if c.quiet++; c.quiet >= calmAfter {
			l.timing.Store(false)
		}
	}
}

// Listen returns ln with its connections reading the times at which their
// requests arrived, and refusing before net/http (see early), while Watch
// sees goroutines queue (Linux only).
func (l *Limiter) Listen(ln net.Listener) net.Listener {
	return stampListener(ln, l)
}

// connKey is the context key of the arrival time of a connection's bytes.
type connKey struct{}

// ConnContext is for http.Server's ConnContext: it gives the requests of a
// connection of Listen the time their bytes arrived, for Wrap.
func ConnContext(ctx context.Context, c net.Conn) context.Context {
	if a := arrivals(c); a != nil {
		return context.WithValue(ctx, connKey{}, a)
	}
	return ctx
}

// arrived is the time the bytes of the request with ctx arrived, in Unix
// ns; 0 when not known.
func arrived(ctx context.Context) int64 {
	if a, ok := ctx.Value(connKey{}).(*atomic.Int64); ok {
		return a.Load()
	}
	return 0
}

// The control law's constants; see controller.
const (
	startAfter = 3 // periods in a row with most requests late (75 ms) that start an episode
	calmAfter  = 8 // periods in a row without a refusal (200 ms) that end one
)

// controller turns the periods' counts of waits into whether the server is
// overloaded:
//
//   - an episode starts once most requests waited past the target, some
//     of them for answers not cached, in startAfter periods in a row (a
//     75 ms interval, as in CoDel): a burst, a garbage collection or a
//     slow task makes a queue that drains by itself within tens of
//     milliseconds, a queue that stands longer is more work than the
//     server can do;
//   - during an episode, each request that waited past the target is
//     refused, unless its answer is cached, and the others are served:
//     refusals cost little next to computing, so the queue drains down to
//     the target and stays there, and the requests served are those that
//     waited least or cost least;
//   - the episode ends once calmAfter periods in a row (200 ms) saw no
//     refusal: the queue stays short by itself.
//
// It is not safe for concurrent use: only Watch's goroutine feeds it.
type controller struct {
	on    bool
	above int // periods in a row with most requests late, between episodes
	calm  int // periods in a row without a refusal, during an episode
	quiet int // readings in a row, while times are read, with nothing queueing
	// refused counts the requests refused during the episode, for its
	// log line (kept by observe).
	refused int64
}

// update takes whether most requests of the last period were late (some
// of them not cached), and whether any was refused, and returns whether
// the server is overloaded.
func (c *controller) update(late, refused bool) bool {
	if c.on {
		if c.calm++; refused {
			c.calm = 0
		}
		c.on = c.calm < calmAfter
		return c.on
	}
	if c.above++; !late {
		c.above = 0
	}
	if c.above >= startAfter {
		c.on, c.above, c.calm = true, 0, 0
	}
	return c.on
}
