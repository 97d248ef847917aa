package flow

import (
	"github.com/nika-dev/nika/gitstage"
)

// ProposalRefPrefix is where published proposals live on a remote, and
// locally once fetched: refs/nika/proposals/<id>.
const ProposalRefPrefix = gitstage.ProposalRefPrefix

// Pushed is what Push did.
type Pushed struct {
	ID, Commit string
	Remote     string // the remote's configured name, "" for a URL or path
	Ref        string
	Updated    bool // false when the remote already held it
}

// Push publishes a proposal to a remote as refs/nika/proposals/<id>, so CI
// can verify it before anyone consents. remote "" is origin.
func Push(repo *Repo, remote, id string) (*Pushed, error) {
	p, err := Load(repo, id)
	if err != nil {
		return nil, err
	}
	rm, err := repo.g.ResolveRemote(remote)
	if err != nil {
		return nil, err
	}
	updated, err := repo.g.PushProposal(rm, p.Proposal.ID, p.Proposal.Commit)
	if err != nil {
		return nil, err
	}
	return &Pushed{ID: p.Proposal.ID, Commit: p.Proposal.Commit, Remote: rm.Name, Ref: ProposalRefPrefix + p.Proposal.ID, Updated: updated}, nil
}

// Fetched is one published proposal fetched into refs/nika/proposals/.
type Fetched struct {
	ID, Commit, Ref string
}

// Fetch fetches the proposals published on a remote ("" is origin); it
// returns the remote's configured name and every local
// refs/nika/proposals/* after the fetch.
func Fetch(repo *Repo, remote string) (string, []Fetched, error) {
	rm, err := repo.g.ResolveRemote(remote)
	if err != nil {
		return "", nil, err
	}
	got, err := repo.g.FetchProposals(rm)
	if err != nil {
		return rm.Name, nil, err
	}
	out := make([]Fetched, 0, len(got))
	for _, f := range got {
		out = append(out, Fetched{ID: f.ID, Commit: f.Commit, Ref: ProposalRefPrefix + f.ID})
	}
	return rm.Name, out, nil
}
