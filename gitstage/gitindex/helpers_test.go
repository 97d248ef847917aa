package gitindex

import (
	"bytes"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// repo is a throwaway git repository driven by the real git CLI, isolated
// from the host's configuration.
type repo struct {
	t   *testing.T
	dir string
	hs  int
	env []string
}

func gitEnv(home string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "GIT_") || strings.HasPrefix(kv, "HOME=") || strings.HasPrefix(kv, "XDG_CONFIG_HOME=") {
			continue
		}
		env = append(env, kv)
	}
	return append(env,
		"HOME="+home,
		"XDG_CONFIG_HOME="+home,
		"GIT_CONFIG_GLOBAL=/dev/null",
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=Nika Test", "GIT_AUTHOR_EMAIL=nika@example.invalid",
		"GIT_COMMITTER_NAME=Nika Test", "GIT_COMMITTER_EMAIL=nika@example.invalid",
		"GIT_AUTHOR_DATE=2026-01-01T00:00:00Z", "GIT_COMMITTER_DATE=2026-01-01T00:00:00Z",
		"LC_ALL=C", "TZ=UTC",
	)
}

// newRepo runs git init (with extra init arguments, e.g.
// --object-format=sha256) in a fresh temporary directory.
func newRepo(t *testing.T, initArgs ...string) *repo {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	root := t.TempDir()
	r := &repo{t: t, dir: filepath.Join(root, "w"), hs: 20, env: gitEnv(root)}
	for _, a := range initArgs {
		if a == "--object-format=sha256" {
			r.hs = 32
		}
	}
	c := exec.Command("git", append([]string{"init", "-q", "-b", "main", r.dir}, initArgs...)...)
	c.Env = r.env
	if out, err := c.CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	return r
}

func (r *repo) cmd(args ...string) *exec.Cmd {
	c := exec.Command("git", append([]string{"-C", r.dir}, args...)...)
	c.Env = r.env
	return c
}

// git runs git and returns its stdout; it fails the test on a non-zero exit.
func (r *repo) git(args ...string) string {
	r.t.Helper()
	c := r.cmd(args...)
	var out, errb bytes.Buffer
	c.Stdout, c.Stderr = &out, &errb
	if err := c.Run(); err != nil {
		r.t.Fatalf("git %s: %v\n%s%s", strings.Join(args, " "), err, out.String(), errb.String())
	}
	return out.String()
}

// gitFails runs git and returns its combined output; it fails the test if
// git succeeds.
func (r *repo) gitFails(args ...string) string {
	r.t.Helper()
	out, err := r.cmd(args...).CombinedOutput()
	if err == nil {
		r.t.Fatalf("git %s succeeded, want a failure:\n%s", strings.Join(args, " "), out)
	}
	return string(out)
}

func (r *repo) write(rel, content string) {
	r.t.Helper()
	p := filepath.Join(r.dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		r.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		r.t.Fatal(err)
	}
}

// age sets the mtime (and atime) of files to an hour ago, so that no index
// entry for them is racily clean.
func (r *repo) age(rels ...string) {
	r.t.Helper()
	old := time.Now().Add(-time.Hour).Truncate(time.Second)
	for _, rel := range rels {
		if err := os.Chtimes(filepath.Join(r.dir, filepath.FromSlash(rel)), old, old); err != nil {
			r.t.Fatal(err)
		}
	}
}

func (r *repo) indexPath() string { return filepath.Join(r.dir, ".git", "index") }

func (r *repo) indexBytes() []byte {
	r.t.Helper()
	b, err := os.ReadFile(r.indexPath())
	if err != nil {
		r.t.Fatal(err)
	}
	return b
}

func (r *repo) setIndexBytes(b []byte) {
	r.t.Helper()
	if err := os.WriteFile(r.indexPath(), b, 0o644); err != nil {
		r.t.Fatal(err)
	}
}

func (r *repo) decode() *Index {
	r.t.Helper()
	ix, err := Decode(r.indexBytes(), r.hs)
	if err != nil {
		r.t.Fatalf("Decode: %v", err)
	}
	return ix
}

