package proof

import (
	"fmt"
	"sort"
	"strings"

	"github.com/nika-dev/nika/changeset"
	"github.com/nika-dev/nika/flow"
	"github.com/nika-dev/nika/gitstage"
	"github.com/nika-dev/nika/preview"
	"github.com/nika-dev/nika/refusal"
)

// Status is the outcome for one commit.
type Status string

const (
	Proven      Status = "proven"
	Failed      Status = "failed"
	NotProposal Status = "not-a-proposal"
)

// Failure is one thing that does not hold, with its class and the fix:
// a door-neutral Hint, and where the fix is a door's action, the Fix and
// what it applies to (Subject), which the door words (as for a
// refusal.Error).
type Failure struct {
	Class   refusal.Class `json:"class"`
	Text    string        `json:"text"`
	Hint    string        `json:"hint,omitempty"`
	Fix     refusal.Fix   `json:"fix,omitempty"`
	Subject string        `json:"-"`
}

// Finding is one checker finding in a file the proposal wrote.
type Finding struct {
	Path     string `json:"path"`
	Code     string `json:"code"`
	Severity string `json:"severity"`
	Line     int    `json:"line"`
	Col      int    `json:"col"`
	Message  string `json:"message"`
}

// Result is the proof of one commit.
type Result struct {
	Commit   string    `json:"commit"`
	Status   Status    `json:"status"`
	ID       string    `json:"id,omitempty"`      // the Nika-Proposal trailer
	Derived  string    `json:"derived,omitempty"` // the id re-derived from the objects
	Base     *string   `json:"base"`              // the first parent, null for a root
	Goal     string    `json:"goal"`
	Paths    []string  `json:"paths"`
	Failures []Failure `json:"failures"`
	Findings []Finding `json:"findings"`
	// Signature is what was found of a proven proposal's signature; nil
	// for a commit that is not a proven proposal.
	Signature *Signature `json:"signature"`
}

// Options tune Verify.
type Options struct {
	// RequireAll fails commits that carry no Nika-Proposal trailer.
	RequireAll bool
	// ExpectID, when set, is the id the selection was named by (a
	// refs/nika/proposals/<id> ref): a commit proving another id fails.
	ExpectID string
	// RequireSigned fails proposal commits that are unsigned, whose
	// signature cannot be checked, or whose key git's rules do not allow.
	// A bad signature fails with or without it.
	RequireSigned bool
}

// ShallowHint is the fix for a missing parent.
const ShallowHint = "a shallow clone needs at least the parent: git fetch --deepen=1 (or check out with fetch-depth: 0)"

