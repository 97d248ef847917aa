package gitstage

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/nika-dev/nika/gitstage/gittest"
	"github.com/nika-dev/nika/refusal"
)

// signRepo is a repository with one commit and an unreferenced child
// commit made by git commit-tree, the shape of a nika proposal commit.
type signRepo struct {
	g        *gittest.Repo
	r        *Repo
	proposal plumbing.Hash
	home     string
}

func newSignRepo(t *testing.T) *signRepo {
	t.Helper()
	g := gittest.New(t)
	t.Setenv("GIT_AUTHOR_DATE", "1767225600 +0000")
	t.Setenv("GIT_COMMITTER_DATE", "1767225600 +0000")
	t.Setenv("TMPDIR", t.TempDir())
	g.Write("a.txt", "a\n")
	g.Commit("first")
	g.Write("a.txt", "b\n")
	g.Git("add", "a.txt")
	tree := g.Git("write-tree")
	g.Git("reset", "-q", "--hard")
	h := g.Git("commit-tree", tree, "-p", "HEAD", "-m", "update a.txt\n\nNika-Proposal: "+strings.Repeat("ab", 32))
	r, err := Open(g.Dir)
	if err != nil {
		t.Fatal(err)
	}
	return &signRepo{g: g, r: r, proposal: plumbing.NewHash(h), home: os.Getenv("HOME")}
}

// reopen reads the configuration again after git config changed it.
func (s *signRepo) reopen(t *testing.T) {
	t.Helper()
	r, err := Open(s.g.Dir)
	if err != nil {
		t.Fatal(err)
	}
	s.r = r
}

func need(t *testing.T, programs ...string) {
	t.Helper()
	for _, p := range programs {
		if _, err := exec.LookPath(p); err != nil {
			t.Skipf("%s is not installed: this test signs with it", p)
		}
	}
}

// gnupgHome makes a temporary GNUPGHOME and stops its agent at the end.
func gnupgHome(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "gnupg") // short: the agent's socket lives here
	if err != nil {
		t.Fatal(err)
	}
	os.Chmod(dir, 0o700)
	t.Setenv("GNUPGHOME", dir)
	t.Cleanup(func() {
		exec.Command("gpgconf", "--homedir", dir, "--kill", "all").Run()
		os.RemoveAll(dir)
	})
	return dir
}

