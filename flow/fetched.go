package flow

import (
	"errors"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/nika-dev/nika/changeset"
	"github.com/nika-dev/nika/gitstage"
	"github.com/nika-dev/nika/preview"
	"github.com/nika-dev/nika/refusal"
)

// A proposal pushed from one clone (nika push) is reviewed in another: there
// it has no record in the registry, only the ref a fetch brought,
// refs/nika/proposals/<id>. loadFetched re-derives it from its commit alone,
// as nika verify does: the id from the manifest of the commit's own
// objects, which must be the id the ref and the trailer name, and every
// blob from its bytes. The record it gets is in memory, pending, for the
// branch HEAD is on here; it is written to the registry only when
// something is decided (an apply, a discard, comments), so that a consent
// answers it once here too. Its base is the commit it was built on in the
// other clone: when that is not HEAD here, the check before asking refuses
// it as stale, with the fix to bring it forward (Rebase).

// loadFetched finds a fetched proposal by id or prefix. It returns an
// error of class NotFound when no fetched ref matches.
func loadFetched(repo *Repo, prefix string) (*Proposed, error) {
	r := repo.g
	prefix = strings.ToLower(strings.TrimSpace(prefix))
	refs, err := r.ProposalRefs()
	if err != nil {
		return nil, err
	}
	var hits []gitstage.Fetched
	for _, f := range refs {
		if strings.HasPrefix(f.ID, prefix) {
			hits = append(hits, f)
		}
	}
	switch len(hits) {
	case 0:
		return nil, refusal.New(refusal.NotFound, "", "no proposal has the id %s", prefix).WithFix(refusal.ListProposals, "")
	case 1:
	default:
		return nil, refusal.New(refusal.Ambiguous, "give more characters of the id", "%d fetched proposals start with %s", len(hits), prefix)
	}
	f := hits[0]
	l, err := r.LoadHex(f.Commit, preview.ID)
	if err != nil {
		return nil, err
	}
	ref := gitstage.ProposalRefPrefix + f.ID
	if l.Proposal.ID != f.ID || l.ClaimedID != f.ID {
		return nil, refusal.New(refusal.TamperedTrailer, "verify it to see why; a proposal is trusted only when its objects prove its id",
			"the fetched %s does not prove its id: its objects re-derive proposal %s", ref, short(l.Proposal.ID))
	}
	if l.Parents > 1 {
		return nil, refusal.New(refusal.WrongParent, "", "the fetched %s is a merge; a proposal has one parent", ref)
	}
	for _, c := range l.Proposal.Set.Changes {
		for _, s := range []*changeset.Side{c.Before, c.After} {
			if s != nil && gitstage.BlobHash(s.Bytes).String() != s.Blob {
				return nil, refusal.New(refusal.CorruptObject, "run git fsck --strict, and fetch it again from a good copy",
					"the blob %s of %s in the fetched %s does not hash to its id", s.Blob, changeset.Quote(string(c.Path)), ref)
			}
		}
	}
	head, err := r.ReadHead()
	if err != nil {
		return nil, err
	}
	p := l.Proposal
	p.Set.Branch, p.Set.Root = head.Branch, r.Root
	c, err := r.Commit(plumbing.NewHash(f.Commit))
	if err != nil {
		return nil, err
	}
	rec := &gitstage.Record{ID: p.ID, Commit: p.Commit, Base: p.Set.Base, Branch: head.Branch, Goal: p.Set.Goal,
		State: gitstage.Pending, Created: c.Committer.When.Unix()}
	if rec.Created == 0 {
		rec.Created = time.Now().Unix()
	}
	return &Proposed{Proposal: p, Record: rec, repo: r, Signing: Signing(r)}, nil
}

// notFound reports an error of class NotFound.
func notFound(err error) bool {
	var ce *refusal.Error
	return errors.As(err, &ce) && ce.Class == refusal.NotFound
}
