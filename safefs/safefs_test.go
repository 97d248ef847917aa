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
		if _, _, err := r.WriteTemp(p, "", []byte("x"), 0o644, false); !errors.Is(err, ErrSymlink) {
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
	tmp, _, err := r.WriteTemp("final", "", []byte("new\n"), 0o644, false)
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
	tmp, created, err := r.WriteTemp("a/b/x.sh", "", []byte("#!/bin/sh\n"), 0o755, true)
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

// A held root opens each directory once, whatever the number of
// operations in it, and keeps going in the directory it opened when the
// name is swapped for a symlink: it never follows the link, and Moved
// names the directory.
func TestAHeldRootOpensEachDirectoryOnceAndNeverFollowsASwap(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "a", "b"), 0o755)
	os.MkdirAll(filepath.Join(dir, "outside"), 0o755)
	r, err := Hold(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for i := 0; i < 50; i++ {
		tmp, _, err := r.WriteTemp("a/b/f", "", []byte("x"), 0o644, false)
		if err != nil {
			t.Fatal(err)
		}
		if err := r.Rename(tmp, "a/b/f"); err != nil {
			t.Fatal(err)
		}
		if _, err := r.Lstat("a/b/f"); err != nil {
			t.Fatal(err)
		}
	}
	if n := r.Opens(); n != 2 {
		t.Errorf("150 operations in a/b opened %d directories, want 2 (a and a/b)", n)
	}
	if m := r.Moved(); len(m) != 0 {
		t.Errorf("Moved = %v before any swap", m)
	}
	// Swap a for a symlink to a directory outside.
	if err := os.Rename(filepath.Join(dir, "a"), filepath.Join(dir, "a-old")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("outside", filepath.Join(dir, "a")); err != nil {
		t.Fatal(err)
	}
	tmp, _, err := r.WriteTemp("a/b/g", "", []byte("y"), 0o644, false)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Remove(tmp); err != nil {
		t.Errorf("the temp file made through the held directory cannot be removed: %v", err)
	}
	if ents, _ := os.ReadDir(filepath.Join(dir, "outside")); len(ents) != 0 {
		t.Errorf("a write followed the swapped symlink: %v", ents)
	}
	if m := r.Moved(); len(m) != 1 || m[0] != "a" {
		t.Errorf("Moved = %v, want [a]", m)
	}
	// A fresh walk refuses the symlink.
	if _, err := r.Lstat("a/c"); err != nil {
		t.Logf("Lstat(a/c) = %v", err)
	}
	o, _ := Open(dir)
	defer o.Close()
	if _, err := o.Lstat("a/b/f"); !errors.Is(err, ErrSymlink) {
		t.Errorf("an unheld root's Lstat through the swapped link = %v, want ErrSymlink", err)
	}
}

// RemoveDir lets go of a held directory, and a held root closes all its
// descriptors.
func TestAHeldRootReleasesItsDirectories(t *testing.T) {
	dir := t.TempDir()
	r, err := Hold(dir)
	if err != nil {
		t.Fatal(err)
	}
	created, err := r.MkdirAll("x/y/z")
	if err != nil || len(created) != 3 {
		t.Fatalf("MkdirAll = %v, %v", created, err)
	}
	if r.Held() != 3 {
		t.Errorf("held %d, want 3", r.Held())
	}
	for _, d := range []string{"x/y/z", "x/y"} {
		if err := r.RemoveDir(d); err != nil {
			t.Fatal(err)
		}
	}
	if r.Held() != 1 {
		t.Errorf("held %d after two rmdirs, want 1", r.Held())
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if r.Held() != 0 {
		t.Errorf("held %d after Close", r.Held())
	}
}
