package server

import (
	"cmp"
	"crypto/sha256"
	"crypto/subtle"
	"net/http"
	"sync"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/internal/ratelimit"
	"github.com/statusd/statusd/internal/route"
)

// bearer is the one bearer-token middleware, of the admin API and of
// /metrics: a request gets through only with "Authorization: Bearer
// <token>" naming a valid admin token (statusd token create), and carries
// the token's name as its actor, in the token's role (statusd.WithActor):
// the actions refuse what the role may not do. A missing
// and a wrong token get the same answer, 401 with a JSON error; a client
// that keeps failing gets 429
// for a while (ten failures, then one a second), while a valid token
// always gets through, so that nobody can lock operators out by failing on
// purpose.
//
// The token is looked up in the store on every request, so a revoked token
// stops working at once. When the store cannot be read (the database is
// down), a token that this process found valid before still gets through:
// the metrics and the operators matter most during an outage.
type bearer struct {
	tokens   statusd.TokenStore
	s        *assembly
	failures *ratelimit.Limiter // failed authentications per client
	mu       sync.Mutex
	known    map[[sha256.Size]byte]statusd.Actor // the actors of tokens found valid before, by hash
}

func newBearer(tokens statusd.TokenStore, s *assembly) *bearer {
	return &bearer{tokens: tokens, s: s, failures: ratelimit.New(1, 10), known: map[[sha256.Size]byte]statusd.Actor{}}
}

// require lets a request with a valid token through to next; realm names
// what the token opens, hint tells a client without one what to do.
func (b *bearer) require(realm, hint string, next route.Handler) route.Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		w.Header().Set("Cache-Control", "no-store")
		actor, err := b.authenticate(r)
		switch {
		case err != nil:
			return err
		case actor.Name != "":
			return next(w, r.WithContext(statusd.WithActor(r.Context(), actor)))
		}
		if res := b.failures.Allow(ratelimit.ClientAddr(r, b.s.cfg.TrustedProxies), b.s.now()); !res.OK {
			return route.Retry(statusd.Errorf(statusd.ERateLimited, "too many failed authentications; retry in %d second(s)", res.Retry), res.Retry)
		}
		w.Header().Set("WWW-Authenticate", `Bearer realm="`+realm+`"`)
		return statusd.Errorf(statusd.EUnauthorized, "%s", hint)
	}
}

// authenticate returns the actor of r's token, its name and role, the
// zero Actor when it has none or one that is not valid, or the store's
// error.
func (b *bearer) authenticate(r *http.Request) (statusd.Actor, error) {
	secret := route.BearerToken(r)
	if secret == "" {
		return statusd.Actor{}, nil
	}
	sum := sha256.Sum256([]byte(secret))
	tok, err := b.tokens.Lookup(r.Context(), sum[:], b.s.now())
	b.mu.Lock()
	defer b.mu.Unlock()
	switch {
	case err != nil:
		if actor, ok := b.known[sum]; ok {
			return actor, nil
		}
		return statusd.Actor{}, err
	case tok == nil || subtle.ConstantTimeCompare(tok.Hash, sum[:]) != 1:
		delete(b.known, sum) // revoked
		return statusd.Actor{}, nil
	}
	actor := statusd.Actor{Name: tok.Name, Role: cmp.Or(tok.Role, statusd.Owner), Kind: statusd.ByToken}
	b.known[sum] = actor
	return actor, nil
}
