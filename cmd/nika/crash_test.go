package main

import (
	"bytes"
	"errors"
	"fmt"
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

	"github.com/nika-dev/nika/gitstage/gittest"
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

// crashEnv is a repository in one layout of git dir and work tree: git
// and nika run in Dir (g), the files are in WT.
type crashEnv struct {
	g      *gittest.Repo
	WT     string
	layout string
}

func (e *crashEnv) read(p string) string {
	b, _ := os.ReadFile(filepath.Join(e.WT, filepath.FromSlash(p)))
	return string(b)
}

func (e *crashEnv) write(p, b string) {
	e.g.T.Helper()
	f := filepath.Join(e.WT, filepath.FromSlash(p))
	if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
		e.g.T.Fatal(err)
	}
	if err := os.WriteFile(f, []byte(b), 0o644); err != nil {
		e.g.T.Fatal(err)
	}
}

// gitPath is git rev-parse --git-path, absolute.
func (e *crashEnv) gitPath(p string) string {
	out := e.g.Git("rev-parse", "--git-path", p)
	if !filepath.IsAbs(out) {
		out = filepath.Join(e.g.Dir, out)
	}
	return out
}

// crashLayouts are the layouts the SIGKILL loop runs in (issue 12): the
// plain one, a git dir whose core.worktree names a work tree beside it,
// and a linked worktree.
var crashLayouts = []string{"plain", "core.worktree", "linked worktree"}

// newCrashEnv makes an empty repository (with one commit in the linked
// layout, which git worktree add needs) in a layout.
func newCrashEnv(t *testing.T, layout string) *crashEnv {
	g := gittest.New(t)
	e := &crashEnv{g: g, WT: g.Dir, layout: layout}
	switch layout {
	case "core.worktree":
		e.WT = filepath.Join(filepath.Dir(g.Dir), "tree")
		if err := os.MkdirAll(e.WT, 0o755); err != nil {
			t.Fatal(err)
		}
		g.Git("config", "core.worktree", e.WT)
	case "linked worktree":
		g.Write("main.txt", "main\n")
		g.Commit("main")
		wt := filepath.Join(filepath.Dir(g.Dir), "linked")
		g.Git("worktree", "add", "-q", "-b", "main-linked", wt)
		e.g = &gittest.Repo{T: t, Dir: wt}
		e.WT = wt
	}
	return e
}

func (e *crashEnv) commit(msg string) string {
	e.g.Git("add", "-A")
	e.g.Git("commit", "-q", "-m", msg)
	return e.g.Git("rev-parse", "HEAD")
}

