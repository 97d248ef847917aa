package flow

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/nika-dev/nika/changeset"
	"github.com/nika-dev/nika/changeset/merge3"
	"github.com/nika-dev/nika/gitstage"
	"github.com/nika-dev/nika/preview"
	"github.com/nika-dev/nika/refusal"
)

// staleFix is the fix for a pending proposal whose base is no longer HEAD:
// bring it forward (Rebase) when HEAD is on its branch with a commit to
// rebase onto; propose it again otherwise (HEAD is on another branch, or
// has no commit).
func staleFix(head gitstage.Head, p *Proposed) refusal.Fix {
	if head.Branch == p.Record.Branch && !head.Unborn() && p.Proposal.Set.Base != "" {
		return refusal.Rebase
	}
	return refusal.Repropose
}

// Rebased is what Rebase made.
type Rebased struct {
	// Proposed is the new proposal over HEAD; nil when HEAD already holds
	// every change (Already lists them).
	*Proposed
	// Current says p was already built on HEAD: nothing was staged.
	Current bool
	// Carried are the paths HEAD did not touch since p's base: their
	// changes are carried forward as they were. Merged are the paths HEAD
	// changed too, merged three ways. Already are the paths whose change
	// HEAD already holds: they leave the proposal.
	Carried, Merged, Already []changeset.Path
}

// Rebase brings a stale proposal forward onto the current HEAD. Each file
// is merged three ways (changeset/merge3, git merge-file's algorithm): the
// base is the proposal's before-bytes, ours HEAD's bytes, theirs the
// proposal's after-bytes. A file nobody touched since is carried forward
// unchanged. The result is a new proposal over HEAD, with witnesses of
// HEAD's bytes (through the resolver, which checks the working tree and
// the index as for any proposal), staged through stage, and bound to the
// proposal it came from by its manifest and a Nika-Rebased-From trailer.
// A conflict refuses and stages nothing, naming each path and the
// conflicting lines of both sides. p stays as it was.
func Rebase(repo *Repo, p *Proposed) (*Rebased, error) {
	r := repo.g
	if err := Undecided(p); err != nil {
		return nil, err
	}
	base, err := r.OpenBase()
	if err != nil {
		return nil, err
	}
	head := base.Head
	if head.Unborn() {
		return nil, refusal.New(refusal.NotFound, "", "HEAD has no commit yet, so there is nothing to bring proposal %s onto", short(p.ID()))
	}
	if head.Commit.String() == p.Proposal.Set.Base && head.Branch == p.Record.Branch {
		return &Rebased{Proposed: p, Current: true}, nil
	}
	out := &Rebased{}
	var conflicts []string
	draft := &changeset.Draft{Format: "rebase"}
	var allow []string
	mode := map[changeset.Path]changeset.Mode{}
	entry := func(path changeset.Path) (changeset.Entry, error) { return base.Entry(path) }
	for _, c := range p.Proposal.Set.Changes {
		allow = append(allow, string(c.Path))
		switch c.Kind {
		case changeset.Create:
			e, err := entry(c.Path)
			if err != nil {
				return nil, err
			}
			switch {
			case e.Kind == changeset.Absent:
				out.Carried = append(out.Carried, c.Path)
				draft.Intents = append(draft.Intents, changeset.Intent{Op: changeset.OpAdd, Path: string(c.Path), Content: c.After.Bytes})
			case e.Kind != changeset.File:
				conflicts = append(conflicts, fmt.Sprintf("%s: HEAD holds something that is not a file there, and the proposal creates it", changeset.Quote(string(c.Path))))
			case bytes.Equal(e.Bytes, c.After.Bytes):
				out.Already = append(out.Already, c.Path)
			default:
				m := merge3.Merge(nil, e.Bytes, c.After.Bytes, labels)
				if !m.Clean {
					conflicts = append(conflicts, conflictText(c.Path, "HEAD created it too; ", m))
					continue
				}
				out.Merged = append(out.Merged, c.Path)
				draft.Intents = append(draft.Intents, changeset.Intent{Op: changeset.OpEdit, Path: string(c.Path), Content: m.Bytes})
			}
		case changeset.Delete:
			e, err := entry(c.Path)
			if err != nil {
				return nil, err
			}
			switch {
			case e.Kind == changeset.Absent:
				out.Already = append(out.Already, c.Path)
			case e.Kind == changeset.File && bytes.Equal(e.Bytes, c.Before.Bytes):
				out.Carried = append(out.Carried, c.Path)
				draft.Intents = append(draft.Intents, changeset.Intent{Op: changeset.OpDelete, Path: string(c.Path)})
			default:
				conflicts = append(conflicts, fmt.Sprintf("%s: HEAD changed it, and the proposal deletes it", changeset.Quote(string(c.Path))))
			}
		case changeset.Update, changeset.Move:
			src := c.Path
			if c.Kind == changeset.Move {
				src = c.From
				allow = append(allow, string(c.From))
				if e, err := entry(c.Path); err != nil {
					return nil, err
				} else if e.Kind != changeset.Absent {
					conflicts = append(conflicts, fmt.Sprintf("%s: HEAD has a file there now, and the proposal moves %s onto it", changeset.Quote(string(c.Path)), changeset.Quote(string(c.From))))
					continue
				}
			}
			e, err := entry(src)
			if err != nil {
				return nil, err
			}
			if e.Kind != changeset.File {
				conflicts = append(conflicts, fmt.Sprintf("%s: HEAD removed it, and the proposal changes it", changeset.Quote(string(src))))
				continue
			}
			// The mode: the proposal's change of it, else HEAD's.
			want := c.After.Mode
			if c.After.Mode == c.Before.Mode {
				want = e.Mode
			}
			after := c.After.Bytes
			switch {
			case bytes.Equal(e.Bytes, c.Before.Bytes):
				out.Carried = append(out.Carried, c.Path)
			default:
				m := merge3.Merge(c.Before.Bytes, e.Bytes, c.After.Bytes, labels)
				if !m.Clean {
					conflicts = append(conflicts, conflictText(src, "", m))
					continue
				}
				after = m.Bytes
				if c.Kind == changeset.Update && bytes.Equal(after, e.Bytes) && want == e.Mode {
					out.Already = append(out.Already, c.Path)
					continue
				}
				out.Merged = append(out.Merged, c.Path)
			}
			mode[c.Path] = want
			if c.Kind == changeset.Move {
				draft.Intents = append(draft.Intents, changeset.Intent{Op: changeset.OpMove, Path: string(c.From), To: string(c.Path), Content: after})
			} else {
				draft.Intents = append(draft.Intents, changeset.Intent{Op: changeset.OpEdit, Path: string(c.Path), Content: after})
			}
		}
	}
	if len(conflicts) > 0 {
		return nil, refusal.New(refusal.StaleRevision, "change the files by hand, or ask for the change again over the current files",
			"proposal %s does not merge onto HEAD %s · nothing was staged: %s", short(p.ID()), short(head.Commit.String()), strings.Join(conflicts, "; "))
	}
	if len(draft.Intents) == 0 {
		return out, nil
	}
	changes, _, err := changeset.Resolve(draft, base, changeset.Policy{Allow: allow})
	if err != nil {
		return nil, err
	}
	for i := range changes {
		c := &changes[i]
		if c.After == nil {
			continue
		}
		if m, ok := mode[c.Path]; ok {
			c.After.Mode = m
		}
	}
	// git's forms: the blob git stores, the bytes its checkout writes.
	if changes, _, err = base.Convert(changes); err != nil {
		return nil, err
	}
	if len(changes) == 0 {
		return out, nil
	}
	set := &changeset.Set{Root: r.Root, Goal: p.Proposal.Set.Goal, Branch: head.Branch, Base: head.Commit.String(),
		Changes: changes, Run: p.Proposal.Set.Run, RebasedFrom: p.ID()}
	runTrailer := ""
	if set.Run != nil {
		runTrailer = preview.RunJSON(set.Run)
	}
	np, rec, again, err := stage(r, base, set, runTrailer, nil)
	if err != nil {
		return nil, err
	}
	out.Proposed = &Proposed{Proposal: np, Record: rec, Format: "rebase", Again: again, repo: r, Signing: Signing(r)}
	return out, nil
}

