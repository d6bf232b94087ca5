package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/bench/internal/rig"
)

// bench runs the storms of one database against one statusd.
type bench struct {
	cfg    config
	doc    string     // the import document, with component keys
	groups [][]string // the component keys the alerts name, by group

	srv     *rig.Server
	client  *http.Client
	sources []*source
	pairs   int // storm pairs sent so far: the next firing storm is pairs+1
}

// source is one alertmanager source of the pool: the storm pairs take
// them in turn.
type source struct {
	id     int64
	token  string
	path   string
	bucket bucket
}

// dbResult is what one database's run measured.
type dbResult struct {
	name                  string
	importSec             float64
	loadBefore, loadAfter string
	storms                []stormResult
	// quiet[r] is the wrk run without storms before round r+1 (the last
	// one after the last round).
	quiet  rig.Quiet
	rounds []roundResult
	// rest is the share of its core statusd used at rest before the
	// first storm, with no alert firing (measured for restFor).
	rest float64
	// fired is how many firing storms were sent; end the signals and
	// drafts statusd lists at the end.
	fired int
	end   endState
}

// The phases of a storm.
const (
	phaseWarmUp = "warm-up" // the first pair, on fresh connections: shown, not judged
	phaseQuiet  = "quiet"   // without reads, statusd idle before each storm
	phaseReads  = "reads"   // under wrk, back to back
	phaseAfter  = "after"   // in a window, but mostly after wrk's end: not judged
)

// stormResult is one storm: 10 requests sent at once.
type stormResult struct {
	number   int // the firing storm's number (a recovery shares it)
	resolved bool
	phase    string
	round    int     // phaseReads: the round
	sec      float64 // from the first send to the last answer read
	// cpu is statusd's CPU seconds from the first send until it was idle
	// again (phaseQuiet and phaseWarmUp; 0 under reads, where the reads
	// share it).
	cpu float64
	// rest is the share of its core statusd used at rest after a firing
	// storm without reads, its alerts firing (measured for restFor).
	rest float64
	// waited is how long the source's rate limit made the storm wait
	// before it was sent (not in sec).
	waited float64
	// requests sent, and those answered 202 with every alert of the
	// body summarised (received and one signal each).
	requests, good int
	received       int            // alerts the 202 answers say they received
	actions        map[string]int // what became of the alerts (HookSignal.Action)
	failures       []string       // the first few answers that were not good
	start, end     time.Time
}

// roundResult is one round's storm window: wrk and storms at once.
type roundResult struct {
	reads  rig.Result
	storms int     // storms under reads (at least half during wrk)
	duty   float64 // the share of the wrk run during which a storm was under way
	cpu    float64 // statusd's CPU seconds from wrk's start to its end (reads included)
	window float64 // the seconds from wrk's start to its end
	load   string
}

// endState is what the admin API lists at the end, by status or state.
type endState struct {
	signals, drafts map[string]int
	err             string
}

