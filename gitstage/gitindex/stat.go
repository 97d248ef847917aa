package gitindex

import (
	"io/fs"
	"os"
)

// StatInfo returns the stat data that git records for a file, from the
// os.FileInfo of os.Lstat (not os.Stat: git never follows a symlink here).
// With it, git sees the file as clean without reading it. On Linux and
// macOS it uses the syscall.Stat_t of fi; elsewhere it fills only the
// mtime and size, and git re-reads the file once to refresh the rest.
func StatInfo(fi os.FileInfo) Stat {
	if st, ok := statSys(fi); ok {
		return st
	}
	mt := fi.ModTime()
	t := Time{Sec: uint32(mt.Unix()), Nsec: uint32(mt.Nanosecond())}
	return Stat{Ctime: t, Mtime: t, Size: uint32(fi.Size())}
}

// FileMode returns the index mode git would record for fi (from os.Lstat),
// as create_ce_mode does with core.fileMode true: a symlink, an executable
// (any owner execute bit) or a plain file; a directory is a gitlink. It
// returns 0 for other file types.
func FileMode(fi os.FileInfo) uint32 {
	m := fi.Mode()
	switch {
	case m&fs.ModeSymlink != 0:
		return ModeSymlink
	case m.IsDir():
		return ModeGitlink
	case m.IsRegular():
		if m&0o100 != 0 {
			return ModeExecutable
		}
		return ModeFile
	}
	return 0
}

// StatClean reports whether git would trust e as unchanged against the file
// described by fi (from os.Lstat) without reading it: the mode and the stat
// data match, e is not smudged (size 0 with a non-empty file), and e is not
// racily clean (its mtime is older than the index file's ModTime, in whole
// seconds; false when ModTime is unset). It is stricter than git's default core.checkStat (it compares
// every field but the device), so false means only "hash the file to know".
func (ix *Index) StatClean(e *Entry, fi os.FileInfo) bool {
	if FileMode(fi) != e.Mode || e.Stage != 0 || e.IntentToAdd {
		return false
	}
	st := StatInfo(fi)
	st.Dev = e.Dev
	if st != e.Stat {
		return false
	}
	if ix.ModTime.IsZero() || int64(e.Mtime.Sec) >= ix.ModTime.Unix() {
		return false
	}
	return true
}
