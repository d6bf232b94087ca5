// Command storm measures the alert storm targets (issue 35) against the
// real statusd binary: an alert storm of 1,000 Alertmanager alerts in 10
// requests sent at once to a source's hook is answered within 1 s in all,
// and the public reads keep at least 0.8 of their throughput meanwhile.
//
// On a page whose components have keys (c1, c2, ...), it makes a pool of
// alertmanager sources through the admin API, then sends storms: 10
// bodies of 100 alerts, each alert naming a component by the label
// statusd_component, so that a storm groups into a handful of drafts
// (-groups); and, after each, its recovery, the same alerts resolved.
// Every firing storm has new fingerprints: 1,000 new signals. It times
// each storm from the first send to the last answer, checks every answer
// (202, with every alert of the body summarised), measures the read
// throughput of /api/v1/status with wrk without storms and with storm
// pairs sent back to back meanwhile, and reads statusd's CPU time and,
// at the end, the signals and drafts the admin API lists. It runs on
// SQLite and, when -postgres is given and reachable, on PostgreSQL (a
// database of its own, dropped at the end), and writes a Markdown report.
//
//	storm -statusd bin/statusd -page page.json -work DIR [-postgres URL] -o bench/storm-results.md
//
// bench/storm.sh builds everything, pins the processes and runs it:
// statusd on core 0 with GOMAXPROCS=1, this program and wrk on core 1.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/statusd/statusd/bench/internal/rig"
	"github.com/statusd/statusd/internal/signals"
)

// config is what the flags set.
type config struct {
	statusd, page, work, postgres, out string
	command                            string // the command that ran it, for the report
	noSQLite                           bool
	// alerts in requests bodies make a storm; groups is how many groups
	// of components (and so drafts) its alerts fall into.
	alerts, requests, groups int
	// sources is the size of the pool of sources the storm pairs take in
	// turn (the hook's rate limit is per source).
	sources                  int
	quietPairs, rounds       int
	wrkThreads, wrkConns     int
	wrkDur, lead, stormLimit time.Duration
}

// readPath is the public read measured without and during the storms.
const readPath = "/api/v1/status"

