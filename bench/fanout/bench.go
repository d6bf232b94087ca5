package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/statusd/statusd/bench/internal/rig"
)

// bench runs the rounds of one database against one statusd.
type bench struct {
	cfg       config
	tally     *tally
	smtpAddr  string
	doc       string // the import document
	component int64  // the component of the triggering writes

	srv    *rig.Server
	client http.Client
}

// dbResult is what one database's rounds measured.
type dbResult struct {
	name                  string
	importSec             float64
	rounds                []roundResult
	quiet                 []readRun // without a fan-out: before each round and after the last
	loadBefore, loadAfter string
}

// readRun is one wrk run.
type readRun struct {
	round int    // quiet runs: the round they precede (the last: rounds+1)
	phase string // quiet; http (HTTP deliveries under way from start to end); email (only emails left); mixed
	path  string
	at    float64 // seconds since the triggering write was sent
	rps   float64
}

// roundResult is one fan-out.
type roundResult struct {
	underReads bool               // wrk ran during the fan-out
	ackMs      float64            // the triggering write, sent to answer read
	editsMs    []float64          // edits of the notice while the fan-out was under way
	arrived    map[string]float64 // seconds from the write until every message of a channel arrived
	recorded   float64            // seconds until no delivery was pending
	repeats    int                // messages that arrived more than once
	cpu        float64            // statusd's CPU seconds from the write until all were recorded
	load       string
	reads      []readRun
}

func (b *bench) run(ctx context.Context, db rig.Database) (dbResult, error) {
	res := dbResult{name: db.Name, loadBefore: rig.Loadavg()}
	srv, err := rig.Start(ctx, b.cfg.statusd, b.cfg.work, db, b.doc, "fanout", readPaths[0],
		"--rate-limit", "0", "--max-conns-per-client", "0", "--allow-private-targets",
		"--smtp-url", "smtp://"+b.smtpAddr, "--mail-from", "Fan-out <status@fanout.test>",
		"--smtp-rate", strconv.FormatFloat(b.cfg.smtpRate, 'f', -1, 64))
	if err != nil {
		return res, err
	}
	defer srv.Stop()
	b.srv = srv
	res.importSec = srv.ImportSec
	logf("imported %d subscribers in %.1f s", b.cfg.per*len(channels), res.importSec)
	for _, p := range readPaths { // warm up
		if _, err := b.wrk(ctx, p, time.Second); err != nil {
			return res, err
		}
	}
	b.srv.Settle()
	total := b.cfg.idleRounds + b.cfg.rounds
	for r := 1; r <= total+1; r++ {
		q, err := b.quietReads(ctx, r)
		if err != nil {
			return res, err
		}
		res.quiet = append(res.quiet, q...)
		if r > total {
			break
		}
		rr, err := b.fanout(ctx, r, r > b.cfg.idleRounds)
		if err != nil {
			return res, fmt.Errorf("round %d: %w", r, err)
		}
		res.rounds = append(res.rounds, rr)
		b.srv.Settle()
	}
	res.loadAfter = rig.Loadavg()
	return res, nil
}

// quietReads measures each read path without a fan-out.
func (b *bench) quietReads(ctx context.Context, round int) ([]readRun, error) {
	var runs []readRun
	for _, p := range readPaths {
		rps, err := b.wrk(ctx, p, b.cfg.wrkDur)
		if err != nil {
			return nil, err
		}
		runs = append(runs, readRun{round: round, phase: "quiet", path: p, rps: rps})
		logf("  quiet %-22s %8.0f req/s", p, rps)
	}
	return runs, nil
}

