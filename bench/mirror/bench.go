package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/bench/internal/rig"
	"github.com/statusd/statusd/internal/mirror"
)

// bench runs the measurements against one statusd.
type bench struct {
	cfg config
	srv *rig.Server
	dir string // the mirror's folder
	// last is the newest manifest seen, lastMod its modification time.
	last    *mirror.Manifest
	lastMod time.Time
	// component is the past notice's first component, which the new
	// notices list.
	component int64
	writes    int // writes made so far, to name them
}

// push is what statusd's log line "mirror: pushed" says of a push (its
// JSON log: took in nanoseconds); At is when the line was written, as
// the push ended.
type push struct {
	Msg          string        `json:"msg"`
	At           time.Time     `json:"time"`
	Sequence     int64         `json:"sequence"`
	FilesPut     int           `json:"files_put"`
	BytesPut     int64         `json:"bytes_put"`
	FilesDeleted int           `json:"files_deleted"`
	Took         time.Duration `json:"took"`
}

// span is when the push was under way.
func (p push) span() rig.Span { return rig.Span{Start: p.At.Add(-p.Took), End: p.At} }

// The kinds of change.
const (
	kindUpdate  = "update"  // an update posted to a past incident
	kindNew     = "new"     // a new incident, investigating
	kindResolve = "resolve" // that incident resolved
	kindEdit    = "edit"    // the past incident's subject edited (the pushes under reads)
)

// change is one write and the push that followed it.
type change struct {
	kind string
	push push
	// targets is how many targets mirror.json added, removed or gave new
	// bytes, against the manifest before; shapes counts them by shape.
	targets int
	shapes  map[string]int
	ackSec  float64 // the write, from sending it to its answer read
	// wallSec runs from sending the write to mirror.json's writing.
	wallSec float64
	// cpu is statusd's CPU seconds from sending the write until it was
	// idle again after the manifest (the write, the new snapshot, the
	// rendering, the puts and deletes).
	cpu float64
}

// result is what a run measured.
type result struct {
	loadBefore, loadAfter string
	importSec             float64
	first                 push
	// firstWallSec runs from serve's start to the first mirror.json;
	// firstCPU is statusd's CPU seconds by then (its start and snapshot
	// included); files the targets that mirror.json names.
	firstWallSec, firstCPU float64
	files                  int
	// rssFirst is statusd's resident memory just after the first
	// manifest, rssIdle once it was idle again, peak its VmHWM at the end.
	rssFirst, rssIdle, peak int64
	changes                 []change
	quiet                   rig.Quiet
	// quietCPU[i] is statusd's share of its core during quiet[i].
	quietCPU []float64
	rounds   []round
}

// round is one round's window: wrk, and meanwhile pushes back to back.
type round struct {
	reads rig.Result
	// changes are the edits made during wrk's run, with their pushes;
	// pushes the pushes that ran at least partly during it.
	changes []change
	pushes  []push
	// coverage is the share of wrk's run during which a push was under
	// way.
	coverage    float64
	cpu, window float64 // statusd's CPU seconds during wrk's run, and its seconds
	load        string
}

