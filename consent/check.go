package consent

import (
	"encoding/hex"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"golang.org/x/sys/unix"

	"github.com/nika-dev/nika/changeset"
	"github.com/nika-dev/nika/gitstage"
	"github.com/nika-dev/nika/gitstage/gitindex"
	"github.com/nika-dev/nika/refusal"
	"github.com/nika-dev/nika/safefs"
)

// Check is the read-only check before the question: everything the apply
// verifies under its locks, verified now without taking them and without
// writing anything, so that a door refuses before it asks a human for a
// yes that could not be carried out. It returns exactly the refusal that
// the apply would give after a yes (class, text, hint, fix), or nil:
//
//   - a lock that another process holds: the index's, HEAD's, the
//     branch's (Locked, after waiting as long as the apply would);
//   - HEAD on another branch, or the branch moved from the base
//     (StaleRevision);
//   - a merge, rebase or cherry-pick in progress, or a conflict in the
//     index (Dirty); an index nika cannot read (Unsupported, Io);
//   - every witness: each replaced, deleted or moved file still holds the
//     witnessed bytes, mode and type on disk and in the index, and each
//     created path is still absent (StaleRevision);
//   - the proposal commit in the object database (NotFound: pruned);
//   - enough open files for the transaction (Io), asked first.
//
// The apply runs the same code under its locks (check), so the two can
// only differ when the project changes between the question and the yes.
// Derive the state to display from the result with StateOf.
func Check(r *gitstage.Repo, rec *gitstage.Record, p *changeset.Proposal) error {
	wt, err := safefs.Open(r.Root)
	if err != nil {
		return ioErr("open the working tree", err)
	}
	defer wt.Close()
	_, err = check(r, wt, rec, p, plan(p), false)
	return err
}

// check verifies what an apply needs before its first write. With locked,
// the caller holds the index lock and the ref locks; without, a lock that
// another process holds is waited for, up to gitstage.LockWait, and then
// refused as the apply's own lock would be. It returns the index it read.
func check(r *gitstage.Repo, wt WorkTree, rec *gitstage.Record, p *changeset.Proposal, ops []op, locked bool) (*gitindex.Index, error) {
	// The limit on open files first: the witnesses below open the
	// directories that the apply then holds.
	if err := checkFiles(ops); err != nil {
		return nil, err
	}
	if !locked {
		if err := gitstage.WaitUnlocked(r.IndexPath(), r.Display(r.IndexPath()), gitstage.LockWait); err != nil {
			return nil, err
		}
	}
	if err := checkHead(r, rec.Branch, p.Set.Base, p.ID, locked); err != nil {
		return nil, err
	}
	ix, err := gitindex.Open(r.IndexPath(), 20)
	if err != nil {
		return nil, gitstage.IndexError(err)
	}
	if err := r.InProgress(); err != nil {
		return nil, err
	}
	if path, ok := ix.Unmerged(); ok {
		return nil, refusal.New(refusal.Dirty, "resolve the conflict and commit first, then rebuild the preview",
			"%s has an unresolved merge conflict · nothing was applied", changeset.Quote(path))
	}
	fmode := r.Config.Bool("core.filemode", true)
	removed := map[string]bool{}
	for _, o := range ops {
		if o.after == nil {
			removed[string(o.path)] = true
		}
	}
	if err := checkSnapshot(r, rec, p); err != nil {
		return nil, err
	}
	for i := range ops {
		if err := verify(wt, ix, &ops[i], removed, fmode, p.ID); err != nil {
			return nil, err
		}
	}
	if !r.HasObject(plumbing.NewHash(p.Commit)) {
		return nil, (&refusal.Error{Class: refusal.NotFound, Err: &cause{state: Pruned},
			Text: fmt.Sprintf("the proposal commit %s is missing from the object database (pruned by git gc?) · nothing was applied", p.Commit),
			Hint: "rebuild the preview"}).WithFix(refusal.Repropose, p.ID)
	}
	return ix, nil
}

