package consent

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
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
	ID     string   `json:"id"`
	State  string   `json:"state"` // "applied" or "not applied"
	Kept   []string `json:"kept"`  // files left alone: their bytes were no one's side
	Locks  []string `json:"locks"` // stale lock files removed
	Commit string   `json:"commit"`
}

// Recover takes each interrupted apply to "fully applied" (when its branch
// already moved to the proposal commit: the files, the index entries and
// the reflog are finished) or to "not applied" (the files are put back; the
// index and the branch never moved). It never overwrites bytes that are
// neither the transaction's before nor its after side, and it is safe to
// run again after a crash of its own: the journal goes last.
func Recover(r *gitstage.Repo) ([]Recovery, error) {
	ids, err := Interrupted(r)
	if err != nil {
		return nil, err
	}
	var out []Recovery
	for _, id := range ids {
		rec, err := recoverOne(r, id)
		if err != nil {
			return out, err
		}
		out = append(out, rec)
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
		return Recovery{}, refusal.New(refusal.Internal, "inspect .git/nika/journal by hand", "the journal of %s is unreadable: %v", id[:12], err)
	}
	out := Recovery{ID: j.ID, Commit: j.Commit}
	root, err := safefs.Open(r.Root)
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
	forward := cur.String() == j.Commit
	for i, o := range j.Ops {
		kept, err := settle(r, root, o, forward)
		if err != nil {
			return out, err
		}
		if kept {
			out.Kept = append(out.Kept, o.Path)
		}
		failpoint("recover-settled", i)
	}
	// The apply's temp files and removal backups hold only its own bytes
	// (created exclusively under names derived from the id): they go.
	for _, o := range j.Ops {
		if o.Temp != "" {
			if info, err := root.Lstat(o.Temp); err == nil && info.Regular {
				root.Remove(o.Temp)
			}
		}
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
		return out, err
	}
	if forward {
		if !r.ReflogHas(name, plumbing.NewHash(j.Commit)) {
			if sig, err := r.Signature("committer"); err == nil {
				r.AppendReflog(name, plumbing.NewHash(j.Base), plumbing.NewHash(j.Commit), sig,
					fmt.Sprintf("nika: apply %s: %s (recovered)", j.ID, firstLine(j.Goal)))
			}
		}
		if rec, err := r.Find(j.ID); err == nil && rec.State != gitstage.Applied {
			rec.State, rec.Decided = gitstage.Applied, time.Now().Unix()
			r.SaveRecord(rec)
		}
		out.State = "applied"
	} else {
		out.State = "not applied"
	}
	if err := os.Remove(path); err != nil {
		return out, ioErr("remove the journal", err)
	}
	return out, nil
}

// settle puts one file on the side recovery chose. It reports kept when
// the file holds bytes that are neither side, which it never overwrites.
func settle(r *gitstage.Repo, root *safefs.Root, o jop, forward bool) (kept bool, err error) {
	want, other := o.Before, o.After
	if forward {
		want, other = o.After, o.Before
	}
	info, err := root.Lstat(o.Path)
	if err != nil {
		return true, nil
	}
	var have string
	if info.Exists {
		if !info.Regular {
			return true, nil
		}
		b, err := root.ReadFile(o.Path)
		if err != nil {
			return true, nil
		}
		have = changeset.WitnessOf(b).String()
	}
	switch {
	case want == nil && !info.Exists, want != nil && info.Exists && have == want.Witness:
		return false, nil // already on the chosen side
	case other == nil && info.Exists, other != nil && (!info.Exists || have != other.Witness):
		return true, nil // someone else's bytes: leave them
	}
	if want == nil {
		return false, root.Remove(o.Path)
	}
	data, err := r.ReadBlob(plumbing.NewHash(want.Blob))
	if err != nil {
		return false, err
	}
	mode := changeset.ModeFile
	if want.Mode == changeset.ModeExecutable.String() {
		mode = changeset.ModeExecutable
	}
	tmp, _, err := root.WriteTemp(o.Path, data, perm(mode), false)
	if err != nil {
		return false, ioErr("write "+changeset.Quote(o.Path), err)
	}
	if err := root.Rename(tmp, o.Path); err != nil {
		root.Remove(tmp)
		return false, ioErr("write "+changeset.Quote(o.Path), err)
	}
	return false, nil
}

// settleIndex sets the index entries of the journal's paths to one side
// (after when forward, else before), under a fresh index.lock. An entry
// gets the file's stat data only when the file holds that side's bytes;
// otherwise git will look at the file again.
func settleIndex(r *gitstage.Repo, root *safefs.Root, j journal, forward bool) error {
	l, err := gitindex.LockIndex(r.IndexPath(), gitstage.LockWait)
	if err != nil {
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
		mode := uint32(changeset.ModeFile)
		if want.Mode == changeset.ModeExecutable.String() {
			mode = uint32(changeset.ModeExecutable)
		}
		e := gitindex.Entry{Path: o.Path, Mode: mode, Hash: h}
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
