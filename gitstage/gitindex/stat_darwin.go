//go:build darwin

package gitindex

import (
	"os"
	"syscall"
)

func statSys(fi os.FileInfo) (Stat, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok || st == nil {
		return Stat{}, false
	}
	return Stat{
		Ctime: Time{Sec: uint32(st.Ctimespec.Sec), Nsec: uint32(st.Ctimespec.Nsec)},
		Mtime: Time{Sec: uint32(st.Mtimespec.Sec), Nsec: uint32(st.Mtimespec.Nsec)},
		Dev:   uint32(st.Dev),
		Ino:   uint32(st.Ino),
		UID:   st.Uid,
		GID:   st.Gid,
		Size:  uint32(st.Size),
	}, true
}