func main() {
	var cfg config
	limit := flag.Duration("limit", 15*time.Minute, "the whole run's time limit")
	flag.StringVar(&cfg.statusd, "statusd", "", "the statusd `binary`")
	flag.StringVar(&cfg.page, "page", "", "the import document (bench/gen); its components get keys")
	flag.StringVar(&cfg.work, "work", "", "working `folder` (databases, documents, logs)")
	flag.StringVar(&cfg.postgres, "postgres", "", "PostgreSQL server `URL` (a database of its own is created and dropped); empty: SQLite only")
	flag.BoolVar(&cfg.noSQLite, "no-sqlite", false, "measure PostgreSQL only")
	flag.StringVar(&cfg.command, "command", "", "the `command` that ran this, as the report shows it")
	flag.StringVar(&cfg.out, "o", "bench/storm-results.md", "the report `file`")
	flag.IntVar(&cfg.alerts, "alerts", 1000, "alerts in a storm")
	flag.IntVar(&cfg.requests, "requests", 10, "requests a storm's alerts are sent in, at once")
	flag.IntVar(&cfg.groups, "groups", 5, "groups of components the alerts of a storm name (a draft each)")
	flag.IntVar(&cfg.sources, "sources", 8, "alertmanager sources the storm pairs take in turn")
	flag.IntVar(&cfg.quietPairs, "quiet-pairs", 3, "storm pairs without reads (after one to warm up)")
	flag.IntVar(&cfg.rounds, "rounds", 3, "rounds of reads without storms, then with storms")
	flag.IntVar(&cfg.wrkThreads, "wrk-t", 2, "wrk threads")
	flag.IntVar(&cfg.wrkConns, "wrk-c", 50, "wrk connections")
	flag.DurationVar(&cfg.wrkDur, "wrk-d", 20*time.Second, "one wrk run, without storms or with them")
	flag.DurationVar(&cfg.lead, "lead", 250*time.Millisecond, "how long wrk runs before the first storm of a round")
	flag.DurationVar(&cfg.stormLimit, "storm-limit", time.Minute, "how long one storm may take before its requests are given up")
	flag.Parse()
	if cfg.statusd == "" || cfg.page == "" || cfg.work == "" {
		fmt.Fprintln(os.Stderr, "storm: -statusd, -page and -work are needed (bench/storm.sh gives them)")
		os.Exit(2)
	}
	switch {
	case cfg.requests < 1 || cfg.alerts < cfg.requests || cfg.alerts%cfg.requests != 0 || cfg.alerts/cfg.requests > signals.MaxAlerts:
		fmt.Fprintf(os.Stderr, "storm: -alerts must be a multiple of -requests, at most %d a request\n", signals.MaxAlerts)
	case cfg.groups < 1 || cfg.sources < 1 || cfg.quietPairs < 0 || cfg.rounds < 1 || cfg.wrkThreads < 1 || cfg.wrkConns < cfg.wrkThreads:
		fmt.Fprintln(os.Stderr, "storm: -groups, -sources, -rounds and -wrk-t must be at least 1, -quiet-pairs at least 0, -wrk-c at least -wrk-t")
	case cfg.wrkDur < 2*time.Second || cfg.wrkDur%time.Second != 0 || cfg.lead < 0 || cfg.lead >= cfg.wrkDur/2:
		fmt.Fprintln(os.Stderr, "storm: -wrk-d must be whole seconds, at least 2s, and -lead under half of it")
	default:
		rig.Main("storm", *limit, func(ctx context.Context) error { return run(ctx, cfg) })
		return
	}
	os.Exit(2)
}

// run keys the page's components, measures each database in turn (what
// one measured is reported even when it stopped early) and writes the
// report.
func run(ctx context.Context, cfg config) error {
	groups, err := withKeys(cfg.page, filepath.Join(cfg.work, "storm.json"), cfg.groups)
	if err != nil {
		return err
	}
	rep := report{cfg: cfg, machine: rig.DescribeMachine(), groups: groups}
	var dbs []rig.Database
	if !cfg.noSQLite {
		dbs = append(dbs, rig.SQLite(filepath.Join(cfg.work, "storm.db")))
	}
	if cfg.postgres != "" {
		pg, err := rig.CreatePostgres(ctx, cfg.postgres, "statusd_storm")
		if err != nil {
			rep.notes = append(rep.notes, fmt.Sprintf("PostgreSQL not measured: %v", err))
		} else {
			dbs = append(dbs, pg)
		}
	}
	for _, db := range dbs {
		logf("== %s", db.Name)
		b := bench{cfg: cfg, doc: filepath.Join(cfg.work, "storm.json"), groups: groups}
		res, err := b.run(ctx, db)
		res.fired = b.pairs
		db.Drop()
		if err != nil {
			// What was measured before is still reported, with why it stopped.
			logf("%s: %v", db.Name, err)
			rep.notes = append(rep.notes, fmt.Sprintf("%s stopped after %d storms and %d of %d rounds: %v",
				db.Name, len(res.storms), len(res.rounds), cfg.rounds, err))
		}
		if len(res.storms) > 0 {
			rep.dbs = append(rep.dbs, res)
		}
		if ctx.Err() != nil {
			break
		}
	}
	if len(rep.dbs) == 0 {
		return fmt.Errorf("nothing measured: %s", strings.Join(rep.notes, "; "))
	}
	rep.machine.LoadAfter = rig.Loadavg()
	return rep.write(cfg.out)
}

// logf writes a line of progress to standard error, after the time.
func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "%s "+format+"\n", append([]any{time.Now().UTC().Format("15:04:05")}, args...)...)
}
