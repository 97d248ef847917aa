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
	// Fault, when set, is called at each step of the transaction with the
	// step's name (locked, journaled, write with the file's index,
	// written, index, index-written, ref) and a non-nil error makes that
	// step fail. Tests use it to prove rollback.
	Fault func(step string, i int) error
	// Inject, when set, is called before each file operation on the
	// working tree (see Before) and before the index and ref writes
	// ("write index.lock", "rename index", "rename <ref>.lock");
	// fault-injection tests fail operations with it.
	Inject func(op, path string) error
	// Wrap, when set, decorates the working tree the transaction sees
	// (after Inject); racing-writer tests act through it.
	Wrap func(WorkTree) WorkTree
	// Interrupted, when set, is asked before each step until the branch
	// moves; true rolls the apply back (a door sets it on SIGINT/SIGTERM).
	Interrupted func() bool
}

// ErrInterrupted is the cause of an apply rolled back on a signal.
var ErrInterrupted = errors.New("interrupted by a signal")

var errExdev = unix.EXDEV

// Result says what an apply did.
type Result struct {
	Commit string
	Paths  []changeset.Path // every path written or removed, in order
}

// op is one filesystem step: write path with after, or remove it.
type op struct {
	path    changeset.Path
	before  *changeset.Side // nil: the path must be absent
	after   *changeset.Side // nil: the path is removed
	tmp     string          // the temp file (write) or the backup (removal), planned
	created []string        // directories the write made
	done    bool            // renamed into place (write) or aside (removal)
	swapped bool            // done by exchange: tmp holds the old bytes
	made    bool            // tmp exists and is this transaction's
	disk    []byte          // after's bytes as git's checkout converts them (after.Disk), made by verify
}

// Apply carries out a consented proposal. It runs the transaction's named
// phases, in order:
//
//	lock     the index, HEAD and the branch, in git commit's order
//	verify   the read-only check (Check) again, under the locks
//	sign     the signed twin, when git's configuration asks for signatures
//	journal  what a later process needs to finish or undo it
//	write    each file through a temp file and an atomic swap or rename
//	index    the touched entries, into index.lock, renamed over the index
//	ref      the branch moves to the commit, by compare-and-swap, with its reflog
//	finish   the record, the old bytes and backups, the journal
//
// over a WorkTree that holds each directory it touches open from its
// first operation to the end. It refuses with nothing written when HEAD,
// the branch or any witness moved since the preview; a failure after the
// first write rolls back this transaction's own writes (never another
// writer's), and a crash at any point is finished or undone by Recover.
func Apply(r *gitstage.Repo, rec *gitstage.Record, p *changeset.Proposal, opt Options) (*Result, error) {
	tx, err := begin(r, rec, p, opt)
	if err != nil {
		return nil, err
	}
	defer tx.close()
	if err := tx.lock(); err != nil {
		return nil, err
	}
	if err := tx.verify(); err != nil {
		return nil, err
	}
	if err := tx.sign(); err != nil {
		return nil, err
	}
	if err := tx.journal(); err != nil {
		return nil, err
	}
	if err := tx.write(); err != nil {
		return nil, tx.rollback(err)
	}
	if err := tx.index(); err != nil {
		return nil, tx.rollback(err)
	}
	// The branch moves to the proposal commit itself, or to its signed twin.
	if err := tx.ref(plumbing.NewHash(tx.p.Commit)); err != nil {
		return nil, err
	}
	return tx.finish()
}

// txn is one apply's state across its phases.
type txn struct {
	r   *gitstage.Repo
	rec *gitstage.Record
	p   *changeset.Proposal
	opt Options

	root  *safefs.Root // the held working tree
	wt    WorkTree     // root, decorated
	git   ledger       // the index and ref writes, decorated
	ilock *gitindex.Lock
	rl    *gitstage.RefLock
	ix    *gitindex.Index
	ops   []op
	co    *gitstage.Checkout // git's checkout conversion, opened when a side needs it

	j           *journal
	jf          *os.File
	keepJournal bool // the rollback could not finish, or residue is left: recover needs it
	indexed     bool // the index holds this apply's entries: a rollback restores them
	moved       bool // the branch moved: the apply is committed
	logErr      error
}

