// Command fanout measures the fan-out targets against the real
// statusd binary: a page with N active subscribers of each channel (email,
// webhook, Slack, Teams, Discord; whole page), one triggering write per
// round, the time until each channel's N messages arrived at the local
// receivers (an HTTP server and an SMTP server in this program), without
// reads and with wrk reading, and the public read throughput (wrk) without
// and during the fan-out. It runs on
// SQLite and, when -postgres is given and reachable, on PostgreSQL (a
// database of its own, dropped at the end), and writes a Markdown report.
//
//	fanout -statusd bin/statusd -page page.json -work DIR [-postgres URL] -o bench/fanout-results.md
//
// bench/fanout.sh builds everything, pins the processes and runs it: statusd
// on core 0 with GOMAXPROCS=1, this program and wrk on core 1.
package main

import (
	"context"
	"flag"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/statusd/statusd/bench/internal/rig"
)

// config is what the flags set.
type config struct {
	statusd, page, work, postgres, out string
	noSQLite                           bool
	per, idleRounds, rounds, wrkConns  int
	wrkDur, roundLimit                 time.Duration
	smtpRate                           float64
}

// allChannels are the channels a run may give subscribers.
var allChannels = []string{"email", "webhook", "slack", "teams", "discord"}

// channels are the run's subscribers' channels (-channels; default
// allChannels), in the order subscriber ids take them (id i has
// channels[i%len(channels)]): every channel's subscribers are spread over
// the whole outbox.
var channels = allChannels

// readPaths are the public reads measured without and during a fan-out.
var readPaths = []string{"/api/v1/status", "/api/v2/summary.json"}

func main() {
	var cfg config
	limit := flag.Duration("limit", 25*time.Minute, "the whole run's time limit")
	flag.StringVar(&cfg.statusd, "statusd", "", "the statusd `binary`")
	flag.StringVar(&cfg.page, "page", "", "the import document (bench/gen) the subscribers are added to")
	flag.StringVar(&cfg.work, "work", "", "working `folder` (databases, documents, logs)")
	flag.StringVar(&cfg.postgres, "postgres", "", "PostgreSQL server `URL` (a database of its own is created and dropped); empty: SQLite only")
	flag.BoolVar(&cfg.noSQLite, "no-sqlite", false, "measure PostgreSQL only")
	flag.StringVar(&cfg.out, "o", "bench/fanout-results.md", "the report `file`")
	flag.IntVar(&cfg.per, "per", 10000, "active subscribers of each channel")
	flag.IntVar(&cfg.idleRounds, "idle-rounds", 1, "fan-outs per database without reads, first")
	flag.IntVar(&cfg.rounds, "rounds", 3, "fan-outs per database with wrk reading during them")
	flag.IntVar(&cfg.wrkConns, "wrk-c", 32, "wrk connections")
	flag.DurationVar(&cfg.wrkDur, "wrk-d", 2*time.Second, "one wrk run")
	flag.DurationVar(&cfg.roundLimit, "round-limit", 5*time.Minute, "how long one fan-out may take before the run gives up")
	flag.Float64Var(&cfg.smtpRate, "smtp-rate", 250, "statusd's --smtp-rate")
	only := flag.String("channels", strings.Join(allChannels, ","), "the subscribers' `channels`, comma-separated")
	flag.Parse()
	channels = strings.Split(*only, ",")
	for i, ch := range channels {
		if !slices.Contains(allChannels, ch) || slices.Contains(channels[:i], ch) {
			fmt.Fprintf(os.Stderr, "fanout: -channels %q: give each of %s at most once\n", *only, strings.Join(allChannels, ", "))
			os.Exit(2)
		}
	}
	if cfg.statusd == "" || cfg.page == "" || cfg.work == "" {
		fmt.Fprintln(os.Stderr, "fanout: -statusd, -page and -work are needed (bench/fanout.sh gives them)")
		os.Exit(2)
	}
	if cfg.per < 1 || cfg.idleRounds < 0 || cfg.rounds < 0 || cfg.idleRounds+cfg.rounds < 1 || cfg.wrkConns < 1 || cfg.wrkDur < time.Second || cfg.smtpRate <= 0 {
		fmt.Fprintln(os.Stderr, "fanout: -per and -wrk-c must be at least 1, -idle-rounds plus -rounds at least 1, -wrk-d at least 1s, -smtp-rate above 0")
		os.Exit(2)
	}
	rig.Main("fanout", *limit, func(ctx context.Context) error { return run(ctx, cfg) })
}

func run(ctx context.Context, cfg config) error {
	t := newTally(cfg.per)
	var ls [2]net.Listener
	for i := range ls {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return err
		}
		ls[i] = l
	}
	rcv, sink := startReceiver(ls[0], t), startSMTP(ls[1], t)
	defer rcv.close()
	defer sink.close()
	doc, component, err := withSubscribers(cfg.page, filepath.Join(cfg.work, "fanout.json"), cfg.per, rcv.URL)
	if err != nil {
		return err
	}
	rep := report{cfg: cfg, machine: rig.DescribeMachine()}
	var dbs []rig.Database
	if !cfg.noSQLite {
		dbs = append(dbs, rig.SQLite(filepath.Join(cfg.work, "fanout.db")))
	}
	if cfg.postgres != "" {
		pg, err := rig.CreatePostgres(ctx, cfg.postgres, "statusd_fanout")
		if err != nil {
			rep.notes = append(rep.notes, fmt.Sprintf("PostgreSQL not measured: %v", err))
		} else {
			dbs = append(dbs, pg)
		}
	}
	for _, db := range dbs {
		logf("== %s", db.Name)
		b := bench{cfg: cfg, tally: t, smtpAddr: sink.Addr, doc: doc, component: component}
		res, err := b.run(ctx, db)
		db.Drop()
		if err != nil {
			// What was measured before is still reported, with why it stopped.
			logf("%s: %v", db.Name, err)
			rep.notes = append(rep.notes, fmt.Sprintf("%s stopped after %d of %d rounds: %v", db.Name, len(res.rounds), cfg.idleRounds+cfg.rounds, err))
		}
		if len(res.rounds) > 0 {
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

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "%s "+format+"\n", append([]any{time.Now().UTC().Format("15:04:05")}, args...)...)
}
