package checker

import "encoding/json"

// Severity says whether a finding blocks (error) or only informs (warning).
type Severity string

const (
	// SeverityError blocks: a report holding one is not clean.
	SeverityError Severity = "error"
	// SeverityWarning informs a human and never blocks.
	SeverityWarning Severity = "warning"
)

// Finding is one fact the checker established about the bytes, with the
// position of the node it is about.
type Finding struct {
	Code     string   `json:"code"`
	Category string   `json:"category"`
	Severity Severity `json:"severity"`
	Message  string   `json:"message"`
	Line     int      `json:"line"`
	Col      int      `json:"col"`
	Fix      string   `json:"fix"`
}

// Effects are the rows a human reads before consenting: what the workflow
// would touch if it ran. Every row is sorted and free of duplicates.
type Effects struct {
	Reads    []string `json:"reads"`
	Writes   []string `json:"writes"`
	Network  []string `json:"network"`
	Programs []string `json:"programs"`
	Tools    []string `json:"tools"`
	Pauses   []string `json:"pauses"`
	Env      []string `json:"env"`
	Models   []string `json:"models"`
	Secrets  []string `json:"secrets"` // names only, never values
	Spend    string   `json:"spend"`   // "bounded: ..." or "unbounded: <reason>"
}

// Report is the audit of one file.
type Report struct {
	Path     string    `json:"path"`
	Kind     string    `json:"kind"` // "workflow" or "project"
	Findings []Finding `json:"findings"`
	Effects  *Effects  `json:"effects"`
}

// Clean reports whether no finding has error severity.
func (r Report) Clean() bool {
	for _, f := range r.Findings {
		if f.Severity == SeverityError {
			return false
		}
	}
	return true
}

// Tally counts the report's findings by severity, and lists their codes
// once each, in order of first appearance.
func (r Report) Tally() (errors, warnings int, codes []string) {
	codes = []string{}
	seen := map[string]bool{}
	for _, f := range r.Findings {
		if f.Severity == SeverityError {
			errors++
		} else {
			warnings++
		}
		if !seen[f.Code] {
			seen[f.Code] = true
			codes = append(codes, f.Code)
		}
	}
	return errors, warnings, codes
}

// Errors returns the error-severity findings, in report order.
func (r Report) Errors() []Finding {
	var out []Finding
	for _, f := range r.Findings {
		if f.Severity == SeverityError {
			out = append(out, f)
		}
	}
	return out
}

// RepairStep is one mechanical repair the fix ladder applied.
type RepairStep struct {
	Rule        string `json:"rule"`        // the repair's name, e.g. "needs-to-after"
	Line        int    `json:"line"`        // 1-based line in the bytes the round started from
	Description string `json:"description"` // one line, for a human
}

// Kind values of a Report.
const (
	KindWorkflow = "workflow"
	KindProject  = "project"
)

// MarshalJSON writes every row as a list, [] when empty, never null, so
// that hosts read one shape.
func (e Effects) MarshalJSON() ([]byte, error) {
	type rows Effects // without this method
	r := rows(e)
	for _, s := range []*[]string{&r.Reads, &r.Writes, &r.Network, &r.Programs, &r.Tools, &r.Pauses, &r.Env, &r.Models, &r.Secrets} {
		if *s == nil {
			*s = []string{}
		}
	}
	return json.Marshal(r)
}
