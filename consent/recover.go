package consent

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/nika-dev/nika/changeset"
	"github.com/nika-dev/nika/gitstage"
	"github.com/nika-dev/nika/gitstage/gitindex"
	"github.com/nika-dev/nika/refusal"
	"github.com/nika-dev/nika/safefs"
)

// Recovery is what nika recover did with one interrupted apply.
type Recovery struct {
	ID string `json:"id"`
	// State is "applied", "not applied", or "incomplete": some path could
	// not be settled yet (Attention says which and why), and the journal
	// stays for the next recovery.
	State  string   `json:"state"`
	Kept   []string `json:"kept"`  // files left alone: their bytes were no one's side
	Locks  []string `json:"locks"` // stale lock files removed
	Commit string   `json:"commit"`
	// Attention lists every path a human must look at, and why: files
	// left alone, and, when State is incomplete, what could not be done.
	Attention []Attention `json:"attention"`
}

// Attention is one path a human must look at after a recovery.
type Attention struct {
	Path string `json:"path"`
	Why  string `json:"why"`
}

// Recover takes each interrupted apply to "fully applied" (when its branch
// already moved to the proposal commit: the files, the index entries and
// the reflog are finished) or to "not applied" (the files are put back; the
// index and the branch never moved). It never overwrites bytes that are
// neither the transaction's before nor its after side, and it is safe to
// run again after a crash of its own: the journal goes last. When a path
// cannot be settled (a permission, a full disk), it settles every other,
// keeps the journal, and refuses RollbackIncomplete naming each path and
// its cause; the next Recover, once the cause is fixed, finishes.
func Recover(r *gitstage.Repo) ([]Recovery, error) {
	ids, err := Interrupted(r)
	if err != nil {
		return nil, err
	}
	var out []Recovery
	for _, id := range ids {
		rec, err := recoverOne(r, id)
		if rec.ID != "" {
			out = append(out, rec)
		}
		if err != nil {
			return out, err
		}
	}
	return out, nil
}

