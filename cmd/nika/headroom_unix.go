//go:build unix

package main

import (
	"fmt"

	"golang.org/x/sys/unix"

	"github.com/nika-dev/nika/refusal"
)

// minFreeFiles is how many descriptors nika needs free to run at all: the
// runtime's poller, the repository's files, a pack or two.
const minFreeFiles = 12

// fileHeadroom refuses (Io) when fewer than minFreeFiles descriptors are
// free under RLIMIT_NOFILE, naming the limit. It counts the open ones
// with fcntl only (opening /proc/self/fd would take one), and only where
// the limit is small enough for that to matter.
func fileHeadroom() error {
	var lim unix.Rlimit
	if unix.Getrlimit(unix.RLIMIT_NOFILE, &lim) != nil || lim.Cur == unix.RLIM_INFINITY || lim.Cur > 256 {
		return nil
	}
	open := 0
	for fd := 0; fd < int(lim.Cur); fd++ {
		if _, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0); err == nil {
			open++
		}
	}
	if free := int(lim.Cur) - open; free < minFreeFiles {
		return refusal.New(refusal.Io, fmt.Sprintf("raise the limit (ulimit -n %d, or more), then run nika again", open+64),
			"the limit on open files (RLIMIT_NOFILE) is %d and %d are open, which leaves %d: nika needs at least %d free to run", lim.Cur, open, free, minFreeFiles)
	}
	return nil
}
