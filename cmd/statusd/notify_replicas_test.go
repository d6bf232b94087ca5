package main

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/client"
	"github.com/statusd/statusd/internal/testenv"
	"github.com/statusd/statusd/internal/testserver"
)

// TestNotifyLeaseFlag: serve refuses a --notify-lease shorter than the
// shortest lease, saying what to give.
func TestNotifyLeaseFlag(t *testing.T) {
	db := filepath.Join(t.TempDir(), "statusd.db")
	_, _, err := cli(t, "", "serve", "--db", db, "--notify-lease", "10s")
	if code := exitCode(err); code != exitCodeUsage || !strings.Contains(fmt.Sprint(err), "--notify-lease: 10s is too short; give at least 30s") {
		t.Errorf("serve --notify-lease 10s: exit %d (%v), want 2 saying the least", code, err)
	}
}

// hookLog is what a receiver got for one notice, by the subscriber (the
// path of its URL) and by webhook-id.
type hookLog struct {
	requests int
	ids      map[string]map[string][]time.Time // path -> webhook-id -> arrivals
}

// hookLogOf reads what recv got for the notice with id, checking each
// request's signature with the secret of its path.
func hookLogOf(t *testing.T, recv *testserver.Receiver, id int64, secrets map[string]string) hookLog {
	t.Helper()
	l := hookLog{ids: map[string]map[string][]time.Time{}}
	for _, req := range recv.Requests() {
		var body struct {
			Event  string `json:"event"`
			Notice struct {
				ID int64 `json:"id"`
			} `json:"notice"`
		}
		if err := json.Unmarshal(req.Body, &body); err != nil {
			t.Fatalf("a webhook to %s is not JSON: %v", req.Path, err)
		}
		if body.Notice.ID != id {
			continue
		}
		if body.Event != string(statusd.NoticeCreated) {
			t.Errorf("a webhook of notice %d is a %q", id, body.Event)
		}
		testserver.CheckSigned(t, "the webhook to "+req.Path, req, secrets[req.Path])
		l.requests++
		if l.ids[req.Path] == nil {
			l.ids[req.Path] = map[string][]time.Time{}
		}
		wid := req.Header.Get("webhook-id")
		l.ids[req.Path][wid] = append(l.ids[req.Path][wid], req.At)
	}
	return l
}

// check fails unless every one of the subscribers got the notice under
// one webhook-id; it returns the arrivals of the deliveries that came
// more than once (the same delivery sent again).
func (l hookLog) check(t *testing.T, what string, subscribers int) (again [][]time.Time) {
	t.Helper()
	if len(l.ids) != subscribers {
		t.Errorf("%s: %d subscribers got it, want %d", what, len(l.ids), subscribers)
	}
	for path, ids := range l.ids {
		if len(ids) != 1 {
			t.Errorf("%s: %s got it under %d webhook-ids, want one: %v", what, path, len(ids), ids)
		}
		for _, arrivals := range ids {
			if len(arrivals) > 1 {
				again = append(again, arrivals)
			}
		}
	}
	return again
}

// deliveryCount is the number of deliveries in a state, from the admin
// API.
func deliveryCount(t *testing.T, adm *client.Admin, state statusd.DeliveryState) int {
	t.Helper()
	r, err := adm.Deliveries(context.Background(), statusd.DeliveryFilter{State: state}, 1)
	testserver.NoErr(t, "GET /deliveries?state="+string(state), err)
	return r.Meta.TotalCount
}

