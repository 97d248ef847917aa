package flow

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/nika-dev/nika/changeset"
	"github.com/nika-dev/nika/checker"
	"github.com/nika-dev/nika/consent"
	"github.com/nika-dev/nika/gitstage"
	"github.com/nika-dev/nika/preview"
	"github.com/nika-dev/nika/refusal"
)

// ProposeInput is what a door hands to Propose.
type ProposeInput struct {
	Input    []byte
	Format   string   // one of Formats; "auto" or "" detects
	Goal     string   // the commit message; a default is derived when empty
	Allow    []string // paths or globs of supporting files the human allows
	MaxInput int      // 0: the default of 16 MiB
	Run      *RunInput
}

// RunInput asks for a workflow run after a clean apply.
type RunInput struct {
	Workflow   string
	Vars       map[string]string
	MaxCostUSD float64
}

// Proposed is a staged proposal with what the door shows about it.
type Proposed struct {
	Proposal  *changeset.Proposal
	Record    *gitstage.Record
	Format    string           // the format that was parsed
	Unchanged []changeset.Path // named paths whose bytes would not change
	Repairs   map[changeset.Path][]checker.RepairStep
	Notes     []string       // the fix ladder's notes: what it would not guess
	repo      *gitstage.Repo // whose objects hold the proposal's tree (Audit)
	// Again says the input was already staged as this pending proposal:
	// the same id and the same commit, nothing new written.
	Again bool
	// Signing says how the applied commit will be signed (see Signing);
	// "" when git's configuration signs nothing.
	Signing string
}

// Empty reports that the input proposed nothing.
func (p *Proposed) Empty() bool { return p.Proposal == nil }

// Propose parses an input, resolves it against HEAD, stages it as an
// unreferenced commit and records it as pending. Every refusal happens
// before anything is written to the object database.
func Propose(repo *Repo, in ProposeInput) (*Proposed, error) {
	draft, err := Parse(in.Input, in.Format, in.MaxInput)
	if err != nil {
		return nil, err
	}
	return ProposeDraft(repo, draft, in)
}

// ProposeDraft stages a draft that is already parsed (nika check --fix
// builds one from the fix ladder's repairs). in.Input and in.Format are
// not read.
func ProposeDraft(repo *Repo, draft *changeset.Draft, in ProposeInput) (*Proposed, error) {
	pr, err := prepare(repo, draft, in)
	if err != nil {
		return nil, err
	}
	if pr.set == nil {
		return pr.out, nil
	}
	out, r := pr.out, repo.g
	var notes json.RawMessage
	if len(out.Repairs) > 0 {
		notes, _ = json.Marshal(recordNotes{Repairs: out.Repairs})
	}
	p, rec, again, err := stage(r, pr.base, pr.set, pr.runTrailer, notes)
	if err != nil {
		return nil, err
	}
	out.Again = again
	out.Proposal, out.Record, out.Signing = p, rec, Signing(r)
	return out, nil
}

// prepared is a draft resolved, repaired and validated up to staging:
// what ProposeDraft stages and Check audits without staging, so that both
// give the same refusals. set is nil when nothing would change.
type prepared struct {
	out        *Proposed
	base       *gitstage.Base
	set        *changeset.Set
	runTrailer string
}

// prepare is Propose's path up to staging. It writes nothing.
func prepare(repo *Repo, draft *changeset.Draft, in ProposeInput) (*prepared, error) {
	r := repo.g
	out := &Proposed{Format: draft.Format, repo: r}
	pr := &prepared{out: out}
	if len(draft.Intents) == 0 {
		return pr, nil
	}
	base, err := r.OpenBase()
	if err != nil {
		return nil, err
	}
	pr.base = base
	allow := append(append([]string{}, in.Allow...), r.Config.GetAll("nika.allow")...)
	changes, unchanged, err := changeset.Resolve(draft, base, changeset.Policy{Allow: allow})
	if err != nil {
		base.Close() // the filter processes the base's checks started
		return nil, err
	}
	changes, more, err := repair(out, changes)
	if err != nil {
		base.Close()
		return nil, err
	}
	out.Unchanged = append(unchanged, more...)
	if len(changes) == 0 {
		return pr, nil
	}
	// git's forms: the blob git add stores, the bytes git checkout writes.
	changes, more, err = base.Convert(changes)
	if err != nil {
		return nil, err
	}
	out.Unchanged = append(out.Unchanged, more...)
	if len(changes) == 0 {
		return pr, nil
	}
	set := &changeset.Set{Root: r.Root, Goal: cleanGoal(in.Goal, changes), Branch: base.Head.Branch, Changes: changes}
	if !base.Head.Unborn() {
		set.Base = base.Head.Commit.String()
	}
	if in.Run != nil {
		if set.Run, err = runRequest(base, changes, in.Run); err != nil {
			return nil, err
		}
		pr.runTrailer = preview.RunJSON(set.Run)
	}
	pr.set = set
	return pr, nil
}

