package gitstage_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nika-dev/nika/gitstage"
	"github.com/nika-dev/nika/gitstage/gittest"
	"github.com/nika-dev/nika/refusal"
)

// layout is one way git finds a repository: a working directory and an
// environment, over a tree of directories made by setup.
type layout struct {
	name  string
	setup func(t *testing.T, top string) (cwd string, env map[string]string)
}

// gitView is what git says of a layout: its git dir, work tree and index
// (absolute), or the error it stops with.
func gitView(t *testing.T, cwd string, env map[string]string) (gitDir, top, index string, err error) {
	t.Helper()
	cmd := exec.Command("git", "rev-parse", "--git-dir", "--show-toplevel", "--git-path", "index")
	cmd.Dir = cwd
	cmd.Env = os.Environ()
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		return "", "", "", &exec.ExitError{Stderr: out}
	}
	lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	if len(lines) != 3 {
		t.Fatalf("git rev-parse printed %q", out)
	}
	abs := func(p string) string {
		if !filepath.IsAbs(p) {
			p = filepath.Join(cwd, p)
		}
		if r, err := filepath.EvalSymlinks(p); err == nil {
			return r
		}
		return filepath.Clean(p)
	}
	return abs(lines[0]), abs(lines[1]), abs(lines[2]), nil
}

