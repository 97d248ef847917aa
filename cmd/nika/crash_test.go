package main

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nika-dev/nika/internal/gittest"
	"github.com/nika-dev/nika/refusal"
)

var (
	fpOnce sync.Once
	fpBin  string
	fpErr  error
)

// failpointBinary builds nika with the failpoints tag: NIKA_FAILPOINT=step
// kills it with SIGKILL at that step of an apply (consent/failpoint.go).
func failpointBinary(t *testing.T) string {
	t.Helper()
	fpOnce.Do(func() {
		dir, err := os.MkdirTemp("", "nika-fp-")
		if err != nil {
			fpErr = err
			return
		}
		fpBin = filepath.Join(dir, "nika")
		out, err := exec.Command("go", "build", "-tags", "failpoints", "-o", fpBin, ".").CombinedOutput()
		if err != nil {
			fpErr = err
			t.Logf("%s", out)
		}
	})
	if fpErr != nil {
		t.Fatalf("building nika with failpoints: %v", fpErr)
	}
	return fpBin
}

// crashRepo commits a.nika.yaml, c.nika.yaml and d.nika.yaml, and proposes
// an update of a, a delete of c, a create of b/new.nika.yaml and an update
// of d: four operations, in the apply's order c (removal), a, b/new, d.
func crashRepo(t *testing.T, bin string) (g *gittest.Repo, id, base, commit string) {
	g = gittest.New(t)
	g.Write("a.nika.yaml", "nika: a1\n")
	g.Write("c.nika.yaml", "nika: c1\n")
	g.Write("d.nika.yaml", "nika: d1\n")
	base = g.Commit("base")
	g.Write("../patch.txt", "*** Begin Patch\n*** Update File: a.nika.yaml\n@@\n-nika: a1\n+nika: a2\n*** Delete File: c.nika.yaml\n"+
		"*** Add File: b/new.nika.yaml\n+nika: new\n*** Update File: d.nika.yaml\n@@\n-nika: d1\n+nika: d2\n*** End Patch\n")
	cmd := exec.Command(bin, "propose", "--json", filepath.Join(g.Dir, "..", "patch.txt"))
	cmd.Dir = g.Dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("propose: %v\n%s", err, out)
	}
	id = regexp.MustCompile(`"id": "([0-9a-f]{64})"`).FindStringSubmatch(string(out))[1]
	commit = regexp.MustCompile(`"commit": "([0-9a-f]{40})"`).FindStringSubmatch(string(out))[1]
	return g, id, base, commit
}

var before = map[string]string{"a.nika.yaml": "nika: a1\n", "c.nika.yaml": "nika: c1\n", "d.nika.yaml": "nika: d1\n", "b/new.nika.yaml": ""}
var after = map[string]string{"a.nika.yaml": "nika: a2\n", "c.nika.yaml": "", "d.nika.yaml": "nika: d2\n", "b/new.nika.yaml": "nika: new\n"}

// crashApply runs nika apply with a failpoint, on a terminal, answering yes.
func crashApply(t *testing.T, bin, dir, id, fp string) string {
	cmd := exec.Command(bin, "apply", id[:12])
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "NIKA_FAILPOINT="+fp, "NO_COLOR=1", "PAGER=cat")
	out, err := runPty(cmd, "yes", 60*time.Second)
	if err == nil {
		t.Fatalf("apply survived the failpoint %s:\n%s", fp, out)
	}
	if !strings.Contains(err.Error(), "killed") {
		t.Fatalf("apply did not die by SIGKILL at %s: %v\n%s", fp, err, out)
	}
	return out
}

