package preview

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/nika-dev/nika/changeset"
	"github.com/nika-dev/nika/changeset/hunks"
	"github.com/nika-dev/nika/checker"
)

// JSON writes the proposal as one JSON object followed by "\n", for hosts.
// The shape is stable and documented in JSON.md:
//
//	{"type":"proposal",
//	 "id":"<64 hex>", "commit":"<hex>", "tree":"<hex>",
//	 "base":"<hex>"|null,            null when HEAD was unborn
//	 "branch":"refs/heads/main"|null, the full ref; null for a detached HEAD
//	 "goal":"...",
//	 "run":null|{"workflow","vars":{},"max_cost_usd"},
//	 "changes":[{"kind","path","from"(moves only),"class",
//	             "before":null|{"blob","witness","mode","disk"(converted paths only)},
//	             "after":null|{"blob","witness","mode","disk"(converted paths only)},
//	             "hunks":[{"n","whole","old_start","old_lines","new_start","new_lines"}]}],   sorted by path
//	 "unchanged":["path",...],
//	 "audits":[{"path","kind":"workflow"|"project","clean",
//	            "findings":[{"code","category","severity","message","line","col","fix"}],
//	            "effects":null|{"reads","writes","network","programs","tools",
//	                            "pauses","env","models","secrets":[names],"spend"}}],
//	 "repairs":[{"path","rule","line","description"}]}
//
// File bytes are never included: a host reads them from git by blob id, and
// the witnesses bind them. No absolute host path appears (Set.Root is never
// rendered). Arrays are [] when empty, never null.
func JSON(w io.Writer, in Input) error {
	out, err := JSONValue(in)
	if err != nil {
		return err
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(out); err != nil {
		return err
	}
	_, err = w.Write(b.Bytes())
	return err
}

// JSONValue is the object JSON writes, for a door that prints it beside
// what it knows of the proposal (nika show adds the human's feedback).
func JSONValue(in Input) (ProposalJSON, error) {
	changes, err := check(in.Proposal)
	if err != nil {
		return ProposalJSON{}, err
	}
	pr := in.Proposal
	s := &pr.Set
	out := ProposalJSON{
		Type:        "proposal",
		ID:          pr.ID,
		Commit:      pr.Commit,
		Tree:        pr.Tree,
		Goal:        s.Goal,
		RebasedFrom: s.RebasedFrom,
		Changes:     make([]jsonChange, 0, len(changes)),
		Unchanged:   make([]string, 0, len(in.Unchanged)),
		Audits:      make([]jsonAudit, 0, len(in.Audits)),
		Repairs:     []jsonRepair{},
		Signing:     in.Signing,
	}
	if s.Base != "" {
		out.Base = &s.Base
	}
	if s.Branch != "" {
		out.Branch = &s.Branch
	}
	if s.Run != nil {
		r := &jsonRun{Workflow: string(s.Run.Workflow), Vars: s.Run.Vars, MaxCostUSD: s.Run.MaxCostUSD}
		if r.Vars == nil {
			r.Vars = map[string]string{}
		}
		out.Run = r
	}
	for _, c := range changes {
		jc := jsonChange{
			Kind:   string(c.Kind),
			Path:   string(c.Path),
			From:   string(c.From),
			Class:  string(c.Class),
			Before: jsonSideOf(c.Before),
			After:  jsonSideOf(c.After),
		}
		us, err := hunks.Of(c)
		if err != nil {
			return ProposalJSON{}, fmt.Errorf("%w: %v", ErrInconsistent, err)
		}
		jc.Hunks = make([]jsonHunk, len(us))
		for i, u := range us {
			jc.Hunks[i] = jsonHunk{N: u.N, Whole: u.Whole, OldStart: u.OldStart, OldLines: u.OldLines, NewStart: u.NewStart, NewLines: u.NewLines}
		}
		out.Changes = append(out.Changes, jc)
	}
	for _, u := range sortedPaths(in.Unchanged) {
		out.Unchanged = append(out.Unchanged, string(u))
	}
	for _, r := range repairs(in.Repairs) {
		out.Repairs = append(out.Repairs, jsonRepair{string(r.path), r.step.Rule, r.step.Line, r.step.Description})
	}
	for _, r := range sortedAudits(in.Audits) {
		out.Audits = append(out.Audits, jsonAuditOf(r))
	}
	return out, nil
}

// ProposalJSON is the proposal object JSON writes (documented in JSON.md).
type ProposalJSON struct {
	Type   string  `json:"type"`
	ID     string  `json:"id"`
	Commit string  `json:"commit"`
	Tree   string  `json:"tree"`
	Base   *string `json:"base"`
	Branch *string `json:"branch"`
	Goal   string  `json:"goal"`
	// RebasedFrom is the proposal this one brings forward (nika rebase).
	RebasedFrom string       `json:"rebased_from,omitempty"`
	Run         *jsonRun     `json:"run"`
	Changes     []jsonChange `json:"changes"`
	Unchanged   []string     `json:"unchanged"`
	Audits      []jsonAudit  `json:"audits"`
	Repairs     []jsonRepair `json:"repairs"`
	// Signing says how the applied commit will be signed after the yes
	// ("ssh, key SHA256:…"), when git's configuration asks for signatures.
	Signing string `json:"signing,omitempty"`
}

type jsonRun struct {
	Workflow   string            `json:"workflow"`
	Vars       map[string]string `json:"vars"`
	MaxCostUSD float64           `json:"max_cost_usd"`
}

type jsonChange struct {
	Kind   string     `json:"kind"`
	Path   string     `json:"path"`
	From   string     `json:"from,omitempty"`
	Class  string     `json:"class"`
	Before *jsonSide  `json:"before"`
	After  *jsonSide  `json:"after"`
	Hunks  []jsonHunk `json:"hunks"`
}

// jsonHunk is one selectable hunk of a change (hunks.Unit): what a host
// names as PATH:N to keep or drop it.
type jsonHunk struct {
	N        int  `json:"n"`
	Whole    bool `json:"whole"`
	OldStart int  `json:"old_start"`
	OldLines int  `json:"old_lines"`
	NewStart int  `json:"new_start"`
	NewLines int  `json:"new_lines"`
}

type jsonSide struct {
	Blob    string `json:"blob"`
	Witness string `json:"witness"`
	Mode    string `json:"mode"`
	// Disk is the side on disk, present only when git converts the path
	// between the working tree and the commit.
	Disk *jsonDisk `json:"disk,omitempty"`
}

// jsonDisk is a side's bytes on disk: their witness, what converts them,
// and what git would warn about on the way.
type jsonDisk struct {
	Witness    string               `json:"witness"`
	Conversion changeset.Conversion `json:"conversion"`
	Warnings   []string             `json:"warnings"`
}

func jsonSideOf(s *changeset.Side) *jsonSide {
	if s == nil {
		return nil
	}
	j := &jsonSide{Blob: s.Blob, Witness: s.Witness.String(), Mode: s.Mode.String()}
	if d := s.Disk; d != nil {
		j.Disk = &jsonDisk{Witness: d.Witness.String(), Conversion: d.Conv, Warnings: append([]string{}, d.Warnings...)}
	}
	return j
}

type jsonAudit struct {
	Path     string            `json:"path"`
	Kind     string            `json:"kind"`
	Clean    bool              `json:"clean"`
	Findings []checker.Finding `json:"findings"`
	Effects  *checker.Effects  `json:"effects"`
}

func jsonAuditOf(r checker.Report) jsonAudit {
	a := jsonAudit{Path: r.Path, Kind: r.Kind, Clean: r.Clean(), Findings: r.Findings, Effects: r.Effects}
	if a.Findings == nil {
		a.Findings = []checker.Finding{}
	}
	return a
}

type jsonRepair struct {
	Path        string `json:"path"`
	Rule        string `json:"rule"`
	Line        int    `json:"line"`
	Description string `json:"description"`
}