func run(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// repoAt makes a repository with one commit at dir (git init args extra).
func repoAt(t *testing.T, dir string, extra ...string) {
	t.Helper()
	run(t, filepath.Dir(dir), append([]string{"git", "init", "-q", "-b", "main"}, append(extra, dir)...)...)
	wt := dir
	if b, err := exec.Command("git", "-C", dir, "rev-parse", "--show-toplevel").Output(); err == nil {
		wt = strings.TrimSpace(string(b))
	}
	if err := os.WriteFile(filepath.Join(wt, "a.txt"), []byte("a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	run(t, wt, "git", "add", "a.txt")
	run(t, wt, "git", "commit", "-q", "-m", "first")
}

func mkdir(t *testing.T, p string) string {
	t.Helper()
	if err := os.MkdirAll(p, 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func gitConfig(t *testing.T, gitDir string, kv ...string) {
	t.Helper()
	for i := 0; i < len(kv); i += 2 {
		run(t, "/", "git", "config", "-f", filepath.Join(gitDir, "config"), kv[i], kv[i+1])
	}
}

// Layouts are the setups of issue 12 and git's t1510: each is compared
// with git rev-parse below, and applied in through the built binary by
// cmd/nika/testdata/script/boundary_discovery.txtar.
var layouts = []layout{
	{"plain, at the top", func(t *testing.T, top string) (string, map[string]string) {
		repoAt(t, top+"/r")
		return top + "/r", nil
	}},
	{"plain, in a subdirectory", func(t *testing.T, top string) (string, map[string]string) {
		repoAt(t, top+"/r")
		return mkdir(t, top+"/r/sub/deep"), nil
	}},
	{"a .git file (separate git dir)", func(t *testing.T, top string) (string, map[string]string) {
		repoAt(t, top+"/wt", "--separate-git-dir="+top+"/store.git")
		return mkdir(t, top+"/wt/sub"), nil
	}},
	{"a relative .git file", func(t *testing.T, top string) (string, map[string]string) {
		repoAt(t, top+"/wt", "--separate-git-dir="+top+"/store.git")
		if err := os.WriteFile(top+"/wt/.git", []byte("gitdir: ../store.git\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return top + "/wt", nil
	}},
	{"core.worktree, from beside the git dir", func(t *testing.T, top string) (string, map[string]string) {
		repoAt(t, top+"/g")
		mkdir(t, top+"/tree")
		gitConfig(t, top+"/g/.git", "core.worktree", "../../tree")
		return top + "/g", nil
	}},
	{"core.worktree, from inside the git dir", func(t *testing.T, top string) (string, map[string]string) {
		repoAt(t, top+"/g")
		mkdir(t, top+"/tree")
		gitConfig(t, top+"/g/.git", "core.worktree", top+"/tree")
		return top + "/g/.git", nil
	}},
	{"GIT_DIR and GIT_WORK_TREE, relative", func(t *testing.T, top string) (string, map[string]string) {
		repoAt(t, top+"/g")
		mkdir(t, top+"/tree/sub")
		return top + "/tree/sub", map[string]string{"GIT_DIR": "../../g/.git", "GIT_WORK_TREE": ".."}
	}},
	{"GIT_DIR alone: the working directory is the top", func(t *testing.T, top string) (string, map[string]string) {
		repoAt(t, top+"/g")
		return mkdir(t, top+"/elsewhere"), map[string]string{"GIT_DIR": top + "/g/.git"}
	}},
	{"GIT_DIR names a .git file", func(t *testing.T, top string) (string, map[string]string) {
		repoAt(t, top+"/wt", "--separate-git-dir="+top+"/store.git")
		return mkdir(t, top+"/x"), map[string]string{"GIT_DIR": top + "/wt/.git", "GIT_WORK_TREE": top + "/wt"}
	}},
	{"GIT_DIR of a bare repository with GIT_WORK_TREE", func(t *testing.T, top string) (string, map[string]string) {
		repoAt(t, top+"/src")
		run(t, top, "git", "clone", "-q", "--bare", top+"/src", top+"/b.git")
		mkdir(t, top+"/tree")
		return top + "/tree", map[string]string{"GIT_DIR": top + "/b.git", "GIT_WORK_TREE": top + "/tree"}
	}},
	{"GIT_WORK_TREE alone, over a discovered git dir", func(t *testing.T, top string) (string, map[string]string) {
		repoAt(t, top+"/g")
		mkdir(t, top+"/tree")
		return top + "/g", map[string]string{"GIT_WORK_TREE": top + "/tree"}
	}},
	{"GIT_INDEX_FILE, relative to the top", func(t *testing.T, top string) (string, map[string]string) {
		repoAt(t, top+"/r")
		return mkdir(t, top+"/r/sub"), map[string]string{"GIT_INDEX_FILE": "alt-index"}
	}},
	{"GIT_INDEX_FILE, absolute", func(t *testing.T, top string) (string, map[string]string) {
		repoAt(t, top+"/r")
		return top + "/r", map[string]string{"GIT_INDEX_FILE": top + "/idx"}
	}},
	{"a linked worktree", func(t *testing.T, top string) (string, map[string]string) {
		repoAt(t, top+"/main")
		run(t, top+"/main", "git", "worktree", "add", "-q", "-b", "side", top+"/linked")
		return mkdir(t, top+"/linked/sub"), nil
	}},
	{"a linked worktree ignores the common core.worktree", func(t *testing.T, top string) (string, map[string]string) {
		repoAt(t, top+"/main")
		run(t, top+"/main", "git", "worktree", "add", "-q", "-b", "side", top+"/linked")
		mkdir(t, top+"/tree")
		gitConfig(t, top+"/main/.git", "core.worktree", top+"/tree")
		return top + "/linked", nil
	}},
	{"a submodule", func(t *testing.T, top string) (string, map[string]string) {
		repoAt(t, top+"/lib")
		repoAt(t, top+"/super")
		run(t, top+"/super", "git", "-c", "protocol.file.allow=always", "submodule", "add", "-q", top+"/lib", "mod")
		return mkdir(t, top+"/super/mod/inner"), nil
	}},
	{"GIT_CEILING_DIRECTORIES above the repository", func(t *testing.T, top string) (string, map[string]string) {
		repoAt(t, top+"/r")
		return mkdir(t, top+"/r/sub"), map[string]string{"GIT_CEILING_DIRECTORIES": top}
	}},
	{"GIT_CEILING_DIRECTORIES at the repository: not found", func(t *testing.T, top string) (string, map[string]string) {
		repoAt(t, top+"/r")
		return mkdir(t, top+"/r/sub"), map[string]string{"GIT_CEILING_DIRECTORIES": "/nonexistent:" + top + "/r"}
	}},
	{"core.bare = true: refused", func(t *testing.T, top string) (string, map[string]string) {
		repoAt(t, top+"/r")
		gitConfig(t, top+"/r/.git", "core.bare", "true")
		return top + "/r", nil
	}},
	{"inside .git with no core.worktree: refused", func(t *testing.T, top string) (string, map[string]string) {
		repoAt(t, top+"/r")
		return top + "/r/.git/refs", nil
	}},
	{"a bare repository: refused", func(t *testing.T, top string) (string, map[string]string) {
		repoAt(t, top+"/src")
		run(t, top, "git", "clone", "-q", "--bare", top+"/src", top+"/b.git")
		return top + "/b.git", nil
	}},
	{"GIT_DIR that is no repository: refused", func(t *testing.T, top string) (string, map[string]string) {
		return mkdir(t, top+"/x"), map[string]string{"GIT_DIR": top + "/x"}
	}},
	{"an invalid .git file: refused", func(t *testing.T, top string) (string, map[string]string) {
		mkdir(t, top+"/x")
		if err := os.WriteFile(top+"/x/.git", []byte("not a gitfile\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return top + "/x", nil
	}},
	{"another owner: refused", func(t *testing.T, top string) (string, map[string]string) {
		repoAt(t, top+"/r")
		if os.Geteuid() != 0 {
			t.Skip("needs root to chown the repository to another user")
		}
		run(t, top, "chown", "-R", "12345", top+"/r")
		return top + "/r", nil
	}},
	{"another owner, with safe.directory on the command line", func(t *testing.T, top string) (string, map[string]string) {
		repoAt(t, top+"/r")
		if os.Geteuid() != 0 {
			t.Skip("needs root to chown the repository to another user")
		}
		run(t, top, "chown", "-R", "12345", top+"/r")
		return top + "/r", map[string]string{"GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "safe.directory", "GIT_CONFIG_VALUE_0": top + "/r"}
	}},
	{"another owner, with safe.directory = * in git -c", func(t *testing.T, top string) (string, map[string]string) {
		repoAt(t, top+"/r")
		if os.Geteuid() != 0 {
			t.Skip("needs root to chown the repository to another user")
		}
		run(t, top, "chown", "-R", "12345", top+"/r")
		return top + "/r", map[string]string{"GIT_CONFIG_PARAMETERS": "'safe.directory'='*'"}
	}},
	{"safe.directory in the repository's own config does not count", func(t *testing.T, top string) (string, map[string]string) {
		repoAt(t, top+"/r")
		if os.Geteuid() != 0 {
			t.Skip("needs root to chown the repository to another user")
		}
		gitConfig(t, top+"/r/.git", "safe.directory", "*")
		run(t, top, "chown", "-R", "12345", top+"/r")
		return top + "/r", nil
	}},
}

// TestDiscoveryAgreesWithGit: for every layout, nika's git dir, work tree
// and index are git's (git rev-parse --git-dir --show-toplevel --git-path
// index), and where git stops, nika refuses.
func TestDiscoveryAgreesWithGit(t *testing.T) {
	gittest.New(t) // isolates git's configuration and identity
	for _, l := range layouts {
		t.Run(l.name, func(t *testing.T) {
			top, err := filepath.EvalSymlinks(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			cwd, env := l.setup(t, top)
			gd, wt, ix, gerr := gitView(t, cwd, env)
			lookup := func(k string) (string, bool) {
				if v, ok := env[k]; ok {
					return v, true
				}
				return os.LookupEnv(k)
			}
			r, nerr := gitstage.Discover(cwd, lookup)
			switch {
			case gerr != nil && nerr == nil:
				t.Fatalf("git stops (%s) but nika found %s", gerr.(*exec.ExitError).Stderr, r.Root)
			case gerr == nil && nerr != nil:
				t.Fatalf("git finds %s but nika refuses: %v", wt, nerr)
			case gerr != nil:
				var re *refusal.Error
				if c := refusal.ClassOf(nerr); c == refusal.Internal || !asRefusal(nerr, &re) || re.Hint == "" {
					t.Errorf("nika's refusal has no class or fix: %v", nerr)
				}
				t.Logf("git: %s; nika: %s: %v", strings.TrimSpace(string(gerr.(*exec.ExitError).Stderr)), refusal.ClassOf(nerr), nerr)
				return
			}
			if r.GitDir != gd || r.Root != wt || r.IndexPath() != ix {
				t.Errorf("nika: git dir %s, work tree %s, index %s\ngit:  git dir %s, work tree %s, index %s", r.GitDir, r.Root, r.IndexPath(), gd, wt, ix)
			}
		})
	}
}

func asRefusal(err error, re **refusal.Error) bool {
	e, ok := err.(*refusal.Error)
	*re = e
	return ok
}

// TestDiscoveryStopsAtAFilesystemBoundary mounts a tmpfs inside the work
// tree: from inside it, git stops at the boundary and so does nika, unless
// GIT_DISCOVERY_ACROSS_FILESYSTEM is set.
func TestDiscoveryStopsAtAFilesystemBoundary(t *testing.T) {
	g := gittest.New(t)
	g.Write("a.txt", "a\n")
	g.Commit("first")
	mnt := mkdir(t, filepath.Join(g.Dir, "mnt"))
	if out, err := exec.Command("mount", "-t", "tmpfs", "nika-test", mnt).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs here (%v: %s); the filesystem boundary is not tested", err, strings.TrimSpace(string(out)))
	}
	t.Cleanup(func() { exec.Command("umount", mnt).Run() })
	cwd := mkdir(t, filepath.Join(mnt, "x"))
	for _, env := range []map[string]string{nil, {"GIT_DISCOVERY_ACROSS_FILESYSTEM": "1"}} {
		_, wt, _, gerr := gitView(t, cwd, env)
		r, nerr := gitstage.Discover(cwd, func(k string) (string, bool) {
			if v, ok := env[k]; ok {
				return v, true
			}
			return os.LookupEnv(k)
		})
		switch {
		case (gerr == nil) != (nerr == nil):
			t.Errorf("env %v: git err %v, nika err %v", env, gerr, nerr)
		case gerr == nil && r.Root != wt:
			t.Errorf("env %v: nika's work tree %s, git's %s", env, r.Root, wt)
		case gerr != nil && !strings.Contains(nerr.Error(), "filesystem boundary"):
			t.Errorf("nika's refusal does not name the boundary: %v", nerr)
		}
	}
}
