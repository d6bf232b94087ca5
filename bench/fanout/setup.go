package main

import (
	"bufio"
	"fmt"
	"os"
	"time"

	"github.com/statusd/statusd"
)

// withSubscribers reads the import document at page, adds per active
// subscribers of each channel (whole page: every notice reaches them),
// writes it to out, and returns out and the id of a component for the
// triggering writes.
func withSubscribers(page, out string, per int, receiverURL string) (string, int64, error) {
	f, err := os.Open(page)
	if err != nil {
		return "", 0, err
	}
	doc, err := statusd.DecodeDocument(bufio.NewReader(f))
	f.Close()
	if err != nil {
		return "", 0, fmt.Errorf("%s: %w", page, err)
	}
	if len(doc.Components) == 0 {
		return "", 0, fmt.Errorf("%s has no component", page)
	}
	now := time.Now().UTC().Truncate(time.Millisecond)
	doc.Subscribers = make([]statusd.Subscriber, 0, per*len(channels))
	for i := range per * len(channels) {
		ch := channels[i%len(channels)]
		s := statusd.Subscriber{ID: int64(i + 1), Channel: statusd.Channel(ch), State: statusd.SubscriberActive,
			Address: fmt.Sprintf("%s/%s/%d", receiverURL, ch, i), CreatedAt: now, UpdatedAt: now}
		switch s.Channel {
		case statusd.Email:
			s.Address = fmt.Sprintf("reader%d@fanout.test", i)
		case statusd.Webhook:
			s.Secret = statusd.NewWebhookSecret()
		}
		doc.Subscribers = append(doc.Subscribers, s)
	}
	w, err := os.Create(out)
	if err != nil {
		return "", 0, err
	}
	bw := bufio.NewWriter(w)
	if err := statusd.EncodeDocument(bw, doc); err != nil {
		w.Close()
		return "", 0, err
	}
	if err := bw.Flush(); err != nil {
		w.Close()
		return "", 0, err
	}
	return out, doc.Components[0].ID, w.Close()
}
