package gitstage

// Signing, as git signs a commit (gpg-interface.c, git 2.39): nika never
// holds a private key. It runs the program git would run, with git's
// arguments, and reads back only the detached signature, which it writes
// into a gpgsig header of the signed twin of the proposal commit: the same
// bytes with the header inserted where git's do_sign_commit inserts it.
//
// What git does, and so what nika does:
//   - signing is asked for by commit.gpgsign (nika.sign overrides it for
//     nika alone); gpg.format picks openpgp (the default), x509 or ssh;
//   - openpgp runs gpg.program (or gpg.openpgp.program, the later one set
//     wins), "gpg" by default, as PROGRAM --status-fd=2 -bsau KEY with the
//     payload on stdin, and requires a "[GNUPG:] SIG_CREATED " status line;
//     x509 runs gpg.x509.program, "gpgsm" by default, the same way;
//   - the key is user.signingkey; unset, openpgp and x509 use the
//     committer's identity "Name <email>";
//   - ssh runs gpg.ssh.program, "ssh-keygen" by default, as PROGRAM -Y
//     sign -n git -f KEYFILE BUFFERFILE and reads BUFFERFILE.sig; the key is
//     user.signingkey, a file (~ expanded, relative to the work tree's
//     root) or a literal public key ("key::ssh-…" or "ssh-…") that is
//     written to a temp file, the private half staying in ssh-agent; unset,
//     the first line of gpg.ssh.defaultKeyCommand's output, which must be a
//     literal key; with neither, signing fails;
//   - verification runs the same program: openpgp with --keyid-format=long
//     --status-fd=1 --verify SIGFILE -, x509 with --status-fd=1 --verify
//     SIGFILE -, ssh with -Y find-principals against
//     gpg.ssh.allowedSignersFile and then -Y verify -n git -I PRINCIPAL,
//     each with -Overify-time=<committer time>; a good signature counts
//     when its key is allowed: an allowed signer for ssh, a keyring key at
//     gpg.minTrustLevel or above for openpgp and x509.
import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/nika-dev/nika/refusal"
)

// The signature formats, as gpg.format names them.
const (
	FormatOpenPGP = "openpgp"
	FormatX509    = "x509"
	FormatSSH     = "ssh"
)

// Signer is what git's configuration asks of a commit that nika applies:
// the format, the program that signs, and the key.
type Signer struct {
	Format  string
	Program string
	// Key is user.signingkey as configured; KeySet says it is set (git
	// treats a set empty value as a key, and so fails to sign with it).
	Key    string
	KeySet bool
	// DefaultKeyCommand is gpg.ssh.defaultKeyCommand (ssh only).
	DefaultKeyCommand string
	// Committer is "Name <email>": the default key of openpgp and x509.
	Committer string
	root      string
}

// Signer reads git's configuration: nil when no signature is asked for
// (commit.gpgsign is false or unset, or nika.sign is false).
func (r *Repo) Signer() (*Signer, error) {
	on, err := r.strictBool("commit.gpgsign", false)
	if err != nil {
		return nil, err
	}
	if on, err = r.strictBool("nika.sign", on); err != nil || !on {
		return nil, err
	}
	s := &Signer{root: r.Root}
	s.Format = FormatOpenPGP
	if v, ok := r.Config.Get("gpg.format"); ok {
		s.Format = strings.ToLower(strings.TrimSpace(v))
	}
	switch s.Format {
	case FormatOpenPGP:
		s.Program = r.lastOf("gpg", "gpg.program", "gpg.openpgp.program")
	case FormatX509:
		s.Program = r.lastOf("gpgsm", "gpg.x509.program")
	case FormatSSH:
		s.Program = r.lastOf("ssh-keygen", "gpg.ssh.program")
		s.DefaultKeyCommand, _ = r.Config.Get("gpg.ssh.defaultKeyCommand")
	default:
		return nil, refusal.New(refusal.Invalid, "set gpg.format to openpgp, x509 or ssh (git config gpg.format ssh)",
			"git's gpg.format is %q, which is not openpgp, x509 or ssh", cfgValue(r, "gpg.format"))
	}
	s.Key, s.KeySet = r.Config.Get("user.signingkey")
	if sig, err := r.Signature("committer"); err == nil {
		s.Committer = sig.Name + " <" + sig.Email + ">"
	}
	return s, nil
}

func cfgValue(r *Repo, key string) string {
	s, _ := r.Config.Get(key)
	return s
}