func recoverOne(r *gitstage.Repo, id string) (Recovery, error) {
	path := filepath.Join(journalDir(r), id+".json")
	f, err := os.Open(path)
	if err != nil {
		return Recovery{}, ioErr("open the journal", err)
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		return Recovery{}, refusal.New(refusal.Locked, "wait for it to finish", "an apply of %s is still running", id[:12])
	}
	var j journal
	if err := json.NewDecoder(f).Decode(&j); err != nil {
		return Recovery{}, refusal.New(refusal.Internal, "inspect the journal in the git dir's nika/journal by hand", "the journal of %s is unreadable: %v", id[:12], err)
	}
	out := Recovery{ID: j.ID, Commit: j.Commit}
	root, err := safefs.Hold(r.Root)
	if err != nil {
		return out, ioErr("open the working tree", err)
	}
	defer root.Close()

	name := j.Branch
	if name == "" {
		name = "HEAD"
	}
	cur, err := r.ReadRef(name)
	if err != nil {
		return out, err
	}
	tw := twin(r, j.ID)
	forward := cur.String() == j.Commit || (tw != "" && cur.String() == tw)
	if forward && tw != "" && cur.String() == tw {
		out.Commit = tw
	}
	var failed []Attention
	for i, o := range j.Ops {
		why, err := settle(r, root, o, forward, j.Base)
		switch {
		case err != nil:
			failed = append(failed, Attention{o.Path, fmt.Sprintf("nika could not put it back to the %s side: %v", side(forward), unwrapErr(err))})
		case why != "":
			out.Kept = append(out.Kept, o.Path)
			out.Attention = append(out.Attention, Attention{o.Path, why})
		}
		failpoint("recover-settled", i)
	}
	// The apply's temp files and removal backups hold only its own bytes
	// (created exclusively under names derived from the id): they go.
	for _, o := range j.Ops {
		if o.Temp == "" {
			continue
		}
		if info, err := root.Lstat(o.Temp); err == nil && info.Regular {
			if err := root.Remove(o.Temp); err != nil {
				failed = append(failed, Attention{o.Temp, fmt.Sprintf("a temp file of the apply, which nika could not remove: %v", unwrapErr(err))})
			}
		}
	}
	// The directories the apply made (undo), or that its removals emptied
	// (finish), go when empty.
	if forward {
		for _, o := range j.Ops {
			if o.After != nil {
				continue
			}
			for d := dirOf(o.Path); d != ""; d = dirOf(d) {
				if root.RemoveDir(d) != nil {
					break
				}
			}
		}
	} else {
		dirs := append([]string(nil), j.Dirs...)
		sort.Sort(sort.Reverse(sort.StringSlice(dirs)))
		for _, d := range dirs {
			root.RemoveDir(d)
		}
	}
	if len(failed) > 0 {
		// The journal stays: the next recovery, once the cause is fixed,
		// settles what is left. The locks stay too, so that no git
		// command writes over a half-settled tree meanwhile.
		out.State = "incomplete"
		out.Attention = append(out.Attention, failed...)
		var ps []string
		for _, a := range failed {
			ps = append(ps, fmt.Sprintf("%s (%s)", changeset.Quote(a.Path), a.Why))
		}
		return out, (&refusal.Error{Class: refusal.RollbackIncomplete,
			Text: fmt.Sprintf("the interrupted apply of %s could not be taken to %q yet: %s", id[:12], side(forward), strings.Join(ps, "; ")),
			Hint: "fix the cause (permissions, free space), then recover again; the journal is kept"}).WithFix(refusal.Recover, id)
	}
	// Our stale locks go; a lock someone else took since is left alone.
	var ilock *lockStamp
	for i, l := range j.Locks {
		if !l.ours(r) {
			continue
		}
		if filepath.Base(l.abs(r)) == "index.lock" {
			ilock = &j.Locks[i]
			continue
		}
		os.Remove(l.abs(r))
		out.Locks = append(out.Locks, l.Path)
	}
	if ilock != nil {
		os.Remove(ilock.abs(r))
		out.Locks = append(out.Locks, ilock.Path)
	}
	// The index may hold either side's entries (it is renamed before the
	// branch moves): it is set to the chosen side.
	if err := settleIndex(r, root, j, forward); err != nil {
		out.State = "incomplete"
		out.Attention = append(out.Attention, Attention{"index", err.Error()})
		return out, err
	}
	if forward {
		to := plumbing.NewHash(out.Commit)
		if !r.ReflogHas(name, to) {
			if sig, err := r.Signature("committer"); err == nil {
				r.AppendReflog(name, plumbing.NewHash(j.Base), to, sig,
					fmt.Sprintf("nika: apply %s: %s (recovered)", j.ID, firstLine(j.Goal)))
			}
		}
		if rec, err := r.Find(j.ID); err == nil && rec.State != gitstage.Applied {
			rec.State, rec.Decided = gitstage.Applied, time.Now().Unix()
			if out.Commit != rec.Commit {
				rec.Applied = out.Commit // the signed twin the branch moved to
			}
			r.SaveRecord(rec)
		}
		out.State = "applied"
	} else {
		out.State = "not applied"
	}
	os.Remove(filepath.Join(journalDir(r), id+".to"))
	if err := os.Remove(path); err != nil {
		return out, ioErr("remove the journal", err)
	}
	return out, nil
}

func side(forward bool) string {
	if forward {
		return "applied"
	}
	return "not applied"
}

