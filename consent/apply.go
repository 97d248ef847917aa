package consent

import (
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"golang.org/x/sys/unix"

	"github.com/nika-dev/nika/changeset"
	"github.com/nika-dev/nika/gitstage"
	"github.com/nika-dev/nika/gitstage/gitindex"
	"github.com/nika-dev/nika/refusal"
	"github.com/nika-dev/nika/safefs"
)

// Options tune an apply.
type Options struct {
	// Sync fsyncs each file and its directory before the branch moves
	// (git's core.fsync); off by default, as in git.
	Sync bool
	// Fault, when set, is called before each step of the transaction with
	// the step's name and, for per-file steps, the file's index; a non-nil
	// error makes that step fail. Tests use it to prove rollback.
	Fault func(step string, i int) error
	// Inject, when set, is called before each filesystem operation on the
	// working tree and before the index and ref writes (see
	// safefs.Root.Inject); fault-injection tests fail operations with it.
	Inject func(op, path string) error
	// Interrupted, when set, is asked before each step until the branch
	// moves; true rolls the apply back (a door sets it on SIGINT/SIGTERM).
	Interrupted func() bool
}

// ErrInterrupted is the cause of an apply rolled back on a signal.
var ErrInterrupted = errors.New("interrupted by a signal")

// Result says what an apply did.
type Result struct {
	Commit string
	Paths  []changeset.Path // every path written or removed, in order
}

// op is one filesystem step: write Path with After, or remove it.
type op struct {
	path    changeset.Path
	before  *changeset.Side // nil: the path must be absent
	after   *changeset.Side // nil: the path is removed
	tmp     string          // the temp file (write) or the backup (removal)
	created []string        // directories the write made
	done    bool            // renamed into place (write) or aside (removal)
	swapped bool            // done by exchange: tmp holds the old bytes
}

