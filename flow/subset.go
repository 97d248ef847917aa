package flow

import (
	"encoding/json"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/nika-dev/nika/changeset"
	"github.com/nika-dev/nika/checker"
	"github.com/nika-dev/nika/gitstage"
	"github.com/nika-dev/nika/preview"
	"github.com/nika-dev/nika/refusal"
)

// Subset builds a derived proposal that holds only the chosen changes of p:
// those matching only (paths or globs), or all but those matching exclude.
// It is staged over the same base, so it has its own id and commit; p stays
// pending. A move is one change: naming only its source or only its
// destination is refused, since a move cannot be split from its source.
func Subset(repo *Repo, p *Proposed, only, exclude []string) (*Proposed, error) {
	r := repo.g
	keep, err := Selection(p, only, exclude)
	if err != nil {
		return nil, err
	}
	if len(keep) == len(p.Proposal.Set.Changes) {
		return p, nil
	}
	head := gitstage.Head{Branch: p.Record.Branch}
	if p.Proposal.Set.Base != "" {
		head.Commit = plumbing.NewHash(p.Proposal.Set.Base)
	}
	base, err := r.TreeBase(head)
	if err != nil {
		return nil, err
	}
	set := p.Proposal.Set
	set.Changes = keep
	runTrailer := ""
	if set.Run != nil {
		runTrailer = preview.RunJSON(set.Run)
	}
	out := &Proposed{repo: r, Signing: Signing(r)}
	for _, c := range keep {
		if steps, ok := p.Repairs[c.Path]; ok {
			if out.Repairs == nil {
				out.Repairs = map[changeset.Path][]checker.RepairStep{}
			}
			out.Repairs[c.Path] = steps
		}
	}
	var notes json.RawMessage
	if out.Repairs != nil {
		notes, _ = json.Marshal(recordNotes{Repairs: out.Repairs})
	}
	np, rec, again, err := stage(r, base, &set, runTrailer, notes)
	if err != nil {
		return nil, err
	}
	out.Proposal, out.Again = np, again
	out.Record = rec
	return out, nil
}

// Selection is the pure half of Subset: it checks a selection of p's
// changes and returns the changes it keeps, writing nothing.
func Selection(p *Proposed, only, exclude []string) ([]changeset.Change, error) {
	if len(only) > 0 && len(exclude) > 0 {
		return nil, refusal.New(refusal.Invalid, "use one of them", "--only and --exclude cannot be combined")
	}
	sel := only
	if len(sel) == 0 {
		sel = exclude
	}
	match := func(p changeset.Path) bool {
		for _, s := range sel {
			if changeset.MatchGlob(strings.TrimPrefix(s, "./"), string(p)) {
				return true
			}
		}
		return false
	}
	used := map[string]bool{}
	var keep []changeset.Change
	for _, c := range p.Proposal.Set.Changes {
		hit := match(c.Path)
		if c.Kind == changeset.Move && match(c.From) != hit {
			return nil, refusal.New(refusal.NotAllowed, "name both paths of the move, "+string(c.From)+" and "+string(c.Path),
				"a move cannot be split from its source: %s → %s", changeset.Quote(string(c.From)), changeset.Quote(string(c.Path)))
		}
		for _, s := range sel {
			if changeset.MatchGlob(strings.TrimPrefix(s, "./"), string(c.Path)) || (c.Kind == changeset.Move && changeset.MatchGlob(strings.TrimPrefix(s, "./"), string(c.From))) {
				used[s] = true
			}
		}
		if hit == (len(only) > 0) {
			keep = append(keep, c)
		}
	}
	for _, s := range sel {
		if !used[s] {
			return nil, refusal.New(refusal.Invalid, "run nika show to see its paths", "%s names no change of proposal %s", changeset.Quote(s), short(p.Proposal.ID))
		}
	}
	if len(keep) == 0 {
		return nil, refusal.New(refusal.Invalid, "choose at least one change", "the selection leaves no change to apply")
	}
	return keep, nil
}
