package proof

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/nika-dev/nika/gitstage"
	"github.com/nika-dev/nika/gitstage/gittest"
	"github.com/nika-dev/nika/refusal"
)

// TestVerifySignatures: a proven proposal's signature, checked by git's
// rules with a real ssh key, in every state verify tells apart, with and
// without --require-signed.
func TestVerifySignatures(t *testing.T) {
	if _, err := exec.LookPath("ssh-keygen"); err != nil {
		t.Skip("ssh-keygen is not installed: this test signs with it")
	}
	g := gittest.New(t)
	t.Setenv("TMPDIR", t.TempDir())
	g.Write("README", "hello\n")
	g.Commit("first")
	keys := t.TempDir()
	key := filepath.Join(keys, "id")
	if out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "ada", "-f", key).CombinedOutput(); err != nil {
		t.Fatalf("ssh-keygen: %v\n%s", err, out)
	}
	pub, _ := os.ReadFile(key + ".pub")
	allowed := filepath.Join(keys, "allowed")
	os.WriteFile(allowed, []byte("ada@example.com "+string(pub)), 0o644)
	g.Git("config", "gpg.format", "ssh")
	g.Git("config", "user.signingkey", key)
	g.Git("config", "gpg.ssh.allowedSignersFile", allowed)
	g.Git("config", "nika.sign", "true")

	r, p := applied(t, g, "hi") // unsigned, on main
	unsigned := g.Git("rev-parse", "HEAD")
	r, _ = gitstage.Open(g.Dir)
	twin, err := r.SignedTwin(plumbing.NewHash(p.Proposal.Commit))
	if err != nil {
		t.Fatal(err)
	}
	raw := g.Git("cat-file", "commit", twin.String()) + "\n"
	write := func(body string) string {
		f := filepath.Join(t.TempDir(), "c")
		os.WriteFile(f, []byte(body), 0o644)
		return g.Git("hash-object", "-t", "commit", "-w", "--literally", f)
	}
	tampered := write(strings.Replace(raw, "author Ada Tester", "author Eve Tester", 1))
	// a payload with a header nika never writes, signed for real
	payload := strings.Replace(g.Git("cat-file", "commit", p.Proposal.Commit)+"\n", "\n\n", "\nencoding ISO-8859-1\n\n", 1)
	sg, err := r.Signer()
	if err != nil || sg == nil {
		t.Fatal(sg, err)
	}
	sig, err := sg.Sign([]byte(payload))
	if err != nil {
		t.Fatal(err)
	}
	extra := write(string(gitstage.InsertSignature([]byte(payload), sig)))
	if _, err := g.TryGit("verify-commit", extra); err != nil {
		t.Fatalf("git does not accept the signed commit with an extra header, so the case proves nothing: %v", err)
	}

	cases := []struct {
		name, commit, config string
		plain, required      string // classes(): status and failure classes
		status               string
	}{
		{"unsigned", unsigned, "", "proven", "failed:Unsigned", SigUnsigned},
		{"good", twin.String(), "", "proven", "proven", SigGood},
		{"tampered", tampered, "", "failed:BadSignature", "failed:BadSignature", SigBad},
		{"extra header", extra, "", "failed:BadSignature", "failed:BadSignature", SigBad},
		{"not allowed", twin.String(), "gpg.ssh.allowedSignersFile=" + filepath.Join(keys, "none"), "proven", "failed:KeyNotAllowed", SigNotAllowed},
		{"program missing", twin.String(), "gpg.ssh.program=nika-no-such-ssh-keygen", "proven", "failed:Unsupported", SigUnchecked},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.config != "" {
				k, v, _ := strings.Cut(tc.config, "=")
				t.Setenv("GIT_CONFIG_COUNT", "1")
				t.Setenv("GIT_CONFIG_KEY_0", k)
				t.Setenv("GIT_CONFIG_VALUE_0", v)
			}
			r, err := gitstage.Open(g.Dir)
			if err != nil {
				t.Fatal(err)
			}
			ci, err := r.Info(tc.commit)
			if err != nil {
				t.Fatal(err)
			}
			for _, req := range []bool{false, true} {
				rs := Verify(r, []*gitstage.CommitInfo{ci}, Options{RequireSigned: req})
				want := tc.plain
				if req {
					want = tc.required
				}
				if got := classes(rs); got != want {
					t.Errorf("require-signed=%v: %s, want %s (%+v, %+v)", req, got, want, rs[0].Failures, rs[0].Signature)
				}
				if rs[0].Signature == nil || rs[0].Signature.Status != tc.status {
					t.Errorf("require-signed=%v: signature %+v, want status %s", req, rs[0].Signature, tc.status)
				}
			}
		})
	}
	// the good signature names its signer, its key, and the commit it signs
	rs := Verify(r, []*gitstage.CommitInfo{mustInfo(t, r, twin.String())}, Options{RequireSigned: true})
	s := rs[0].Signature
	fp, _ := gitstage.SSHFingerprint(string(pub))
	if s.Signer != "ada@example.com" || s.Key != fp || s.ProposalCommit != p.Proposal.Commit || s.Format != "ssh" {
		t.Errorf("signature = %+v, want ada@example.com, %s, over %s", s, fp, p.Proposal.Commit)
	}
	if c, bad := Worst(Verify(r, []*gitstage.CommitInfo{mustInfo(t, r, tampered), mustInfo(t, r, unsigned)}, Options{RequireSigned: true})); !bad || c != refusal.BadSignature {
		t.Errorf("worst of bad and unsigned = %s, want BadSignature", c)
	}
}

func mustInfo(t *testing.T, r *gitstage.Repo, h string) *gitstage.CommitInfo {
	t.Helper()
	ci, err := r.Info(h)
	if err != nil {
		t.Fatal(err)
	}
	return ci
}