// Apply carries out a consented proposal: verify, write, index, ref. It
// refuses with nothing written when HEAD, the branch or any witnessed byte
// moved since the preview.
func Apply(r *gitstage.Repo, rec *gitstage.Record, p *changeset.Proposal, opt Options) (*Result, error) {
	fault := func(step string, i int) error {
		failpoint(step, i)
		if opt.Interrupted != nil && opt.Interrupted() {
			return &refusal.Error{Class: refusal.Io, Err: ErrInterrupted,
				Text: "the apply was interrupted by a signal", Hint: "run nika apply again when you want it"}
		}
		if opt.Fault == nil {
			return nil
		}
		return opt.Fault(step, i)
	}
	root, err := safefs.Open(r.Root)
	if err != nil {
		return nil, ioErr("open the working tree", err)
	}
	defer root.Close()
	root.Inject = opt.Inject

	// 1. Locks, in git commit's order: the index, then HEAD and the branch.
	ilock, err := gitindex.LockIndex(r.IndexPath(), gitstage.LockWait)
	if err != nil {
		if errors.Is(err, gitindex.ErrLocked) {
			return nil, &refusal.Error{Class: refusal.Locked, Err: err,
				Text: ".git/index.lock exists: another git process is using the repository",
				Hint: "wait for it to finish; if no git process is running, remove .git/index.lock"}
		}
		return nil, ioErr("lock the index", err)
	}
	defer ilock.Rollback()
	base := plumbing.ZeroHash
	if p.Set.Base != "" {
		base = plumbing.NewHash(p.Set.Base)
	}
	rl, err := r.LockRef(rec.Branch, base)
	if err != nil {
		return nil, err
	}
	defer rl.Rollback()
	if err := fault("locked", 0); err != nil {
		return nil, err
	}

	// 2. Verify every witness under the locks, before the first write.
	ix, err := gitindex.Open(r.IndexPath(), 20)
	if err != nil {
		return nil, indexErr(err)
	}
	if err := r.InProgress(); err != nil {
		return nil, err
	}
	if path, ok := ix.Unmerged(); ok {
		return nil, refusal.New(refusal.Dirty, "resolve the conflict and commit first, then rebuild the preview",
			"%s has an unresolved merge conflict · nothing was applied", changeset.Quote(path))
	}
	ops := plan(p)
	removed := map[string]bool{}
	for _, o := range ops {
		if o.after == nil {
			removed[string(o.path)] = true
		}
	}
	for i := range ops {
		if err := verify(root, ix, &ops[i], removed); err != nil {
			return nil, err
		}
	}
	commit := plumbing.NewHash(p.Commit)
	if !r.HasObject(commit) {
		return nil, refusal.New(refusal.NotFound, "rebuild the preview with nika propose",
			"the proposal commit %s is missing from the object database (pruned by git gc?) · nothing was applied", p.Commit)
	}

	// 3. The journal, before the first write: enough to finish or undo.
	j := &journal{Version: 1, ID: p.ID, Commit: p.Commit, Base: p.Set.Base, Branch: rec.Branch, Goal: p.Set.Goal,
		Locks: stampLocks(r, append([]string{ilock.Path()}, rl.LockFiles()...))}
	for i := range ops {
		o := &ops[i]
		j.Ops = append(j.Ops, jop{Path: string(o.path), Before: sideOf(o.before), After: sideOf(o.after), Temp: tempFor(p.ID, i, o)})
	}
	jf, err := openJournal(r, j)
	if err != nil {
		return nil, err
	}
	tx := &txn{root: root, ops: ops, sync: opt.Sync, id: p.ID}
	defer func() {
		if !tx.keepJournal {
			closeJournal(r, p.ID, jf)
		} else {
			jf.Close()
		}
	}()
	if err := fault("journaled", 0); err != nil {
		return nil, err
	}

	// 4. Write, each file through a temp file and a swap or rename in its
	// directory.
	for i := range ops {
		if err := fault("write", i); err != nil {
			return nil, tx.rollback(fmt.Errorf("write %s: %w", ops[i].path, err))
		}
		if err := tx.do(i, &ops[i]); err != nil {
			return nil, tx.rollback(err)
		}
		failpoint("renamed", i)
	}
	if err := fault("written", 0); err != nil {
		return nil, tx.rollback(err)
	}

	// 5. The index: only the touched entries change.
	for _, o := range ops {
		if o.after == nil {
			ix.Remove(string(o.path))
		}
	}
	for _, o := range ops {
		if o.after == nil {
			continue
		}
		info, err := root.Lstat(string(o.path))
		if err != nil {
			return nil, tx.rollback(err)
		}
		h, _ := hex.DecodeString(o.after.Blob)
		if err := ix.Set(gitindex.Entry{Path: string(o.path), Mode: uint32(o.after.Mode), Hash: h, Stat: statOf(&info.Stat)}); err != nil {
			return nil, tx.rollback(err)
		}
	}
	vouchRacy(root, ix)
	if err := fault("index", 0); err != nil {
		return nil, tx.rollback(err)
	}
	if err := inject(opt, "write", "index.lock"); err != nil {
		return nil, tx.rollback(ioErr("write the index", err))
	}
	if _, err := ix.WriteTo(ilock); err != nil {
		return nil, tx.rollback(err)
	}
	if err := fault("index-written", 0); err != nil {
		return nil, tx.rollback(err)
	}
	if opt.Sync {
		if err := ilock.Sync(); err != nil {
			return nil, tx.rollback(err)
		}
	}

	sig, err := r.Signature("committer")
	if err != nil {
		return nil, tx.rollback(err)
	}

	// 6. The index is renamed before the branch moves. git commit does the
	// reverse, but git reads the index before it takes index.lock: a git
	// commit that read HEAD after the branch moved but the index before
	// the rename would then write back an index that lacks this apply.
	// With the index first, such a commit read HEAD before the branch
	// moved, and its compare-and-swap fails. A rollback from here on also
	// restores the index entries.
	err = inject(opt, "rename", "index")
	if err == nil {
		err = ilock.Commit()
	}
	if err != nil {
		return nil, tx.rollback(ioErr("write the index", err))
	}
	tx.indexed = true
	tx.r, tx.journal = r, j
	r.RememberWritten(ix) // the next propose skips its scan of this index
	failpoint("index-renamed", 0)

	// 7. The branch moves by compare-and-swap, with its reflog entry.
	if err := fault("ref", 0); err != nil {
		return nil, tx.rollback(err)
	}
	if err := inject(opt, "rename", rl.Name+".lock"); err != nil {
		return nil, tx.rollback(ioErr("move the branch", err))
	}
	if err := rl.Move(commit); err != nil {
		return nil, tx.rollback(err)
	}
	// The branch moved: the apply is committed. From here a crash is
	// finished forward by nika recover, never rolled back.
	failpoint("ref-renamed", 0)
	if err := rl.Log(commit, sig, fmt.Sprintf("nika: apply %s: %s", p.ID, firstLine(p.Set.Goal))); err != nil {
		return nil, err
	}
	failpoint("reflogged", 0)
	rec.State, rec.Decided = gitstage.Applied, time.Now().Unix()
	recErr := r.SaveRecord(rec)
	if left := tx.finish(); len(left) > 0 {
		// Applied, but our temp files could not be removed: the journal
		// stays, so that nika recover removes them.
		tx.keepJournal = true
		return nil, &refusal.Error{Class: refusal.Io,
			Text: fmt.Sprintf("the proposal was applied, but nika could not remove its temp files %s", strings.Join(left, ", ")),
			Hint: "fix the cause, then run nika recover to remove them"}
	}
	if recErr != nil {
		return nil, recErr
	}
	res := &Result{Commit: p.Commit}
	for _, o := range ops {
		res.Paths = append(res.Paths, o.path)
	}
	return res, nil
}

