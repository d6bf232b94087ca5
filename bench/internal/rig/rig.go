// Package rig holds what the bench programs that drive a real statusd
// share: the description of the machine a run measured on, statusd's CPU
// time and memory from /proc, a PostgreSQL database of a run's own, wrk,
// and the judgement of read rounds with and without a load.
// bench/fanout, bench/storm and bench/mirror use it.
package rig

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" driver, to create and drop the database
)

// Machine describes where and on what a run measured.
type Machine struct {
	Date, CPU, Commit, GoVersion, Wrk, LoadBefore, LoadAfter string
	// NProc is the number of cores of the machine, not of those this
	// process is pinned to (runtime.NumCPU).
	NProc int
}

// DescribeMachine describes this machine now: the date, the cores and
// their model, the commit of the work tree (and whether it was dirty),
// Go's and wrk's versions and the load average (LoadAfter is left for the
// caller, at the end).
func DescribeMachine() Machine {
	m := Machine{Date: time.Now().UTC().Format("2006-01-02 15:04"), GoVersion: runtime.Version(),
		LoadBefore: Loadavg(), CPU: "unknown", Commit: "unknown", Wrk: "unknown"}
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for line := range strings.Lines(string(b)) {
			k, v, _ := strings.Cut(line, ":")
			switch strings.TrimSpace(k) {
			case "processor":
				m.NProc++
			case "model name":
				m.CPU = strings.TrimSpace(v)
			}
		}
	}
	if out, err := exec.Command("git", "rev-parse", "--short", "HEAD").Output(); err == nil {
		m.Commit = strings.TrimSpace(string(out))
		if st, err := exec.Command("git", "status", "--porcelain").Output(); err == nil && len(st) > 0 {
			m.Commit += fmt.Sprintf(" (dirty: %d files changed or untracked)", strings.Count(string(st), "\n"))
		}
	}
	if out, _ := exec.Command("wrk", "-v").CombinedOutput(); len(strings.Fields(string(out))) >= 2 {
		m.Wrk = strings.Join(strings.Fields(string(out))[:2], " ")
	}
	return m
}

// Loadavg returns the 1, 5 and 15-minute load averages.
func Loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	return strings.Join(strings.Fields(string(b))[:3], " ")
}

// clockTicks is the unit of /proc/PID/stat's CPU times (USER_HZ, 100 on
// Linux unless a kernel is built otherwise).
const clockTicks = 100

// CPUSeconds returns the CPU time (user and system) process pid used so
// far, in steps of 10 ms, or 0 when it cannot be read.
func CPUSeconds(pid int) float64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	return statCPU(b)
}

// statCPU is the user and system time of a /proc/PID/stat line, in
// seconds (0 when the line is not one).
func statCPU(b []byte) float64 {
	i := bytes.LastIndexByte(b, ')') // the command may hold spaces and parentheses
	if i < 0 {
		return 0
	}
	f := strings.Fields(string(b[i+1:])) // from field 3 (state) on
	if len(f) < 13 {
		return 0
	}
	utime, _ := strconv.ParseFloat(f[11], 64)
	stime, _ := strconv.ParseFloat(f[12], 64)
	return (utime + stime) / clockTicks
}

// Database is where one series of measurements keeps its data: a name
// for the report, statusd's --db and how to remove it.
type Database struct {
	Name, URL string
	Drop      func()
}

// SQLite is a database in the file path, which is removed (with its
// write-ahead log) first and by Drop.
func SQLite(path string) Database {
	drop := func() {
		for _, suffix := range []string{"", "-wal", "-shm"} {
			os.Remove(path + suffix)
		}
	}
	drop() // a folder used before starts empty too
	return Database{Name: "SQLite", URL: path, Drop: drop}
}

