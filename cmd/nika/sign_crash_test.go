package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nika-dev/nika/gitstage"
)

// TestSignedApplyCrashRecovers: a signed apply killed with SIGKILL at each
// step after the signature is made recovers like an unsigned one, because
// the journal names the signed twin the branch moves to: before the branch
// moves, recovery undoes; after, it finishes, and HEAD is the twin (its
// signature good, its payload the proposal commit).
func TestSignedApplyCrashRecovers(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a failpoint binary; skipped with -short")
	}
	if _, err := exec.LookPath("ssh-keygen"); err != nil {
		t.Skip("ssh-keygen is not installed: this test signs with it")
	}
	bin := failpointBinary(t)
	for _, tc := range []struct{ fp, want string }{
		{"journaled", "not applied"},
		{"renamed:1", "not applied"},
		{"index-renamed", "not applied"},
		{"ref-renamed", "applied"},
		{"reflogged", "applied"},
	} {
		t.Run(tc.fp, func(t *testing.T) {
			e, id, base, commit := crashRepo(t, bin, "plain")
			g := e.g
			key := filepath.Join(t.TempDir(), "id")
			if out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "ada", "-f", key).CombinedOutput(); err != nil {
				t.Fatalf("ssh-keygen: %v\n%s", err, out)
			}
			pub, _ := os.ReadFile(key + ".pub")
			allowed := filepath.Join(t.TempDir(), "allowed")
			os.WriteFile(allowed, []byte("ada "+string(pub)), 0o644)
			for _, kv := range [][2]string{{"gpg.format", "ssh"}, {"user.signingkey", key}, {"commit.gpgsign", "true"}, {"gpg.ssh.allowedSignersFile", allowed}} {
				g.Git("config", kv[0], kv[1])
			}
			crashApply(t, bin, g.Dir, id, tc.fp)
			out := nikaOut(t, bin, g.Dir, "recover")
			if !strings.Contains(out, "recovered "+id[:12]+": "+tc.want) {
				t.Fatalf("recover says:\n%s\nwant %q", out, tc.want)
			}
			head := g.Git("rev-parse", "HEAD")
			want := before
			if tc.want == "applied" {
				want = after
				sc := gitstage.SplitSignature([]byte(g.Git("cat-file", "commit", "HEAD") + "\n"))
				if head == commit || sc == nil || sc.Signed != commit {
					t.Fatalf("HEAD %s is not the signed twin of the proposal commit %s (%+v)", head, commit, sc)
				}
				g.Git("verify-commit", "HEAD")
				if !strings.Contains(g.Git("reflog", "-1", "--format=%H %gs"), head+" nika: apply "+id) {
					t.Errorf("the reflog lacks the apply to the twin")
				}
			} else if head != base {
				t.Fatalf("not applied, and HEAD is %s, not the base %s", head, base)
			}
			for p, b := range want {
				if got := e.read(p); got != b {
					t.Errorf("%s: %s = %q, want %q", tc.want, p, got, b)
				}
			}
			if s := g.Git("status", "--porcelain"); s != "" {
				t.Errorf("%s: git status is not empty:\n%s", tc.want, s)
			}
			g.Git("fsck", "--strict")
		})
	}
}