// vouchRacy does what git does before it smudges a racily clean entry: it
// compares the file with the entry. An entry whose file still has the
// recorded stat data and content keeps its stat data; the others are
// smudged by Encode, so git looks at them again. Only the entries written
// in the same second as the index are read (typically the previous apply's
// own files), so the cost follows the change.
func vouchRacy(root *safefs.Root, ix *gitindex.Index) {
	for _, i := range ix.Racy() {
		e := ix.At(i)
		if e.Mode != uint32(changeset.ModeFile) && e.Mode != uint32(changeset.ModeExecutable) {
			continue
		}
		info, err := root.Lstat(e.Path)
		if err != nil || !info.Regular || statOf(&info.Stat) != e.Stat {
			continue
		}
		b, err := root.ReadFile(e.Path)
		if err != nil || hex.EncodeToString(e.Hash) != gitstage.BlobHash(b).String() {
			continue
		}
		ix.Vouch(i)
	}
}

func inject(opt Options, op, path string) error {
	if opt.Inject == nil {
		return nil
	}
	if err := opt.Inject(op, path); err != nil {
		return &fs.PathError{Op: op, Path: path, Err: err}
	}
	return nil
}

// plan expands changes into filesystem ops: removals first (a file may give
// way to a directory), then writes, each in path order.
func plan(p *changeset.Proposal) []op {
	var rm, wr []op
	for _, c := range p.Set.Changes {
		switch c.Kind {
		case changeset.Delete:
			rm = append(rm, op{path: c.Path, before: c.Before})
		case changeset.Move:
			rm = append(rm, op{path: c.From, before: c.Before})
			wr = append(wr, op{path: c.Path, after: c.After})
		default:
			wr = append(wr, op{path: c.Path, before: c.Before, after: c.After})
		}
	}
	sort.Slice(rm, func(i, j int) bool { return rm[i].path < rm[j].path })
	sort.Slice(wr, func(i, j int) bool { return wr[i].path < wr[j].path })
	return append(rm, wr...)
}

func stale(text string) error {
	return refusal.New(refusal.StaleRevision, "rebuild the preview with nika propose",
		"the project changed since this preview (%s) · nothing was applied", text)
}