func run(t *testing.T, dir, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// setupSSH makes an ssh key and an allowed signers file naming it, and
// configures the repository to sign and verify with it.
func setupSSH(t *testing.T, s *signRepo) (key string) {
	need(t, "ssh-keygen")
	key = filepath.Join(t.TempDir(), "id_ed25519")
	run(t, "", "ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "ada@example.com", "-f", key)
	pub, _ := os.ReadFile(key + ".pub")
	allowed := filepath.Join(t.TempDir(), "allowed_signers")
	os.WriteFile(allowed, []byte("ada@example.com "+string(pub)), 0o644)
	s.g.Git("config", "gpg.format", "ssh")
	s.g.Git("config", "user.signingkey", key)
	s.g.Git("config", "gpg.ssh.allowedSignersFile", allowed)
	s.g.Git("config", "commit.gpgsign", "true")
	s.reopen(t)
	return key
}

func setupOpenPGP(t *testing.T, s *signRepo) {
	need(t, "gpg", "gpgconf")
	gnupgHome(t)
	run(t, "", "gpg", "--batch", "--quiet", "--passphrase", "", "--quick-gen-key", "Ada Tester <ada@example.com>", "ed25519", "sign", "never")
	s.g.Git("config", "commit.gpgsign", "true")
	s.reopen(t)
}

func setupX509(t *testing.T, s *signRepo) {
	need(t, "gpgsm", "gpgconf")
	home := gnupgHome(t)
	os.WriteFile(filepath.Join(home, "gpgsm.conf"), []byte("disable-crl-checks\n"), 0o600)
	params := filepath.Join(home, "params")
	os.WriteFile(params, []byte("Key-Type: RSA\nKey-Length: 2048\nKey-Usage: sign\nSerial: random\nName-DN: CN=Ada Tester\nName-Email: ada@example.com\n"), 0o600)
	cert := filepath.Join(home, "cert.pem")
	out := run(t, "", "sh", "-c", "gpgsm --batch --pinentry-mode loopback --passphrase '' --gen-key "+params+" > "+cert+" && gpgsm --batch --import "+cert+" 2>&1 && gpgsm --list-keys --with-colons")
	m := regexp.MustCompile(`(?m)^fpr:+([0-9A-F]{40}):`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no fingerprint in gpgsm's output:\n%s", out)
	}
	fpr := m[1]
	var colons []string
	for i := 0; i < len(fpr); i += 2 {
		colons = append(colons, fpr[i:i+2])
	}
	os.WriteFile(filepath.Join(home, "trustlist.txt"), []byte(strings.Join(colons, ":")+" S relax\n"), 0o600)
	s.g.Git("config", "gpg.format", "x509")
	s.g.Git("config", "user.signingkey", fpr)
	s.g.Git("config", "commit.gpgsign", "true")
	s.reopen(t)
}

var setups = []struct {
	format string
	setup  func(*testing.T, *signRepo)
}{
	{FormatSSH, func(t *testing.T, s *signRepo) { setupSSH(t, s) }},
	{FormatOpenPGP, setupOpenPGP},
	{FormatX509, setupX509},
}

// TestSignedTwinAgreesWithGit: for each format, with a real key made here,
// the twin is the proposal commit plus a gpgsig header: stripped, it is the
// proposal commit byte for byte; git verify-commit and git log
// --show-signature accept it, and so does CheckSignature.
func TestSignedTwinAgreesWithGit(t *testing.T) {
	for _, tc := range setups {
		t.Run(tc.format, func(t *testing.T) {
			s := newSignRepo(t)
			tc.setup(t, s)
			twin, err := s.r.SignedTwin(s.proposal)
			if err != nil {
				t.Fatalf("SignedTwin: %v", err)
			}
			if twin == s.proposal {
				t.Fatal("signing was asked for, and the twin is the unsigned commit")
			}
			sc, err := s.r.CommitSignature(twin.String())
			if err != nil || sc == nil {
				t.Fatalf("CommitSignature: %v, %v", sc, err)
			}
			if sc.Format != tc.format || sc.Signed != s.proposal.String() {
				t.Fatalf("the twin's signature is %s over %s, want %s over the proposal %s", sc.Format, sc.Signed, tc.format, s.proposal)
			}
			want := s.g.Git("cat-file", "commit", s.proposal.String())
			if got := strings.TrimRight(string(sc.Payload), "\n"); got != want {
				t.Fatalf("the twin without its signature is not the proposal commit:\n%s\nwant\n%s", got, want)
			}
			s.g.Git("verify-commit", twin.String())
			if log := s.g.Git("log", "-1", "--show-signature", twin.String()); !strings.Contains(log, "Good") {
				t.Fatalf("git log --show-signature does not say Good:\n%s", log)
			}
			if c := s.r.CheckSignature(sc); !c.Good() {
				t.Fatalf("CheckSignature: %+v", c)
			}
			s.g.Git("fsck", "--strict", "--no-dangling")
		})
	}
}

// TestSSHTwinIsGitsOwnSignedCommit: an ed25519 signature is deterministic,
// so the twin of a commit is exactly the commit git commit-tree -S makes of
// the same tree, parent, identities, dates and message.
func TestSSHTwinIsGitsOwnSignedCommit(t *testing.T) {
	s := newSignRepo(t)
	setupSSH(t, s)
	twin, err := s.r.SignedTwin(s.proposal)
	if err != nil {
		t.Fatal(err)
	}
	tree := s.g.Git("rev-parse", s.proposal.String()+"^{tree}")
	gits := s.g.Git("commit-tree", "-S", tree, "-p", "HEAD", "-m", "update a.txt\n\nNika-Proposal: "+strings.Repeat("ab", 32))
	if gits != twin.String() {
		t.Fatalf("nika's twin %s is not git's signed commit %s:\n%s\n--- git's:\n%s", twin, gits,
			s.g.Git("cat-file", "commit", twin.String()), s.g.Git("cat-file", "commit", gits))
	}
}

// TestTamperedSignatureIsBad: a signature changed by one character, or a
// commit changed under its signature (the author), is bad for nika and for
// git alike.
func TestTamperedSignatureIsBad(t *testing.T) {
	for _, tc := range setups {
		t.Run(tc.format, func(t *testing.T) {
			s := newSignRepo(t)
			tc.setup(t, s)
			twin, err := s.r.SignedTwin(s.proposal)
			if err != nil {
				t.Fatal(err)
			}
			raw := s.g.Git("cat-file", "commit", twin.String()) + "\n"
			lines := strings.Split(raw, "\n")
			// the longest signature line is base64 in every format
			at := -1
			for i, l := range lines {
				if strings.HasPrefix(l, " ") && (at < 0 || len(l) > len(lines[at])) {
					at = i
				}
			}
			sigLine := []byte(lines[at])
			mid := len(sigLine) / 2
			if sigLine[mid] == 'A' {
				sigLine[mid] = 'B'
			} else {
				sigLine[mid] = 'A'
			}
			flipped := append(append(append([]string{}, lines[:at]...), string(sigLine)), lines[at+1:]...)
			cases := map[string]string{
				"signature": strings.Join(flipped, "\n"),
				"author":    strings.Replace(raw, "author Ada Tester", "author Eve Tester", 1),
			}
			for name, body := range cases {
				f := filepath.Join(t.TempDir(), "c")
				os.WriteFile(f, []byte(body), 0o644)
				h := s.g.Git("hash-object", "-t", "commit", "-w", "--literally", f)
				if _, err := s.g.TryGit("verify-commit", h); err == nil {
					t.Errorf("%s: git verify-commit accepts the tampered commit", name)
				}
				sc, err := s.r.CommitSignature(h)
				if err != nil || sc == nil {
					t.Fatalf("%s: %v", name, err)
				}
				if c := s.r.CheckSignature(sc); c.Result != 'B' {
					t.Errorf("%s: CheckSignature says %q (%+v), want B", name, c.Result, c)
				}
			}
		})
	}
}

// TestSignerFailureWritesNothing: a signing program that fails, or is
// missing, refuses as SigningFailed and writes no object.
func TestSignerFailureWritesNothing(t *testing.T) {
	need(t, "ssh-keygen")
	cases := []struct {
		name   string
		config [][2]string
		want   string
	}{
		{"program missing", [][2]string{{"gpg.ssh.program", "nika-no-such-signer"}, {"user.signingkey", "/nonexistent/key"}}, "nika-no-such-signer is not installed"},
		{"key file missing", [][2]string{{"user.signingkey", "/nonexistent/key"}}, "could not sign with the key /nonexistent/key"},
		{"no key at all", nil, "neither user.signingkey nor gpg.ssh.defaultKeyCommand is set"},
		{"literal key not in the agent", [][2]string{{"user.signingkey", "key::ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBnZnM1BqIFaQOJkGYgnjMstM5glSwljE1RgS6UnagWy"}}, "could not sign with the key SHA256:"},
		{"default key command fails", [][2]string{{"gpg.ssh.defaultKeyCommand", "false"}}, "gpg.ssh.defaultKeyCommand failed"},
		{"default key command lists no key", [][2]string{{"gpg.ssh.defaultKeyCommand", "echo nothing"}}, "returned no keys"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := newSignRepo(t)
			t.Setenv("SSH_AUTH_SOCK", "")
			s.g.Git("config", "commit.gpgsign", "true")
			s.g.Git("config", "gpg.format", "ssh")
			for _, kv := range tc.config {
				s.g.Git("config", kv[0], kv[1])
			}
			s.reopen(t)
			before := s.g.Git("count-objects", "-v")
			h, err := s.r.SignedTwin(s.proposal)
			if refusal.ClassOf(err) != refusal.SigningFailed {
				t.Fatalf("SignedTwin = %s, %v; want a SigningFailed refusal", h, err)
			}
			if !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "nothing was applied") || !strings.Contains(err.Error(), "nika.sign false") {
				t.Errorf("the refusal does not say %q, nothing was applied, and the fix:\n%v", tc.want, err)
			}
			if after := s.g.Git("count-objects", "-v"); after != before {
				t.Errorf("a failed signature wrote objects:\n%s\nthen\n%s", before, after)
			}
			if left, _ := filepath.Glob(filepath.Join(os.Getenv("TMPDIR"), ".git_signing_*")); len(left) > 0 {
				t.Errorf("temp files left: %v", left)
			}
		})
	}
}

