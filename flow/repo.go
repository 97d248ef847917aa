package flow

import (
	"context"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/nika-dev/nika/consent"
	"github.com/nika-dev/nika/gitstage"
)

// Repo is a project as the doors see it: a git repository with a working
// tree, found as git finds it. The doors reach git only through flow, so
// that every door gives the same answers; rooms that need the repository
// itself (proof, the session's engine) take it from Git.
type Repo struct{ g *gitstage.Repo }

// Open finds the repository around dir as git does.
func Open(dir string) (*Repo, error) {
	g, err := gitstage.Open(dir)
	if err != nil {
		return nil, err
	}
	return &Repo{g: g}, nil
}

// Git is the repository itself, for the rooms that read git objects
// (proof, the session's engine). Doors do not call it.
func (r *Repo) Git() *gitstage.Repo { return r.g }

// Root is the working tree's absolute root. It never reaches machine
// output (see Scrubber).
func (r *Repo) Root() string { return r.g.Root }

// Config reads one value of git's configuration.
func (r *Repo) Config(key string) (string, bool) { return r.g.Config.Get(key) }

// Interrupted lists the ids of applies that a crash interrupted, which
// Recover finishes or undoes.
func (r *Repo) Interrupted() ([]string, error) { return consent.Interrupted(r.g) }

// Recovery is what Recover did with one interrupted apply, and, for one
// it finished, the verdict of the checks after it.
type Recovery struct {
	consent.Recovery
	// Verdict is the post-apply check of an apply that recovery finished,
	// recorded as its git note as a completed apply's is; nil otherwise.
	Verdict *Verdict `json:"verdict,omitempty"`
	// NoteError says the verdict could not be recorded as a git note.
	NoteError string `json:"note_error,omitempty"`
}

// Attention is a path a human must look at after a recovery, and why.
type Attention = consent.Attention

// Recover finishes or undoes every interrupted apply, from its journal. An
// apply it finishes gets what a completed one gets after the yes: the
// post-apply check of the files on disk and the project's hooks, recorded
// as a git note on the applied commit (unless one is there already).
func Recover(r *Repo) ([]Recovery, error) {
	recs, err := consent.Recover(r.g)
	out := make([]Recovery, 0, len(recs))
	for _, rc := range recs {
		o := Recovery{Recovery: rc}
		if rc.State == "applied" {
			o.Verdict, o.NoteError = recoveredVerdict(r, rc)
		}
		out = append(out, o)
	}
	return out, err
}

// recoveredVerdict judges an apply that recovery finished, as PostApply
// judges one that completed.
func recoveredVerdict(r *Repo, rc consent.Recovery) (*Verdict, string) {
	commit := plumbing.NewHash(rc.Commit)
	if note, err := r.g.Note(gitstage.NotesRef, commit); err == nil && note != "" {
		return nil, "" // the apply recorded its verdict before the crash
	}
	p, err := Load(r, rc.ID)
	if err != nil {
		return nil, err.Error()
	}
	res := &consent.Result{Commit: rc.Commit, Paths: p.Proposal.Set.Paths()}
	hs, err := PrepareHooks(r)
	if err != nil {
		return nil, err.Error()
	}
	v, nerr := PostApply(context.Background(), r, p, res, hs, HookOptions{})
	if nerr != nil {
		return &v, nerr.Error()
	}
	return &v, ""
}

// Consents is the one consent rule of every door: exactly the word yes,
// as a human typed it, consents; anything else declines.
func Consents(line string) bool { return consent.Decide(line) == consent.Yes }

// ErrInterrupted is the cause of an apply rolled back on a signal.
var ErrInterrupted = consent.ErrInterrupted

// FromGit wraps a repository that a room already opened (the session's
// engine, tests of the rooms below flow).
func FromGit(g *gitstage.Repo) *Repo { return &Repo{g: g} }