// strictBool reads a git boolean and refuses a value git would die on.
func (r *Repo) strictBool(key string, def bool) (bool, error) {
	s, ok := r.Config.Get(key)
	if !ok {
		return def, nil
	}
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "true", "yes", "on", "1", "":
		return true, nil
	case "false", "no", "off", "0":
		return false, nil
	}
	if n, err := strconv.Atoi(strings.TrimSpace(s)); err == nil {
		return n != 0, nil
	}
	return false, refusal.New(refusal.Invalid, "set it to true or false (git config "+key+" true)",
		"git's %s is %q, which is not a boolean", key, s)
}

// lastOf is the value of whichever key git would read last (later layers
// win; within one file, the keys are taken in the order given), or def.
func (r *Repo) lastOf(def string, keys ...string) string {
	out := def
	for _, l := range r.Config.layers {
		for _, k := range keys {
			if vals := l.values(k); len(vals) > 0 {
				out = vals[len(vals)-1]
			}
		}
	}
	return out
}

// literalSSHKey reports whether key is a literal public key, as git's
// is_literal_ssh_key does: "key::…" (the prefix stripped) or "ssh-…".
func literalSSHKey(key string) (string, bool) {
	if k, ok := strings.CutPrefix(key, "key::"); ok {
		return k, true
	}
	if strings.HasPrefix(key, "ssh-") {
		return key, true
	}
	return "", false
}

// expandPath is git's interpolate_path for a key file: ~/ and ~user/.
func expandPath(p string) string {
	if rest, ok := strings.CutPrefix(p, "~/"); ok {
		if h, err := os.UserHomeDir(); err == nil {
			return filepath.Join(h, rest)
		}
		return p
	}
	if strings.HasPrefix(p, "~") {
		name, rest, _ := strings.Cut(p[1:], "/")
		if u, err := user.Lookup(name); err == nil {
			return filepath.Join(u.HomeDir, rest)
		}
	}
	return p
}

// Describe says, for the preview, how the applied commit will be signed:
// "ssh, key SHA256:…", "openpgp, key ABCD…", "openpgp, key of Ada
// <ada@example.com> (the committer)". When the key cannot be named it says
// so, and that signing will then fail. It runs no signing program: for an
// ssh key file it runs ssh-keygen -lf, as git does to name a key; for
// gpg.ssh.defaultKeyCommand it says the key comes from there without
// running it.
func (s *Signer) Describe() string {
	switch s.Format {
	case FormatSSH:
		if !s.KeySet || s.Key == "" {
			if s.DefaultKeyCommand != "" {
				return "ssh, the first key gpg.ssh.defaultKeyCommand lists"
			}
			return "ssh, but neither user.signingkey nor gpg.ssh.defaultKeyCommand is set, so signing will fail"
		}
		if lit, ok := literalSSHKey(s.Key); ok {
			if fp, err := SSHFingerprint(lit); err == nil {
				return "ssh, key " + fp
			}
			return "ssh, but user.signingkey is not a public key that ssh can read, so signing will fail"
		}
		if fp, err := s.fileFingerprint(); err == nil {
			return "ssh, key " + fp
		}
		return fmt.Sprintf("ssh, key file %s, which ssh-keygen cannot read, so signing will fail", (s.Key))
	default:
		if s.KeySet {
			return fmt.Sprintf("%s, key %s", s.Format, (s.Key))
		}
		return fmt.Sprintf("%s, key of %s (the committer)", s.Format, (s.Committer))
	}
}

// fileFingerprint runs ssh-keygen -lf on the key file (a public key, or a
// private one whose public half ssh-keygen reads; nika reads neither).
func (s *Signer) fileFingerprint() (string, error) {
	cmd := exec.Command("ssh-keygen", "-lf", expandPath(s.Key))
	cmd.Dir = s.root
	out, err := cmd.Output()
	if err != nil {
		return "", err
	}
	f := strings.Fields(string(out))
	if len(f) < 2 || !strings.Contains(f[1], ":") {
		return "", fmt.Errorf("ssh-keygen -lf printed %q", out)
	}
	return f[1], nil
}

// SSHFingerprint is ssh's SHA256 fingerprint of a public key line
// ("ssh-ed25519 AAAA… comment"), as ssh-keygen -l prints it.
func SSHFingerprint(line string) (string, error) {
	f := strings.Fields(line)
	if len(f) < 2 {
		return "", errors.New("not a public key line")
	}
	blob, err := base64.StdEncoding.DecodeString(f[1])
	if err != nil {
		return "", err
	}
	return blobFingerprint(blob), nil
}

