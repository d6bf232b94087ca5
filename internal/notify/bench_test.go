package notify

import (
	"context"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/internal/testenv"
)

// BenchmarkRender renders one event for one subscriber on each channel,
// the event's message composed once (as the worker does for the
// deliveries of one event): what each delivery costs before it is sent.
func BenchmarkRender(b *testing.B) {
	w, h := newTestWorker(Config{Now: time.Now})
	m, err := w.compose(h.Current(), updated, t0)
	if err != nil {
		b.Fatal(err)
	}
	sub := statusd.Subscriber{ID: 5, Address: "ann@example.test", Token: statusd.NewToken(), Secret: statusd.NewWebhookSecret()}
	c := claimed(1, updated, sub)
	b.Run("email", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			e, err := renderEmail(m, &c)
			if err != nil {
				b.Fatal(err)
			}
			msg, err := e.msg("Acme Status <status@acme.test>", sub.Address, t0)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := msg.WriteTo(io.Discard); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("webhook", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, _, err := w.webhookRequest(m, &c, t0); err != nil {
				b.Fatal(err)
			}
		}
	})
	for name, render := range map[string]func(*message) ([]byte, error){"slack": slack, "teams": teams, "discord": discord} {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := render(m); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkSend renders and sends deliveries of one event, 16 at once, to
// a local HTTP receiver and to the in-test SMTP server (4 connections, no
// rate bound): the sending side of the fan-out targets (10,000
// webhooks in 15 s, 10,000 emails in 60 s), without the store.
func BenchmarkSend(b *testing.B) {
	b.Run("webhook", func(b *testing.B) {
		rcv := startReceiver(b, func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) })
		w, _ := newTestWorker(Config{AllowPrivate: true, Now: time.Now})
		sub := statusd.Subscriber{ID: 5, Channel: statusd.Webhook, Address: rcv.URL, Token: statusd.NewToken(), Secret: statusd.NewWebhookSecret()}
		benchSend(b, w, sub)
	})
	b.Run("email", func(b *testing.B) {
		srv := testenv.StartSMTP(b, testenv.SMTPOptions{})
		m := mustMailer(b, MailConfig{URL: "smtp://" + srv.Addr, From: "status@acme.test", Rate: 1e9})
		w, _ := newTestWorker(Config{Mailer: m, Now: time.Now})
		sub := statusd.Subscriber{ID: 5, Channel: statusd.Email, Address: "ann@example.test", Token: statusd.NewToken()}
		benchSend(b, w, sub)
	})
}

func benchSend(b *testing.B, w *Worker, sub statusd.Subscriber) {
	b.ReportAllocs()
	b.SetParallelism(maxHTTP / 2) // 16 goroutines on 2 cores
	start := time.Now()
	b.RunParallel(func(pb *testing.PB) {
		c := claimed(1, updated, sub)
		for pb.Next() {
			if a, ok := w.attempt(context.Background(), &c, later, &holding{}); !ok || a.Outcome != statusd.Delivered {
				b.Error(a)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "deliveries/s")
}
