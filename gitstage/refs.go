package gitstage

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/nika-dev/nika/refusal"
)

// RefLock holds a ref (and HEAD, when HEAD points at it) locked for a
// compare-and-swap. Lock first, then read, then compare: the order git uses,
// so no other writer can move the ref between the check and the write.
type RefLock struct {
	r    *Repo
	Name string // the ref that moves: refs/heads/<b>, or HEAD when detached
	Old  plumbing.Hash
	ref  *Lock
	head *Lock // HEAD.lock while a branch moves, so HEAD cannot switch
}

// LockRef locks the ref HEAD resolves to and checks that HEAD still names
// branch and that the ref still holds want. On a mismatch it releases the
// locks and refuses StaleRevision, with no side effect.
func (r *Repo) LockRef(branch string, want plumbing.Hash) (*RefLock, error) {
	rl := &RefLock{r: r, Name: branch}
	var err error
	if rl.head, err = AcquireLock(filepath.Join(r.GitDir, "HEAD"), r.Display(filepath.Join(r.GitDir, "HEAD")), LockWait); err != nil {
		return nil, err
	}
	stale := func(why string) error {
		rl.Rollback()
		return Stale(why)
	}
	head, err := r.ReadHead()
	if err != nil {
		rl.Rollback()
		return nil, err
	}
	if head.Branch != branch {
		return nil, stale(HeadMoved(head, branch, want))
	}
	if branch != "" {
		if rl.ref, err = AcquireLock(r.refPath(branch), r.Display(r.refPath(branch)), LockWait); err != nil {
			rl.Rollback()
			return nil, err
		}
		if rl.Old, err = r.ReadRef(branch); err != nil {
			rl.Rollback()
			return nil, err
		}
	} else {
		rl.Name = "HEAD"
		rl.Old = head.Commit
	}
	if rl.Old != want {
		return nil, stale(HeadMoved(Head{Branch: branch, Commit: rl.Old}, branch, want))
	}
	return rl, nil
}

// Stale is the refusal of a proposal whose project changed since its
// preview; why says what changed.
func Stale(why string) *refusal.Error {
	return refusal.New(refusal.StaleRevision, "",
		"the project changed since this preview (%s) · nothing was applied", why).WithFix(refusal.Repropose, "")
}

// HeadMoved says how HEAD differs from a proposal's branch and base (want;
// zero for an unborn branch), or "" when it does not.
func HeadMoved(head Head, branch string, want plumbing.Hash) string {
	if head.Branch != branch {
		now := "a detached HEAD"
		if head.Branch != "" {
			now = ShortBranch(head.Branch)
		}
		was := "a detached HEAD"
		if branch != "" {
			was = ShortBranch(branch)
		}
		return fmt.Sprintf("HEAD was on %s and is now on %s", was, now)
	}
	if head.Commit != want {
		name := "HEAD"
		if branch != "" {
			name = ShortBranch(branch)
		}
		return fmt.Sprintf("%s moved from %s to %s", name, short(want), short(head.Commit))
	}
	return ""
}

func short(h plumbing.Hash) string {
	if h.IsZero() {
		return "nothing (unborn)"
	}
	return h.String()[:12]
}

// Commit moves the ref to new, then appends the reflog entries.
func (rl *RefLock) Commit(new plumbing.Hash, sig object.Signature, msg string) error {
	if err := rl.Move(new); err != nil {
		return err
	}
	return rl.Log(new, sig, msg)
}

// LockFiles lists the lock files this RefLock holds.
func (rl *RefLock) LockFiles() []string {
	var out []string
	for _, l := range []*Lock{rl.head, rl.ref} {
		if l != nil && !l.done {
			out = append(out, l.LockPath)
		}
	}
	return out
}

// Move renames the ref's lock over the ref: the branch now points at new.
func (rl *RefLock) Move(new plumbing.Hash) error {
	lk := rl.ref
	if lk == nil {
		lk = rl.head
	}
	if err := lk.Write([]byte(new.String() + "\n")); err != nil {
		rl.Rollback()
		return err
	}
	if err := lk.Commit(); err != nil {
		rl.Rollback()
		return err
	}
	return nil
}

