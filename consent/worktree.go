package consent

import (
	"errors"
	"io/fs"
	"os"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/nika-dev/nika/gitstage"
	"github.com/nika-dev/nika/gitstage/gitindex"
	"github.com/nika-dev/nika/safefs"
)

// WorkTree is every file operation the transaction makes in the working
// tree, and nothing else: paths are slash paths relative to the root, and
// no operation ever follows a symlink. safefs.Root, held (safefs.Hold),
// implements it over the real working tree, keeping each directory it
// opens until Close.
//
// The test seams are decorators over this one interface, as chezmoi's
// dry-run and error-on-write systems wrap its one System: Before (fault
// injection and racing writers: a function runs before each operation and
// may fail it), and, in builds tagged failpoints, the crash points of
// failpoint.go.
type WorkTree interface {
	Lstat(rel string) (safefs.Info, error)
	ReadFile(rel string) ([]byte, error)
	// WriteTemp writes data into a new file named name (random when "")
	// in rel's directory, making the missing directories, and returns the
	// file's path and the directories it made.
	WriteTemp(rel, name string, data []byte, perm os.FileMode, sync bool) (tmp string, created []string, err error)
	MkdirAll(dir string) (created []string, err error)
	Rename(from, to string) error
	RenameNoReplace(from, to string) error
	Exchange(a, b string) error
	Remove(rel string) error
	RemoveDir(rel string) error
	SyncDir(rel string) error
	// Moved lists the directories the tree holds open that are no longer
	// at their names.
	Moved() []string
	Close() error
}

var _ WorkTree = (*safefs.Root)(nil)

// Before decorates a WorkTree: fn is called before each operation with its
// name (lstat, read, create, write, chmod, fsync, close, mkdir, rename,
// exchange, remove, rmdir) and the path it acts on (a rename's
// destination), and a non-nil error fails the operation, as an
// *fs.PathError holding it. A temp file's write, chmod, fsync and close
// are asked after the file was made, and a failure removes it again, as a
// real failure of those steps would. Fault-injection tests count and fail
// operations with it, the way SQLite's I/O error tests do; racing-writer
// tests change the tree from fn, at the moment an operation is about to
// run.
func Before(w WorkTree, fn func(op, path string) error) WorkTree {
	return &before{w: w, fn: fn}
}

type before struct {
	w  WorkTree
	fn func(op, path string) error
}

func (b *before) ask(op, path string) error {
	if err := b.fn(op, path); err != nil {
		return &fs.PathError{Op: op, Path: path, Err: err}
	}
	return nil
}

func (b *before) Lstat(rel string) (safefs.Info, error) {
	if err := b.ask("lstat", rel); err != nil {
		return safefs.Info{}, err
	}
	return b.w.Lstat(rel)
}

func (b *before) ReadFile(rel string) ([]byte, error) {
	if err := b.ask("read", rel); err != nil {
		return nil, err
	}
	return b.w.ReadFile(rel)
}

func (b *before) WriteTemp(rel, name string, data []byte, perm os.FileMode, sync bool) (string, []string, error) {
	if err := b.ask("create", rel); err != nil {
		return "", nil, err
	}
	tmp, created, err := b.w.WriteTemp(rel, name, data, perm, sync)
	if err != nil {
		return tmp, created, err
	}
	steps := []string{"write", "chmod", "close"}
	if sync {
		steps = []string{"write", "chmod", "fsync", "close"}
	}
	for _, s := range steps {
		if err := b.ask(s, rel); err != nil {
			b.w.Remove(tmp)
			return "", created, err
		}
	}
	return tmp, created, nil
}

func (b *before) MkdirAll(dir string) ([]string, error) {
	if err := b.ask("mkdir", dir); err != nil {
		return nil, err
	}
	return b.w.MkdirAll(dir)
}

func (b *before) Rename(from, to string) error {
	if err := b.ask("rename", to); err != nil {
		return err
	}
	return b.w.Rename(from, to)
}

func (b *before) RenameNoReplace(from, to string) error {
	if err := b.ask("rename", to); err != nil {
		return err
	}
	return b.w.RenameNoReplace(from, to)
}

func (b *before) Exchange(x, y string) error {
	if err := b.ask("exchange", y); err != nil {
		return err
	}
	return b.w.Exchange(x, y)
}