func nikaOut(t *testing.T, bin, dir string, args ...string) string {
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("nika %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// assertOneOfTwo checks the laws after a crash and nika recover: git fsck
// is clean, no lock or journal is left, and the repository is fully applied
// or not applied at all, with git status agreeing with HEAD.
func assertOneOfTwo(t *testing.T, g *gittest.Repo, base, commit string) string {
	t.Helper()
	g.Git("fsck", "--strict")
	for _, l := range []string{".git/index.lock", ".git/HEAD.lock", ".git/refs/heads/main.lock"} {
		if _, err := os.Stat(filepath.Join(g.Dir, l)); err == nil {
			t.Errorf("%s was left behind", l)
		}
	}
	if ents, _ := os.ReadDir(filepath.Join(g.Dir, ".git", "nika", "journal")); len(ents) != 0 {
		t.Errorf("a journal was left behind: %v", ents)
	}
	head := g.Git("rev-parse", "HEAD")
	want := before
	state := "not applied"
	switch head {
	case commit:
		want, state = after, "applied"
	case base:
	default:
		t.Fatalf("HEAD is %s: neither the base nor the proposal", head)
	}
	for p, b := range want {
		if got := g.Read(p); got != b {
			t.Errorf("%s (%s): %s = %q, want %q", state, head[:8], p, got, b)
		}
	}
	if s := g.Git("status", "--porcelain"); s != "" {
		t.Errorf("%s: git status is not empty:\n%s", state, s)
	}
	return state
}

// TestCrashAtEveryStepRecovers kills nika apply with SIGKILL at each step
// of the transaction, runs nika recover, and checks that the repository is
// whole and in one of the two allowed states: before the branch moves,
// recovery undoes; after, it finishes.
func TestCrashAtEveryStepRecovers(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a failpoint binary; skipped with -short")
	}
	bin := failpointBinary(t)
	for _, tc := range []struct{ fp, want string }{
		{"locked", "not applied"},
		{"journaled", "not applied"},
		{"write:0", "not applied"},
		{"renamed:0", "not applied"},
		{"renamed:1", "not applied"},
		{"renamed:3", "not applied"}, // after the last of k = 4 renames
		{"written", "not applied"},
		{"index-written", "not applied"},
		{"index-renamed", "not applied"}, // the index holds the apply, the branch does not
		{"ref-renamed", "applied"},       // before the reflog
		{"reflogged", "applied"},
	} {
		t.Run(tc.fp, func(t *testing.T) {
			g, id, base, commit := crashRepo(t, bin)
			crashApply(t, bin, g.Dir, id, tc.fp)
			st := nikaOut(t, bin, g.Dir, "list")
			if tc.fp != "locked" && !strings.Contains(st, "was interrupted; run nika recover") {
				t.Errorf("the next command does not say an apply was interrupted:\n%s", st)
			}
			out := nikaOut(t, bin, g.Dir, "recover")
			if tc.fp == "locked" {
				// Killed before the journal: only the stale locks tell.
				if _, err := os.Stat(filepath.Join(g.Dir, ".git", "index.lock")); err != nil {
					t.Fatalf("expected the stale index.lock of a crash before the journal")
				}
				t.Skip("a crash between taking the locks and writing the journal leaves git's stale locks for the human to remove, as git does")
			}
			if !strings.Contains(out, "recovered "+id[:12]+": "+tc.want) {
				t.Errorf("recover says:\n%s\nwant %q", out, tc.want)
			}
			if got := assertOneOfTwo(t, g, base, commit); got != tc.want {
				t.Errorf("state %s, want %s", got, tc.want)
			}
			if tc.want == "applied" {
				if !strings.Contains(g.Git("reflog", "-1", "--format=%gs"), "nika: apply "+id) {
					t.Errorf("the reflog lacks the apply")
				}
			}
		})
	}
}

// TestRecoverKeepsAnotherWritersEdit: a crash mid-apply, then a human
// edits a file the apply had already written; recover undoes the rest and
// keeps the human's bytes.
func TestRecoverKeepsAnotherWritersEdit(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a failpoint binary; skipped with -short")
	}
	bin := failpointBinary(t)
	g, id, base, _ := crashRepo(t, bin)
	crashApply(t, bin, g.Dir, id, "renamed:1") // c removed, a written
	g.Write("a.nika.yaml", "nika: the human's edit\n")
	out := nikaOut(t, bin, g.Dir, "recover")
	if !strings.Contains(out, "kept a.nika.yaml") {
		t.Errorf("recover does not report the kept file:\n%s", out)
	}
	if h := g.Git("rev-parse", "HEAD"); h != base {
		t.Fatalf("HEAD moved")
	}
	if got := g.Read("a.nika.yaml"); got != "nika: the human's edit\n" {
		t.Errorf("the human's edit was lost: %q", got)
	}
	if g.Read("c.nika.yaml") != "nika: c1\n" {
		t.Errorf("c.nika.yaml was not restored")
	}
	if s := g.Git("status", "--porcelain"); s != " M a.nika.yaml" {
		t.Errorf("git status = %q, want only the human's edit", s)
	}
	g.Git("fsck", "--strict")
}

