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

	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/storage/filesystem"
	"github.com/nika-dev/nika/refusal"
)

// Repo is an open repository with a working tree.
type Repo struct {
	Root      string // the working tree's root (absolute)
	GitDir    string // this worktree's git dir (HEAD, index, logs/HEAD)
	CommonDir string // the shared git dir (objects, refs, config)
	Config    *Config
	store     *filesystem.Storage
	odb       *odb      // own object reader (odb.go), made on first use
	odbOnce   sync.Once // guards odb
}

// Open finds the repository that contains dir, as git does: walk up to the
// first directory holding .git (a directory, or a file naming a linked
// worktree's git dir).
func Open(dir string) (*Repo, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, ioRefusal("resolve the directory", err)
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	for d := abs; ; d = filepath.Dir(d) {
		dotgit := filepath.Join(d, ".git")
		fi, err := os.Lstat(dotgit)
		if err == nil {
			return openAt(d, dotgit, fi)
		}
		if filepath.Dir(d) == d {
			break
		}
	}
	return nil, refusal.New(refusal.NotFound, "run nika inside a git repository, or create one with git init",
		"not a git repository (or any parent up to /)")
}

func openAt(root, dotgit string, fi fs.FileInfo) (*Repo, error) {
	gitDir := dotgit
	if !fi.IsDir() {
		b, err := os.ReadFile(dotgit)
		if err != nil {
			return nil, ioRefusal("read .git", err)
		}
		line := strings.TrimSpace(string(b))
		p, ok := strings.CutPrefix(line, "gitdir: ")
		if !ok {
			return nil, refusal.New(refusal.Unsupported, "check the .git file", ".git is a file that names no gitdir")
		}
		if !filepath.IsAbs(p) {
			p = filepath.Join(root, p)
		}
		gitDir = filepath.Clean(p)
	}
	common := gitDir
	if b, err := os.ReadFile(filepath.Join(gitDir, "commondir")); err == nil {
		c := strings.TrimSpace(string(b))
		if !filepath.IsAbs(c) {
			c = filepath.Join(gitDir, c)
		}
		common = filepath.Clean(c)
	}
	r := &Repo{Root: root, GitDir: gitDir, CommonDir: common}
	r.Config = loadConfig(common)
	if v, _ := r.Config.Get("extensions.objectformat"); strings.EqualFold(v, "sha256") {
		return nil, refusal.New(refusal.Unsupported, "use nika in a SHA-1 repository for now",
			"this repository uses SHA-256 object ids, which nika does not support yet")
	}
	if v, _ := r.Config.Get("extensions.refstorage"); v != "" && !strings.EqualFold(v, "files") {
		return nil, refusal.New(refusal.Unsupported, "convert it with git refs migrate --ref-format=files",
			"this repository stores refs as %s, which nika does not support", v)
	}
	if b, _ := r.Config.Get("core.bare"); b == "true" {
		return nil, refusal.New(refusal.Unsupported, "run nika in a repository with a working tree", "this is a bare repository")
	}
	r.store = filesystem.NewStorageWithOptions(osfs.New(common), cache.NewObjectLRUDefault(), filesystem.Options{})
	return r, nil
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

func ioRefusal(what string, err error) error {
	return &refusal.Error{Class: refusal.Io, Text: fmt.Sprintf("could not %s: %v", what, err), Hint: "check the permissions and free space of the repository", Err: err}
}

// ShortBranch strips refs/heads/.
func ShortBranch(ref string) string { return strings.TrimPrefix(ref, "refs/heads/") }
