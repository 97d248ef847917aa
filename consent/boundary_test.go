package consent_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/nika-dev/nika/consent"
	"github.com/nika-dev/nika/flow"
	"github.com/nika-dev/nika/gitstage"
	"github.com/nika-dev/nika/gitstage/gittest"
	"github.com/nika-dev/nika/refusal"
)

// residue lists every name under dirs that a transaction makes for itself
// (temp files, backups, a journal left behind).
func residue(t *testing.T, dirs ...string) []string {
	t.Helper()
	var out []string
	for _, dir := range dirs {
		filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
			if err != nil {
				return nil
			}
			name := fi.Name()
			if strings.Contains(name, ".nika-") || strings.HasSuffix(name, ".removed") ||
				(filepath.Base(filepath.Dir(p)) == "journal" && (strings.HasSuffix(name, ".json") || strings.HasSuffix(name, ".to") || strings.HasSuffix(name, ".tmp"))) {
				out = append(out, p)
			}
			return nil
		})
	}
	return out
}

// dirRepo commits two files in dir, one in dir/sub and one at the top, and
// proposes an update of each, a delete in dir and a create in a new
// directory.
func dirRepo(t *testing.T) (*gittest.Repo, *gitstage.Repo, *flow.Proposed, string) {
	t.Helper()
	g := gittest.New(t)
	g.Write("dir/a.nika.yaml", "nika: a1\n")
	g.Write("dir/b.nika.yaml", "nika: b1\n")
	g.Write("dir/c.nika.yaml", "nika: c1\n")
	g.Write("dir/sub/s.nika.yaml", "nika: s1\n")
	g.Write("top.nika.yaml", "nika: top1\n")
	head := g.Commit("base")
	r, err := gitstage.Open(g.Dir)
	if err != nil {
		t.Fatal(err)
	}
	in := "*** Begin Patch\n*** Update File: dir/a.nika.yaml\n@@\n-nika: a1\n+nika: a2\n*** Update File: dir/b.nika.yaml\n@@\n-nika: b1\n+nika: b2\n" +
		"*** Delete File: dir/c.nika.yaml\n*** Update File: dir/sub/s.nika.yaml\n@@\n-nika: s1\n+nika: s2\n" +
		"*** Update File: top.nika.yaml\n@@\n-nika: top1\n+nika: top2\n*** Add File: fresh/deep/n.nika.yaml\n+nika: n\n*** End Patch\n"
	p, err := flow.Propose(flow.FromGit(r), flow.ProposeInput{Input: []byte(in)})
	if err != nil {
		t.Fatal(err)
	}
	return g, r, p, head
}

// TestASucceededApplyLeavesNoResidue: an apply that succeeds leaves no temp
// file, backup or journal of its own, in the work tree or the git dir, with
// fsync on or off; the emptied directory goes, as with git rm.
func TestASucceededApplyLeavesNoResidue(t *testing.T) {
	for _, sync := range []bool{false, true} {
		g, r, p, _ := dirRepo(t)
		if _, err := flow.Apply(flow.FromGit(r), p, consent.Options{Sync: sync}); err != nil {
			t.Fatal(err)
		}
		if left := residue(t, g.Dir); len(left) > 0 {
			t.Errorf("sync=%v: the apply left %v", sync, left)
		}
		g.Clean()
		if g.Read("dir/a.nika.yaml") != "nika: a2\n" || g.Read("fresh/deep/n.nika.yaml") != "nika: n\n" {
			t.Errorf("the apply did not land")
		}
	}
}

