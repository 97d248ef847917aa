package gitstage

import (
	"bufio"
	"container/heap"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"time"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/nika-dev/nika/changeset"
	"github.com/nika-dev/nika/refusal"
)

// CommitInfo is what review and proof read of a commit, in plain types so
// that packages without go-git can use it.
type CommitInfo struct {
	Hash      string
	Tree      string
	Parents   []string
	Message   string
	Author    Person
	Committer Person
}

// Person is a commit's author or committer.
type Person struct {
	Name  string
	Email string
	When  time.Time
}

// Info reads a commit by its hex id.
func (r *Repo) Info(hex string) (*CommitInfo, error) {
	if !plumbing.IsHash(hex) {
		return nil, refusal.New(refusal.Invalid, "", "%q is not a commit id", hex)
	}
	c, err := r.Commit(plumbing.NewHash(hex))
	if err != nil {
		return nil, err
	}
	return infoOf(c), nil
}

func infoOf(c *object.Commit) *CommitInfo {
	ci := &CommitInfo{Hash: c.Hash.String(), Tree: c.TreeHash.String(), Message: c.Message,
		Author:    Person{c.Author.Name, c.Author.Email, c.Author.When},
		Committer: Person{c.Committer.Name, c.Committer.Email, c.Committer.When}}
	for _, p := range c.ParentHashes {
		ci.Parents = append(ci.Parents, p.String())
	}
	return ci
}

// HasCommit reports whether the object database holds the object hex.
func (r *Repo) HasCommit(hex string) bool {
	return plumbing.IsHash(hex) && r.HasObject(plumbing.NewHash(hex))
}

// LoadHex is Load for a commit named by its hex id.
func (r *Repo) LoadHex(hex string, id IDFunc) (*Loaded, error) {
	if !plumbing.IsHash(hex) {
		return nil, refusal.New(refusal.Invalid, "", "%q is not a commit id", hex)
	}
	return r.Load(plumbing.NewHash(hex), id)
}

// Shallow lists the commits .git/shallow names: those whose parents a
// shallow clone does not have.
func (r *Repo) Shallow() map[string]bool {
	out := map[string]bool{}
	f, err := os.Open(filepath.Join(r.CommonDir, "shallow"))
	if err != nil {
		return out
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if s := strings.TrimSpace(sc.Text()); plumbing.IsHash(s) {
			out[s] = true
		}
	}
	return out
}

// ResolveRev resolves one revision to a commit id, as git rev-parse does
// for the forms CI uses: HEAD, HEAD~N, HEAD^, @, a full or abbreviated
// commit id, a ref name (refs/..., a branch, a tag, origin/main for
// refs/remotes/origin/main), each with ~N and ^N suffixes.
func (r *Repo) ResolveRev(rev string) (string, error) {
	rev = strings.TrimSpace(rev)
	if rev == "" {
		return "", refusal.New(refusal.Invalid, "name a commit, a ref or a range A..B", "an empty revision")
	}
	// HEAD is per worktree: resolve it here, the rest through go-git.
	rest := ""
	switch {
	case rev == "@" || rev == "HEAD":
	case strings.HasPrefix(rev, "HEAD~") || strings.HasPrefix(rev, "HEAD^"):
		rest = rev[len("HEAD"):]
	case strings.HasPrefix(rev, "@~") || strings.HasPrefix(rev, "@^"):
		rest = rev[1:]
	default:
		return r.resolveGoGit(rev, rev)
	}
	h, err := r.ReadHead()
	if err != nil {
		return "", err
	}
	if h.Unborn() {
		return "", refusal.New(refusal.NotFound, "make a first commit", "HEAD names %s, which has no commit yet", ShortBranch(h.Branch))
	}
	if rest == "" {
		return h.Commit.String(), nil
	}
	return r.resolveGoGit(h.Commit.String()+rest, rev)
}