func blobFingerprint(blob []byte) string {
	sum := sha256.Sum256(blob)
	return "SHA256:" + base64.RawStdEncoding.EncodeToString(sum[:])
}

// signFailed is the refusal of an apply whose signature failed: nothing
// was written, as git commit writes nothing when its signer fails.
func (s *Signer) signFailed(why, hint string) error {
	return &refusal.Error{Class: refusal.SigningFailed,
		Text: fmt.Sprintf("git's configuration asks to sign the applied commit (%s), and signing failed: %s · nothing was applied", s.Format, why),
		Hint: hint + "; or, to apply without a signature, turn it off for nika alone: git config nika.sign false"}
}

// Sign signs payload and returns the detached signature, as git's
// sign_buffer does.
func (s *Signer) Sign(payload []byte) ([]byte, error) {
	if _, err := exec.LookPath(s.Program); err != nil {
		key := map[string]string{FormatOpenPGP: "gpg.program", FormatX509: "gpg.x509.program", FormatSSH: "gpg.ssh.program"}[s.Format]
		return nil, s.signFailed(fmt.Sprintf("the signing program %s is not installed", (s.Program)),
			fmt.Sprintf("install %s, or name the program in %s", (s.Program), key))
	}
	if s.Format == FormatSSH {
		return s.signSSH(payload)
	}
	return s.signGPG(payload)
}

func (s *Signer) signGPG(payload []byte) ([]byte, error) {
	key := s.Key
	if !s.KeySet {
		key = s.Committer
	}
	cmd := exec.Command(s.Program, "--status-fd=2", "-bsau", key)
	cmd.Dir = s.root
	cmd.Stdin = bytes.NewReader(payload)
	var out, status bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &status
	err := cmd.Run()
	created := false
	for _, l := range strings.Split(status.String(), "\n") {
		if strings.HasPrefix(l, "[GNUPG:] SIG_CREATED ") {
			created = true
		}
	}
	if err != nil || !created {
		why := programText(status.String(), nil)
		if why == "" {
			why = "no output"
		}
		return nil, s.signFailed(fmt.Sprintf("%s could not sign with the key %s: %s", (s.Program), (key), why),
			fmt.Sprintf("check that %s can sign with that key (a secret key in the keyring, an agent that can ask for the passphrase), or set user.signingkey", (s.Program)))
	}
	return bytes.ReplaceAll(out.Bytes(), []byte("\r\n"), []byte("\n")), nil
}

func (s *Signer) signSSH(payload []byte) ([]byte, error) {
	key, keySet := s.Key, s.KeySet
	if !keySet {
		if s.DefaultKeyCommand == "" {
			return nil, s.signFailed("neither user.signingkey nor gpg.ssh.defaultKeyCommand is set, so there is no key to sign with",
				"set user.signingkey to your key file or to key::<your public key>, or set gpg.ssh.defaultKeyCommand (for example \"ssh-add -L\")")
		}
		k, err := s.defaultKey()
		if err != nil {
			return nil, err
		}
		key = k
	}
	if key == "" {
		return nil, s.signFailed("user.signingkey is empty", "set user.signingkey to your key file or to key::<your public key>")
	}
	var temps []string
	defer func() {
		for _, t := range temps {
			os.Remove(t)
		}
	}()
	keyFile := ""
	if lit, ok := literalSSHKey(key); ok {
		f, err := os.CreateTemp("", ".git_signing_key_tmp")
		if err != nil {
			return nil, s.signFailed("could not create a temporary file for the public key: "+unwrapPath(err).Error(), "check TMPDIR")
		}
		temps = append(temps, f.Name())
		_, err = f.WriteString(lit)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return nil, s.signFailed("could not write the public key to a temporary file: "+unwrapPath(err).Error(), "check TMPDIR")
		}
		keyFile = f.Name()
	} else {
		keyFile = expandPath(key)
	}
	f, err := os.CreateTemp("", ".git_signing_buffer_tmp")
	if err != nil {
		return nil, s.signFailed("could not create a temporary file for the commit: "+unwrapPath(err).Error(), "check TMPDIR")
	}
	buf := f.Name()
	temps = append(temps, buf, buf+".sig")
	_, err = f.Write(payload)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, s.signFailed("could not write the commit to a temporary file: "+unwrapPath(err).Error(), "check TMPDIR")
	}
	cmd := exec.Command(s.Program, "-Y", "sign", "-n", "git", "-f", keyFile, buf)
	cmd.Dir = s.root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		shown := key // a key file as configured
		if _, ok := literalSSHKey(key); ok {
			shown = "the public key"
		}
		why := programText(stderr.String(), map[string]string{buf: "the commit", keyFile: shown})
		if strings.Contains(stderr.String(), "usage:") {
			why = "ssh-keygen -Y sign is needed for ssh signing (available in openssh version 8.2p1+)"
		}
		if why == "" {
			why = err.Error()
		}
		return nil, s.signFailed(fmt.Sprintf("%s could not sign with the key %s: %s", (s.Program), (shownKey(key)), why),
			"check that the key can sign: the private key readable (and its passphrase typed right), or loaded into ssh-agent (ssh-add) when user.signingkey is a public key")
	}
	sig, err := os.ReadFile(buf + ".sig")
	if err != nil {
		return nil, s.signFailed(fmt.Sprintf("%s wrote no signature: %s", (s.Program), unwrapPath(err).Error()), "check that the program is ssh-keygen or one that behaves like it")
	}
	return bytes.ReplaceAll(sig, []byte("\r\n"), []byte("\n")), nil
}

