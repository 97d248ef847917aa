package hooks

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nika-dev/nika/refusal"
)

// repo makes a worktree root with an empty hooks directory.
func repo(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, Dir), 0o755); err != nil {
		t.Fatal(err)
	}
	return root
}

// hookFile writes a hook script into the hooks directory of root.
func hookFile(t *testing.T, root, name, body string, mode os.FileMode) {
	t.Helper()
	p := filepath.Join(root, Dir, name)
	if err := os.WriteFile(p, []byte(body), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, mode); err != nil {
		t.Fatal(err)
	}
}

func sh(lines ...string) string { return "#!/bin/sh\n" + strings.Join(lines, "\n") + "\n" }

func env(root string) Env {
	return Env{ProposalID: "p-123", Commit: "c0ffee", Base: "", Branch: "main",
		Paths: []string{"a.nika.yaml", "sub/nika.yaml"}, Root: root}
}

func snapshotRun(t *testing.T, root string, opt Options) []Result {
	t.Helper()
	set, err := Snapshot(root)
	if err != nil {
		t.Fatal(err)
	}
	return set.Run(context.Background(), env(root), opt)
}

func names(rs []Result) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.Name)
	}
	return out
}

func TestHooksRunInByteOrderOfNamesFromTheWorktreeRoot(t *testing.T) {
	root := repo(t)
	for _, n := range []string{"a-d", "B-c", "2-b", "10-a"} {
		hookFile(t, root, n, sh("echo "+n+" >> order.log"), 0o755)
	}
	hookFile(t, root, ".hidden", sh("echo hidden >> order.log"), 0o755)

	rs := snapshotRun(t, root, Options{})
	want := []string{"10-a", "2-b", "B-c", "a-d"}
	if got := names(rs); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("results %v, want %v (dot names ignored)", got, want)
	}
	log, err := os.ReadFile(filepath.Join(root, "order.log"))
	if err != nil {
		t.Fatal(err)
	}
	if string(log) != strings.Join(want, "\n")+"\n" {
		t.Fatalf("the hooks ran in the order\n%s", log)
	}
	for _, r := range rs {
		if r.Failed() || r.Exit != 0 {
			t.Errorf("%s: %+v", r.Name, r)
		}
	}
}

func TestAHookSeesExactlyTheExplicitEnvironment(t *testing.T) {
	t.Setenv("NIKA_TEST_SECRET", "hunter2")
	t.Setenv("GIT_DIR", "/somewhere/else")
	t.Setenv("HOME", "/home/tester")
	t.Setenv("LANG", "C.UTF-8")
	t.Setenv("LC_ALL", "C")
	root := repo(t)
	// The hook writes its environment to a file of the test: what it
	// prints is recorded with the host's paths scrubbed.
	envFile := filepath.Join(t.TempDir(), "env")
	hookFile(t, root, "env", sh("exec env -0 > "+envFile), 0o755)

	rs := snapshotRun(t, root, Options{})
	if len(rs) != 1 || rs[0].Failed() {
		t.Fatalf("%+v", rs)
	}
	raw, err := os.ReadFile(envFile)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, kv := range strings.Split(strings.TrimSuffix(string(raw), "\x00"), "\x00") {
		k, v, _ := strings.Cut(kv, "=")
		got[k] = v
	}
	want := map[string]string{
		"PATH":               os.Getenv("PATH"),
		"HOME":               "/home/tester",
		"LANG":               "C.UTF-8",
		"LC_ALL":             "C",
		"PWD":                root,
		"NIKA_PROPOSAL_ID":   "p-123",
		"NIKA_COMMIT":        "c0ffee",
		"NIKA_BASE":          "",
		"NIKA_BRANCH":        "main",
		"NIKA_CHANGED_PATHS": "a.nika.yaml\nsub/nika.yaml",
		"NIKA_ROOT":          root,
	}
	var gotKeys, wantKeys []string
	for k := range got {
		gotKeys = append(gotKeys, k)
	}
	for k := range want {
		wantKeys = append(wantKeys, k)
	}
	sort.Strings(gotKeys)
	sort.Strings(wantKeys)
	if strings.Join(gotKeys, " ") != strings.Join(wantKeys, " ") {
		t.Fatalf("the hook saw the variables\n%v\nwant exactly\n%v", gotKeys, wantKeys)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s=%q, want %q", k, got[k], v)
		}
	}
}