// Verify proves each commit from its own objects: the trailer's id must be
// the blake3 of the manifest re-derived from the commit, its parent and its
// message; every blob must hash to its id; the commit must have one parent
// (the base the manifest binds); and every workflow and project file the
// proposal wrote must pass the checker, read from the commit's tree in
// memory. A mismatch is classed with what the local registry and the other
// commits of the run know: an edited or copied trailer, an amended tree, or
// a wrong parent. A proven proposal's signature, if any, is checked by
// git's rules (checkSignature).
func Verify(r *gitstage.Repo, commits []*gitstage.CommitInfo, opt Options) []*Result {
	type work struct {
		res *Result
		ci  *gitstage.CommitInfo
		p   *changeset.Proposal
	}
	var ws []*work
	proven := map[string]*work{} // trailer id -> the commit of this run that proves it
	shallow := r.Shallow()
	for _, ci := range commits {
		w := &work{ci: ci, res: &Result{Commit: ci.Hash, Paths: []string{}, Failures: []Failure{}, Findings: []Finding{}}}
		ws = append(ws, w)
		res := w.res
		goal, trailers, ok := gitstage.SplitMessage(ci.Message)
		res.Goal = goal
		if len(ci.Parents) > 0 {
			p := ci.Parents[0]
			res.Base = &p
		}
		if id, stray := strayTrailer(ci.Message, ok); stray {
			res.ID = id
			res.fail(refusal.TamperedTrailer, "the message has a Nika-Proposal line outside nika's trailer block, so the proposal cannot be re-derived: a trailer such as Signed-off-by was added, or the message was edited",
				"restore the original message (nika's trailers end it), or propose the change again")
			continue
		}
		if !ok {
			res.Status = NotProposal
			res.Goal = firstLine(ci.Message)
			if opt.RequireAll {
				res.Status = Failed
				res.failFix(refusal.NotAProposal, "commit carries no Nika-Proposal trailer: it was not made by a nika proposal",
					"leave it out of the range", refusal.ProposeChange, "")
			}
			continue
		}
		for _, t := range trailers {
			if t[0] == gitstage.TrailerProposal {
				res.ID = t[1]
			}
		}
		res.Status = Failed
		if len(ci.Parents) > 1 {
			res.fail(refusal.WrongParent, fmt.Sprintf("a proposal has exactly one parent; this commit is a merge of %d", len(ci.Parents)),
				"a proposal commit is never a merge: propose the change again on the merged branch")
			continue
		}
		if len(ci.Parents) == 1 && !r.HasCommit(ci.Parents[0]) {
			text := fmt.Sprintf("the parent %s is missing, so the proposal cannot be re-derived", short(ci.Parents[0]))
			if shallow[ci.Hash] {
				text = fmt.Sprintf("the parent %s is missing: this is a shallow clone, cut at this commit", short(ci.Parents[0]))
			}
			res.fail(refusal.MissingObjects, text, ShallowHint)
			continue
		}
		l, err := r.LoadHex(ci.Hash, preview.ID)
		if err != nil {
			switch refusal.ClassOf(err) {
			case refusal.NotFound:
				res.fail(refusal.MissingObjects, err.(*refusal.Error).Text, "fetch the missing objects (git fetch, or git fetch --deepen=1 in a shallow clone)")
			case refusal.Unsupported:
				res.fail(refusal.AmendedTree, textOf(err), "a nika proposal writes regular files only; the commit was changed after the proposal")
			default:
				f := failureOf(err)
				res.Status = Failed
				res.Failures = append(res.Failures, f)
			}
			continue
		}
		w.p = l.Proposal
		res.Derived = l.Proposal.ID
		for _, p := range l.Proposal.Set.Paths() {
			res.Paths = append(res.Paths, string(p))
		}
		if f := checkBlobs(l.Proposal); f != nil {
			res.Failures = append(res.Failures, *f)
			continue
		}
		if res.Derived == res.ID {
			proven[res.ID] = w
		}
	}
	for _, w := range ws {
		res := w.res
		if w.p == nil || len(res.Failures) > 0 {
			continue
		}
		if res.Derived != res.ID {
			res.Failures = append(res.Failures, classify(r, w.ci, w.p, res.ID, func(id string) (*changeset.Proposal, string) {
				if o := proven[id]; o != nil && o.ci.Hash != w.ci.Hash {
					return o.p, o.ci.Hash
				}
				return nil, ""
			}))
			continue
		}
		for _, rep := range flow.Audit(r, w.p) {
			for _, f := range rep.Findings {
				res.Findings = append(res.Findings, Finding{rep.Path, f.Code, string(f.Severity), f.Line, f.Col, f.Message})
			}
			if !rep.Clean() {
				codes := []string{}
				for _, f := range rep.Errors() {
					codes = append(codes, f.Code)
				}
				res.failFix(refusal.Findings, fmt.Sprintf("the checker finds %d error(s) in %s: %s", len(codes), changeset.Quote(rep.Path), strings.Join(uniq(codes), ", ")),
					"fix the file with a new proposal", refusal.CheckFile, rep.Path)
			}
		}
		if opt.ExpectID != "" && res.ID != opt.ExpectID {
			res.failFix(refusal.TamperedTrailer, fmt.Sprintf("the ref names proposal %s, but the commit is proposal %s", short(opt.ExpectID), short(res.ID)),
				"a published proposal lives at refs/nika/proposals/<its id>", refusal.Push, opt.ExpectID)
		}
		checkSignature(r, w.ci, res, opt.RequireSigned)
		if len(res.Failures) == 0 {
			res.Status = Proven
		}
	}
	out := make([]*Result, len(ws))
	for i, w := range ws {
		out[i] = w.res
	}
	return out
}

// strayTrailer finds a Nika-Proposal line in a message that SplitMessage
// does not read as a proposal's: a commit that claims to be one, changed.
func strayTrailer(msg string, ok bool) (string, bool) {
	if ok {
		return "", false
	}
	for _, l := range strings.Split(msg, "\n") {
		if id, found := strings.CutPrefix(l, gitstage.TrailerProposal+": "); found {
			return strings.TrimSpace(id), true
		}
	}
	return "", false
}

func (res *Result) fail(c refusal.Class, text, hint string) {
	res.failFix(c, text, hint, "", "")
}