// TestCrashDuringRecovery: recover itself is killed half way; running it
// again finishes.
func TestCrashDuringRecovery(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a failpoint binary; skipped with -short")
	}
	bin := failpointBinary(t)
	for _, fp := range []string{"renamed:2", "ref-renamed"} {
		t.Run(fp, func(t *testing.T) {
			g, id, base, commit := crashRepo(t, bin)
			crashApply(t, bin, g.Dir, id, fp)
			cmd := exec.Command(bin, "recover")
			cmd.Dir = g.Dir
			cmd.Env = append(os.Environ(), "NIKA_FAILPOINT=recover-settled:1")
			if err := cmd.Run(); err == nil || !strings.Contains(err.Error(), "killed") {
				t.Fatalf("recover was not killed: %v", err)
			}
			out := nikaOut(t, bin, g.Dir, "recover")
			if !strings.Contains(out, "recovered "+id[:12]) {
				t.Errorf("the second recover did not finish:\n%s", out)
			}
			assertOneOfTwo(t, g, base, commit)
		})
	}
}

// TestInterruptRollsBack: a SIGINT (Ctrl-C) during the apply, before the
// branch moves, rolls the apply back before nika exits, and says so.
func TestInterruptRollsBack(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a failpoint binary; skipped with -short")
	}
	bin := failpointBinary(t)
	for _, fp := range []string{"sigint@renamed:1", "sigint@written"} {
		t.Run(fp, func(t *testing.T) {
			g, id, base, commit := crashRepo(t, bin)
			cmd := exec.Command(bin, "apply", id[:12])
			cmd.Dir = g.Dir
			cmd.Env = append(os.Environ(), "NIKA_FAILPOINT="+fp, "NO_COLOR=1", "PAGER=cat")
			out, err := runPty(cmd, "yes", 60*time.Second)
			if err == nil {
				t.Fatalf("apply succeeded despite the interrupt:\n%s", out)
			}
			if !strings.Contains(out, "interrupted: the apply was rolled back; nothing was applied") {
				t.Errorf("apply does not say it rolled back:\n%s", out)
			}
			if got := assertOneOfTwo(t, g, base, commit); got != "not applied" {
				t.Errorf("state %s after an interrupt", got)
			}
		})
	}
}

// TestAHugeReplyIsRefusedInBoundedMemory feeds 100 MiB on stdin: propose
// reads at most the limit plus one byte, refuses TooLarge, and allocates a
// bounded amount whatever the input's size.
func TestAHugeReplyIsRefusedInBoundedMemory(t *testing.T) {
	g := gittest.New(t)
	g.Write("a.txt", "a\n")
	g.Commit("base")
	t.Chdir(g.Dir)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	var stdout, stderr bytes.Buffer
	code := run([]string{"nika", "propose", "-"}, io.LimitReader(zeros{}, 100<<20), &stdout, &stderr)
	runtime.ReadMemStats(&after)
	if code != refusal.Code(refusal.TooLarge) {
		t.Fatalf("exit %d, want TooLarge:\n%s", code, stderr.String())
	}
	if !strings.Contains(stderr.String(), "larger than the limit of 16777216 bytes") {
		t.Errorf("the refusal does not name the limit:\n%s", stderr.String())
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 80<<20 {
		t.Errorf("propose allocated %d MiB for a 100 MiB input refused at 16 MiB", alloc>>20)
	} else {
		t.Logf("allocated %d MiB to refuse a 100 MiB input", alloc>>20)
	}
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'x'
	}
	return len(p), nil
}