// run measures one database: it imports the page into it, creates a
// token, serves it, makes the sources, sends the storm pairs without
// reads and then the rounds, and counts the signals and drafts left. What
// was measured before an error is returned with it.
func (b *bench) run(ctx context.Context, db rig.Database) (dbResult, error) {
	res := dbResult{name: db.Name, loadBefore: rig.Loadavg()}
	srv, err := rig.Start(ctx, b.cfg.statusd, b.cfg.work, db, b.doc, "storm", readPath, "--rate-limit", "0", "--max-conns-per-client", "0")
	if err != nil {
		return res, err
	}
	defer srv.Stop()
	b.srv = srv
	b.client = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4 * b.cfg.requests}}
	res.importSec = srv.ImportSec
	logf("imported in %.1f s; statusd serving at %s (PID %d)", res.importSec, srv.Base, srv.PID)
	if _, err := b.wrk(time.Second).Run(ctx); err != nil { // warm up
		return res, err
	}
	for i := range b.cfg.sources {
		if err := b.addSource(ctx, i+1); err != nil {
			return res, err
		}
	}
	b.srv.Settle()
	cpu := rig.CPUSeconds(b.srv.PID)
	time.Sleep(restFor)
	res.rest = (rig.CPUSeconds(b.srv.PID) - cpu) / restFor.Seconds()

	for p := range 1 + b.cfg.quietPairs {
		phase := phaseQuiet
		if p == 0 {
			phase = phaseWarmUp
		}
		pair, err := b.pair(ctx, phase, 0, true)
		res.storms = append(res.storms, pair...)
		if err != nil {
			return res, err
		}
	}
	for r := 1; r <= b.cfg.rounds+1; r++ {
		q, err := b.wrk(b.cfg.wrkDur).Run(ctx)
		if err != nil {
			return res, err
		}
		res.quiet = append(res.quiet, q)
		logf("  quiet reads   %8.0f req/s (avg %v, max %v)", q.RPS, q.LatencyAvg, q.LatencyMax)
		if r > b.cfg.rounds {
			break
		}
		rr, storms, err := b.window(ctx, r)
		res.storms = append(res.storms, storms...)
		if err != nil {
			return res, fmt.Errorf("round %d: %w", r, err)
		}
		res.rounds = append(res.rounds, rr)
		b.srv.Settle()
	}
	res.end = b.endState(ctx)
	res.loadAfter = rig.Loadavg()
	return res, nil
}

// pair sends a firing storm and then its recovery, from the next source
// of the pool. With settle, each storm waits for statusd to be idle first
// and measures statusd's CPU until it is idle again.
func (b *bench) pair(ctx context.Context, phase string, round int, settle bool) ([]stormResult, error) {
	src := b.sources[b.pairs%len(b.sources)]
	b.pairs++
	s := storm{Number: b.pairs, Requests: b.cfg.requests, PerBody: b.cfg.alerts / b.cfg.requests, Groups: b.groups,
		StartsAt: time.Now().UTC().Add(-5 * time.Minute)}
	var out []stormResult
	for _, resolved := range []bool{false, true} {
		s.Resolved, s.At = resolved, time.Now().UTC()
		if settle {
			b.srv.Settle()
		}
		cpu0 := rig.CPUSeconds(b.srv.PID)
		r, err := b.storm(ctx, src, s)
		if settle {
			b.srv.Settle()
			r.cpu = rig.CPUSeconds(b.srv.PID) - cpu0
		}
		if settle && !resolved {
			// The storm's alerts fire until its recovery: what does
			// statusd spend meanwhile, with nothing sent?
			cpu := rig.CPUSeconds(b.srv.PID)
			time.Sleep(restFor)
			r.rest = (rig.CPUSeconds(b.srv.PID) - cpu) / restFor.Seconds()
		}
		r.phase, r.round = phase, round
		out = append(out, r)
		note := ""
		if settle {
			note = fmt.Sprintf(", statusd %.2f CPU s", r.cpu)
			if !resolved {
				note += fmt.Sprintf(", then %.1f%% of its core at rest", 100*r.rest)
			}
		}
		logf("  %-7s storm %3d %-9s %6.3f s, %d/%d good, %d received, actions %v%s", phase, r.number, kindOf(r.resolved), r.sec,
			r.good, r.requests, r.received, r.actions, note)
		for _, f := range r.failures {
			logf("    %s", f)
		}
		if err != nil {
			return out, err
		}
	}
	return out, nil
}

// restFor is how long statusd's CPU is measured at rest after a firing
// storm without reads.
const restFor = 2 * time.Second

// kindOf names a storm by what its alerts say.
func kindOf(resolved bool) string {
	if resolved {
		return "recovery"
	}
	return "firing"
}

