package flow

import (
	"github.com/go-git/go-git/v5/plumbing"

	"github.com/nika-dev/nika/consent"
	"github.com/nika-dev/nika/gitstage"
	"github.com/nika-dev/nika/preview"
)

// State is where a proposal stands, as a door shows it: its recorded life
// (applied, discarded) and, for a pending proposal, what the read-only
// check before asking finds (consent.Check): pending (a yes would apply
// it), stale (HEAD moved), edited (a witnessed file changed), locked
// (another process holds a git lock), pruned (git gc removed its objects),
// blocked (any other refusal).
type State = consent.State

const (
	Pending   = consent.Pending
	Applied   = consent.Applied
	Discarded = consent.Discarded
	Stale     = consent.Stale
	Edited    = consent.Edited
	Locked    = consent.Locked
	Pruned    = consent.Pruned
	Blocked   = consent.Blocked
)

// Listed is one proposal of the registry with the state a door shows.
type Listed struct {
	ID     string
	Commit string
	Base   string // "" when HEAD was unborn
	Branch string // the full ref, "" when detached
	Goal   string
	State  State
	// Landed is, for an applied proposal, the commit the branch moved to
	// (the proposal commit, or its signed twin); "" otherwise.
	Landed string
	// Decided is when it was applied or discarded (Unix seconds), 0 while
	// it is pending.
	Decided int64
}

// List reads the registry, newest first: pending (and stale, pruned)
// proposals, or with all, every proposal.
func List(repo *Repo, all bool) ([]Listed, error) {
	r := repo.g
	recs, err := r.Records()
	if err != nil {
		return nil, err
	}
	var out []Listed
	for _, rec := range recs {
		if rec.State != gitstage.Pending && !all {
			continue
		}
		l := Listed{ID: rec.ID, Commit: rec.Commit, Base: rec.Base, Branch: rec.Branch, Goal: rec.Goal,
			State: stateOf(r, rec), Decided: rec.Decided}
		if rec.State == gitstage.Applied {
			l.Landed = rec.Landed()
		}
		out = append(out, l)
	}
	return out, nil
}

// stateOf derives the displayed state of a record from the check before
// asking, which a pending proposal's commit is loaded for.
func stateOf(r *gitstage.Repo, rec *gitstage.Record) State {
	if rec.State != gitstage.Pending {
		st, _ := consent.Status(r, rec, nil)
		return st
	}
	// The check needs the witnesses, not the bytes.
	l, err := r.LoadWitnessed(plumbing.NewHash(rec.Commit), preview.ID)
	if err != nil || l.Proposal.ID != rec.ID {
		st, _ := consent.Status(r, rec, nil)
		return st
	}
	l.Proposal.Set.Branch, l.Proposal.Set.Root = rec.Branch, r.Root
	st, _ := consent.Status(r, rec, l.Proposal)
	return st
}

// ID is the proposal's id.
func (p *Proposed) ID() string { return p.Proposal.ID }

// State is the proposal's recorded state.
func (p *Proposed) State() State { return State(p.Record.State) }

// Branch is the short name of the branch the proposal applies to, or
// "HEAD (detached)".
func (p *Proposed) Branch() string { return BranchName(p.Record.Branch) }

// BranchName is a full ref's short name for a human, or "HEAD (detached)".
func BranchName(ref string) string {
	if ref == "" {
		return "HEAD (detached)"
	}
	return gitstage.ShortBranch(ref)
}