// defaultKey runs gpg.ssh.defaultKeyCommand and takes the first line of its
// output, which must be a literal key (git's get_default_ssh_signing_key).
func (s *Signer) defaultKey() (string, error) {
	argv, err := splitCmdline(s.DefaultKeyCommand)
	if err != nil || len(argv) == 0 {
		return "", s.signFailed(fmt.Sprintf("gpg.ssh.defaultKeyCommand %s cannot be split into a command", changeQuote(s.DefaultKeyCommand)),
			"fix the quoting in gpg.ssh.defaultKeyCommand")
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = s.root
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		return "", s.signFailed(fmt.Sprintf("gpg.ssh.defaultKeyCommand failed: %s", orErr(programText(stderr.String()+out.String(), nil), err)),
			"start ssh-agent and load your key (ssh-add), or set user.signingkey")
	}
	first, _, _ := strings.Cut(out.String(), "\n")
	if _, ok := literalSSHKey(first); !ok {
		return "", s.signFailed("gpg.ssh.defaultKeyCommand succeeded but returned no keys",
			"load your key into ssh-agent (ssh-add), or set user.signingkey")
	}
	if strings.Contains(out.String(), "\n") {
		first += "\n" // git keeps the line's newline in the key file
	}
	return first, nil
}

func orErr(s string, err error) string {
	if s != "" {
		return s
	}
	return err.Error()
}

// shownKey is the key as a human names it: the file as configured, or a
// literal key's fingerprint.
func shownKey(key string) string {
	if lit, ok := literalSSHKey(key); ok {
		if fp, err := SSHFingerprint(lit); err == nil {
			return fp
		}
		return "key::…"
	}
	return key
}

// splitCmdline splits a command line as git's split_cmdline does: words
// separated by blanks, with single and double quotes and backslash escapes
// inside double quotes; no shell.
func splitCmdline(s string) ([]string, error) {
	var out []string
	var cur strings.Builder
	in, quote := false, byte(0)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote == '\'':
			if c == '\'' {
				quote = 0
			} else {
				cur.WriteByte(c)
			}
		case quote == '"':
			switch c {
			case '"':
				quote = 0
			case '\\':
				if i+1 < len(s) {
					i++
					cur.WriteByte(s[i])
				}
			default:
				cur.WriteByte(c)
			}
		case c == '\'' || c == '"':
			quote, in = c, true
		case c == '\\' && i+1 < len(s):
			i++
			cur.WriteByte(s[i])
			in = true
		case c == ' ' || c == '\t' || c == '\n':
			if in {
				out = append(out, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteByte(c)
			in = true
		}
	}
	if quote != 0 {
		return nil, errors.New("unclosed quote")
	}
	if in {
		out = append(out, cur.String())
	}
	return out, nil
}