var labels = merge3.Labels{Ours: "HEAD", Theirs: "proposal"}

// maxConflictLines bounds the lines of each side a conflict quotes.
const maxConflictLines = 3

// conflictText names a path's conflicts: the lines of each side, as
// numbered in HEAD's file and in the proposal's.
func conflictText(p changeset.Path, why string, m merge3.Result) string {
	var parts []string
	for _, c := range m.Conflicts {
		parts = append(parts, fmt.Sprintf("%s of HEAD (%s) against %s of the proposal (%s)",
			lineRange(c.OursStart, c.OursLines), quoteLines(c.Ours), lineRange(c.TheirsStart, c.TheirsLines), quoteLines(c.Theirs)))
	}
	return fmt.Sprintf("%s: %s%s", changeset.Quote(string(p)), why, strings.Join(parts, ", and "))
}

func lineRange(start, n int) string {
	switch n {
	case 0:
		return fmt.Sprintf("no line (after line %d)", start)
	case 1:
		return fmt.Sprintf("line %d", start)
	}
	return fmt.Sprintf("lines %d-%d", start, start+n-1)
}

func quoteLines(ls []string) string {
	if len(ls) == 0 {
		return "removed"
	}
	var q []string
	for i, l := range ls {
		if i == maxConflictLines {
			q = append(q, fmt.Sprintf("… %d more", len(ls)-maxConflictLines))
			break
		}
		q = append(q, changeset.Quote(strings.TrimSuffix(l, "\n")))
	}
	return strings.Join(q, ", ")
}