// TestADirectorySwappedForASymlinkMidApplyIsNeverFollowed: after the apply
// wrote into dir, dir is renamed away and a symlink to a directory outside
// takes its name. The held descriptor keeps every later write in the
// directory that was verified; nothing is written outside; the apply sees
// that dir moved, refuses and rolls back through the same descriptors; no
// temp file is left anywhere, and no journal.
func TestADirectorySwappedForASymlinkMidApplyIsNeverFollowed(t *testing.T) {
	g, r, p, head := dirRepo(t)
	out := filepath.Join(filepath.Dir(g.Dir), "outside")
	os.MkdirAll(out, 0o755)
	swapped := false
	_, err := flow.Apply(flow.FromGit(r), p, consent.Options{Wrap: func(w consent.WorkTree) consent.WorkTree {
		return consent.Before(w, func(op, path string) error {
			if op == "exchange" && path == "dir/b.nika.yaml" && !swapped {
				swapped = true
				if err := os.Rename(filepath.Join(g.Dir, "dir"), filepath.Join(g.Dir, "dir-moved")); err != nil {
					t.Fatal(err)
				}
				if err := os.Symlink(out, filepath.Join(g.Dir, "dir")); err != nil {
					t.Fatal(err)
				}
			}
			return nil
		})
	}})
	if !swapped {
		t.Fatal("the swap never ran")
	}
	if c := refusal.ClassOf(err); c != refusal.StaleRevision || !strings.Contains(err.Error(), `the directory "dir" was moved or replaced`) {
		t.Fatalf("apply = %s %v, want StaleRevision naming dir", c, err)
	}
	if ents, _ := os.ReadDir(out); len(ents) != 0 {
		t.Errorf("the apply wrote through the symlink: %v", ents)
	}
	// The rollback restored the bytes where they are: in the moved directory.
	for p, want := range map[string]string{"dir-moved/a.nika.yaml": "nika: a1\n", "dir-moved/b.nika.yaml": "nika: b1\n",
		"dir-moved/c.nika.yaml": "nika: c1\n", "dir-moved/sub/s.nika.yaml": "nika: s1\n", "top.nika.yaml": "nika: top1\n"} {
		if got := g.Read(p); got != want {
			t.Errorf("%s = %q after the rollback, want %q", p, got, want)
		}
	}
	if _, err := os.Stat(filepath.Join(g.Dir, "fresh")); err == nil {
		t.Errorf("the created directory is still there")
	}
	if left := residue(t, g.Dir, out); len(left) > 0 {
		t.Errorf("residue: %v", left)
	}
	if ids, _ := consent.Interrupted(r); len(ids) != 0 {
		t.Errorf("a journal was kept: %v", ids)
	}
	if h := g.Git("rev-parse", "HEAD"); h != head {
		t.Errorf("HEAD moved")
	}
	if s := g.Git("diff", "--cached", "--name-only"); s != "" {
		t.Errorf("the index changed: %s", s)
	}
	g.Git("fsck", "--strict")
}

// TestARollbackThatCannotFinishKeepsItsJournal: the third write fails, and
// every swap back fails too. The refusal is RollbackIncomplete and names
// each file it could not restore and why; the journal stays, so that the
// next command says an apply was interrupted; Recover, once the cause is
// gone, takes the tree to "not applied", with no residue.
func TestARollbackThatCannotFinishKeepsItsJournal(t *testing.T) {
	g, r, p, head := dirRepo(t)
	failing := false
	_, err := flow.Apply(flow.FromGit(r), p, consent.Options{Inject: func(op, path string) error {
		if op == "create" && path == "dir/sub/s.nika.yaml" {
			failing = true
			return syscall.ENOSPC
		}
		if failing && op == "exchange" {
			return syscall.EIO
		}
		return nil
	}})
	if c := refusal.ClassOf(err); c != refusal.RollbackIncomplete {
		t.Fatalf("apply = %s %v, want RollbackIncomplete", c, err)
	}
	for _, want := range []string{`"dir/a.nika.yaml" (input/output error)`, `"dir/b.nika.yaml" (input/output error)`, "no space left on device"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the refusal does not say %q: %v", want, err)
		}
	}
	var re *refusal.Error
	if e, ok := err.(*refusal.Error); ok {
		re = e
	}
	if re == nil || re.Fix != refusal.Recover || re.Subject != p.Proposal.ID {
		t.Errorf("the refusal's fix is not Recover for the proposal: %+v", re)
	}
	ids, _ := consent.Interrupted(r)
	if len(ids) != 1 || ids[0] != p.Proposal.ID {
		t.Fatalf("Interrupted = %v: the journal was dropped", ids)
	}
	recs, err := consent.Recover(r)
	if err != nil || len(recs) != 1 || recs[0].State != "not applied" {
		t.Fatalf("Recover = %+v, %v", recs, err)
	}
	if h := g.Git("rev-parse", "HEAD"); h != head {
		t.Errorf("HEAD moved")
	}
	for p, want := range map[string]string{"dir/a.nika.yaml": "nika: a1\n", "dir/b.nika.yaml": "nika: b1\n", "dir/c.nika.yaml": "nika: c1\n", "top.nika.yaml": "nika: top1\n"} {
		if got := g.Read(p); got != want {
			t.Errorf("%s = %q, want %q", p, got, want)
		}
	}
	if left := residue(t, g.Dir); len(left) > 0 {
		t.Errorf("residue after recover: %v", left)
	}
	g.Clean()
}

// mountTmpfs mounts a tmpfs at dir (made) until the test ends, or skips.
func mountTmpfs(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("mount", "-t", "tmpfs", "nika-test", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs in the work tree here (%v: %s): the mount point cases are not tested", err, strings.TrimSpace(string(out)))
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", dir).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v %s", dir, err, out)
		}
	})
}

