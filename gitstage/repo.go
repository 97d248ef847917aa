package gitstage

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/storage/filesystem"
	"github.com/nika-dev/nika/refusal"
)

// Repo is an open repository with a working tree, found as git finds it
// (discover.go).
type Repo struct {
	Root      string // the working tree's root (absolute, symlinks resolved)
	GitDir    string // this worktree's git dir (HEAD, index, logs/HEAD)
	CommonDir string // the shared git dir (objects, refs, config)
	IndexFile string // the index: GIT_INDEX_FILE, else GitDir/index
	Config    *Config
	store     *filesystem.Storage
	odb       *odb      // own object reader (odb.go), made on first use
	odbOnce   sync.Once // guards odb
}

// Open finds the repository for a process whose working directory is
// dir, exactly as git does, under the process environment: see Discover.
func Open(dir string) (*Repo, error) { return Discover(dir, os.LookupEnv) }

// Display names a file of the repository for a human without an absolute
// path: relative to the working tree when it lies inside it (".git/HEAD"),
// else relative to the git dir as "$GIT_DIR/HEAD", or to the common git
// dir as "$GIT_COMMON_DIR/refs/heads/main".
func (r *Repo) Display(path string) string {
	for _, b := range []struct{ dir, name string }{{r.Root, ""}, {r.GitDir, "$GIT_DIR"}, {r.CommonDir, "$GIT_COMMON_DIR"}} {
		if rel, err := filepath.Rel(b.dir, path); err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
			if b.name == "" {
				return filepath.ToSlash(rel)
			}
			return b.name + "/" + filepath.ToSlash(rel)
		}
	}
	return filepath.Base(path)
}

// NikaDir is where nika keeps its registry and journals.
func (r *Repo) NikaDir() string { return filepath.Join(r.CommonDir, "nika") }

// Head is what HEAD names: a branch (symbolic) or a detached commit.
type Head struct {
	Branch string        // full ref name, "" when detached
	Commit plumbing.Hash // zero when the branch is unborn
}

// Unborn reports a branch with no commit yet.
func (h Head) Unborn() bool { return h.Commit.IsZero() }

// ReadHead reads HEAD and resolves the branch it points at.
func (r *Repo) ReadHead() (Head, error) {
	b, err := os.ReadFile(filepath.Join(r.GitDir, "HEAD"))
	if err != nil {
		return Head{}, ioRefusal("read HEAD", err)
	}
	s := strings.TrimSpace(string(b))
	if ref, ok := strings.CutPrefix(s, "ref: "); ok {
		h, err := r.ReadRef(ref)
		if err != nil {
			return Head{}, err
		}
		return Head{Branch: ref, Commit: h}, nil
	}
	if !plumbing.IsHash(s) {
		return Head{}, refusal.New(refusal.Internal, "check .git/HEAD", "HEAD holds %q, which is neither a ref nor a commit", s)
	}
	return Head{Commit: plumbing.NewHash(s)}, nil
}

// RefPath is where a ref lives as a loose file (see refPath).
func (r *Repo) RefPath(name string) string { return r.refPath(name) }

// refPath is where a ref lives as a loose file: per-worktree refs (HEAD and
// refs/bisect etc.) in GitDir, the rest in CommonDir.
func (r *Repo) refPath(name string) string {
	if name == "HEAD" || !strings.HasPrefix(name, "refs/") || strings.HasPrefix(name, "refs/worktree/") || strings.HasPrefix(name, "refs/bisect/") {
		return filepath.Join(r.GitDir, filepath.FromSlash(name))
	}
	return filepath.Join(r.CommonDir, filepath.FromSlash(name))
}

// ReadRef resolves a ref to a commit: the loose file first, then
// packed-refs. A missing ref is the zero hash (an unborn branch).
func (r *Repo) ReadRef(name string) (plumbing.Hash, error) {
	for depth := 0; depth < 5; depth++ {
		b, err := os.ReadFile(r.refPath(name))
		if err == nil {
			s := strings.TrimSpace(string(b))
			if ref, ok := strings.CutPrefix(s, "ref: "); ok {
				name = ref
				continue
			}
			if !plumbing.IsHash(s) {
				return plumbing.ZeroHash, refusal.New(refusal.Internal, "repair it with git update-ref", "ref %s holds %q", name, s)
			}
			return plumbing.NewHash(s), nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			if errors.Is(err, fs.ErrInvalid) || isDirErr(err) {
				return plumbing.ZeroHash, nil
			}
			return plumbing.ZeroHash, ioRefusal("read ref "+name, err)
		}
		return r.packedRef(name)
	}
	return plumbing.ZeroHash, refusal.New(refusal.Internal, "", "ref %s is a chain of symbolic refs too deep to follow", name)
}

func isDirErr(err error) bool {
	var pe *fs.PathError
	return errors.As(err, &pe) && strings.Contains(pe.Err.Error(), "is a directory")
}

func (r *Repo) packedRef(name string) (plumbing.Hash, error) {
	f, err := os.Open(filepath.Join(r.CommonDir, "packed-refs"))
	if errors.Is(err, fs.ErrNotExist) {
		return plumbing.ZeroHash, nil
	}
	if err != nil {
		return plumbing.ZeroHash, ioRefusal("read packed-refs", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	want := []byte(" " + name)
	for sc.Scan() {
		line := sc.Bytes()
		if len(line) == 0 || line[0] == '#' || line[0] == '^' {
			continue
		}
		if bytes.HasSuffix(line, want) && len(line) == 40+len(want) {
			return plumbing.NewHash(string(line[:40])), nil
		}
	}
	return plumbing.ZeroHash, sc.Err()
}

// ioRefusal words an I/O failure: what nika was doing and the system's
// reason, without the absolute path an *fs.PathError carries (law 7: the
// git dir may lie outside the work tree, where no door can relativize it).
func ioRefusal(what string, err error) error {
	msg := err
	var pe *fs.PathError
	if errors.As(err, &pe) {
		msg = pe.Err
	}
	return &refusal.Error{Class: refusal.Io, Text: fmt.Sprintf("could not %s: %v", what, msg), Hint: "check the permissions and free space of the repository", Err: err}
}

// ShortBranch strips refs/heads/.
func ShortBranch(ref string) string { return strings.TrimPrefix(ref, "refs/heads/") }
