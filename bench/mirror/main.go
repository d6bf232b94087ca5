// Command mirror measures statusd's mirror (CONTRACT C10) against the
// real statusd binary on a large page: the first full push of the copy to
// a folder (file:///), the push after a one-notice change (an update
// posted to a past incident), after a new notice and after its
// resolution, and the public reads' throughput while pushes run back to
// back, against the same reads while the mirror is idle.
//
// It imports the page into SQLite, creates a token, serves it with
// --mirror file:///WORK/mirror and a heartbeat of an hour (so the mirror
// pushes only after a change), and reads what each push did from
// statusd's log line "mirror: pushed" (JSON), when it ended from
// mirror.json's modification time, and statusd's CPU time and memory
// from /proc. It writes a Markdown report.
//
//	mirror -statusd bin/statusd -page page.json -notice 14 -work DIR -o bench/mirror-results.md
//
// bench/mirror.sh builds everything, pins the processes and runs it:
// statusd on core 0 with GOMAXPROCS=1, this program and wrk on core 1.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/statusd/statusd/bench/internal/rig"
)

// config is what the flags set.
type config struct {
	statusd, page, work, out string
	command                  string // the command that ran it, for the report
	// mirrorIn, when set, is where the mirror's folder is made (and
	// removed at the end) instead of the working folder.
	mirrorIn string
	notices  int // the page's notices, for the report
	// notice is a past incident of the page: the one-notice change posts
	// an update to it, and the pushes during the reads edit its subject.
	notice               int64
	changes, rounds      int
	wrkThreads, wrkConns int
	wrkDur, lead         time.Duration
	// pushLimit is how long a change may wait for its manifest.
	pushLimit time.Duration
}

// readPath is the public read measured without and during the pushes.
const readPath = "/api/v1/status"

// heartbeat is serve's --mirror-heartbeat: long enough that no heartbeat
// push lands in a measurement, so that the mirror is idle unless a change
// was made.
const heartbeat = "1h"

func main() {
	var cfg config
	limit := flag.Duration("limit", 25*time.Minute, "the whole run's time limit")
	flag.StringVar(&cfg.statusd, "statusd", "", "the statusd `binary`")
	flag.StringVar(&cfg.page, "page", "", "the import document (bench/gen)")
	flag.IntVar(&cfg.notices, "notices", 0, "the page's `number` of notices, for the report")
	flag.Int64Var(&cfg.notice, "notice", 0, "a past incident of the page (bench/gen's WRITE_NOTICE_ID)")
	flag.StringVar(&cfg.work, "work", "", "working `folder` (database, mirror, logs)")
	flag.StringVar(&cfg.mirrorIn, "mirror-in", "", "make the mirror's folder in `folder` (such as a tmpfs), and remove it at the end, instead of in -work")
	flag.StringVar(&cfg.command, "command", "", "the `command` that ran this, as the report shows it")
	flag.StringVar(&cfg.out, "o", "bench/mirror-results.md", "the report `file`")
	flag.IntVar(&cfg.changes, "changes", 2, "series of changes without reads (an update to a past notice, a new notice, its resolution)")
	flag.IntVar(&cfg.rounds, "rounds", 3, "rounds of reads with the mirror idle, then with pushes back to back")
	flag.IntVar(&cfg.wrkThreads, "wrk-t", 2, "wrk threads")
	flag.IntVar(&cfg.wrkConns, "wrk-c", 50, "wrk connections")
	flag.DurationVar(&cfg.wrkDur, "wrk-d", 30*time.Second, "one wrk run, with the mirror idle or pushing")
	flag.DurationVar(&cfg.lead, "lead", 250*time.Millisecond, "how long wrk runs before the first change of a round")
	flag.DurationVar(&cfg.pushLimit, "push-limit", 5*time.Minute, "how long a change may wait for its manifest")
	flag.Parse()
	switch {
	case cfg.statusd == "" || cfg.page == "" || cfg.work == "" || cfg.notice == 0:
		fmt.Fprintln(os.Stderr, "mirror: -statusd, -page, -notice and -work are needed (bench/mirror.sh gives them)")
	case cfg.changes < 1 || cfg.rounds < 1 || cfg.wrkThreads < 1 || cfg.wrkConns < cfg.wrkThreads:
		fmt.Fprintln(os.Stderr, "mirror: -changes, -rounds and -wrk-t must be at least 1, -wrk-c at least -wrk-t")
	case cfg.wrkDur < 2*time.Second || cfg.wrkDur%time.Second != 0 || cfg.lead < 0 || cfg.lead >= cfg.wrkDur/2:
		fmt.Fprintln(os.Stderr, "mirror: -wrk-d must be whole seconds, at least 2s, and -lead under half of it")
	default:
		rig.Main("mirror", *limit, func(ctx context.Context) error { return run(ctx, cfg) })
		return
	}
	os.Exit(2)
}

// run measures, and writes the report of what was measured even when the
// run stopped early (with why).
func run(ctx context.Context, cfg config) error {
	rep := report{cfg: cfg, machine: rig.DescribeMachine()}
	b := bench{cfg: cfg}
	res, err := b.run(ctx)
	rep.res = res
	if err != nil {
		logf("%v", err)
		rep.notes = append(rep.notes, fmt.Sprintf("the run stopped early: %v", err))
		if res.first.Sequence == 0 {
			return err // nothing to report
		}
	}
	rep.machine.LoadAfter = rig.Loadavg()
	if werr := rep.write(cfg.out); werr != nil {
		return werr
	}
	return err
}

// logf writes a line of progress to standard error, after the time.
func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "%s "+format+"\n", append([]any{time.Now().UTC().Format("15:04:05")}, args...)...)
}
