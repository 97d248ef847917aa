package consent_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nika-dev/nika/consent"
	"github.com/nika-dev/nika/flow"
	"github.com/nika-dev/nika/gitstage"
	"github.com/nika-dev/nika/gitstage/gittest"
	"github.com/nika-dev/nika/refusal"
)

// checkRepo commits an executable script, a file to delete and a file to
// update, and proposes an update of the script and of u, a delete of d
// and a create of n/new.nika.yaml.
func checkRepo(t *testing.T) (*gittest.Repo, *gitstage.Repo, *flow.Proposed) {
	t.Helper()
	g := gittest.New(t)
	g.Write("run.sh", "#!/bin/sh\necho 1\n")
	if err := os.Chmod(filepath.Join(g.Dir, "run.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	g.Write("u.nika.yaml", "nika: u1\n")
	g.Write("d.nika.yaml", "nika: d1\n")
	g.Write("other.txt", "other\n")
	g.Commit("base")
	r, err := gitstage.Open(g.Dir)
	if err != nil {
		t.Fatal(err)
	}
	in := "*** Begin Patch\n*** Update File: run.sh\n@@\n-echo 1\n+echo 2\n*** Update File: u.nika.yaml\n@@\n-nika: u1\n+nika: u2\n" +
		"*** Delete File: d.nika.yaml\n*** Add File: n/new.nika.yaml\n+nika: new\n*** End Patch\n"
	p, err := flow.Propose(flow.FromGit(r), flow.ProposeInput{Input: []byte(in), Allow: []string{"run.sh"}})
	if err != nil {
		t.Fatal(err)
	}
	return g, r, p
}

// TestCheckAndTheLockedApplyRefuseIdentically: for each cause that the
// apply verifies under its locks, the read-only Check refuses first with
// exactly the same refusal (class, text, hint, fix and subject), StateOf
// names the state a door displays, and the apply after it writes nothing.
func TestCheckAndTheLockedApplyRefuseIdentically(t *testing.T) {
	defer func(w time.Duration) { gitstage.LockWait = w }(gitstage.LockWait)
	gitstage.LockWait = 30 * time.Millisecond
	for _, tc := range []struct {
		name  string
		cause func(t *testing.T, g *gittest.Repo, r *gitstage.Repo, p *flow.Proposed) (undo func())
		class refusal.Class
		state consent.State
		text  string
	}{
		{"the index.lock of another process", func(t *testing.T, g *gittest.Repo, _ *gitstage.Repo, _ *flow.Proposed) func() {
			return hold(t, filepath.Join(g.Dir, ".git", "index.lock"))
		}, refusal.Locked, consent.Locked, ".git/index.lock exists"},
		{"the HEAD.lock of another process", func(t *testing.T, g *gittest.Repo, _ *gitstage.Repo, _ *flow.Proposed) func() {
			return hold(t, filepath.Join(g.Dir, ".git", "HEAD.lock"))
		}, refusal.Locked, consent.Locked, ".git/HEAD.lock exists"},
		{"the branch's lock held by another process", func(t *testing.T, g *gittest.Repo, _ *gitstage.Repo, _ *flow.Proposed) func() {
			return hold(t, filepath.Join(g.Dir, ".git", "refs", "heads", "main.lock"))
		}, refusal.Locked, consent.Locked, ".git/refs/heads/main.lock exists"},
		{"HEAD moved by a commit", func(t *testing.T, g *gittest.Repo, _ *gitstage.Repo, _ *flow.Proposed) func() {
			g.Write("other.txt", "moved\n")
			g.Commit("moved")
			return nil
		}, refusal.StaleRevision, consent.Stale, "main moved from"},
		{"HEAD on another branch", func(t *testing.T, g *gittest.Repo, _ *gitstage.Repo, _ *flow.Proposed) func() {
			g.Git("switch", "-q", "-c", "topic")
			return nil
		}, refusal.StaleRevision, consent.Stale, "HEAD was on main and is now on topic"},
		{"a detached HEAD", func(t *testing.T, g *gittest.Repo, _ *gitstage.Repo, _ *flow.Proposed) func() {
			g.Git("switch", "-q", "--detach")
			return nil
		}, refusal.StaleRevision, consent.Stale, "HEAD was on main and is now on a detached HEAD"},
		{"a witnessed file edited", func(t *testing.T, g *gittest.Repo, _ *gitstage.Repo, _ *flow.Proposed) func() {
			g.Write("u.nika.yaml", "nika: edited\n")
			return nil
		}, refusal.StaleRevision, consent.Edited, `"u.nika.yaml" was edited`},
		{"a witnessed file's mode changed on disk (chmod -x)", func(t *testing.T, g *gittest.Repo, _ *gitstage.Repo, _ *flow.Proposed) func() {
			os.Chmod(filepath.Join(g.Dir, "run.sh"), 0o644)
			return nil
		}, refusal.StaleRevision, consent.Edited, `"run.sh" changed mode on disk from 100755 to 100644`},
		{"a witnessed file's mode changed on disk (chmod +x)", func(t *testing.T, g *gittest.Repo, _ *gitstage.Repo, _ *flow.Proposed) func() {
			os.Chmod(filepath.Join(g.Dir, "u.nika.yaml"), 0o755)
			return nil
		}, refusal.StaleRevision, consent.Edited, `"u.nika.yaml" changed mode on disk from 100644 to 100755`},
		{"a witnessed file's mode changed in the index", func(t *testing.T, g *gittest.Repo, _ *gitstage.Repo, _ *flow.Proposed) func() {
			g.Git("update-index", "--chmod=+x", "u.nika.yaml")
			return nil
		}, refusal.StaleRevision, consent.Edited, `"u.nika.yaml" changed mode in the index from 100644 to 100755`},
		{"a witnessed file replaced by a symlink", func(t *testing.T, g *gittest.Repo, _ *gitstage.Repo, _ *flow.Proposed) func() {
			os.Remove(filepath.Join(g.Dir, "u.nika.yaml"))
			os.Symlink("other.txt", filepath.Join(g.Dir, "u.nika.yaml"))
			return nil
		}, refusal.StaleRevision, consent.Edited, `"u.nika.yaml" is no longer a regular file (it is now a symlink)`},
		{"a witnessed file replaced by a directory", func(t *testing.T, g *gittest.Repo, _ *gitstage.Repo, _ *flow.Proposed) func() {
			os.Remove(filepath.Join(g.Dir, "d.nika.yaml"))
			os.Mkdir(filepath.Join(g.Dir, "d.nika.yaml"), 0o755)
			return nil
		}, refusal.StaleRevision, consent.Edited, `"d.nika.yaml" is no longer a regular file (it is now a directory)`},
		{"a witnessed file deleted", func(t *testing.T, g *gittest.Repo, _ *gitstage.Repo, _ *flow.Proposed) func() {
			os.Remove(filepath.Join(g.Dir, "d.nika.yaml"))
			return nil
		}, refusal.StaleRevision, consent.Edited, `"d.nika.yaml" was deleted`},
		{"a witnessed file changed in the index", func(t *testing.T, g *gittest.Repo, _ *gitstage.Repo, _ *flow.Proposed) func() {
			g.Write("u.nika.yaml", "nika: staged\n")
			g.Git("add", "u.nika.yaml")
			g.Write("u.nika.yaml", "nika: u1\n")
			return nil
		}, refusal.StaleRevision, consent.Edited, `"u.nika.yaml" changed in the index`},
		{"a created path appeared", func(t *testing.T, g *gittest.Repo, _ *gitstage.Repo, _ *flow.Proposed) func() {
			g.Write("n/new.nika.yaml", "nika: someone else's\n")
			return nil
		}, refusal.StaleRevision, consent.Edited, `"n/new.nika.yaml" now exists`},
		{"a created path's parent became a symlink", func(t *testing.T, g *gittest.Repo, _ *gitstage.Repo, _ *flow.Proposed) func() {
			os.Symlink(".git", filepath.Join(g.Dir, "n"))
			return nil
		}, refusal.NotAllowed, consent.Edited, `"n/new.nika.yaml" now passes through a symlink`},
		{"a merge in progress", func(t *testing.T, g *gittest.Repo, _ *gitstage.Repo, _ *flow.Proposed) func() {
			g.Write(".git/MERGE_HEAD", g.Git("rev-parse", "HEAD")+"\n")
			return nil
		}, refusal.Dirty, consent.Blocked, "a merge is in progress"},
		{"the proposal commit pruned", func(t *testing.T, g *gittest.Repo, _ *gitstage.Repo, p *flow.Proposed) func() {
			c := p.Proposal.Commit
			if err := os.Remove(filepath.Join(g.Dir, ".git", "objects", c[:2], c[2:])); err != nil {
				t.Fatal(err)
			}
			return nil
		}, refusal.NotFound, consent.Pruned, "is missing from the object database"},
		{"too low a limit on open files", func(t *testing.T, _ *gittest.Repo, _ *gitstage.Repo, _ *flow.Proposed) func() {
			return consent.SetFileLimitForTest(8, 8)
		}, refusal.Io, consent.Blocked, "the limit on open files (RLIMIT_NOFILE) is 8"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g, _, p := checkRepo(t)
			if err := consent.Check(openRepo(t, g), p.Record, p.Proposal); err != nil {
				t.Fatalf("the check refuses before the cause: %v", err)
			}
			undo := tc.cause(t, g, openRepo(t, g), p)
			before := snapshot(t, g.Dir)
			r := openRepo(t, g)
			checked := consent.Check(r, p.Record, p.Proposal)
			_, applied := consent.Apply(openRepo(t, g), p.Record, p.Proposal, consent.Options{})
			sameTree(t, before, snapshot(t, g.Dir))
			if undo != nil {
				undo()
			}
			if checked == nil || applied == nil {
				t.Fatalf("check %v, apply %v: both must refuse", checked, applied)
			}
			var c, a *refusal.Error
			if !errors.As(checked, &c) || !errors.As(applied, &a) {
				t.Fatalf("not refusals: check %v, apply %v", checked, applied)
			}
			if c.Class != a.Class || c.Text != a.Text || c.Hint != a.Hint || c.Fix != a.Fix || c.Subject != a.Subject {
				t.Errorf("the check and the apply refuse differently:\ncheck: %s %q %q %s %s\napply: %s %q %q %s %s",
					c.Class, c.Text, c.Hint, c.Fix, c.Subject, a.Class, a.Text, a.Hint, a.Fix, a.Subject)
			}
			if c.Class != tc.class || !strings.Contains(c.Text, tc.text) {
				t.Errorf("refusal %s %q, want %s with %q", c.Class, c.Text, tc.class, tc.text)
			}
			if s := consent.StateOf(checked); s != tc.state {
				t.Errorf("StateOf = %s, want %s", s, tc.state)
			}
			if s := consent.StateOf(applied); s != tc.state {
				t.Errorf("StateOf(the apply's refusal) = %s, want %s", s, tc.state)
			}
		})
	}
}

// TestStatus derives the displayed state of registered proposals.
func TestStatus(t *testing.T) {
	g, r, p := checkRepo(t)
	if s, err := consent.Status(r, p.Record, p.Proposal); s != consent.Pending || err != nil {
		t.Errorf("Status = %s, %v; want pending", s, err)
	}
	g.Write("u.nika.yaml", "nika: edited\n")
	if s, err := consent.Status(r, p.Record, p.Proposal); s != consent.Edited || refusal.ClassOf(err) != refusal.StaleRevision {
		t.Errorf("Status = %s, %v; want edited", s, err)
	}
	g.Write("u.nika.yaml", "nika: u1\n")
	if s, _ := consent.Status(r, p.Record, nil); s != consent.Blocked {
		t.Errorf("Status of an unloadable proposal whose commit exists = %s, want blocked", s)
	}
	c := p.Proposal.Commit
	os.Remove(filepath.Join(g.Dir, ".git", "objects", c[:2], c[2:]))
	if s, _ := consent.Status(openRepo(t, g), p.Record, nil); s != consent.Pruned {
		t.Errorf("Status of a pruned proposal = %s, want pruned", s)
	}
	rec := *p.Record
	rec.State = gitstage.Applied
	if s, _ := consent.Status(r, &rec, nil); s != consent.Applied {
		t.Errorf("Status of an applied record = %s", s)
	}
}

// hold creates a lock file as another process would, until the returned
// func removes it.
func hold(t *testing.T, path string) func() {
	t.Helper()
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	return func() { os.Remove(path) }
}

func openRepo(t *testing.T, g *gittest.Repo) *gitstage.Repo {
	t.Helper()
	r, err := gitstage.Open(g.Dir)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// snapshot lists every name under dir with its mode and bytes.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		if rel == filepath.Join(".git", "index.lock") {
			return nil
		}
		v := fi.Mode().String()
		if fi.Mode().IsRegular() {
			b, _ := os.ReadFile(p)
			v += " " + string(b)
		}
		out[rel] = v
		return nil
	})
	return out
}

func sameTree(t *testing.T, before, after map[string]string) {
	t.Helper()
	for k, v := range before {
		if after[k] != v {
			t.Errorf("%s changed: %q -> %q", k, v, after[k])
		}
	}
	for k := range after {
		if _, ok := before[k]; !ok {
			t.Errorf("%s appeared", k)
		}
	}
}
