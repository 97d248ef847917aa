package gitstage

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/nika-dev/nika/gitstage/gittest"
)

// TestTreeFSIsTheCommitsTree: the file system of a commit's tree holds
// exactly the files git ls-tree lists, with the bytes git show prints, and
// passes the standard library's file system conformance test.
func TestTreeFSIsTheCommitsTree(t *testing.T) {
	g := gittest.New(t)
	g.Write("flows/main.nika.yaml", "nika: main\n")
	g.Write("flows/lib/child.nika.yaml", "nika: child\n")
	g.Write("skills/s/SKILL.md", "---\nname: s\ndescription: d\n---\n")
	g.Write("README.md", "hello\n")
	commit := g.Commit("first")
	// The working tree moves on; the tree file system does not.
	g.Write("flows/lib/child.nika.yaml", "nika: edited\n")
	r, err := Open(g.Dir)
	if err != nil {
		t.Fatal(err)
	}
	c, err := r.Commit(plumbing.NewHash(commit))
	if err != nil {
		t.Fatal(err)
	}
	fsys := r.TreeFS(c.TreeHash.String())
	if err := fstest.TestFS(fsys, "flows/main.nika.yaml", "flows/lib/child.nika.yaml", "skills/s/SKILL.md", "README.md"); err != nil {
		t.Fatal(err)
	}
	b, err := fs.ReadFile(fsys, "flows/lib/child.nika.yaml")
	if err != nil || string(b) != g.Git("show", commit+":flows/lib/child.nika.yaml")+"\n" {
		t.Fatalf("ReadFile = %q, %v; want git show's bytes", b, err)
	}
	for _, name := range []string{"flows/absent.nika.yaml", "nowhere/x", "README.md/x"} {
		if _, err := fs.ReadFile(fsys, name); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("ReadFile(%s) = %v, want fs.ErrNotExist", name, err)
		}
	}
	for _, name := range []string{"../x", "/etc/passwd", "flows/../README.md"} {
		if _, err := fs.ReadFile(fsys, name); !errors.Is(err, fs.ErrInvalid) {
			t.Errorf("ReadFile(%s) = %v, want fs.ErrInvalid", name, err)
		}
	}
}

// TestTreeFSNeverFollowsASymlink: a symlink committed in the tree answers
// ErrNotRegular, not the bytes of the file it points at, and is not
// reported missing either.
func TestTreeFSNeverFollowsASymlink(t *testing.T) {
	g := gittest.New(t)
	g.Write("secret.txt", "do not read\n")
	if err := os.Symlink("secret.txt", filepath.Join(g.Dir, "link.md")); err != nil {
		t.Skipf("cannot make a symlink here: %v", err)
	}
	commit := g.Commit("link")
	r, err := Open(g.Dir)
	if err != nil {
		t.Fatal(err)
	}
	c, err := r.Commit(plumbing.NewHash(commit))
	if err != nil {
		t.Fatal(err)
	}
	fsys := r.TreeFS(c.TreeHash.String())
	b, err := fs.ReadFile(fsys, "link.md")
	if !errors.Is(err, ErrNotRegular) || errors.Is(err, fs.ErrNotExist) || b != nil {
		t.Fatalf("ReadFile(link.md) = %q, %v; want ErrNotRegular", b, err)
	}
	fi, err := fs.Stat(fsys, "link.md")
	if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Fatalf("Stat(link.md) = %v, %v; want a symlink", fi, err)
	}
}

// TestTreeFSEmptyTree: the empty id is the empty tree of an unborn base.
func TestTreeFSEmptyTree(t *testing.T) {
	g := gittest.New(t)
	r, err := Open(g.Dir)
	if err != nil {
		t.Fatal(err)
	}
	fsys := r.TreeFS("")
	if _, err := fs.ReadFile(fsys, "a.nika.yaml"); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("ReadFile on the empty tree = %v, want fs.ErrNotExist", err)
	}
	if err := fstest.TestFS(fsys); err != nil {
		t.Fatal(err)
	}
}

// TestTreeFSDecodesOnlyTheAskedPath: reading one file decodes the trees on
// its path and no other, however many directories the tree holds.
func TestTreeFSDecodesOnlyTheAskedPath(t *testing.T) {
	g := gittest.New(t)
	for _, d := range []string{"a", "b", "c", "d", "e", "f", "g", "h"} {
		g.Write(d+"/x/y.txt", d)
	}
	commit := g.Commit("wide")
	r, err := Open(g.Dir)
	if err != nil {
		t.Fatal(err)
	}
	c, err := r.Commit(plumbing.NewHash(commit))
	if err != nil {
		t.Fatal(err)
	}
	fsys := r.TreeFS(c.TreeHash.String())
	before := treeDecodes.Load()
	if b, err := fs.ReadFile(fsys, "e/x/y.txt"); err != nil || string(b) != "e" {
		t.Fatalf("ReadFile = %q, %v", b, err)
	}
	if n := treeDecodes.Load() - before; n != 3 {
		t.Errorf("reading e/x/y.txt decoded %d trees, want 3 (root, e, e/x)", n)
	}
}
