// Package gittest builds throwaway git repositories for tests with the real
// git CLI, isolated from the host's configuration, so that tests check nika
// against git itself. It lives beside gitstage, the room of all git, and
// serves the tests of every room that works on a repository (gitstage,
// consent, flow, proof, the doors); synth, under it, builds the large
// synthetic repositories of the benchmarks.
package gittest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Repo is a repository in a test's temp dir.
type Repo struct {
	T   testing.TB
	Dir string
}

// Env isolates git from the host and gives it an identity.
func Env(home string) []string {
	return []string{
		"HOME=" + home,
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_CONFIG_GLOBAL=" + filepath.Join(home, ".gitconfig"),
		"GIT_AUTHOR_NAME=Ada Tester", "GIT_AUTHOR_EMAIL=ada@example.com",
		"GIT_COMMITTER_NAME=Ada Tester", "GIT_COMMITTER_EMAIL=ada@example.com",
	}
}

// Setenv applies Env to the test process, so in-process nika code sees the
// same isolated configuration as the git CLI.
func Setenv(t testing.TB, home string) {
	for _, kv := range Env(home) {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
}

// New makes an empty repository on branch main, with the process
// environment isolated for git and nika alike.
func New(t testing.TB) *Repo {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("the git CLI is not installed; this test checks nika against it")
	}
	home := t.TempDir()
	Setenv(t, home)
	dir := filepath.Join(t.TempDir(), "repo")
	r := &Repo{T: t, Dir: dir}
	r.Git("init", "-q", "-b", "main", dir)
	return r
}

// Git runs git in the repository and returns its trimmed stdout; a failure
// fails the test.
func (r *Repo) Git(args ...string) string {
	r.T.Helper()
	out, err := r.TryGit(args...)
	if err != nil {
		r.T.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

// TryGit runs git and returns its output and error.
func (r *Repo) TryGit(args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	if args[0] != "init" {
		cmd.Dir = r.Dir
	}
	out, err := cmd.CombinedOutput()
	return strings.TrimRight(string(out), "\n"), err
}

// Write writes a file (making directories).
func (r *Repo) Write(path, content string) {
	r.T.Helper()
	p := filepath.Join(r.Dir, filepath.FromSlash(path))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		r.T.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		r.T.Fatal(err)
	}
}

// Read reads a file, "" when absent.
func (r *Repo) Read(path string) string {
	b, _ := os.ReadFile(filepath.Join(r.Dir, filepath.FromSlash(path)))
	return string(b)
}

// Commit stages everything and commits.
func (r *Repo) Commit(msg string) string {
	r.T.Helper()
	r.Git("add", "-A")
	r.Git("commit", "-q", "-m", msg)
	return r.Git("rev-parse", "HEAD")
}

// Clean asserts git status is empty and fsck is clean.
func (r *Repo) Clean() {
	r.T.Helper()
	if s := r.Git("status", "--porcelain"); s != "" {
		r.T.Errorf("git status --porcelain is not empty:\n%s", s)
	}
	r.Git("fsck", "--strict")
}