// failFix records a failure whose fix is a door's action.
func (res *Result) failFix(c refusal.Class, text, hint string, f refusal.Fix, subject string) {
	res.Status = Failed
	res.Failures = append(res.Failures, Failure{Class: c, Text: text, Hint: hint, Fix: f, Subject: subject})
}

// checkBlobs recomputes each side's blob hash from its bytes: the witness
// is blake3 of the same bytes, so both bind what the manifest names.
func checkBlobs(p *changeset.Proposal) *Failure {
	for _, c := range p.Set.Changes {
		for _, s := range []*changeset.Side{c.Before, c.After} {
			if s == nil {
				continue
			}
			if got := gitstage.BlobHash(s.Bytes).String(); got != s.Blob {
				return &Failure{Class: refusal.CorruptObject,
					Text: fmt.Sprintf("the blob %s of %s hashes to %s: the object database is corrupt", s.Blob, changeset.Quote(string(c.Path)), got),
					Hint: "run git fsck --strict, and fetch the object again from a good copy"}
			}
			if s.Witness != changeset.WitnessOf(s.Bytes) {
				return &Failure{Class: refusal.CorruptObject, Text: fmt.Sprintf("the witness of %s does not match its bytes", changeset.Quote(string(c.Path))), Hint: "run git fsck --strict"}
			}
		}
	}
	return nil
}

// classify names why a commit's re-derived id is not its trailer's, with
// what is known locally: the registry's record of the claimed id (its
// commit and base), a registered proposal under the re-derived id, or a
// commit of this run that proves the claimed id.
func classify(r *gitstage.Repo, ci *gitstage.CommitInfo, p *changeset.Proposal, claimed string, inRun func(string) (*changeset.Proposal, string)) Failure {
	parent := ""
	if len(ci.Parents) > 0 {
		parent = ci.Parents[0]
	}
	if !isID(claimed) {
		return Failure{Class: refusal.TamperedTrailer, Text: fmt.Sprintf("the Nika-Proposal trailer %q is not a proposal id (64 hex)", claimed),
			Hint: "the trailer was edited: restore the original commit, or propose the change again"}
	}
	if rec, err := r.Find(p.ID); err == nil && rec.ID == p.ID {
		return Failure{Class: refusal.TamperedTrailer,
			Text: fmt.Sprintf("the trailer names proposal %s, but the commit holds proposal %s: the trailer was edited", short(claimed), short(p.ID)),
			Hint: "restore the trailer Nika-Proposal: " + p.ID + ", or propose the change again"}
	}
	var orig *changeset.Proposal
	origCommit, origBase, known := "", "", false
	if rec, err := r.Find(claimed); err == nil && rec.ID == claimed {
		known, origCommit, origBase = true, rec.Commit, rec.Base
		if l, err := r.LoadHex(rec.Commit, preview.ID); err == nil && l.Proposal.ID == claimed {
			orig = l.Proposal
		}
	}
	if known && origCommit == ci.Hash {
		return Failure{Class: refusal.Internal,
			Text: fmt.Sprintf("commit %s is the one nika staged for proposal %s, yet its objects re-derive %s: nika wrote a commit it cannot prove", short(ci.Hash), short(claimed), short(p.ID)),
			Hint: "this is a bug in nika: please report it with the output of git cat-file -p " + short(ci.Hash)}
	}
	if orig == nil {
		if o, c := inRun(claimed); o != nil {
			orig, origCommit, origBase, known = o, c, o.Set.Base, true
		}
	}
	if !known {
		return Failure{Class: refusal.TamperedTrailer,
			Text: fmt.Sprintf("the Nika-Proposal trailer does not match the commit's content: its objects re-derive %s, the trailer says %s; likely causes: the tree was amended, the commit was rebased or cherry-picked onto another parent, or the trailer was edited or copied from another commit", short(p.ID), short(claimed)),
			Hint: "verify the original commit", Fix: refusal.ProposeChange}
	}
	if orig != nil && disjoint(orig.Set.Paths(), p.Set.Paths()) {
		return Failure{Class: refusal.TamperedTrailer,
			Text: fmt.Sprintf("the trailer was copied from commit %s: proposal %s changes %s, this commit changes %s", short(origCommit), short(claimed), listPaths(orig.Set.Paths()), listPaths(p.Set.Paths())),
			Hint: "a trailer proves only the commit it was made for", Fix: refusal.ProposeChange}
	}
	if parent != origBase {
		was := "no parent (a root)"
		if origBase != "" {
			was = short(origBase)
		}
		now := "no parent"
		if parent != "" {
			now = short(parent)
		}
		return Failure{Class: refusal.WrongParent,
			Text: fmt.Sprintf("the commit's parent %s is not the base %s that proposal %s was built on: it was rebased or cherry-picked (the original is %s)", now, was, short(claimed), short(origCommit)),
			Hint: "verify the original commit " + short(origCommit), Fix: refusal.ProposeChange}
	}
	if orig == nil || orig.Tree != p.Tree {
		text := fmt.Sprintf("the commit's tree is not proposal %s's: it was amended after the proposal (the original is %s)", short(claimed), short(origCommit))
		if orig != nil {
			text = fmt.Sprintf("the commit's tree is not proposal %s's: %s changed after the proposal (amended; the original is %s)", short(claimed), listPaths(differing(orig, p)), short(origCommit))
		}
		return Failure{Class: refusal.AmendedTree, Text: text,
			Hint: "restore the original commit " + short(origCommit), Fix: refusal.ProposeChange}
	}
	return Failure{Class: refusal.TamperedTrailer,
		Text: fmt.Sprintf("the commit has proposal %s's parent and tree, but its message (goal or trailers) was edited (the original is %s)", short(claimed), short(origCommit)),
		Hint: "restore the original message, or propose the change again"}
}