// begin plans the transaction and opens the working tree, held.
func begin(r *gitstage.Repo, rec *gitstage.Record, p *changeset.Proposal, opt Options) (*txn, error) {
	root, err := safefs.Hold(r.Root)
	if err != nil {
		return nil, ioErr("open the working tree", err)
	}
	tx := &txn{r: r, rec: rec, p: p, opt: opt, root: root, ops: plan(p)}
	var wt WorkTree = root
	if opt.Inject != nil {
		wt = Before(wt, opt.Inject)
	}
	if opt.Wrap != nil {
		wt = opt.Wrap(wt)
	}
	var idx map[string]int // the crash points' op numbers, in builds that have them
	if failpointsOn {
		idx = make(map[string]int, len(tx.ops))
		for i, o := range tx.ops {
			idx[string(o.path)] = i
		}
	}
	tx.wt = crashPoints(wt, idx)
	return tx, nil
}

// close releases whatever the transaction still holds: its locks, its
// journal (removed unless recovery needs it), its directories.
func (t *txn) close() {
	if t.co != nil {
		t.co.Close()
	}
	if t.rl != nil {
		t.rl.Rollback()
	}
	if t.ilock != nil {
		t.ilock.Rollback()
	}
	if t.jf != nil {
		if t.keepJournal {
			t.jf.Close()
		} else {
			closeJournal(t.r, t.p.ID, t.jf)
		}
	}
	lastDirOpens = t.root.Opens()
	t.wt.Close()
}

// lastDirOpens is how many directories the last transaction opened, for
// the benchmark and the test that proves each is opened once.
var lastDirOpens int

// step is the seam at each phase boundary: a crash point (failpoints
// builds), a signal, a test's fault.
func (t *txn) step(name string, i int) error {
	failpoint(name, i)
	if t.opt.Interrupted != nil && t.opt.Interrupted() {
		return (&refusal.Error{Class: refusal.Io, Err: ErrInterrupted,
			Text: "the apply was interrupted by a signal", Hint: "apply again when you want it"}).WithFix(refusal.ApplyAgain, t.p.ID)
	}
	if t.opt.Fault == nil {
		return nil
	}
	return t.opt.Fault(name, i)
}

// lock takes git's locks in git commit's order: the index, then HEAD and
// the branch HEAD is on. Which branch and commit the proposal needs is
// verify's question, asked under these locks.
func (t *txn) lock() error {
	l, err := gitindex.LockIndex(t.r.IndexPath(), gitstage.LockWait)
	if err != nil {
		if errors.Is(err, gitindex.ErrLocked) {
			return gitstage.LockedError(t.r.Display(t.r.IndexPath()), err)
		}
		return ioErr("lock the index", err)
	}
	t.ilock = l
	h, err := t.r.ReadHead()
	if err != nil {
		return err
	}
	if t.rl, err = t.r.LockRef(h.Branch, h.Commit); err != nil {
		return err
	}
	ref := t.rl.Name
	t.git = &locks{index: t.ilock, ref: t.rl}
	if t.opt.Inject != nil {
		t.git = &injectedLedger{ledger: t.git, fn: t.opt.Inject, ref: ref}
	}
	return t.step("locked", 0)
}

// verify is Check's code under the locks: the branch, HEAD, every
// witness, the index, the objects, the limit on open files.
func (t *txn) verify() error {
	ix, err := check(t.r, t.wt, t.rec, t.p, t.ops, true)
	if err != nil {
		return err
	}
	t.ix = ix
	return t.checkout()
}