// settle puts one file on the side recovery chose. It says why when the
// file holds what neither side holds, which it never overwrites; an error
// is a cause it could not get past.
func settle(r *gitstage.Repo, root *safefs.Root, o jop, forward bool, base string) (why string, err error) {
	want, other := o.Before, o.After
	if forward {
		want, other = o.After, o.Before
	}
	info, err := root.Lstat(o.Path)
	if err != nil {
		if errors.Is(err, safefs.ErrSymlink) {
			return "it now passes through a symlink, which nika never writes through; it left it as it is", nil
		}
		return "", err
	}
	var have string
	if info.Exists {
		if !info.Regular {
			return fmt.Sprintf("it is now a %s, which neither side of the apply is; nika left it as it is", info.Kind()), nil
		}
		b, err := root.ReadFile(o.Path)
		if err != nil {
			return "", err
		}
		have = changeset.WitnessOf(b).String()
	}
	switch {
	case want == nil && !info.Exists, want != nil && info.Exists && have == want.Witness:
		return "", nil // already on the chosen side
	case other == nil && info.Exists, other != nil && (!info.Exists || have != other.Witness):
		return "it holds bytes that are neither the proposal's before nor its after: someone changed it meanwhile, and nika left it as it is", nil
	}
	if want == nil {
		return "", root.Remove(o.Path)
	}
	mode := modeOf(want.Mode)
	// The apply's temp or backup may hold the wanted bytes: the old bytes
	// of a swap, or a removed file moved aside. A rename puts them back.
	if o.Temp != "" {
		if ti, err := root.Lstat(o.Temp); err == nil && ti.Regular {
			if b, err := root.ReadFile(o.Temp); err == nil && changeset.WitnessOf(b).String() == want.Witness {
				if _, err := root.MkdirAll(dirOf(o.Path)); err != nil {
					return "", err
				}
				if err := root.Rename(o.Temp, o.Path); err == nil {
					return "", nil
				} else if !isExdev(err) {
					return "", err
				}
			}
		}
	}
	data, err := r.ReadBlob(plumbing.NewHash(want.Blob))
	if err != nil {
		return "", err
	}
	if want.Converted {
		// git converts the path: what belongs on disk is git checkout's
		// conversion of the blob, which must give the witnessed bytes.
		if data, err = checkedOut(r, base, o.Path, data, want.Witness); err != nil {
			return "", err
		}
	}
	tmp, _, err := root.WriteTemp(o.Path, "", data, perm(mode), false)
	if err != nil {
		return "", err
	}
	if err := root.Rename(tmp, o.Path); err != nil {
		root.Remove(tmp)
		return "", err
	}
	return "", nil
}

// checkedOut is git checkout's conversion of blob at p, by the attributes
// of the base's tree, checked against the witness the journal holds.
func checkedOut(r *gitstage.Repo, base, p string, blob []byte, witness string) ([]byte, error) {
	co, err := r.Checkout(base)
	if err != nil {
		return nil, err
	}
	defer co.Close()
	b, err := co.ToWorkTree(changeset.Path(p), blob)
	if err != nil {
		return nil, err
	}
	if changeset.WitnessOf(b).String() != witness {
		return nil, fmt.Errorf("git's checkout of %s no longer gives the bytes it had; restore it with git checkout -- %s", changeset.Quote(p), p)
	}
	return b, nil
}

func modeOf(s string) changeset.Mode {
	if s == changeset.ModeExecutable.String() {
		return changeset.ModeExecutable
	}
	return changeset.ModeFile
}

// files is what settleIndex reads of the working tree.
type files interface {
	Lstat(rel string) (safefs.Info, error)
	ReadFile(rel string) ([]byte, error)
}

// settleIndex sets the index entries of the journal's paths to one side
// (after when forward, else before), under a fresh index.lock. An entry
// gets the file's stat data only when the file holds that side's bytes;
// otherwise git will look at the file again.
func settleIndex(r *gitstage.Repo, root files, j journal, forward bool) error {
	l, err := gitindex.LockIndex(r.IndexPath(), gitstage.LockWait)
	if err != nil {
		if errors.Is(err, gitindex.ErrLocked) {
			return gitstage.LockedError(r.Display(r.IndexPath()), err)
		}
		return ioErr("lock the index", err)
	}
	defer l.Rollback()
	ix, err := gitindex.ReadFile(r.IndexPath(), 20)
	if err != nil {
		return gitstage.IndexError(err)
	}
	side := func(o jop) *jside {
		if forward {
			return o.After
		}
		return o.Before
	}
	for _, o := range j.Ops {
		if side(o) == nil {
			ix.Remove(o.Path)
		}
	}
	for _, o := range j.Ops {
		want := side(o)
		if want == nil {
			continue
		}
		h, _ := hex.DecodeString(want.Blob)
		e := gitindex.Entry{Path: o.Path, Mode: uint32(modeOf(want.Mode)), Hash: h}
		if info, err := root.Lstat(o.Path); err == nil && info.Regular {
			if b, err := root.ReadFile(o.Path); err == nil && changeset.WitnessOf(b).String() == want.Witness {
				e.Stat = statOf(&info.Stat)
			}
		}
		if err := ix.Set(e); err != nil {
			return ioErr("update the index", err)
		}
	}
	data, err := ix.Encode()
	if err != nil {
		return ioErr("encode the index", err)
	}
	if _, err := l.Write(data); err != nil {
		return ioErr("write the index", err)
	}
	return l.Commit()
}