// TestSigningAskedFor: commit.gpgsign asks, nika.sign overrides it both
// ways, and a value git would refuse is refused.
func TestSigningAskedFor(t *testing.T) {
	cases := []struct {
		gpgsign, nika string
		want          bool
		bad           bool
	}{
		{"", "", false, false},
		{"true", "", true, false},
		{"false", "", false, false},
		{"true", "false", false, false},
		{"false", "true", true, false},
		{"", "yes", true, false},
		{"true", "0", false, false},
		{"maybe", "", false, true},
		{"", "perhaps", false, true},
	}
	for _, tc := range cases {
		s := newSignRepo(t)
		if tc.gpgsign != "" {
			s.g.Git("config", "commit.gpgsign", tc.gpgsign)
		}
		if tc.nika != "" {
			s.g.Git("config", "nika.sign", tc.nika)
		}
		s.reopen(t)
		sg, err := s.r.Signer()
		if tc.bad {
			if refusal.ClassOf(err) != refusal.Invalid {
				t.Errorf("commit.gpgsign=%q nika.sign=%q: %v, want Invalid", tc.gpgsign, tc.nika, err)
			}
			continue
		}
		if err != nil || (sg != nil) != tc.want {
			t.Errorf("commit.gpgsign=%q nika.sign=%q: signer %v, %v; want signing %v", tc.gpgsign, tc.nika, sg, err, tc.want)
		}
		if !tc.want {
			h, err := s.r.SignedTwin(s.proposal)
			if err != nil || h != s.proposal {
				t.Errorf("no signing asked for, and SignedTwin = %s, %v", h, err)
			}
		}
	}
}