// checkout makes, before the first write, the bytes git's checkout
// writes for each converted after-side: the proposal's blob through the
// conversion the preview showed (checkSnapshot proved it is still the
// one configured), smudge filter included. Bytes whose witness is not the
// preview's are refused with nothing written: the filter gave other
// bytes than it gave for the preview.
func (t *txn) checkout() error {
	for i := range t.ops {
		o := &t.ops[i]
		if o.after == nil || o.after.Disk == nil {
			continue
		}
		if o.after.Disk.Bytes != nil {
			o.disk = o.after.Disk.Bytes
		} else {
			if t.co == nil {
				co, err := t.r.Checkout(t.p.Set.Base)
				if err != nil {
					return err
				}
				t.co = co
			}
			blob, err := t.r.SideBytes(o.after)
			if err != nil {
				return err
			}
			if o.disk, err = t.co.ToWorkTree(o.path, blob); err != nil {
				return err
			}
		}
		if changeset.WitnessOf(o.disk) != o.after.Disk.Witness {
			return (&refusal.Error{Class: refusal.StaleRevision, Err: &cause{state: Stale, path: string(o.path)},
				Text: fmt.Sprintf("git's checkout of %s now gives other bytes than the preview showed (%s) · nothing was applied",
					changeset.Quote(string(o.path)), convWords(o.after.Disk.Conv)),
				Hint: "rebuild the preview"}).WithFix(refusal.Repropose, t.p.ID)
		}
	}
	return nil
}

// diskBytes are the bytes a side has on disk: the converted bytes verify
// made for an after-side, a before-side's disk form (held, or git's
// checkout of its blob when that gives the witnessed bytes), else the
// blob's own bytes.
func (t *txn) diskBytes(o *op, s *changeset.Side) ([]byte, error) {
	if s == o.after && o.disk != nil {
		return o.disk, nil
	}
	if s.Disk == nil {
		return t.r.SideBytes(s)
	}
	if s.Disk.Bytes != nil {
		return s.Disk.Bytes, nil
	}
	if t.co == nil {
		co, err := t.r.Checkout(t.p.Set.Base)
		if err != nil {
			return nil, err
		}
		t.co = co
	}
	blob, err := t.r.SideBytes(s)
	if err != nil {
		return nil, err
	}
	b, err := t.co.ToWorkTree(o.path, blob)
	if err != nil {
		return nil, err
	}
	if changeset.WitnessOf(b) != s.Disk.Witness {
		return nil, refusal.New(refusal.Io, "restore the file with git checkout -- "+string(o.path),
			"the bytes %s had on disk before the apply are not git's checkout of its blob, so nika cannot write them back", changeset.Quote(string(o.path)))
	}
	return b, nil
}

// sign makes the proposal commit's signed twin when git's configuration
// asks for signed commits (law 1): the same tree, parent, author, committer
// and message, plus a signature made after the yes and the checks under
// the locks. It runs before the journal and the first write, so that a
// signer that fails (no key, no agent, a wrong passphrase) leaves nothing
// written, and the journal, the reflog, the record and the result name the
// commit the branch moves to.
func (t *txn) sign() error {
	commit := plumbing.NewHash(t.p.Commit)
	signed, err := t.r.SignedTwin(commit)
	if err != nil {
		return err
	}
	if signed != commit {
		twin := *t.p
		twin.Commit = signed.String()
		t.p = &twin
		t.rec.Applied = twin.Commit
	}
	return t.step("signed", 0)
}

// journal writes what a later process needs to finish or undo the apply,
// before the first write.
func (t *txn) journal() error {
	j := &journal{Version: 2, ID: t.p.ID, Commit: t.p.Commit, Base: t.p.Set.Base, Branch: t.rec.Branch, Goal: t.p.Set.Goal,
		Locks: stampLocks(t.r, append([]string{t.ilock.Path()}, t.rl.LockFiles()...))}
	seen := map[string]bool{}
	for i := range t.ops {
		o := &t.ops[i]
		if o.after == nil {
			continue
		}
		for d := dirOf(string(o.path)); d != "" && !seen[d]; d = dirOf(d) {
			seen[d] = true
			info, err := t.wt.Lstat(d)
			if err != nil {
				return ioErr("inspect "+changeset.Quote(d), err)
			}
			if !info.Exists {
				j.Dirs = append(j.Dirs, d)
			}
		}
	}
	sort.Strings(j.Dirs)
	jf, err := openJournal(t.r, j, t.ops)
	if err != nil {
		return err
	}
	t.j, t.jf = j, jf
	return t.step("journaled", 0)
}

