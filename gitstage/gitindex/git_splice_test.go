package gitindex

import (
	"bytes"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestSpliceWritesWhatGitWrites: from the same index file and the same
// files on disk, nika's update (Open, Set and Remove, the racy check that
// apply does, WriteTo through index.lock) writes the bytes that `git
// update-index` writes, for versions 2, 3 and 4 (feature.manyFiles), SHA-1
// and SHA-256, with the cache-tree, the untracked cache and racily clean
// entries. Where git keeps an extension that nika drops (fsmonitor), git
// still reads the same entries, status and tree. Each result is also
// what Decode and a full Encode of the same edits give.
func TestSpliceWritesWhatGitWrites(t *testing.T) {
	base := func(r *repo) {
		populate(r)
		r.write("dir/sub/x.txt", "x\n")
		r.write("dir/sub/y.txt", "y\n")
		r.write("dir/z.txt", "z\n")
		r.write("other/deep/p.txt", "p\n")
		r.git("add", ".")
		r.git("commit", "-qm", "base")
	}
	variants := []struct {
		name  string
		init  []string
		setup func(r *repo)
		racy  bool
		exact bool
	}{
		{name: "version 2, cache-tree", setup: base, exact: true},
		{name: "version 3, skip-worktree and intent-to-add", setup: func(r *repo) {
			base(r)
			r.git("update-index", "--skip-worktree", "z/last.txt")
			r.write("ita.txt", "later\n")
			r.git("add", "-N", "ita.txt")
		}, exact: true},
		{name: "version 4, feature.manyFiles, untracked cache", setup: func(r *repo) {
			r.git("config", "feature.manyFiles", "true")
			base(r)
			r.write("untracked/u.txt", "u\n")
			r.git("status", "--porcelain")
		}, exact: true},
		{name: "SHA-256, version 4", init: []string{"--object-format=sha256"}, setup: func(r *repo) {
			base(r)
			r.git("update-index", "--index-version", "4")
		}, exact: true},
		{name: "racily clean entries", setup: base, racy: true, exact: true},
		{name: "fsmonitor", setup: func(r *repo) { base(r); r.fsmonitor() }},
	}
	ops := []struct {
		name    string
		modify  map[string]string
		remove  []string
		gitArgs []string
	}{
		{name: "one file rewritten", modify: map[string]string{"dir/sub/x.txt": "x, rewritten\n"},
			gitArgs: []string{"--", "dir/sub/x.txt"}},
		{name: "rewrite, create and delete", modify: map[string]string{"dir/sub/x.txt": "x2\n", "dir/new/n.txt": "n\n", "a0.txt": "first\n"},
			remove: []string{"a/b/c.txt"}, gitArgs: []string{"--add", "--remove", "--", "a/b/c.txt", "a0.txt", "dir/new/n.txt", "dir/sub/x.txt"}},
	}
	for _, v := range variants {
		for _, op := range ops {
			t.Run(v.name+", "+op.name, func(t *testing.T) {
				r := newRepo(t, v.init...)
				v.setup(r)
				if v.racy {
					// The index is no newer than the files (as after a
					// commit in the same second as the edits): git and nika
					// both compare each racily clean entry with its file.
					oldest := time.Now()
					for _, p := range strings.Split(strings.TrimRight(r.git("ls-files", "-z"), "\x00"), "\x00") {
						if fi, err := os.Lstat(filepath.Join(r.dir, p)); err == nil && fi.ModTime().Before(oldest) {
							oldest = fi.ModTime()
						}
					}
					os.Chtimes(r.indexPath(), oldest.Truncate(time.Second), oldest.Truncate(time.Second))
				}
				for p, c := range op.modify {
					r.write(p, c)
				}
				for _, p := range op.remove {
					if err := os.Remove(filepath.Join(r.dir, p)); err != nil {
						t.Fatal(err)
					}
				}
				before := r.indexBytes()
				fi, _ := os.Stat(r.indexPath())
				mtime := fi.ModTime()
				if v.racy {
					if ix, _ := Open(r.indexPath(), r.hs); len(ix.Racy()) < 5 {
						t.Fatalf("precondition: %d racily clean entries", len(ix.Racy()))
					}
				}

				// nika's way.
				l, err := LockIndex(r.indexPath(), 0)
				if err != nil {
					t.Fatal(err)
				}
				ix, err := Open(r.indexPath(), r.hs)
				if err != nil {
					t.Fatal(err)
				}
				full, _ := decode(before, r.hs)
				full.ModTime = ix.ModTime
				for _, x := range []*Index{ix, full} {
					for _, p := range op.remove {
						x.Remove(p)
					}
					for p, c := range op.modify {
						if err := x.Set(r.entryFor(p, c)); err != nil {
							t.Fatal(err)
						}
					}
					vouchLikeApply(t, r, x)
				}
				if _, err := ix.WriteTo(l); err != nil {
					t.Fatal(err)
				}
				if err := l.Commit(); err != nil {
					t.Fatal(err)
				}
				nika := r.indexBytes()
				if want, _ := full.Encode(); !bytes.Equal(nika, want) {
					t.Fatalf("the spliced index differs from the full encode at byte %d", firstDiff(nika, want))
				}
				nikaView := r.views()

				// git's way, from the same index file (same bytes, same mtime).
				r.setIndexBytes(before)
				os.Chtimes(r.indexPath(), mtime, mtime)
				// (The test's fsmonitor hook reports no change: git would
				// believe it and skip the files.)
				r.git(append([]string{"-c", "core.fsmonitor=false", "update-index"}, op.gitArgs...)...)
				gitBytes := r.indexBytes()
				gitView := r.views()

				// nika drops the untracked cache when paths come or go (git
				// rebuilds it on its next status); git updates it.
				exact := v.exact && !(strings.Contains(v.name, "untracked") && len(op.remove) > 0)
				if exact && !bytes.Equal(nika, gitBytes) {
					t.Errorf("nika wrote %d bytes, git %d; they differ at byte %d", len(nika), len(gitBytes), firstDiff(nika, gitBytes))
				}
				for k, want := range gitView {
					if got := nikaView[k]; got != want {
						t.Errorf("%s after nika's update:\n%s\nafter git's:\n%s", k, got, want)
					}
				}
			})
		}
	}
}

// vouchLikeApply does what consent's vouchRacy does: a racily clean entry
// whose file still has its stat data and its content keeps its stat data.
func vouchLikeApply(t *testing.T, r *repo, ix *Index) {
	t.Helper()
	for _, i := range ix.Racy() {
		e := ix.At(i)
		fi, err := os.Lstat(filepath.Join(r.dir, e.Path))
		if err != nil || !fi.Mode().IsRegular() || StatInfo(fi) != e.Stat {
			continue
		}
		b, _ := os.ReadFile(filepath.Join(r.dir, e.Path))
		if hex.EncodeToString(r.blob(string(b))) == hex.EncodeToString(e.Hash) {
			ix.Vouch(i)
		}
	}
}

// views is what git says of the index in place: its entries with their
// stat data, the status, the tree it would commit, and that fsck is clean.
func (r *repo) views() map[string]string {
	r.t.Helper()
	return map[string]string{
		"git ls-files --stage --debug": r.git("ls-files", "--stage", "--debug"),
		"git status --porcelain":       r.git("-c", "core.fsmonitor=false", "status", "--porcelain", "--untracked-files=all"),
		"git write-tree":               r.git("write-tree"),
		"git fsck --strict":            r.git("fsck", "--strict", "--no-dangling"),
	}
}