// checkHead compares HEAD and its branch with the proposal's: HEAD must
// still be on branch ("" for a detached HEAD), at base ("" for unborn).
// Without locked, a HEAD.lock or branch lock that another process holds
// is waited for and refused first, in the order the apply takes them.
func checkHead(r *gitstage.Repo, branch, base, id string, locked bool) error {
	head := filepath.Join(r.GitDir, "HEAD")
	if !locked {
		if err := gitstage.WaitUnlocked(head, r.Display(head), gitstage.LockWait); err != nil {
			return err
		}
	}
	h, err := r.ReadHead()
	if err != nil {
		return err
	}
	// The apply locks the branch HEAD is on now (and then finds that it
	// is the wrong one): so does the wait.
	if !locked && h.Branch != "" {
		ref := r.RefPath(h.Branch)
		if err := gitstage.WaitUnlocked(ref, r.Display(ref), gitstage.LockWait); err != nil {
			return err
		}
	}
	if h.Branch != branch {
		return staleHead(fmt.Sprintf("HEAD was on %s and is now on %s", headName(branch), headName(h.Branch)), id)
	}
	want := plumbing.ZeroHash
	if base != "" {
		want = plumbing.NewHash(base)
	}
	cur, name := h.Commit, "HEAD"
	if branch != "" {
		name = branch
		if cur, err = r.ReadRef(branch); err != nil {
			return err
		}
	}
	if cur != want {
		return staleHead(fmt.Sprintf("%s moved from %s to %s", gitstage.ShortBranch(name), shortHash(want), shortHash(cur)), id)
	}
	return nil
}

func headName(branch string) string {
	if branch == "" {
		return "a detached HEAD"
	}
	return gitstage.ShortBranch(branch)
}

func shortHash(h plumbing.Hash) string {
	if h.IsZero() {
		return "nothing (unborn)"
	}
	return h.String()[:12]
}

// cause is what a check's refusal carries for StateOf: the state it means
// and, for a witness, the path.
type cause struct {
	state State
	path  string
}

func (c *cause) Error() string { return string(c.state) }

func staleHead(why, id string) error {
	return (&refusal.Error{Class: refusal.StaleRevision, Err: &cause{state: Stale},
		Text: fmt.Sprintf("the project changed since this preview (%s) · nothing was applied", why),
		Hint: "rebuild the preview"}).WithFix(refusal.Repropose, id)
}

// stale is a witness that no longer holds: path changed since the preview
// (why says how).
func stale(path, why, id string) error {
	return (&refusal.Error{Class: refusal.StaleRevision, Err: &cause{state: Edited, path: path},
		Text: fmt.Sprintf("the project changed since this preview (%s %s) · nothing was applied", changeset.Quote(path), why),
		Hint: "rebuild the preview"}).WithFix(refusal.Repropose, id)
}

