package safefs

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"golang.org/x/sys/unix"
)

func writeTree(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for p, b := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(b), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestFSReadsTheDiskBeneathTheRoot: the file system holds the files under
// the root with their bytes, and passes the standard library's file system
// conformance test.
func TestFSReadsTheDiskBeneathTheRoot(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"main.nika.yaml":      "nika: main\n",
		"lib/child.nika.yaml": "nika: child\n",
		"skills/s/SKILL.md":   "---\nname: s\n---\n",
	})
	fsys := DirFS(dir)
	if err := fstest.TestFS(fsys, "main.nika.yaml", "lib/child.nika.yaml", "skills/s/SKILL.md"); err != nil {
		t.Fatal(err)
	}
	b, err := fsys.ReadFile("lib/child.nika.yaml")
	if err != nil || string(b) != "nika: child\n" {
		t.Fatalf("ReadFile = %q, %v", b, err)
	}
	if _, err := fsys.ReadFile("lib/absent.nika.yaml"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a missing file: %v, want fs.ErrNotExist", err)
	}
	for _, name := range []string{"../x", "/etc/passwd", "lib/../main.nika.yaml", ""} {
		if _, err := fsys.ReadFile(name); !errors.Is(err, fs.ErrInvalid) {
			t.Errorf("ReadFile(%q) = %v, want fs.ErrInvalid", name, err)
		}
	}
}

// TestFSNeverFollowsASymlink: a symlink as the last component or on the
// way (to a file outside the root, to a directory) answers ErrSymlink, is
// never reported missing, and never yields the target's bytes.
func TestFSNeverFollowsASymlink(t *testing.T) {
	outside := t.TempDir()
	writeTree(t, outside, map[string]string{"secret.txt": "do not read\n", "d/child.nika.yaml": "nika: evil\n"})
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"real.txt": "ok\n"})
	for link, target := range map[string]string{
		"last.md": filepath.Join(outside, "secret.txt"),
		"via":     filepath.Join(outside, "d"),
		"inside":  "real.txt",
	} {
		if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
			t.Skipf("cannot make a symlink here: %v", err)
		}
	}
	fsys := DirFS(dir)
	for _, name := range []string{"last.md", "via/child.nika.yaml", "inside"} {
		b, err := fsys.ReadFile(name)
		if !errors.Is(err, ErrSymlink) || errors.Is(err, fs.ErrNotExist) || b != nil {
			t.Errorf("ReadFile(%s) = %q, %v; want ErrSymlink", name, b, err)
		}
		if _, err := fs.ReadFile(fsys, name); !errors.Is(err, ErrSymlink) && !strings.Contains(name, "/") {
			t.Errorf("fs.ReadFile(%s) through Open = %v; want ErrSymlink", name, err)
		}
	}
	fi, err := fsys.Stat("last.md")
	if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("Stat(last.md) = %v, %v; want a symlink, not its target", fi, err)
	}
	if _, err := fsys.ReadDir("via"); !errors.Is(err, ErrSymlink) {
		t.Errorf("ReadDir(via) = %v; want ErrSymlink", err)
	}
}

// TestFSBoundsWhatItReads: a file over the read limit answers ErrTooLarge,
// and a named pipe is refused without blocking.
func TestFSBoundsWhatItReads(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"big.md": strings.Repeat("x", 2048)})
	fsys := DirFS(dir)
	fsys.MaxRead = 1024
	if _, err := fsys.ReadFile("big.md"); !errors.Is(err, ErrTooLarge) {
		t.Errorf("ReadFile over the limit = %v, want ErrTooLarge", err)
	}
	fsys.MaxRead = 4096
	if b, err := fsys.ReadFile("big.md"); err != nil || len(b) != 2048 {
		t.Errorf("ReadFile under the limit = %d bytes, %v", len(b), err)
	}
	if err := mkfifo(filepath.Join(dir, "pipe")); err != nil {
		t.Skipf("cannot make a named pipe: %v", err)
	}
	if _, err := fsys.ReadFile("pipe"); err == nil || errors.Is(err, fs.ErrNotExist) {
		t.Errorf("ReadFile(pipe) = %v, want a refusal", err)
	}
}

func mkfifo(p string) error { return unix.Mkfifo(p, 0o600) }
