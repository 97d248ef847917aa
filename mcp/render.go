package mcp

// The tools' text renderings, for hosts that show only text.

import (
	"fmt"
	"strings"

	"github.com/nika-dev/nika/doorwords"
	"github.com/nika-dev/nika/preview"
)

// renderProposed is propose's text rendering. Strings from outside nika
// (paths, goals, messages) pass the one escaper, as hosts may draw the text
// on a terminal.
func renderProposed(o *ProposeOut) string {
	var b strings.Builder
	fmt.Fprintf(&b, "proposal %s staged as commit %s", doorwords.Short(o.ID), doorwords.Short(o.Commit))
	if o.Base != nil {
		fmt.Fprintf(&b, " over %s", doorwords.Short(*o.Base))
	}
	fmt.Fprintf(&b, " (format: %s)\n", escape(o.Format))
	if o.Again {
		b.WriteString("this text was already staged as this pending proposal: nothing new was written\n")
	}
	fmt.Fprintf(&b, "goal: %s\n", escape(doorwords.FirstLine(o.Goal)))
	renderBody(&b, &o.Proposal, o.Notes)
	fmt.Fprintf(&b, "\n%s\n\n    %s\n", "Stop here. Give the human this line to run in their own terminal; it shows them the preview and applies only if they type yes:", o.Apply)
	return b.String()
}

func renderChecked(o *CheckOut) string {
	var b strings.Builder
	verdict := "clean: propose would stage it with no error finding"
	if !o.Clean {
		verdict = "not clean: fix the error findings below, then check again"
	}
	fmt.Fprintf(&b, "check (format: %s): %s\nnothing was staged\n", escape(o.Format), verdict)
	renderBody(&b, &o.Proposal, o.Notes)
	return b.String()
}

func renderBody(b *strings.Builder, p *Proposal, notes []string) {
	fmt.Fprintf(b, "changes (%d):\n", len(p.Changes))
	for _, c := range p.Changes {
		if c.From != "" {
			fmt.Fprintf(b, "  %s %s -> %s (%s)\n", c.Kind, escape(c.From), escape(c.Path), c.Class)
		} else {
			fmt.Fprintf(b, "  %s %s (%s)\n", c.Kind, escape(c.Path), c.Class)
		}
	}
	for _, u := range p.Unchanged {
		fmt.Fprintf(b, "  unchanged %s\n", escape(u))
	}
	for _, a := range p.Audits {
		state := "clean"
		if !a.Clean {
			state = "NOT CLEAN"
		}
		fmt.Fprintf(b, "checker: %s: %s\n", escape(a.Path), state)
		for _, f := range a.Findings {
			fmt.Fprintf(b, "  %d:%d %s %s: %s\n", f.Line, f.Col, f.Severity, f.Code, escape(f.Message))
			if f.Fix != "" {
				fmt.Fprintf(b, "    fix: %s\n", escape(f.Fix))
			}
		}
		if e := a.Effects; e != nil {
			for _, row := range [][2]any{{"reads", e.Reads}, {"writes", e.Writes}, {"network", e.Network}, {"programs", e.Programs},
				{"tools", e.Tools}, {"pauses", e.Pauses}, {"env", e.Env}, {"models", e.Models}, {"secrets", e.Secrets}} {
				if vs := row[1].([]string); len(vs) > 0 {
					fmt.Fprintf(b, "  effect %s: %s\n", row[0], escape(strings.Join(vs, ", ")))
				}
			}
			if e.Spend != "" {
				fmt.Fprintf(b, "  effect spend: %s\n", escape(e.Spend))
			}
		}
	}
	for _, r := range p.Repairs {
		fmt.Fprintf(b, "repair: %s:%d %s\n", escape(r.Path), r.Line, escape(r.Description))
	}
	for _, n := range notes {
		fmt.Fprintf(b, "fix ladder: %s\n", escape(n))
	}
}

func renderStatus(o *StatusOut) string {
	var b strings.Builder
	head := "unborn"
	if o.Head != nil {
		head = doorwords.Short(*o.Head)
	}
	fmt.Fprintf(&b, "branch %s at %s\n", escape(o.Branch), head)
	if o.InProgress != "" {
		fmt.Fprintf(&b, "in progress: %s (every proposal is refused until it ends)\n", escape(o.InProgress))
	}
	file := func(f FileOut) {
		switch {
		case f.Problem != "":
			fmt.Fprintf(&b, "  %s: not checked: %s\n", escape(f.Path), escape(f.Problem))
		case f.Clean:
			fmt.Fprintf(&b, "  %s: clean (%d warning(s))\n", escape(f.Path), f.Warnings)
		default:
			fmt.Fprintf(&b, "  %s: %d error(s): %s\n", escape(f.Path), f.Errors, strings.Join(f.Codes, ", "))
		}
	}
	if o.Project != nil {
		b.WriteString("project file:\n")
		file(*o.Project)
	}
	fmt.Fprintf(&b, "workflows (%d):\n", o.WorkflowsTotal)
	for _, w := range o.Workflows {
		file(w)
	}
	if len(o.Dirty) == 0 && o.DirtyProblem == "" {
		b.WriteString("dirty: none\n")
	} else {
		b.WriteString("dirty (propose refuses to change these until they are committed):\n")
		for _, dp := range o.Dirty {
			fmt.Fprintf(&b, "  %s %s\n", dp.Status, escape(dp.Path))
		}
		if o.DirtyProblem != "" {
			fmt.Fprintf(&b, "  (not listed: %s)\n", escape(o.DirtyProblem))
		}
	}
	if len(o.Allow) > 0 {
		fmt.Fprintf(&b, "allowed beyond workflows and nika.yaml: %s\n", escape(strings.Join(o.Allow, ", ")))
	} else {
		b.WriteString("allowed beyond workflows and nika.yaml: nothing (the human's choice)\n")
	}
	fmt.Fprintf(&b, "pending proposals: %d\n", o.Pending)
	if o.Verdict != nil {
		fmt.Fprintf(&b, "post-apply verdict on HEAD:\n%s", preview.EscapeText(*o.Verdict))
	}
	return b.String()
}

// escape is the one escaper (preview.Escape), for every string from outside
// nika in a text rendering.
func escape(s string) string { return preview.Escape(s) }