// crashRepo commits a.nika.yaml, c.nika.yaml and d.nika.yaml, and proposes
// an update of a, a delete of c, a create of b/new.nika.yaml and an update
// of d: four operations, in the apply's order c (removal), a, b/new, d.
func crashRepo(t *testing.T, bin, layout string) (e *crashEnv, id, base, commit string) {
	e = newCrashEnv(t, layout)
	e.write("a.nika.yaml", "nika: a1\n")
	e.write("c.nika.yaml", "nika: c1\n")
	e.write("d.nika.yaml", "nika: d1\n")
	base = e.commit("base")
	patch := filepath.Join(t.TempDir(), "patch.txt")
	os.WriteFile(patch, []byte("*** Begin Patch\n*** Update File: a.nika.yaml\n@@\n-nika: a1\n+nika: a2\n*** Delete File: c.nika.yaml\n"+
		"*** Add File: b/new.nika.yaml\n+nika: new\n*** Update File: d.nika.yaml\n@@\n-nika: d1\n+nika: d2\n*** End Patch\n"), 0o644)
	cmd := exec.Command(bin, "propose", "--json", patch)
	cmd.Dir = e.g.Dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("propose: %v\n%s", err, out)
	}
	id = regexp.MustCompile(`"id": "([0-9a-f]{64})"`).FindStringSubmatch(string(out))[1]
	commit = regexp.MustCompile(`"commit": "([0-9a-f]{40})"`).FindStringSubmatch(string(out))[1]
	return e, id, base, commit
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
	t.Helper()
	out, err := nikaTry(bin, dir, args...)
	if err != nil {
		t.Fatalf("nika %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

func nikaTry(bin, dir string, args ...string) (string, error) {
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// assertOneOfTwo checks the laws after a crash and nika recover: git fsck
// is clean, no lock, journal or temp file is left, and the repository is
// fully applied or not applied at all, with git status agreeing with HEAD.
func assertOneOfTwo(t *testing.T, e *crashEnv, base, commit string) string {
	t.Helper()
	g := e.g
	g.Git("fsck", "--strict")
	branch := g.Git("rev-parse", "--abbrev-ref", "HEAD")
	for _, l := range []string{"index.lock", "HEAD.lock", "refs/heads/" + branch + ".lock"} {
		if _, err := os.Stat(e.gitPath(l)); err == nil {
			t.Errorf("%s was left behind", l)
		}
	}
	common := g.Git("rev-parse", "--git-common-dir")
	if !filepath.IsAbs(common) {
		common = filepath.Join(g.Dir, common)
	}
	if _, err := os.Stat(filepath.Join(common, "nika")); err != nil {
		t.Errorf("no nika directory in the common git dir %s: %v", common, err)
	}
	if ents, _ := os.ReadDir(filepath.Join(common, "nika", "journal")); len(ents) != 0 {
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
		if got := e.read(p); got != b {
			t.Errorf("%s (%s): %s = %q, want %q", state, head[:8], p, got, b)
		}
	}
	if s := g.Git("status", "--porcelain", "--ignored"); s != "" {
		t.Errorf("%s: git status is not empty:\n%s", state, s)
	}
	if state == "not applied" {
		if _, err := os.Stat(filepath.Join(e.WT, "b")); err == nil {
			t.Errorf("not applied, but the directory b that the apply made is still there")
		}
	}
	filepath.Walk(e.WT, func(p string, fi os.FileInfo, err error) error {
		if err == nil && (strings.Contains(fi.Name(), ".nika-") || strings.HasSuffix(fi.Name(), ".removed")) {
			t.Errorf("%s: a temp file of the apply was left: %s", state, p)
		}
		return nil
	})
	return state
}

// TestCrashAtEveryStepRecovers kills nika apply with SIGKILL at each step
// of the transaction, runs nika recover, and checks that the repository is
// whole and in one of the two allowed states: before the branch moves,
// recovery undoes; after, it finishes. It runs in the plain layout, with
// core.worktree and in a linked worktree (every step of those with
// NIKA_TORTURE=1, a few otherwise).
func TestCrashAtEveryStepRecovers(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a failpoint binary; skipped with -short")
	}
	bin := failpointBinary(t)
	full := os.Getenv("NIKA_TORTURE") != ""
	for _, layout := range crashLayouts {
		for _, tc := range []struct {
			fp, want string
			few      bool
		}{
			{"locked", "not applied", false},
			{"journaled", "not applied", false},
			{"write:0", "not applied", false},
			{"renamed:0", "not applied", true},
			{"renamed:1", "not applied", false},
			{"renamed:2", "not applied", true},  // b/new.nika.yaml created in a directory the apply made
			{"renamed:3", "not applied", false}, // after the last of k = 4 renames
			{"written", "not applied", false},
			{"index-written", "not applied", false},
			{"index-renamed", "not applied", true}, // the index holds the apply, the branch does not
			{"ref-renamed", "applied", true},       // before the reflog
			{"reflogged", "applied", false},
		} {
			if layout != "plain" && !full && !tc.few {
				continue
			}
			t.Run(layout+"/"+tc.fp, func(t *testing.T) {
				e, id, base, commit := crashRepo(t, bin, layout)
				crashApply(t, bin, e.g.Dir, id, tc.fp)
				st := nikaOut(t, bin, e.g.Dir, "list")
				if tc.fp != "locked" && !strings.Contains(st, "was interrupted; run nika recover") {
					t.Errorf("the next command does not say an apply was interrupted:\n%s", st)
				}
				out := nikaOut(t, bin, e.g.Dir, "recover")
				if tc.fp == "locked" {
					// Killed before the journal: only the stale locks tell.
					if _, err := os.Stat(e.gitPath("index.lock")); err != nil {
						t.Fatalf("expected the stale index.lock of a crash before the journal")
					}
					t.Skip("a crash between taking the locks and writing the journal leaves git's stale locks for the human to remove, as git does")
				}
				if !strings.Contains(out, "recovered "+id[:12]+": "+tc.want) {
					t.Errorf("recover says:\n%s\nwant %q", out, tc.want)
				}
				if got := assertOneOfTwo(t, e, base, commit); got != tc.want {
					t.Errorf("state %s, want %s", got, tc.want)
				}
				if tc.want == "applied" {
					if !strings.Contains(e.g.Git("reflog", "-1", "--format=%gs"), "nika: apply "+id) {
						t.Errorf("the reflog lacks the apply")
					}
					// the apply that recovery finished has its verdict,
					// said and recorded as a completed apply's is
					if !strings.Contains(out, "nika verdict: ") {
						t.Errorf("recover does not say the verdict of the apply it finished:\n%s", out)
					}
					if note := e.g.Git("notes", "--ref=nika", "show", "HEAD"); !strings.HasPrefix(note, "nika verdict: ") {
						t.Errorf("the finished apply has no verdict note: %q", note)
					}
				}
			})
		}
	}
}

// TestRecoverKeepsAnotherWritersEdit: a crash mid-apply, then a human
// edits a file the apply had already written; recover undoes the rest and
// keeps the human's bytes, and says so.
func TestRecoverKeepsAnotherWritersEdit(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a failpoint binary; skipped with -short")
	}
	bin := failpointBinary(t)
	e, id, base, _ := crashRepo(t, bin, "plain")
	g := e.g
	crashApply(t, bin, g.Dir, id, "renamed:1") // c removed, a written
	g.Write("a.nika.yaml", "nika: the human's edit\n")
	out := nikaOut(t, bin, g.Dir, "recover")
	if !strings.Contains(out, "kept a.nika.yaml: it holds bytes that are neither the proposal's before nor its after") {
		t.Errorf("recover does not report the kept file and why:\n%s", out)
	}
	if js := nikaOut(t, bin, g.Dir, "recover", "--json"); !strings.Contains(js, `"recovered": []`) {
		t.Errorf("a second recover found more to do:\n%s", js)
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
			e, id, base, commit := crashRepo(t, bin, "plain")
			crashApply(t, bin, e.g.Dir, id, fp)
			cmd := exec.Command(bin, "recover")
			cmd.Dir = e.g.Dir
			cmd.Env = append(os.Environ(), "NIKA_FAILPOINT=recover-settled:1")
			if err := cmd.Run(); err == nil || !strings.Contains(err.Error(), "killed") {
				t.Fatalf("recover was not killed: %v", err)
			}
			out := nikaOut(t, bin, e.g.Dir, "recover")
			if !strings.Contains(out, "recovered "+id[:12]) {
				t.Errorf("the second recover did not finish:\n%s", out)
			}
			assertOneOfTwo(t, e, base, commit)
		})
	}
}

