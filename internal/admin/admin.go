// Package admin is the authenticated write API of statusd (CONTRACT C6):
// JSON in, JSON out, under /admin/api/v1/, every request with a bearer
// token (checked by the assembly's middleware, internal/server). Every write is one store transaction, recorded in the audit log,
// and visible in the public API before its answer is sent.
package admin

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"net/http"
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
}

// Server is the admin API. It is safe for concurrent use.
type Server struct {
	store statusd.Store
	snaps *snapshot.Holder
	now   func() time.Time
}

// New returns a Server for the configuration.
func New(cfg Config) *Server {
	return &Server{store: cfg.Store, snaps: cfg.Snapshots, now: cfg.Now}
}

// Handler serves an authenticated request; actor is the name of the
// request's token.
type Handler func(w http.ResponseWriter, r *http.Request, actor string) error

// actorKey is the context key of the actor's name.
type actorKey struct{}

// WithActor returns ctx carrying the name of the token that authenticated
// the request, for Serve.
func WithActor(ctx context.Context, name string) context.Context {
	return context.WithValue(ctx, actorKey{}, name)
}

// Serve adapts h, behind the bearer-token middleware that set the actor
// (WithActor): never cached, the body limited to MaxBody; the error it
// returns is the one to answer with.
func (s *Server) Serve(h Handler) route.Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		w.Header().Set("Cache-Control", "no-store")
		actor, _ := r.Context().Value(actorKey{}).(string)
		r.Body = http.MaxBytesReader(w, r.Body, MaxBody)
		return h(w, r, actor)
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
