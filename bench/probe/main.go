// Command probe takes the one-off measurements of the benchmark harness
// against a running statusd, each printed as one JSON line on standard
// output (the harness collects them):
//
//	probe ready -url URL -since NS            time from NS (Unix nanoseconds, taken just before
//	                                          statusd was started) to the first 200 of URL
//	probe visible -url BASE -token T -notice ID [-n 5]
//	                                          time from sending an admin write (PATCH of the
//	                                          notice's subject) to the public API showing it
//	probe after-write -url BASE -token T -notice ID -path PATH [-n 5]
//	                                          time of the first request of PATH after a write
//	                                          has been acknowledged, and of the second
//	probe time -name NAME -url URL [-n 3]    how long one request of URL takes, one at a time
//	probe dates                               the earliest allowed metrics start and today (UTC)
//	probe freeport                            a TCP port free on 127.0.0.1 right now
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/bench/internal/stats"
)

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	var err error
	switch os.Args[1] {
	case "ready":
		err = ready(os.Args[2:])
	case "visible":
		err = visible(os.Args[2:])
	case "after-write":
		err = afterWrite(os.Args[2:])
	case "time":
		err = timeRequests(os.Args[2:])
	case "dates":
		now := time.Now().UTC()
		fmt.Println(statusd.EarliestStart(now).Format(statusd.DateLayout), now.Format(statusd.DateLayout))
	case "freeport":
		var ln net.Listener
		if ln, err = net.Listen("tcp", "127.0.0.1:0"); err == nil {
			fmt.Println(ln.Addr().(*net.TCPAddr).Port)
			ln.Close()
		}
	default:
		usage()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "probe:", err)
		os.Exit(1)
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: probe ready|visible|after-write|time|dates|freeport [flags]")
	os.Exit(2)
}

// client never compresses, so that every body can be searched as is.
var client = &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{DisableCompression: true, MaxIdleConnsPerHost: 4}}

func emit(v map[string]any) {
	v["kind"] = "probe"
	b, _ := json.Marshal(v)
	fmt.Println(string(b))
}

func msOf(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// ready polls url every millisecond until it answers 200.
func ready(args []string) error {
	fs := flag.NewFlagSet("ready", flag.ExitOnError)
	url := fs.String("url", "", "`URL` to poll")
	since := fs.Int64("since", 0, "start, in Unix `nanoseconds`")
	timeout := fs.Duration("timeout", 60*time.Second, "give up after")
	fs.Parse(args)
	start := time.Unix(0, *since)
	polls := 0
	for time.Since(start) < *timeout {
		polls++
		resp, err := client.Get(*url)
		if err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				took := time.Since(start)
				emit(map[string]any{"name": "start_to_first_answer", "ms": msOf(took), "polls": polls})
				fmt.Fprintf(os.Stderr, "first 200 of %s %.0f ms after start\n", *url, msOf(took))
				return nil
			}
		}
		time.Sleep(time.Millisecond)
	}
	return fmt.Errorf("%s did not answer 200 within %s", *url, *timeout)
}

type writer struct {
	base, token string
	notice      int64
}

// patch changes the notice's subject through the admin API and returns
// when the answer has been read.
func (w writer) patch(subject string) error {
	body, _ := json.Marshal(map[string]string{"subject": subject})
	req, _ := http.NewRequest(http.MethodPatch, w.base+"/admin/api/v1/notices/"+strconv.FormatInt(w.notice, 10), bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+w.token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("PATCH notice %d: %d %s", w.notice, resp.StatusCode, b)
	}
	return nil
}

func writerFlags(fs *flag.FlagSet) (*writer, *int) {
	w := &writer{}
	fs.StringVar(&w.base, "url", "", "statusd base `URL`")
	fs.StringVar(&w.token, "token", "", "admin `token`")
	fs.Int64Var(&w.notice, "notice", 0, "`id` of the notice to change")
	n := fs.Int("n", 5, "trials")
	return w, n
}

