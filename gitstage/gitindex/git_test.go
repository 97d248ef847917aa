package gitindex

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestStatInfoIsWhatGitRecords: the stat data from StatInfo equals what
// `git add` records for a regular file, an executable and a symlink, and
// FileMode equals git's mode.
func TestStatInfoIsWhatGitRecords(t *testing.T) {
	r := newRepo(t)
	r.write("plain.txt", "plain\n")
	r.write("run.sh", "#!/bin/sh\n")
	if err := os.Chmod(filepath.Join(r.dir, "run.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("plain.txt", filepath.Join(r.dir, "link")); err != nil {
		t.Fatal(err)
	}
	r.age("plain.txt", "run.sh")
	r.git("add", ".")
	ix := r.decode()
	for _, p := range []string{"plain.txt", "run.sh", "link"} {
		i, ok := ix.Find(p)
		if !ok {
			t.Fatalf("%s not in the index", p)
		}
		fi, err := os.Lstat(filepath.Join(r.dir, p))
		if err != nil {
			t.Fatal(err)
		}
		if got, want := StatInfo(fi), ix.Entries[i].Stat; got != want {
			t.Errorf("%s: StatInfo = %+v, git recorded %+v", p, got, want)
		}
		if got, want := FileMode(fi), ix.Entries[i].Mode; got != want {
			t.Errorf("%s: FileMode = %o, git recorded %o", p, got, want)
		}
	}
}

// TestGitTrustsTheStatDataOfSetEntries: after nika stages a file it wrote,
// git neither re-reads it nor rewrites the index: `git status` leaves the
// index file untouched and reports the change as staged only.
func TestGitTrustsTheStatDataOfSetEntries(t *testing.T) {
	r := setupProject(t, "2")
	ix, err := ReadFile(r.indexPath(), r.hs)
	if err != nil {
		t.Fatal(err)
	}
	r.write("dir/sub/y.txt", "rewritten by nika\n")
	r.age("dir/sub/y.txt")
	if err := ix.Set(r.entryFor("dir/sub/y.txt", "rewritten by nika\n")); err != nil {
		t.Fatal(err)
	}
	r.commitIndex(ix)
	written := r.indexBytes()
	if got, want := r.git("status", "--porcelain"), "M  dir/sub/y.txt\n"; got != want {
		t.Errorf("git status --porcelain = %q, want %q", got, want)
	}
	if string(r.indexBytes()) != string(written) {
		t.Errorf("git status rewrote the index: it did not trust the stat data")
	}
}

// TestRacilyCleanEntriesAreSmudged: an entry that was racily clean in the
// index that was read (file mtime not older than the index's) may hide a
// same-size change; git re-checks such entries only while the index is not
// newer than the file. Rewriting the index makes it newer, so Encode writes
// size 0 for them, and git still sees the change. The control shows that
// without smudging git would report the modified file as clean.
func TestRacilyCleanEntriesAreSmudged(t *testing.T) {
	for _, smudge := range []bool{true, false} {
		name := "smudged"
		if !smudge {
			name = "control without smudging"
		}
		t.Run(name, func(t *testing.T) {
			r := newRepo(t)
			r.git("config", "core.trustctime", "false")
			r.git("config", "core.checkStat", "minimal")
			r.write("r.txt", "aaaa\n")
			r.write("other.txt", "o\n")
			r.age("r.txt", "other.txt")
			r.git("add", ".")
			r.git("commit", "-qm", "base")
			fi, _ := os.Lstat(filepath.Join(r.dir, "r.txt"))
			mt := fi.ModTime()
			// A same-size change with the same mtime, and an index no newer
			// than the file: r.txt is racily clean.
			r.write("r.txt", "bbbb\n")
			if err := os.Chtimes(filepath.Join(r.dir, "r.txt"), mt, mt); err != nil {
				t.Fatal(err)
			}
			if err := os.Chtimes(r.indexPath(), mt, mt); err != nil {
				t.Fatal(err)
			}

			ix, err := ReadFile(r.indexPath(), r.hs)
			if err != nil {
				t.Fatal(err)
			}
			ix.noSmudge = !smudge
			r.write("new.txt", "n\n")
			if err := ix.Set(r.entryFor("new.txt", "n\n")); err != nil {
				t.Fatal(err)
			}
			r.commitIndex(ix)

			status := r.git("status", "--porcelain")
			sees := strings.Contains(status, " M r.txt")
			if smudge && !sees {
				t.Errorf("git status does not see the change to r.txt:\n%s", status)
			}
			if !smudge && sees {
				t.Errorf("control: without smudging git should have been fooled; status:\n%s", status)
			}
		})
	}
}

// TestResolvingAConflictWithSet: Set on a conflicted path replaces its
// stages 1–3 with one merged entry, as `git add` does.
func TestResolvingAConflictWithSet(t *testing.T) {
	r := newRepo(t)
	r.write("f.txt", "base\n")
	r.git("add", ".")
	r.git("commit", "-qm", "base")
	r.git("checkout", "-qb", "other")
	r.write("f.txt", "other\n")
	r.git("commit", "-qam", "other")
	r.git("checkout", "-q", "main")
	r.write("f.txt", "main\n")
	r.git("commit", "-qam", "main")
	r.gitFails("merge", "other")

	ix, err := ReadFile(r.indexPath(), r.hs)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := ix.Find("f.txt"); ok || len(ix.Entries) != 3 {
		t.Fatalf("precondition: f.txt should be conflicted, entries:\n%s", lsFiles(ix))
	}
	r.write("f.txt", "resolved\n")
	if err := ix.Set(r.entryFor("f.txt", "resolved\n")); err != nil {
		t.Fatal(err)
	}
	r.commitIndex(ix)
	if got := r.git("ls-files", "-u"); got != "" {
		t.Errorf("git ls-files -u = %q, want no unmerged entries", got)
	}
	if got, want := r.git("status", "--porcelain"), "M  f.txt\n"; got != want {
		t.Errorf("git status --porcelain = %q, want %q", got, want)
	}
	r.git("commit", "-qm", "merge")
	r.git("fsck", "--strict")
}

// TestUntrackedCache: the untracked cache is kept when an existing entry is
// replaced and dropped when a path becomes tracked; git's status stays right
// and git rebuilds the cache.
func TestUntrackedCache(t *testing.T) {
	r := newRepo(t)
	r.git("config", "core.untrackedCache", "true")
	populate(r)
	r.git("commit", "-qm", "base")
	r.write("untracked.txt", "u\n")
	r.git("status", "--porcelain")
	if !slices.Contains(r.decode().Extensions(), "UNTR") {
		t.Fatalf("precondition: no untracked cache")
	}

	ix, _ := ReadFile(r.indexPath(), r.hs)
	r.write("a.txt", "changed\n")
	if err := ix.Set(r.entryFor("a.txt", "changed\n")); err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(ix.Extensions(), "UNTR") {
		t.Errorf("replacing an entry dropped the untracked cache")
	}
	if err := ix.Set(r.entryFor("untracked.txt", "u\n")); err != nil {
		t.Fatal(err)
	}
	if slices.Contains(ix.Extensions(), "UNTR") {
		t.Errorf("adding an entry kept the untracked cache")
	}
	r.commitIndex(ix)
	if got, want := r.git("status", "--porcelain"), "M  a.txt\nA  untracked.txt\n"; got != want {
		t.Errorf("git status --porcelain = %q, want %q", got, want)
	}
	if !slices.Contains(r.decode().Extensions(), "UNTR") {
		t.Errorf("git did not rebuild the untracked cache")
	}
}

// TestIntentToAddPromotesVersion2: an intent-to-add entry needs extended
// flags, so a version 2 index is written as version 3, as git does.
func TestIntentToAddPromotesVersion2(t *testing.T) {
	r := newRepo(t)
	populate(r)
	ix, _ := ReadFile(r.indexPath(), r.hs)
	r.write("later.txt", "later\n")
	e := Entry{Path: "later.txt", Mode: ModeFile, Hash: r.blob(""), IntentToAdd: true}
	if err := ix.Set(e); err != nil {
		t.Fatal(err)
	}
	r.commitIndex(ix)
	if v := r.decode().Version; v != 3 {
		t.Errorf("version = %d, want 3", v)
	}
	// git reads the entry as intent-to-add, exactly as after `git add -N`.
	if got := r.git("status", "--porcelain"); !strings.Contains(got, "\n A later.txt\n") {
		t.Errorf("git status --porcelain does not show later.txt as intent-to-add:\n%s", got)
	}
}

// TestGitRefusesWhileTheLockIsHeld: while nika holds index.lock, git's own
// writers refuse, and after Rollback they work again.
func TestGitRefusesWhileTheLockIsHeld(t *testing.T) {
	r := newRepo(t)
	populate(r)
	l, err := LockIndex(r.indexPath(), 0)
	if err != nil {
		t.Fatal(err)
	}
	r.write("more.txt", "m\n")
	if out := r.gitFails("add", "more.txt"); !strings.Contains(out, "index.lock") {
		t.Errorf("git add while locked: %s", out)
	}
	if err := l.Rollback(); err != nil {
		t.Fatal(err)
	}
	r.git("add", "more.txt")
}

// TestConcurrentReadersSeeWholeIndexes: git readers running while the index
// is rewritten again and again see the old or the new index, never a mix.
func TestConcurrentReadersSeeWholeIndexes(t *testing.T) {
	r := newRepo(t)
	populate(r)
	r.git("commit", "-qm", "base")
	stop := make(chan struct{})
	errs := make(chan string, 1)
	go func() {
		defer close(errs)
		for {
			select {
			case <-stop:
				return
			default:
			}
			out, err := r.cmd("ls-files", "-s").CombinedOutput()
			if err != nil || strings.Count(string(out), "\n") != 8 {
				errs <- string(out)
				return
			}
		}
	}()
	deadline := time.Now().Add(time.Second)
	for i := 0; time.Now().Before(deadline); i++ {
		ix, err := ReadFile(r.indexPath(), r.hs)
		if err != nil {
			t.Fatal(err)
		}
		c := strings.Repeat("x", i%7+1)
		e := Entry{Path: "z/last.txt", Mode: ModeFile, Hash: r.blob(c)}
		if err := ix.Set(e); err != nil {
			t.Fatal(err)
		}
		r.commitIndex(ix)
	}
	close(stop)
	if msg, bad := <-errs; bad {
		t.Fatalf("git ls-files failed during rewrites: %s", msg)
	}
}

// TestFsmonitorBitmapIsDroppedOnChange: FSMN is a bitmap by entry position;
// after an edit it is dropped (a stale one would make git trust entries it
// should check, or crash on a shorter index), and git's status stays right.
func TestFsmonitorBitmapIsDroppedOnChange(t *testing.T) {
	r := newRepo(t)
	populate(r)
	r.git("commit", "-qm", "base")
	r.fsmonitor()
	ix, _ := ReadFile(r.indexPath(), r.hs)
	if !slices.Contains(ix.Extensions(), "FSMN") {
		t.Fatalf("precondition: no FSMN")
	}
	ix.Remove("a/b.txt")
	if slices.Contains(ix.Extensions(), "FSMN") {
		t.Errorf("FSMN kept after an edit")
	}
	r.commitIndex(ix)
	if got, want := r.git("status", "--porcelain"), "D  a/b.txt\n?? a/b.txt\n"; got != want {
		t.Errorf("git status --porcelain = %q, want %q", got, want)
	}
}

// TestStatClean: StatClean trusts an entry exactly when the file is the one
// git recorded and the entry is not racy.
func TestStatClean(t *testing.T) {
	r := newRepo(t)
	r.write("f.txt", "f\n")
	r.write("g.txt", "g\n")
	r.write("racy.txt", "r\n")
	r.age("f.txt", "g.txt")
	r.git("add", ".")
	r.write("g.txt", "changed\n")
	r.age("g.txt")
	fut := time.Now().Add(time.Hour)
	os.Chtimes(filepath.Join(r.dir, "racy.txt"), fut, fut)
	r.git("update-index", "racy.txt") // recorded with an mtime newer than the index
	ix, err := ReadFile(r.indexPath(), r.hs)
	if err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]bool{"f.txt": true, "g.txt": false, "racy.txt": false} {
		i, _ := ix.Find(p)
		fi, err := os.Lstat(filepath.Join(r.dir, p))
		if err != nil {
			t.Fatal(err)
		}
		if got := ix.StatClean(&ix.Entries[i], fi); got != want {
			t.Errorf("StatClean(%s) = %v, want %v", p, got, want)
		}
	}
}
