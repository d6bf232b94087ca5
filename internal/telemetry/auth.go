package telemetry

import (
	"crypto/sha256"
	"crypto/subtle"
	"log/slog"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/internal/httpjson"
	"github.com/statusd/statusd/internal/ratelimit"
)

// RequireToken lets a request through to next only with
// "Authorization: Bearer <token>" naming a valid admin API token (statusd
// token create), the same tokens as the admin API. A missing or wrong token
// is answered 401 with a JSON error; a client that keeps failing gets 429
// for a while (ten failures, then one a second), while a valid token always
// gets through. trusted are the proxies whose X-Forwarded-For is believed
// when failures are counted per client.
//
// The token is looked up in the store on every request, so a revoked token
// stops working at once. When the store cannot be read (the database is
// down), a token that this process found valid before still gets through:
// the metrics matter most during an outage.
func RequireToken(tokens statusd.TokenStore, trusted []netip.Prefix, now func() time.Time, log *slog.Logger, next http.Handler) http.Handler {
	failures := ratelimit.New(1, 10)
	var (
		mu    sync.Mutex
		known = map[[sha256.Size]byte]bool{} // hashes found valid before
	)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		scheme, secret, _ := strings.Cut(r.Header.Get("Authorization"), " ")
		if strings.EqualFold(scheme, "Bearer") && strings.TrimSpace(secret) != "" {
			sum := sha256.Sum256([]byte(strings.TrimSpace(secret)))
			tok, err := tokens.Lookup(r.Context(), sum[:], now())
			mu.Lock()
			switch {
			case err != nil && known[sum]:
				tok = &statusd.Token{Hash: sum[:]}
			case err != nil:
				mu.Unlock()
				httpjson.Error(w, r, log, err)
				return
			case tok == nil:
				delete(known, sum) // revoked
			}
			mu.Unlock()
			if tok != nil && subtle.ConstantTimeCompare(tok.Hash, sum[:]) == 1 {
				if err == nil {
					mu.Lock()
					known[sum] = true
					mu.Unlock()
				}
				next.ServeHTTP(w, r)
				return
			}
		}
		if res := failures.Allow(ratelimit.ClientAddr(r, trusted), now()); !res.OK {
			w.Header().Set("Retry-After", strconv.Itoa(res.Retry))
			httpjson.Error(w, r, log, statusd.Errorf(statusd.ERateLimited, "too many failed authentications; retry in %d second(s)", res.Retry))
			return
		}
		w.Header().Set("WWW-Authenticate", `Bearer realm="statusd metrics"`)
		httpjson.Error(w, r, log, statusd.Errorf(statusd.EUnauthorized,
			"the metrics need a valid admin token: send Authorization: Bearer <token> (statusd token create), or serve them openly with --metrics-public"))
	})
}