// TestRecoverThatCannotFinishKeepsItsJournal: a crash after the apply made
// b/new.nika.yaml, then b is mounted read-only over itself. nika recover
// settles every other file, cannot remove that one, and says which path
// and why; the journal stays (the next command still says an apply was
// interrupted). Once b is writable again, recover finishes.
func TestRecoverThatCannotFinishKeepsItsJournal(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a failpoint binary; skipped with -short")
	}
	bin := failpointBinary(t)
	e, id, base, commit := crashRepo(t, bin, "plain")
	crashApply(t, bin, e.g.Dir, id, "renamed:3")
	b := filepath.Join(e.WT, "b")
	if out, err := exec.Command("mount", "--bind", b, b).CombinedOutput(); err != nil {
		t.Skipf("cannot bind-mount here (%v: %s): the incomplete recovery is not tested", err, strings.TrimSpace(string(out)))
	}
	mounted := true
	defer func() {
		if mounted {
			exec.Command("umount", b).Run()
		}
	}()
	if out, err := exec.Command("mount", "-o", "remount,bind,ro", b).CombinedOutput(); err != nil {
		t.Skipf("cannot remount read-only here (%v: %s)", err, strings.TrimSpace(string(out)))
	}
	out, err := nikaTry(bin, e.g.Dir, "recover")
	if err == nil {
		t.Fatalf("recover over a read-only directory succeeded:\n%s", out)
	}
	for _, want := range []string{"could not finish recovering " + id[:12] + " yet; its journal is kept",
		"look at b/new.nika.yaml: nika could not put it back to the not applied side: read-only file system",
		"RollbackIncomplete", "recover again"} {
		if !strings.Contains(out, want) {
			t.Errorf("recover does not say %q:\n%s", want, out)
		}
	}
	if code := exitOf(err); code != refusal.Code(refusal.RollbackIncomplete) {
		t.Errorf("exit %d, want RollbackIncomplete's", code)
	}
	if st := nikaOut(t, bin, e.g.Dir, "list"); !strings.Contains(st, "was interrupted; run nika recover") {
		t.Errorf("the journal was dropped: the next command does not warn:\n%s", st)
	}
	if e.read("a.nika.yaml") != "nika: a1\n" || e.read("c.nika.yaml") != "nika: c1\n" {
		t.Errorf("the other files were not settled")
	}
	if out, err := exec.Command("umount", b).CombinedOutput(); err != nil {
		t.Fatalf("umount: %v %s", err, out)
	}
	mounted = false
	out = nikaOut(t, bin, e.g.Dir, "recover")
	if !strings.Contains(out, "recovered "+id[:12]+": not applied") {
		t.Errorf("the second recover says:\n%s", out)
	}
	assertOneOfTwo(t, e, base, commit)
}

