package gitstage

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/nika-dev/nika/changeset"
	"github.com/nika-dev/nika/gitstage/convert"
	"github.com/nika-dev/nika/refusal"
)

// Base is HEAD's tree seen through the index and the working tree: it
// implements changeset.Base. Only the trees along asked paths are decoded,
// and only the asked files are read from disk.
type Base struct {
	r     *Repo
	Head  Head
	trees map[string]*object.Tree // dir path ("" is the root) -> tree
	index *IndexSnapshot
	fmode bool // core.filemode
	// conv converts between the working tree and git (checkout.go), made
	// on first use; conved is what Entry learned of each converted file.
	conv   *convert.Converter
	conved map[string]*convEntry
}

// OpenBase reads HEAD, its root tree and the index.
func (r *Repo) OpenBase() (*Base, error) {
	head, err := r.ReadHead()
	if err != nil {
		return nil, err
	}
	b, err := r.TreeBase(head)
	if err != nil {
		return nil, err
	}
	b.index, err = r.ReadIndex()
	if err != nil {
		return nil, err
	}
	// A merge, cherry-pick, revert or rebase owns the index and HEAD. (An
	// unmerged entry on a target is refused by Entry; one anywhere else by
	// the apply, which decodes the whole index under its lock.)
	if err := r.InProgress(); err != nil {
		return nil, err
	}
	b.fmode = r.Config.Bool("core.filemode", true)
	return b, nil
}

// treeEntry finds the tree entry at p in HEAD, decoding trees on the way.
func (b *Base) treeEntry(p string) (*object.TreeEntry, error) {
	dir, name := "", p
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		dir, name = p[:i], p[i+1:]
	}
	t, err := b.tree(dir)
	if err != nil || t == nil {
		return nil, err
	}
	for i := range t.Entries {
		if t.Entries[i].Name == name {
			return &t.Entries[i], nil
		}
	}
	return nil, nil
}

// tree returns the decoded tree at dir, or nil when HEAD has none there.
func (b *Base) tree(dir string) (*object.Tree, error) {
	if t, ok := b.trees[dir]; ok {
		return t, nil
	}
	if dir == "" {
		return nil, nil
	}
	e, err := b.treeEntry(dir)
	if err != nil || e == nil || e.Mode != filemode.Dir {
		b.trees[dir] = nil
		return nil, err
	}
	t, err := b.r.Tree(e.Hash)
	if err != nil {
		return nil, err
	}
	b.trees[dir] = t
	return t, nil
}

// TreeAt is the decoded tree at dir (nil if none); used by staging.
func (b *Base) TreeAt(dir string) (*object.Tree, error) { return b.tree(dir) }

// Entry implements changeset.Base.
func (b *Base) Entry(p changeset.Path) (changeset.Entry, error) {
	ps := string(p)
	q := changeset.Quote(ps)
	te, err := b.treeEntry(ps)
	if err != nil {
		return changeset.Entry{}, err
	}
	disk := filepath.Join(b.r.Root, filepath.FromSlash(ps))
	fi, lerr := os.Lstat(disk)
	if lerr != nil && !errors.Is(lerr, fs.ErrNotExist) && !isNotDir(lerr) {
		return changeset.Entry{}, ioRefusal("inspect "+q, lerr)
	}
	onDisk := lerr == nil
	if onDisk && fi.Mode()&fs.ModeSymlink != 0 {
		return changeset.Entry{Kind: changeset.Symlink, Mode: changeset.ModeSymlink}, nil
	}
	stages := b.index.Stages(ps)
	if te == nil {
		if len(stages) > 0 {
			if stages[0].Mode == filemode.Submodule {
				return changeset.Entry{Kind: changeset.Submodule}, nil
			}
			return changeset.Entry{}, refusal.New(refusal.Dirty, "commit it, or unstage it with git restore --staged "+ps,
				"path %s is staged in the index but not committed", q)
		}
		if onDisk && fi.IsDir() && !b.index.HasDir(ps) {
			if _, err := os.Lstat(filepath.Join(disk, ".git")); err == nil {
				return changeset.Entry{Kind: changeset.Submodule}, nil
			}
		}
		if b.index.HasDir(ps) || (onDisk && fi.IsDir()) {
			return changeset.Entry{Kind: changeset.Dir}, nil
		}
		if onDisk {
			return changeset.Entry{}, refusal.New(refusal.Dirty, "move it away, or commit it first",
				"an untracked file already exists at %s", q)
		}
		return changeset.Entry{Kind: changeset.Absent}, nil
	}
	switch te.Mode {
	case filemode.Dir:
		if onDisk && !fi.IsDir() {
			return changeset.Entry{}, refusal.New(refusal.Dirty, "restore it with git checkout -- "+ps,
				"%s is a directory in HEAD but not on disk", q)
		}
		return changeset.Entry{Kind: changeset.Dir}, nil
	case filemode.Symlink:
		return changeset.Entry{Kind: changeset.Symlink, Mode: changeset.ModeSymlink}, nil
	case filemode.Submodule:
		return changeset.Entry{Kind: changeset.Submodule, Mode: changeset.ModeGitlink}, nil
	}
	// A regular file: the index and the disk must both hold HEAD's blob.
	dirty := func(why string) error {
		return refusal.New(refusal.Dirty, "commit or stash your edits to "+ps+" first", "%s has uncommitted changes (%s)", q, why)
	}
	if len(stages) != 1 || stages[0].Stage != 0 {
		if len(stages) == 0 {
			return changeset.Entry{}, dirty("deleted from the index")
		}
		return changeset.Entry{}, refusal.New(refusal.Dirty, "resolve the conflict and commit first", "%s has an unresolved merge conflict", q)
	}
	ie := stages[0]
	if ie.SkipWorktree {
		return changeset.Entry{}, refusal.New(refusal.Unsupported, "widen the sparse checkout to include it first", "%s is outside the sparse checkout (skip-worktree)", q)
	}
	if ie.Hash != te.Hash || (ie.Mode != te.Mode && b.fmode) {
		return changeset.Entry{}, dirty("the index differs from HEAD")
	}
	if !onDisk {
		return changeset.Entry{}, dirty("deleted on disk")
	}
	if !fi.Mode().IsRegular() {
		return changeset.Entry{}, dirty("no longer a regular file")
	}
	data, err := os.ReadFile(disk)
	if err != nil {
		return changeset.Entry{}, ioRefusal("read "+q, err)
	}
	edit, clean, err := b.cleanEntry(ps, &te.Hash, data)
	if err != nil {
		return changeset.Entry{}, err
	}
	if !clean {
		return changeset.Entry{}, dirty("the file on disk differs from HEAD")
	}
	if b.fmode && (fi.Mode()&0o111 != 0) != (te.Mode == filemode.Executable) {
		return changeset.Entry{}, dirty("its executable bit changed on disk")
	}
	e := changeset.Entry{Kind: changeset.File, Mode: modeOf(te.Mode), Blob: te.Hash.String(), Bytes: edit}
	if ce := b.conved[ps]; ce != nil && !ce.plan.Filters() && !bytes.Equal(ce.disk, ce.blob) {
		e.WorkTree = ce.disk
	}
	return e, nil
}

