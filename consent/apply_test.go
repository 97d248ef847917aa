package consent_test

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nika-dev/nika/consent"
	"github.com/nika-dev/nika/flow"
	"github.com/nika-dev/nika/gitstage"
	"github.com/nika-dev/nika/gitstage/gittest"
	"github.com/nika-dev/nika/refusal"
)

const reply3 = "```yaml path=a.nika.yaml\nnika: a2\n```\n" +
	"```yaml path=b.nika.yaml\nnika: b2\n```\n" +
	"```yaml path=c.nika.yaml\nnika: c2\n```\n"

// threeFiles commits a, b and c, and proposes an update of all three.
func threeFiles(t *testing.T) (*gittest.Repo, *gitstage.Repo, *flow.Proposed, string) {
	g := gittest.New(t)
	for _, n := range []string{"a", "b", "c"} {
		g.Write(n+".nika.yaml", "nika: "+n+"1\n")
	}
	head := g.Commit("v1")
	r, err := gitstage.Open(g.Dir)
	if err != nil {
		t.Fatal(err)
	}
	p, err := flow.Propose(flow.FromGit(r), flow.ProposeInput{Input: []byte(reply3), Goal: "v2"})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Proposal.Set.Changes) != 3 {
		t.Fatalf("want 3 changes, got %d", len(p.Proposal.Set.Changes))
	}
	return g, r, p, head
}

// unchanged asserts the repository is exactly as before the apply.
func unchanged(t *testing.T, g *gittest.Repo, head string, files map[string]string) {
	t.Helper()
	if h := g.Git("rev-parse", "HEAD"); h != head {
		t.Errorf("HEAD moved: %s, want %s", h, head)
	}
	for p, want := range files {
		if got := g.Read(p); got != want {
			t.Errorf("%s = %q, want %q", p, got, want)
		}
	}
	ents, _ := os.ReadDir(g.Dir)
	for _, e := range ents {
		if strings.Contains(e.Name(), ".nika-") {
			t.Errorf("a temp file was left behind: %s", e.Name())
		}
	}
	if _, err := os.Stat(filepath.Join(g.Dir, ".git", "index.lock")); err == nil {
		t.Error("index.lock was left behind")
	}
	if _, err := os.Stat(filepath.Join(g.Dir, ".git", "refs", "heads", "main.lock")); err == nil {
		t.Error("main.lock was left behind")
	}
}

func TestFailureAtSecondOfThreeWritesRollsBackTheFirst(t *testing.T) {
	g, r, p, head := threeFiles(t)
	_, err := flow.Apply(flow.FromGit(r), p, consent.Options{Fault: func(step string, i int) error {
		if step == "write" && i == 1 {
			return errors.New("injected failure")
		}
		return nil
	}})
	if err == nil {
		t.Fatal("apply succeeded despite the injected failure")
	}
	if c := refusal.ClassOf(err); c != refusal.Io {
		t.Errorf("class = %s, want Io", c)
	}
	if !strings.Contains(err.Error(), "rolled back, nothing was applied") {
		t.Errorf("text does not say it rolled back: %v", err)
	}
	unchanged(t, g, head, map[string]string{"a.nika.yaml": "nika: a1\n", "b.nika.yaml": "nika: b1\n", "c.nika.yaml": "nika: c1\n"})
	g.Clean()
	if rec, _ := r.Find(p.Proposal.ID); rec.State != gitstage.Pending {
		t.Errorf("state = %s, want pending", rec.State)
	}
}

func TestRollbackKeepsAnotherWritersEditAndSaysSo(t *testing.T) {
	g, r, p, head := threeFiles(t)
	_, err := flow.Apply(flow.FromGit(r), p, consent.Options{Fault: func(step string, i int) error {
		if step == "write" && i == 1 {
			// Another process edits the first file, already written by
			// this transaction, before the second write fails.
			g.Write("a.nika.yaml", "nika: edited by a human\n")
			return errors.New("injected failure")
		}
		return nil
	}})
	if c := refusal.ClassOf(err); c != refusal.RollbackIncomplete {
		t.Fatalf("class = %s (%v), want RollbackIncomplete", c, err)
	}
	if !strings.Contains(err.Error(), "a.nika.yaml") {
		t.Errorf("the refusal does not name the kept file: %v", err)
	}
	unchanged(t, g, head, map[string]string{"a.nika.yaml": "nika: edited by a human\n", "b.nika.yaml": "nika: b1\n", "c.nika.yaml": "nika: c1\n"})
	if s := g.Git("status", "--porcelain"); s != " M a.nika.yaml" {
		t.Errorf("git status = %q, want only the human's edit", s)
	}
}

func TestRollbackRemovesCreatedFilesAndDirectories(t *testing.T) {
	g := gittest.New(t)
	g.Write("keep.txt", "keep\n")
	head := g.Commit("v1")
	r, _ := gitstage.Open(g.Dir)
	in := "```yaml path=deep/er/x.nika.yaml\nnika: x\n```\n```yaml path=z.nika.yaml\nnika: z\n```\n"
	p, err := flow.Propose(flow.FromGit(r), flow.ProposeInput{Input: []byte(in)})
	if err != nil {
		t.Fatal(err)
	}
	_, err = flow.Apply(flow.FromGit(r), p, consent.Options{Fault: func(step string, i int) error {
		if step == "ref" {
			return errors.New("injected failure before the branch moves")
		}
		return nil
	}})
	if err == nil {
		t.Fatal("apply succeeded despite the injected failure")
	}
	unchanged(t, g, head, nil)
	for _, p := range []string{"deep", "z.nika.yaml"} {
		if _, err := os.Lstat(filepath.Join(g.Dir, p)); err == nil {
			t.Errorf("%s is still there after the rollback", p)
		}
	}
	g.Clean()
}

