package gitstage

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/index"
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
	entries []IndexEntry // sorted by path, then stage
}

// IndexPath is this worktree's index file.
func (r *Repo) IndexPath() string {
	if p := os.Getenv("GIT_INDEX_FILE"); p != "" {
		return p
	}
	return filepath.Join(r.GitDir, "index")
}

// ReadIndex reads the index once. A missing index is empty.
func (r *Repo) ReadIndex() (*IndexSnapshot, error) {
	f, err := os.Open(r.IndexPath())
	if errors.Is(err, fs.ErrNotExist) {
		return &IndexSnapshot{}, nil
	}
	if err != nil {
		return nil, ioRefusal("read the index", err)
	}
	defer f.Close()
	var idx index.Index
	if err := index.NewDecoder(f).Decode(&idx); err != nil {
		return nil, ioRefusal("read the index", err)
	}
	s := &IndexSnapshot{}
	for _, e := range idx.Entries {
		s.entries = append(s.entries, IndexEntry{Path: e.Name, Hash: e.Hash, Mode: e.Mode, Stage: int(e.Stage), SkipWorktree: e.SkipWorktree})
	}
	sort.SliceStable(s.entries, func(i, j int) bool { return s.entries[i].Path < s.entries[j].Path })
	return s, nil
}

// Stages returns the entries at p (one at stage 0, or the conflict stages).
func (s *IndexSnapshot) Stages(p string) []IndexEntry {
	i := sort.Search(len(s.entries), func(i int) bool { return s.entries[i].Path >= p })
	j := i
	for j < len(s.entries) && s.entries[j].Path == p {
		j++
	}
	return s.entries[i:j]
}

// HasDir reports whether any entry lives under dir/.
func (s *IndexSnapshot) HasDir(dir string) bool {
	pre := dir + "/"
	i := sort.Search(len(s.entries), func(i int) bool { return s.entries[i].Path >= pre })
	return i < len(s.entries) && strings.HasPrefix(s.entries[i].Path, pre)
}