// write puts every file in place, removals first, then checks that every
// directory it wrote through is still where it was.
func (t *txn) write() error {
	for i := range t.ops {
		if err := t.step("write", i); err != nil {
			return fmt.Errorf("write %s: %w", t.ops[i].path, err)
		}
		if err := t.do(&t.ops[i]); err != nil {
			return err
		}
	}
	if moved := t.wt.Moved(); len(moved) > 0 {
		var q []string
		for _, m := range moved {
			q = append(q, changeset.Quote(m))
		}
		return (&refusal.Error{Class: refusal.StaleRevision, Err: &cause{state: Edited, path: moved[0]},
			Text: fmt.Sprintf("the project changed during the apply (the directory %s was moved or replaced) · nothing was applied", strings.Join(q, ", ")),
			Hint: "look at what moved it, then rebuild the preview"}).WithFix(refusal.Repropose, t.p.ID)
	}
	return t.step("written", 0)
}

// index sets the touched entries, writes the index into index.lock and
// renames it over the index. The index is renamed before the branch
// moves. git commit does the reverse, but git reads the index before it
// takes index.lock: a git commit that read HEAD after the branch moved
// but the index before the rename would then write back an index that
// lacks this apply. With the index first, such a commit read HEAD before
// the branch moved, and its compare-and-swap fails. A rollback from here
// on also restores the index entries.
func (t *txn) index() error {
	ix := t.ix
	for _, o := range t.ops {
		if o.after == nil {
			ix.Remove(string(o.path))
		}
	}
	for _, o := range t.ops {
		if o.after == nil {
			continue
		}
		info, err := t.wt.Lstat(string(o.path))
		if err != nil {
			return ioErr("inspect "+changeset.Quote(string(o.path)), err)
		}
		h, _ := hex.DecodeString(o.after.Blob)
		if err := ix.Set(gitindex.Entry{Path: string(o.path), Mode: uint32(o.after.Mode), Hash: h, Stat: statOf(&info.Stat)}); err != nil {
			return ioErr("update the index", err)
		}
	}
	vouchRacy(t.r.Root, ix)
	if err := t.step("index", 0); err != nil {
		return err
	}
	if err := t.git.WriteIndex(ix); err != nil {
		return ioErr("write the index", err)
	}
	if err := t.step("index-written", 0); err != nil {
		return err
	}
	if t.opt.Sync {
		if err := t.git.SyncIndex(); err != nil {
			return ioErr("write the index", err)
		}
	}
	if err := t.git.RenameIndex(); err != nil {
		return ioErr("write the index", err)
	}
	t.indexed = true
	t.r.RememberWritten(ix) // the next propose skips its scan of this index
	failpoint("index-renamed", 0)
	return nil
}

// ref moves the branch (HEAD, when detached) to the commit to, by
// compare-and-swap under its lock, and appends the reflog entries. From
// the move on the apply is committed: a crash is finished forward by
// Recover, never rolled back. A commit other than the proposal's (a
// signed twin) is recorded beside the journal first, so that recovery
// knows it.
func (t *txn) ref(to plumbing.Hash) error {
	if err := t.step("ref", 0); err != nil {
		return t.rollback(err)
	}
	sig, err := t.r.Signature("committer")
	if err != nil {
		return t.rollback(err)
	}
	if to.String() != t.p.Commit {
		if err := recordTwin(t.r, t.p.ID, to.String()); err != nil {
			return t.rollback(err)
		}
	}
	if err := t.git.MoveRef(to); err != nil {
		return t.rollback(ioErr("move the branch", err))
	}
	t.moved = true
	failpoint("ref-renamed", 0)
	t.logErr = t.rl.Log(to, sig, fmt.Sprintf("nika: apply %s: %s", t.p.ID, firstLine(t.p.Set.Goal)))
	failpoint("reflogged", 0)
	return nil
}

