package safefs

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

func tree(t *testing.T) (string, *Root) {
	t.Helper()
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "real"), 0o755)
	os.MkdirAll(filepath.Join(dir, ".git"), 0o755)
	os.WriteFile(filepath.Join(dir, "real", "f"), []byte("real\n"), 0o644)
	os.WriteFile(filepath.Join(dir, ".git", "config"), []byte("[core]\n"), 0o644)
	os.Symlink("real", filepath.Join(dir, "link"))
	os.Symlink(".git", filepath.Join(dir, "s"))
	os.Symlink("/etc", filepath.Join(dir, "out"))
	os.Symlink("real/f", filepath.Join(dir, "final"))
	r, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return dir, r
}

// A symlink anywhere on the way is refused by the kernel, for reads and
// writes alike; s -> .git never reaches .git/config.
func TestSymlinksOnThePathAreRefused(t *testing.T) {
	dir, r := tree(t)
	for _, p := range []string{"link/f", "s/config", "out/passwd", "link/new/deeper"} {
		if _, err := r.ReadFile(p); !errors.Is(err, ErrSymlink) {
			t.Errorf("ReadFile(%s) = %v, want ErrSymlink", p, err)
		}
		if _, _, err := r.WriteTemp(p, []byte("x"), 0o644, false); !errors.Is(err, ErrSymlink) {
			t.Errorf("WriteTemp(%s) = %v, want ErrSymlink", p, err)
		}
		if _, err := r.Lstat(p); !errors.Is(err, ErrSymlink) {
			t.Errorf("Lstat(%s) = %v, want ErrSymlink", p, err)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(dir, ".git", "config")); string(b) != "[core]\n" {
		t.Errorf(".git/config changed: %q", b)
	}
}

// A final-component symlink is reported as a symlink and never followed by
// ReadFile; renaming over it replaces the link, not its target.
func TestAFinalSymlinkIsReplacedNeverFollowed(t *testing.T) {
	dir, r := tree(t)
	info, err := r.Lstat("final")
	if err != nil || !info.Symlink {
		t.Fatalf("Lstat(final) = %+v, %v", info, err)
	}
	if _, err := r.ReadFile("final"); err == nil {
		t.Error("ReadFile followed a final symlink")
	}
	tmp, _, err := r.WriteTemp("final", []byte("new\n"), 0o644, false)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Rename(tmp, "final"); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "real", "f")); string(b) != "real\n" {
		t.Errorf("the link's target changed: %q", b)
	}
	if fi, _ := os.Lstat(filepath.Join(dir, "final")); fi.Mode()&fs.ModeSymlink != 0 {
		t.Error("final is still a symlink")
	}
}

// WriteTemp sets the exact mode whatever the umask, and makes missing
// directories, listing them so a rollback can remove them.
func TestWriteTempModeAndDirectories(t *testing.T) {
	dir, r := tree(t)
	tmp, created, err := r.WriteTemp("a/b/x.sh", []byte("#!/bin/sh\n"), 0o755, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(created) != 2 || created[0] != "a" || created[1] != "a/b" {
		t.Errorf("created = %v", created)
	}
	fi, err := os.Stat(filepath.Join(dir, filepath.FromSlash(tmp)))
	if err != nil || fi.Mode().Perm() != 0o755 {
		t.Errorf("temp mode = %v, %v", fi.Mode(), err)
	}
}

// Exchange swaps two names atomically; RenameNoReplace never replaces.
func TestExchangeAndNoReplace(t *testing.T) {
	dir, r := tree(t)
	os.WriteFile(filepath.Join(dir, "real", "g"), []byte("g\n"), 0o644)
	err := r.Exchange("real/f", "real/g")
	if errors.Is(err, ErrNoExchange) {
		t.Skip("this filesystem cannot exchange names atomically")
	}
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := r.ReadFile("real/f"); string(b) != "g\n" {
		t.Errorf("after exchange real/f = %q", b)
	}
	if err := r.RenameNoReplace("real/f", "real/g"); !errors.Is(err, fs.ErrExist) {
		t.Errorf("RenameNoReplace over an existing file = %v, want ErrExist", err)
	}
}

// Inject fails the named operation with the given error, before it runs.
func TestInjectFailsTheOperation(t *testing.T) {
	dir, r := tree(t)
	r.Inject = func(op, path string) error {
		if op == "rename" {
			return errors.New("injected")
		}
		return nil
	}
	tmp, _, err := r.WriteTemp("real/f", []byte("new\n"), 0o644, false)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Rename(tmp, "real/f"); err == nil || err.Error() != "rename real/f: injected" {
		t.Errorf("Rename = %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "real", "f")); string(b) != "real\n" {
		t.Errorf("the injected rename changed the file: %q", b)
	}
}
