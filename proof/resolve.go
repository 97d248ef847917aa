// Package proof reviews and proves applied proposals from git objects
// alone: nika log lists them with their witnesses and recorded verdicts,
// nika verify re-derives each one's id from its commit and parent and says
// what does not hold, and checks a proposal commit's signature by git's
// rules (signature.go): nika signs only after a human's yes, so a good
// signature by a human's allowed key proves that human's consent. It reads
// git only through gitstage.
package proof

import (
	"strings"

	"github.com/nika-dev/nika/changeset"
	"github.com/nika-dev/nika/gitstage"
	"github.com/nika-dev/nika/refusal"
)

// Selection is what a revision argument names: a walk (commits reachable
// from Include and not from Exclude) or exactly one commit.
type Selection struct {
	Include []string
	Exclude []string
	Single  bool   // the argument named one commit (a commit, a ref, an id)
	Label   string // the argument as given, "" for the default
	// ExpectID is the proposal id a refs/nika/proposals/<id> argument
	// names: the commit must be that proposal, not merely some proven one.
	ExpectID string
}

// Select parses a revision argument: "" (HEAD's history), A..B (either
// side may be empty, meaning HEAD), a commit id, a ref (refs/..., a branch,
// a tag, origin/main), HEAD~N, or a proposal id or prefix (through the
// registry). With single, a lone revision names that commit only (verify);
// otherwise it names its history (log).
func Select(r *gitstage.Repo, arg string, single bool) (*Selection, error) {
	arg = strings.TrimSpace(arg)
	if arg == "" {
		head, err := r.ReadHead()
		if err != nil {
			return nil, err
		}
		if head.Unborn() {
			return &Selection{}, nil // nothing committed yet: nothing to list
		}
		return &Selection{Include: []string{head.Commit.String()}}, nil
	}
	if strings.Contains(arg, "...") {
		return nil, refusal.New(refusal.Invalid, "use A..B: the commits of B that A lacks",
			"the symmetric range %s is not supported", changeset.Quote(arg))
	}
	if a, b, ok := strings.Cut(arg, ".."); ok {
		if a == "" {
			a = "HEAD"
		}
		if b == "" {
			b = "HEAD"
		}
		ha, err := r.ResolveRev(a)
		if err != nil {
			return nil, err
		}
		hb, err := r.ResolveRev(b)
		if err != nil {
			return nil, err
		}
		return &Selection{Include: []string{hb}, Exclude: []string{ha}, Label: arg}, nil
	}
	h, err := resolveOne(r, arg)
	if err != nil {
		return nil, err
	}
	sel := &Selection{Include: []string{h}, Single: single, Label: arg}
	if id, ok := strings.CutPrefix(arg, gitstage.ProposalRefPrefix); ok && !strings.ContainsAny(id, "~^") {
		sel.ExpectID = id
	}
	return sel, nil
}

// resolveOne resolves a revision, or else a proposal id through the
// registry (a 64-hex id is never a SHA-1 commit id, so it goes first).
func resolveOne(r *gitstage.Repo, arg string) (string, error) {
	isHex := len(arg) >= gitstage.MinPrefix && strings.Trim(strings.ToLower(arg), "0123456789abcdef") == ""
	if isHex && len(arg) == 64 {
		rec, err := r.Find(arg)
		if err != nil {
			return "", err
		}
		return rec.Landed(), nil
	}
	h, err := r.ResolveRev(arg)
	if err == nil {
		return h, nil
	}
	if isHex {
		if rec, ferr := r.Find(arg); ferr == nil {
			return rec.Landed(), nil
		} else if refusal.ClassOf(ferr) == refusal.Ambiguous {
			return "", ferr
		}
	}
	return "", err
}

// Commits lists the selected commits, newest first.
func (s *Selection) Commits(r *gitstage.Repo) ([]*gitstage.CommitInfo, error) {
	if len(s.Include) == 0 {
		return nil, nil
	}
	if s.Single {
		ci, err := r.Info(s.Include[0])
		if err != nil {
			return nil, err
		}
		return []*gitstage.CommitInfo{ci}, nil
	}
	return r.RevList(s.Include, s.Exclude, 0)
}
