package gitindex

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// project is the committed state that the staging tests start from. Every
// directory has a valid cache-tree node after the commit.
var project = map[string]string{
	"a.txt":             "a\n",
	"dir/x.txt":         "x\n",
	"dir/sub/y.txt":     "y\n",
	"dir/sub/z.txt":     "z\n",
	"other/o.txt":       "o\n",
	"other/deep/p.txt":  "p\n",
	"zed/last.txt":      "last\n",
	"dir/sub2/keep.txt": "keep\n",
}

func setupProject(t *testing.T, version string, initArgs ...string) *repo {
	r := newRepo(t, initArgs...)
	var paths []string
	for p, c := range project {
		r.write(p, c)
		paths = append(paths, p)
	}
	r.age(paths...)
	r.git("add", ".")
	r.git("update-index", "--index-version", version)
	r.git("commit", "-qm", "base")
	return r
}

// clone copies the repository directory (worktree and .git), so that the
// same change can be made with git's own commands as a reference.
func (r *repo) clone() *repo {
	r.t.Helper()
	dst := filepath.Join(r.t.TempDir(), "w")
	if out, err := exec.Command("cp", "-a", r.dir, dst).CombinedOutput(); err != nil {
		r.t.Fatalf("cp: %v\n%s", err, out)
	}
	c := *r
	c.dir = dst
	return &c
}

// TestStagedChangesAgreeWithGit: nika's way of staging a change set (write
// the files, write the blobs, Set/Remove the entries, one locked write of the
// index) leaves an index that git reads exactly as if `git add`/`git rm
// --cached` had staged the same change: same entries, same status, same
// tree from `git write-tree` (which trusts the cache-tree), and fsck clean.
func TestStagedChangesAgreeWithGit(t *testing.T) {
	variants := []struct {
		name, version string
		init          []string
	}{
		{"version 2", "2", nil},
		{"version 3", "3", nil},
		{"version 4", "4", nil},
		{"version 4, SHA-256", "4", []string{"--object-format=sha256"}},
	}
	for _, v := range variants {
		t.Run(v.name, func(t *testing.T) {
			r := setupProject(t, v.version, v.init...)
			before := r.decode()
			for _, dir := range []string{"", "dir", "dir/sub", "other", "other/deep"} {
				if n := before.treeNodeForTest(t, dir); n == nil || n.count < 0 {
					t.Fatalf("precondition: the cache-tree node %q should be valid after commit", dir)
				}
			}
			ref := r.clone()

			// The change set: modify, delete, create in an existing and in a
			// new directory.
			changes := map[string]string{
				"dir/sub/y.txt":   "y changed\n",
				"dir/sub/new.txt": "new in sub\n",
				"new/file.txt":    "brand new\n",
			}
			deleted := []string{"dir/x.txt", "zed/last.txt"} // the second empties its directory

			// The reference: git's own commands.
			for p, c := range changes {
				ref.write(p, c)
			}
			ref.git("add", "dir/sub/y.txt", "dir/sub/new.txt", "new/file.txt")
			for _, p := range deleted {
				ref.git("rm", "-q", "--cached", p)
				if err := os.Remove(filepath.Join(ref.dir, p)); err != nil {
					t.Fatal(err)
				}
			}

			// nika's way: lock, read, Set/Remove, write once.
			l, err := LockIndex(r.indexPath(), 0)
			if err != nil {
				t.Fatal(err)
			}
			ix, err := ReadFile(r.indexPath(), r.hs)
			if err != nil {
				t.Fatal(err)
			}
			for p, c := range changes {
				r.write(p, c)
				r.age(p)
				if err := ix.Set(r.entryFor(p, c)); err != nil {
					t.Fatalf("Set(%s): %v", p, err)
				}
			}
			for _, p := range deleted {
				if err := os.Remove(filepath.Join(r.dir, p)); err != nil {
					t.Fatal(err)
				}
				if !ix.Remove(p) {
					t.Fatalf("Remove(%s) = false", p)
				}
			}
			b, err := ix.Encode()
			if err != nil {
				t.Fatal(err)
			}
			if _, err := l.Write(b); err != nil {
				t.Fatal(err)
			}
			if err := l.Commit(); err != nil {
				t.Fatal(err)
			}

			// The cache-tree: invalid exactly on the changed paths.
			after := r.decode()
			for dir, valid := range map[string]bool{
				"": false, "dir": false, "dir/sub": false,
				"other": true, "other/deep": true, "zed": false, "dir/sub2": true,
			} {
				n := after.treeNodeForTest(t, dir)
				if n == nil || (n.count >= 0) != valid {
					t.Errorf("cache-tree node %q: valid=%v, want %v", dir, n != nil && n.count >= 0, valid)
				}
			}

			if got, want := r.git("ls-files", "-s"), ref.git("ls-files", "-s"); got != want {
				t.Errorf("git ls-files -s:\n got:\n%s\nwant:\n%s", got, want)
			}
			wantStatus := "A  dir/sub/new.txt\nM  dir/sub/y.txt\nD  dir/x.txt\nA  new/file.txt\nD  zed/last.txt\n"
			if got := r.git("status", "--porcelain"); got != wantStatus {
				t.Errorf("git status --porcelain:\n got:\n%s\nwant:\n%s", got, wantStatus)
			}
			if got, want := r.git("diff", "--cached"), ref.git("diff", "--cached"); got != want {
				t.Errorf("git diff --cached:\n got:\n%s\nwant:\n%s", got, want)
			}
			if got := r.git("diff-files", "--name-status"); got != "" {
				t.Errorf("git diff-files: the worktree differs from the index:\n%s", got)
			}
			r.git("fsck", "--strict", "--no-dangling")
			if got, want := r.git("write-tree"), ref.git("write-tree"); got != want {
				t.Errorf("git write-tree = %s, want %s", strings.TrimSpace(got), strings.TrimSpace(want))
			}
		})
	}
}

