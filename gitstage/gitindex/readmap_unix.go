//go:build unix

package gitindex

import (
	"os"

	"golang.org/x/sys/unix"
)

// mapIndex maps an index file read-only for Decode (which keeps nothing of
// it), as git does: no zeroed buffer and no copy of a file that is tens of
// megabytes in a large repository. Small files are read.
func mapIndex(f *os.File, size int64) ([]byte, func(), error) {
	if size < 1<<20 || size > 1<<31 {
		return readIndexBytes(f, size)
	}
	b, err := unix.Mmap(int(f.Fd()), 0, int(size), unix.PROT_READ, unix.MAP_PRIVATE|populateFlag)
	if err != nil {
		return readIndexBytes(f, size)
	}
	return b, func() { unix.Munmap(b) }, nil
}
