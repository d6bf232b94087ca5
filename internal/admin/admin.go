// Package admin is the authenticated write API of statusd (CONTRACT C6):
// JSON in, JSON out, under /admin/api/v1/, every request with a bearer
// token (checked by the assembly's middleware, internal/server). Every
// write is one store transaction, recorded in the audit log, and visible in
// the public API before its answer is sent. Notice writes store their
// events for subscribers in that transaction (CONTRACT C7); subscribers
// and deliveries are managed here too (subscribers.go).
package admin

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/internal/route"
	"github.com/statusd/statusd/internal/snapshot"
)

// MaxBody is the largest request body the admin API reads.
const MaxBody = 1 << 20

// Config configures a Server.
type Config struct {
	Store     statusd.Store
	Snapshots *snapshot.Holder
	Now       func() time.Time
	// Notifier sends notifications (internal/notify); nil when they are
	// not configured: POST /subscribers/{id}/test then answers 503.
	Notifier Notifier
	// AllowPrivateTargets accepts webhook and chat URLs that are http, or
	// that name a private address (--allow-private-targets).
	AllowPrivateTargets bool
	// ConsoleURL is the console's URL, under which setup links are made;
	// "" (or nil): unknown, and a setup link is its path alone.
	ConsoleURL func() string
}

// Notifier is the sender of notifications, as the admin API uses it.
type Notifier interface {
	// Test sends a test message to a subscriber now and returns its
	// delivery, as the attempt left it.
	Test(ctx context.Context, subscriberID int64) (*statusd.Delivery, error)
	// Wake asks the sender to look for new events at once rather than at
	// its next poll; it does not wait.
	Wake()
}

// Server is the admin API. It is safe for concurrent use.
type Server struct {
	store        statusd.Store
	snaps        *snapshot.Holder
	now          func() time.Time
	notifier     Notifier
	allowPrivate bool
	consoleURL   func() string
}

// New returns a Server for the configuration.
func New(cfg Config) *Server {
	s := &Server{store: cfg.Store, snaps: cfg.Snapshots, now: cfg.Now, notifier: cfg.Notifier, allowPrivate: cfg.AllowPrivateTargets,
		consoleURL: cfg.ConsoleURL}
	if s.consoleURL == nil {
		s.consoleURL = func() string { return "" }
	}
	return s
}

// Handler serves an authenticated request; actor is the name of the
// request's token, or the email of the console's user.
type Handler func(w http.ResponseWriter, r *http.Request, actor string) error

// Serve adapts h, behind the middleware that authenticated the actor
// (statusd.WithActor) and checked its role: never cached, the body limited
// to MaxBody; the error it returns is the one to answer with.
func (s *Server) Serve(h Handler) route.Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		w.Header().Set("Cache-Control", "no-store")
		r.Body = http.MaxBytesReader(w, r.Body, MaxBody)
		return h(w, r, statusd.ActorOf(r.Context()).Name)
	}
}

// NewToken returns a new random token secret and its SHA-256 hash.
func NewToken() (secret string, hash []byte) {
	b := make([]byte, 32)
	rand.Read(b)
	secret = "sdt_" + base64.RawURLEncoding.EncodeToString(b)
	sum := sha256.Sum256([]byte(secret))
	return secret, sum[:]
}

// write runs fn in one store transaction, then refreshes the snapshot so
// that the public API shows the write before it is acknowledged.
func (s *Server) write(ctx context.Context, fn func(tx statusd.Tx) error) error {
	w, err := s.store.Write(ctx, fn)
	if err != nil {
		return err
	}
	return s.snaps.Apply(ctx, w)
}

// current returns the current snapshot, or 404 when no page exists.
func (s *Server) current() (*snapshot.Snapshot, error) {
	snap := s.snaps.Current()
	if snap == nil {
		return nil, statusd.Errorf(statusd.ENotFound, "no page has been published yet; import one with statusd import")
	}
	return snap, nil
}

// Snapshot returns the current snapshot, as the admin API reads it, or a
// 404 when no page exists.
func (s *Server) Snapshot() (*snapshot.Snapshot, error) { return s.current() }

// PageParam reads a list's ?page= (statusd.ParsePage): 1 when left out.
func PageParam(r *http.Request) (int64, error) {
	v := r.URL.Query().Get("page")
	if v == "" {
		return 1, nil
	}
	return statusd.ParsePage(v)
}

// listMeta is the meta of a list's page: count items of total, 25 a page.
// The next page's link is path (under /admin/api/v1) with the list's
// filters, those of query that are not empty.
func listMeta(path string, query url.Values, page int64, count, total int) statusd.Meta {
	meta := statusd.Meta{Count: count, TotalCount: total}
	if page < (int64(total)+snapshot.PageSize-1)/snapshot.PageSize {
		q := url.Values{"page": {strconv.FormatInt(page+1, 10)}}
		for k, v := range query {
			if len(v) > 0 && v[0] != "" {
				q.Set(k, v[0])
			}
		}
		next := "/admin/api/v1" + path + "?" + q.Encode()
		meta.NextPage = &next
	}
	return meta
}