// verify checks one op's witness against the index and the disk. removed
// holds the paths the plan removes, which may stand where a create goes (a
// file replaced by a directory, or the reverse).
func verify(root *safefs.Root, ix *gitindex.Index, o *op, removed map[string]bool) error {
	q := changeset.Quote(string(o.path))
	info, err := root.Lstat(string(o.path))
	if err != nil {
		if errors.Is(err, safefs.ErrSymlink) {
			return refusal.New(refusal.NotAllowed, "remove the symlink, then rebuild the preview",
				"%s now passes through a symlink · nothing was applied", q)
		}
		if !isNotDir(err) {
			return ioErr("inspect "+q, err)
		}
		if o.before == nil && parentRemoved(o.path, removed) {
			return nil
		}
		return stale(q + " has a file where its directory should be")
	}
	i, inIndex := ix.Find(string(o.path))
	if o.before == nil {
		if info.Exists && !(info.Dir && childRemoved(o.path, removed)) {
			return stale(q + " now exists")
		}
		if inIndex {
			return stale(q + " was added to the index")
		}
		return nil
	}
	if !info.Exists {
		return stale(q + " was deleted")
	}
	if !info.Regular {
		return stale(q + " is no longer a regular file")
	}
	if !inIndex || hex.EncodeToString(ix.At(i).Hash) != o.before.Blob {
		return stale(q + " changed in the index")
	}
	b, err := root.ReadFile(string(o.path))
	if err != nil {
		return ioErr("read "+q, err)
	}
	if changeset.WitnessOf(b) != o.before.Witness {
		return stale(q + " was edited")
	}
	return nil
}

func parentRemoved(p changeset.Path, removed map[string]bool) bool {
	for d := p.Dir(); d != ""; d = changeset.Path(d).Dir() {
		if removed[d] {
			return true
		}
	}
	return false
}

func childRemoved(p changeset.Path, removed map[string]bool) bool {
	for r := range removed {
		if strings.HasPrefix(r, string(p)+"/") {
			return true
		}
	}
	return false
}

type txn struct {
	root *safefs.Root
	ops  []op
	sync bool
	id   string
	// keepJournal is set when the rollback could not finish: the journal
	// stays for nika recover.
	keepJournal bool
	// indexed is set once the index holds this apply's entries: a rollback
	// then puts the before entries back (with r and journal).
	indexed bool
	r       *gitstage.Repo
	journal *journal
}

func perm(m changeset.Mode) os.FileMode {
	if m == changeset.ModeExecutable {
		return 0o755
	}
	return 0o644
}

// tempFor names op i's temp file: beside the target for a write (so the
// swap is one rename in one directory), at the root for a removal's backup
// (so the removed file's directory can disappear). The names derive from
// the proposal id, so that recovery finds them from the journal.
func tempFor(id string, i int, o *op) string {
	if o.after == nil {
		return fmt.Sprintf(".nika-%s-%d.removed", id[:12], i)
	}
	name := o.path.Base()
	if len(name) > 200 {
		name = name[:200]
	}
	t := fmt.Sprintf(".%s.nika-%s", name, id[:12])
	if d := o.path.Dir(); d != "" {
		t = d + "/" + t
	}
	return t
}

