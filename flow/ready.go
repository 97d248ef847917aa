package flow

import (
	"errors"

	"github.com/nika-dev/nika/consent"
	"github.com/nika-dev/nika/gitstage"
	"github.com/nika-dev/nika/refusal"
)

// Ready is the check before asking: it refuses, with the class, text and
// fix the apply would give after a yes, a proposal that the apply would
// refuse, so that a human is never asked to consent to what will not be
// honoured. It is consent.Check (the branch and HEAD, every witness of
// bytes, mode and type, the index, locks held by another process, the
// objects, the open-file limit), the code the apply runs again under
// git's locks, plus the signature git's configuration asks for.
func Ready(repo *Repo, p *Proposed) error {
	if err := Undecided(p); err != nil {
		return err
	}
	r := repo.g
	if err := consent.Check(r, p.Record, p.Proposal); err != nil {
		if consent.StateOf(err) == consent.Stale {
			// HEAD moved on the proposal's own branch: it can be brought
			// forward rather than proposed again.
			var e *refusal.Error
			if head, herr := r.ReadHead(); herr == nil && errors.As(err, &e) {
				if f := staleFix(head, p); f != e.Fix {
					e.Hint = "" // the door words the other fix
					e.WithFix(f, p.ID())
				}
			}
		}
		return err
	}
	if _, err := r.Signer(); err != nil {
		// git's configuration asks for a signature that cannot be made:
		// the apply would refuse after the yes.
		return err
	}
	return nil
}

// StatusOf is the state a door shows for a proposal: applied or discarded
// as recorded, or, for a pending one, what the check before asking finds
// (pending when a yes would apply it; stale, edited, locked, pruned or
// blocked otherwise, with the refusal that says why).
func StatusOf(repo *Repo, p *Proposed) (State, error) {
	switch p.Record.State {
	case gitstage.Applied:
		return Applied, nil
	case gitstage.Discarded:
		return Discarded, nil
	}
	err := Ready(repo, p)
	return consent.StateOf(err), err
}
