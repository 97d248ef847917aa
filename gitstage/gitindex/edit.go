package gitindex

import (
	"sort"
	"strings"
)

// Find returns the position of the stage-0 entry for path and true, or, if
// there is none, the position where it would be inserted and false. In that
// case Entries[i] may be a conflict entry (stage 1–3) for the same path.
func (ix *Index) Find(path string) (int, bool) {
	i, ok := ix.search(path, 0)
	if lz := ix.lz; lz != nil && lz.pre != nil {
		lz.pre.hint(lz.offsetAt(i))
	}
	return i, ok
}

// search is a binary search for (path, stage) in git's order.
func (ix *Index) search(path string, stage int) (int, bool) {
	if ix.lz != nil {
		return ix.lz.search(path, stage, ix.HashSize)
	}
	es := ix.Entries
	i := sort.Search(len(es), func(k int) bool {
		if es[k].Path != path {
			return es[k].Path > path
		}
		return es[k].Stage >= stage
	})
	return i, i < len(es) && es[i].Path == path && es[i].Stage == stage
}

// Set inserts or replaces the stage-0 entry e.Path, and removes any conflict
// entries (stages 1–3) of that path, as `git update-index --cacheinfo` does.
// It invalidates the cache-tree on the path.
//
// By calling Set the caller vouches that e.Stat, if not zero, describes a
// file whose content is e.Hash (fill it with StatInfo right after writing or
// hashing the file); a zero Stat makes git re-read the file. Set refuses an
// invalid path (as git's verify_path), a hash of the wrong size, a stage
// other than 0, an unknown mode, and a file/directory conflict with an
// existing entry (ErrDirFileConflict).
func (ix *Index) Set(e Entry) error {
	if err := checkPath(e.Path); err != nil {
		return err
	}
	if len(e.Hash) != ix.HashSize {
		return invalid("%q: a %d-byte object id in an index of %d-byte ids", e.Path, len(e.Hash), ix.HashSize)
	}
	if e.Stage != 0 {
		return invalid("%q: Set writes stage-0 entries only, not stage %d", e.Path, e.Stage)
	}
	switch e.Mode {
	case ModeFile, ModeExecutable, ModeSymlink, ModeGitlink:
	default:
		return invalid("%q: mode %o is not a mode git stores", e.Path, e.Mode)
	}
	if err := ix.checkDirFile(e.Path); err != nil {
		return err
	}
	e.Hash = append([]byte(nil), e.Hash...)
	e.fresh = true

	lo, _ := ix.search(e.Path, 0)
	hi := lo
	for ix.samePath(hi, e.Path) {
		hi++
	}
	if lz := ix.lz; lz != nil {
		lz.splice(lo, hi, &e)
		if hi-lo != 1 {
			ix.pathsChanged = true
		}
		ix.changed = true
		ix.invalidateTree(e.Path)
		return nil
	}
	switch hi - lo {
	case 1:
		ix.Entries[lo] = e
	case 0:
		ix.Entries = append(ix.Entries, Entry{})
		copy(ix.Entries[lo+1:], ix.Entries[lo:])
		ix.Entries[lo] = e
		ix.pathsChanged = true
	default: // a conflict: stages 1–3 collapse into one stage-0 entry
		ix.Entries[lo] = e
		ix.Entries = append(ix.Entries[:lo+1], ix.Entries[hi:]...)
		ix.pathsChanged = true
	}
	ix.changed = true
	ix.invalidateTree(e.Path)
	return nil
}

// Remove removes every entry (all stages) of path, as `git rm --cached`
// does, and invalidates the cache-tree on the path. It reports whether there
// was an entry.
func (ix *Index) Remove(path string) bool {
	lo, _ := ix.search(path, 0)
	hi := lo
	for ix.samePath(hi, path) {
		hi++
	}
	if hi == lo {
		return false
	}
	if ix.lz != nil {
		ix.lz.splice(lo, hi, nil)
	} else {
		ix.Entries = append(ix.Entries[:lo], ix.Entries[hi:]...)
	}
	ix.changed, ix.pathsChanged = true, true
	ix.invalidateTree(path)
	return true
}