// differing lists the paths whose after-state differs between a and b.
func differing(a, b *changeset.Proposal) []changeset.Path {
	side := map[changeset.Path]string{}
	for _, c := range a.Set.Changes {
		side[c.Path] = sideKey(c.After)
		if c.Kind == changeset.Move {
			side[c.From] = ""
		}
	}
	seen := map[changeset.Path]bool{}
	var out []changeset.Path
	for _, c := range b.Set.Changes {
		seen[c.Path] = true
		if k, ok := side[c.Path]; !ok || k != sideKey(c.After) {
			out = append(out, c.Path)
		}
	}
	for p := range side {
		if !seen[p] {
			out = append(out, p)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

func sideKey(s *changeset.Side) string {
	if s == nil {
		return ""
	}
	return s.Mode.String() + s.Blob
}

func disjoint(a, b []changeset.Path) bool {
	m := map[changeset.Path]bool{}
	for _, p := range a {
		m[p] = true
	}
	for _, p := range b {
		if m[p] {
			return false
		}
	}
	return true
}

func listPaths(ps []changeset.Path) string {
	if len(ps) == 0 {
		return "no file"
	}
	var q []string
	for i, p := range ps {
		if i == 5 {
			q = append(q, fmt.Sprintf("and %d more", len(ps)-5))
			break
		}
		q = append(q, changeset.Quote(string(p)))
	}
	return strings.Join(q, ", ")
}

func isID(s string) bool {
	return len(s) == 64 && strings.Trim(s, "0123456789abcdef") == ""
}

func short(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return l
}

func uniq(ss []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range ss {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

func textOf(err error) string {
	if e, ok := err.(*refusal.Error); ok {
		return e.Text
	}
	return err.Error()
}

// failureOf is a refusal as a failure: its class, text and hint, and the
// fix it names for a door to word.
func failureOf(err error) Failure {
	if e, ok := err.(*refusal.Error); ok {
		return Failure{Class: e.Class, Text: e.Text, Hint: e.Hint, Fix: e.Fix, Subject: e.Subject}
	}
	return Failure{Class: refusal.ClassOf(err), Text: err.Error()}
}

// Worst is the class a run exits with: the most serious failure of any
// commit, in the order of Severity.
func Worst(rs []*Result) (refusal.Class, bool) {
	best := -1
	for _, res := range rs {
		for _, f := range res.Failures {
			i := severity(f.Class)
			if best < 0 || i < best {
				best = i
			}
		}
	}
	if best < 0 {
		return "", false
	}
	return Severity[best], true
}

// Severity orders the failure classes from the most serious.
var Severity = []refusal.Class{refusal.CorruptObject, refusal.TamperedTrailer, refusal.BadSignature, refusal.AmendedTree, refusal.WrongParent,
	refusal.KeyNotAllowed, refusal.Unsigned, refusal.MissingObjects, refusal.Findings, refusal.NotAProposal, refusal.Unsupported, refusal.Io, refusal.Internal}

func severity(c refusal.Class) int {
	for i, s := range Severity {
		if s == c {
			return i
		}
	}
	return len(Severity) - 1
}