func (r *Repo) resolveGoGit(rev, shown string) (string, error) {
	repo, err := git.Open(r.store, nil)
	if err != nil {
		return "", refusal.New(refusal.Internal, "", "open the repository: %v", err)
	}
	h, err := repo.ResolveRevision(plumbing.Revision(rev))
	if err != nil || h == nil || h.IsZero() {
		why := "no commit, branch, tag or ref has that name"
		if err != nil && !errors.Is(err, plumbing.ErrReferenceNotFound) && !errors.Is(err, plumbing.ErrObjectNotFound) {
			why = err.Error()
		}
		if errors.Is(err, plumbing.ErrObjectNotFound) {
			why = "an object on the way is missing (a shallow clone?)"
		}
		return "", refusal.New(refusal.NotFound, "check the name with git rev-parse "+shown,
			"cannot resolve the revision %s: %s", changeset.Quote(shown), why)
	}
	return h.String(), nil
}

// RevList lists the commits reachable from include and not from exclude,
// newest first by committer date (children before their parents), as git
// log ^exclude include does. A parent missing from the object database (a
// shallow clone's boundary) ends the walk there; verify reports it.
//
// Both sides are walked together, newest first, and the excluded side
// paints what it reaches; the walk stops once only painted commits are
// left (after a few more, for clock skew, as git's own walk does), so
// `origin/main..HEAD` costs the new commits and the few below them, not the
// whole history of origin/main.
func (r *Repo) RevList(include, exclude []string, limit int) ([]*CommitInfo, error) {
	hidden := map[plumbing.Hash]bool{}
	seen := map[plumbing.Hash]bool{}
	q := &commitQueue{}
	n := 0
	push := func(h plumbing.Hash, uninteresting bool) error {
		switch {
		case uninteresting && hidden[h]:
			return nil
		case uninteresting:
			hidden[h] = true
		case seen[h] || hidden[h]:
			return nil
		}
		seen[h] = true
		c, err := r.Commit(h)
		if err != nil {
			if refusal.ClassOf(err) == refusal.NotFound {
				return nil
			}
			return err
		}
		n++
		heap.Push(q, queued{c, n})
		return nil
	}
	for _, x := range exclude {
		if err := push(plumbing.NewHash(x), true); err != nil {
			return nil, err
		}
	}
	for _, x := range include {
		if err := push(plumbing.NewHash(x), false); err != nil {
			return nil, err
		}
	}
	const slop = 5 // commits walked past the point where all look painted
	var candidates []*object.Commit
	left := slop
	for q.Len() > 0 {
		c := heap.Pop(q).(queued).c
		paint := hidden[c.Hash]
		if !paint {
			candidates = append(candidates, c)
		}
		for _, p := range c.ParentHashes {
			if err := push(p, paint); err != nil {
				return nil, err
			}
		}
		if q.allHidden(hidden) {
			if left--; left <= 0 {
				break
			}
		} else {
			left = slop
		}
	}
	var out []*CommitInfo
	for _, c := range candidates {
		if hidden[c.Hash] {
			continue // painted after it was listed (clock skew)
		}
		if limit > 0 && len(out) == limit {
			break
		}
		out = append(out, infoOf(c))
	}
	return out, nil
}

// queued is a commit in the walk with the order it was found in: among
// equal dates, the one found first (a child before its parents) comes first.
type queued struct {
	c   *object.Commit
	seq int
}

type commitQueue []queued

func (q commitQueue) Len() int { return len(q) }
func (q commitQueue) Less(i, j int) bool {
	a, b := q[i].c.Committer.When, q[j].c.Committer.When
	if !a.Equal(b) {
		return a.After(b)
	}
	return q[i].seq < q[j].seq
}
func (q commitQueue) allHidden(hidden map[plumbing.Hash]bool) bool {
	for _, e := range q {
		if !hidden[e.c.Hash] {
			return false
		}
	}
	return true
}

func (q commitQueue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *commitQueue) Push(x any)   { *q = append(*q, x.(queued)) }
func (q *commitQueue) Pop() any {
	old := *q
	x := old[len(old)-1]
	*q = old[:len(old)-1]
	return x
}
