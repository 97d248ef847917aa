package gitstage

import (
	"errors"
	"io/fs"
	"path"
	"strings"
	"sync"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/nika-dev/nika/memfile"
)

// ErrNotRegular is returned by a TreeFS for a path whose entry is a
// symlink or a submodule: a tree file system reads blobs of regular files
// only and never follows a link, as the apply never writes one.
var ErrNotRegular = errors.New("the tree entry is a symlink or a submodule, not a regular file")

// TreeFS is a read-only fs.FS over one git tree: the files as a commit
// holds them. Over a proposal's tree it is exactly what the apply will
// write, with every neighbouring file as it will be after the apply, which
// is what the checker must see when a workflow names files beside itself.
//
// Only the trees along the asked paths are decoded (each once), and only
// the asked blobs are read: cost follows what the checker looks at, never
// the size of the repository. A symlink or a submodule entry answers
// ErrNotRegular, never the bytes of its target. It is safe for one
// goroutine at a time per Repo, like the Repo itself; a mutex serialises
// its own reads.
type TreeFS struct {
	r     *Repo
	root  plumbing.Hash
	mu    sync.Mutex
	trees map[string]*object.Tree // dir ("." is the root) -> tree, nil: none
}

var (
	_ fs.ReadFileFS = (*TreeFS)(nil)
	_ fs.StatFS     = (*TreeFS)(nil)
	_ fs.ReadDirFS  = (*TreeFS)(nil)
)

// TreeFS returns the file system of the tree whose id is tree (hex). An
// empty id is the empty tree (an unborn branch's base).
func (r *Repo) TreeFS(tree string) *TreeFS {
	t := &TreeFS{r: r, trees: map[string]*object.Tree{}}
	if tree == "" {
		t.trees["."] = &object.Tree{}
	} else {
		t.root = plumbing.NewHash(tree)
	}
	return t
}

// tree returns the decoded tree at dir ("." for the root), or nil when the
// tree holds no directory there.
func (t *TreeFS) tree(dir string) (*object.Tree, error) {
	if tr, ok := t.trees[dir]; ok {
		return tr, nil
	}
	if dir == "." {
		tr, err := t.r.Tree(t.root)
		if err != nil {
			return nil, err
		}
		t.trees[dir] = tr
		return tr, nil
	}
	e, err := t.entry(dir)
	if err != nil {
		return nil, err
	}
	if e == nil || e.Mode != filemode.Dir {
		t.trees[dir] = nil
		return nil, nil
	}
	tr, err := t.r.Tree(e.Hash)
	if err != nil {
		return nil, err
	}
	t.trees[dir] = tr
	return tr, nil
}

// entry finds the entry at name (not "."), or nil.
func (t *TreeFS) entry(name string) (*object.TreeEntry, error) {
	dir, base := path.Split(name)
	dir = strings.TrimSuffix(dir, "/")
	if dir == "" {
		dir = "."
	}
	tr, err := t.tree(dir)
	if err != nil || tr == nil {
		return nil, err
	}
	for i := range tr.Entries {
		if tr.Entries[i].Name == base {
			return &tr.Entries[i], nil
		}
	}
	return nil, nil
}

func (t *TreeFS) lookup(op, name string) (*object.TreeEntry, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: op, Path: name, Err: fs.ErrInvalid}
	}
	if name == "." {
		if _, err := t.tree("."); err != nil {
			return nil, &fs.PathError{Op: op, Path: name, Err: err}
		}
		return &object.TreeEntry{Name: ".", Mode: filemode.Dir, Hash: t.root}, nil
	}
	e, err := t.entry(name)
	if err != nil {
		return nil, &fs.PathError{Op: op, Path: name, Err: err}
	}
	if e == nil {
		return nil, &fs.PathError{Op: op, Path: name, Err: fs.ErrNotExist}
	}
	return e, nil
}