// fakeSigner is a signing program that signs with its normalized
// arguments (and the key file's content), so that the signature records
// how it was called: git and nika calling it the same way make the same
// commit.
const fakeSigner = `#!/bin/sh
norm() { printf '%s' "$1" | sed -E 's#^.*/\.git_signing_(buffer|key)_tmp[^ ]*#\1#'; }
args=""
key=""
buf=""
prev=""
for a in "$@"; do
	case "$prev" in -f) key="$a";; esac
	args="$args $(norm "$a")"
	prev="$a"
	buf="$a"
done
case "$1" in
-Y)
	{ echo "-----BEGIN SSH SIGNATURE-----"; echo "args:$args"; echo "keyfile: $(norm "$key")"; case "$key" in */.git_signing_key_tmp*) echo "key: $(cat "$key")";; esac; echo "-----END SSH SIGNATURE-----"; } > "$buf.sig"
	;;
*)
	cat >/dev/null
	echo "[GNUPG:] SIG_CREATED D 22 8 00 1767225600 ABCD" >&2
	echo "-----BEGIN PGP SIGNATURE-----"; echo; echo "args:$args"; echo "-----END PGP SIGNATURE-----"
	;;
esac
`

// TestSignerCalledAsGitCallsIt: with a recording signer, git commit-tree
// -S and nika's twin make the same commit for each way git picks the
// program and the key: so nika runs the same program with the same
// arguments, and inserts the signature where git does.
func TestSignerCalledAsGitCallsIt(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh for the recording signer")
	}
	bin := t.TempDir()
	signer := filepath.Join(bin, "fake-signer")
	os.WriteFile(signer, []byte(fakeSigner), 0o755)
	os.WriteFile(filepath.Join(bin, "other-signer"), []byte(fakeSigner), 0o755)
	os.WriteFile(filepath.Join(bin, "gpg"), []byte(fakeSigner), 0o755)
	os.WriteFile(filepath.Join(bin, "gpgsm"), []byte(fakeSigner), 0o755)
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	pub := "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBnZnM1BqIFaQOJkGYgnjMstM5glSwljE1RgS6UnagWy ada@example.com"
	cases := []struct {
		name   string
		config [][2]string
	}{
		{"openpgp, the committer as default key", nil},
		{"openpgp, user.signingkey", [][2]string{{"user.signingkey", "ABCDEF0123456789"}}},
		{"openpgp, gpg.program", [][2]string{{"gpg.program", signer}}},
		{"openpgp, gpg.openpgp.program", [][2]string{{"gpg.openpgp.program", "other-signer"}}},
		{"x509, gpgsm by default", [][2]string{{"gpg.format", "x509"}, {"user.signingkey", "0x1234"}}},
		{"x509, the committer as default key", [][2]string{{"gpg.format", "x509"}}},
		{"x509, gpg.x509.program", [][2]string{{"gpg.format", "x509"}, {"gpg.x509.program", signer}}},
		{"ssh, a key file", [][2]string{{"gpg.format", "ssh"}, {"gpg.ssh.program", signer}, {"user.signingkey", "/keys/id_ed25519"}}},
		{"ssh, a key file under ~", [][2]string{{"gpg.format", "ssh"}, {"gpg.ssh.program", signer}, {"user.signingkey", "~/.ssh/id_ed25519"}}},
		{"ssh, a relative key file", [][2]string{{"gpg.format", "ssh"}, {"gpg.ssh.program", signer}, {"user.signingkey", "keys/id"}}},
		{"ssh, key::", [][2]string{{"gpg.format", "ssh"}, {"gpg.ssh.program", signer}, {"user.signingkey", "key::" + pub}}},
		{"ssh, a literal ssh- key", [][2]string{{"gpg.format", "ssh"}, {"gpg.ssh.program", signer}, {"user.signingkey", pub}}},
		{"ssh, gpg.ssh.defaultKeyCommand", [][2]string{{"gpg.format", "ssh"}, {"gpg.ssh.program", signer}, {"gpg.ssh.defaultKeyCommand", "printf '" + pub + "\\nssh-rsa second\\n'"}}},
		{"nika.sign overrides commit.gpgsign", [][2]string{{"commit.gpgsign", "false"}, {"nika.sign", "true"}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := newSignRepo(t)
			s.g.Git("config", "commit.gpgsign", "true")
			for _, kv := range tc.config {
				s.g.Git("config", kv[0], kv[1])
			}
			s.reopen(t)
			twin, err := s.r.SignedTwin(s.proposal)
			if err != nil {
				t.Fatal(err)
			}
			tree := s.g.Git("rev-parse", s.proposal.String()+"^{tree}")
			// git commit-tree -S signs whatever commit.gpgsign says; nika
			// follows nika.sign, which git does not read.
			gits := s.g.Git("commit-tree", "-S", tree, "-p", "HEAD", "-m", "update a.txt\n\nNika-Proposal: "+strings.Repeat("ab", 32))
			if gits != twin.String() {
				t.Fatalf("nika's twin is not git's signed commit:\n%s\n--- git's:\n%s",
					s.g.Git("cat-file", "commit", twin.String()), s.g.Git("cat-file", "commit", gits))
			}
		})
	}
}