// checkDirFile refuses path if a leading directory of it is tracked as a
// file, or if files are tracked under path/ .
func (ix *Index) checkDirFile(path string) error {
	for i := strings.IndexByte(path, '/'); i >= 0; {
		dir := path[:i]
		if k, _ := ix.search(dir, 0); ix.samePath(k, dir) {
			return &dirFileError{path: path, other: dir, otherIsFile: true}
		}
		j := strings.IndexByte(path[i+1:], '/')
		if j < 0 {
			break
		}
		i += 1 + j
	}
	prefix := path + "/"
	if k, _ := ix.search(prefix, 0); k < ix.Len() {
		if other := ix.pathAt(k); strings.HasPrefix(other, prefix) {
			return &dirFileError{path: path, other: other}
		}
	}
	return nil
}

// samePath reports whether entry i exists and has the given path.
func (ix *Index) samePath(i int, path string) bool {
	if ix.lz != nil {
		return ix.lz.samePath(i, path, ix.HashSize)
	}
	return i < len(ix.Entries) && ix.Entries[i].Path == path
}

// pathAt returns the path of entry i.
func (ix *Index) pathAt(i int) string {
	if ix.lz != nil {
		return ix.lz.pathAt(i, ix.HashSize)
	}
	return ix.Entries[i].Path
}

type dirFileError struct {
	path, other string
	otherIsFile bool
}

func (e *dirFileError) Error() string {
	if e.otherIsFile {
		return "gitindex: cannot add " + strquote(e.path) + ": its directory " + strquote(e.other) +
			" is tracked as a file · remove " + strquote(e.other) + " from the index first"
	}
	return "gitindex: cannot add " + strquote(e.path) + " as a file: it is a tracked directory (" +
		strquote(e.other) + " is in it) · remove the files under it from the index first"
}

func (e *dirFileError) Is(target error) bool { return target == ErrDirFileConflict }

// checkPath refuses what git's verify_path refuses: an empty path, a
// leading, trailing or doubled slash, "." and ".." components, a ".git"
// component in any case, and NUL bytes.
func checkPath(p string) error {
	if p == "" {
		return invalid("an empty path")
	}
	if strings.IndexByte(p, 0) >= 0 {
		return invalid("%s contains a NUL byte", strquote(p))
	}
	for _, comp := range strings.Split(p, "/") {
		switch {
		case comp == "":
			return invalid("%s has an empty component (a leading, trailing or doubled slash)", strquote(p))
		case comp == "." || comp == "..":
			return invalid("%s has a %q component", strquote(p), comp)
		case strings.EqualFold(comp, ".git"):
			return invalid("%s has a .git component", strquote(p))
		}
	}
	return nil
}

// Racy lists the entries Encode would smudge as racily clean: entries that
// Set did not write, whose mtime is not older than the index file's (in
// whole seconds), and which git would otherwise trust from their stat
// data.
func (ix *Index) Racy() []int {
	if ix.ModTime.IsZero() || ix.noSmudge {
		return nil
	}
	if ix.lz != nil {
		return ix.lz.racy(ix)
	}
	racySec := uint32(ix.ModTime.Unix())
	var out []int
	for i := range ix.Entries {
		e := &ix.Entries[i]
		if !e.fresh && e.Size != 0 && racySec <= e.Mtime.Sec && !e.AssumeValid && !e.SkipWorktree &&
			(e.Mode&modeTypeMask == 0o100000 || e.Mode&modeTypeMask == ModeSymlink) {
			out = append(out, i)
		}
	}
	return out
}

// Vouch marks entry i as checked by the caller: its file's stat data is
// Stat and its content is Hash, so Encode keeps its stat data instead of
// smudging it (as git does after comparing a racy entry's content).
func (ix *Index) Vouch(i int) {
	if ix.lz != nil {
		ix.lz.vouch(i)
		return
	}
	ix.Entries[i].fresh = true
}
