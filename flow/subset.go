package flow

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/nika-dev/nika/changeset"
	"github.com/nika-dev/nika/changeset/hunks"
	"github.com/nika-dev/nika/checker"
	"github.com/nika-dev/nika/gitstage"
	"github.com/nika-dev/nika/preview"
	"github.com/nika-dev/nika/refusal"
)

// HunkRef names one hunk of a proposal: the path of its change (for a
// move, either path) and its number, from 1, as the preview labels it.
type HunkRef struct {
	Path string
	N    int
}

func (h HunkRef) String() string { return h.Path + ":" + strconv.Itoa(h.N) }

// ParseHunkRef reads PATH:N, or PATH:N,M,… for several hunks of one path.
// The number follows the last colon, so a path may hold colons.
func ParseHunkRef(s string) ([]HunkRef, error) {
	i := strings.LastIndexByte(s, ':')
	if i <= 0 || i == len(s)-1 {
		return nil, refusal.New(refusal.Invalid, "name a hunk as PATH:N, as the preview labels it (hunk a.go:2)",
			"%s does not name a hunk", changeset.Quote(s))
	}
	path := strings.TrimPrefix(s[:i], "./")
	var out []HunkRef
	for _, f := range strings.Split(s[i+1:], ",") {
		n, err := strconv.Atoi(f)
		if err != nil || n < 1 || strconv.Itoa(n) != f {
			return nil, refusal.New(refusal.Invalid, "name a hunk as PATH:N, as the preview labels it (hunk a.go:2)",
				"%s does not name a hunk: %s is not a hunk number (1, 2, …)", changeset.Quote(s), changeset.Quote(f))
		}
		out = append(out, HunkRef{Path: path, N: n})
	}
	return out, nil
}

// Choice is a selection of a proposal's parts: whole changes by path or
// glob (Only, or Exclude), then, within the changes it keeps, hunks (Keep:
// only these hunks of their files; Drop: all but these).
type Choice struct {
	Only, Exclude []string
	Keep, Drop    []HunkRef
}

// Empty reports a choice that selects everything.
func (ch Choice) Empty() bool {
	return len(ch.Only)+len(ch.Exclude)+len(ch.Keep)+len(ch.Drop) == 0
}

// Derive builds the derived proposal that holds only the chosen parts of
// p. Its bytes are computed from p's base bytes and the chosen hunks
// (hunks.Apply), never by running a patch against the disk; it is staged
// over p's base through stage, so it has its own id, commit and preview,
// and the consent answers it, not p, which stays pending. The derived
// record keeps which proposal it came from and what it leaves out. A choice
// that keeps everything is p itself.
func Derive(repo *Repo, p *Proposed, ch Choice) (*Proposed, error) {
	r := repo.g
	keep, dropped, err := Choose(p, ch)
	if err != nil {
		return nil, err
	}
	if len(dropped) == 0 {
		return p, nil
	}
	head := gitstage.Head{Branch: p.Record.Branch}
	if p.Proposal.Set.Base != "" {
		head.Commit = plumbing.NewHash(p.Proposal.Set.Base)
	}
	base, err := r.TreeBase(head)
	if err != nil {
		return nil, err
	}
	// A file taken in part has new bytes in git's form: its disk form
	// is git's checkout of them.
	if err := base.DiskForms(keep); err != nil {
		return nil, err
	}
	set := p.Proposal.Set
	set.Changes = keep
	set.Generation = 0
	runTrailer := ""
	if set.Run != nil {
		runTrailer = preview.RunJSON(set.Run)
	}
	out := &Proposed{repo: r, Signing: Signing(r)}
	whole := map[changeset.Path]bool{}
	for _, c := range p.Proposal.Set.Changes {
		for _, k := range keep {
			if k.Path == c.Path && k.After == c.After {
				whole[c.Path] = true
			}
		}
	}
	for _, c := range keep {
		// The ladder's repairs describe the whole file it repaired; a
		// file taken in part keeps none of them.
		if steps, ok := p.Repairs[c.Path]; ok && whole[c.Path] {
			if out.Repairs == nil {
				out.Repairs = map[changeset.Path][]checker.RepairStep{}
			}
			out.Repairs[c.Path] = steps
		}
	}
	var notes json.RawMessage
	if out.Repairs != nil {
		notes, _ = json.Marshal(recordNotes{Repairs: out.Repairs})
	}
	np, rec, again, err := stage(r, base, &set, runTrailer, notes)
	if err != nil {
		return nil, err
	}
	if rec.Feedback == nil || rec.Feedback.From != p.ID() {
		if rec.Feedback == nil {
			rec.Feedback = &gitstage.Feedback{}
		}
		rec.Feedback.From, rec.Feedback.Dropped = p.ID(), dropped
		if err := r.SaveRecord(rec); err != nil {
			return nil, err
		}
	}
	out.Proposal, out.Again, out.Record = np, again, rec
	return out, nil
}

