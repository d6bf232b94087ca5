package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// config is one open-loop run.
type config struct {
	Addr     string   // host:port
	Requests [][]byte // whole requests, sent as they are, in turn
	Rate     float64
	Duration time.Duration
	Conns    int
	MaxConns int
	Timeout  time.Duration
}

// growAfter is how late the oldest waiting request must be before more
// connections are opened: scheduling jitter alone should not open any.
const growAfter = 2 * time.Millisecond

// early is how long before its time a request may be released, rather than
// sleeping for less than that.
const early = 10 * time.Microsecond

// state is what the dispatcher and the workers share.
type state struct {
	open  atomic.Int64 // workers started
	busy  atomic.Int64 // workers dialling or in the middle of a request
	taken atomic.Int64 // tickets taken by workers
}

// sample is the outcome of one scheduled request.
type sample struct {
	latency time.Duration // from the intended send time to the end of the answer
	lag     time.Duration // from the intended send time to the actual one
	status  int           // 0: error
	sent    bool          // the request was written
}

// worker owns one connection at a time and records what it sees; only the
// worker's goroutine touches it until the run is over.
type worker struct {
	cfg     *config
	start   time.Time
	mu      sync.Mutex // guards conn against the forced stop of run
	conn    net.Conn
	br      *bufio.Reader
	samples []sample
	errs    map[string]int64
	dials   int
	queued  int64         // requests dropped because they waited longer than the timeout
	last    time.Duration // when the worker's last answer ended
}

// run schedules rate*duration requests, one every 1/rate seconds, and
// returns what happened.
func run(cfg config) (*Result, error) {
	// The connection must be possible at all before anything is measured.
	c, err := net.DialTimeout("tcp", cfg.Addr, cfg.Timeout)
	if err != nil {
		return nil, err
	}
	c.Close()

	total := int64(cfg.Rate * cfg.Duration.Seconds())
	tickets := make(chan time.Duration, min(total, 1<<22))
	start := time.Now().Add(100 * time.Millisecond) // time for the first connections
	var (
		mu      sync.Mutex
		workers []*worker
		wg      sync.WaitGroup
		st      = &state{}
		stopped = make(chan struct{})
	)
	spawn := func(n int) {
		for range n {
			w := &worker{cfg: &cfg, start: start, errs: map[string]int64{}}
			mu.Lock()
			workers = append(workers, w)
			mu.Unlock()
			st.open.Add(1)
			wg.Add(1)
			st.busy.Add(1)
			go func() {
				defer wg.Done()
				w.dial()
				st.busy.Add(-1)
				w.loop(tickets, stopped, st)
			}()
		}
	}
	spawn(cfg.Conns)

	// The schedule: every ticket due (or due within the next few
	// microseconds) is released at once, then the dispatcher sleeps until
	// the next one is due. More connections are opened while tickets wait
	// for one.
	sl := newSleeper()
	defer sl.close()
	var i int64
	at := func(i int64) time.Duration { return time.Duration(float64(i) * float64(time.Second) / cfg.Rate) }
	for i < total {
		el := time.Since(start)
		for ; i < total && at(i) <= el+early; i++ {
			tickets <- at(i)
		}
		// Requests waiting for a connection, the oldest for more than
		// growAfter, while every worker is busy: open more connections.
		if backlog := len(tickets); backlog > 0 && st.open.Load() < int64(cfg.MaxConns) && st.busy.Load() >= st.open.Load() {
			if el-at(st.taken.Load()) > growAfter {
				spawn(min(backlog, cfg.MaxConns-int(st.open.Load()), 16))
			}
		}
		if i < total {
			sl.sleep(at(i) - time.Since(start))
		}
	}
	close(tickets)
	scheduleEnd := time.Since(start)

	// Let the last requests finish, but not for longer than the timeout.
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(cfg.Timeout + time.Second):
		close(stopped)
		mu.Lock()
		for _, w := range workers {
			w.mu.Lock()
			if w.conn != nil {
				w.conn.SetDeadline(time.Now())
			}
			w.mu.Unlock()
		}
		mu.Unlock()
		<-done
	}
	var elapsed time.Duration // until the last answer
	for _, w := range workers {
		elapsed = max(elapsed, w.last)
	}

	res := &Result{Rate: cfg.Rate, DurationSeconds: cfg.Duration.Seconds(), Scheduled: total,
		Conns: cfg.Conns, MaxConns: cfg.MaxConns, Status: map[string]int64{}, Errors: map[string]int64{}}
	var all, ok, okService, shed, lags []time.Duration
	for _, w := range workers {
		res.Dials += w.dials
		res.Queued += w.queued
		for k, v := range w.errs {
			res.Errors[k] += v
			res.ErrorCount += v
		}
		for _, s := range w.samples {
			lags = append(lags, s.lag)
			if s.sent {
				res.Sent++
			}
			if s.status == 0 {
				continue
			}
			res.Completed++
			res.Status[strconv.Itoa(s.status)]++
			all = append(all, s.latency)
			switch {
			case s.status == 503:
				res.Shed++
				shed = append(shed, s.latency)
			case s.status < 400:
				res.Served++
				ok = append(ok, s.latency)
				okService = append(okService, s.latency-s.lag)
			}
		}
	}
	res.ErrorCount += res.Queued
	if res.Queued > 0 {
		res.Errors["queued in the client longer than the timeout"] += res.Queued
	}
	res.ConnsUsed = len(workers)
	// Rates are over the time until the last answer: answers that come
	// after the schedule ended were still asked for during it.
	sec := max(elapsed, scheduleEnd).Seconds()
	res.SentRate = float64(res.Sent) / sec
	res.AchievedRate = float64(res.Completed) / sec
	res.ServedRate = float64(res.Served) / sec
	res.ElapsedSeconds = elapsed.Seconds()
	res.Latency = summarize(all)
	res.LatencyServed = summarize(ok)
	res.ServiceServed = summarize(okService)
	res.LatencyShed = summarize(shed)
	res.SendLag = summarize(lags)
	return res, nil
}

