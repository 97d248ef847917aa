package gitindex

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestLock: git's lock protocol for the index.
func TestLock(t *testing.T) {
	t.Run("a held lock refuses a second writer with the path and the fix", func(t *testing.T) {
		index := filepath.Join(t.TempDir(), "index")
		l, err := LockIndex(index, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer l.Rollback()
		_, err = LockIndex(index, 20*time.Millisecond)
		var le *LockedError
		if !errors.Is(err, ErrLocked) || !errors.As(err, &le) || le.Path != index+".lock" {
			t.Fatalf("second LockIndex = %v, want a *LockedError for %s", err, index+".lock")
		}
		for _, s := range []string{index + ".lock", "another git process is running; if none is, remove " + index + ".lock"} {
			if !strings.Contains(err.Error(), s) {
				t.Errorf("error text %q does not contain %q", err, s)
			}
		}
	})
	t.Run("a stale lock file is refused", func(t *testing.T) {
		index := filepath.Join(t.TempDir(), "index")
		if err := os.WriteFile(index+".lock", nil, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := LockIndex(index, 0); !errors.Is(err, ErrLocked) {
			t.Fatalf("LockIndex = %v, want ErrLocked", err)
		}
		if _, err := os.Stat(index + ".lock"); err != nil {
			t.Errorf("the refusal removed someone else's lock: %v", err)
		}
	})
	t.Run("a lock released while waiting is taken", func(t *testing.T) {
		index := filepath.Join(t.TempDir(), "index")
		other, err := LockIndex(index, 0)
		if err != nil {
			t.Fatal(err)
		}
		go func() {
			time.Sleep(30 * time.Millisecond)
			other.Rollback()
		}()
		l, err := LockIndex(index, 10*time.Second)
		if err != nil {
			t.Fatalf("LockIndex with a wait: %v", err)
		}
		l.Rollback()
	})
	t.Run("commit renames the lock over the index", func(t *testing.T) {
		index := filepath.Join(t.TempDir(), "index")
		if err := os.WriteFile(index, []byte("old"), 0o644); err != nil {
			t.Fatal(err)
		}
		l, err := LockIndex(index, 0)
		if err != nil {
			t.Fatal(err)
		}
		l.Write([]byte("ne"))
		l.Write([]byte("w"))
		if got, _ := os.ReadFile(index); string(got) != "old" {
			t.Errorf("the index changed before Commit: %q", got)
		}
		if err := l.Commit(); err != nil {
			t.Fatal(err)
		}
		if got, _ := os.ReadFile(index); string(got) != "new" {
			t.Errorf("index = %q, want %q", got, "new")
		}
		if _, err := os.Stat(index + ".lock"); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("the lock file is still there: %v", err)
		}
		if err := l.Commit(); err == nil {
			t.Errorf("a second Commit succeeded")
		}
		if _, err := l.Write([]byte("x")); err == nil {
			t.Errorf("Write after Commit succeeded")
		}
		if err := l.Rollback(); err != nil {
			t.Errorf("Rollback after Commit: %v", err)
		}
		if got, _ := os.ReadFile(index); string(got) != "new" {
			t.Errorf("Rollback after Commit changed the index: %q", got)
		}
	})
	t.Run("rollback leaves the index as it was", func(t *testing.T) {
		index := filepath.Join(t.TempDir(), "index")
		os.WriteFile(index, []byte("old"), 0o644)
		l, err := LockIndex(index, 0)
		if err != nil {
			t.Fatal(err)
		}
		l.Write([]byte("new"))
		if err := l.Rollback(); err != nil {
			t.Fatal(err)
		}
		if got, _ := os.ReadFile(index); string(got) != "old" {
			t.Errorf("index = %q after Rollback", got)
		}
		if _, err := os.Stat(index + ".lock"); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("the lock file is still there")
		}
	})
	t.Run("a missing directory is an error, not ErrLocked", func(t *testing.T) {
		_, err := LockIndex(filepath.Join(t.TempDir(), "no", "index"), 0)
		if err == nil || errors.Is(err, ErrLocked) {
			t.Errorf("LockIndex = %v", err)
		}
	})
	t.Run("a missing index reads as an empty version 2 index", func(t *testing.T) {
		ix, err := ReadFile(filepath.Join(t.TempDir(), "index"), 20)
		if err != nil || ix.Version != 2 || len(ix.Entries) != 0 {
			t.Fatalf("ReadFile = %+v, %v", ix, err)
		}
		b, err := ix.Encode()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Decode(b, 20); err != nil {
			t.Fatal(err)
		}
	})
}

// TestLockWritesExactlyWhatIsWritten: the lock file is given its size up
// front for a large write (preallocation); the index renamed into place
// holds exactly the bytes written, after one large write and more, and
// after WriteTo of an index from Open, which equals its Encode.
func TestLockWritesExactlyWhatIsWritten(t *testing.T) {
	dir := t.TempDir()
	index := filepath.Join(dir, "index")
	big := bytes.Repeat([]byte("0123456789abcdef"), 1<<17) // 2 MiB
	l, err := LockIndex(index, 0)
	if err != nil {
		t.Fatal(err)
	}
	l.Write(big)
	l.Write([]byte("tail"))
	if err := l.Commit(); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(index); !bytes.Equal(got, append(big, "tail"...)) {
		t.Fatalf("the index holds %d bytes, want %d", len(got), len(big)+4)
	}

	raw, _ := synthetic(25_000, 2).Encode()
	if err := os.WriteFile(index, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	want, _ := decode(raw, 20)
	ix, err := Open(index, 20)
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range []*Index{ix, want} {
		e := x.At(12_345)
		e.Hash = bytes.Repeat([]byte{7}, 20)
		if err := x.Set(e); err != nil {
			t.Fatal(err)
		}
	}
	wantBytes, _ := want.Encode()
	l, err = LockIndex(index, 0)
	if err != nil {
		t.Fatal(err)
	}
	n, err := ix.WriteTo(l)
	if err != nil || n != int64(len(wantBytes)) {
		t.Fatalf("WriteTo = %d, %v", n, err)
	}
	if err := l.Commit(); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(index); !bytes.Equal(got, wantBytes) {
		t.Fatalf("the index written through the lock differs from Encode's at byte %d", firstDiff(got, wantBytes))
	}
	if _, err := Decode(wantBytes, 20); err != nil {
		t.Fatal(err)
	}
}
