package main

import (
	"fmt"
	"math"
	"net"
	"net/http"
	"net/smtp"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/statusd/statusd"
)

// TestWithSubscribers: the document with the subscribers added imports
// through statusd's own validation, with per active whole-page subscribers
// of each channel, ids interleaved.
func TestWithSubscribers(t *testing.T) {
	dir := t.TempDir()
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	page := &statusd.Document{
		Page:       statusd.Page{Name: "Bench", URL: "https://status.bench.test", CreatedAt: at, UpdatedAt: at},
		Components: []statusd.Component{{ID: 7, Name: "API", CreatedAt: at, UpdatedAt: at}},
	}
	f, err := os.Create(filepath.Join(dir, "page.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := statusd.EncodeDocument(f, page); err != nil {
		t.Fatal(err)
	}
	f.Close()
	out, component, err := withSubscribers(f.Name(), filepath.Join(dir, "out.json"), 3, "http://127.0.0.1:9")
	if err != nil {
		t.Fatal(err)
	}
	if component != 7 {
		t.Errorf("component %d, want 7", component)
	}
	r, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	doc, err := statusd.DecodeDocument(r)
	if err != nil {
		t.Fatalf("the document does not import: %v", err)
	}
	if len(doc.Subscribers) != 15 {
		t.Fatalf("%d subscribers, want 15 (3 of 5 channels)", len(doc.Subscribers))
	}
	perChannel := map[statusd.Channel]int{}
	for i, s := range doc.Subscribers {
		perChannel[s.Channel]++
		if s.State != statusd.SubscriberActive || len(s.ComponentIDs) != 0 {
			t.Errorf("subscriber %d: %s on %v, want active on the whole page", s.ID, s.State, s.ComponentIDs)
		}
		if want := statusd.Channel(channels[i%5]); s.Channel != want {
			t.Errorf("subscriber %d: %s, want %s (interleaved)", s.ID, s.Channel, want)
		}
	}
	if s := doc.Subscribers[6]; s.Address != "http://127.0.0.1:9/webhook/6" || s.Secret == "" {
		t.Errorf("subscriber 7: %q, secret %q; want the receiver's /webhook/6 and a secret", s.Address, s.Secret)
	}
	if s := doc.Subscribers[5]; s.Address != "reader5@fanout.test" {
		t.Errorf("subscriber 6: %q, want reader5@fanout.test", s.Address)
	}
	for _, ch := range channels {
		if perChannel[statusd.Channel(ch)] != 3 {
			t.Errorf("%d %s subscribers, want 3", perChannel[statusd.Channel(ch)], ch)
		}
	}
}

// TestSinks: the receiver and the SMTP server count each recipient once
// per round, repeats apart, and note when a channel is complete.
func TestSinks(t *testing.T) {
	tl := newTally(2)
	listen := func() net.Listener {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	rcv, sink := startReceiver(listen(), tl), startSMTP(listen(), tl)
	defer rcv.close()
	defer sink.close()
	post := func(path string, want int) {
		t.Helper()
		resp, err := http.Post(rcv.URL+path, "application/json", strings.NewReader(`{}`))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("POST %s: %d, want %d", path, resp.StatusCode, want)
		}
	}
	post("/webhook/1", 200)
	post("/webhook/1", 200) // a repeat
	post("/slack/1", 200)
	post("/webhook/2", 200)
	post("/nothing", 404)
	if err := smtp.SendMail(sink.Addr, nil, "status@fanout.test", []string{"a@fanout.test", "b@fanout.test"},
		[]byte("Subject: x\r\n\r\nbody\r\n")); err != nil {
		t.Fatal(err)
	}
	counts, done, total := tl.status()
	if counts["webhook"] != 2 || counts["slack"] != 1 || counts["email"] != 2 || total != 6 {
		t.Errorf("counts %v, total %d; want webhook 2, slack 1, email 2, total 6", counts, total)
	}
	if len(done) != 2 || done["webhook"].IsZero() || done["email"].IsZero() {
		t.Errorf("complete: %v, want webhook and email", done)
	}
	tl.reset()
	if counts, done, total := tl.status(); len(counts) != 0 || len(done) != 0 || total != 0 {
		t.Errorf("after reset: %v %v %d, want nothing", counts, done, total)
	}
}

// TestRatio: a round's ratio is the median of its runs in a phase over
// the mean of the quiet runs around it; an unsteady round is left out.
func TestRatio(t *testing.T) {
	const p = "/api/v1/status"
	d := dbResult{
		quiet: []readRun{{round: 1, path: p, rps: 1000}, {round: 2, path: p, rps: 1200}, {round: 3, path: p, rps: 2000}},
		rounds: []roundResult{
			{reads: []readRun{{path: p, phase: "http", rps: 990}, {path: p, phase: "http", rps: 770}, {path: p, phase: "http", rps: 880},
				{path: p, phase: "email", rps: 1100}, {path: p, phase: "mixed", rps: 1}}},
			{reads: []readRun{{path: p, phase: "http", rps: 100}}}, // 1200 then 2000: unsteady
		},
	}
	// Round 1: quiet (1000 + 1200) / 2 = 1100; HTTP median 880 → 0.8;
	// email 1100 → 1.0. Round 2 is not judged.
	if got := d.ratio(p, "http"); math.Abs(got-0.8) > 1e-9 {
		t.Errorf("HTTP ratio %v, want 0.8", got)
	}
	if got := d.ratio(p, "email"); math.Abs(got-1) > 1e-9 {
		t.Errorf("email ratio %v, want 1", got)
	}
	if !d.steady(p, 1) || d.steady(p, 2) {
		t.Errorf("steady: round 1 %v, round 2 %v; want true, false", d.steady(p, 1), d.steady(p, 2))
	}
	if got := d.ratio("/other", "http"); !math.IsNaN(got) {
		t.Errorf("ratio of a path without runs %v, want NaN", got)
	}
	for _, c := range []struct {
		xs   []float64
		want float64
	}{{[]float64{3, 1, 2}, 2}, {[]float64{4, 1, 3, 2}, 2.5}} {
		if got := median(c.xs); got != c.want {
			t.Errorf("median(%v) = %v, want %v", c.xs, got, c.want)
		}
	}
	if s := fmt.Sprint(median(nil)); s != "NaN" {
		t.Errorf("median of none %s, want NaN", s)
	}
}
