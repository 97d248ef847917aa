package flow

import (
	"bytes"
	"errors"
	"io/fs"

	"github.com/nika-dev/nika/changeset"
	"github.com/nika-dev/nika/checker"
	"github.com/nika-dev/nika/gitstage"
	"github.com/nika-dev/nika/preview"
	"github.com/nika-dev/nika/refusal"
	"github.com/nika-dev/nika/safefs"
)

type recordNotes struct {
	Repairs map[changeset.Path][]checker.RepairStep `json:"repairs,omitempty"`
}

// repair runs the fix ladder's prepass over every workflow and project file
// a change writes: mechanical repairs of dead forms, made before staging, so
// the staged, previewed and applied bytes are the repaired ones. A change
// whose repaired bytes equal its base is dropped as unchanged.
func repair(out *Proposed, cs []changeset.Change) ([]changeset.Change, []changeset.Path, error) {
	var kept []changeset.Change
	var same []changeset.Path
	for _, c := range cs {
		if c.After != nil && c.Class.Audited() {
			fixed, steps, notes := checker.Repair(string(c.Path), c.After.Bytes)
			out.Notes = append(out.Notes, notes...)
			if len(steps) > 0 && !bytes.Equal(fixed, c.After.Bytes) {
				if out.Repairs == nil {
					out.Repairs = map[changeset.Path][]checker.RepairStep{}
				}
				out.Repairs[c.Path] = steps
				c.After = changeset.NewSide(fixed, c.After.Mode, "")
				if c.Kind == changeset.Update && bytes.Equal(fixed, c.Before.Bytes) {
					same = append(same, c.Path)
					continue
				}
			}
		}
		kept = append(kept, c)
	}
	return kept, same, nil
}

// The checker reads the files a workflow names beside itself (agent
// skills, composed children) from a file system; which one is the door's
// source of truth, and each source has exactly one constructor here, so no
// door judges a workflow without its neighbours:
//
//   - ProposalFS: a proposal's own tree, for the preview's audit and nika
//     verify. It holds exactly what the apply will write, with every
//     neighbouring file as it will be after the apply.
//   - safefs.DirFS: the disk beneath the root, for the post-apply check and
//     nika check (hooks and cmd/nika call it directly).
//   - SnapshotFS: the working tree as the session's snapshot reads it.

// ProposalFS is the file system of a proposal's tree, read from git
// objects alone.
func ProposalFS(r *gitstage.Repo, p *changeset.Proposal) fs.FS {
	return r.TreeFS(p.Tree)
}

// SnapshotFS is the session's view of the project: the working tree
// beneath the root, read through safefs (never following a symlink), at
// most maxRead bytes a file (0: safefs.DefaultMaxRead). The session's
// snapshot checks each workflow of HEAD on disk, so its neighbours come
// from the disk too.
func SnapshotFS(r *gitstage.Repo, maxRead int64) fs.FS {
	f := safefs.DirFS(r.Root)
	f.MaxRead = maxRead
	return f
}

// Audit runs the checker over the after-bytes of every workflow and project
// file the proposal writes, in memory, with the proposal's own tree as the
// file system beside them. It is a pure function of git objects, so show
// and verify re-derive exactly what propose showed.
func Audit(r *gitstage.Repo, p *changeset.Proposal) []checker.Report {
	var out []checker.Report
	fsys := ProposalFS(r, p)
	for _, c := range p.Set.Changes {
		if c.After != nil && c.Class.Audited() {
			out = append(out, checker.CheckFS(fsys, string(c.Path), c.After.Bytes))
		}
	}
	return out
}

// PreviewInput is what the preview of a proposal renders.
func PreviewInput(p *Proposed) preview.Input {
	return preview.Input{Proposal: p.Proposal, Audits: Audit(p.repo, p.Proposal), Repairs: p.Repairs, Signing: p.Signing}
}

// DiskFS is the disk beneath root as the checker reads it for nika check
// and the post-apply check: through safefs, never following a symlink.
func DiskFS(root string) fs.FS { return safefs.DirFS(root) }

// ReadDisk reads one file beneath root as DiskFS does, with a typed
// refusal that names the path (relative to root) when it cannot.
func ReadDisk(root, path string) ([]byte, error) {
	data, err := safefs.DirFS(root).ReadFile(path)
	if err == nil {
		return data, nil
	}
	switch {
	case errors.Is(err, safefs.ErrSymlink):
		return nil, refusal.New(refusal.NotAllowed, "name the file itself, not a symlink to it",
			"%s was not checked: its path passes through a symlink, which nika never follows", changeset.Quote(path))
	case errors.Is(err, safefs.ErrTooLarge):
		return nil, refusal.New(refusal.TooLarge, "split the file into composed workflows",
			"%s was not checked: it is over %d bytes", changeset.Quote(path), safefs.DefaultMaxRead)
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	if errors.Is(err, fs.ErrNotExist) {
		// A file that is not there is NotFound at every door, as a path
		// nika check cannot find and a /check of the session's.
		return nil, refusal.New(refusal.NotFound, "check the path", "cannot read %s: %v", changeset.Quote(path), err)
	}
	return nil, refusal.New(refusal.Io, "check the file's permissions", "cannot read %s: %v", changeset.Quote(path), err)
}