func TestPathDefaultsWhenNikaHasNone(t *testing.T) {
	t.Setenv("PATH", "")
	os.Unsetenv("PATH")
	root := repo(t)
	out := filepath.Join(t.TempDir(), "path")
	hookFile(t, root, "p", sh(`printf '%s' "$PATH" > `+out), 0o755)
	snapshotRun(t, root, Options{})
	if b, _ := os.ReadFile(out); string(b) != DefaultPath {
		t.Fatalf("PATH=%q, want %q", b, DefaultPath)
	}
}

// TestHookOutputHasNoHostPath: what a hook prints is recorded into a git
// note (and reaches nika log --json), so its host paths are scrubbed: the
// work tree becomes relative, home <home>, the hook's private directory
// <tmp>, the directories on its PATH and any other absolute path <path>.
func TestHookOutputHasNoHostPath(t *testing.T) {
	t.Setenv("HOME", "/home/tester")
	root := repo(t)
	hookFile(t, root, "p", sh(`echo "pwd=$PWD root=$NIKA_ROOT/flows/a.nika.yaml"`, `echo "home=$HOME/.config"`, `echo "path=$PATH"`, `echo "self=$0"`, `echo "other=/opt/site/lib/x.so" >&2`), 0o755)
	rs := snapshotRun(t, root, Options{})
	want := "pwd=. root=flows/a.nika.yaml\nhome=<home>/.config\n"
	if !strings.HasPrefix(rs[0].Output, want) {
		t.Fatalf("output %q, want it to start %q", rs[0].Output, want)
	}
	for _, l := range strings.Split(rs[0].Output, "\n") {
		if strings.HasPrefix(l, "path=") && strings.Trim(strings.ReplaceAll(strings.TrimPrefix(l, "path="), "<path>", ""), ":") != "" {
			t.Errorf("PATH not scrubbed: %q", l)
		}
	}
	for _, leak := range []string{root, "/home/tester", "/opt/site", os.TempDir() + "/nika-hooks-"} {
		if strings.Contains(rs[0].Output, leak) {
			t.Errorf("the recorded output holds %q:\n%s", leak, rs[0].Output)
		}
	}
	for _, w := range []string{"self=<tmp>/", "other=<path>"} {
		if !strings.Contains(rs[0].Output, w) {
			t.Errorf("the recorded output lacks %q:\n%s", w, rs[0].Output)
		}
	}
}

// gone reports whether pid no longer runs (absent, or a zombie).
func gone(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
	}
	// pid (comm) S ...: the state follows the last ')'.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i >= 0 && len(s) > i+2 && (s[i+2] == 'Z' || s[i+2] == 'X')
}