// TestDescribe: what the preview says of the signature to come.
func TestDescribe(t *testing.T) {
	need(t, "ssh-keygen")
	s := newSignRepo(t)
	key := setupSSH(t, s)
	out := run(t, "", "ssh-keygen", "-lf", key)
	fp := strings.Fields(out)[1]
	pub, _ := os.ReadFile(key + ".pub")
	cases := []struct {
		config [][2]string
		want   string
	}{
		{nil, "ssh, key " + fp},
		{[][2]string{{"user.signingkey", "key::" + strings.TrimSpace(string(pub))}}, "ssh, key " + fp},
		{[][2]string{{"user.signingkey", "/nonexistent/key"}}, "ssh, key file /nonexistent/key, which ssh-keygen cannot read, so signing will fail"},
		{[][2]string{{"user.signingkey", ""}}, "ssh, but neither user.signingkey nor gpg.ssh.defaultKeyCommand is set, so signing will fail"},
		{[][2]string{{"gpg.format", "openpgp"}, {"user.signingkey", "ABCD"}}, "openpgp, key ABCD"},
		{[][2]string{{"gpg.format", "x509"}, {"user.signingkey", "0xAB\x1b[31m"}}, "x509, key 0xAB\x1b[31m"}, // the doors escape it
	}
	for _, tc := range cases {
		for _, kv := range tc.config {
			s.g.Git("config", kv[0], kv[1])
		}
		s.reopen(t)
		sg, err := s.r.Signer()
		if err != nil {
			t.Fatal(err)
		}
		if got := sg.Describe(); got != tc.want {
			t.Errorf("%v: Describe() = %q, want %q", tc.config, got, tc.want)
		}
	}
	s.g.Git("config", "--unset", "user.signingkey")
	s.reopen(t)
	if sg, _ := s.r.Signer(); sg.Describe() != "x509, key of Ada Tester <ada@example.com> (the committer)" {
		t.Errorf("Describe() = %q", sg.Describe())
	}
}