func exitOf(err error) int {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	return -1
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
			e, id, base, commit := crashRepo(t, bin, "plain")
			cmd := exec.Command(bin, "apply", id[:12])
			cmd.Dir = e.g.Dir
			cmd.Env = append(os.Environ(), "NIKA_FAILPOINT="+fp, "NO_COLOR=1", "PAGER=cat")
			out, err := runPty(cmd, "yes", 60*time.Second)
			if err == nil {
				t.Fatalf("apply succeeded despite the interrupt:\n%s", out)
			}
			if !strings.Contains(out, "interrupted: the apply was rolled back; nothing was applied") {
				t.Errorf("apply does not say it rolled back:\n%s", out)
			}
			if got := assertOneOfTwo(t, e, base, commit); got != "not applied" {
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

// TestApplyAcrossAMountPoint mounts a tmpfs inside the work tree and
// applies, through the built binary, a delete under it, a move out of it,
// a move into it and an update in it, as git rm and git mv would: git
// then agrees (fsck, status) and no temp file is left. Interrupted before
// the branch moves (a SIGINT), the same apply rolls back across the mount.
func TestApplyAcrossAMountPoint(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a failpoint binary; skipped with -short")
	}
	bin := failpointBinary(t)
	for _, fp := range []string{"", "sigint@written"} {
		t.Run("failpoint="+fp, func(t *testing.T) {
			g := gittest.New(t)
			g.Write("top.nika.yaml", "nika: top\n")
			g.Commit("base")
			mnt := filepath.Join(g.Dir, "mnt")
			os.MkdirAll(mnt, 0o755)
			if out, err := exec.Command("mount", "-t", "tmpfs", "nika-test", mnt).CombinedOutput(); err != nil {
				t.Skipf("cannot mount a tmpfs in the work tree here (%v: %s): the mount point apply is not tested", err, strings.TrimSpace(string(out)))
			}
			defer exec.Command("umount", mnt).Run()
			g.Write("mnt/gone.nika.yaml", "nika: gone\n")
			g.Write("mnt/out.nika.yaml", "nika: out\n")
			g.Write("mnt/deep/u.nika.yaml", "nika: u1\n")
			g.Write("in.nika.yaml", "nika: in\n")
			base := g.Commit("files on the mount")
			patch := filepath.Join(t.TempDir(), "p.txt")
			os.WriteFile(patch, []byte("*** Begin Patch\n*** Delete File: mnt/gone.nika.yaml\n"+
				"*** Update File: mnt/out.nika.yaml\n*** Move to: moved-out.nika.yaml\n@@\n-nika: out\n+nika: out2\n"+
				"*** Update File: in.nika.yaml\n*** Move to: mnt/deep/moved-in.nika.yaml\n@@\n-nika: in\n+nika: in2\n"+
				"*** Update File: mnt/deep/u.nika.yaml\n@@\n-nika: u1\n+nika: u2\n*** End Patch\n"), 0o644)
			out := nikaOut(t, bin, g.Dir, "propose", "--json", patch)
			id := regexp.MustCompile(`"id": "([0-9a-f]{64})"`).FindStringSubmatch(out)[1]
			commit := regexp.MustCompile(`"commit": "([0-9a-f]{40})"`).FindStringSubmatch(out)[1]
			cmd := exec.Command(bin, "apply", id[:12])
			cmd.Dir = g.Dir
			cmd.Env = append(os.Environ(), "NO_COLOR=1", "PAGER=cat", "NIKA_FAILPOINT="+fp)
			tr, err := runPty(cmd, "yes", 60*time.Second)
			want := map[string]string{"mnt/gone.nika.yaml": "", "mnt/out.nika.yaml": "", "moved-out.nika.yaml": "nika: out2\n",
				"in.nika.yaml": "", "mnt/deep/moved-in.nika.yaml": "nika: in2\n", "mnt/deep/u.nika.yaml": "nika: u2\n"}
			head := commit
			if fp != "" {
				if err == nil || !strings.Contains(tr, "interrupted: the apply was rolled back; nothing was applied") {
					t.Fatalf("the interrupted apply: %v\n%s", err, tr)
				}
				want = map[string]string{"mnt/gone.nika.yaml": "nika: gone\n", "mnt/out.nika.yaml": "nika: out\n", "moved-out.nika.yaml": "",
					"in.nika.yaml": "nika: in\n", "mnt/deep/moved-in.nika.yaml": "", "mnt/deep/u.nika.yaml": "nika: u1\n"}
				head = base
			} else if err := appliedErr(err); err != nil {
				t.Fatalf("apply across a mount point: %v\n%s", err, tr)
			}
			if h := g.Git("rev-parse", "HEAD"); h != head {
				t.Fatalf("HEAD is %s, want %s", h, head)
			}
			for p, b := range want {
				if got := g.Read(p); got != b {
					t.Errorf("%s = %q, want %q", p, got, b)
				}
			}
			if s := g.Git("status", "--porcelain", "--ignored"); s != "" {
				t.Errorf("git status:\n%s", s)
			}
			filepath.Walk(g.Dir, func(p string, fi os.FileInfo, err error) error {
				if err == nil && (strings.Contains(fi.Name(), ".nika-") || strings.HasSuffix(fi.Name(), ".removed")) {
					t.Errorf("residue: %s", p)
				}
				return nil
			})
			g.Git("fsck", "--strict")
		})
	}
}

// TestLowFileLimitsRefuseAndNeverCrash applies, through the built binary
// under prlimit, a proposal that touches 60 files in 60 directories, from
// a limit on open files far too low to one that suffices. Below what the
// apply needs, nika refuses Io naming RLIMIT_NOFILE, before the first
// write; it never dies of a runtime error; git stays whole throughout; the
// first limit that suffices applies.
func TestLowFileLimitsRefuseAndNeverCrash(t *testing.T) {
	prlimit, err := exec.LookPath("prlimit")
	if err != nil {
		t.Skip("prlimit (util-linux) is not installed: the open-file limit is not tested")
	}
	if testing.Short() {
		t.Skip("builds a failpoint binary; skipped with -short")
	}
	bin := failpointBinary(t)
	g := gittest.New(t)
	var reply strings.Builder
	for i := 0; i < 60; i++ {
		g.Write(fmt.Sprintf("d%02d/w.nika.yaml", i), "nika: v0\n")
		fmt.Fprintf(&reply, "```yaml path=d%02d/w.nika.yaml\nnika: v1\n```\n", i)
	}
	base := g.Commit("base")
	in := filepath.Join(t.TempDir(), "reply.md")
	os.WriteFile(in, []byte(reply.String()), 0o644)
	out := nikaOut(t, bin, g.Dir, "propose", "--json", in)
	id := regexp.MustCompile(`"id": "([0-9a-f]{64})"`).FindStringSubmatch(out)[1]
	commit := regexp.MustCompile(`"commit": "([0-9a-f]{40})"`).FindStringSubmatch(out)[1]
	refused, applied := 0, false
	for _, n := range []int{4, 6, 8, 12, 16, 24, 32, 48, 64, 80, 96, 128, 256} {
		cmd := exec.Command(prlimit, fmt.Sprintf("--nofile=%d", n), bin, "apply", id[:12])
		cmd.Dir = g.Dir
		cmd.Env = append(os.Environ(), "NO_COLOR=1", "PAGER=cat")
		tr, err := runPty(cmd, "yes", 60*time.Second)
		err = appliedErr(err)
		for _, bad := range []string{"fatal error", "runtime:", "panic", "goroutine "} {
			if strings.Contains(tr, bad) {
				t.Fatalf("limit %d: nika died of a runtime error:\n%s", n, tr)
			}
		}
		g.Git("fsck", "--strict")
		if s := g.Git("status", "--porcelain", "--ignored"); s != "" {
			t.Fatalf("limit %d: git status is not clean:\n%s", n, s)
		}
		if err == nil {
			applied = true
			if h := g.Git("rev-parse", "HEAD"); h != commit {
				t.Fatalf("limit %d: applied, but HEAD is %s", n, h)
			}
			t.Logf("limit %d: applied", n)
			break
		}
		if code := exitOf(err); code != refusal.Code(refusal.Io) || !strings.Contains(tr, "RLIMIT_NOFILE") {
			t.Fatalf("limit %d: exit %d, want Io naming RLIMIT_NOFILE:\n%s", n, code, tr)
		}
		if h := g.Git("rev-parse", "HEAD"); h != base {
			t.Fatalf("limit %d: refused, but HEAD moved", n)
		}
		refused++
	}
	if refused == 0 || !applied {
		t.Errorf("%d limits refused, applied %v: want both", refused, applied)
	}
}

// TestADirectorySwappedForASymlinkMidApply, through the built binary: the
// apply pauses (pause@renamed:0) right after it swapped dir/a.nika.yaml
// in; the test renames dir away and puts a symlink to a directory outside
// the repository in its place, then lets the apply go on. The apply keeps
// writing in the directory it verified, never through the link; it sees
// that dir moved, refuses and rolls back; nothing is written outside, no
// temp file or journal is left, HEAD does not move, and git stays whole.
func TestADirectorySwappedForASymlinkMidApply(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a failpoint binary; skipped with -short")
	}
	bin := failpointBinary(t)
	g := gittest.New(t)
	g.Write("dir/a.nika.yaml", "nika: a1\n")
	g.Write("dir/b.nika.yaml", "nika: b1\n")
	g.Write("top.nika.yaml", "nika: top1\n")
	head := g.Commit("base")
	in := filepath.Join(t.TempDir(), "reply.md")
	os.WriteFile(in, []byte("```yaml path=dir/a.nika.yaml\nnika: a2\n```\n```yaml path=dir/b.nika.yaml\nnika: b2\n```\n```yaml path=top.nika.yaml\nnika: top2\n```\n"), 0o644)
	out := nikaOut(t, bin, g.Dir, "propose", "--json", in)
	id := regexp.MustCompile(`"id": "([0-9a-f]{64})"`).FindStringSubmatch(out)[1]
	outside := filepath.Join(t.TempDir(), "outside")
	os.MkdirAll(outside, 0o755)
	fpDir := t.TempDir()

	cmd := exec.Command(bin, "apply", id[:12])
	cmd.Dir = g.Dir
	cmd.Env = append(os.Environ(), "NIKA_FAILPOINT=pause@renamed:0", "NIKA_FAILPOINT_DIR="+fpDir, "NO_COLOR=1", "PAGER=cat")
	type result struct {
		tr  string
		err error
	}
	done := make(chan result, 1)
	go func() {
		tr, err := runPty(cmd, "yes", 60*time.Second)
		done <- result{tr, err}
	}()
	paused := false
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline) && !paused; time.Sleep(5 * time.Millisecond) {
		_, err := os.Stat(filepath.Join(fpDir, "paused"))
		paused = err == nil
	}
	if !paused {
		os.WriteFile(filepath.Join(fpDir, "resume"), nil, 0o644)
		res := <-done
		t.Fatalf("the apply never paused at renamed:0 (%v):\n%s", res.err, res.tr)
	}
	if g.Read("dir/a.nika.yaml") != "nika: a2\n" || g.Read("dir/b.nika.yaml") != "nika: b1\n" {
		t.Fatalf("paused elsewhere than right after dir/a.nika.yaml was swapped in")
	}
	if err := os.Rename(filepath.Join(g.Dir, "dir"), filepath.Join(g.Dir, "dir-moved")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(g.Dir, "dir")); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(fpDir, "resume"), nil, 0o644)
	res := <-done
	if res.err == nil {
		t.Fatalf("the apply succeeded through a swapped directory:\n%s", res.tr)
	}
	if code := exitOf(res.err); code != refusal.Code(refusal.StaleRevision) || !strings.Contains(res.tr, `the directory "dir" was moved or replaced`) {
		t.Errorf("exit %d; want StaleRevision naming dir:\n%s", code, res.tr)
	}
	if ents, _ := os.ReadDir(outside); len(ents) != 0 {
		t.Errorf("the apply wrote through the symlink: %v", ents)
	}
	for p, want := range map[string]string{"dir-moved/a.nika.yaml": "nika: a1\n", "dir-moved/b.nika.yaml": "nika: b1\n", "top.nika.yaml": "nika: top1\n"} {
		if got := g.Read(p); got != want {
			t.Errorf("%s = %q after the rollback, want %q", p, got, want)
		}
	}
	for _, d := range []string{g.Dir, outside} {
		filepath.Walk(d, func(p string, fi os.FileInfo, err error) error {
			if err == nil && (strings.Contains(fi.Name(), ".nika-") || strings.HasSuffix(fi.Name(), ".removed")) {
				t.Errorf("residue: %s", p)
			}
			return nil
		})
	}
	if ents, _ := os.ReadDir(filepath.Join(g.Dir, ".git", "nika", "journal")); len(ents) != 0 {
		t.Errorf("a journal was left: %v", ents)
	}
	if h := g.Git("rev-parse", "HEAD"); h != head {
		t.Errorf("HEAD moved")
	}
	if s := g.Git("diff", "--cached", "--name-only"); s != "" {
		t.Errorf("the index changed: %s", s)
	}
	g.Git("fsck", "--strict")
}

// appliedErr is an apply's error with exit 1 (applied; the checker or a
// hook after it found the fixture's workflows not clean) read as success:
// these tests judge the transaction, not the verdict.
func appliedErr(err error) error {
	var ee *exec.ExitError
	if errors.As(err, &ee) && ee.ExitCode() == exitNotClean {
		return nil
	}
	return err
}