func (b *before) Remove(rel string) error {
	if err := b.ask("remove", rel); err != nil {
		return err
	}
	return b.w.Remove(rel)
}

func (b *before) RemoveDir(rel string) error {
	if err := b.ask("rmdir", rel); err != nil {
		return err
	}
	return b.w.RemoveDir(rel)
}

func (b *before) SyncDir(rel string) error {
	if err := b.ask("fsync", rel); err != nil {
		return err
	}
	return b.w.SyncDir(rel)
}

func (b *before) Moved() []string { return b.w.Moved() }
func (b *before) Close() error    { return b.w.Close() }

// crashPoints decorates a WorkTree with the crash points of a failpoints
// build: "renamed:i" fires right after operation i of the plan put its
// file in place (the swap, the create's rename, or the removal's move
// aside or unlink). It exists so that the SIGKILL loop reaches the points
// between two file operations without the transaction naming them.
func crashPoints(w WorkTree, paths map[string]int) WorkTree {
	if !failpointsOn {
		return w
	}
	return &crashes{WorkTree: w, paths: paths}
}

type crashes struct {
	WorkTree
	paths map[string]int // a planned path -> its op index
}

func (c *crashes) fire(p string) {
	if i, ok := c.paths[p]; ok {
		failpoint("renamed", i)
	}
}

func (c *crashes) Rename(from, to string) error {
	err := c.WorkTree.Rename(from, to)
	if err == nil {
		c.fire(to)
	}
	return err
}

func (c *crashes) RenameNoReplace(from, to string) error {
	err := c.WorkTree.RenameNoReplace(from, to)
	if err == nil {
		if _, ok := c.paths[to]; ok {
			c.fire(to)
		} else {
			c.fire(from) // a removal, moved aside
		}
	}
	return err
}

func (c *crashes) Exchange(a, b string) error {
	err := c.WorkTree.Exchange(a, b)
	if err == nil {
		c.fire(b)
	}
	return err
}

func (c *crashes) Remove(rel string) error {
	err := c.WorkTree.Remove(rel)
	if err == nil {
		c.fire(rel)
	}
	return err
}

// ledger is the git side of the transaction's writes, the index lock and
// the ref, so that Options.Inject fails them as it fails file operations.
type ledger interface {
	WriteIndex(ix *gitindex.Index) error
	SyncIndex() error
	RenameIndex() error
	MoveRef(to plumbing.Hash) error
}

type locks struct {
	index *gitindex.Lock
	ref   *gitstage.RefLock
}

// WriteIndex writes ix into index.lock: the old index's unchanged bytes
// spliced around the changed entries (gitindex.Index.WriteTo).
func (l *locks) WriteIndex(ix *gitindex.Index) error {
	_, err := ix.WriteTo(l.index)
	return err
}
func (l *locks) SyncIndex() error               { return l.index.Sync() }
func (l *locks) RenameIndex() error             { return l.index.Commit() }
func (l *locks) MoveRef(to plumbing.Hash) error { return l.ref.Move(to) }

type injectedLedger struct {
	ledger
	fn  func(op, path string) error
	ref string
}

func (i *injectedLedger) ask(op, path string) error {
	if err := i.fn(op, path); err != nil {
		return &fs.PathError{Op: op, Path: path, Err: err}
	}
	return nil
}

func (i *injectedLedger) WriteIndex(ix *gitindex.Index) error {
	if err := i.ask("write", "index.lock"); err != nil {
		return err
	}
	return i.ledger.WriteIndex(ix)
}

func (i *injectedLedger) SyncIndex() error {
	if err := i.ask("fsync", "index.lock"); err != nil {
		return err
	}
	return i.ledger.SyncIndex()
}

func (i *injectedLedger) RenameIndex() error {
	if err := i.ask("rename", "index"); err != nil {
		return err
	}
	return i.ledger.RenameIndex()
}

func (i *injectedLedger) MoveRef(to plumbing.Hash) error {
	if err := i.ask("rename", i.ref+".lock"); err != nil {
		return err
	}
	return i.ledger.MoveRef(to)
}

func isExdev(err error) bool { return errors.Is(err, errExdev) }

func baseOf(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[i+1:]
	}
	return p
}

func dirOf(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[:i]
	}
	return ""
}