// window runs wrk on the read path for -wrk-d and, meanwhile, storm pairs
// back to back until wrk's end. A storm at least half of which ran
// during wrk is under reads; the others (the last pair's tail) are shown
// apart.
func (b *bench) window(ctx context.Context, round int) (roundResult, []stormResult, error) {
	rr := roundResult{load: rig.Loadavg()}
	var storms []stormResult
	w, err := b.srv.RunBeside(ctx, b.wrk(b.cfg.wrkDur), b.cfg.lead, func() error {
		pair, err := b.pair(ctx, phaseReads, round, false)
		storms = append(storms, pair...)
		return err
	})
	start := w.Start
	rr.window, rr.cpu, rr.reads = w.End.Sub(start).Seconds(), w.CPU, w.Reads
	for i := range storms {
		if s := &storms[i]; s.span().Within(start, w.End) < s.end.Sub(s.start)/2 {
			s.phase = phaseAfter // mostly after wrk's end
		} else {
			rr.storms++
		}
	}
	spans := make([]rig.Span, len(storms))
	for i, s := range storms {
		spans[i] = s.span()
	}
	rr.duty = rig.Coverage(spans, start, w.End)
	logf("round %d: %d storms under reads (%d after), %.0f%% of the window; reads %.0f req/s (avg %v, max %v, %d socket errors); statusd %.1f CPU s",
		round, rr.storms, len(storms)-rr.storms, 100*rr.duty, rr.reads.RPS, rr.reads.LatencyAvg, rr.reads.LatencyMax, rr.reads.SocketErrors, rr.cpu)
	return rr, storms, err
}

// span is when storm s was under way.
func (s stormResult) span() rig.Span { return rig.Span{Start: s.start, End: s.end} }

// answer is what one request of a storm got.
type answer struct {
	status int
	body   []byte
	err    error
	at     time.Time // when the whole answer was read
}

// storm sends the storm's bodies to src's hook at once (each on a
// connection of its own, goroutines released together) and returns how
// long it took from the first send to the last answer, and what the
// answers said. A request that fails is counted, not an error; only the
// end of ctx is.
func (b *bench) storm(ctx context.Context, src *source, s storm) (stormResult, error) {
	r := stormResult{number: s.Number, resolved: s.Resolved, actions: map[string]int{}}
	bodies, err := s.bodies()
	if err != nil {
		return r, err
	}
	if wait := src.bucket.take(time.Now(), len(bodies)); wait > 0 {
		r.waited = wait.Seconds()
		select {
		case <-time.After(wait):
		case <-ctx.Done():
			return r, ctx.Err()
		}
	}
	sctx, cancel := context.WithTimeout(ctx, b.cfg.stormLimit)
	defer cancel()
	reqs := make([]*http.Request, len(bodies))
	for i, body := range bodies {
		req, err := http.NewRequestWithContext(sctx, http.MethodPost, b.srv.Base+src.path, bytes.NewReader(body))
		if err != nil {
			return r, err
		}
		req.Header.Set("Authorization", "Bearer "+src.token)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("User-Agent", "Alertmanager/0.35.0")
		reqs[i] = req
	}
	answers := make([]answer, len(reqs))
	release := make(chan struct{})
	var wg sync.WaitGroup
	for i, req := range reqs {
		wg.Go(func() {
			<-release
			a := &answers[i]
			resp, err := b.client.Do(req)
			if err != nil {
				a.err, a.at = err, time.Now()
				return
			}
			a.body, a.err = io.ReadAll(resp.Body)
			resp.Body.Close()
			a.status, a.at = resp.StatusCode, time.Now()
		})
	}
	r.start = time.Now()
	close(release)
	wg.Wait()
	r.end = r.start
	for _, a := range answers {
		if a.at.After(r.end) {
			r.end = a.at
		}
		r.requests++
		if msg := tally(&r, a, s.PerBody); msg != "" && len(r.failures) < 3 {
			r.failures = append(r.failures, msg)
		}
	}
	r.sec = r.end.Sub(r.start).Seconds()
	return r, ctx.Err()
}

