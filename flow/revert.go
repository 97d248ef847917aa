package flow

import (
	"fmt"
	"sort"
	"strings"

	"github.com/nika-dev/nika/changeset"
	"github.com/nika-dev/nika/gitstage"
	"github.com/nika-dev/nika/preview"
	"github.com/nika-dev/nika/refusal"
)

// revertWalk bounds how far back Revert looks for the commits that touched
// a path that does not invert cleanly.
const revertWalk = 200

// Revert proposes the inverse of an applied proposal against HEAD: a new
// proposal whose result is the proposal's before-bytes at each of its
// paths, with its own witnesses, preview and consent. commit is the
// proposal's commit (hex). It refuses, naming the paths (and the commits
// that touched them since), when HEAD no longer holds the proposal's
// after-state at every path: nika does not merge.
func Revert(repo *Repo, commit string) (*Proposed, error) {
	r := repo.g
	l, err := r.LoadHex(commit, preview.ID)
	if err != nil {
		return nil, err
	}
	if l.ClaimedID == "" {
		return nil, refusal.New(refusal.Invalid, "revert an ordinary commit with git revert",
			"commit %s is not a proposal (it has no Nika-Proposal trailer)", short(commit))
	}
	p := l.Proposal
	if rec, err := r.Find(l.ClaimedID); err == nil && rec.ID == l.ClaimedID && rec.State != gitstage.Applied && rec.Commit == commit {
		return nil, refusal.New(refusal.Invalid, "",
			"proposal %s was never applied (it is %s), so there is nothing to revert", short(rec.ID), rec.State).WithFix(refusal.Discard, rec.ID)
	}
	if p.ID != l.ClaimedID {
		return nil, refusal.New(refusal.TamperedTrailer, "",
			"commit %s does not prove its Nika-Proposal trailer, so nika will not invert it", short(commit)).WithFix(refusal.Verify, commit)
	}
	if len(p.Set.Changes) == 0 {
		return nil, refusal.New(refusal.Invalid, "", "proposal %s changes nothing", short(p.ID))
	}
	base, err := r.OpenBase()
	if err != nil {
		return nil, err
	}
	if base.Head.Unborn() {
		return nil, refusal.New(refusal.NotFound, "", "HEAD has no commit yet, so there is nothing to revert")
	}
	// HEAD must hold exactly the proposal's after-state at every path.
	var moved []changeset.Path
	for _, c := range p.Set.Changes {
		blob, mode, ok, err := base.BlobAt(c.Path)
		if err != nil {
			return nil, err
		}
		if c.After == nil {
			if ok || blob != "" {
				moved = append(moved, c.Path)
			}
		} else if !ok || blob != c.After.Blob || mode != c.After.Mode {
			moved = append(moved, c.Path)
		}
		if c.Kind == changeset.Move {
			if blob, _, ok, err := base.BlobAt(c.From); err != nil {
				return nil, err
			} else if ok || blob != "" {
				moved = append(moved, c.From)
			}
		}
	}
	if len(moved) > 0 {
		return nil, revertConflict(r, base.Head.Commit.String(), commit, p, moved)
	}
	draft := &changeset.Draft{Format: "revert"}
	var allow []string
	for _, c := range p.Set.Changes {
		allow = append(allow, string(c.Path))
		switch c.Kind {
		case changeset.Create:
			draft.Intents = append(draft.Intents, changeset.Intent{Op: changeset.OpDelete, Path: string(c.Path)})
		case changeset.Update:
			draft.Intents = append(draft.Intents, changeset.Intent{Op: changeset.OpEdit, Path: string(c.Path), Content: c.Before.Bytes})
		case changeset.Delete:
			draft.Intents = append(draft.Intents, changeset.Intent{Op: changeset.OpAdd, Path: string(c.Path), Content: c.Before.Bytes})
		case changeset.Move:
			allow = append(allow, string(c.From))
			draft.Intents = append(draft.Intents, changeset.Intent{Op: changeset.OpMove, Path: string(c.Path), To: string(c.From), Content: c.Before.Bytes})
		}
	}
	changes, _, err := changeset.Resolve(draft, base, changeset.Policy{Allow: allow})
	if err != nil {
		return nil, err
	}
	// The inverse restores the before-state byte for byte (and its mode).
	before := map[changeset.Path]*changeset.Side{}
	for _, c := range p.Set.Changes {
		if c.Kind == changeset.Move {
			before[c.From] = c.Before
		} else {
			before[c.Path] = c.Before
		}
	}
	for i := range changes {
		c := &changes[i]
		if c.After == nil {
			continue
		}
		if want := before[c.Path]; want != nil {
			c.After.Mode = want.Mode
		}
	}
	// git's forms: the blob git stores, the bytes its checkout writes.
	if changes, _, err = base.Convert(changes); err != nil {
		return nil, err
	}
	if len(changes) == 0 {
		return &Proposed{Format: "revert"}, nil
	}
	goal := fmt.Sprintf("Revert %q\n\nThis reverts proposal %s (commit %s).", firstLine(p.Set.Goal), p.ID, commit)
	set := &changeset.Set{Root: r.Root, Goal: goal, Branch: base.Head.Branch, Base: base.Head.Commit.String(), Changes: changes}
	np, rec, again, err := stage(r, base, set, "", nil)
	if err != nil {
		return nil, err
	}
	return &Proposed{Proposal: np, Record: rec, Format: "revert", Again: again, repo: r, Signing: Signing(r)}, nil
}

// revertConflict names the paths that HEAD changed since the proposal, and
// the commits (first parents, back to the proposal) that touched them.
func revertConflict(r *gitstage.Repo, head, commit string, p *changeset.Proposal, paths []changeset.Path) error {
	sort.Slice(paths, func(i, j int) bool { return paths[i] < paths[j] })
	touched := map[changeset.Path][]string{}
	cur := head
	for n := 0; n < revertWalk && cur != "" && cur != commit; n++ {
		ci, err := r.Info(cur)
		if err != nil {
			break
		}
		parent := ""
		if len(ci.Parents) > 0 {
			parent = ci.Parents[0]
		}
		for _, path := range paths {
			a, aok, err := r.BlobAtCommit(cur, path)
			if err != nil {
				continue
			}
			b, bok := "", false
			if parent != "" && r.HasCommit(parent) {
				b, bok, _ = r.BlobAtCommit(parent, path)
			}
			if a != b || aok != bok {
				touched[path] = append(touched[path], short(cur))
			}
		}
		if parent == "" || !r.HasCommit(parent) {
			break
		}
		cur = parent
	}
	var parts []string
	for _, path := range paths {
		s := changeset.Quote(string(path))
		if cs := touched[path]; len(cs) > 0 {
			s += " (changed by " + strings.Join(cs, ", ") + ")"
		}
		parts = append(parts, s)
	}
	return refusal.New(refusal.StaleRevision,
		"revert by hand, or propose the inverse of the later changes first; nika does not merge",
		"proposal %s does not invert cleanly: HEAD no longer holds its bytes at %s", short(p.ID), strings.Join(parts, ", "))
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return l
}
