package flow

import (
	"bytes"

	"github.com/nika-dev/nika/changeset"
	"github.com/nika-dev/nika/checker"
	"github.com/nika-dev/nika/preview"
)

type recordNotes struct {
	Repairs map[changeset.Path][]checker.RepairStep `json:"repairs,omitempty"`
}

// repair runs the fix ladder's prepass over every workflow and project file
// a change writes: mechanical repairs of dead forms, made before staging, so
// the staged, previewed and applied bytes are the repaired ones. A change
// whose repaired bytes equal its base is dropped as unchanged.
func repair(out *Proposed, cs []changeset.Change) ([]changeset.Change, []changeset.Path, error) {
	var kept []changeset.Change
	var same []changeset.Path
	for _, c := range cs {
		if c.After != nil && c.Class.Audited() {
			fixed, steps, notes := checker.Repair(string(c.Path), c.After.Bytes)
			out.Notes = append(out.Notes, notes...)
			if len(steps) > 0 && !bytes.Equal(fixed, c.After.Bytes) {
				if out.Repairs == nil {
					out.Repairs = map[changeset.Path][]checker.RepairStep{}
				}
				out.Repairs[c.Path] = steps
				c.After = changeset.NewSide(fixed, c.After.Mode, "")
				if c.Kind == changeset.Update && bytes.Equal(fixed, c.Before.Bytes) {
					same = append(same, c.Path)
					continue
				}
			}
		}
		kept = append(kept, c)
	}
	return kept, same, nil
}

// Audit runs the checker over the after-bytes of every workflow and project
// file the proposal writes, in memory. It is a pure function of the bytes,
// so show re-derives exactly what propose showed.
func Audit(p *changeset.Proposal) []checker.Report {
	var out []checker.Report
	for _, c := range p.Set.Changes {
		if c.After != nil && c.Class.Audited() {
			out = append(out, checker.Check(string(c.Path), c.After.Bytes))
		}
	}
	return out
}

// PreviewInput is what the preview of a proposal renders.
func PreviewInput(p *Proposed) preview.Input {
	return preview.Input{Proposal: p.Proposal, Audits: Audit(p.Proposal), Repairs: p.Repairs, Signing: p.Signing}
}