// loop sends the requests of the tickets it takes until there are none.
func (w *worker) loop(tickets <-chan time.Duration, stopped <-chan struct{}, st *state) {
	defer w.setConn(nil)
	for due := range tickets {
		n := st.taken.Add(1) - 1 // the ticket's place in the schedule
		select {
		case <-stopped:
			w.queued++
			continue
		default:
		}
		if time.Since(w.start)-due > w.cfg.Timeout {
			w.queued++
			continue
		}
		st.busy.Add(1)
		w.samples = append(w.samples, w.do(due, w.cfg.Requests[n%int64(len(w.cfg.Requests))]))
		st.busy.Add(-1)
	}
}

// do sends one request, req, due at due (an offset from the start) and
// reads the whole answer.
func (w *worker) do(due time.Duration, req []byte) sample {
	if w.conn == nil {
		// A full timeout for the dial even when the request is already
		// late: a dial cut short would leave the worker without a
		// connection for every later request too.
		if err := w.connect(w.cfg.Timeout); err != nil {
			return w.fail(due, "dial: "+errClass(err))
		}
	}
	// The answer gets a whole timeout from now: a deadline taken from the
	// intended time would fail late requests at once, and close their
	// connections, under exactly the load that made them late. (Requests
	// already a timeout late are not sent at all; see loop.)
	w.conn.SetDeadline(time.Now().Add(w.cfg.Timeout))
	sent := time.Since(w.start)
	if _, err := w.conn.Write(req); err != nil {
		return w.fail(due, "write: "+errClass(err))
	}
	status, closing, err := readResponse(w.br)
	if err != nil {
		s := w.fail(due, "read: "+errClass(err))
		s.sent = true
		return s
	}
	end := time.Since(w.start)
	w.last = end
	if closing {
		w.setConn(nil)
	}
	return sample{latency: end - due, lag: sent - due, status: status, sent: true}
}