func TestATimeoutKillsTheHookAndItsChildren(t *testing.T) {
	root := repo(t)
	hookFile(t, root, "slow", sh(
		`sleep 10 &`,
		`echo $! > "$NIKA_ROOT/child.pid"`,
		`echo started`,
		`wait`,
	), 0o755)
	hookFile(t, root, "then", sh("echo after"), 0o755)

	rs := snapshotRun(t, root, Options{Timeout: 200 * time.Millisecond})
	if len(rs) != 2 {
		t.Fatalf("%+v", rs)
	}
	slow := rs[0] // "slow" < "then"
	if slow.Name != "slow" || !slow.TimedOut || !slow.Failed() || slow.Exit != -1 || slow.Signal != int(syscall.SIGKILL) {
		t.Fatalf("the slow hook: %+v", slow)
	}
	if slow.Output != "started\n" {
		t.Errorf("output before the kill was %q", slow.Output)
	}
	b, err := os.ReadFile(filepath.Join(root, "child.pid"))
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	// The group was killed, so the child is dead (maybe not yet reaped by
	// init). Poll, since reaping is asynchronous; no timing is asserted.
	deadline := time.Now().Add(10 * time.Second)
	for !gone(pid) {
		if time.Now().After(deadline) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("the hook's child %d outlived the timeout", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if then := rs[1]; then.Name != "then" || then.Output != "after\n" || then.Failed() {
		t.Errorf("the hook after the slow one: %+v", then)
	}
}

func TestAHookAfterATimeoutStillRuns(t *testing.T) {
	root := repo(t)
	hookFile(t, root, "1-slow", sh("sleep 10"), 0o755)
	hookFile(t, root, "2-fast", sh("echo fast"), 0o755)
	rs := snapshotRun(t, root, Options{Timeout: 200 * time.Millisecond})
	if !rs[0].TimedOut || rs[1].TimedOut || rs[1].Output != "fast\n" || rs[1].Failed() {
		t.Fatalf("%+v", rs)
	}
}

func TestABackgroundedChildDiesWithItsHook(t *testing.T) {
	// A hook that exits 0 but leaves a process behind holding its output
	// does not keep the run waiting, and the process does not survive.
	root := repo(t)
	hookFile(t, root, "bg", sh(`sleep 30 & echo $! > "$NIKA_ROOT/bg.pid"`, `echo done`), 0o755)
	rs := snapshotRun(t, root, Options{})
	if rs[0].Failed() || rs[0].Output != "done\n" {
		t.Fatalf("%+v", rs[0])
	}
	b, err := os.ReadFile(filepath.Join(root, "bg.pid"))
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	deadline := time.Now().Add(10 * time.Second)
	for !gone(pid) {
		if time.Now().After(deadline) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("the hook's background child %d outlived it", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestOutputIsCombinedAndExitCodesKept(t *testing.T) {
	root := repo(t)
	hookFile(t, root, "fail", sh("echo out", "echo err >&2", "echo out2", "exit 3"), 0o755)
	rs := snapshotRun(t, root, Options{})
	r := rs[0]
	if r.Exit != 3 || !r.Failed() || r.TimedOut || r.Signal != 0 {
		t.Fatalf("%+v", r)
	}
	if r.Output != "out\nerr\nout2\n" {
		t.Fatalf("output %q", r.Output)
	}
}

func TestOutputIsTruncatedAtTheLimit(t *testing.T) {
	root := repo(t)
	// 1 MiB, far beyond the limit and a pipe's buffer: the hook must not
	// block on a full pipe.
	hookFile(t, root, "loud", sh("head -c 1048576 /dev/zero | tr '\\0' x"), 0o755)
	rs := snapshotRun(t, root, Options{OutputLimit: 1000})
	r := rs[0]
	if r.Failed() {
		t.Fatalf("%+v", r)
	}
	want := strings.Repeat("x", 1000) + "\n[output truncated at 1000 bytes]\n"
	if r.Output != want {
		t.Fatalf("output of %d bytes ends %q", len(r.Output), r.Output[max(0, len(r.Output)-60):])
	}
	// The default limit is 64 KiB.
	rs = snapshotRun(t, root, Options{})
	if !strings.HasSuffix(rs[0].Output, "\n[output truncated at 65536 bytes]\n") || len(rs[0].Output) != 65536+len("\n[output truncated at 65536 bytes]\n") {
		t.Fatalf("default limit: %d bytes", len(rs[0].Output))
	}
}

func TestEntriesThatAreNotRunnableAreSkippedWithANote(t *testing.T) {
	root := repo(t)
	outside := t.TempDir()
	marker := filepath.Join(outside, "followed")
	target := filepath.Join(outside, "target")
	if err := os.WriteFile(target, []byte(sh("touch "+marker)), 0o755); err != nil {
		t.Fatal(err)
	}
	hookFile(t, root, "10-plain", sh("echo plain"), 0o644)
	if err := os.Symlink(target, filepath.Join(root, Dir, "20-link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(root, Dir, "25-dir"), 0o755); err != nil {
		t.Fatal(err)
	}
	hookFile(t, root, "30-real", sh("echo real"), 0o755)
	if err := os.Symlink("30-real", filepath.Join(root, Dir, "40-link-inside")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(root, Dir, "50-fifo"), 0o755); err != nil {
		t.Fatal(err)
	}

	rs := snapshotRun(t, root, Options{})
	want := []struct{ name, skipped, output string }{
		{"10-plain", "not executable", ""},
		{"20-link", "a symlink, not followed", ""},
		{"25-dir", "a directory", ""},
		{"30-real", "", "real\n"},
		{"40-link-inside", "a symlink, not followed", ""},
		{"50-fifo", "not a regular file", ""},
	}
	if len(rs) != len(want) {
		t.Fatalf("results %v", names(rs))
	}
	for i, w := range want {
		r := rs[i]
		if r.Name != w.name || r.Skipped != w.skipped || r.Output != w.output || r.Failed() {
			t.Errorf("result %d: %+v, want %+v", i, r, w)
		}
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("a symlinked hook was followed and run")
	}
	if v := (Verdict{Hooks: rs}); !v.Clean() {
		t.Fatalf("skipped entries made the verdict unclean:\n%s", v.Text())
	}
}

func TestAHooksDirectoryThroughASymlinkIsRefused(t *testing.T) {
	for _, link := range []string{".nika", ".nika/hooks", Dir} {
		t.Run(link, func(t *testing.T) {
			root := t.TempDir()
			elsewhere := t.TempDir()
			// elsewhere holds a full hooks tree; link points into it.
			if err := os.MkdirAll(filepath.Join(elsewhere, Dir), 0o755); err != nil {
				t.Fatal(err)
			}
			os.WriteFile(filepath.Join(elsewhere, Dir, "h"), []byte(sh("echo evil")), 0o755)
			if err := os.MkdirAll(filepath.Join(root, filepath.Dir(link)), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(filepath.Join(elsewhere, link), filepath.Join(root, link)); err != nil {
				t.Fatal(err)
			}
			set, err := Snapshot(root)
			if err == nil {
				t.Fatalf("snapshot through a symlink at %s: %d entries", link, len(set.hooks))
			}
			if refusal.ClassOf(err) != refusal.NotAllowed {
				t.Errorf("class %s: %v", refusal.ClassOf(err), err)
			}
			if strings.Contains(err.Error(), root) || strings.Contains(err.Error(), elsewhere) {
				t.Errorf("the refusal names a host path: %v", err)
			}
			if !strings.Contains(err.Error(), link+" is a symlink") {
				t.Errorf("the refusal does not say what is a symlink: %v", err)
			}
		})
	}
}

func TestNoHooksDirectoryIsNoHooks(t *testing.T) {
	root := t.TempDir()
	set, err := Snapshot(root)
	if err != nil {
		t.Fatal(err)
	}
	if rs := set.Run(context.Background(), env(root), Options{}); len(rs) != 0 {
		t.Fatalf("%+v", rs)
	}
	// A file where the directory should be is a refusal, not silence.
	os.MkdirAll(filepath.Join(root, ".nika/hooks"), 0o755)
	os.WriteFile(filepath.Join(root, Dir), []byte("x"), 0o644)
	if _, err := Snapshot(root); refusal.ClassOf(err) != refusal.Unsupported {
		t.Fatalf("hooks directory is a file: %v", err)
	}
}

func TestTheSnapshotRunsThePreApplyVersion(t *testing.T) {
	root := repo(t)
	selfFile := filepath.Join(t.TempDir(), "self")
	hookFile(t, root, "10-h", sh(`echo old`, `echo "$0" > `+selfFile), 0o755)
	set, err := Snapshot(root)
	if err != nil {
		t.Fatal(err)
	}
	// The "apply" rewrites the hook, adds one, and makes another a symlink.
	hookFile(t, root, "10-h", sh("echo new"), 0o755)
	hookFile(t, root, "20-added", sh("echo added"), 0o755)

	rs := set.Run(context.Background(), env(root), Options{})
	if got := names(rs); len(got) != 1 || got[0] != "10-h" {
		t.Fatalf("ran %v, want only the hook that existed before the apply", got)
	}
	old := strings.TrimSuffix(rs[0].Output, "\n")
	b, _ := os.ReadFile(selfFile)
	self := strings.TrimSuffix(string(b), "\n")
	if old != "old" {
		t.Fatalf("ran the rewritten hook: %q", rs[0].Output)
	}
	// It ran from a private copy outside the worktree, since removed.
	if !filepath.IsAbs(self) || inside(self, root) {
		t.Errorf("the hook ran as %s, inside the worktree %s", self, root)
	}
	if _, err := os.Stat(filepath.Dir(self)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the private copy %s was not removed: %v", self, err)
	}

	// Even with the whole directory gone, the snapshot runs.
	if err := os.RemoveAll(filepath.Join(root, ".nika")); err != nil {
		t.Fatal(err)
	}
	rs = set.Run(context.Background(), env(root), Options{})
	if len(rs) != 1 || !strings.HasPrefix(rs[0].Output, "old\n") {
		t.Fatalf("%+v", rs)
	}
}

func TestTheRunDirectoryIsPrivate(t *testing.T) {
	root := repo(t)
	hookFile(t, root, "h", sh(`stat -c %a "$(dirname "$(dirname "$0")")"`), 0o755)
	rs := snapshotRun(t, root, Options{})
	if rs[0].Output != "700\n" {
		t.Fatalf("run directory mode %q", rs[0].Output)
	}
}

func TestATempDirectoryInsideTheWorktreeIsRefused(t *testing.T) {
	root := repo(t)
	hookFile(t, root, "h", sh("touch ran"), 0o755)
	rs := snapshotRun(t, root, Options{TempDir: root})
	if !rs[0].Failed() || !strings.Contains(rs[0].Error, "inside the worktree") {
		t.Fatalf("%+v", rs[0])
	}
	if _, err := os.Stat(filepath.Join(root, "ran")); err == nil {
		t.Fatal("the hook ran")
	}
	entries, _ := os.ReadDir(root)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), "nika-hooks-") {
			t.Errorf("left %s in the worktree", e.Name())
		}
	}
}

func TestAHookThatCannotStartFails(t *testing.T) {
	root := repo(t)
	hookFile(t, root, "garbage", "\x7fELF not really\n", 0o755)
	rs := snapshotRun(t, root, Options{})
	r := rs[0]
	if !r.Failed() || r.Exit != -1 || r.Error != "could not start: exec format error (not a program, and no #! line)" {
		t.Fatalf("%+v", r)
	}
	hookFile(t, root, "garbage", "#!/no/such/interpreter\n", 0o755)
	rs = snapshotRun(t, root, Options{})
	if rs[0].Error != "could not start: the interpreter on its #! line was not found" {
		t.Fatalf("%+v", rs[0])
	}
}

func TestACancelledRunStopsTheHooks(t *testing.T) {
	root := repo(t)
	hookFile(t, root, "h", sh("touch ran"), 0o755)
	set, err := Snapshot(root)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	rs := set.Run(ctx, env(root), Options{})
	if !rs[0].Failed() || rs[0].Error != "not run: cancelled" {
		t.Fatalf("%+v", rs[0])
	}
	if _, err := os.Stat(filepath.Join(root, "ran")); err == nil {
		t.Fatal("the hook ran")
	}
}

func TestCappedCountsWhatItDrops(t *testing.T) {
	c := &capped{limit: 4}
	c.Write([]byte("ab"))
	c.Write([]byte("cdef"))
	c.Write([]byte("gh"))
	if got := c.String(); got != "abcd\n[output truncated at 4 bytes]\n" || c.dropped != 4 {
		t.Fatalf("%q, dropped %d", got, c.dropped)
	}
	if c.String() != c.String() {
		t.Fatal("String is not idempotent")
	}
	var none capped
	none.limit = 4
	none.Write(bytes.Repeat([]byte("z"), 4))
	if none.String() != "zzzz" {
		t.Fatalf("%q", none.String())
	}
}

func TestAProcessThatLeavesTheGroupCannotHoldTheRun(t *testing.T) {
	// setsid puts a process out of reach of the group kill. It cannot keep
	// the run waiting for its output forever: the output is cut, with a
	// note. (It does survive the hook: see the package documentation.)
	if _, err := os.Stat("/usr/bin/setsid"); err != nil {
		t.Skip("no setsid")
	}
	root := repo(t)
	hookFile(t, root, "esc", sh(`setsid sh -c 'echo $$ > "$NIKA_ROOT/esc.pid"; exec sleep 30' &`,
		`while [ ! -s "$NIKA_ROOT/esc.pid" ]; do sleep 0.01; done`, `echo done`), 0o755)
	hookFile(t, root, "next", sh(`echo next`), 0o755)
	rs := snapshotRun(t, root, Options{})
	t.Cleanup(func() {
		if b, err := os.ReadFile(filepath.Join(root, "esc.pid")); err == nil {
			if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && pid > 1 {
				syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	})
	want := "done\n[output cut: a process outside the hook's group kept it open]\n"
	if rs[0].Name != "esc" || rs[0].Output != want || rs[0].Failed() {
		t.Fatalf("%+v", rs[0])
	}
	if rs[1].Output != "next\n" {
		t.Fatalf("%+v", rs[1])
	}
}
