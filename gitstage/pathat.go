package gitstage

import (
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"

	"github.com/nika-dev/nika/changeset"
)

// BlobAt is the base commit's file at p, read from its trees alone (never
// the index or the disk): its blob id and mode. ok is false when the
// commit holds no file there (absent, a directory, a symlink, a submodule
// report their mode with ok false).
func (b *Base) BlobAt(p changeset.Path) (blob string, mode changeset.Mode, ok bool, err error) {
	e, err := b.treeEntry(string(p))
	if err != nil || e == nil {
		return "", 0, false, err
	}
	switch e.Mode {
	case filemode.Regular, filemode.Executable, filemode.Deprecated:
		return e.Hash.String(), modeOf(e.Mode), true, nil
	}
	return e.Hash.String(), modeOf(e.Mode), false, nil
}

// BlobAtCommit is BlobAt for any commit, named by its hex id.
func (r *Repo) BlobAtCommit(commit string, p changeset.Path) (blob string, ok bool, err error) {
	b, err := r.TreeBase(Head{Commit: plumbing.NewHash(commit)})
	if err != nil {
		return "", false, err
	}
	blob, _, ok, err = b.BlobAt(p)
	return blob, ok, err
}