// finish records the decision, removes the old bytes and backups kept for
// a rollback and the directories the removals emptied, then the journal.
// Anything of its own it cannot remove keeps the journal, so that Recover
// removes it.
func (t *txn) finish() (*Result, error) {
	t.rec.State, t.rec.Decided = gitstage.Applied, time.Now().Unix()
	recErr := t.r.SaveRecord(t.rec)
	left := t.removeTemps()
	t.removeEmptied()
	if len(left) > 0 {
		t.keepJournal = true
		return nil, (&refusal.Error{Class: refusal.Io,
			Text: fmt.Sprintf("the proposal was applied, but nika could not remove its temp files %s", strings.Join(left, ", ")),
			Hint: "fix the cause, then recover the apply to remove them"}).WithFix(refusal.Recover, t.p.ID)
	}
	if recErr != nil {
		t.keepJournal = true // recovery marks the record applied
		return nil, recErr
	}
	if t.logErr != nil {
		return nil, &refusal.Error{Class: refusal.Io, Err: t.logErr,
			Text: fmt.Sprintf("the proposal was applied (the branch is at %s), but its reflog entry could not be written: %v", t.p.Commit[:12], t.logErr),
			Hint: "check the permissions and free space of the repository"}
	}
	res := &Result{Commit: t.p.Commit}
	for _, o := range t.ops {
		res.Paths = append(res.Paths, o.path)
	}
	return res, nil
}

// removeTemps removes the old bytes (swapped out) and the backups of the
// removals, once the apply is final.
func (t *txn) removeTemps() (left []string) {
	for i := range t.ops {
		o := &t.ops[i]
		if !o.made {
			continue
		}
		if err := t.wt.Remove(o.tmp); err != nil && !errors.Is(err, fs.ErrNotExist) {
			left = append(left, fmt.Sprintf("%s (%v)", changeset.Quote(o.tmp), unwrapErr(err)))
			continue
		}
		o.made = false
	}
	return left
}

// removeEmptied removes the directories that the removals left empty, up
// from each removed file, as git rm does; a directory that is not empty
// (or is a mount point) stays.
func (t *txn) removeEmptied() {
	for _, o := range t.ops {
		if o.after != nil || !o.done {
			continue
		}
		for d := dirOf(string(o.path)); d != ""; d = dirOf(d) {
			if t.wt.RemoveDir(d) != nil {
				break
			}
		}
	}
}