// Log appends the reflog entries of a Move and releases HEAD.lock.
func (rl *RefLock) Log(new plumbing.Hash, sig object.Signature, msg string) error {
	line := reflogLine(rl.Old, new, sig, msg)
	var errs []error
	if rl.ref != nil {
		errs = append(errs, rl.r.appendReflog(rl.Name, line))
	}
	errs = append(errs, rl.r.appendReflog("HEAD", line))
	rl.Rollback() // releases HEAD.lock when a branch moved
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// Rollback releases every lock without moving anything.
func (rl *RefLock) Rollback() {
	if rl.ref != nil {
		rl.ref.Rollback()
	}
	if rl.head != nil {
		rl.head.Rollback()
	}
}

func reflogLine(old, new plumbing.Hash, sig object.Signature, msg string) string {
	_, off := sig.When.Zone()
	sign := '+'
	if off < 0 {
		sign, off = '-', -off
	}
	msg = strings.ReplaceAll(strings.TrimSpace(msg), "\n", " ")
	return fmt.Sprintf("%s %s %s <%s> %d %c%02d%02d\t%s\n", old, new, sig.Name, sig.Email, sig.When.Unix(), sign, off/3600, (off%3600)/60, msg)
}

// AppendReflog appends a reflog line for a ref (and HEAD, when HEAD is on
// that branch); recovery uses it to finish an interrupted apply.
func (r *Repo) AppendReflog(ref string, old, new plumbing.Hash, sig object.Signature, msg string) error {
	line := reflogLine(old, new, sig, msg)
	if ref != "HEAD" {
		if err := r.appendReflog(ref, line); err != nil {
			return err
		}
	}
	return r.appendReflog("HEAD", line)
}

// ReflogHas reports whether the ref's reflog already records a move to new.
func (r *Repo) ReflogHas(ref string, new plumbing.Hash) bool {
	dir := r.GitDir
	if ref != "HEAD" {
		dir = r.CommonDir
	}
	b, err := os.ReadFile(filepath.Join(dir, "logs", filepath.FromSlash(ref)))
	if err != nil {
		return false
	}
	return strings.Contains(string(b), " "+new.String()+" ")
}

// appendReflog appends one line to logs/<ref>, creating it as git does when
// core.logAllRefUpdates is on (the default with a working tree).
func (r *Repo) appendReflog(ref, line string) error {
	dir := r.GitDir
	if ref != "HEAD" {
		dir = r.CommonDir
	}
	p := filepath.Join(dir, "logs", filepath.FromSlash(ref))
	if _, err := os.Stat(p); err != nil && !r.Config.Bool("core.logAllRefUpdates", true) {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return ioRefusal("write the reflog", err)
	}
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o666)
	if err != nil {
		return ioRefusal("write the reflog", err)
	}
	defer f.Close()
	if _, err := f.WriteString(line); err != nil {
		return ioRefusal("write the reflog", err)
	}
	return nil
}

// UpdateRef moves any ref by compare-and-swap under its lock, as git does:
// lock, read, compare with want (zero: the ref must not exist), write,
// rename, then append the reflog entry. It never touches HEAD.
func (r *Repo) UpdateRef(name string, want, new plumbing.Hash, sig object.Signature, msg string) error {
	lk, err := AcquireLock(r.refPath(name), r.Display(r.refPath(name)), LockWait)
	if err != nil {
		return err
	}
	old, err := r.ReadRef(name)
	if err != nil {
		lk.Rollback()
		return err
	}
	if old != want {
		lk.Rollback()
		return refusal.New(refusal.StaleRevision, "try again", "%s moved from %s to %s while nika was writing it", name, short(want), short(old))
	}
	if err := lk.Write([]byte(new.String() + "\n")); err != nil {
		lk.Rollback()
		return err
	}
	if err := lk.Commit(); err != nil {
		return err
	}
	return r.appendReflog(name, reflogLine(old, new, sig, msg))
}