// do carries out one op.
//
// An update writes the new bytes to a temp file beside the target and swaps
// the two names atomically (renameat2 RENAME_EXCHANGE); the swapped-out
// bytes, now under the temp name, are checked against the witness, and on a
// mismatch (an editor wrote the file after the witness check) the names
// are swapped back and the apply refuses. The old bytes stay under the temp
// name until the apply is final, so a rollback is one more swap. A create
// lands with RENAME_NOREPLACE, so it can never replace a file that appeared
// meanwhile. A removal renames the file aside, checks what it moved, and
// drops the directories it emptied. Where the filesystem cannot exchange,
// the witness is re-checked under the lock just before a plain rename; the
// window between that check and the rename is the one git itself has.
func (t *txn) do(i int, o *op) error {
	p := string(o.path)
	q := changeset.Quote(p)
	o.tmp = tempFor(t.id, i, o)
	if o.after == nil {
		if err := t.root.RenameAcross(p, o.tmp); err != nil {
			o.tmp = ""
			return ioErr("remove "+q, err)
		}
		o.done = true
		if b, err := t.root.ReadFile(o.tmp); err != nil || changeset.WitnessOf(b) != o.before.Witness {
			if err := t.root.RenameAcross(o.tmp, p); err == nil {
				o.done, o.tmp = false, ""
			}
			if err != nil {
				return ioErr("check the bytes removed from "+q, err)
			}
			return stale(q + " was edited during the apply")
		}
		for dir := o.path.Dir(); dir != ""; dir = changeset.Path(dir).Dir() {
			if t.root.RemoveDir(dir) != nil {
				break
			}
		}
		return nil
	}
	tmp, created, err := t.root.WriteTempNamed(p, changeset.Path(o.tmp).Base(), o.after.Bytes, perm(o.after.Mode), t.sync)
	o.created = created
	if err != nil {
		o.tmp = ""
		return ioErr("write "+q, err)
	}
	o.tmp = tmp
	if o.before == nil {
		if err := t.root.RenameNoReplace(tmp, p); err != nil {
			if errors.Is(err, fs.ErrExist) {
				return stale(q + " appeared during the apply")
			}
			if !errors.Is(err, safefs.ErrNoExchange) {
				return ioErr("write "+q, err)
			}
			if err := t.recheck(o); err != nil {
				return err
			}
			if err := t.root.Rename(tmp, p); err != nil {
				return ioErr("write "+q, err)
			}
		}
		o.tmp, o.done = "", true
	} else {
		err := t.root.Exchange(tmp, p)
		switch {
		case err == nil:
			o.done, o.swapped = true, true
			if b, err := t.root.ReadFile(tmp); err != nil || changeset.WitnessOf(b) != o.before.Witness {
				if t.root.Exchange(tmp, p) == nil {
					o.done, o.swapped = false, false
				}
				if err != nil {
					return ioErr("check the bytes replaced in "+q, err)
				}
				return stale(q + " was edited during the apply")
			}
		case errors.Is(err, safefs.ErrNoExchange):
			if err := t.recheck(o); err != nil {
				return err
			}
			if err := t.root.Rename(tmp, p); err != nil {
				return ioErr("write "+q, err)
			}
			o.tmp, o.done = "", true
		default:
			return ioErr("write "+q, err)
		}
	}
	if t.sync {
		if err := t.root.SyncDir(p); err != nil {
			return ioErr("sync the directory of "+q, err)
		}
	}
	return nil
}

func (t *txn) recheck(o *op) error {
	q := changeset.Quote(string(o.path))
	info, err := t.root.Lstat(string(o.path))
	if err != nil {
		return ioErr("inspect "+q, err)
	}
	if o.before == nil {
		if info.Exists {
			return stale(q + " appeared during the apply")
		}
		return nil
	}
	b, err := t.root.ReadFile(string(o.path))
	if err != nil || changeset.WitnessOf(b) != o.before.Witness {
		return stale(q + " was edited during the apply")
	}
	return nil
}

