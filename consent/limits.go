package consent

import (
	"fmt"

	"golang.org/x/sys/unix"

	"github.com/nika-dev/nika/refusal"
)

// fixedFiles is what an apply holds open besides its directories:
// standard input, output and error, the journal, index.lock, HEAD.lock
// and the branch's lock, one file being read or written, the index being
// read, and the Go runtime's poller (epoll and its wake-up descriptor),
// with room for the object database's pack files.
const fixedFiles = 20

// filesNeeded is how many descriptors the transaction needs at most for a
// plan: one per directory it touches (held from the first operation in it
// to the end), the root, and fixedFiles. It depends on the plan alone, so
// that the check before the question and the apply under its locks refuse
// alike.
func filesNeeded(ops []op) (need, dirs int) {
	seen := map[string]bool{}
	add := func(p string) {
		for d := dirOf(p); d != "" && !seen[d]; d = dirOf(d) {
			seen[d] = true
		}
	}
	for _, o := range ops {
		add(string(o.path))
		if o.tmp != "" {
			add(o.tmp)
		}
	}
	return len(seen) + 1 + fixedFiles, len(seen)
}

// checkFiles refuses, before the first write, an apply that the limit on
// open files (RLIMIT_NOFILE) cannot carry: it would fail half way with
// EMFILE, or worse, the Go runtime would die when it cannot make its
// poller. The soft limit is raised towards the hard one first, as far as
// the apply needs; only when that is not enough does the apply refuse
// (Io), naming the limit and what it needs.
func checkFiles(ops []op) error {
	var lim unix.Rlimit
	if err := getrlimit(&lim); err != nil {
		return nil // no limit to read: nothing to check
	}
	n, dirs := filesNeeded(ops)
	need := uint64(n)
	if lim.Cur == unix.RLIM_INFINITY || lim.Cur >= need {
		return nil
	}
	if lim.Max == unix.RLIM_INFINITY || lim.Max >= need {
		raised := unix.Rlimit{Cur: need, Max: lim.Max}
		if setrlimit(&raised) == nil {
			return nil
		}
	}
	return &refusal.Error{Class: refusal.Io,
		Text: fmt.Sprintf("the limit on open files (RLIMIT_NOFILE) is %d, and this apply needs %d: %d directories it holds open while it writes, and %d for nika itself · nothing was applied",
			lim.Cur, need, dirs+1, fixedFiles),
		Hint: fmt.Sprintf("raise the limit (ulimit -n %d, or more), then apply again", need)}
}

// getrlimit and setrlimit read and set RLIMIT_NOFILE (tests replace them).
var (
	getrlimit = func(l *unix.Rlimit) error { return unix.Getrlimit(unix.RLIMIT_NOFILE, l) }
	setrlimit = func(l *unix.Rlimit) error { return unix.Setrlimit(unix.RLIMIT_NOFILE, l) }
)