// fanout sends one triggering write and, until every message arrived,
// runs wrk on the read paths in turn (reads) or waits as long, with an
// edit of the notice after each run; then it waits until no delivery is
// pending.
func (b *bench) fanout(ctx context.Context, r int, reads bool) (roundResult, error) {
	rr := roundResult{underReads: reads, load: rig.Loadavg()}
	b.tally.reset()
	cpu0 := rig.CPUSeconds(b.srv.PID)
	// A request first, so that the write goes on a connection already open.
	if _, err := b.pending(ctx); err != nil {
		return rr, err
	}
	sent := time.Now()
	body, took, err := b.admin(ctx, http.MethodPost, "/admin/api/v1/notices", http.StatusCreated, map[string]any{
		"type": "unplanned", "subject": fmt.Sprintf("Fan-out round %d", r), "state": "investigating",
		"content": "Measuring the fan-out.", "component_ids": []int64{b.component}})
	if err != nil {
		return rr, err
	}
	rr.ackMs = ms(took)
	var created struct{ ID int64 }
	if err := json.Unmarshal(body, &created); err != nil || created.ID == 0 {
		return rr, fmt.Errorf("POST notice answered %s", body)
	}
	logf("round %d: write acknowledged in %.1f ms", r, rr.ackMs)
	for i := 0; ; i++ {
		counts, done, _ := b.tally.status()
		if len(done) == len(channels) {
			break
		}
		if time.Since(sent) > b.cfg.roundLimit {
			return rr, fmt.Errorf("after %s only these arrived: %v", b.cfg.roundLimit, counts)
		}
		if !reads {
			b.waitArrived(ctx, b.cfg.wrkDur)
		} else if err := b.readDuring(ctx, &rr, readPaths[i%len(readPaths)], sent); err != nil {
			return rr, err
		}
		_, took, err := b.admin(ctx, http.MethodPatch, fmt.Sprintf("/admin/api/v1/notices/%d", created.ID), http.StatusOK,
			map[string]any{"subject": fmt.Sprintf("Fan-out round %d (edit %d)", r, i+1)})
		if err != nil {
			return rr, err
		}
		rr.editsMs = append(rr.editsMs, ms(took))
	}
	_, done, total := b.tally.status()
	rr.arrived = map[string]float64{}
	for ch, at := range done {
		rr.arrived[ch] = at.Sub(sent).Seconds()
	}
	rr.repeats = total - b.cfg.per*len(channels)
	for {
		n, err := b.pending(ctx)
		if err != nil {
			return rr, err
		}
		if n == 0 {
			break
		}
		if time.Since(sent) > b.cfg.roundLimit {
			return rr, fmt.Errorf("%d deliveries still pending after %s", n, b.cfg.roundLimit)
		}
		time.Sleep(100 * time.Millisecond)
	}
	rr.recorded = time.Since(sent).Seconds()
	rr.cpu = rig.CPUSeconds(b.srv.PID) - cpu0
	logf("round %d: arrived %v; all recorded after %.1f s; statusd used %.1f CPU s", r, rr.arrived, rr.recorded, rr.cpu)
	return rr, nil
}

// waitArrived waits for d, or until every message arrived.
func (b *bench) waitArrived(ctx context.Context, d time.Duration) {
	end := time.Now().Add(d)
	for time.Now().Before(end) && ctx.Err() == nil {
		if _, done, _ := b.tally.status(); len(done) == len(channels) {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// readDuring runs wrk on path during the fan-out and records the run,
// labelled by what was under way from its start to its end.
func (b *bench) readDuring(ctx context.Context, rr *roundResult, path string, sent time.Time) error {
	at := time.Since(sent).Seconds()
	_, done, _ := b.tally.status()
	httpBefore := httpDone(done)
	rps, err := b.wrk(ctx, path, b.cfg.wrkDur)
	if err != nil {
		return err
	}
	counts, done, _ := b.tally.status()
	phase := "mixed"
	switch {
	case httpBefore:
		phase = "email"
	case !httpDone(done):
		phase = "http"
	}
	rr.reads = append(rr.reads, readRun{phase: phase, path: path, at: at, rps: rps})
	logf("  %-5s %-22s %8.0f req/s at %5.1f s; arrived %v", phase, path, rps, at, counts)
	return nil
}

// httpDone reports whether every HTTP channel's messages arrived.
func httpDone(done map[string]time.Time) bool {
	for _, ch := range channels {
		if _, ok := done[ch]; !ok && ch != "email" {
			return false
		}
	}
	return true
}

// admin sends a request to the admin API and returns the answer's body
// and how long it took from sending to reading the whole answer.
func (b *bench) admin(ctx context.Context, method, path string, want int, body any) ([]byte, time.Duration, error) {
	var rd io.Reader
	if body != nil {
		j, err := json.Marshal(body)
		if err != nil {
			return nil, 0, err
		}
		rd = bytes.NewReader(j)
	}
	req, err := http.NewRequestWithContext(ctx, method, b.srv.Base+path, rd)
	if err != nil {
		return nil, 0, err
	}
	req.Header.Set("Authorization", "Bearer "+b.srv.Token)
	req.Header.Set("Content-Type", "application/json")
	start := time.Now()
	resp, err := b.client.Do(req)
	if err != nil {
		return nil, 0, err
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	took := time.Since(start)
	if err != nil {
		return nil, 0, err
	}
	if resp.StatusCode != want {
		return nil, 0, fmt.Errorf("%s %s: %d, want %d: %s", method, path, resp.StatusCode, want, out)
	}
	return out, took, nil
}

// pending returns how many deliveries are pending.
func (b *bench) pending(ctx context.Context) (int, error) {
	body, _, err := b.admin(ctx, http.MethodGet, "/admin/api/v1/deliveries?state=pending", http.StatusOK, nil)
	if err != nil {
		return 0, err
	}
	var list struct {
		Meta struct {
			TotalCount int `json:"total_count"`
		} `json:"meta"`
	}
	if err := json.Unmarshal(body, &list); err != nil {
		return 0, fmt.Errorf("GET deliveries: %w", err)
	}
	return list.Meta.TotalCount, nil
}

// wrk runs wrk on core 1 against path for d and returns the requests a
// second; an answer other than 2xx/3xx is an error.
func (b *bench) wrk(ctx context.Context, path string, d time.Duration) (float64, error) {
	r, err := rig.Wrk{Core: 1, Threads: 1, Conns: b.cfg.wrkConns, Duration: d, URL: b.srv.Base + path}.Run(ctx)
	return r.RPS, err
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
