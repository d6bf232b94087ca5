package main

import (
	"bufio"
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" driver, to create and drop the database

	"github.com/statusd/statusd"
)

// withSubscribers reads the import document at page, adds per active
// subscribers of each channel (whole page: every notice reaches them),
// writes it to out, and returns out and the id of a component for the
// triggering writes.
func withSubscribers(page, out string, per int, receiverURL string) (string, int64, error) {
	f, err := os.Open(page)
	if err != nil {
		return "", 0, err
	}
	doc, err := statusd.DecodeDocument(bufio.NewReader(f))
	f.Close()
	if err != nil {
		return "", 0, fmt.Errorf("%s: %w", page, err)
	}
	if len(doc.Components) == 0 {
		return "", 0, fmt.Errorf("%s has no component", page)
	}
	now := time.Now().UTC().Truncate(time.Millisecond)
	doc.Subscribers = make([]statusd.Subscriber, 0, per*len(channels))
	for i := range per * len(channels) {
		ch := channels[i%len(channels)]
		s := statusd.Subscriber{ID: int64(i + 1), Channel: statusd.Channel(ch), State: statusd.SubscriberActive,
			Address: fmt.Sprintf("%s/%s/%d", receiverURL, ch, i), CreatedAt: now, UpdatedAt: now}
		switch s.Channel {
		case statusd.Email:
			s.Address = fmt.Sprintf("reader%d@fanout.test", i)
		case statusd.Webhook:
			s.Secret = statusd.NewWebhookSecret()
		}
		doc.Subscribers = append(doc.Subscribers, s)
	}
	w, err := os.Create(out)
	if err != nil {
		return "", 0, err
	}
	bw := bufio.NewWriter(w)
	if err := statusd.EncodeDocument(bw, doc); err != nil {
		w.Close()
		return "", 0, err
	}
	if err := bw.Flush(); err != nil {
		w.Close()
		return "", 0, err
	}
	return out, doc.Components[0].ID, w.Close()
}

// database is where one series of rounds keeps its data.
type database struct {
	name, url string
	drop      func()
}

// createPostgres creates a database of its own on the server at base and
// returns it, with the function that drops it.
func createPostgres(ctx context.Context, base string) (database, error) {
	admin, err := sql.Open("pgx", base)
	if err != nil {
		return database{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	name := fmt.Sprintf("statusd_fanout_%d", os.Getpid())
	if _, err := admin.ExecContext(ctx, "CREATE DATABASE "+name); err != nil {
		admin.Close()
		return database{}, fmt.Errorf("CREATE DATABASE on %s: %w", base, err)
	}
	drop := func() {
		defer admin.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if _, err := admin.ExecContext(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
			logf("dropping the database %s: %v (drop it by hand)", name, err)
		}
	}
	u, err := url.Parse(base)
	if err != nil {
		drop()
		return database{}, err
	}
	u.Path = "/" + name // the same server and options, the new database
	return database{name: "PostgreSQL", url: u.String(), drop: drop}, nil
}

// machine describes where and on what a run measured.
type machine struct {
	date, cpu, commit, goVersion, wrk, loadBefore, loadAfter string
	nproc                                                    int
}

func describeMachine() machine {
	m := machine{date: time.Now().UTC().Format("2006-01-02 15:04"), goVersion: runtime.Version(),
		loadBefore: loadavg(), cpu: "unknown", commit: "unknown", wrk: "unknown"}
	// The cores of the machine, not those this process is pinned to
	// (runtime.NumCPU).
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for line := range strings.Lines(string(b)) {
			k, v, _ := strings.Cut(line, ":")
			switch strings.TrimSpace(k) {
			case "processor":
				m.nproc++
			case "model name":
				m.cpu = strings.TrimSpace(v)
			}
		}
	}
	if out, err := exec.Command("git", "rev-parse", "--short", "HEAD").Output(); err == nil {
		m.commit = strings.TrimSpace(string(out))
		if st, err := exec.Command("git", "status", "--porcelain").Output(); err == nil && len(st) > 0 {
			m.commit += fmt.Sprintf(" (dirty: %d files changed or untracked)", strings.Count(string(st), "\n"))
		}
	}
	if out, _ := exec.Command("wrk", "-v").CombinedOutput(); len(strings.Fields(string(out))) >= 2 {
		m.wrk = strings.Join(strings.Fields(string(out))[:2], " ")
	}
	return m
}

// loadavg returns the 1, 5 and 15-minute load averages.
func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	return strings.Join(strings.Fields(string(b))[:3], " ")
}