// run serves the page with the mirror and measures. What was measured
// before an error is returned with it.
func (b *bench) run(ctx context.Context) (result, error) {
	res := result{loadBefore: rig.Loadavg()}
	db := rig.SQLite(filepath.Join(b.cfg.work, "mirror.db"))
	defer db.Drop()
	if b.cfg.mirrorIn == "" {
		b.dir = filepath.Join(b.cfg.work, "mirror")
		if err := os.RemoveAll(b.dir); err != nil {
			return res, err
		}
		if err := os.MkdirAll(b.dir, 0o755); err != nil {
			return res, err
		}
	} else {
		dir, err := os.MkdirTemp(b.cfg.mirrorIn, "statusd-mirror-")
		if err != nil {
			return res, err
		}
		defer os.RemoveAll(dir) // not in the working folder: not kept
		b.dir = dir
	}
	srv, err := rig.Start(ctx, b.cfg.statusd, b.cfg.work, db, b.cfg.page, "mirror", readPath,
		"--rate-limit", "0", "--max-conns-per-client", "0", "--log-format", "json",
		"--mirror", "file://"+b.dir, "--mirror-heartbeat", heartbeat)
	if err != nil {
		return res, err
	}
	defer srv.Stop()
	b.srv = srv
	res.importSec = srv.ImportSec
	logf("imported in %.1f s; statusd serving at %s (PID %d); waiting for the first push", res.importSec, srv.Base, srv.PID)

	m, at, err := b.next(ctx, func(_, _ *mirror.Manifest) bool { return true })
	if err != nil {
		return res, fmt.Errorf("the first push: %w", err)
	}
	res.firstCPU = rig.CPUSeconds(srv.PID)
	res.rssFirst, _ = rig.Memory(srv.PID)
	res.firstWallSec, res.files = at.Sub(srv.Started).Seconds(), len(m.Files)
	if res.first, err = b.pushOf(m.Sequence); err != nil {
		return res, err
	}
	logf("first push: sequence %d, %d files put, %.1f MB, took %v; mirror.json %.1f s after start, %d files; statusd %.1f CPU s, RSS %d MB",
		res.first.Sequence, res.first.FilesPut, mb(res.first.BytesPut), res.first.Took.Round(time.Millisecond),
		res.firstWallSec, res.files, res.firstCPU, res.rssFirst>>20)
	srv.Settle()
	res.rssIdle, _ = rig.Memory(srv.PID)

	if err := b.findComponent(ctx); err != nil {
		return res, err
	}
	for range b.cfg.changes {
		cs, err := b.series(ctx)
		res.changes = append(res.changes, cs...)
		if err != nil {
			return res, err
		}
	}

	if _, err := b.wrk(time.Second).Run(ctx); err != nil { // warm up
		return res, err
	}
	for r := 1; r <= b.cfg.rounds+1; r++ {
		srv.Settle()
		cpu0, start := rig.CPUSeconds(srv.PID), time.Now()
		q, err := b.wrk(b.cfg.wrkDur).Run(ctx)
		if err != nil {
			return res, err
		}
		share := (rig.CPUSeconds(srv.PID) - cpu0) / time.Since(start).Seconds()
		res.quiet, res.quietCPU = append(res.quiet, q), append(res.quietCPU, share)
		logf("  reads, mirror idle    %8.0f req/s (avg %v, max %v); statusd %.0f%% of its core", q.RPS, q.LatencyAvg, q.LatencyMax, 100*share)
		if r > b.cfg.rounds {
			break
		}
		rr, err := b.window(ctx, r)
		res.rounds = append(res.rounds, rr)
		if err != nil {
			return res, fmt.Errorf("round %d: %w", r, err)
		}
	}
	_, res.peak = rig.Memory(srv.PID)
	res.loadAfter = rig.Loadavg()
	return res, nil
}

// series makes, without reads, one change of each kind that the report
// judges, each once statusd is idle: an update posted to the past
// incident, a new incident, and its resolution.
func (b *bench) series(ctx context.Context) ([]change, error) {
	var out []change
	n := b.cfg.notice
	var created int64
	steps := []struct {
		kind  string
		write func() error
		// target is the notice whose detail must change (or appear).
		target func() int64
	}{
		{kindUpdate, func() error {
			_, err := b.srv.Admin(ctx, http.MethodPost, fmt.Sprintf("/admin/api/v1/notices/%d/updates", n), http.StatusCreated,
				map[string]any{"content": fmt.Sprintf("A note added later (benchmark write %d).", b.writes), "notify": false})
			return err
		}, func() int64 { return n }},
		{kindNew, func() error {
			body, err := b.srv.Admin(ctx, http.MethodPost, "/admin/api/v1/notices", http.StatusCreated, map[string]any{
				"type": "unplanned", "subject": fmt.Sprintf("Mirror benchmark incident (write %d)", b.writes),
				"state": "investigating", "content": "Measuring the mirror.", "component_ids": []int64{b.component}, "notify": false})
			if err != nil {
				return err
			}
			var a statusd.AdminNotice
			if err := json.Unmarshal(body, &a); err != nil || a.ID == 0 {
				return fmt.Errorf("POST notice answered %.300s", body)
			}
			created = a.ID
			return nil
		}, func() int64 { return created }},
		{kindResolve, func() error {
			_, err := b.srv.Admin(ctx, http.MethodPost, fmt.Sprintf("/admin/api/v1/notices/%d/updates", created), http.StatusCreated,
				map[string]any{"state": "resolved", "content": "Resolved.", "notify": false})
			return err
		}, func() int64 { return created }},
	}
	for _, s := range steps {
		b.srv.Settle()
		cpu0 := rig.CPUSeconds(b.srv.PID)
		c, err := b.change(ctx, s.kind, s.write, s.target)
		if err != nil {
			return out, fmt.Errorf("%s: %w", s.kind, err)
		}
		b.srv.Settle()
		c.cpu = rig.CPUSeconds(b.srv.PID) - cpu0
		out = append(out, c)
		logf("  %-7s %5d targets changed, %5d files put (%.2f MB), %d deleted; push took %6.2f s, write to mirror.json %6.2f s; statusd %.2f CPU s",
			c.kind, c.targets, c.push.FilesPut, mb(c.push.BytesPut), c.push.FilesDeleted, c.push.Took.Seconds(), c.wallSec, c.cpu)
	}
	return out, nil
}

