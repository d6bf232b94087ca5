package mirror_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/statusd/statusd/internal/mirror"
)

func TestDir(t *testing.T) {
	dir := t.TempDir()
	b, err := mirror.Open("file://"+dir, mirror.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	if err := b.Put(ctx, "api/v1/summary.json", []byte(`{"status":"up"}`), "application/json"); err != nil {
		t.Fatal(err)
	}
	if got, err := b.Get(ctx, "api/v1/summary.json"); err != nil || string(got) != `{"status":"up"}` {
		t.Errorf("Get = %q, %v", got, err)
	}
	if err := b.Delete(ctx, "api/v1/summary.json"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "api")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the emptied folder api is still there: %v", err)
	}
	if _, err := os.Stat(dir); err != nil {
		t.Errorf("the mirror's own folder went: %v", err)
	}
	if _, err := b.Get(ctx, "api/v1/summary.json"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Get after Delete: %v, want fs.ErrNotExist", err)
	}
	if err := b.Delete(ctx, "api/v1/summary.json"); err != nil {
		t.Errorf("Delete of a missing key: %v", err)
	}
	if err := b.Put(ctx, "../x", []byte("x"), "text/plain"); err == nil {
		t.Error(`Put("../x") succeeded`)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(dir), "x")); err == nil {
		t.Error(`Put("../x") wrote beside the mirror`)
	}
}