// CreatePostgres creates a database of its own, prefix_<pid>, on the
// PostgreSQL server at base, and returns it; its Drop drops it with
// WITH (FORCE).
func CreatePostgres(ctx context.Context, base, prefix string) (Database, error) {
	admin, err := sql.Open("pgx", base)
	if err != nil {
		return Database{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	name := fmt.Sprintf("%s_%d", prefix, os.Getpid())
	if _, err := admin.ExecContext(ctx, "CREATE DATABASE "+name); err != nil {
		admin.Close()
		return Database{}, fmt.Errorf("CREATE DATABASE on %s: %w", base, err)
	}
	drop := func() {
		defer admin.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if _, err := admin.ExecContext(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
			fmt.Fprintf(os.Stderr, "dropping the database %s: %v (drop it by hand)\n", name, err)
		}
	}
	u, err := url.Parse(base)
	if err != nil {
		drop()
		return Database{}, err
	}
	u.Path = "/" + name // the same server and options, the new database
	return Database{Name: "PostgreSQL", URL: u.String(), Drop: drop}, nil
}

// Wrk is one wrk run: Threads threads and Conns connections for
// Duration (whole seconds) on URL, pinned to core Core.
type Wrk struct {
	Core, Threads, Conns int
	Duration             time.Duration
	URL                  string
}

// Args are the command line of the run.
func (w Wrk) Args() []string {
	return []string{"taskset", "-c", strconv.Itoa(w.Core), "wrk", "-t" + strconv.Itoa(w.Threads), "-c" + strconv.Itoa(w.Conns),
		"-d" + strconv.Itoa(int(w.Duration.Seconds())) + "s", w.URL}
}

// Result is what a wrk run measured.
type Result struct {
	RPS float64
	// LatencyAvg and LatencyMax are wrk's figures of the run (0 when
	// wrk printed none).
	LatencyAvg, LatencyMax time.Duration
	// SocketErrors counts the connect, read, write and timeout errors
	// wrk met (a timeout is a request without an answer in 2 s).
	SocketErrors int
}

// Run runs wrk and returns what it measured; an answer other than
// 2xx/3xx is an error. It gives wrk 30 s more than its duration.
func (w Wrk) Run(ctx context.Context) (Result, error) {
	ctx, cancel := context.WithTimeout(ctx, w.Duration+30*time.Second)
	defer cancel()
	args := w.Args()
	out, err := exec.CommandContext(ctx, args[0], args[1:]...).CombinedOutput()
	if err != nil {
		return Result{}, fmt.Errorf("wrk %s: %v\n%s", w.URL, err, out)
	}
	r, err := ParseWrk(out)
	if err != nil {
		return r, fmt.Errorf("wrk %s: %w", w.URL, err)
	}
	return r, nil
}

var (
	rpsLine     = regexp.MustCompile(`(?m)^Requests/sec:\s+([0-9.]+)`)
	non2xxLine  = regexp.MustCompile(`Non-2xx or 3xx responses: (\d+)`)
	errorsLine  = regexp.MustCompile(`Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)`)
	latencyLine = regexp.MustCompile(`(?m)^\s+Latency\s+(\S+)\s+\S+\s+(\S+)`)
)

// ParseWrk reads wrk's output: an error when some answers were not
// 2xx/3xx or the output has no requests a second.
func ParseWrk(out []byte) (Result, error) {
	var r Result
	if m := non2xxLine.FindSubmatch(out); m != nil {
		return r, fmt.Errorf("%s answers were not 2xx/3xx", m[1])
	}
	if m := errorsLine.FindSubmatch(out); m != nil {
		for _, n := range m[1:] {
			k, _ := strconv.Atoi(string(n))
			r.SocketErrors += k
		}
	}
	if m := latencyLine.FindSubmatch(out); m != nil {
		r.LatencyAvg, r.LatencyMax = wrkDuration(string(m[1])), wrkDuration(string(m[2]))
	}
	m := rpsLine.FindSubmatch(out)
	if m == nil {
		return r, fmt.Errorf("no Requests/sec in\n%s", out)
	}
	var err error
	r.RPS, err = strconv.ParseFloat(string(m[1]), 64)
	return r, err
}

// wrkDuration reads a duration as wrk prints it ("652.43us", "1.04ms",
// "2.00s", "1.50m"), all of which Go's durations read too; 0 when it is
// not one.
func wrkDuration(s string) time.Duration {
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0
	}
	return d
}