// tally adds an answer to r: a 202 whose summary received perBody alerts
// and names each is good; anything else is described.
func tally(r *stormResult, a answer, perBody int) string {
	if a.err != nil {
		return a.err.Error()
	}
	if a.status != http.StatusAccepted {
		return fmt.Sprintf("%d: %.200s", a.status, a.body)
	}
	var hr statusd.HookResponse
	if err := json.Unmarshal(a.body, &hr); err != nil {
		return fmt.Sprintf("202 that is not a summary (%v): %.200s", err, a.body)
	}
	r.received += hr.Received
	for _, sig := range hr.Signals {
		r.actions[sig.Action]++
	}
	if hr.Received != perBody || len(hr.Signals) != perBody {
		return fmt.Sprintf("202 with %d received and %d signals, want %d of each", hr.Received, len(hr.Signals), perBody)
	}
	r.good++
	return ""
}

// The hook's rate limit (CONTRACT C9, internal/admin): hookRate requests
// a second per source, in bursts of at most hookBurst. The storms keep
// to pace times it.
const (
	hookRate  = 10
	hookBurst = 50
	pace      = 0.9
)

// bucket is this side's copy of a source's token bucket: a storm waits
// until its source has a token for each of its requests, so that the rate
// limit never refuses one (a 429 is a failure of the run).
type bucket struct {
	tokens float64
	at     time.Time // when tokens was counted; zero: a full bucket
}

// take takes n tokens at now and returns how long to wait before
// sending the requests they are for.
func (k *bucket) take(now time.Time, n int) time.Duration {
	const rate = hookRate * pace
	if k.at.IsZero() {
		k.tokens, k.at = hookBurst, now
	}
	if now.After(k.at) {
		k.tokens = min(hookBurst, k.tokens+now.Sub(k.at).Seconds()*rate)
		k.at = now
	}
	// k.at is now, or later when an earlier take is still waiting.
	if short := float64(n) - k.tokens; short > 0 {
		k.at = k.at.Add(time.Duration(short / rate * float64(time.Second)))
		k.tokens = float64(n)
	}
	k.tokens -= float64(n)
	return k.at.Sub(now)
}

// addSource makes source n of the pool through the admin API.
func (b *bench) addSource(ctx context.Context, n int) error {
	body, err := b.srv.Admin(ctx, http.MethodPost, "/admin/api/v1/sources", http.StatusCreated,
		map[string]any{"name": fmt.Sprintf("Alertmanager %d", n), "format": "alertmanager"})
	if err != nil {
		return err
	}
	var src statusd.AdminSource
	if err := json.Unmarshal(body, &src); err != nil || src.Token == "" || src.HookPath == "" {
		return fmt.Errorf("POST source answered %.300s", body)
	}
	b.sources = append(b.sources, &source{id: src.ID, token: src.Token, path: src.HookPath})
	return nil
}

// endState counts the signals by status and the drafts by state that
// the admin API lists.
func (b *bench) endState(ctx context.Context) endState {
	e := endState{signals: map[string]int{}, drafts: map[string]int{}}
	var sigs statusd.AdminSignalsResponse
	var drafts statusd.AdminDraftsResponse
	for _, get := range []struct {
		path string
		v    any
	}{{"/admin/api/v1/signals", &sigs}, {"/admin/api/v1/drafts", &drafts}} {
		body, err := b.srv.Admin(ctx, http.MethodGet, get.path, http.StatusOK, nil)
		if err == nil {
			err = json.Unmarshal(body, get.v)
		}
		if err != nil {
			e.err = err.Error()
			return e
		}
	}
	for _, s := range sigs.Signals {
		e.signals[s.Status]++
	}
	for _, d := range drafts.Drafts {
		e.drafts[d.State]++
	}
	logf("end: signals %v, drafts %v", e.signals, e.drafts)
	return e
}

// wrk is a wrk run of d on the read path, on core 1.
func (b *bench) wrk(d time.Duration) rig.Wrk {
	return rig.Wrk{Core: 1, Threads: b.cfg.wrkThreads, Conns: b.cfg.wrkConns, Duration: d, URL: b.srv.Base + readPath}
}
