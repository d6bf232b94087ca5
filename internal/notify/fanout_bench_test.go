package notify

import (
	"io"
	"strings"
	"testing"
	"time"

	"github.com/statusd/statusd"
)

// BenchmarkEmailFanout renders and writes out the emails of one event to
// 100 subscribers, the notice's update 20,000 characters of a pasted log
// (the longest content takes, full of what HTML escapes): what one event
// costs its email deliveries, per event (B/op is per 100 emails): the
// rendering, and the rendering with the writing of each message as the
// mailer writes it.
func BenchmarkEmailFanout(b *testing.B) {
	w, h := newTestWorker(Config{Now: time.Now})
	log := strings.Repeat(`10.0.0.7 - - "GET /api/v1/orders?id=42&page=<2> HTTP/1.1" 502 'upstream'`+"\n", 300)[:statusd.MaxContent]
	subs := make([]statusd.Claimed, 100)
	for i := range subs {
		subs[i].Subscriber = statusd.Subscriber{ID: int64(i + 1), Channel: statusd.Email, Address: "ann@example.test",
			State: statusd.SubscriberActive, Token: statusd.NewToken()}
	}
	for _, write := range []bool{false, true} {
		name := "render"
		if write {
			name = "render+write"
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				m, err := w.compose(h.Current(), updated, t0)
				if err != nil {
					b.Fatal(err)
				}
				m.Text = log
				for i := range subs {
					e, err := renderEmail(m, &subs[i])
					if err != nil {
						b.Fatal(err)
					}
					if !write {
						continue
					}
					msg, err := e.msg("Acme Status <status@acme.test>", subs[i].Subscriber.Address, t0)
					if err != nil {
						b.Fatal(err)
					}
					if _, err := msg.WriteTo(io.Discard); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}
