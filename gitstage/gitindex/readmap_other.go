//go:build !unix

package gitindex

import "os"

func mapIndex(f *os.File, size int64) ([]byte, func(), error) { return readIndexBytes(f, size) }
