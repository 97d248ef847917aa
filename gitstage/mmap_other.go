//go:build !unix

package gitstage

import (
	"io"
	"os"
)

// mapFile reads the file where there is no mmap.
func mapFile(f *os.File, size int, populate bool) ([]byte, error) {
	b := make([]byte, size)
	_, err := io.ReadFull(f, b)
	return b, err
}

func unmapFile(b []byte) {}

// haveMmap false makes odb step aside for go-git: it would read whole packs.
const haveMmap = false
