package gitstage

import (
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/nika-dev/nika/changeset"
	"github.com/nika-dev/nika/refusal"
)

// Trailer keys nika writes under the goal of a proposal commit.
const (
	TrailerProposal = "Nika-Proposal" // the proposal id (blake3 of the manifest)
	TrailerMove     = "Nika-Move"     // {"from":..., "to":...} for each move
	TrailerRun      = "Nika-Run"      // the run request, canonical JSON
	// TrailerGeneration counts the proposals of the same content and base
	// before this one that a human discarded or undid (absent for the
	// first), so that proposing again after an undo has its own id.
	TrailerGeneration = "Nika-Generation"
	// TrailerRebasedFrom names the proposal a rebased one brings forward.
	TrailerRebasedFrom = "Nika-Rebased-From"
)

// IDFunc computes a proposal's id from its manifest (preview.ID).
type IDFunc func(*changeset.Proposal) string

// Stage writes a set into the object database: its blobs, the trees along
// changed paths, and a commit whose parent is the base and whose message is
// the goal with trailers. It creates no ref. It fills every After.Blob.
func (b *Base) Stage(set *changeset.Set, id IDFunc, runTrailer string) (*changeset.Proposal, error) {
	p, err := b.Prepare(set)
	if err != nil {
		return nil, err
	}
	p.ID = id(p)
	if err := b.r.WriteCommit(p, runTrailer); err != nil {
		return nil, err
	}
	return p, nil
}

// Prepare writes a set's blobs and the trees along its changed paths, and
// returns the proposal without its id and commit: the content that the
// manifest binds. It fills every After.Blob. Writing the same set twice
// writes the same objects (git's objects are named by their bytes).
func (b *Base) Prepare(set *changeset.Set) (*changeset.Proposal, error) {
	r := b.r
	ops := map[string]*object.TreeEntry{} // path -> new entry, nil to delete
	for i := range set.Changes {
		c := &set.Changes[i]
		if c.After != nil {
			h, err := r.WriteBlob(c.After.Bytes)
			if err != nil {
				return nil, err
			}
			c.After.Blob = h.String()
			ops[string(c.Path)] = &object.TreeEntry{Name: c.Path.Base(), Mode: filemode.FileMode(c.After.Mode), Hash: h}
		} else {
			ops[string(c.Path)] = nil
		}
		if c.Kind == changeset.Move {
			ops[string(c.From)] = nil
		}
	}
	treeHash, _, err := b.rewrite("", ops)
	if err != nil {
		return nil, err
	}
	return &changeset.Proposal{Tree: treeHash.String(), Set: *set}, nil
}

// WriteCommit writes the proposal commit of a prepared proposal whose id is
// set: parent the base, author and committer from git's configuration and
// clock, message the goal and trailers. It fills p.Commit.
func (r *Repo) WriteCommit(p *changeset.Proposal, runTrailer string) error {
	sig, err := r.Signature("author")
	if err != nil {
		return err
	}
	csig, err := r.Signature("committer")
	if err != nil {
		return err
	}
	c := &object.Commit{Author: sig, Committer: csig, TreeHash: plumbing.NewHash(p.Tree), Message: CommitMessage(p, runTrailer)}
	if p.Set.Base != "" {
		c.ParentHashes = []plumbing.Hash{plumbing.NewHash(p.Set.Base)}
	}
	ch, err := r.writeObject(c)
	if err != nil {
		return err
	}
	p.Commit = ch.String()
	return nil
}

// CommitMessage is the goal, a blank line, and the trailers.
func CommitMessage(p *changeset.Proposal, runTrailer string) string {
	var b strings.Builder
	b.WriteString(p.Set.Goal)
	b.WriteString("\n\n")
	for _, c := range p.Set.Changes {
		if c.Kind == changeset.Move {
			j, _ := json.Marshal(struct {
				From string `json:"from"`
				To   string `json:"to"`
			}{string(c.From), string(c.Path)})
			fmt.Fprintf(&b, "%s: %s\n", TrailerMove, j)
		}
	}
	if runTrailer != "" {
		fmt.Fprintf(&b, "%s: %s\n", TrailerRun, runTrailer)
	}
	if p.Set.Generation > 0 {
		fmt.Fprintf(&b, "%s: %d\n", TrailerGeneration, p.Set.Generation)
	}
	if p.Set.RebasedFrom != "" {
		fmt.Fprintf(&b, "%s: %s\n", TrailerRebasedFrom, p.Set.RebasedFrom)
	}
	fmt.Fprintf(&b, "%s: %s\n", TrailerProposal, p.ID)
	return b.String()
}

