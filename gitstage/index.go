package gitstage

import (
	"errors"
	"sort"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"

	"github.com/nika-dev/nika/gitstage/gitindex"
	"github.com/nika-dev/nika/refusal"
)

// IndexEntry is the part of an index entry the clean check reads.
type IndexEntry struct {
	Path         string
	Hash         plumbing.Hash
	Mode         filemode.FileMode
	Stage        int
	SkipWorktree bool
}

// IndexSnapshot is the index as read once at propose time.
type IndexSnapshot struct {
	ix *gitindex.Index
	sc *indexScan // the mapped file, when indexscan.go reads it (then ix is nil)
}

// IndexPath is this worktree's index file, as discovery found it
// (GIT_INDEX_FILE, else the git dir's index).
func (r *Repo) IndexPath() string { return r.IndexFile }

// ReadIndex reads the index once: mapped and searched in place when
// indexscan.go can (versions 2, 3 and 4), else with nika's own codec (see
// gitindex). A missing index is empty.
func (r *Repo) ReadIndex() (*IndexSnapshot, error) {
	if sc, err := openIndexScan(r.IndexPath(), r.indexScanSidecar()); err != nil {
		return nil, IndexError(err)
	} else if sc != nil {
		return &IndexSnapshot{sc: sc}, nil
	}
	ix, err := gitindex.ReadFile(r.IndexPath(), 20)
	if err != nil {
		return nil, IndexError(err)
	}
	return &IndexSnapshot{ix: ix}, nil
}

// IndexError classifies an index read error for a human.
func IndexError(err error) error {
	if errors.Is(err, gitindex.ErrSplitIndex) || errors.Is(err, gitindex.ErrSparseIndex) || errors.Is(err, gitindex.ErrMandatoryExtension) {
		return &refusal.Error{Class: refusal.Unsupported, Err: err, Text: strings.TrimPrefix(err.Error(), "gitindex: "), Hint: "convert the index with the git command named above, then try again"}
	}
	return &refusal.Error{Class: refusal.Io, Err: err, Text: "could not read the index: " + strings.TrimPrefix(err.Error(), "gitindex: "), Hint: "run git status to check the repository"}
}

// Stages returns the entries at p (one at stage 0, or the conflict stages).
func (s *IndexSnapshot) Stages(p string) []IndexEntry {
	if s.sc != nil {
		return s.sc.stages(p)
	}
	es := s.ix.Entries
	i := sort.Search(len(es), func(i int) bool { return es[i].Path >= p })
	var out []IndexEntry
	for ; i < len(es) && es[i].Path == p; i++ {
		var h plumbing.Hash
		copy(h[:], es[i].Hash)
		out = append(out, IndexEntry{Path: p, Hash: h, Mode: filemode.FileMode(es[i].Mode), Stage: es[i].Stage, SkipWorktree: es[i].SkipWorktree})
	}
	return out
}

// HasDir reports whether any entry lives under dir/.
func (s *IndexSnapshot) HasDir(dir string) bool {
	if s.sc != nil {
		return s.sc.hasDir(dir)
	}
	pre := dir + "/"
	es := s.ix.Entries
	i := sort.Search(len(es), func(i int) bool { return es[i].Path >= pre })
	return i < len(es) && strings.HasPrefix(es[i].Path, pre)
}
