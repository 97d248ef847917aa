package flow

import (
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
// output (see Scrub).
func (r *Repo) Root() string { return r.g.Root }

// Config reads one value of git's configuration.
func (r *Repo) Config(key string) (string, bool) { return r.g.Config.Get(key) }

// Interrupted lists the ids of applies that a crash interrupted, which
// Recover finishes or undoes.
func (r *Repo) Interrupted() ([]string, error) { return consent.Interrupted(r.g) }

// Recovery is what Recover did with one interrupted apply.
type Recovery = consent.Recovery

// Attention is a path a human must look at after a recovery, and why.
type Attention = consent.Attention

// Recover finishes or undoes every interrupted apply, from its journal.
func Recover(r *Repo) ([]Recovery, error) { return consent.Recover(r.g) }

// Consents is the one consent rule of every door: exactly the word yes,
// as a human typed it, consents; anything else declines.
func Consents(line string) bool { return consent.Decide(line) == consent.Yes }

// ErrInterrupted is the cause of an apply rolled back on a signal.
var ErrInterrupted = consent.ErrInterrupted

// FromGit wraps a repository that a room already opened (the session's
// engine, tests of the rooms below flow).
func FromGit(g *gitstage.Repo) *Repo { return &Repo{g: g} }