// SignedTwin returns the commit the branch moves to for the proposal commit
// h: h itself when git's configuration asks for no signature, else the
// signed twin of h (the same bytes with a gpgsig header), written to the
// object database. Signing that is asked for and fails is a SigningFailed
// refusal, with nothing written.
func (r *Repo) SignedTwin(h plumbing.Hash) (plumbing.Hash, error) {
	s, err := r.Signer()
	if err != nil || s == nil {
		return h, err
	}
	raw, err := r.readObject(plumbing.CommitObject, h)
	if err != nil {
		return h, missingObject("commit", h, err)
	}
	sig, err := s.Sign(raw)
	if err != nil {
		return h, err
	}
	twin := InsertSignature(raw, sig)
	th := plumbing.ComputeHash(plumbing.CommitObject, twin)
	if !r.HasObject(th) {
		if err := r.writeLoose(plumbing.CommitObject, th, twin); err != nil {
			return h, ioRefusal("write the signed commit", err)
		}
	}
	return th, nil
}

// InsertSignature inserts sig as a gpgsig header at the end of the header
// block of a commit's bytes, as git's do_sign_commit does: the first line
// after "gpgsig ", each further line after a space.
func InsertSignature(commit, sig []byte) []byte {
	pos := len(commit)
	if i := bytes.Index(commit, []byte("\n\n")); i >= 0 {
		pos = i + 1
	}
	var h bytes.Buffer
	for i, l := range bytes.SplitAfter(sig, []byte("\n")) {
		if len(l) == 0 {
			continue
		}
		if i == 0 {
			h.WriteString("gpgsig")
		}
		h.WriteByte(' ')
		h.Write(l)
	}
	if h.Len() > 0 && h.Bytes()[h.Len()-1] != '\n' {
		h.WriteByte('\n')
	}
	out := make([]byte, 0, len(commit)+h.Len())
	out = append(out, commit[:pos]...)
	out = append(out, h.Bytes()...)
	return append(out, commit[pos:]...)
}

// SignedCommit is a commit's signature split from the bytes it signs.
type SignedCommit struct {
	Format    string // openpgp, x509, ssh, or "" for a kind git does not know
	Signature []byte
	Payload   []byte // the commit without its signature headers
	// Signed is the id of the payload as a commit: the commit that was
	// signed (for nika, the proposal commit).
	Signed string
	// Headers lists the payload's header names, in order.
	Headers   []string
	Committed time.Time // the committer's time, for -Overify-time
	// Signatures counts the gpgsig headers (git reads one).
	Signatures int
}

// CommitSignature splits a commit's signature from its payload, as git's
// parse_signed_commit does: the gpgsig header (and gpgsig-sha256) and their
// continuation lines leave the payload. nil means the commit is unsigned.
func (r *Repo) CommitSignature(hex string) (*SignedCommit, error) {
	if !plumbing.IsHash(hex) {
		return nil, refusal.New(refusal.Invalid, "", "%q is not a commit id", hex)
	}
	h := plumbing.NewHash(hex)
	raw, err := r.readObject(plumbing.CommitObject, h)
	if err != nil {
		return nil, missingObject("commit", h, err)
	}
	return SplitSignature(raw), nil
}

// SplitSignature is CommitSignature on a commit's bytes.
func SplitSignature(raw []byte) *SignedCommit {
	sc := &SignedCommit{}
	var payload, sig bytes.Buffer
	in, skip := false, false
	rest := raw
	for len(rest) > 0 {
		line := rest
		if i := bytes.IndexByte(rest, '\n'); i >= 0 {
			line = rest[:i+1]
		}
		rest = rest[len(line):]
		switch {
		case (in || skip) && len(line) > 0 && line[0] == ' ':
			if in {
				sig.Write(line[1:])
			}
			continue
		case bytes.HasPrefix(line, []byte("gpgsig ")):
			in, skip = true, false
			sc.Signatures++
			sig.Write(line[len("gpgsig "):])
			continue
		case bytes.HasPrefix(line, []byte("gpgsig-sha256 ")):
			in, skip = false, true
			continue
		}
		in, skip = false, false
		if len(line) == 1 && line[0] == '\n' {
			payload.Write(line)
			payload.Write(rest)
			break
		}
		name, _, _ := bytes.Cut(line, []byte(" "))
		sc.Headers = append(sc.Headers, string(name))
		if bytes.Equal(name, []byte("committer")) {
			sc.Committed = identTime(line)
		}
		payload.Write(line)
	}
	if sc.Signatures == 0 {
		return nil
	}
	sc.Signature = sig.Bytes()
	sc.Payload = payload.Bytes()
	sc.Signed = plumbing.ComputeHash(plumbing.CommitObject, sc.Payload).String()
	switch {
	case bytes.HasPrefix(sc.Signature, []byte("-----BEGIN PGP SIGNATURE-----")), bytes.HasPrefix(sc.Signature, []byte("-----BEGIN PGP MESSAGE-----")):
		sc.Format = FormatOpenPGP
	case bytes.HasPrefix(sc.Signature, []byte("-----BEGIN SIGNED MESSAGE-----")):
		sc.Format = FormatX509
	case bytes.HasPrefix(sc.Signature, []byte("-----BEGIN SSH SIGNATURE-----")):
		sc.Format = FormatSSH
	}
	return sc
}