// dial opens the worker's first connection ahead of its first request; a
// failure is left for that request to retry and report.
func (w *worker) dial() {
	w.connect(w.cfg.Timeout)
}

func (w *worker) connect(timeout time.Duration) error {
	c, err := net.DialTimeout("tcp", w.cfg.Addr, timeout)
	if err != nil {
		return err
	}
	w.dials++
	w.setConn(c)
	if w.br == nil {
		w.br = bufio.NewReaderSize(c, 64<<10)
	} else {
		w.br.Reset(c)
	}
	return nil
}

func (w *worker) fail(due time.Duration, what string) sample {
	w.errs[what]++
	w.setConn(nil)
	return sample{lag: time.Since(w.start) - due}
}

// setConn closes the worker's connection, if any, and puts c in its place.
func (w *worker) setConn(c net.Conn) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.conn != nil {
		w.conn.Close()
	}
	w.conn = c
}

func errClass(err error) string {
	var ne net.Error
	switch {
	case errors.As(err, &ne) && ne.Timeout():
		return "timeout"
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return "connection closed"
	}
	return err.Error()
}

// readResponse reads one HTTP/1.1 response to a GET and discards its body.
// closing reports that the server closes the connection after it.
func readResponse(br *bufio.Reader) (status int, closing bool, err error) {
	line, err := br.ReadSlice('\n')
	if err != nil {
		return 0, false, err
	}
	if len(line) < 12 || !bytes.HasPrefix(line, []byte("HTTP/1.")) {
		return 0, false, fmt.Errorf("bad status line %q", line)
	}
	status, err = strconv.Atoi(string(line[9:12]))
	if err != nil {
		return 0, false, fmt.Errorf("bad status line %q", line)
	}
	length, chunked := int64(-1), false
	for {
		line, err = br.ReadSlice('\n')
		if err != nil {
			return 0, false, err
		}
		line = bytes.TrimRight(line, "\r\n")
		if len(line) == 0 {
			break
		}
		name, value, found := bytes.Cut(line, []byte(":"))
		if !found {
			continue
		}
		value = bytes.TrimSpace(value)
		switch {
		case bytes.EqualFold(name, []byte("Content-Length")):
			if length, err = strconv.ParseInt(string(value), 10, 64); err != nil {
				return 0, false, fmt.Errorf("bad Content-Length %q", value)
			}
		case bytes.EqualFold(name, []byte("Transfer-Encoding")):
			chunked = bytes.EqualFold(value, []byte("chunked"))
		case bytes.EqualFold(name, []byte("Connection")):
			closing = bytes.EqualFold(value, []byte("close"))
		}
	}
	switch {
	case status == 304 || status == 204 || status < 200:
	case chunked:
		err = discardChunked(br)
	case length >= 0:
		_, err = br.Discard(int(length))
	default: // delimited by the end of the connection
		_, err = io.Copy(io.Discard, br)
		closing = true
	}
	return status, closing, err
}

func discardChunked(br *bufio.Reader) error {
	for {
		line, err := br.ReadSlice('\n')
		if err != nil {
			return err
		}
		sizeText, _, _ := bytes.Cut(bytes.TrimRight(line, "\r\n"), []byte(";"))
		size, err := strconv.ParseInt(string(bytes.TrimSpace(sizeText)), 16, 64)
		if err != nil {
			return fmt.Errorf("bad chunk size %q", line)
		}
		if size == 0 {
			for { // trailers, then the empty line
				line, err := br.ReadSlice('\n')
				if err != nil {
					return err
				}
				if len(bytes.TrimRight(line, "\r\n")) == 0 {
					return nil
				}
			}
		}
		if _, err := br.Discard(int(size) + 2); err != nil {
			return err
		}
	}
}
