package consent

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"

	"github.com/nika-dev/nika/refusal"
)

// fixedFiles is what an apply holds open besides its directories: the
// journal, index.lock, HEAD.lock and the branch's lock, one file being
// read or written, the index being read, and the Go runtime's poller
// (epoll and its wake-up descriptor), with room for the object database's
// pack files.
const fixedFiles = 16

// FilesNeeded is how many descriptors the transaction holds at most for
// a plan: one per directory it touches (held from the first operation in
// it to the end), the root, and fixedFiles.
func filesNeeded(ops []op) int {
	dirs := map[string]bool{}
	add := func(p string) {
		for d := dirOf(p); d != ""; d = dirOf(d) {
			dirs[d] = true
		}
	}
	for _, o := range ops {
		add(string(o.path))
		if o.tmp != "" {
			add(o.tmp)
		}
	}
	return len(dirs) + 1 + fixedFiles
}

// checkFiles refuses, before the first write, an apply that the limit on
// open files (RLIMIT_NOFILE) cannot carry: it would fail half way with
// EMFILE, or worse, the Go runtime would die when it cannot make its
// poller. The soft limit is raised towards the hard one first, as far as
// the apply needs; only when that is not enough does the apply refuse
// (Io), naming the limit and what it needs.
func checkFiles(ops []op) error {
	var lim unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NOFILE, &lim); err != nil {
		return nil // no limit to read: nothing to check
	}
	need := uint64(filesNeeded(ops) + openFiles(lim.Cur))
	if lim.Cur == unix.RLIM_INFINITY || lim.Cur >= need {
		return nil
	}
	if lim.Max == unix.RLIM_INFINITY || lim.Max >= need {
		raised := unix.Rlimit{Cur: need, Max: lim.Max}
		if unix.Setrlimit(unix.RLIMIT_NOFILE, &raised) == nil {
			return nil
		}
	}
	return &refusal.Error{Class: refusal.Io,
		Text: fmt.Sprintf("the limit on open files (RLIMIT_NOFILE) is %d, and this apply needs %d: %d directories held open, the files nika has open, and its own · nothing was applied",
			lim.Cur, need, filesNeeded(ops)-1-fixedFiles),
		Hint: fmt.Sprintf("raise the limit (ulimit -n %d, or more), then apply again", need)}
}

// openFiles counts the descriptors the process has open: the entries of
// /proc/self/fd where there is one (less the one reading it), else a probe
// of each descriptor below the soft limit.
func openFiles(soft uint64) int {
	if ents, err := os.ReadDir("/proc/self/fd"); err == nil {
		return len(ents) - 1
	}
	if soft > 1<<16 {
		soft = 1 << 16
	}
	n := 0
	for fd := 0; fd < int(soft); fd++ {
		if _, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0); err == nil {
			n++
		}
	}
	return n
}