// identTime reads the time of an ident line: "committer N <e> 123 +0000".
func identTime(line []byte) time.Time {
	s := strings.TrimSpace(string(line))
	i := strings.LastIndexByte(s, '>')
	if i < 0 {
		return time.Time{}
	}
	f := strings.Fields(s[i+1:])
	if len(f) == 0 {
		return time.Time{}
	}
	sec, err := strconv.ParseInt(f[0], 10, 64)
	if err != nil {
		return time.Time{}
	}
	return time.Unix(sec, 0).UTC()
}

// SSHKey reads the public key out of an ssh signature (the SSHSIG blob),
// as its fingerprint; "" when the signature cannot be read.
func (sc *SignedCommit) SSHKey() string {
	if sc.Format != FormatSSH {
		return ""
	}
	body := string(sc.Signature)
	body = strings.TrimPrefix(body, "-----BEGIN SSH SIGNATURE-----")
	body, _, _ = strings.Cut(body, "-----END SSH SIGNATURE-----")
	blob, err := base64.StdEncoding.DecodeString(strings.Join(strings.Fields(body), ""))
	if err != nil || !bytes.HasPrefix(blob, []byte("SSHSIG")) || len(blob) < 14 {
		return ""
	}
	b := blob[10:] // magic, then the version
	n := binary.BigEndian.Uint32(b)
	if uint64(len(b)) < 4+uint64(n) {
		return ""
	}
	return blobFingerprint(b[4 : 4+n])
}

// SigCheck is what checking a commit's signature found, in git's terms.
type SigCheck struct {
	// Result is git's %G? letter: G good, B bad, E cannot be checked
	// (a missing key), X expired signature, Y expired key, R revoked key,
	// N no signature found.
	Result byte
	// Allowed says the key is allowed: an allowed signer (ssh), or a
	// keyring key at gpg.minTrustLevel or above (openpgp, x509). A good
	// signature whose key is not allowed fails git verify-commit.
	Allowed bool
	// Why says what is missing when a good signature is not allowed, or
	// why the signature is bad.
	Why    string
	Key    string // the key's fingerprint, when known
	Signer string // the allowed principal (ssh) or the user id (gpg)
	// Unchecked is set when the check could not run at all (the program
	// is missing): Result is then 0.
	Unchecked string
	// Output is the program's text, escaped, for the human.
	Output string
}

// Good reports a signature that git verify-commit accepts.
func (c *SigCheck) Good() bool { return c.Result == 'G' && c.Allowed }

// CheckSignature checks a commit's signature by git's rules, with the
// program git would run (see the package comment of this file).
func (r *Repo) CheckSignature(sc *SignedCommit) *SigCheck {
	program := ""
	switch sc.Format {
	case FormatOpenPGP:
		program = r.lastOf("gpg", "gpg.program", "gpg.openpgp.program")
	case FormatX509:
		program = r.lastOf("gpgsm", "gpg.x509.program")
	case FormatSSH:
		program = r.lastOf("ssh-keygen", "gpg.ssh.program")
	default:
		return &SigCheck{Result: 'B', Why: "the signature is of a kind git does not know (not openpgp, x509 or ssh)"}
	}
	if _, err := exec.LookPath(program); err != nil {
		return &SigCheck{Unchecked: fmt.Sprintf("the %s signature cannot be checked: %s is not installed", sc.Format, (program))}
	}
	sigFile, err := os.CreateTemp("", ".git_vtag_tmp")
	if err != nil {
		return &SigCheck{Unchecked: "could not create a temporary file: " + unwrapPath(err).Error()}
	}
	defer os.Remove(sigFile.Name())
	_, err = sigFile.Write(sc.Signature)
	if cerr := sigFile.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return &SigCheck{Unchecked: "could not write a temporary file: " + unwrapPath(err).Error()}
	}
	if sc.Format == FormatSSH {
		return r.checkSSH(program, sigFile.Name(), sc)
	}
	return r.checkGPG(program, sigFile.Name(), sc)
}

