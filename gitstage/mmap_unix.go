//go:build unix

package gitstage

import (
	"os"

	"golang.org/x/sys/unix"
)

// mapFile maps size bytes of f read-only (populated up front where the
// kernel can: the callers read the whole mapping or binary-search it).
func mapFile(f *os.File, size int, populate bool) ([]byte, error) {
	flags := unix.MAP_PRIVATE
	if populate {
		flags |= populateFlag
	}
	return unix.Mmap(int(f.Fd()), 0, size, unix.PROT_READ, flags)
}

func unmapFile(b []byte) { unix.Munmap(b) }

const haveMmap = true