// ReadFile returns the bytes of the regular file at name.
func (t *TreeFS) ReadFile(name string) ([]byte, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	e, err := t.lookup("read", name)
	if err != nil {
		return nil, err
	}
	switch e.Mode {
	case filemode.Regular, filemode.Executable, filemode.Deprecated:
	case filemode.Dir:
		return nil, &fs.PathError{Op: "read", Path: name, Err: errors.New("is a directory")}
	default:
		return nil, &fs.PathError{Op: "read", Path: name, Err: ErrNotRegular}
	}
	b, err := t.r.ReadBlob(e.Hash)
	if err != nil {
		return nil, &fs.PathError{Op: "read", Path: name, Err: err}
	}
	return b, nil
}

// Stat describes the entry at name.
func (t *TreeFS) Stat(name string) (fs.FileInfo, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	e, err := t.lookup("stat", name)
	if err != nil {
		return nil, err
	}
	return t.info(name, e)
}

func (t *TreeFS) info(name string, e *object.TreeEntry) (fs.FileInfo, error) {
	fi := &treeInfo{name: path.Base(name), mode: e.Mode}
	if e.Mode == filemode.Regular || e.Mode == filemode.Executable || e.Mode == filemode.Deprecated {
		b, err := t.r.ReadBlob(e.Hash)
		if err != nil {
			return nil, &fs.PathError{Op: "stat", Path: name, Err: err}
		}
		fi.size = int64(len(b))
	}
	return fi, nil
}

// ReadDir lists the directory at name, in git's tree order.
func (t *TreeFS) ReadDir(name string) ([]fs.DirEntry, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	e, err := t.lookup("readdir", name)
	if err != nil {
		return nil, err
	}
	if e.Mode != filemode.Dir {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: errors.New("not a directory")}
	}
	tr, err := t.tree(name)
	if err != nil || tr == nil {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: fs.ErrNotExist}
	}
	out := make([]fs.DirEntry, 0, len(tr.Entries))
	for _, en := range tr.Entries {
		full := en.Name
		if name != "." {
			full = name + "/" + en.Name
		}
		out = append(out, &treeInfo{name: en.Name, mode: en.Mode, hash: en.Hash, fsys: t, full: full, lazy: true})
	}
	return out, nil
}

// Open opens the file or directory at name.
func (t *TreeFS) Open(name string) (fs.File, error) {
	t.mu.Lock()
	e, err := t.lookup("open", name)
	t.mu.Unlock()
	if err != nil {
		return nil, err
	}
	if e.Mode == filemode.Dir {
		ents, err := t.ReadDir(name)
		if err != nil {
			return nil, err
		}
		return memfile.NewDir(&treeInfo{name: path.Base(name), mode: e.Mode}, ents), nil
	}
	data, err := t.ReadFile(name)
	if err != nil {
		return nil, err
	}
	return memfile.NewFile(&treeInfo{name: path.Base(name), mode: e.Mode, size: int64(len(data))}, data), nil
}

// treeInfo is both the fs.FileInfo and the fs.DirEntry of a tree entry.
type treeInfo struct {
	name string
	mode filemode.FileMode
	size int64
	// lazy marks a directory listing's entry, whose Info reads the size
	// only when asked.
	lazy bool
	hash plumbing.Hash
	fsys *TreeFS
	full string
}

func (i *treeInfo) Name() string { return i.name }
func (i *treeInfo) Size() int64  { return i.size }
func (i *treeInfo) Mode() fs.FileMode {
	switch i.mode {
	case filemode.Dir:
		return fs.ModeDir | 0o755
	case filemode.Executable:
		return 0o755
	case filemode.Symlink:
		return fs.ModeSymlink | 0o777
	case filemode.Submodule:
		return fs.ModeIrregular
	}
	return 0o644
}
func (i *treeInfo) ModTime() time.Time { return time.Time{} }
func (i *treeInfo) IsDir() bool        { return i.mode == filemode.Dir }
func (i *treeInfo) Sys() any           { return nil }
func (i *treeInfo) Type() fs.FileMode  { return i.Mode().Type() }
func (i *treeInfo) Info() (fs.FileInfo, error) {
	if !i.lazy {
		return i, nil
	}
	i.fsys.mu.Lock()
	defer i.fsys.mu.Unlock()
	return i.fsys.info(i.full, &object.TreeEntry{Name: i.name, Mode: i.mode, Hash: i.hash})
}