// The trust levels of gpg's TRUST_ status lines, lowest first.
var trustLevels = []string{"UNDEFINED", "NEVER", "MARGINAL", "FULLY", "ULTIMATE"}

func trustLevel(s string) int {
	for i, t := range trustLevels {
		if strings.EqualFold(s, t) {
			return i
		}
	}
	return -1
}

func (r *Repo) checkGPG(program, sigFile string, sc *SignedCommit) *SigCheck {
	args := []string{"--status-fd=1", "--verify", sigFile, "-"}
	if sc.Format == FormatOpenPGP {
		args = append([]string{"--keyid-format=long"}, args...)
	}
	cmd := exec.Command(program, args...)
	cmd.Dir = r.Root
	cmd.Stdin = bytes.NewReader(sc.Payload)
	var status, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &status, &stderr
	runErr := cmd.Run()
	c := &SigCheck{Result: 'N', Output: programText(stderr.String(), map[string]string{sigFile: "the signature"})}
	trust, exclusive, noPubkey := -1, 0, false
	for _, l := range strings.Split(status.String(), "\n") {
		l, ok := strings.CutPrefix(strings.TrimRight(l, "\r"), "[GNUPG:] ")
		if !ok {
			continue
		}
		word, rest, _ := strings.Cut(l, " ")
		switch word {
		case "GOODSIG", "BADSIG", "ERRSIG", "EXPSIG", "EXPKEYSIG", "REVKEYSIG":
			exclusive++
			c.Result = map[string]byte{"GOODSIG": 'G', "BADSIG": 'B', "ERRSIG": 'E', "EXPSIG": 'X', "EXPKEYSIG": 'Y', "REVKEYSIG": 'R'}[word]
			keyid, uid, _ := strings.Cut(rest, " ")
			if c.Key == "" {
				c.Key = keyid
			}
			if word != "ERRSIG" {
				c.Signer = (uid)
			}
		case "VALIDSIG":
			if f := strings.Fields(rest); len(f) > 0 {
				c.Key = f[0]
			}
		case "NO_PUBKEY":
			noPubkey = true
		default:
			if t, ok := strings.CutPrefix(word, "TRUST_"); ok {
				trust = trustLevel(t)
			}
		}
	}
	if exclusive > 1 {
		c.Result, c.Why = 'E', "the signature holds more than one signature"
		return c
	}
	min := 0
	if v, ok := r.Config.Get("gpg.minTrustLevel"); ok {
		if m := trustLevel(strings.TrimSpace(v)); m >= 0 {
			min = m
		}
	}
	switch c.Result {
	case 'G':
		switch {
		case runErr != nil:
			// The signature matches the commit, and the program still
			// fails it: the key is not valid (gpgsm: a certification chain
			// that is not trusted). git verify-commit fails it too.
			c.Why = fmt.Sprintf("%s accepts the signature but not its key", (program))
			if c.Output != "" {
				c.Why += " (" + c.Output + ")"
			}
		case trust < min:
			c.Why = fmt.Sprintf("the key's trust is %s, below gpg.minTrustLevel %s", trustName(trust), trustLevels[min])
		default:
			c.Allowed = true
		}
	case 'E':
		if noPubkey {
			c.Why = fmt.Sprintf("the key %s is not in the keyring", (c.Key))
		} else {
			c.Result, c.Why = 'B', "the signature cannot be checked"
		}
	case 'X':
		c.Why = "the signature has expired"
	case 'Y':
		c.Why = "the key has expired"
	case 'R':
		c.Why = "the key was revoked"
	case 'B':
		c.Why = "the signature does not match the commit"
	default:
		c.Result, c.Why = 'B', "no valid signature was found in it"
	}
	return c
}

func trustName(t int) string {
	if t < 0 {
		return "unknown"
	}
	return trustLevels[t]
}

