package gitindex

import (
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"time"
)

// ReadFile reads and decodes the index file at path, and records its
// modification time in ModTime (for racy-git smudging on Encode). A missing
// file is an empty version 2 index, as git treats it.
//
// To update the index, take the lock first, then read, then write:
//
//	l, err := gitindex.LockIndex(path, time.Second)
//	ix, err := gitindex.ReadFile(path, 20)
//	ix.Set(e) ...
//	b, err := ix.Encode()
//	l.Write(b); l.Commit()   // or l.Rollback() on any error
func ReadFile(path string, hashSize int) (*Index, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		if hashSize != 20 && hashSize != 32 {
			return nil, ErrHashSize
		}
		return New(hashSize), nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	b, release, err := mapIndex(f, fi.Size())
	if err != nil {
		return nil, fmt.Errorf("gitindex: reading %s: %w", path, err)
	}
	ix, err := Decode(b, hashSize)
	release()
	if err != nil {
		return nil, err
	}
	ix.ModTime = fi.ModTime()
	return ix, nil
}

func readIndexBytes(f *os.File, size int64) ([]byte, func(), error) {
	b := make([]byte, size)
	if _, err := readFull(f, b); err != nil {
		return nil, nil, err
	}
	return b, func() {}, nil
}

func readFull(f *os.File, b []byte) (int, error) {
	n := 0
	for n < len(b) {
		k, err := f.Read(b[n:])
		n += k
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// Lock is a held <index>.lock, taken the way git takes it: created with
// O_CREAT|O_EXCL, written, then renamed over the index (Commit) or removed
// (Rollback). Readers see the old index or the new one, never a mix.
type Lock struct {
	path     string // the index file
	lockPath string
	f        *os.File
	err      error // the first write error
	written  int64
	prealloc bool
	done     bool
}

// LockIndex creates indexPath+".lock" exclusively. If the lock file exists
// it retries with a growing, jittered backoff until timeout has passed (0:
// one attempt), then returns a *LockedError (errors.Is(err, ErrLocked)),
// whose text names the lock file and says what to do.
func LockIndex(indexPath string, timeout time.Duration) (*Lock, error) {
	lockPath := indexPath + ".lock"
	deadline := time.Now().Add(timeout)
	backoff := time.Millisecond
	for {
		f, err := os.OpenFile(lockPath, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
		if err == nil {
			return &Lock{path: indexPath, lockPath: lockPath, f: f}, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return nil, fmt.Errorf("gitindex: unable to create %s: %w", lockPath, err)
		}
		now := time.Now()
		if !now.Before(deadline) {
			return nil, &LockedError{Path: lockPath}
		}
		wait := backoff/2 + rand.N(backoff) // 0.5–1.5 × backoff
		if left := deadline.Sub(now); wait > left {
			wait = left
		}
		time.Sleep(wait)
		if backoff < 100*time.Millisecond {
			backoff *= 2
		}
	}
}

// Path returns the path of the lock file.
func (l *Lock) Path() string { return l.lockPath }

// Write appends p to the lock file.
func (l *Lock) Write(p []byte) (int, error) {
	if l.done {
		return 0, fmt.Errorf("gitindex: write to %s after commit or rollback", l.lockPath)
	}
	if l.written == 0 && len(p) >= 1<<20 {
		l.preallocate(int64(len(p))) // usually the whole index in one write
	}
	n, err := l.f.Write(p)
	l.written += int64(n)
	if err != nil && l.err == nil {
		l.err = err
	}
	return n, err
}

// preallocate gives the empty lock file its final size, once (see
// prealloc_linux.go).
func (l *Lock) preallocate(size int64) {
	if l.written == 0 && !l.done && !l.prealloc && size >= 1<<20 {
		l.prealloc = true
		preallocate(l.f, size)
	}
}

// Sync flushes the lock file to stable storage. git does not fsync the index
// by default (core.fsync); call Sync before Commit where durability matters.
func (l *Lock) Sync() error {
	if l.done {
		return fmt.Errorf("gitindex: sync of %s after commit or rollback", l.lockPath)
	}
	return l.f.Sync()
}

// Commit closes the lock file and renames it over the index. On any error
// the lock file is removed and the index is left as it was.
func (l *Lock) Commit() error {
	if l.done {
		return fmt.Errorf("gitindex: %s was already committed or rolled back", l.lockPath)
	}
	l.done = true
	err := l.err
	if cerr := l.f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(l.lockPath, l.path)
	}
	if err != nil {
		os.Remove(l.lockPath)
		return fmt.Errorf("gitindex: writing %s: %w", l.path, err)
	}
	return nil
}

// Rollback closes and removes the lock file, leaving the index as it was.
// It does nothing after Commit or a previous Rollback, so it can be
// deferred.
func (l *Lock) Rollback() error {
	if l.done {
		return nil
	}
	l.done = true
	l.f.Close()
	if err := os.Remove(l.lockPath); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("gitindex: removing %s: %w", l.lockPath, err)
	}
	return nil
}