// rollback undoes this transaction's own writes, newest first, with renames
// only where it can (swap back, rename back), so that it needs no new bytes
// on a full disk. A file that no longer holds this transaction's bytes is
// left alone and reported. When rollback itself fails, the journal stays
// and nika recover finishes the undo.
func (t *txn) rollback(cause error) error {
	var kept, failed []string
	for i := len(t.ops) - 1; i >= 0; i-- {
		o := &t.ops[i]
		p := string(o.path)
		switch {
		case o.after != nil && !o.done:
			if o.tmp != "" {
				t.root.Remove(o.tmp)
			}
		case o.after != nil && o.done:
			b, err := t.root.ReadFile(p)
			if err != nil || changeset.WitnessOf(b) != o.after.Witness {
				kept = append(kept, p)
				if o.swapped {
					t.root.Remove(o.tmp) // the old bytes; git has them
				}
				break
			}
			switch {
			case o.swapped:
				if err := t.root.Exchange(o.tmp, p); err != nil {
					failed = append(failed, p)
					break
				}
				t.root.Remove(o.tmp)
			case o.before == nil:
				if err := t.root.Remove(p); err != nil {
					failed = append(failed, p)
				}
			default:
				tmp, _, err := t.root.WriteTemp(p, o.before.Bytes, perm(o.before.Mode), t.sync)
				if err == nil {
					err = t.root.Rename(tmp, p)
				}
				if err != nil {
					if tmp != "" {
						t.root.Remove(tmp)
					}
					failed = append(failed, p)
				}
			}
		case o.after == nil && o.done:
			info, err := t.root.Lstat(p)
			if err != nil || info.Exists {
				kept = append(kept, p)
				t.root.Remove(o.tmp) // the removed bytes; git has them
				break
			}
			if err := t.root.RenameAcross(o.tmp, p); err != nil {
				failed = append(failed, p)
			}
		}
		for j := len(o.created) - 1; j >= 0; j-- {
			t.root.RemoveDir(o.created[j]) // only if empty
		}
	}
	if t.indexed {
		if err := settleIndex(t.r, t.root, *t.journal, false); err != nil {
			failed = append(failed, "the index ("+err.Error()+")")
		}
	}
	switch {
	case len(failed) > 0:
		t.keepJournal = true
		return &refusal.Error{Class: refusal.RollbackIncomplete, Err: cause,
			Text: fmt.Sprintf("the apply failed (%v), and its rollback failed too on %s", cause, strings.Join(failed, ", ")),
			Hint: "fix the cause (free space, permissions), then run nika recover to finish the undo; the branch did not move"}
	case len(kept) > 0:
		return &refusal.Error{Class: refusal.RollbackIncomplete, Err: cause,
			Text: fmt.Sprintf("the apply failed (%v) and was rolled back, except %s, which another writer changed meanwhile and nika left as it is", cause, strings.Join(kept, ", ")),
			Hint: "look at those files, then run git status; the branch did not move"}
	}
	var ce *refusal.Error
	if errors.As(cause, &ce) {
		if !strings.Contains(ce.Text, "nothing was applied") {
			ce.Text += " · the apply was rolled back, nothing was applied"
		}
		return ce
	}
	return &refusal.Error{Class: refusal.Io, Err: cause,
		Text: fmt.Sprintf("the apply failed: %v · it was rolled back, nothing was applied", cause),
		Hint: "fix the cause, then run nika apply again"}
}

// finish removes the old bytes kept for a rollback, once the apply is
// final.
func (t *txn) finish() (left []string) {
	for _, o := range t.ops {
		if o.tmp != "" && (o.swapped || o.after == nil) {
			if err := t.root.Remove(o.tmp); err != nil && !errors.Is(err, fs.ErrNotExist) {
				left = append(left, fmt.Sprintf("%s (%v)", o.tmp, unwrapErr(err)))
			}
		}
	}
	return left
}

func unwrapErr(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

func statOf(st *unix.Stat_t) gitindex.Stat {
	return gitindex.Stat{
		Ctime: gitindex.Time{Sec: uint32(st.Ctim.Sec), Nsec: uint32(st.Ctim.Nsec)},
		Mtime: gitindex.Time{Sec: uint32(st.Mtim.Sec), Nsec: uint32(st.Mtim.Nsec)},
		Dev:   uint32(st.Dev), Ino: uint32(st.Ino), UID: st.Uid, GID: st.Gid, Size: uint32(st.Size),
	}
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}

func isNotDir(err error) bool { return errors.Is(err, unix.ENOTDIR) }

func ioErr(what string, err error) error {
	var ce *refusal.Error
	if errors.As(err, &ce) {
		return err
	}
	msg := err.Error()
	var pe *fs.PathError
	if errors.As(err, &pe) {
		msg = pe.Err.Error() // the path is repo-relative already in what
	}
	return &refusal.Error{Class: refusal.Io, Err: err, Text: fmt.Sprintf("could not %s: %s", what, msg),
		Hint: "fix the cause (permissions, free space, a read-only filesystem), then run nika apply again"}
}

func indexErr(err error) error { return gitstage.IndexError(err) }