// visible sends a write and, at the same moment, starts polling the public
// notice until its new subject shows: statusd makes a write visible before
// it acknowledges it, so the public answer may change before the write's
// own answer arrives.
func visible(args []string) error {
	fs := flag.NewFlagSet("visible", flag.ExitOnError)
	w, n := writerFlags(fs)
	readURL := fs.String("read-url", "", "base `URL` of the server to watch for the write (default: -url; another replica to time following)")
	fs.Parse(args)
	if *readURL == "" {
		*readURL = w.base
	}
	public := *readURL + "/api/v1/notices/" + strconv.FormatInt(w.notice, 10)
	var seen, acked []float64
	for trial := range *n {
		subject := fmt.Sprintf("Bench write %d at %d", trial, time.Now().UnixNano())
		want := []byte(`"subject":"` + subject + `"`)
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		found := make(chan time.Duration, 1)
		start := time.Now()
		go func() {
			defer close(found)
			for ctx.Err() == nil {
				req, _ := http.NewRequestWithContext(ctx, http.MethodGet, public, nil)
				resp, err := client.Do(req)
				if err == nil {
					b, _ := io.ReadAll(resp.Body)
					resp.Body.Close()
					if bytes.Contains(b, want) {
						found <- time.Since(start)
						return
					}
				}
				time.Sleep(time.Millisecond)
			}
		}()
		err := w.patch(subject)
		ack := time.Since(start)
		if err != nil {
			cancel()
			return err
		}
		took, ok := <-found
		cancel()
		if !ok {
			return fmt.Errorf("the write did not show in %s within a minute", public)
		}
		seen, acked = append(seen, msOf(took)), append(acked, msOf(ack))
		fmt.Fprintf(os.Stderr, "write %d visible after %.1f ms, acknowledged after %.1f ms\n", trial, msOf(took), msOf(ack))
		time.Sleep(200 * time.Millisecond)
	}
	emit(map[string]any{"name": "write_visible", "ms": stats.Median(seen), "max_ms": slices.Max(seen), "trials_ms": seen,
		"ack_ms": stats.Median(acked), "ack_trials_ms": acked})
	return nil
}

// afterWrite times the first request of path after each acknowledged
// write, on a connection opened before the write, and the request after it.
func afterWrite(args []string) error {
	fs := flag.NewFlagSet("after-write", flag.ExitOnError)
	w, n := writerFlags(fs)
	path := fs.String("path", "", "`path` to request after the write")
	fs.Parse(args)
	get := func() (time.Duration, int, error) {
		start := time.Now()
		resp, err := client.Get(w.base + *path)
		if err != nil {
			return 0, 0, err
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return time.Since(start), resp.StatusCode, nil
	}
	var first, second, writes []float64
	for trial := range *n {
		if _, _, err := get(); err != nil { // opens the connection
			return err
		}
		start := time.Now()
		if err := w.patch(fmt.Sprintf("Bench write %d at %d", trial, time.Now().UnixNano())); err != nil {
			return err
		}
		ack := time.Since(start)
		d1, status, err := get()
		if err != nil {
			return err
		}
		if status != http.StatusOK {
			return fmt.Errorf("%s answered %d", *path, status)
		}
		d2, _, err := get()
		if err != nil {
			return err
		}
		first, second, writes = append(first, msOf(d1)), append(second, msOf(d2)), append(writes, msOf(ack))
		fmt.Fprintf(os.Stderr, "after write %d (acknowledged in %.0f ms): first %s %.2f ms, second %.2f ms\n",
			trial, msOf(ack), strings.SplitN(*path, "?", 2)[0], msOf(d1), msOf(d2))
		time.Sleep(200 * time.Millisecond)
	}
	emit(map[string]any{"name": "first_request_after_write", "ms": stats.Median(first), "max_ms": slices.Max(first),
		"trials_ms": first, "second_ms": stats.Median(second), "write_ack_ms": stats.Median(writes), "path": *path})
	return nil
}

// timeRequests times n requests of a URL, one after the other, each read
// to the end.
func timeRequests(args []string) error {
	fs := flag.NewFlagSet("time", flag.ExitOnError)
	name := fs.String("name", "request", "`name` of the measurement")
	url := fs.String("url", "", "`URL` to request")
	n := fs.Int("n", 3, "requests")
	fs.Parse(args)
	var took []float64
	var size int64
	for range *n {
		start := time.Now()
		resp, err := client.Get(*url)
		if err != nil {
			return err
		}
		size, err = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if err != nil {
			return err
		}
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("%s answered %d", *url, resp.StatusCode)
		}
		took = append(took, msOf(time.Since(start)))
	}
	emit(map[string]any{"name": *name, "ms": stats.Median(took), "max_ms": slices.Max(took), "trials_ms": took, "bytes": size})
	fmt.Fprintf(os.Stderr, "%s: %.0f ms (median of %d), %d bytes\n", *url, stats.Median(took), *n, size)
	return nil
}
