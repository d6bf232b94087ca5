package testenv

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
)

// SmallDisk mounts a tmpfs of size (as mount takes it: "2m") on a new
// folder and returns the folder; it is unmounted when the test ends. It
// needs root (mount), as CI runs.
func SmallDisk(t testing.TB, size string) string {
	t.Helper()
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+size, "tmpfs", dir).CombinedOutput(); err != nil {
		unavailable(t, "a small disk (a tmpfs)", "mount -t tmpfs failed, run the tests as root: "+string(bytes.TrimSpace(out)))
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", dir).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v %s", dir, err, out)
		}
	})
	return dir
}

// FillDisk writes a file in dir until the disk holding it is full, and
// returns the file's path: removing it frees the space again.
func FillDisk(t testing.TB, dir string) string {
	t.Helper()
	path := filepath.Join(dir, "filler")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	chunk := make([]byte, 64<<10)
	for {
		if _, err = f.Write(chunk); err != nil {
			break
		}
	}
	if !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("filling the disk of %s: %v, want ENOSPC", dir, err)
	}
	return path
}

// Immutable makes the file at path immutable (chattr +i): nobody, root
// included, can open it for writing until the returned function or the end
// of the test makes it mutable again.
func Immutable(t testing.TB, path string) (undo func()) {
	t.Helper()
	if out, err := exec.Command("chattr", "+i", path).CombinedOutput(); err != nil {
		unavailable(t, "an immutable file (chattr +i)", "chattr +i failed, run the tests as root on a file system that has the attribute (ext4, xfs, btrfs): "+
			string(bytes.TrimSpace(out)))
	}
	undo = func() {
		if out, err := exec.Command("chattr", "-i", path).CombinedOutput(); err != nil {
			t.Errorf("chattr -i %s: %v %s", path, err, out)
		}
	}
	t.Cleanup(undo)
	return undo
}