// rewrite builds the tree at dir with ops applied (keys are full paths under
// dir). It decodes only the trees that ops reach. It reports empty when the
// result holds no entry (the caller drops it, as git stores no empty tree).
func (b *Base) rewrite(dir string, ops map[string]*object.TreeEntry) (plumbing.Hash, bool, error) {
	t, err := b.tree(dir)
	if err != nil {
		return plumbing.ZeroHash, false, err
	}
	prefix := ""
	if dir != "" {
		prefix = dir + "/"
	}
	direct := map[string]*object.TreeEntry{}
	present := map[string]bool{}
	sub := map[string]map[string]*object.TreeEntry{}
	for p, e := range ops {
		rel := strings.TrimPrefix(p, prefix)
		if i := strings.IndexByte(rel, '/'); i >= 0 {
			name := rel[:i]
			if sub[name] == nil {
				sub[name] = map[string]*object.TreeEntry{}
			}
			sub[name][p] = e
		} else {
			direct[rel] = e
			present[rel] = true
		}
	}
	var entries []object.TreeEntry
	if t != nil {
		for _, e := range t.Entries {
			if present[e.Name] || sub[e.Name] != nil {
				continue
			}
			entries = append(entries, e)
		}
	}
	for _, e := range direct {
		if e != nil {
			entries = append(entries, *e)
		}
	}
	for name, ops := range sub {
		h, empty, err := b.rewrite(prefix+name, ops)
		if err != nil {
			return plumbing.ZeroHash, false, err
		}
		if !empty {
			entries = append(entries, object.TreeEntry{Name: name, Mode: filemode.Dir, Hash: h})
		}
	}
	if len(entries) == 0 && dir != "" {
		return plumbing.ZeroHash, true, nil
	}
	sort.Sort(object.TreeEntrySorter(entries))
	h, err := b.r.writeObject(&object.Tree{Entries: entries})
	return h, len(entries) == 0, err
}

// Signature reads the author or committer identity as git does: the
// GIT_<ROLE>_NAME/EMAIL/DATE environment, then <role>.name, then user.name.
func (r *Repo) Signature(role string) (object.Signature, error) {
	env := "GIT_" + strings.ToUpper(role) + "_"
	pick := func(key string) string {
		if v := os.Getenv(env + strings.ToUpper(key)); v != "" {
			return v
		}
		if v, ok := r.Config.Get(role + "." + key); ok && v != "" {
			return v
		}
		v, _ := r.Config.Get("user." + key)
		return v
	}
	name, email := pick("name"), pick("email")
	if name == "" || email == "" {
		return object.Signature{}, refusal.New(refusal.Invalid,
			`tell git who you are: git config user.name "Your Name" && git config user.email you@example.com`,
			"git has no %s identity (user.name and user.email)", role)
	}
	when := time.Now()
	if d := os.Getenv(env + "DATE"); d != "" {
		if t, ok := parseGitDate(d); ok {
			when = t
		}
	}
	return object.Signature{Name: name, Email: email, When: when}, nil
}

// parseGitDate reads the date forms tests and scripts use: "@<unix> <tz>",
// "<unix> <tz>", and RFC 3339.
func parseGitDate(s string) (time.Time, bool) {
	s = strings.TrimPrefix(strings.TrimSpace(s), "@")
	if f := strings.Fields(s); len(f) == 2 {
		if sec, err := strconv.ParseInt(f[0], 10, 64); err == nil && len(f[1]) == 5 {
			h, e1 := strconv.Atoi(f[1][1:3])
			m, e2 := strconv.Atoi(f[1][3:5])
			if e1 == nil && e2 == nil {
				off := (h*60 + m) * 60
				if f[1][0] == '-' {
					off = -off
				}
				return time.Unix(sec, 0).In(time.FixedZone("", off)), true
			}
		}
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, true
	}
	return time.Time{}, false
}