// vouchRacy does what git does before it smudges a racily clean entry: it
// compares the file with the entry. An entry whose file still has the
// recorded stat data and content keeps its stat data; the others are
// smudged by Encode, so git looks at them again. Only the entries written
// in the same second as the index are read (typically the previous apply's
// own files), so the cost follows the change. It reads through a root of
// its own, which walks each path anew: these paths are not the apply's,
// and their directories are not held.
func vouchRacy(dir string, ix *gitindex.Index) {
	racy := ix.Racy()
	if len(racy) == 0 {
		return
	}
	root, err := safefs.Open(dir)
	if err != nil {
		return
	}
	defer root.Close()
	for _, i := range racy {
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

// plan expands changes into filesystem ops: removals first (a file may give
// way to a directory), then writes, each in path order, and names each
// op's temp file or backup (see tempFor).
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
	ops := append(rm, wr...)
	for i := range ops {
		ops[i].tmp = tempFor(p.ID, i, ops)
	}
	return ops
}

func perm(m changeset.Mode) os.FileMode {
	if m == changeset.ModeExecutable {
		return 0o755
	}
	return 0o644
}

// tempFor names op i's temp file, from the proposal id and i, so that
// recovery finds it from the journal. A write's temp sits beside its
// target, so that the swap is one rename in one directory. A removal's
// backup sits beside the file too, on the same device, so that a mount
// point inside the work tree is no obstacle; when the set puts a file
// where the removed file's directory is (a directory replaced by a file),
// the backup goes up to the nearest directory that stays.
func tempFor(id string, i int, ops []op) string {
	o := ops[i]
	name := o.path.Base()
	if len(name) > 180 {
		name = name[:180]
	}
	if o.after != nil {
		return joinPath(o.path.Dir(), fmt.Sprintf(".%s.nika-%s", name, id[:12]))
	}
	dir := o.path.Dir()
	for moved := true; moved && dir != ""; {
		moved = false
		for _, w := range ops {
			if w.after != nil && (dir == string(w.path) || strings.HasPrefix(dir, string(w.path)+"/")) {
				dir, moved = w.path.Dir(), true
				break
			}
		}
	}
	return joinPath(dir, fmt.Sprintf(".%s.nika-%s-%d.removed", name, id[:12], i))
}

func joinPath(dir, name string) string {
	if dir == "" {
		return name
	}
	return dir + "/" + name
}

// do carries out one op.
//
// An update writes the new bytes to a temp file beside the target and swaps
// the two names atomically (renameat2 RENAME_EXCHANGE); the swapped-out
// bytes, now under the temp name, are checked against the witness (bytes
// and mode), and on a mismatch (an editor wrote the file after the witness
// check) the names are swapped back and the apply refuses. The old bytes
// stay under the temp name until the apply is final, so a rollback is one
// more swap. A create lands with RENAME_NOREPLACE, so it can never replace
// a file that appeared meanwhile. A removal moves the file aside (remove).
// Where the filesystem cannot exchange, the witness is re-checked under
// the lock just before a plain rename; the window between that check and
// the rename is the one git itself has.
func (t *txn) do(o *op) error {
	if o.after == nil {
		return t.remove(o)
	}
	p := string(o.path)
	q := changeset.Quote(p)
	data, err := t.diskBytes(o, o.after)
	if err != nil {
		return err
	}
	tmp, created, err := t.wt.WriteTemp(p, baseOf(o.tmp), data, perm(o.after.Mode), t.opt.Sync)
	o.created = created
	if err != nil {
		return ioErr("write "+q, err)
	}
	o.tmp, o.made = tmp, true
	if o.before == nil {
		if err := t.wt.RenameNoReplace(tmp, p); err != nil {
			if errors.Is(err, fs.ErrExist) {
				return stale(p, "appeared during the apply", t.p.ID)
			}
			if !errors.Is(err, safefs.ErrNoExchange) {
				return ioErr("write "+q, err)
			}
			if err := t.recheck(o); err != nil {
				return err
			}
			if err := t.wt.Rename(tmp, p); err != nil {
				return ioErr("write "+q, err)
			}
		}
		o.made, o.done = false, true
	} else {
		err := t.wt.Exchange(tmp, p)
		switch {
		case err == nil:
			o.done, o.swapped = true, true
			if why, err := t.swappedOut(o, tmp); why != "" || err != nil {
				if t.wt.Exchange(tmp, p) == nil {
					o.done, o.swapped = false, false
				}
				if err != nil {
					return err
				}
				return stale(p, why, t.p.ID)
			}
		case errors.Is(err, safefs.ErrNoExchange):
			if err := t.recheck(o); err != nil {
				return err
			}
			if err := t.wt.Rename(tmp, p); err != nil {
				return ioErr("write "+q, err)
			}
			o.made, o.done = false, true
		default:
			return ioErr("write "+q, err)
		}
	}
	if t.opt.Sync {
		if err := t.wt.SyncDir(p); err != nil {
			return ioErr("sync the directory of "+q, err)
		}
	}
	return nil
}

// swappedOut checks what a swap or a move aside took out of o's path:
// the witnessed bytes, as a regular file with the witnessed mode. It says
// what changed, or "", or the error that kept it from looking.
func (t *txn) swappedOut(o *op, at string) (string, error) {
	info, err := t.wt.Lstat(at)
	if err != nil {
		return "", ioErr("check the bytes taken out of "+changeset.Quote(string(o.path)), err)
	}
	if !info.Regular {
		return "was replaced during the apply", nil
	}
	if t.r.Config.Bool("core.filemode", true) && diskMode(info) != o.before.Mode {
		return fmt.Sprintf("changed mode during the apply (from %s to %s)", o.before.Mode, diskMode(info)), nil
	}
	b, err := t.wt.ReadFile(at)
	if err != nil {
		return "", ioErr("check the bytes taken out of "+changeset.Quote(string(o.path)), err)
	}
	if changeset.WitnessOf(b) != o.before.OnDisk() {
		return "was edited during the apply", nil
	}
	return "", nil
}

// remove moves a removed file aside to its backup (see tempFor), checks
// what it moved, and drops the directories that must give way to a file
// of the set. Where the rename crosses a device (EXDEV: the backup's
// directory is on another filesystem), the file is copied to the backup
// and then unlinked; the window between the check and the unlink is the
// one git rm has.
func (t *txn) remove(o *op) error {
	p := string(o.path)
	q := changeset.Quote(p)
	err := t.wt.RenameNoReplace(p, o.tmp)
	switch {
	case err == nil:
		o.done, o.made = true, true
		if why, err := t.swappedOut(o, o.tmp); why != "" || err != nil {
			if t.wt.RenameNoReplace(o.tmp, p) == nil {
				o.done, o.made = false, false
			}
			if err != nil {
				return err
			}
			return stale(p, why, t.p.ID)
		}
	case isExdev(err):
		if why, err := t.swappedOut(o, p); err != nil {
			return err
		} else if why != "" {
			return stale(p, why, t.p.ID)
		}
		data, err := t.diskBytes(o, o.before)
		if err != nil {
			return err
		}
		if _, _, err := t.wt.WriteTemp(o.tmp, baseOf(o.tmp), data, perm(o.before.Mode), t.opt.Sync); err != nil {
			return ioErr("back up "+q, err)
		}
		o.made = true
		if err := t.wt.Remove(p); err != nil {
			if t.wt.Remove(o.tmp) == nil {
				o.made = false
			}
			return ioErr("remove "+q, err)
		}
		o.done = true
	default:
		return ioErr("remove "+q, err)
	}
	for d := o.path.Dir(); d != "" && d != dirOf(o.tmp); d = dirOf(d) {
		if t.wt.RemoveDir(d) != nil {
			break
		}
	}
	return nil
}

func (t *txn) recheck(o *op) error {
	p := string(o.path)
	q := changeset.Quote(p)
	info, err := t.wt.Lstat(p)
	if err != nil {
		return ioErr("inspect "+q, err)
	}
	if o.before == nil {
		if info.Exists {
			return stale(p, "appeared during the apply", t.p.ID)
		}
		return nil
	}
	if why, err := t.swappedOut(o, p); err != nil {
		return err
	} else if why != "" {
		return stale(p, why, t.p.ID)
	}
	return nil
}

// rollback undoes this transaction's own writes, newest first, with renames
// only where it can (swap back, rename back), so that it needs no new bytes
// on a full disk. A file that no longer holds this transaction's bytes is
// left alone and reported. When the rollback cannot finish, or leaves a
// temp file of its own, the journal stays and Recover finishes the undo.
func (t *txn) rollback(cause error) error {
	var kept, failed, left []string
	fail := func(p string, err error) {
		failed = append(failed, fmt.Sprintf("%s (%v)", changeset.Quote(p), unwrapErr(err)))
	}
	drop := func(o *op) {
		if !o.made {
			return
		}
		if err := t.wt.Remove(o.tmp); err != nil && !errors.Is(err, fs.ErrNotExist) {
			left = append(left, fmt.Sprintf("%s (%v)", changeset.Quote(o.tmp), unwrapErr(err)))
			return
		}
		o.made = false
	}
	for i := len(t.ops) - 1; i >= 0; i-- {
		o := &t.ops[i]
		p := string(o.path)
		switch {
		case !o.done:
			drop(o)
		case o.after != nil:
			b, err := t.wt.ReadFile(p)
			if err != nil || changeset.WitnessOf(b) != o.after.OnDisk() {
				kept = append(kept, changeset.Quote(p))
				drop(o) // the old bytes; git has them
				break
			}
			switch {
			case o.swapped:
				if err := t.wt.Exchange(o.tmp, p); err != nil {
					fail(p, err)
					break
				}
				o.done, o.swapped = false, false
				drop(o)
			case o.before == nil:
				if err := t.wt.Remove(p); err != nil {
					fail(p, err)
					break
				}
				o.done = false
			default:
				data, err := t.diskBytes(o, o.before)
				tmp := ""
				if err == nil {
					tmp, _, err = t.wt.WriteTemp(p, "", data, perm(o.before.Mode), t.opt.Sync)
				}
				if err == nil {
					if err = t.wt.Rename(tmp, p); err != nil {
						t.wt.Remove(tmp)
					}
				}
				if err != nil {
					fail(p, err)
					break
				}
				o.done = false
			}
		default: // a removal, moved aside or copied
			info, err := t.wt.Lstat(p)
			if err != nil {
				fail(p, err)
				break
			}
			if info.Exists {
				kept = append(kept, changeset.Quote(p))
				drop(o) // the removed bytes; git has them
				break
			}
			if err := t.restore(o); err != nil {
				fail(p, err)
				break
			}
			o.done = false
		}
		for j := len(o.created) - 1; j >= 0; j-- {
			t.wt.RemoveDir(o.created[j]) // only if empty
		}
	}
	if t.indexed {
		j := *t.j
		j.Ops = journalOps(t.ops)
		if err := settleIndex(t.r, t.wt, j, false); err != nil {
			failed = append(failed, "the index ("+err.Error()+")")
		} else {
			t.indexed = false
		}
	}
	switch {
	case len(failed) > 0 || len(left) > 0:
		t.keepJournal = t.jf != nil
		var what []string
		if len(failed) > 0 {
			what = append(what, "it could not restore "+strings.Join(failed, ", "))
		}
		if len(left) > 0 {
			what = append(what, "it could not remove its temp files "+strings.Join(left, ", "))
		}
		return (&refusal.Error{Class: refusal.RollbackIncomplete, Err: cause,
			Text: fmt.Sprintf("the apply failed (%v), and its rollback did not finish: %s; the branch did not move", cause, strings.Join(what, "; ")),
			Hint: "fix the cause (free space, permissions), then recover the apply to finish the undo"}).WithFix(refusal.Recover, t.p.ID)
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
	return (&refusal.Error{Class: refusal.Io, Err: cause,
		Text: fmt.Sprintf("the apply failed: %v · it was rolled back, nothing was applied", cause),
		Hint: "fix the cause, then apply again"}).WithFix(refusal.ApplyAgain, t.p.ID)
}

// restore puts a removed file back from its backup: a rename back, or a
// copy where the rename would cross a device.
func (t *txn) restore(o *op) error {
	p := string(o.path)
	if _, err := t.wt.MkdirAll(o.path.Dir()); err != nil {
		return err
	}
	err := t.wt.RenameNoReplace(o.tmp, p)
	if err == nil {
		o.made = false
		return nil
	}
	if !isExdev(err) {
		return err
	}
	b, err := t.wt.ReadFile(o.tmp)
	if err != nil {
		return err
	}
	tmp, _, err := t.wt.WriteTemp(p, "", b, perm(o.before.Mode), t.opt.Sync)
	if err != nil {
		return err
	}
	if err := t.wt.RenameNoReplace(tmp, p); err != nil {
		t.wt.Remove(tmp)
		return err
	}
	if err := t.wt.Remove(o.tmp); err == nil {
		o.made = false
	}
	return nil
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
		Hint: "fix the cause (permissions, free space, a read-only filesystem), then apply again"}
}
