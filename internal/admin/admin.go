// Package admin is the authenticated write API of statusd (CONTRACT C6):
// JSON in, JSON out, under /admin/api/v1/, every request with a bearer
// token. Every write is one store transaction, recorded in the audit log,
// and visible in the public API before its answer is sent.
package admin

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"log/slog"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/internal/httpjson"
	"github.com/statusd/statusd/internal/ratelimit"
	"github.com/statusd/statusd/internal/snapshot"
)

// MaxBody is the largest request body the admin API reads.
const MaxBody = 1 << 20

// Config configures a Server.
type Config struct {
	Store     statusd.Store
	Snapshots *snapshot.Holder
	// TrustedProxies are the peers whose X-Forwarded-For is believed when
	// failed authentications are counted per client.
	TrustedProxies []netip.Prefix
	Now            func() time.Time
	Log            *slog.Logger
}

// Server is the admin API. It is safe for concurrent use.
type Server struct {
	store    statusd.Store
	snaps    *snapshot.Holder
	trusted  []netip.Prefix
	now      func() time.Time
	log      *slog.Logger
	failures *ratelimit.Limiter // failed authentications per client
}

// New returns a Server for the configuration.
func New(cfg Config) *Server {
	return &Server{store: cfg.Store, snaps: cfg.Snapshots, trusted: cfg.TrustedProxies, now: cfg.Now, log: cfg.Log,
		// Ten wrong tokens in a row, then one a second.
		failures: ratelimit.New(1, 10)}
}

// Register adds the admin routes to mux: the whole table on one screen.
func (s *Server) Register(mux *http.ServeMux) {
	const p = "/admin/api/v1"
	routes := []struct {
		pattern string
		h       handler
	}{
		{"GET " + p + "/page", s.getPage},
		{"PATCH " + p + "/page", s.patchPage},
		{"GET " + p + "/components", s.listComponents},
		{"POST " + p + "/components", s.createComponent},
		{"GET " + p + "/components/{id}", s.getComponent},
		{"PATCH " + p + "/components/{id}", s.patchComponent},
		{"DELETE " + p + "/components/{id}", s.deleteComponent},
		{"GET " + p + "/notices", s.listNotices},
		{"POST " + p + "/notices", s.createNotice},
		{"GET " + p + "/notices/{id}", s.getNotice},
		{"PATCH " + p + "/notices/{id}", s.patchNotice},
		{"DELETE " + p + "/notices/{id}", s.deleteNotice},
		{"POST " + p + "/notices/{id}/updates", s.postUpdate},
		{"POST " + p + "/notices/{id}/reopen", s.reopen},
		{"GET " + p + "/audit", s.audit},
	}
	allowed := map[string][]string{}
	for _, rt := range routes {
		method, path, _ := strings.Cut(rt.pattern, " ")
		allowed[path] = append(allowed[path], method)
		mux.Handle(rt.pattern, s.wrap(rt.h))
	}
	// Every other method on a known path is a JSON 405, every unknown path
	// under /admin/ a JSON 404.
	for path, methods := range allowed {
		allow := strings.Join(methods, ", ")
		mux.Handle(path, s.wrap(func(w http.ResponseWriter, r *http.Request, _ string) error {
			w.Header().Set("Allow", allow)
			return statusd.Errorf(statusd.EMethodNotAllowed, "%s is not allowed on %s; use %s", r.Method, r.URL.Path, allow)
		}))
	}
	mux.Handle("/admin/", s.wrap(func(w http.ResponseWriter, r *http.Request, _ string) error {
		return statusd.Errorf(statusd.ENotFound, "no such admin endpoint: %s", r.URL.Path)
	}))
}

// handler serves an authenticated request; actor is the token's name.
type handler func(w http.ResponseWriter, r *http.Request, actor string) error

// wrap authenticates the request, limits its body, and answers errors as
// JSON.
func (s *Server) wrap(h handler) http.Handler {
	return httpjson.Recover(s.log, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		actor, err := s.authenticate(w, r)
		if err == nil {
			r.Body = http.MaxBytesReader(w, r.Body, MaxBody)
			err = h(w, r, actor)
		}
		if err != nil {
			httpjson.Error(w, r, s.log, err)
		}
	}))
}

// authenticate returns the name of the request's token. A missing and a
// wrong token get the same answer. A client that keeps failing is answered
// 429 instead of 401 for a while; a valid token always gets through, so
// that nobody can lock operators out by failing on purpose.
func (s *Server) authenticate(w http.ResponseWriter, r *http.Request) (string, error) {
	scheme, secret, _ := strings.Cut(r.Header.Get("Authorization"), " ")
	if strings.EqualFold(scheme, "Bearer") && secret != "" {
		sum := sha256.Sum256([]byte(strings.TrimSpace(secret)))
		tok, err := s.store.Tokens().Lookup(r.Context(), sum[:], s.now())
		if err != nil {
			return "", err
		}
		if tok != nil && subtle.ConstantTimeCompare(tok.Hash, sum[:]) == 1 {
			return tok.Name, nil
		}
	}
	if res := s.failures.Allow(ratelimit.ClientAddr(r, s.trusted), s.now()); !res.OK {
		w.Header().Set("Retry-After", strconv.Itoa(res.Retry))
		return "", statusd.Errorf(statusd.ERateLimited, "too many failed authentications; retry in %d second(s)", res.Retry)
	}
	w.Header().Set("WWW-Authenticate", `Bearer realm="statusd admin"`)
	return "", statusd.Errorf(statusd.EUnauthorized, "a valid token is required: send Authorization: Bearer <token> (create one with statusd token create)")
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
