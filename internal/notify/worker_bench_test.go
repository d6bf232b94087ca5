package notify

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/internal/snapshot"
	"github.com/statusd/statusd/internal/sqlstore"
	"github.com/statusd/statusd/internal/testenv"
)

// BenchmarkWorker measures the fan-out targets end to end: one update of
// a notice, sent to 10,000 subscribers by the worker over the real store
// (SQLite, and PostgreSQL), to a local HTTP receiver (target: 15 s) or to
// the in-test SMTP server at the default rate (target: 60 s). An op is the
// whole update; run it with -benchtime=1x.
func BenchmarkWorker(b *testing.B) {
	const subscribers = 10000
	var received atomic.Int64
	rcv := startReceiver(b, func(w http.ResponseWriter, _ *http.Request) { received.Add(1) })
	smtpd := testenv.StartSMTP(b, testenv.SMTPOptions{})
	arrived := func(ch statusd.Channel) int64 {
		if ch == statusd.Email {
			return int64(len(smtpd.Messages()))
		}
		return received.Load()
	}
	targets := map[string]func(b *testing.B) string{
		"sqlite":   func(b *testing.B) string { return filepath.Join(b.TempDir(), "bench.db") },
		"postgres": func(b *testing.B) string { return testenv.Postgres(b) },
	}
	for _, db := range []string{"sqlite", "postgres"} {
		for _, ch := range []statusd.Channel{statusd.Webhook, statusd.Email} {
			b.Run(db+"/"+string(ch), func(b *testing.B) {
				ctx := context.Background()
				store, err := sqlstore.Open(ctx, targets[db](b))
				if err != nil {
					b.Fatal(err)
				}
				defer store.Close()
				now := time.Now().UTC().Truncate(time.Millisecond)
				doc := shifted(now.Sub(t0))
				for i := range subscribers {
					s := statusd.Subscriber{ID: int64(i + 1), Channel: ch, State: statusd.SubscriberActive, Token: statusd.NewToken(),
						Address: fmt.Sprintf("%s/%d", rcv.URL, i), Secret: statusd.NewWebhookSecret(), CreatedAt: now, UpdatedAt: now}
					if ch == statusd.Email {
						s.Address, s.Secret = fmt.Sprintf("user%d@example.test", i), ""
					}
					doc.Subscribers = append(doc.Subscribers, s)
				}
				if err := store.Import(ctx, doc, false); err != nil {
					b.Fatal(err)
				}
				h := snapshot.NewHolder(store, snapshot.Options{Variant: statusd.VariantA}, time.Now, slog.New(slog.DiscardHandler))
				if err := h.Refresh(ctx); err != nil {
					b.Fatal(err)
				}
				mailer := mustMailer(b, MailConfig{URL: "smtp://" + smtpd.Addr, From: "status@acme.test"})
				ss := store.Subscribers()
				w := New(Config{Store: ss, Snapshots: h, Mailer: mailer, AllowPrivate: true, Poll: 100 * time.Millisecond})
				runCtx, stop := context.WithCancel(ctx)
				defer stop()
				go w.Run(runCtx)
				var total time.Duration
				for b.Loop() {
					start := time.Now()
					updateIncident(b, store, h)
					w.Wake()
					// All arrived (counted by the receivers), then all recorded.
					for arrived(ch) < int64(subscribers) {
						time.Sleep(10 * time.Millisecond)
					}
					for {
						_, pending, err := ss.Deliveries(ctx, statusd.DeliveryFilter{State: statusd.DeliveryPending}, 1, 1)
						if err != nil {
							b.Fatal(err)
						}
						if pending == 0 {
							break
						}
						time.Sleep(10 * time.Millisecond)
					}
					received.Store(0)
					smtpd.Reset()
					total += time.Since(start)
				}
				b.ReportMetric(float64(subscribers*b.N)/total.Seconds(), "deliveries/s")
				b.ReportMetric(total.Seconds()/float64(b.N), "s/10k")
			})
		}
	}
}
