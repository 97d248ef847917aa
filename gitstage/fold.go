package gitstage

import (
	"sort"
	"strings"

	"github.com/nika-dev/nika/changeset"
)

// Folds implements changeset.Folder over the index: it finds an entry, or a
// directory of entries, that equals p or one of p's directories under
// changeset.FoldKey but not byte for byte. It looks only at the names in
// the directories along p: the index is sorted, so each directory's
// children are one run, and a subdirectory's run is skipped by a binary
// search. Cost: O(depth × width × log n), never a scan of the index.
func (b *Base) Folds(p changeset.Path) (changeset.Path, bool) {
	if b.index == nil || (b.index.ix == nil && b.index.sc == nil) {
		return "", false
	}
	comps := p.Components()
	dir := ""
	for _, c := range comps {
		key := changeset.FoldKey(c)
		var hit string
		b.index.children(dir, func(name string) bool {
			if name != c && changeset.FoldKey(name) == key {
				hit = name
				return false
			}
			return true
		})
		if hit != "" {
			if dir == "" {
				return changeset.Path(hit), true
			}
			return changeset.Path(dir + "/" + hit), true
		}
		if dir == "" {
			dir = c
		} else {
			dir += "/" + c
		}
	}
	return "", false
}

// children calls fn with each distinct name directly under dir ("" is the
// root) in the index, until fn returns false.
func (s *IndexSnapshot) children(dir string, fn func(name string) bool) {
	if s.sc != nil {
		s.sc.children(dir, fn)
		return
	}
	es := s.ix.Entries
	pre := ""
	if dir != "" {
		pre = dir + "/"
	}
	i := sort.Search(len(es), func(i int) bool { return es[i].Path >= pre })
	for i < len(es) && strings.HasPrefix(es[i].Path, pre) {
		rest := es[i].Path[len(pre):]
		name, _, isDir := strings.Cut(rest, "/")
		if !fn(name) {
			return
		}
		if !isDir {
			i++
			for i < len(es) && es[i].Path == pre+name { // conflict stages
				i++
			}
			continue
		}
		// Every entry under pre+name+"/" sorts before pre+name+"0".
		end := pre + name + "0"
		i += sort.Search(len(es)-i, func(j int) bool { return es[i+j].Path >= end })
	}
}