// blob writes content as a blob with git hash-object -w and returns its id.
func (r *repo) blob(content string) []byte {
	r.t.Helper()
	c := r.cmd("hash-object", "-w", "--stdin")
	c.Stdin = strings.NewReader(content)
	out, err := c.Output()
	if err != nil {
		r.t.Fatalf("hash-object: %v", err)
	}
	h, err := hex.DecodeString(strings.TrimSpace(string(out)))
	if err != nil {
		r.t.Fatal(err)
	}
	return h
}

// entryFor builds the entry of a file on disk, the way nika stages a file it
// just wrote: mode and stat from lstat, the id of the blob written.
func (r *repo) entryFor(rel, content string) Entry {
	r.t.Helper()
	fi, err := os.Lstat(filepath.Join(r.dir, filepath.FromSlash(rel)))
	if err != nil {
		r.t.Fatal(err)
	}
	return Entry{Path: rel, Mode: FileMode(fi), Hash: r.blob(content), Stat: StatInfo(fi)}
}

// commitIndex locks the index, writes ix and renames it into place.
func (r *repo) commitIndex(ix *Index) {
	r.t.Helper()
	l, err := LockIndex(r.indexPath(), time.Second)
	if err != nil {
		r.t.Fatal(err)
	}
	defer l.Rollback()
	b, err := ix.Encode()
	if err != nil {
		r.t.Fatalf("Encode: %v", err)
	}
	if _, err := l.Write(b); err != nil {
		r.t.Fatal(err)
	}
	if err := l.Commit(); err != nil {
		r.t.Fatal(err)
	}
}

// lsFiles renders the entries as `git ls-files -s` does.
func lsFiles(ix *Index) string {
	var sb strings.Builder
	for _, e := range ix.Entries {
		sb.WriteString(strings.TrimLeft(octal(e.Mode), "0"))
		sb.WriteString(" " + hex.EncodeToString(e.Hash) + " ")
		sb.WriteByte(byte('0' + e.Stage))
		sb.WriteString("\t" + e.Path + "\n")
	}
	return sb.String()
}

func octal(m uint32) string {
	const digits = "01234567"
	var b [11]byte
	i := len(b)
	for {
		i--
		b[i] = digits[m&7]
		m >>= 3
		if m == 0 {
			break
		}
	}
	return "0" + string(b[i:])
}

// withExtension appends an extension before the trailer and recomputes the
// trailer.
func withExtension(b []byte, hs int, sig string, data []byte) []byte {
	out := append([]byte(nil), b[:len(b)-hs]...)
	var hdr [8]byte
	copy(hdr[:], sig)
	binary.BigEndian.PutUint32(hdr[4:], uint32(len(data)))
	out = append(out, hdr[:]...)
	out = append(out, data...)
	return retrail(out, hs)
}

// retrail appends the checksum of b.
func retrail(b []byte, hs int) []byte {
	if hs == 32 {
		s := sha256.Sum256(b)
		return append(b, s[:]...)
	}
	s := sha1.Sum(b)
	return append(b, s[:]...)
}

// zeroTrailer returns b with its trailer zeroed (index.skipHash).
func zeroTrailer(b []byte, hs int) []byte {
	out := append([]byte(nil), b...)
	clear(out[len(out)-hs:])
	return out
}

// fsmonitor configures a fsmonitor hook (protocol 2) that reports no
// changes, and makes git write the FSMN extension.
func (r *repo) fsmonitor() {
	r.t.Helper()
	hook := filepath.Join(filepath.Dir(r.dir), "fsmonitor-hook")
	if err := os.WriteFile(hook, []byte("#!/bin/sh\nprintf 'token-1\\0'\n"), 0o755); err != nil {
		r.t.Fatal(err)
	}
	r.git("config", "core.fsmonitor", hook)
	r.git("config", "core.fsmonitorHookVersion", "2")
	r.git("update-index", "--fsmonitor")
	r.git("status", "--porcelain")
}