// change sends a write, waits for the manifest in which notice
// target()'s detail changed or appeared, and returns what the push did.
func (b *bench) change(ctx context.Context, kind string, write func() error, target func() int64) (change, error) {
	c := change{kind: kind}
	b.writes++
	sent := time.Now()
	if err := write(); err != nil {
		return c, err
	}
	c.ackSec = time.Since(sent).Seconds()
	detail := "/api/v1/notices/" + strconv.FormatInt(target(), 10)
	m, at, err := b.next(ctx, func(prev, m *mirror.Manifest) bool {
		return prev == nil || prev.Files[detail].SHA256 != m.Files[detail].SHA256
	})
	if err != nil {
		return c, err
	}
	c.wallSec = at.Sub(sent).Seconds()
	c.targets, c.shapes = len(m.changed), shapes(m.changed)
	c.push, err = b.pushOf(m.Sequence)
	return c, err
}

// manifest is a mirror.json seen, and the targets it changed against
// the one seen before it.
type manifest struct {
	*mirror.Manifest
	changed []string
}

// next waits (up to -push-limit) for a mirror.json newer than the last
// one seen for which ok(the last one seen, it) holds, and returns it and
// when it was written; manifests seen meanwhile become the last seen.
func (b *bench) next(ctx context.Context, ok func(prev, m *mirror.Manifest) bool) (manifest, time.Time, error) {
	deadline := time.Now().Add(b.cfg.pushLimit)
	path := filepath.Join(b.dir, mirror.ManifestKey)
	for {
		// The manifest (megabytes at 10,000 notices) is read only when it
		// changed: this program shares wrk's core.
		var m *mirror.Manifest
		st, err := os.Stat(path)
		mod := time.Time{}
		if err == nil {
			mod = st.ModTime()
			if !mod.Equal(b.lastMod) {
				if m, mod, err = readManifest(path); err == nil {
					b.lastMod = mod
				}
			}
		}
		switch {
		case errors.Is(err, os.ErrNotExist):
		case err != nil:
			return manifest{}, mod, err
		case m != nil && (b.last == nil || m.Sequence > b.last.Sequence):
			prev := b.last
			b.last = m
			if ok(prev, m) {
				return manifest{m, changed(prev, m)}, mod, nil
			}
		}
		if time.Now().After(deadline) {
			return manifest{}, time.Time{}, fmt.Errorf("no new mirror.json in %v (statusd's log: %s)", b.cfg.pushLimit, b.srv.Log)
		}
		select {
		case <-ctx.Done():
			return manifest{}, time.Time{}, ctx.Err()
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// readManifest reads the manifest at path and when it was written (from
// the same open file: the mirror replaces it by a rename).
func readManifest(path string) (*mirror.Manifest, time.Time, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, time.Time{}, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, time.Time{}, err
	}
	body, err := io.ReadAll(f)
	if err != nil {
		return nil, time.Time{}, err
	}
	m, err := mirror.ParseManifest(body)
	return m, st.ModTime(), err
}

// changed returns the targets that m adds, removes or gives other bytes
// than prev (all of them when there is no prev).
func changed(prev, m *mirror.Manifest) []string {
	if prev == nil {
		prev = &mirror.Manifest{}
	}
	var out []string
	for t, f := range m.Files {
		if p, ok := prev.Files[t]; !ok || p.SHA256 != f.SHA256 {
			out = append(out, t)
		}
	}
	for t := range prev.Files {
		if _, ok := m.Files[t]; !ok {
			out = append(out, t)
		}
	}
	return out
}

// number is an id or a page number in a target (not the API's version).
var number = regexp.MustCompile(`([/=])[0-9]+`)

// shapes counts targets by shape: the target with each number written
// N (/notices/N, /api/v1/notices?page=N), its brackets decoded.
func shapes(targets []string) map[string]int {
	out := map[string]int{}
	for _, t := range targets {
		t = strings.NewReplacer("%5B", "[", "%5D", "]").Replace(t)
		out[number.ReplaceAllString(t, "${1}N")]++
	}
	return out
}

// pushOf returns the log line of the push that wrote sequence, waiting
// up to 10 s for it (statusd logs it just after the manifest).
func (b *bench) pushOf(sequence int64) (push, error) {
	for range 200 {
		pushes, err := readPushes(b.srv.Log)
		if err != nil {
			return push{}, err
		}
		for _, p := range pushes {
			if p.Sequence == sequence {
				return p, nil
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	return push{}, fmt.Errorf("no \"mirror: pushed\" line of sequence %d in %s", sequence, b.srv.Log)
}

// readPushes reads the "mirror: pushed" lines of the JSON log at path.
func readPushes(path string) ([]push, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return parsePushes(f)
}

// parsePushes reads the "mirror: pushed" lines of a JSON log; other
// lines, JSON or not, are skipped.
func parsePushes(r io.Reader) ([]push, error) {
	var out []push
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		if !bytes.Contains(sc.Bytes(), []byte(`"mirror: pushed"`)) {
			continue
		}
		var p push
		if json.Unmarshal(sc.Bytes(), &p) == nil && p.Msg == "mirror: pushed" {
			out = append(out, p)
		}
	}
	return out, sc.Err()
}

// findComponent reads the past notice's components, the first of which
// the new notices list.
func (b *bench) findComponent(ctx context.Context) error {
	body, err := b.srv.Admin(ctx, http.MethodGet, fmt.Sprintf("/admin/api/v1/notices/%d", b.cfg.notice), http.StatusOK, nil)
	if err != nil {
		return err
	}
	var a statusd.AdminNotice
	if err := json.Unmarshal(body, &a); err != nil {
		return err
	}
	if !strings.HasPrefix(a.TimelineState, "past") || len(a.ComponentIDs) == 0 {
		return fmt.Errorf("notice %d is %q with %d components: -notice must be a past notice listing a component",
			b.cfg.notice, a.TimelineState, len(a.ComponentIDs))
	}
	b.component = a.ComponentIDs[0]
	return nil
}

// window runs wrk on the read path for -wrk-d and, meanwhile, edits the
// past notice's subject whenever the previous edit's manifest was
// written, until wrk's end: each edit makes a push of the whole copy,
// back to back but for the mirror's wait for its next tick (up to a
// second). It returns once the last edit's manifest was written.
func (b *bench) window(ctx context.Context, r int) (round, error) {
	rr := round{load: rig.Loadavg()}
	w, err := b.srv.RunBeside(ctx, b.wrk(b.cfg.wrkDur), b.cfg.lead, func() error {
		c, err := b.change(ctx, kindEdit, func() error {
			_, err := b.srv.Admin(ctx, http.MethodPatch, "/admin/api/v1/notices/"+strconv.FormatInt(b.cfg.notice, 10), http.StatusOK,
				map[string]any{"subject": fmt.Sprintf("Elevated error rates (benchmark write %d)", b.writes)})
			return err
		}, func() int64 { return b.cfg.notice })
		if err == nil {
			rr.changes = append(rr.changes, c)
		}
		return err
	})
	start := w.Start
	rr.window, rr.cpu, rr.reads = w.End.Sub(start).Seconds(), w.CPU, w.Reads
	pushes, perr := readPushes(b.srv.Log)
	if err == nil {
		err = perr
	}
	var spans []rig.Span
	for _, p := range pushes {
		if s := p.span(); s.Within(start, w.End) > 0 {
			rr.pushes = append(rr.pushes, p)
			spans = append(spans, s)
		}
	}
	rr.coverage = rig.Coverage(spans, start, w.End)
	logf("round %d: %d pushes during reads, %.0f%% of the window; reads %.0f req/s (avg %v, max %v, %d socket errors); statusd %.1f CPU s",
		r, len(rr.pushes), 100*rr.coverage, rr.reads.RPS, rr.reads.LatencyAvg, rr.reads.LatencyMax, rr.reads.SocketErrors, rr.cpu)
	return rr, err
}

// wrk is a wrk run of d on the read path, on core 1.
func (b *bench) wrk(d time.Duration) rig.Wrk {
	return rig.Wrk{Core: 1, Threads: b.cfg.wrkThreads, Conns: b.cfg.wrkConns, Duration: d, URL: b.srv.Base + readPath}
}

// mb is n bytes in megabytes (2^20).
func mb(n int64) float64 { return float64(n) / (1 << 20) }
