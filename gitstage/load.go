package gitstage

import (
	"encoding/json"
	"sort"
	"strconv"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/nika-dev/nika/changeset"
	"github.com/nika-dev/nika/refusal"
)

// Loaded is a proposal re-derived from its commit alone, with what the
// commit claims beside it.
type Loaded struct {
	Proposal  *changeset.Proposal // ID is the id re-derived from the objects
	ClaimedID string              // the Nika-Proposal trailer, "" if none
	RunJSON   string              // the Nika-Run trailer, "" if none
	// Generation is the Nika-Generation trailer, 0 when absent.
	Generation int
	Parents    int
}

// SplitMessage separates a commit message into the goal and nika's
// trailers. ok is false when the message carries no Nika-Proposal trailer.
func SplitMessage(msg string) (goal string, trailers [][2]string, ok bool) {
	i := strings.LastIndex(msg, "\n\n")
	if i < 0 {
		return strings.TrimRight(msg, "\n"), nil, false
	}
	block := strings.TrimRight(msg[i+2:], "\n")
	for _, line := range strings.Split(block, "\n") {
		k, v, found := strings.Cut(line, ": ")
		if !found || !strings.HasPrefix(k, "Nika-") {
			return strings.TrimRight(msg, "\n"), nil, false
		}
		trailers = append(trailers, [2]string{k, v})
		if k == TrailerProposal {
			ok = true
		}
	}
	return msg[:i], trailers, ok
}

// Load re-derives the proposal a commit holds: the goal and trailers from
// its message, the changes from the diff of its tree against its parent's
// (decoding only differing subtrees), and the id from the manifest.
func (r *Repo) Load(commit plumbing.Hash, id IDFunc) (*Loaded, error) {
	return r.load(commit, id, false)
}

// LoadWitnessed is Load without the bytes: each side keeps its blob id,
// mode and witness (computed from the blob as Load does, so the id is
// re-derived the same way), and its Bytes are dropped as soon as they are
// hashed. What it returns is for the apply transaction alone, which reads
// each side's bytes back from the object database when it needs them
// (SideBytes), one file at a time: a large set then never holds every
// file's before and after bytes at once. Nothing that renders, audits or
// re-stages a proposal may be handed one (see Elided).
func (r *Repo) LoadWitnessed(commit plumbing.Hash, id IDFunc) (*Loaded, error) {
	return r.load(commit, id, true)
}

// Elided reports whether a side's bytes were left out (LoadWitnessed): it
// has none, and its blob is not the empty blob. A side that Load, a
// resolve or a stage built always holds its blob's bytes.
func Elided(s *changeset.Side) bool {
	return s != nil && len(s.Bytes) == 0 && s.Blob != emptyBlob
}

// emptyBlob is the id of the blob with no bytes.
var emptyBlob = BlobHash(nil).String()

// SideBytes returns a side's bytes: those it holds, or for an elided one
// its blob, read from the object database and checked against the
// side's witness, so that what the caller writes is the proposal tree's
// blob and nothing else.
func (r *Repo) SideBytes(s *changeset.Side) ([]byte, error) {
	if !Elided(s) {
		return s.Bytes, nil
	}
	b, err := r.ReadBlob(plumbing.NewHash(s.Blob))
	if err != nil {
		return nil, err
	}
	if changeset.WitnessOf(b) != s.Witness {
		return nil, refusal.New(refusal.Internal, "run git fsck, then rebuild the preview",
			"the blob %s does not hold the bytes its witness names", s.Blob)
	}
	return b, nil
}

