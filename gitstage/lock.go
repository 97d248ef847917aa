package gitstage

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/nika-dev/nika/refusal"
)

// Lock is git's lock file protocol: create <file>.lock exclusively, write
// the new content into it, then rename it over <file> (Commit) or remove it
// (Rollback). Readers never see a torn file, and a second writer fails on
// the exclusive create instead of racing.
type Lock struct {
	Path     string // the file being replaced
	LockPath string
	f        *os.File
	display  string
	done     bool
}

// LockWait is how long nika waits for a lock held by another process (a
// background git status takes index.lock briefly) before it refuses.
var LockWait = 2 * time.Second

// AcquireLock creates path.lock, retrying with backoff while another process
// holds it, up to wait. display names the file for a human (repo-relative).
func AcquireLock(path, display string, wait time.Duration) (*Lock, error) {
	lp := path + ".lock"
	deadline := time.Now().Add(wait)
	delay := 5 * time.Millisecond
	for {
		f, err := os.OpenFile(lp, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
		if err == nil {
			return &Lock{Path: path, LockPath: lp, f: f, display: display}, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			if errors.Is(err, fs.ErrNotExist) {
				if mkErr := os.MkdirAll(filepath.Dir(lp), 0o755); mkErr == nil {
					continue
				}
			}
			return nil, ioRefusal("lock "+display, err)
		}
		if time.Now().After(deadline) {
			return nil, LockedError(display, err)
		}
		time.Sleep(delay)
		if delay < 100*time.Millisecond {
			delay *= 2
		}
	}
}

// LockedError is the refusal for a lock that another process holds:
// display.lock exists. The apply and the read-only check before the
// question both give it, in the same words.
func LockedError(display string, err error) *refusal.Error {
	return &refusal.Error{Class: refusal.Locked, Err: err,
		Text: fmt.Sprintf("%s.lock exists: another git process is using the repository", display),
		Hint: fmt.Sprintf("wait for it to finish; if no git process is running, remove %s.lock", display)}
}

// WaitUnlocked waits, up to wait and with AcquireLock's backoff, until no
// path.lock exists, without taking it: the read-only check's view of a
// lock. It refuses with LockedError as AcquireLock would.
func WaitUnlocked(path, display string, wait time.Duration) error {
	deadline := time.Now().Add(wait)
	delay := 5 * time.Millisecond
	for {
		_, err := os.Lstat(path + ".lock")
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return ioRefusal("inspect "+display+".lock", err)
		}
		if time.Now().After(deadline) {
			return LockedError(display, fs.ErrExist)
		}
		time.Sleep(delay)
		if delay < 100*time.Millisecond {
			delay *= 2
		}
	}
}

// Write writes the new content into the lock file.
func (l *Lock) Write(b []byte) error {
	if _, err := l.f.Write(b); err != nil {
		return ioRefusal("write "+l.display+".lock", err)
	}
	return nil
}

// Sync flushes the lock file to stable storage.
func (l *Lock) Sync() error {
	if err := l.f.Sync(); err != nil {
		return ioRefusal("sync "+l.display+".lock", err)
	}
	return nil
}

// Commit renames the lock over the file.
func (l *Lock) Commit() error {
	if l.done {
		return nil
	}
	if err := l.f.Close(); err != nil {
		l.Rollback()
		return ioRefusal("write "+l.display+".lock", err)
	}
	if err := os.Rename(l.LockPath, l.Path); err != nil {
		l.Rollback()
		return ioRefusal("rename "+l.display+".lock", err)
	}
	l.done = true
	return nil
}

// Rollback removes the lock, leaving the file as it was. It is safe to call
// after Commit.
func (l *Lock) Rollback() {
	if l.done {
		return
	}
	l.done = true
	l.f.Close()
	os.Remove(l.LockPath)
}