// TestSplitSignature: the payload is the commit without gpgsig (and
// gpgsig-sha256) and their continuation lines; an unsigned commit is nil.
func TestSplitSignature(t *testing.T) {
	commit := "tree t\nparent p\nauthor A <a@x> 1 +0000\ncommitter A <a@x> 2 +0000\n\nmsg\n\n gpgsig in the message\n"
	if sc := SplitSignature([]byte(commit)); sc != nil {
		t.Fatalf("an unsigned commit split: %+v", sc)
	}
	sig := "-----BEGIN SSH SIGNATURE-----\nAAAA\n\n-----END SSH SIGNATURE-----\n"
	twin := InsertSignature([]byte(commit), []byte(sig))
	want := "tree t\nparent p\nauthor A <a@x> 1 +0000\ncommitter A <a@x> 2 +0000\ngpgsig -----BEGIN SSH SIGNATURE-----\n AAAA\n \n -----END SSH SIGNATURE-----\n\nmsg\n\n gpgsig in the message\n"
	if string(twin) != want {
		t.Fatalf("InsertSignature:\n%q\nwant\n%q", twin, want)
	}
	other := strings.Replace(string(twin), "\n\nmsg", "\ngpgsig-sha256 other\n more\n\nmsg", 1)
	for _, raw := range []string{string(twin), other} {
		sc := SplitSignature([]byte(raw))
		if sc == nil || string(sc.Payload) != commit || string(sc.Signature) != sig || sc.Format != FormatSSH {
			t.Fatalf("SplitSignature(%q) = %+v", raw, sc)
		}
		if got := strings.Join(sc.Headers, ","); got != "tree,parent,author,committer" || sc.Committed.Unix() != 2 {
			t.Errorf("headers %s, committed %v", got, sc.Committed)
		}
	}
	if !bytes.Equal(InsertSignature([]byte(commit), nil), []byte(commit)) {
		t.Error("an empty signature changed the commit")
	}
}

