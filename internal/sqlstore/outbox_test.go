package sqlstore

import (
	"cmp"
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/internal/storetest"
	"github.com/statusd/statusd/internal/testenv"
)

// withSubscribers imports the sample page with n active webhook
// subscribers of the whole page into s.
func withSubscribers(tb testing.TB, s *Store, n int) {
	tb.Helper()
	doc := storetest.Sample()
	doc.Subscribers = make([]statusd.Subscriber, n)
	for i := range doc.Subscribers {
		doc.Subscribers[i] = statusd.Subscriber{ID: int64(i + 1), Channel: statusd.Webhook,
			Address: fmt.Sprintf("https://h%d.example.com/hook", i), ComponentIDs: []int64{},
			State: statusd.SubscriberActive, CreatedAt: time.Now(), UpdatedAt: time.Now()}
	}
	if err := s.Import(context.Background(), doc, true); err != nil {
		tb.Fatal(err)
	}
}

// fanOut stores an event for everyone and expands it at now.
func fanOut(tb testing.TB, s *Store, now time.Time) {
	tb.Helper()
	ctx := context.Background()
	ss := s.Subscribers()
	if _, err := ss.Emit(ctx, statusd.Event{Kind: statusd.NoticeCreated, NoticeID: 100, UpdateID: 5, CreatedAt: now}); err != nil {
		tb.Fatal(err)
	}
	if n, err := ss.Expand(ctx, now, 10); err != nil || n != 1 {
		tb.Fatalf("Expand: %d events, %v; want 1", n, err)
	}
}

func openPostgres(tb testing.TB, url string) *Store {
	tb.Helper()
	s, err := Open(context.Background(), url)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { s.Close() })
	return s
}

// TestClaimConcurrentPostgres checks that senders in two processes (two
// Stores, each with its connections) claiming at once from 1,000 due
// deliveries never get the same one, and get them all.
func TestClaimConcurrentPostgres(t *testing.T) {
	url := testenv.Postgres(t)
	stores := []*Store{openPostgres(t, url), openPostgres(t, url)}
	withSubscribers(t, stores[0], 1000)
	now := time.Now()
	fanOut(t, stores[0], now)

	const claimers = 16
	got := make([][]int64, claimers)
	var wg sync.WaitGroup
	for i := range claimers {
		ss := stores[i%2].Subscribers()
		wg.Go(func() {
			for {
				c, err := ss.Claim(context.Background(), now, time.Hour, 7, nil)
				if err != nil {
					t.Error(err)
					return
				}
				if len(c) == 0 {
					return
				}
				for _, d := range c {
					got[i] = append(got[i], d.Delivery.ID)
				}
			}
		})
	}
	wg.Wait()
	owner := map[int64]int{}
	for i, ids := range got {
		for _, id := range ids {
			if j, taken := owner[id]; taken {
				t.Errorf("delivery %d claimed by claimers %d and %d", id, j, i)
			}
			owner[id] = i
		}
	}
	if len(owner) != 1000 {
		t.Errorf("%d deliveries claimed, want all 1,000", len(owner))
	}
	busy := 0
	for _, ids := range got {
		if len(ids) > 0 {
			busy++
		}
	}
	t.Logf("%d claimers of %d took some", busy, claimers)
}

