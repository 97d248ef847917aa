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