func (r *Repo) load(commit plumbing.Hash, id IDFunc, elide bool) (*Loaded, error) {
	c, err := r.Commit(commit)
	if err != nil {
		return nil, err
	}
	goal, trailers, _ := SplitMessage(c.Message)
	l := &Loaded{Parents: len(c.ParentHashes)}
	moves := map[string]string{} // to -> from
	rebased := ""
	for _, t := range trailers {
		switch t[0] {
		case TrailerProposal:
			l.ClaimedID = t[1]
		case TrailerRun:
			l.RunJSON = t[1]
		case TrailerGeneration:
			if n, err := strconv.Atoi(t[1]); err == nil && n > 0 && strconv.Itoa(n) == t[1] {
				l.Generation = n
			}
		case TrailerRebasedFrom:
			if len(t[1]) == 64 && strings.Trim(t[1], "0123456789abcdef") == "" {
				rebased = t[1]
			}
		case TrailerMove:
			var m struct{ From, To string }
			if json.Unmarshal([]byte(t[1]), &m) == nil {
				moves[m.To] = m.From
			}
		}
	}
	var parentTree *object.Tree
	base := ""
	if len(c.ParentHashes) > 0 {
		pc, err := r.Commit(c.ParentHashes[0])
		if err != nil {
			return nil, err
		}
		if parentTree, err = r.Tree(pc.TreeHash); err != nil {
			return nil, err
		}
		base = pc.Hash.String()
	}
	tree, err := r.Tree(c.TreeHash)
	if err != nil {
		return nil, err
	}
	var diffs []fileDiff
	if err := r.diffTrees("", parentTree, tree, &diffs); err != nil {
		return nil, err
	}
	set := changeset.Set{Goal: goal, Base: base, Generation: l.Generation, RebasedFrom: rebased}
	removed := map[string]fileDiff{}
	for _, d := range diffs {
		if d.after == nil {
			removed[d.path] = d
		}
	}
	used := map[string]bool{}
	for _, d := range diffs {
		p := changeset.Path(d.path)
		ch := changeset.Change{Path: p, Class: changeset.Classify(p)}
		if from, ok := moves[d.path]; ok && d.before == nil {
			if src, ok := removed[from]; ok {
				used[from] = true
				ch.Kind, ch.From = changeset.Move, changeset.Path(from)
				if ch.Before, err = r.side(src.before, elide); err != nil {
					return nil, err
				}
				if ch.After, err = r.side(d.after, elide); err != nil {
					return nil, err
				}
				set.Changes = append(set.Changes, ch)
				continue
			}
		}
		switch {
		case d.before == nil:
			ch.Kind = changeset.Create
		case d.after == nil:
			ch.Kind = changeset.Delete
		default:
			ch.Kind = changeset.Update
		}
		if ch.Before, err = r.side(d.before, elide); err != nil {
			return nil, err
		}
		if ch.After, err = r.side(d.after, elide); err != nil {
			return nil, err
		}
		set.Changes = append(set.Changes, ch)
	}
	kept := set.Changes[:0]
	for _, ch := range set.Changes {
		if ch.Kind == changeset.Delete && used[string(ch.Path)] {
			continue
		}
		kept = append(kept, ch)
	}
	set.Changes = kept
	sort.Slice(set.Changes, func(i, j int) bool { return set.Changes[i].Path < set.Changes[j].Path })
	if l.RunJSON != "" {
		var run struct {
			Workflow   string            `json:"workflow"`
			Vars       map[string]string `json:"vars"`
			MaxCostUSD float64           `json:"max_cost_usd"`
		}
		if json.Unmarshal([]byte(l.RunJSON), &run) == nil {
			set.Run = &changeset.RunRequest{Workflow: changeset.Path(run.Workflow), Vars: run.Vars, MaxCostUSD: run.MaxCostUSD}
		}
	}
	p := &changeset.Proposal{Commit: commit.String(), Tree: c.TreeHash.String(), Set: set}
	p.ID = id(p)
	l.Proposal = p
	return l, nil
}

type fileDiff struct {
	path          string
	before, after *object.TreeEntry
}

func (r *Repo) side(e *object.TreeEntry, elide bool) (*changeset.Side, error) {
	if e == nil {
		return nil, nil
	}
	b, err := r.ReadBlob(e.Hash)
	if err != nil {
		return nil, err
	}
	s := changeset.NewSide(b, modeOf(e.Mode), e.Hash.String())
	if elide {
		s.Bytes = nil
	}
	return s, nil
}

// diffTrees lists the files that differ between two trees, recursing only
// into subtrees whose hashes differ.
func (r *Repo) diffTrees(prefix string, a, b *object.Tree, out *[]fileDiff) error {
	am, bm := map[string]*object.TreeEntry{}, map[string]*object.TreeEntry{}
	var names []string
	if a != nil {
		for i := range a.Entries {
			am[a.Entries[i].Name] = &a.Entries[i]
			names = append(names, a.Entries[i].Name)
		}
	}
	if b != nil {
		for i := range b.Entries {
			if _, ok := am[b.Entries[i].Name]; !ok {
				names = append(names, b.Entries[i].Name)
			}
			bm[b.Entries[i].Name] = &b.Entries[i]
		}
	}
	sort.Strings(names)
	for _, n := range names {
		ea, eb := am[n], bm[n]
		if ea != nil && eb != nil && ea.Hash == eb.Hash && ea.Mode == eb.Mode {
			continue
		}
		p := prefix + n
		var sa, sb *object.Tree
		var fa, fb *object.TreeEntry
		var err error
		for _, x := range []struct {
			e *object.TreeEntry
			t **object.Tree
			f **object.TreeEntry
		}{{ea, &sa, &fa}, {eb, &sb, &fb}} {
			if x.e == nil {
				continue
			}
			switch x.e.Mode {
			case filemode.Dir:
				if *x.t, err = r.Tree(x.e.Hash); err != nil {
					return err
				}
			case filemode.Regular, filemode.Executable, filemode.Deprecated:
				// A copy of the entry's mode and hash, not a pointer into
				// the decoded tree: the trees become garbage as soon as
				// their level is compared, instead of living as long as
				// the list of differences.
				*x.f = &object.TreeEntry{Mode: x.e.Mode, Hash: x.e.Hash}
			default:
				return refusal.New(refusal.Unsupported, "", "%s is a symlink or submodule change, which no nika proposal makes", changeset.Quote(p))
			}
		}
		if fa != nil || fb != nil {
			*out = append(*out, fileDiff{path: p, before: fa, after: fb})
		}
		if sa != nil || sb != nil {
			if err := r.diffTrees(p+"/", sa, sb, out); err != nil {
				return err
			}
		}
	}
	return nil
}