// TestRecordManyConcurrentPostgres: two processes recording batches that
// touch the same subscribers, one in rising and one in falling order of
// subscriber, never wait for each other in a circle (PostgreSQL would
// abort one: deadlock detected), and record every attempt.
func TestRecordManyConcurrentPostgres(t *testing.T) {
	url := testenv.Postgres(t)
	stores := []*Store{openPostgres(t, url), openPostgres(t, url)}
	const subscribers, events = 20, 20
	withSubscribers(t, stores[0], subscribers)
	now := time.Now()
	for range events {
		fanOut(t, stores[0], now)
	}
	claimed, err := stores[0].Subscribers().Claim(context.Background(), now, time.Hour, subscribers*events, nil)
	if err != nil || len(claimed) != subscribers*events {
		t.Fatalf("claimed %d (%v), want %d", len(claimed), err, subscribers*events)
	}
	// Each process has the deliveries of half the events, of every
	// subscriber, in batches of one event's: one rising, one falling.
	batches := [2][][]statusd.DeliveryAttempt{}
	byEvent := map[int64][]statusd.DeliveryAttempt{}
	for _, c := range claimed {
		byEvent[c.Delivery.Event.ID] = append(byEvent[c.Delivery.Event.ID],
			statusd.DeliveryAttempt{DeliveryID: c.Delivery.ID, Attempt: statusd.Attempt{At: now, Outcome: statusd.Failed, Error: "500"}})
	}
	for id, b := range byEvent {
		slices.SortFunc(b, func(x, y statusd.DeliveryAttempt) int { return cmp.Compare(x.DeliveryID, y.DeliveryID) })
		p := int(id % 2)
		if p == 1 {
			slices.Reverse(b)
		}
		batches[p] = append(batches[p], b)
	}
	var wg sync.WaitGroup
	for p := range 2 {
		ss := stores[p].Subscribers()
		wg.Go(func() {
			for _, b := range batches[p] {
				if _, err := ss.RecordMany(context.Background(), b, time.Minute); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	subs, _, err := stores[0].Subscribers().List(context.Background(), statusd.SubscriberFilter{}, 1, subscribers)
	if err != nil {
		t.Fatal(err)
	}
	for _, sub := range subs {
		if sub.Failures != events {
			t.Errorf("subscriber %d has %d failures, want one an event: %d", sub.ID, sub.Failures, events)
		}
	}
}

// TestRequestConcurrentPostgres checks that requests of one new address
// made at once, by two processes, make one subscriber, and each its
// confirmation.
func TestRequestConcurrentPostgres(t *testing.T) {
	url := testenv.Postgres(t)
	stores := []*Store{openPostgres(t, url), openPostgres(t, url)}
	const requests = 12
	now := time.Now()
	var wg sync.WaitGroup
	for i := range requests {
		ss := stores[i%2].Subscribers()
		wg.Go(func() {
			if err := ss.Request(context.Background(), "reader@example.com", []int64{}, now); err != nil {
				t.Errorf("Request %d: %v", i, err)
			}
		})
	}
	wg.Wait()
	ss := stores[0].Subscribers()
	subs, total, err := ss.List(context.Background(), statusd.SubscriberFilter{}, 1, 10)
	if err != nil || total != 1 || subs[0].State != statusd.SubscriberPending {
		t.Fatalf("after %d requests: %+v (%d, %v), want one pending subscriber", requests, subs, total, err)
	}
	if n, err := ss.Expand(context.Background(), now, 100); err != nil || n != requests {
		t.Errorf("Expand: %d events, %v; want a confirmation a request (%d)", n, err, requests)
	}
}

// benchStores runs a benchmark on a fresh SQLite store and, when
// PostgreSQL is at hand, a fresh PostgreSQL one.
func benchStores(b *testing.B, fn func(b *testing.B, s *Store)) {
	b.Run("sqlite", func(b *testing.B) {
		s, err := Open(context.Background(), filepath.Join(b.TempDir(), "bench.db"))
		if err != nil {
			b.Fatal(err)
		}
		defer s.Close()
		fn(b, s)
	})
	b.Run("postgres", func(b *testing.B) { fn(b, openPostgres(b, testenv.Postgres(b))) })
}

// BenchmarkExpand measures Expand of one event to 50,000 subscribers: a
// few hundred milliseconds at most (the fan-out targets).
func BenchmarkExpand(b *testing.B) {
	benchStores(b, func(b *testing.B, s *Store) {
		withSubscribers(b, s, 50000)
		now := time.Now()
		ss := s.Subscribers()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			if _, err := ss.Emit(context.Background(), statusd.Event{Kind: statusd.NoticeUpdated, NoticeID: 100, CreatedAt: now}); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
			if n, err := ss.Expand(context.Background(), now, 10); err != nil || n != 1 {
				b.Fatalf("Expand: %d, %v", n, err)
			}
		}
	})
}

// BenchmarkClaimRecord measures claiming (in batches of 100) and recording
// as delivered 10,000 deliveries, by 1 and by 4 senders at once, one
// delivery a transaction (Record) or a claimed batch in one (RecordMany);
// it reports the time per delivery.
func BenchmarkClaimRecord(b *testing.B) {
	const deliveries, batch = 10000, 100
	benchStores(b, func(b *testing.B, s *Store) {
		withSubscribers(b, s, deliveries)
		ss := s.Subscribers()
		for _, senders := range []int{1, 4} {
			for _, many := range []bool{false, true} {
				b.Run(fmt.Sprintf("senders=%d/batch=%v", senders, many), func(b *testing.B) {
					b.ResetTimer()
					for i := 0; i < b.N; i++ {
						b.StopTimer()
						now := time.Now()
						fanOut(b, s, now)
						b.StartTimer()
						var wg sync.WaitGroup
						for range senders {
							wg.Go(func() {
								for {
									c, err := ss.Claim(context.Background(), now, time.Minute, batch, nil)
									if err != nil || len(c) == 0 {
										if err != nil {
											b.Error(err)
										}
										return
									}
									if err := recordClaimed(ss, c, statusd.Attempt{At: now, Outcome: statusd.Delivered, Status: 200}, many); err != nil {
										b.Error(err)
										return
									}
								}
							})
						}
						wg.Wait()
					}
					b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*deliveries), "µs/delivery")
				})
			}
		}
	})
}

// recordClaimed records the same attempt of each claimed delivery: one
// transaction each, or, with many, one for all.
func recordClaimed(ss statusd.SubscriberStore, claimed []statusd.Claimed, a statusd.Attempt, many bool) error {
	if many {
		attempts := make([]statusd.DeliveryAttempt, len(claimed))
		for i, c := range claimed {
			attempts[i] = statusd.DeliveryAttempt{DeliveryID: c.Delivery.ID, Attempt: a}
		}
		_, err := ss.RecordMany(context.Background(), attempts, 30*time.Second)
		return err
	}
	for _, c := range claimed {
		if _, err := ss.Record(context.Background(), c.Delivery.ID, a, 30*time.Second); err != nil {
			return err
		}
	}
	return nil
}

// TestExpandAnalyzesPostgres: an expansion that makes analyzeAfter
// deliveries renews the planner's statistics of the outbox (reltuples,
// -1 on a table never analyzed, counts them), so that the claims after it
// are planned on the table as it is.
func TestExpandAnalyzesPostgres(t *testing.T) {
	s := openPostgres(t, testenv.Postgres(t))
	withSubscribers(t, s, analyzeAfter)
	tuples := func() float64 {
		var n float64
		if err := s.db.QueryRow(`SELECT reltuples FROM pg_class WHERE relname = 'deliveries'`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := tuples(); n > 0 {
		t.Fatalf("deliveries' reltuples %v before any expansion, want none counted", n)
	}
	fanOut(t, s, time.Now())
	if n := tuples(); n != analyzeAfter {
		t.Errorf("deliveries' reltuples %v after the expansion, want %d", n, analyzeAfter)
	}
}