// TestReadOnlyRootRefusesWithTheOSError makes the working tree read-only
// (a read-only bind mount as root, where permission bits do not bind; a
// chmod otherwise) and checks that apply refuses with the OS error.
func TestReadOnlyRootRefusesWithTheOSError(t *testing.T) {
	g, r, p, head := threeFiles(t)
	if os.Geteuid() == 0 {
		if out, err := exec.Command("mount", "--bind", g.Dir, g.Dir).CombinedOutput(); err != nil {
			t.Skipf("cannot make a read-only root here (mount --bind: %v %s)", err, out)
		}
		defer exec.Command("umount", g.Dir).Run()
		if out, err := exec.Command("mount", "-o", "remount,bind,ro", g.Dir).CombinedOutput(); err != nil {
			t.Skipf("cannot make a read-only root here (remount ro: %v %s)", err, out)
		}
		// The git dir must stay writable: only the working tree is
		// read-only, as when a project sits on a read-only volume.
		gd := filepath.Join(g.Dir, ".git")
		src := filepath.Join(t.TempDir(), "git")
		if out, err := exec.Command("cp", "-a", gd, src).CombinedOutput(); err != nil {
			t.Fatalf("cp: %v %s", err, out)
		}
		if out, err := exec.Command("mount", "--bind", src, gd).CombinedOutput(); err != nil {
			t.Skipf("cannot bind a writable git dir: %v %s", err, out)
		}
		defer exec.Command("umount", gd).Run()
	} else {
		os.Chmod(g.Dir, 0o555)
		defer os.Chmod(g.Dir, 0o755)
	}
	_, err := flow.Apply(flow.FromGit(r), p, consent.Options{})
	if c := refusal.ClassOf(err); c != refusal.Io {
		t.Fatalf("class = %s (%v), want Io", c, err)
	}
	if !strings.Contains(err.Error(), "read-only file system") && !strings.Contains(err.Error(), "permission denied") {
		t.Errorf("the refusal does not carry the OS error: %v", err)
	}
	if strings.Contains(err.Error(), g.Dir) {
		t.Errorf("the refusal names an absolute host path: %v", err)
	}
	unchanged(t, g, head, map[string]string{"a.nika.yaml": "nika: a1\n", "b.nika.yaml": "nika: b1\n", "c.nika.yaml": "nika: c1\n"})
}

func TestDecideAcceptsOnlyYes(t *testing.T) {
	for _, tc := range []struct {
		line string
		want consent.Answer
	}{
		{"yes\n", consent.Yes},
		{"yes\r\n", consent.Yes},
		{"yes", consent.Yes},
		{"y\n", consent.Decline},
		{"Yes\n", consent.Decline},
		{"YES\n", consent.Decline},
		{"yes please\n", consent.Decline},
		{" yes\n", consent.Decline},
		{"\n", consent.Decline},
		{"", consent.Decline},
		{"no\n", consent.Decline},
		{"yes\nyes\n", consent.Decline},
	} {
		if got := consent.Decide(tc.line); got != tc.want {
			t.Errorf("Decide(%q) = %v, want %v", tc.line, got, tc.want)
		}
	}
}

// TestBackToBackAppliesLeaveNoSmudgedEntries: the second of two applies in
// the same second finds the first one's entries racily clean. Like git, it
// compares them with their files before smudging, so git still trusts them:
// git diff-files is empty and git apply --index works without a refresh.
func TestBackToBackAppliesLeaveNoSmudgedEntries(t *testing.T) {
	g := gittest.New(t)
	g.Write("a.nika.yaml", "nika: a0\n")
	g.Write("b.nika.yaml", "nika: b0\n")
	g.Commit("base")
	r, _ := gitstage.Open(g.Dir)
	for _, in := range []string{"```yaml path=a.nika.yaml\nnika: a1\n```\n", "```yaml path=b.nika.yaml\nnika: b1\n```\n"} {
		p, err := flow.Propose(flow.FromGit(r), flow.ProposeInput{Input: []byte(in)})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := flow.Apply(flow.FromGit(r), p, consent.Options{}); err != nil {
			t.Fatal(err)
		}
	}
	if out, err := g.TryGit("diff-files", "--name-only"); err != nil || out != "" {
		t.Errorf("git diff-files lists %q (%v): an entry was smudged though its file is clean", out, err)
	}
	g.Write("../p.diff", "--- a/a.nika.yaml\n+++ b/a.nika.yaml\n@@ -1 +1 @@\n-nika: a1\n+nika: a2\n")
	if out, err := g.TryGit("apply", "--index", "../p.diff"); err != nil {
		t.Errorf("git apply --index after two applies: %v\n%s", err, out)
	}
}
