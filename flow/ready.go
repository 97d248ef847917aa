package flow

import (
	"github.com/go-git/go-git/v5/plumbing"

	"github.com/nika-dev/nika/gitstage"
	"github.com/nika-dev/nika/refusal"
)

// Ready is the check before asking: it refuses, with the class and fix the
// apply would give after a yes, a proposal that the apply would refuse, so
// that a human is never asked to consent to what will not be honoured. The
// apply checks everything again under git's locks.
func Ready(repo *Repo, p *Proposed) error {
	if err := Undecided(p); err != nil {
		return err
	}
	r := repo.g
	head, err := r.ReadHead()
	if err != nil {
		return err
	}
	want := plumbing.ZeroHash
	if p.Proposal.Set.Base != "" {
		want = plumbing.NewHash(p.Proposal.Set.Base)
	}
	if why := gitstage.HeadMoved(head, p.Record.Branch, want); why != "" {
		return gitstage.Stale(why).WithFix(staleFix(head, p), p.ID())
	}
	if !r.HasObject(plumbing.NewHash(p.Proposal.Commit)) {
		return refusal.New(refusal.NotFound, "",
			"the proposal commit %s is missing from the object database (pruned by git gc?) · nothing was applied", p.Proposal.Commit).WithFix(refusal.Repropose, p.ID())
	}
	if _, err := r.Signer(); err != nil {
		// git's configuration asks for a signature that cannot be made:
		// the apply would refuse after the yes.
		return err
	}
	return nil
}
