package flow

import (
	"encoding/json"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/nika-dev/nika/changeset"
	"github.com/nika-dev/nika/gitstage"
	"github.com/nika-dev/nika/preview"
	"github.com/nika-dev/nika/refusal"
)

// maxGenerations bounds the search for a free identity: a human would have
// to discard or undo the same proposal this many times.
const maxGenerations = 1000

// stage gives a set its identity and its commit, once, for every way a
// proposal is made (propose, a derived subset, a revert, check --fix):
//
//   - a set whose id is pending already is that proposal: the same id and
//     the same commit, and nothing new is written but the objects git
//     already had (again reports it);
//   - a set whose id was consumed (discarded, or applied and then undone
//     by the human, as git reset does) is proposed anew under the next
//     generation, which the manifest and the commit carry, so that an
//     undo never leaves a reply that can no longer be proposed;
//   - otherwise the commit is written and the proposal registered.
//
// A consent answers one id once: the consumed id stays consumed.
func stage(r *gitstage.Repo, base *gitstage.Base, set *changeset.Set, runTrailer string, notes json.RawMessage) (p *changeset.Proposal, rec *gitstage.Record, again bool, err error) {
	p, err = base.Prepare(set)
	if err != nil {
		return nil, nil, false, err
	}
	for gen := 0; gen < maxGenerations; gen++ {
		p.Set.Generation = gen
		p.ID = preview.ID(p)
		rec, err = r.Record(p.ID)
		if err != nil {
			return nil, nil, false, err
		}
		switch {
		case rec == nil:
			if err := r.WriteCommit(p, runTrailer); err != nil {
				return nil, nil, false, err
			}
			rec, err = r.Register(p, notes)
			return p, rec, false, err
		case rec.State == gitstage.Pending:
			changed := false
			if r.HasObject(plumbing.NewHash(rec.Commit)) {
				p.Commit = rec.Commit
			} else {
				// git gc pruned the commit: write it again.
				if err := r.WriteCommit(p, runTrailer); err != nil {
					return nil, nil, false, err
				}
				rec.Commit, changed = p.Commit, true
			}
			if co := gitstage.CheckoutOf(p); !gitstage.SameCheckout(rec.Checkout, co) {
				// The same commit, checked out otherwise now (the line
				// endings or a filter changed in git's configuration):
				// the record holds what this preview shows.
				rec.Checkout, changed = co, true
			}
			if rec.Branch != set.Branch {
				// Proposed again from another branch at the same base:
				// it applies where the human is now.
				rec.Branch, changed = set.Branch, true
			}
			if changed {
				if err := r.SaveRecord(rec); err != nil {
					return nil, nil, false, err
				}
			}
			return p, rec, true, nil
		}
	}
	return nil, nil, false, refusal.New(refusal.Internal, "change the input or the goal",
		"the same proposal was discarded or undone %d times", maxGenerations)
}
