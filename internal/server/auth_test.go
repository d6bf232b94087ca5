package server

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/internal/route"
)

// tokens is a TokenStore with one valid token, whose Lookup fails on
// demand.
type tokens struct {
	statusd.TokenStore
	hash []byte
	fail bool
}

func (s *tokens) Lookup(_ context.Context, hash []byte, _ time.Time) (*statusd.Token, error) {
	if s.fail {
		return nil, errors.New("database is down")
	}
	if bytes.Equal(hash, s.hash) {
		return &statusd.Token{Name: "prom", Hash: hash}, nil
	}
	return nil, nil
}

// TestBearer: the bearer-token middleware of /metrics and the admin API.
func TestBearer(t *testing.T) {
	const good = "sdt_good"
	sum := sha256.Sum256([]byte(good))
	store := &tokens{hash: sum[:]}
	s := &assembly{cfg: Config{Now: time.Now, Log: slog.New(slog.DiscardHandler)}}
	h := route.NewErrors(nil, nil).Serve(newBearer(store, s).require("statusd metrics", "a token is required", route.Plain(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("metrics"))
	}))))
	do := func(auth, addr string) *httptest.ResponseRecorder {
		req := httptest.NewRequest(http.MethodGet, "/metrics", nil)
		req.RemoteAddr = addr
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec
	}
	for _, tc := range []struct {
		name, auth string
		want       int
	}{
		{"no token", "", 401},
		{"wrong token", "Bearer sdt_bad", 401},
		{"wrong scheme", "Basic " + good, 401},
		{"good token", "Bearer " + good, 200},
		{"lowercase scheme", "bearer " + good, 200},
	} {
		rec := do(tc.auth, "192.0.2.1:1000")
		if rec.Code != tc.want {
			t.Errorf("%s: %d, want %d: %s", tc.name, rec.Code, tc.want, rec.Body)
		}
		if tc.want == 401 && (!strings.Contains(rec.Body.String(), `"code":"unauthorized"`) || rec.Header().Get("WWW-Authenticate") == "") {
			t.Errorf("%s: %s %v", tc.name, rec.Body, rec.Header())
		}
	}
	// Ten failures from one client, then 429; a valid token still passes.
	for i := 0; i < 12; i++ {
		do("Bearer nope", "192.0.2.9:1")
	}
	if rec := do("Bearer nope", "192.0.2.9:1"); rec.Code != 429 || rec.Header().Get("Retry-After") == "" {
		t.Errorf("after many failures: %d %v", rec.Code, rec.Header())
	}
	if rec := do("Bearer "+good, "192.0.2.9:1"); rec.Code != 200 {
		t.Errorf("a good token after many failures: %d", rec.Code)
	}
	// The database is down: a token seen valid before still passes, others
	// get a 500 JSON error.
	store.fail = true
	if rec := do("Bearer "+good, "192.0.2.1:1000"); rec.Code != 200 {
		t.Errorf("a known token with the database down: %d %s", rec.Code, rec.Body)
	}
	if rec := do("Bearer sdt_unknown", "192.0.2.1:1000"); rec.Code != 500 {
		t.Errorf("an unknown token with the database down: %d %s", rec.Code, rec.Body)
	}
}