func (r *Repo) checkSSH(program, sigFile string, sc *SignedCommit) *SigCheck {
	c := &SigCheck{Key: sc.SSHKey()}
	run := func(stdin []byte, args ...string) (string, string, error) {
		cmd := exec.Command(program, args...)
		cmd.Dir = r.Root
		if stdin != nil {
			cmd.Stdin = bytes.NewReader(stdin)
		}
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		return out.String(), errb.String(), err
	}
	verifyTime := ""
	if !sc.Committed.IsZero() {
		verifyTime = "-Overify-time=" + sc.Committed.UTC().Format("20060102150405")
	}
	withTime := func(args ...string) []string {
		if verifyTime != "" {
			args = append(args, verifyTime)
		}
		return args
	}
	names := map[string]string{sigFile: "the signature"}
	// Without validation: is the signature good for its own key? This is
	// what git shows beside an unknown key, and it tells a bad signature
	// from a good one by a key that is not allowed.
	novalidate := func() {
		out, errs, err := run(sc.Payload, withTime("-Y", "check-novalidate", "-n", "git", "-s", sigFile)...)
		text := programText(out+errs, names)
		if c.Output == "" {
			c.Output = text
		}
		if err == nil && strings.HasPrefix(out, "Good \"git\" signature") {
			c.Result = 'G'
		} else {
			c.Result, c.Why = 'B', "the signature does not match the commit"
			if text != "" {
				c.Why += " (" + text + ")"
			}
		}
	}
	allowed, _ := r.Config.Get("gpg.ssh.allowedSignersFile")
	if allowed != "" {
		allowed = expandPath(allowed)
		if !filepath.IsAbs(allowed) {
			allowed = filepath.Join(r.Root, allowed)
		}
	}
	if allowed == "" || !fileExists(allowed) {
		novalidate()
		if c.Result == 'G' {
			c.Why = "gpg.ssh.allowedSignersFile is not set or does not exist, so no key is allowed"
		}
		return c
	}
	out, errs, err := run(nil, withTime("-Y", "find-principals", "-f", allowed, "-s", sigFile)...)
	if err != nil && strings.Contains(errs, "usage:") {
		return &SigCheck{Unchecked: "ssh-keygen -Y find-principals/verify is needed for ssh signature verification (available in openssh version 8.2p1+)"}
	}
	var principals []string
	if err == nil {
		for _, l := range strings.Split(out, "\n") {
			if l = strings.TrimRight(l, "\r"); l != "" {
				principals = append(principals, l)
			}
		}
	}
	if len(principals) == 0 {
		novalidate()
		if c.Result == 'G' {
			c.Why = fmt.Sprintf("the key %s is not in gpg.ssh.allowedSignersFile", c.Key)
		}
		return c
	}
	names[allowed] = "the allowed signers file"
	revocation, _ := r.Config.Get("gpg.ssh.revocationFile")
	if revocation != "" {
		revocation = expandPath(revocation)
		if !filepath.IsAbs(revocation) {
			revocation = filepath.Join(r.Root, revocation)
		}
	}
	last := ""
	for _, p := range principals {
		args := withTime("-Y", "verify", "-n", "git", "-f", allowed, "-I", p, "-s", sigFile)
		if revocation != "" && fileExists(revocation) {
			args = append(args, "-r", revocation)
		}
		out, errs, err := run(sc.Payload, args...)
		if err == nil && strings.HasPrefix(out, "Good") {
			c.Result, c.Allowed, c.Signer = 'G', true, (p)
			c.Output = programText(out, names)
			return c
		}
		last = programText(out+errs, names)
	}
	// An allowed principal's key, and still no good signature: a bad one,
	// or a good one that the allowed signers file does not allow for this
	// namespace or time (or a revoked key).
	novalidate()
	if c.Result == 'G' {
		c.Why = "the allowed signers file does not allow the key for this commit (namespace, validity or revocation)"
		if last != "" {
			c.Why += ": " + last
		}
	}
	return c
}

func fileExists(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && !fi.IsDir()
}

// programText cleans a program's output for a refusal or a report: the
// temp files' names become words (names), the home directory "~", every control or
// invisible character an escape, and the lines are joined with "; ".
func programText(s string, names map[string]string) string {
	for p, name := range names {
		if p != "" {
			s = strings.ReplaceAll(s, p, name)
		}
	}
	if h, err := os.UserHomeDir(); err == nil && len(h) > 1 {
		s = strings.ReplaceAll(s, h+"/", "~/")
	}
	var lines []string
	for _, l := range strings.Split(s, "\n") {
		if strings.HasPrefix(l, "[GNUPG:] ") || strings.Contains(l, ": DBG: ") {
			continue
		}
		if l = strings.TrimSpace((strings.TrimRight(l, "\r"))); l != "" {
			lines = append(lines, l)
		}
		if len(lines) == 8 {
			lines = append(lines, "…")
			break
		}
	}
	return strings.Join(lines, "; ")
}

func changeQuote(s string) string { return strconv.Quote(s) }
