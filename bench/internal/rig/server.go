package rig

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"time"
)

// Server is a statusd that a bench program measures: its page imported
// into a database of the run's own, an admin token made, served alone on
// core 0, its log in the working folder.
type Server struct {
	Base      string // http://127.0.0.1:port
	PID       int
	Token     string
	ImportSec float64 // the import's time
	// Started is when serve was started (just before exec); Log is the
	// file its standard output and error go to.
	Started time.Time
	Log     string
	cmd     *exec.Cmd
	stop    context.CancelFunc
	client  *http.Client // Admin's
}

// Start imports the document doc into db with the statusd binary bin,
// makes a token named name, serves db with serve's extra flags, and waits
// up to 90 s until ready (a public path) answers 200. statusd runs on
// core 0 with GOMAXPROCS=1, the load on core 1: the README's benchmark
// figures are those of a one-core statusd, which the load cannot take
// from it. Stop stops it.
func Start(ctx context.Context, bin, work string, db Database, doc, name, ready string, flags ...string) (*Server, error) {
	s := &Server{}
	start := time.Now()
	if _, err := command(ctx, bin, "import", "--db", db.URL, doc); err != nil {
		return nil, err
	}
	s.ImportSec = time.Since(start).Seconds()
	token, err := command(ctx, bin, "token", "create", "--db", db.URL, "--name", name)
	if err != nil {
		return nil, err
	}
	s.Token = strings.TrimSpace(token)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	addr := l.Addr().String()
	l.Close()
	s.Log = filepath.Join(work, "statusd-"+strings.ToLower(db.Name)+".log")
	logFile, err := os.Create(s.Log)
	if err != nil {
		return nil, err
	}
	defer logFile.Close()
	srvCtx, stop := context.WithCancel(ctx)
	args := append([]string{"-c", "0", bin, "serve", "--db", db.URL, "--addr", addr}, flags...)
	s.cmd = exec.CommandContext(srvCtx, "taskset", args...)
	s.cmd.Env = append(os.Environ(), "GOMAXPROCS=1") // one core, as above
	s.cmd.Stdout, s.cmd.Stderr = logFile, logFile
	s.cmd.Cancel = func() error { return s.cmd.Process.Signal(os.Interrupt) }
	s.cmd.WaitDelay = 5 * time.Second
	s.Started = time.Now()
	if err := s.cmd.Start(); err != nil {
		stop()
		return nil, err
	}
	s.stop = stop
	s.client = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4}}
	s.Base, s.PID = "http://"+addr, s.cmd.Process.Pid // taskset execs statusd: the same process
	if err := s.ready(ctx, ready, work); err != nil {
		s.Stop()
		return nil, err
	}
	return s, nil
}

// command runs a statusd command and returns its standard output.
func command(ctx context.Context, bin string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Minute)
	defer cancel()
	var stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("statusd %s: %v\n%s", args[0], err, stderr.Bytes())
	}
	return string(out), nil
}

// ready waits up to 90 s for the first 200 on path.
func (s *Server) ready(ctx context.Context, path, work string) error {
	deadline := time.Now().Add(90 * time.Second)
	for time.Now().Before(deadline) && ctx.Err() == nil {
		if resp, err := http.Get(s.Base + path); err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	return fmt.Errorf("statusd did not answer 200 within 90 s (its log is in %s)", work)
}

// Admin sends a request to the admin API with the server's token (body,
// when not nil, as JSON), on a connection kept open between requests, and
// returns the answer's body; an answer other than want is an error. It
// gives the request a minute.
func (s *Server) Admin(ctx context.Context, method, path string, want int, body any) ([]byte, error) {
	var rd io.Reader
	if body != nil {
		j, err := json.Marshal(body)
		if err != nil {
			return nil, err
		}
		rd = bytes.NewReader(j)
	}
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, s.Base+path, rd)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+s.Token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := s.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != want {
		return nil, fmt.Errorf("%s %s: %d, want %d: %.300s", method, path, resp.StatusCode, want, out)
	}
	return out, nil
}

// Stop stops statusd (SIGINT, then SIGKILL after 5 s) and waits for it.
func (s *Server) Stop() {
	s.stop()
	s.cmd.Wait()
}

// Settle waits (up to 10 s) until statusd stops using the processor, so
// that work left from one measurement does not land in the next.
func (s *Server) Settle() {
	for range 50 {
		a := CPUSeconds(s.PID)
		time.Sleep(200 * time.Millisecond)
		if CPUSeconds(s.PID)-a <= 0.01 {
			return
		}
	}
}

// Main runs a bench program's run until it returns, Ctrl-C or the
// script's timeout (timeout -s INT) cancels it, or
// limit passes (run, cancelled, stops statusd by its PID: Server.Stop).
// A failure is printed after the program's name and exits 1.
func Main(name string, limit time.Duration, run func(ctx context.Context) error) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	if err := run(ctx); err != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			err = fmt.Errorf("time limit of %s reached: %w", limit, err)
		}
		fmt.Fprintln(os.Stderr, name+":", err)
		stop()
		cancel()
		os.Exit(1)
	}
}
