package health

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/internal/route"
	"github.com/statusd/statusd/internal/snapshot"
)

type snaps struct{ snap *snapshot.Snapshot }

func (s snaps) Current() *snapshot.Snapshot { return s.snap }

// store answers Version with err, or blocks until the context is done
// when block is set, and CheckWrites with writeErr.
type store struct {
	err      error
	block    bool
	writeErr error
}

func (s store) CheckWrites(context.Context) error { return s.writeErr }

func (s store) Version(ctx context.Context) (int64, error) {
	if s.block {
		<-ctx.Done()
		return 0, ctx.Err()
	}
	return 7, s.err
}

func page() *snapshot.Snapshot {
	now := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	return snapshot.Build(&statusd.Document{Page: statusd.Page{Name: "P", URL: "https://p.test", CreatedAt: now, UpdatedAt: now}},
		1, now, snapshot.Options{Variant: statusd.VariantA})
}

func TestProbes(t *testing.T) {
	for _, tc := range []struct {
		name    string
		snaps   snaps
		store   store
		status  int
		reasons []string
	}{
		{"ready", snaps{page()}, store{}, 200, nil},
		{"no page", snaps{}, store{}, 503, []string{"no page has been published yet: nothing to serve"}},
		{"database error", snaps{page()}, store{err: errors.New("dial tcp 10.0.0.5:5432: connection refused user=secret")}, 503,
			[]string{"the database cannot be read"}},
		{"writes fail", snaps{page()}, store{writeErr: fmt.Errorf("%w: disk full at /var/lib/secret",
			statusd.Errorf(statusd.EUnavailable, "the database disk is full"))}, 503, []string{"the database disk is full"}},
		{"writes fail, reads too", snaps{page()}, store{err: errors.New("down"), writeErr: errors.New("down")}, 503,
			[]string{"the database cannot be read"}},
		{"database slow", snaps{page()}, store{block: true}, 503, []string{"the database did not answer within 50ms"}},
		{"both", snaps{}, store{err: errors.New("down")}, 503,
			[]string{"no page has been published yet: nothing to serve", "the database cannot be read"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var logs bytes.Buffer
			c := New(tc.snaps, tc.store, 50*time.Millisecond, slog.New(slog.NewTextHandler(&logs, nil)))
			mux := http.NewServeMux()
			errs := route.NewErrors(nil, nil)
			mux.Handle("/healthz", errs.Serve(c.Healthz))
			mux.Handle("/readyz", errs.Serve(c.Readyz))

			rec := httptest.NewRecorder()
			mux.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/healthz", nil))
			if rec.Code != 200 || strings.TrimSpace(rec.Body.String()) != `{"status":"ok"}` {
				t.Errorf("/healthz: %d %s", rec.Code, rec.Body)
			}
			for i := 0; i < 2; i++ {
				rec = httptest.NewRecorder()
				start := time.Now()
				mux.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/readyz", nil))
				if took := time.Since(start); took > time.Second {
					t.Errorf("/readyz took %v", took)
				}
				if rec.Code != tc.status || rec.Header().Get("Cache-Control") != "no-store" ||
					rec.Header().Get("Content-Type") != "application/json; charset=utf-8" {
					t.Errorf("/readyz: %d %v", rec.Code, rec.Header())
				}
				var got Answer
				if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil {
					t.Fatalf("/readyz body %s: %v", rec.Body, err)
				}
				want := Answer{Status: "ok"}
				if tc.status != 200 {
					want = Answer{Status: "degraded", Reasons: tc.reasons}
				}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("/readyz: %+v, want %+v", got, want)
				}
				if strings.Contains(rec.Body.String(), "10.0.0.5") || strings.Contains(rec.Body.String(), "secret") {
					t.Errorf("/readyz leaks the database error: %s", rec.Body)
				}
			}
			// A degraded probe is logged once, not on every probe.
			if n := strings.Count(logs.String(), "not ready"); (tc.status == 503 && n != 1) || (tc.status == 200 && n != 0) {
				t.Errorf("logged %d times:\n%s", n, logs.String())
			}
		})
	}
}

// TestNotes: background trouble (the mail relay's) is named in /readyz's
// notes, ready or not, without making the process unready.
func TestNotes(t *testing.T) {
	relay := "the mail relay 127.0.0.1:25: refuses recipients at several domains alike"
	for _, tc := range []struct {
		name   string
		snaps  snaps
		status int
		want   Answer
	}{
		{"ready", snaps{page()}, 200, Answer{Status: "ok", Notes: []string{relay}}},
		{"no page", snaps{}, 503, Answer{Status: "degraded", Reasons: []string{"no page has been published yet: nothing to serve"}, Notes: []string{relay}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := New(tc.snaps, store{}, 50*time.Millisecond, nil).WithNotes(func() []string { return []string{relay} })
			rec := httptest.NewRecorder()
			route.NewErrors(nil, nil).Serve(c.Readyz).ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/readyz", nil))
			var got Answer
			if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil || rec.Code != tc.status || !reflect.DeepEqual(got, tc.want) {
				t.Errorf("/readyz: %d %s (%v), want %d %+v", rec.Code, rec.Body, err, tc.status, tc.want)
			}
		})
	}
}
