package flow

import (
	"context"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/nika-dev/nika/changeset"
	"github.com/nika-dev/nika/consent"
	"github.com/nika-dev/nika/gitstage"
	"github.com/nika-dev/nika/hooks"
	"github.com/nika-dev/nika/preview"
)

// PrepareHooks snapshots the project's post-apply hooks before the apply,
// so that the version that runs is the one from before it.
func PrepareHooks(repo *Repo) (*hooks.Set, error) { return hooks.Snapshot(repo.g.Root) }

// PostApply runs the on-disk check of every workflow and project file the
// set wrote, then the project's hooks, and records the verdict as a git
// note on the applied commit under refs/notes/nika. A failing verdict does
// not undo the apply, which already happened with consent.
func PostApply(ctx context.Context, repo *Repo, p *Proposed, res *consent.Result, hs *hooks.Set, opt hooks.Options) (hooks.Verdict, error) {
	r := repo.g
	env := hooks.Env{ProposalID: p.Proposal.ID, Commit: res.Commit, Base: p.Proposal.Set.Base, Branch: p.Record.Branch, Root: r.Root}
	for _, path := range res.Paths {
		env.Paths = append(env.Paths, string(path))
	}
	for _, c := range p.Proposal.Set.Changes {
		switch c.Kind {
		case changeset.Delete:
			env.Removed = append(env.Removed, string(c.Path))
		case changeset.Move:
			env.Removed = append(env.Removed, string(c.From))
		}
	}
	v := hooks.Judge(ctx, hs, env, opt)
	err := r.AddNote(gitstage.NotesRef, plumbing.NewHash(res.Commit), v.Text()+noteFeedback(r, p))
	return v, err
}

// Verdict is the post-apply verdict: the checker on the files as written,
// and the project's hooks.
type Verdict = hooks.Verdict

// HookOptions tune the post-apply hooks (timeouts, output caps).
type HookOptions = hooks.Options

// Accepted is what a human's yes did: the apply, and the post-apply
// verdict (NoteErr says when it could not be recorded as a git note).
type Accepted struct {
	Result  *consent.Result
	Verdict hooks.Verdict
	NoteErr error
}

// Accept carries out a human's yes for a pending proposal, the same for
// every door: it snapshots the hooks, applies (rolling back on SIGINT or
// SIGTERM until the branch moves, and fsyncing when git's configuration
// asks), then runs the post-apply check and hooks and records the verdict.
func Accept(ctx context.Context, repo *Repo, p *Proposed, hopt HookOptions) (*Accepted, error) {
	r := repo.g
	if err := Undecided(p); err != nil {
		return nil, err
	}
	hs, err := PrepareHooks(repo)
	if err != nil {
		return nil, err
	}
	interrupted, stop := consent.WatchSignals()
	res, err := Apply(repo, p, consent.Options{Sync: r.SyncWanted(), Interrupted: interrupted})
	stop()
	if err != nil {
		return nil, err
	}
	recordPart(r, p)
	v, noteErr := PostApply(ctx, repo, p, res, hs, hopt)
	return &Accepted{Result: res, Verdict: v, NoteErr: noteErr}, nil
}

// Commit is the commit the branch moved to.
func (a *Accepted) Commit() string { return a.Result.Commit }

// witnessed is the proposal the apply transaction needs: the same commit,
// id, record and witnesses, loaded without the files' bytes
// (gitstage.LoadWitnessed); the transaction reads each side back from the
// object database, one file at a time, so that a large set never holds
// every file's before and after bytes at once (law 1: the bytes still come
// out of the proposal tree). After the yes nothing renders p again, so its
// own bytes are released too. Where the commit cannot be re-derived so
// (it would then fail the apply's own checks), p is applied as it is.
func witnessed(r *gitstage.Repo, p *Proposed) *Proposed {
	l, err := r.LoadWitnessed(plumbing.NewHash(p.Proposal.Commit), preview.ID)
	if err != nil || l.Proposal.ID != p.Proposal.ID {
		return p
	}
	wp := l.Proposal
	wp.Commit, wp.Set.Branch, wp.Set.Root = p.Proposal.Commit, p.Proposal.Set.Branch, p.Proposal.Set.Root
	for _, c := range p.Proposal.Set.Changes {
		for _, side := range []*changeset.Side{c.Before, c.After} {
			if side != nil {
				side.Bytes = nil
			}
		}
	}
	q := *p
	q.Proposal = wp
	return &q
}
