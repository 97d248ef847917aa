package preview

import (
	"fmt"
	"sort"
	"strings"

	"github.com/nika-dev/nika/changeset"
	"github.com/nika-dev/nika/checker"
)

// sortedAudits returns the reports sorted by path (stable for equal paths).
func sortedAudits(rs []checker.Report) []checker.Report {
	out := append([]checker.Report(nil), rs...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

// unaudited lists the workflow and project files the proposal writes that
// have no report: the human is told, rather than shown nothing.
func unaudited(changes []changeset.Change, rs []checker.Report) []changeset.Change {
	have := map[string]bool{}
	for _, r := range rs {
		have[r.Path] = true
	}
	var out []changeset.Change
	for _, c := range changes {
		if c.After != nil && c.Class.Audited() && !have[string(c.Path)] {
			out = append(out, c)
		}
	}
	return out
}

// effectRows are the audit's effect rows, in the order a human reads them.
func effectRows(e *checker.Effects) [][2]string {
	list := func(v []string) string {
		if len(v) == 0 {
			return "none"
		}
		s := make([]string, len(v))
		for i, x := range v {
			s[i] = safe(x)
		}
		return strings.Join(s, ", ")
	}
	spend := e.Spend
	if spend == "" {
		spend = "none"
	}
	return [][2]string{
		{"reads", list(e.Reads)},
		{"writes", list(e.Writes)},
		{"network", list(e.Network)},
		{"programs run", list(e.Programs)},
		{"tools", list(e.Tools)},
		{"pauses for a human", list(e.Pauses)},
		{"environment", list(e.Env)},
		{"models", list(e.Models)},
		{"secrets (names)", list(e.Secrets)},
		{"spend", safe(spend)},
	}
}

func verdict(r checker.Report) string {
	var errs, warns int
	for _, f := range r.Findings {
		if f.Severity == checker.SeverityError {
			errs++
		} else {
			warns++
		}
	}
	var parts []string
	if errs == 0 {
		parts = append(parts, "clean")
	} else {
		parts = append(parts, fmt.Sprintf("%d %s", errs, plural(errs, "error", "errors")))
	}
	if warns > 0 {
		parts = append(parts, fmt.Sprintf("%d %s", warns, plural(warns, "warning", "warnings")))
	}
	return strings.Join(parts, ", ")
}

// audits renders the checker's audit of each workflow and project file, in
// path order; a written workflow or project file without a report is shown
// as not audited.
func (p *printer) audits(changes []changeset.Change, rs []checker.Report) {
	type entry struct {
		path string
		r    *checker.Report // nil: not audited
		kind string
	}
	var es []entry
	for _, r := range sortedAudits(rs) {
		es = append(es, entry{r.Path, &r, r.Kind})
	}
	for _, c := range unaudited(changes, rs) {
		es = append(es, entry{string(c.Path), nil, string(c.Class)})
	}
	sort.SliceStable(es, func(i, j int) bool { return es[i].path < es[j].path })
	for _, e := range es {
		p.line("", "")
		p.linef(cBold, "audit %s (%s)", safe(e.path), safe(e.kind))
		if e.r == nil {
			p.line(cYellow, "  verdict             not audited")
			continue
		}
		r := *e.r
		c := cGreen
		if !r.Clean() {
			c = cRed
		}
		p.linef(c, "  verdict             %s", verdict(r))
		for _, f := range r.Findings {
			fc, sev := cRed, ""
			if f.Severity != checker.SeverityError {
				fc, sev = cYellow, " ("+safe(string(f.Severity))+")"
			}
			p.linef(fc, "  %s:%d:%d %s %s%s", safe(r.Path), f.Line, f.Col, safe(f.Code), safe(f.Message), sev)
			if f.Fix != "" {
				p.linef("", "    fix: %s", safe(f.Fix))
			}
		}
		if r.Effects != nil {
			for _, row := range effectRows(r.Effects) {
				p.linef("", "  %-18s  %s", row[0], row[1])
			}
		} else if r.Kind == checker.KindWorkflow {
			p.linef("", "  %-18s  %s", "effects", "unknown: the checker could not read them from this file")
		}
	}
}
