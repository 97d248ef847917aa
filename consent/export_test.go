package consent

import "golang.org/x/sys/unix"

// SetFileLimitForTest makes the transaction see soft and hard as its
// limit on open files (and fail to raise it), until the returned func
// restores the real one.
func SetFileLimitForTest(soft, hard uint64) (restore func()) {
	g, s := getrlimit, setrlimit
	getrlimit = func(l *unix.Rlimit) error { l.Cur, l.Max = soft, hard; return nil }
	setrlimit = func(*unix.Rlimit) error { return unix.EPERM }
	return func() { getrlimit, setrlimit = g, s }
}

// LastDirOpens is how many directories the last apply's working tree
// opened.
func LastDirOpens() int { return lastDirOpens }