// TestNotifyReplicas plays CONTRACT C7 item 6: two replicas on one
// PostgreSQL database send to 300 webhook subscribers of one receiver.
// A notice posted through one reaches each subscriber exactly once though
// both send; a second, to a slow receiver, survives the SIGKILL of the
// replica that posted it in the middle of sending: the other sends what
// it left once its --notify-lease ran out, under the same webhook-ids,
// and no delivery is left pending.
func TestNotifyReplicas(t *testing.T) {
	db := testenv.Postgres(t)
	importDoc(t, db, testserver.SubDoc())
	tok := newToken(t, db, "ops")
	recv := testserver.StartReceiver(t)
	const lease = 30 * time.Second
	flags := []string{"--allow-private-targets", "--rate-limit", "0", "--notify-lease", lease.String(), "--log-level", "debug"}
	a, b := startReplica(t, db, flags...), startReplica(t, db, flags...)
	const subscribers = 300
	secrets := map[string]string{} // by the path of the subscriber's URL

	testserver.Step(t, "300 webhook subscribers of one receiver", func(t *testing.T) {
		adm := b.In(t).Admin(tok)
		var mu sync.Mutex
		var wg sync.WaitGroup
		errs := make(chan error, subscribers)
		for w := range 4 {
			wg.Go(func() {
				for i := w; i < subscribers; i += 4 {
					path := fmt.Sprintf("/hook/%d", i)
					s, err := adm.CreateSubscriber(context.Background(), statusd.AdminSubscriberRequest{Channel: new("webhook"),
						Address: new(recv.URL + path), Confirmed: new(true)})
					if err != nil || s.State != "active" {
						errs <- fmt.Errorf("subscriber %s: %+v %v", path, s, err)
						continue
					}
					mu.Lock()
					secrets[path] = s.Secret
					mu.Unlock()
				}
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
	})

	// post posts a notice through a, and returns its id and when it was
	// sent (its deliveries are claimed after that).
	post := func(t *testing.T, subject string) (int64, time.Time) {
		t.Helper()
		sent := time.Now()
		n, err := a.In(t).Admin(tok).CreateNotice(context.Background(), statusd.AdminNoticeRequest{Type: new("unplanned"),
			Subject: new(subject), State: new("investigating"), Content: new("Looking into it.")})
		testserver.NoErr(t, "POST /notices", err)
		return n.ID, sent
	}
	// drained waits up to limit until the receiver got the notice from
	// every subscriber and the admin API of s shows delivered deliveries
	// and none pending, and returns how long it took since from.
	drained := func(t *testing.T, s *testserver.Server, id int64, delivered int, from time.Time, limit time.Duration) time.Duration {
		t.Helper()
		adm := s.In(t).Admin(tok)
		for deadline := time.Now().Add(limit); ; time.Sleep(200 * time.Millisecond) {
			got := len(hookLogOf(t, recv, id, secrets).ids)
			pending, done := deliveryCount(t, adm, statusd.DeliveryPending), deliveryCount(t, adm, statusd.DeliveryDelivered)
			if got == subscribers && pending == 0 && done == delivered {
				return time.Since(from)
			}
			if time.Now().After(deadline) {
				t.Fatalf("after %v: %d subscribers got notice %d, %d deliveries pending and %d delivered, want %d, 0 and %d",
					time.Since(from), got, id, pending, done, subscribers, delivered)
			}
		}
	}
	// attempts is how many attempts a replica made, from its debug log.
	attempts := func(r *replica) int { return strings.Count(r.Logs.String(), `msg="notification attempt"`) }

	testserver.Step(t, "a notice posted through one replica reaches each subscriber exactly once, though both send", func(t *testing.T) {
		// Each request takes 100 ms, so that sending takes long enough for
		// the second replica's poll (every second) to claim some.
		recv.Hold.Store(int64(100 * time.Millisecond))
		id, from := post(t, "Checkout down")
		took := drained(t, b.Server, id, subscribers, from, 30*time.Second)
		l := hookLogOf(t, recv, id, secrets)
		if again := l.check(t, "the first notice", subscribers); len(again) != 0 {
			t.Errorf("%d deliveries came more than once; each goes once when no sender dies", len(again))
		}
		byA, byB := attempts(a), attempts(b)
		if byA == 0 || byB == 0 || byA+byB != subscribers {
			t.Errorf("attempts: %d by the replica posting, %d by the other; want both, %d in all", byA, byB, subscribers)
		}
		t.Logf("the first notice reached the %d subscribers once each in %v: %d sent by the replica posting, %d by the other",
			subscribers, took.Round(time.Millisecond), byA, byB)
	})

	testserver.Step(t, "a replica killed in the middle of sending leaves nothing unsent", func(t *testing.T) {
		// A slow receiver: each request holds a sender for a second, so
		// that the replica has deliveries claimed, some under way, when
		// it is killed.
		recv.Hold.Store(int64(time.Second))
		id, from := post(t, "Checkout down again")
		for deadline := time.Now().Add(20 * time.Second); hookLogOf(t, recv, id, secrets).requests < 40; time.Sleep(20 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatal("the second notice did not start going out within 20 s")
			}
		}
		// Half a request later: requests of the replica are under way.
		time.Sleep(500 * time.Millisecond)
		byA := attempts(a)
		if err := a.cmd.Process.Kill(); err != nil { // SIGKILL
			t.Fatal(err)
		}
		a.cmd.Wait()
		killed := time.Now()
		sentByKill := hookLogOf(t, recv, id, secrets).requests
		// What the killed replica claimed goes out once its lease ends:
		// well within twice the lease.
		took := drained(t, b.Server, id, 2*subscribers, killed, 2*lease)
		l := hookLogOf(t, recv, id, secrets)
		again := l.check(t, "the second notice", subscribers)
		// A request that reached the receiver before the kill, whose
		// attempt the killed replica had not recorded, is sent again with
		// the same webhook-id (CONTRACT C7: at least once), but only once
		// its lease, taken after the post, ran out.
		for _, arrivals := range again {
			if len(arrivals) != 2 || !arrivals[0].Before(killed) || arrivals[1].Before(from.Add(lease)) {
				t.Errorf("a delivery arrived at %v; want twice, first before the kill at %v, then after the lease at %v",
					arrivals, killed, from.Add(lease))
			}
		}
		t.Logf("killed the posting replica %v after the post, when %d webhooks had arrived (it had recorded %d attempts of both notices); "+
			"the other sent the rest, all delivered and none pending %v after the kill (lease %v); %d deliveries came twice, under the same webhook-id",
			killed.Sub(from).Round(time.Millisecond), sentByKill, byA, took.Round(time.Millisecond), lease, len(again))
	})
}