// verify checks one op's witness against the index and the disk: the type
// (a regular file, or nothing for a create), the mode git tracks (in the
// index, and on disk where core.filemode is on), the index's blob and the
// bytes. removed holds the paths the plan removes, which may stand where a
// create goes (a file replaced by a directory, or the reverse).
func verify(wt WorkTree, ix *gitindex.Index, o *op, removed map[string]bool, fmode bool, id string) error {
	p := string(o.path)
	q := changeset.Quote(p)
	info, err := wt.Lstat(p)
	if err != nil {
		if errors.Is(err, safefs.ErrSymlink) {
			return (&refusal.Error{Class: refusal.NotAllowed, Err: &cause{state: Edited, path: p},
				Text: fmt.Sprintf("%s now passes through a symlink · nothing was applied", q),
				Hint: "remove the symlink, then rebuild the preview"}).WithFix(refusal.Repropose, id)
		}
		if !errors.Is(err, unix.ENOTDIR) {
			return ioErr("inspect "+q, err)
		}
		if o.before == nil && parentRemoved(o.path, removed) {
			return nil
		}
		return stale(p, "has a file where its directory should be", id)
	}
	i, inIndex := ix.Find(p)
	if o.before == nil {
		if info.Exists && !(info.Dir && childRemoved(o.path, removed)) {
			return stale(p, "now exists", id)
		}
		if inIndex {
			return stale(p, "was added to the index", id)
		}
		return nil
	}
	if !info.Exists {
		return stale(p, "was deleted", id)
	}
	if !info.Regular {
		return stale(p, "is no longer a regular file (it is now a "+info.Kind()+")", id)
	}
	if !inIndex {
		return stale(p, "was removed from the index", id)
	}
	e := ix.At(i)
	if m := changeset.Mode(e.Mode); m != o.before.Mode {
		if m != changeset.ModeFile && m != changeset.ModeExecutable {
			return stale(p, fmt.Sprintf("is no longer a regular file in the index (its mode is now %s)", m), id)
		}
		return stale(p, fmt.Sprintf("changed mode in the index from %s to %s", o.before.Mode, m), id)
	}
	if hex.EncodeToString(e.Hash) != o.before.Blob {
		return stale(p, "changed in the index", id)
	}
	if fmode {
		if disk := diskMode(info); disk != o.before.Mode {
			return stale(p, fmt.Sprintf("changed mode on disk from %s to %s", o.before.Mode, disk), id)
		}
	}
	b, err := wt.ReadFile(p)
	if err != nil {
		return ioErr("read "+q, err)
	}
	if changeset.WitnessOf(b) != o.before.OnDisk() {
		return stale(p, "was edited", id)
	}
	return nil
}

// diskMode is the mode git records for a regular file on disk: executable
// when the owner may execute it.
func diskMode(info safefs.Info) changeset.Mode {
	if info.Mode&0o100 != 0 {
		return changeset.ModeExecutable
	}
	return changeset.ModeFile
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

// State is what a door displays for a pending proposal, derived from the
// read-only check (StateOf): whether a yes now would apply it, and if not,
// why.
type State string

const (
	// Pending: the check passes; a yes would apply it.
	Pending State = "pending"
	// Stale: HEAD moved, or is on another branch, since the preview.
	Stale State = "stale"
	// Edited: a witnessed file changed since the preview (its bytes, mode
	// or type, on disk or in the index), or a created path appeared.
	Edited State = "edited"
	// Locked: another process holds a git lock the apply needs.
	Locked State = "locked"
	// Pruned: the proposal's objects are gone (git gc --prune).
	Pruned State = "pruned"
	// Applied and Discarded: the proposal was decided.
	Applied   State = "applied"
	Discarded State = "discarded"
	// Blocked: the check refuses for another reason (a merge in
	// progress, an index nika cannot read, an I/O error, too few open
	// files); the refusal says which.
	Blocked State = "blocked"
)

// StateOf derives the state to display from Check's result.
func StateOf(err error) State {
	if err == nil {
		return Pending
	}
	var c *cause
	if errors.As(err, &c) {
		return c.state
	}
	switch refusal.ClassOf(err) {
	case refusal.Locked:
		return Locked
	case refusal.StaleRevision:
		return Edited
	case refusal.NotFound:
		return Pruned
	}
	return Blocked
}

// Status is the state of a registered proposal for display: Applied and
// Discarded records are what they are; a pending one is checked (Check),
// and p nil means its commit could not be loaded, which is Pruned when the
// commit is gone from the object database.
func Status(r *gitstage.Repo, rec *gitstage.Record, p *changeset.Proposal) (State, error) {
	switch rec.State {
	case gitstage.Applied:
		return Applied, nil
	case gitstage.Discarded:
		return Discarded, nil
	}
	if p == nil {
		if !r.HasObject(plumbing.NewHash(rec.Commit)) {
			return Pruned, nil
		}
		return Blocked, nil
	}
	err := Check(r, rec, p)
	return StateOf(err), err
}