// TestStaleCacheTreeWouldBeCaught is the control for the test above: without
// the invalidation, git write-tree trusts the stale cache-tree and returns the
// old tree. The comparison with the reference would have caught it.
func TestStaleCacheTreeWouldBeCaught(t *testing.T) {
	r := setupProject(t, "2")
	base := r.git("write-tree")
	ix, err := ReadFile(r.indexPath(), r.hs)
	if err != nil {
		t.Fatal(err)
	}
	ix.noInvalidate = true
	r.write("dir/sub/y.txt", "y changed\n")
	if err := ix.Set(r.entryFor("dir/sub/y.txt", "y changed\n")); err != nil {
		t.Fatal(err)
	}
	r.commitIndex(ix)
	if got := r.git("write-tree"); got != base {
		t.Fatalf("control failed: with a stale cache-tree git write-tree = %s, expected the stale base tree %s", got, base)
	}
	// The entry itself is staged; only the stale cache-tree hides it (from
	// git diff --cached, too, which also trusts the cache-tree).
	if i, ok := r.decode().Find("dir/sub/y.txt"); !ok || string(r.decode().Entries[i].Hash) != string(r.blob("y changed\n")) {
		t.Fatalf("control: the change should be in the index")
	}
}

// treeNodeForTest returns the cache-tree node of dir ("" for the root), or
// nil if there is none.
func (ix *Index) treeNodeForTest(t *testing.T, dir string) *treeNode {
	t.Helper()
	var raw []byte
	for _, x := range ix.exts {
		if x.sig == "TREE" {
			raw = x.data
		}
	}
	if raw == nil {
		t.Fatalf("no TREE extension")
	}
	n := parseTree(raw, ix.HashSize)
	if n == nil {
		t.Fatalf("TREE does not parse")
	}
	if dir == "" {
		return n
	}
	for _, comp := range strings.Split(dir, "/") {
		var next *treeNode
		for _, c := range n.children {
			if c.name == comp {
				next = c
			}
		}
		if next == nil {
			return nil
		}
		n = next
	}
	return n
}
