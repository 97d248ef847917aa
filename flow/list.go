package flow

import (
	"github.com/go-git/go-git/v5/plumbing"

	"github.com/nika-dev/nika/gitstage"
)

// State is where a proposal stands, as a door shows it: its recorded life
// (pending, applied, discarded) and, for a pending proposal, what the
// project did around it since (stale: HEAD moved; pruned: git gc removed
// its objects).
type State string

const (
	Pending   State = "pending"
	Applied   State = "applied"
	Discarded State = "discarded"
	Stale     State = "stale"
	Pruned    State = "pruned"
)

// Listed is one proposal of the registry with the state a door shows.
type Listed struct {
	ID     string
	Commit string
	Base   string // "" when HEAD was unborn
	Branch string // the full ref, "" when detached
	Goal   string
	State  State
}

// List reads the registry, newest first: pending (and stale, pruned)
// proposals, or with all, every proposal.
func List(repo *Repo, all bool) ([]Listed, error) {
	r := repo.g
	recs, err := r.Records()
	if err != nil {
		return nil, err
	}
	head, err := r.ReadHead()
	if err != nil {
		return nil, err
	}
	var out []Listed
	for _, rec := range recs {
		if rec.State != gitstage.Pending && !all {
			continue
		}
		out = append(out, Listed{ID: rec.ID, Commit: rec.Commit, Base: rec.Base, Branch: rec.Branch, Goal: rec.Goal,
			State: stateOf(r, rec, head)})
	}
	return out, nil
}

// stateOf derives the displayed state of a record against HEAD.
func stateOf(r *gitstage.Repo, rec *gitstage.Record, head gitstage.Head) State {
	switch {
	case rec.State != gitstage.Pending:
		return State(rec.State)
	case IsStale(rec, head):
		return Stale
	case !r.HasObject(plumbing.NewHash(rec.Commit)):
		return Pruned
	}
	return Pending
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
