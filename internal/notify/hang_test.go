package notify

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/statusd/statusd"
)

// TestHangingReceivers: receivers that accept a webhook and never answer
// do not hold the healthy ones back. 3,600 healthy webhook subscribers
// hear of an update, alone and then with 100 receivers that hang (each
// its own server on 127.0.0.1, one in every 37 subscribers); the healthy
// deliveries must take at most twice as long with them (plus 1 s, for a
// machine shared with other work). Before slow requests gave up their
// fast places, the 16 places each held up to 10 s by the hanging ones
// kept the healthy deliveries waiting for about a minute (100 / 16 times
// 10 s).
func TestHangingReceivers(t *testing.T) {
	if testing.Short() {
		t.Skip("a fan-out of 3,700 webhooks")
	}
	const healthy, hanging = 3600, 100
	run := func(t *testing.T, hangs int) time.Duration {
		var got atomic.Int64
		ok := startReceiver(t, func(w http.ResponseWriter, _ *http.Request) { got.Add(1) })
		release := make(chan struct{}) // the hanging handlers return, so that their servers close
		var subs []statusd.Subscriber
		for i := range healthy + hangs {
			s := statusd.Subscriber{Channel: statusd.Webhook, Secret: statusd.NewWebhookSecret(), Address: fmt.Sprintf("%s/%d", ok.URL, i)}
			if i%37 == 36 && hangs > 0 {
				hangs--
				hang := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
					select {
					case <-r.Context().Done():
					case <-release:
					}
				}))
				t.Cleanup(hang.Close)
				s.Address = hang.URL + "/hang"
			}
			subs = append(subs, s)
		}
		t.Cleanup(func() { close(release) })
		start, _ := startFanOut(t, Config{}, subs)
		for got.Load() < healthy {
			if time.Since(start) > 60*time.Second {
				t.Fatalf("%d of %d healthy deliveries in 60 s", got.Load(), healthy)
			}
			time.Sleep(5 * time.Millisecond)
		}
		return time.Since(start)
	}
	var alone, with time.Duration
	t.Run("alone", func(t *testing.T) { alone = run(t, 0) })
	t.Run("with hanging receivers", func(t *testing.T) { with = run(t, hanging) })
	t.Logf("%d healthy deliveries: %v alone, %v with %d receivers that hang (%.2fx)", healthy,
		alone.Round(time.Millisecond), with.Round(time.Millisecond), hanging, float64(with)/float64(alone))
	if with > 2*alone+time.Second {
		t.Errorf("with %d receivers that hang, the healthy deliveries took %v, more than twice %v", hanging, with, alone)
	}
}
