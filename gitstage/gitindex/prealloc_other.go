//go:build !linux

package gitindex

import "os"

func preallocate(f *os.File, size int64) {}
