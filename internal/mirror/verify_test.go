package mirror_test

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/statusd/statusd/internal/mirror"
	"github.com/statusd/statusd/internal/testenv"
)

func TestCheck(t *testing.T) {
	pub, priv := newKey(t)
	dir := mirror.Dir(t.TempDir())
	writeCopy(t, dir, priv, 41, sample)
	ctx := context.Background()
	report, err := mirror.Check(ctx, dir, pub)
	if err != nil || report.Manifest.Sequence != 41 || len(report.Manifest.Files) != len(sample) || report.Problems != nil {
		t.Fatalf("Check of a whole copy: %+v, %v", report, err)
	}

	// One file changed under its key, one gone.
	if err := dir.Put(ctx, "api/v1/status", []byte(`{"page":"tampered"}`), jsonType); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(string(dir), "_q", "planned.json")); err != nil {
		t.Fatal(err)
	}
	report, err = mirror.Check(ctx, dir, pub)
	want := []mirror.Problem{
		{Target: "/api/v1/notices?filter%5Btype_eq%5D=planned", Reason: "missing: there is nothing at _q/planned.json"},
		{Target: "/api/v1/status", Reason: "the SHA-256 of api/v1/status is not mirror.json's"},
	}
	if err != nil || !slices.Equal(report.Problems, want) {
		t.Errorf("Check of a tampered copy: %+v, %v; want the problems %+v", report, err, want)
	}

	other, _ := newKey(t)
	if _, err := mirror.Check(ctx, dir, other); err == nil || !strings.Contains(err.Error(), "not this key's signature") {
		t.Errorf("Check with another key: %v, want the signature refused", err)
	}
	if _, err := mirror.Check(ctx, dir, nil); err == nil {
		t.Error("Check without a key: no error")
	}
}

// TestFollow: a copy that cannot be loaded is logged once while it
// cannot, and once when it loads again, with the copy it serves.
func TestFollow(t *testing.T) {
	pub, priv := newKey(t)
	dir := mirror.Dir(t.TempDir())
	b := &counting{Bucket: dir}
	s, _ := newServer(t)
	logs := &testenv.LogBuffer{}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		s.Follow(ctx, mirror.Source{Bucket: b, Key: pub}, time.Millisecond, slog.New(slog.NewTextHandler(logs, nil)))
		close(done)
	}()
	defer func() { cancel(); <-done }()
	waitFor(t, "three failed refreshes", func() bool { return len(b.taken()) >= 3 })
	writeCopy(t, dir, priv, 7, sample)
	waitFor(t, "the copy", func() bool { return s.Copy() != nil })
	cancel()
	<-done
	got := logs.String()
	for msg, n := range map[string]int{"the mirror could not be loaded": 1, "the mirror loads again": 1, "serving a copy of the mirror": 1} {
		if strings.Count(got, msg) != n {
			t.Errorf("%q logged %d times, want %d:\n%s", msg, strings.Count(got, msg), n, got)
		}
	}
	if !strings.Contains(got, "sequence=7") {
		t.Errorf("the copy served is not logged with its sequence:\n%s", got)
	}
}

// waitFor waits up to 10 seconds for cond.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no %s after 10 s", what)
		}
	}
}