func TestSplitCmdline(t *testing.T) {
	cases := map[string][]string{
		`ssh-add -L`:             {"ssh-add", "-L"},
		`  a   'b c'  "d \" e" `: {"a", "b c", `d " e`},
		`x\ y z`:                 {"x y", "z"},
		`''`:                     {""},
	}
	for in, want := range cases {
		got, err := splitCmdline(in)
		if err != nil || strings.Join(got, "|") != strings.Join(want, "|") || len(got) != len(want) {
			t.Errorf("splitCmdline(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := splitCmdline(`a 'b`); err == nil {
		t.Error("an unclosed quote split")
	}
}

// TestSSHLiteralKeyInAgent: user.signingkey key::<public key>, the private
// key in ssh-agent: nika writes the public key to a temp file, as git does,
// and the twin is exactly git's own signed commit.
func TestSSHLiteralKeyInAgent(t *testing.T) {
	need(t, "ssh-keygen", "ssh-agent", "ssh-add")
	s := newSignRepo(t)
	key := setupSSH(t, s)
	sock := filepath.Join(t.TempDir(), "agent.sock")
	agent := exec.Command("ssh-agent", "-D", "-a", sock)
	if err := agent.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { agent.Process.Kill(); agent.Wait() })
	t.Setenv("SSH_AUTH_SOCK", sock)
	for i := 0; ; i++ {
		if _, err := os.Stat(sock); err == nil {
			break
		}
		if i == 200 {
			t.Fatal("ssh-agent made no socket")
		}
		exec.Command("sleep", "0.01").Run()
	}
	run(t, "", "ssh-add", "-q", key)
	pub, _ := os.ReadFile(key + ".pub")
	os.Rename(key, key+".moved") // only the agent has the private key now
	s.g.Git("config", "user.signingkey", "key::"+strings.TrimSpace(string(pub)))
	s.reopen(t)
	twin, err := s.r.SignedTwin(s.proposal)
	if err != nil {
		t.Fatal(err)
	}
	// (git 2.39 itself leaves its .git_signing_key_tmp file behind.)
	if left, _ := filepath.Glob(filepath.Join(os.Getenv("TMPDIR"), ".git_signing_*")); len(left) > 0 {
		t.Errorf("temp files left: %v", left)
	}
	tree := s.g.Git("rev-parse", s.proposal.String()+"^{tree}")
	gits := s.g.Git("commit-tree", "-S", tree, "-p", "HEAD", "-m", "update a.txt\n\nNika-Proposal: "+strings.Repeat("ab", 32))
	if gits != twin.String() {
		t.Fatalf("nika's twin %s is not git's signed commit %s", twin, gits)
	}
	s.g.Git("verify-commit", twin.String())
}

// TestSSHPassphrase: a key with a passphrase signs when the passphrase is
// given (here through SSH_ASKPASS, as at a terminal), and a wrong one
// refuses as SigningFailed with no object written.
func TestSSHPassphrase(t *testing.T) {
	need(t, "ssh-keygen", "sh")
	for _, tc := range []struct {
		answer string
		ok     bool
	}{{"right horse", true}, {"wrong horse", false}} {
		t.Run(tc.answer, func(t *testing.T) {
			s := newSignRepo(t)
			key := filepath.Join(t.TempDir(), "id")
			run(t, "", "ssh-keygen", "-q", "-t", "ed25519", "-N", "right horse", "-C", "ada", "-f", key)
			s.g.Git("config", "gpg.format", "ssh")
			s.g.Git("config", "user.signingkey", key)
			s.g.Git("config", "commit.gpgsign", "true")
			s.reopen(t)
			askpass := filepath.Join(t.TempDir(), "askpass")
			os.WriteFile(askpass, []byte("#!/bin/sh\necho '"+tc.answer+"'\n"), 0o755)
			t.Setenv("SSH_ASKPASS", askpass)
			t.Setenv("SSH_ASKPASS_REQUIRE", "force")
			t.Setenv("SSH_AUTH_SOCK", "")
			before := s.g.Git("count-objects", "-v")
			twin, err := s.r.SignedTwin(s.proposal)
			if tc.ok {
				if err != nil {
					t.Fatal(err)
				}
				pub, _ := os.ReadFile(key + ".pub")
				allowed := filepath.Join(t.TempDir(), "allowed")
				os.WriteFile(allowed, []byte("ada "+string(pub)), 0o644)
				s.g.Git("-c", "gpg.ssh.allowedSignersFile="+allowed, "verify-commit", twin.String())
				return
			}
			if refusal.ClassOf(err) != refusal.SigningFailed || !strings.Contains(err.Error(), "nothing was applied") {
				t.Fatalf("a wrong passphrase: %s, %v; want SigningFailed", twin, err)
			}
			if after := s.g.Git("count-objects", "-v"); after != before {
				t.Errorf("a failed signature wrote objects")
			}
		})
	}
}

// BenchmarkSignedTwinSSH: the cost signing adds to an apply, with an
// ed25519 key file (one ssh-keygen run, two temp files, one loose object).
func BenchmarkSignedTwinSSH(b *testing.B) {
	if _, err := exec.LookPath("ssh-keygen"); err != nil {
		b.Skip("ssh-keygen is not installed")
	}
	g := gittest.New(b)
	b.Setenv("TMPDIR", b.TempDir())
	g.Write("a.txt", "a\n")
	g.Commit("first")
	key := filepath.Join(b.TempDir(), "id")
	if out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", key).CombinedOutput(); err != nil {
		b.Fatal(err, string(out))
	}
	g.Git("config", "gpg.format", "ssh")
	g.Git("config", "user.signingkey", key)
	g.Git("config", "commit.gpgsign", "true")
	r, err := Open(g.Dir)
	if err != nil {
		b.Fatal(err)
	}
	tree := g.Git("rev-parse", "HEAD^{tree}")
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		h := g.Git("commit-tree", tree, "-p", "HEAD", "-m", "m"+strconv.Itoa(i))
		b.StartTimer()
		if _, err := r.SignedTwin(plumbing.NewHash(h)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDescribeSSH: what naming the key costs each preview (one
// ssh-keygen -lf for a key file).
func BenchmarkDescribeSSH(b *testing.B) {
	if _, err := exec.LookPath("ssh-keygen"); err != nil {
		b.Skip("ssh-keygen is not installed")
	}
	key := filepath.Join(b.TempDir(), "id")
	if out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", key).CombinedOutput(); err != nil {
		b.Fatal(err, string(out))
	}
	s := &Signer{Format: FormatSSH, Program: "ssh-keygen", Key: key, KeySet: true}
	for i := 0; i < b.N; i++ {
		if d := s.Describe(); !strings.HasPrefix(d, "ssh, key SHA256:") {
			b.Fatal(d)
		}
	}
}