// Choose is the pure half of Derive: it checks a choice of p's parts and
// returns the changes it keeps (a change taken in part has its after-bytes
// computed from the chosen hunks) and what it leaves out (a path for a whole
// file, PATH:N for a hunk), writing nothing. A file whose every hunk is
// dropped is dropped whole; a move is one change and one hunk.
func Choose(p *Proposed, ch Choice) (keep []changeset.Change, dropped []string, err error) {
	if len(ch.Only) > 0 && len(ch.Exclude) > 0 {
		return nil, nil, refusal.New(refusal.Invalid, "name the paths to keep, or the paths to leave out", "a selection cannot both keep only some paths and leave out others")
	}
	sel := ch.Only
	if len(sel) == 0 {
		sel = ch.Exclude
	}
	match := func(p changeset.Path) bool {
		for _, s := range sel {
			if changeset.MatchGlob(strings.TrimPrefix(s, "./"), string(p)) {
				return true
			}
		}
		return false
	}
	used := map[string]bool{}
	var files []changeset.Change
	for _, c := range p.Proposal.Set.Changes {
		if len(sel) == 0 {
			files = append(files, c)
			continue
		}
		hit := match(c.Path)
		if c.Kind == changeset.Move && match(c.From) != hit {
			return nil, nil, refusal.New(refusal.NotAllowed, "name both paths of the move, "+string(c.From)+" and "+string(c.Path),
				"a move cannot be split from its source: %s → %s", changeset.Quote(string(c.From)), changeset.Quote(string(c.Path)))
		}
		for _, s := range sel {
			if changeset.MatchGlob(strings.TrimPrefix(s, "./"), string(c.Path)) || (c.Kind == changeset.Move && changeset.MatchGlob(strings.TrimPrefix(s, "./"), string(c.From))) {
				used[s] = true
			}
		}
		if hit == (len(ch.Only) > 0) {
			files = append(files, c)
		} else {
			dropped = append(dropped, string(c.Path))
		}
	}
	for _, s := range sel {
		if !used[s] {
			return nil, nil, refusal.New(refusal.Invalid, "the preview lists its paths", "%s names no change of proposal %s", changeset.Quote(s), short(p.Proposal.ID))
		}
	}
	keep, more, err := chooseHunks(p, files, ch.Keep, ch.Drop)
	if err != nil {
		return nil, nil, err
	}
	dropped = append(dropped, more...)
	sort.Strings(dropped)
	if len(keep) == 0 {
		return nil, nil, refusal.New(refusal.Invalid, "choose at least one change", "the selection leaves no change to apply")
	}
	return keep, dropped, nil
}

// chooseHunks applies the hunk choice to the changes the path choice kept.
func chooseHunks(p *Proposed, files []changeset.Change, keepRefs, dropRefs []HunkRef) ([]changeset.Change, []string, error) {
	if len(keepRefs)+len(dropRefs) == 0 {
		return files, nil, nil
	}
	// Which change each ref names: its path, or either path of a move.
	find := func(path string) int {
		for i, c := range p.Proposal.Set.Changes {
			if string(c.Path) == path || (c.Kind == changeset.Move && string(c.From) == path) {
				return i
			}
		}
		return -1
	}
	units := map[int]int{}
	keepN, dropN := map[int][]int{}, map[int][]int{}
	for _, set := range []struct {
		refs []HunkRef
		into map[int][]int
	}{{keepRefs, keepN}, {dropRefs, dropN}} {
		for _, h := range set.refs {
			i := find(h.Path)
			if i < 0 {
				return nil, nil, refusal.New(refusal.Invalid, "the preview labels each hunk as PATH:N",
					"hunk %s names no change of proposal %s", changeset.Quote(h.String()), short(p.Proposal.ID))
			}
			if _, ok := units[i]; !ok {
				us, err := hunks.Of(p.Proposal.Set.Changes[i])
				if err != nil {
					return nil, nil, refusal.New(refusal.Internal, "", "%v", err)
				}
				units[i] = len(us)
			}
			if h.N > units[i] {
				return nil, nil, refusal.New(refusal.Invalid, "the preview labels each hunk as PATH:N",
					"%s has %d %s, so there is no hunk %s", changeset.Quote(string(p.Proposal.Set.Changes[i].Path)), units[i], plural(units[i], "hunk", "hunks"), changeset.Quote(h.String()))
			}
			set.into[i] = append(set.into[i], h.N)
		}
	}
	for i := range keepN {
		if _, both := dropN[i]; both {
			return nil, nil, refusal.New(refusal.Invalid, "name the hunks to keep or the hunks to drop of one file, not both",
				"%s has hunks both kept and dropped", changeset.Quote(string(p.Proposal.Set.Changes[i].Path)))
		}
	}
	var keep []changeset.Change
	var dropped []string
	for _, c := range files {
		i := find(string(c.Path))
		chosen, named := keepN[i], false
		if ns, ok := keepN[i]; ok {
			named, chosen = true, ns
		} else if ns, ok := dropN[i]; ok {
			named = true
			gone := map[int]bool{}
			for _, n := range ns {
				gone[n] = true
			}
			chosen = nil
			for n := 1; n <= units[i]; n++ {
				if !gone[n] {
					chosen = append(chosen, n)
				}
			}
		}
		if !named {
			keep = append(keep, c)
			continue
		}
		nc, ok, err := hunks.Apply(c, chosen)
		if err != nil {
			return nil, nil, refusal.New(refusal.Invalid, "", "%v", err)
		}
		if !ok {
			// A selection that leaves the file unchanged drops the file.
			dropped = append(dropped, string(c.Path))
			continue
		}
		in := map[int]bool{}
		for _, n := range chosen {
			in[n] = true
		}
		for n := 1; n <= units[i]; n++ {
			if !in[n] && units[i] > 1 {
				dropped = append(dropped, fmt.Sprintf("%s:%d", c.Path, n))
			}
		}
		keep = append(keep, nc)
	}
	for i := range keepN {
		if !inFiles(files, p.Proposal.Set.Changes[i].Path) {
			return nil, nil, refusal.New(refusal.Invalid, "keep the file, or leave its hunks out of the choice",
				"hunks of %s are chosen, but the file is left out", changeset.Quote(string(p.Proposal.Set.Changes[i].Path)))
		}
	}
	return keep, dropped, nil
}

func inFiles(cs []changeset.Change, p changeset.Path) bool {
	for _, c := range cs {
		if c.Path == p {
			return true
		}
	}
	return false
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