// TestDeletesAndMovesAcrossAMountPoint mounts a tmpfs inside the work
// tree: a delete under it, a move out of it, a move into it and an update
// in it apply (git rm and git mv do the same), and, failing at the last
// step before the branch moves, roll back.
func TestDeletesAndMovesAcrossAMountPoint(t *testing.T) {
	for _, fail := range []bool{false, true} {
		g := gittest.New(t)
		g.Write("top.nika.yaml", "nika: top\n")
		g.Commit("base")
		mountTmpfs(t, filepath.Join(g.Dir, "mnt"))
		g.Write("mnt/gone.nika.yaml", "nika: gone\n")
		g.Write("mnt/out.nika.yaml", "nika: out\n")
		g.Write("mnt/deep/u.nika.yaml", "nika: u1\n")
		g.Write("in.nika.yaml", "nika: in\n")
		head := g.Commit("files on the mount")
		r, err := gitstage.Open(g.Dir)
		if err != nil {
			t.Fatal(err)
		}
		in := "*** Begin Patch\n*** Delete File: mnt/gone.nika.yaml\n" +
			"*** Update File: mnt/out.nika.yaml\n*** Move to: moved-out.nika.yaml\n@@\n-nika: out\n+nika: out2\n" +
			"*** Update File: in.nika.yaml\n*** Move to: mnt/deep/moved-in.nika.yaml\n@@\n-nika: in\n+nika: in2\n" +
			"*** Update File: mnt/deep/u.nika.yaml\n@@\n-nika: u1\n+nika: u2\n*** End Patch\n"
		p, err := flow.Propose(flow.FromGit(r), flow.ProposeInput{Input: []byte(in)})
		if err != nil {
			t.Fatal(err)
		}
		opt := consent.Options{}
		if fail {
			opt.Fault = func(step string, i int) error {
				if step == "ref" {
					return syscall.EIO
				}
				return nil
			}
		}
		_, err = flow.Apply(flow.FromGit(r), p, opt)
		want := map[string]string{"mnt/gone.nika.yaml": "", "mnt/out.nika.yaml": "", "moved-out.nika.yaml": "nika: out2\n",
			"in.nika.yaml": "", "mnt/deep/moved-in.nika.yaml": "nika: in2\n", "mnt/deep/u.nika.yaml": "nika: u2\n"}
		if fail {
			if refusal.ClassOf(err) != refusal.Io || !strings.Contains(err.Error(), "rolled back") {
				t.Fatalf("the failed apply = %v", err)
			}
			if h := g.Git("rev-parse", "HEAD"); h != head {
				t.Fatalf("HEAD moved")
			}
			want = map[string]string{"mnt/gone.nika.yaml": "nika: gone\n", "mnt/out.nika.yaml": "nika: out\n", "moved-out.nika.yaml": "",
				"in.nika.yaml": "nika: in\n", "mnt/deep/moved-in.nika.yaml": "", "mnt/deep/u.nika.yaml": "nika: u1\n"}
		} else if err != nil {
			t.Fatalf("apply across a mount point: %v", err)
		}
		for p, b := range want {
			if got := g.Read(p); got != b {
				t.Errorf("fail=%v: %s = %q, want %q", fail, p, got, b)
			}
		}
		if left := residue(t, g.Dir); len(left) > 0 {
			t.Errorf("fail=%v: residue %v", fail, left)
		}
		g.Clean()
	}
}

// TestADirectoryReplacedByAFile: the set deletes every file of x/y and
// writes a file at x: the backups go above x (the directory must go), the
// apply lands, and a failure before the branch moves puts x/y back.
func TestADirectoryReplacedByAFile(t *testing.T) {
	for _, fail := range []bool{false, true} {
		g := gittest.New(t)
		g.Write("x/y/a.nika.yaml", "nika: a\n")
		g.Write("x/y/b.nika.yaml", "nika: b\n")
		head := g.Commit("base")
		r, _ := gitstage.Open(g.Dir)
		in := "*** Begin Patch\n*** Delete File: x/y/a.nika.yaml\n*** Delete File: x/y/b.nika.yaml\n*** Add File: x\n+now a file\n*** End Patch\n"
		p, err := flow.Propose(flow.FromGit(r), flow.ProposeInput{Input: []byte(in), Allow: []string{"x"}})
		if err != nil {
			t.Fatal(err)
		}
		opt := consent.Options{}
		if fail {
			opt.Fault = func(step string, i int) error {
				if step == "index" {
					return syscall.EIO
				}
				return nil
			}
		}
		_, err = flow.Apply(flow.FromGit(r), p, opt)
		if fail {
			if err == nil {
				t.Fatal("the failing apply succeeded")
			}
			if h := g.Git("rev-parse", "HEAD"); h != head {
				t.Fatal("HEAD moved")
			}
			if g.Read("x/y/a.nika.yaml") != "nika: a\n" || g.Read("x/y/b.nika.yaml") != "nika: b\n" {
				t.Errorf("x/y was not restored")
			}
		} else {
			if err != nil {
				t.Fatal(err)
			}
			if g.Read("x") != "now a file\n" {
				t.Errorf("x = %q", g.Read("x"))
			}
		}
		if left := residue(t, g.Dir); len(left) > 0 {
			t.Errorf("fail=%v: residue %v", fail, left)
		}
		g.Clean()
	}
}