// runRequest validates a run request: the workflow must be a workflow
// path that the set writes or that HEAD holds.
func runRequest(base *gitstage.Base, cs []changeset.Change, in *RunInput) (*changeset.RunRequest, error) {
	p, err := changeset.ParsePath(in.Workflow)
	if err != nil {
		return nil, err
	}
	if changeset.Classify(p) != changeset.Workflow {
		return nil, refusal.New(refusal.Invalid, "name a *.nika.yaml file", "the run request's workflow %s is not a workflow", changeset.Quote(in.Workflow))
	}
	if in.MaxCostUSD < 0 {
		return nil, refusal.New(refusal.Invalid, "give a cost ceiling of 0 or more", "the run request's cost ceiling %v is negative", in.MaxCostUSD)
	}
	found := false
	for _, c := range cs {
		if c.Path == p && c.After != nil {
			found = true
		}
	}
	if !found {
		e, err := base.Entry(p)
		if err != nil {
			return nil, err
		}
		found = e.Kind == changeset.File
	}
	if !found {
		return nil, refusal.New(refusal.NotFound, "propose the workflow, or name one the project has", "the run request's workflow %s is in neither the project nor the proposal", changeset.Quote(in.Workflow))
	}
	return &changeset.RunRequest{Workflow: p, Vars: in.Vars, MaxCostUSD: in.MaxCostUSD}, nil
}

// cleanGoal trims the goal and derives one when the human gave none.
func cleanGoal(goal string, cs []changeset.Change) string {
	goal = strings.ReplaceAll(goal, "\r\n", "\n")
	var lines []string
	for _, l := range strings.Split(goal, "\n") {
		lines = append(lines, strings.TrimRight(l, " \t"))
	}
	goal = strings.Trim(strings.Join(lines, "\n"), "\n ")
	for strings.Contains(goal, "\n\n\n") {
		goal = strings.ReplaceAll(goal, "\n\n\n", "\n\n")
	}
	if goal != "" {
		return goal
	}
	if len(cs) == 1 {
		return fmt.Sprintf("%s %s", cs[0].Kind, cs[0].Path)
	}
	return fmt.Sprintf("change %d files", len(cs))
}

// Load finds a proposal by id or prefix and re-derives it from its commit,
// checking that the objects still prove the recorded id.
func Load(repo *Repo, id string) (*Proposed, error) {
	r := repo.g
	rec, err := r.Find(id)
	if notFound(err) {
		// Not proposed here: a proposal fetched from another clone?
		if p, ferr := loadFetched(repo, id); !notFound(ferr) {
			return p, ferr
		}
	}
	if err != nil {
		return nil, err
	}
	l, err := r.Load(plumbing.NewHash(rec.Commit), preview.ID)
	if err != nil {
		return nil, err
	}
	if l.Proposal.ID != rec.ID || l.ClaimedID != rec.ID {
		return nil, refusal.New(refusal.Internal, "",
			"the proposal %s no longer matches its commit %s", rec.ID, rec.Commit).WithFix(refusal.Discard, rec.ID)
	}
	l.Proposal.Set.Branch = rec.Branch
	l.Proposal.Set.Root = r.Root
	if err := gitstage.AttachCheckout(l.Proposal, rec); err != nil {
		return nil, err
	}
	r.FillFilteredDisk(l.Proposal)
	out := &Proposed{Proposal: l.Proposal, Record: rec, repo: r, Signing: Signing(r)}
	if len(rec.Notes) > 0 {
		var n recordNotes
		if json.Unmarshal(rec.Notes, &n) == nil {
			out.Repairs = n.Repairs
		}
	}
	return out, nil
}

// Undecided refuses a proposal that was already decided (applied or
// discarded): a consent answers one proposal, once.
func Undecided(p *Proposed) error {
	switch p.Record.State {
	case gitstage.Applied, gitstage.Discarded:
		return refusal.New(refusal.AlreadyConsumed, "a consent answers a proposal once; proposing the same input again stages a new one",
			"proposal %s was already %s", short(p.Record.ID), p.Record.State).WithFix(refusal.Repropose, p.Record.ID)
	}
	return nil
}

// Apply carries out a yes for a pending proposal.
func Apply(repo *Repo, p *Proposed, opt consent.Options) (*consent.Result, error) {
	r := repo.g
	if err := Undecided(p); err != nil {
		return nil, err
	}
	// A refusal writes nothing, not even the record: whether a pending
	// proposal is stale is derived from HEAD when it is listed (List). The
	// transaction reads the files' bytes back one at a time (witnessed).
	return consent.Apply(r, p.Record, witnessed(r, p).Proposal, opt)
}

// Discard marks a proposal discarded. Its objects stay until git gc.
func Discard(repo *Repo, p *Proposed) error {
	r := repo.g
	if err := Undecided(p); err != nil {
		return err
	}
	p.Record.State, p.Record.Decided = gitstage.Discarded, time.Now().Unix()
	return r.SaveRecord(p.Record)
}

func short(id string) string {
	if len(id) > 12 {
		return id[:12]
	}
	return id
}