func isNotDir(err error) bool {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return strings.Contains(pe.Err.Error(), "not a directory")
	}
	return false
}

// TreeBase is a base view over a given commit's tree, for restaging a
// subset of an existing proposal: it reads trees only, never the index or
// the working tree. head names the branch the proposal was built for.
func (r *Repo) TreeBase(head Head) (*Base, error) {
	b := &Base{r: r, Head: head, trees: map[string]*object.Tree{}}
	if !head.Unborn() {
		c, err := r.Commit(head.Commit)
		if err != nil {
			return nil, err
		}
		t, err := r.Tree(c.TreeHash)
		if err != nil {
			return nil, err
		}
		b.trees[""] = t
	}
	return b, nil
}

// Files lists the files under dir in HEAD, decoding only that subtree
// (changeset.Lister).
func (b *Base) Files(dir changeset.Path) ([]changeset.Path, error) {
	var out []changeset.Path
	var walk func(d string) error
	walk = func(d string) error {
		t, err := b.tree(d)
		if err != nil || t == nil {
			return err
		}
		for _, e := range t.Entries {
			p := d + "/" + e.Name
			if e.Mode == filemode.Dir {
				if err := walk(p); err != nil {
					return err
				}
				continue
			}
			out = append(out, changeset.Path(p))
		}
		return nil
	}
	if err := walk(string(dir)); err != nil {
		return nil, err
	}
	// The disk may hold what HEAD does not: an untracked directory, or
	// untracked files in a tracked one. Either stays in the way.
	if b.index == nil {
		return out, nil
	}
	known := map[string]bool{}
	for _, f := range out {
		known[string(f)] = true
	}
	diskDir := filepath.Join(b.r.Root, filepath.FromSlash(string(dir)))
	q := changeset.Quote(string(dir))
	if t, _ := b.tree(string(dir)); t == nil {
		if fi, err := os.Lstat(diskDir); err == nil && fi.IsDir() {
			return nil, refusal.New(refusal.Dirty, "move it away, or commit it first", "a directory that git does not track is in the way at %s", q)
		}
	}
	err := filepath.WalkDir(diskDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(b.r.Root, p)
		if rel = filepath.ToSlash(rel); !known[rel] {
			return refusal.New(refusal.Dirty, "move it away, or commit it first", "an untracked file %s is in the way of %s", changeset.Quote(rel), q)
		}
		return nil
	})
	if errors.Is(err, fs.ErrNotExist) {
		err = nil
	}
	return out, err
}

// InProgress refuses while git is in the middle of a merge, cherry-pick,
// revert or rebase, which own the index and HEAD until they finish.
func (r *Repo) InProgress() error {
	for _, s := range []struct{ file, what, fix string }{
		{"MERGE_HEAD", "a merge", "git merge --continue or git merge --abort"},
		{"CHERRY_PICK_HEAD", "a cherry-pick", "git cherry-pick --continue or --abort"},
		{"REVERT_HEAD", "a revert", "git revert --continue or --abort"},
		{"rebase-merge", "a rebase", "git rebase --continue or --abort"},
		{"rebase-apply", "a rebase or git am", "git rebase --continue or --abort"},
	} {
		if _, err := os.Lstat(filepath.Join(r.GitDir, s.file)); err == nil {
			return refusal.New(refusal.Dirty, "finish it first: "+s.fix, "%s is in progress in this repository", s.what)
		}
	}
	return nil
}
