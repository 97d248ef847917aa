package main

import (
	"fmt"
	"runtime/debug"

	"github.com/urfave/cli/v2"

	"github.com/nika-dev/nika/changeset"
	"github.com/nika-dev/nika/checker"
	"github.com/nika-dev/nika/flow"
	"github.com/nika-dev/nika/refusal"
)

func (d *door) checkCommand() *cli.Command {
	return &cli.Command{
		Name:      "check",
		Usage:     "check Nika workflows and project files on disk, in a repository or anywhere (exit 0 clean, 2 findings, 3 internal error)",
		ArgsUsage: "[PATH...]",
		Flags: []cli.Flag{jsonFlag,
			&cli.BoolFlag{Name: "fix", Usage: "stage the fix ladder's repairs as a proposal (never writes in place)"}},
		Action: d.check,
	}
}

func (d *door) check(c *cli.Context) error {
	// Inside a repository the repository is the root; outside one the
	// files are judged on their own, with the disk beside them.
	r, err := d.openRepo()
	if err != nil {
		if refusal.ClassOf(err) != refusal.NotFound {
			return err
		}
		r = nil
		if c.Bool("fix") {
			return refusal.New(refusal.Invalid, "run nika check --fix inside a git repository, or nika check without --fix here",
				"--fix stages the repairs as a proposal, which needs a git repository, and this is not one")
		}
	}
	targets, err := flow.DiskTargets(r, c.Args().Slice())
	if err != nil {
		return err
	}
	// A check is a short process that allocates a few times the bytes it
	// reads and keeps only the reports: the collector would spend a tenth
	// of its time on garbage that the exit frees anyway.
	defer debug.SetGCPercent(debug.SetGCPercent(checkGCPercent))
	pool := flow.NewCheckPool(len(targets))
	defer pool.Wait()
	var draft changeset.Draft
	draft.Format = "fix"
	var repairs []string
	for i, t := range targets {
		b, err := flow.ReadDisk(t.Root, t.Path)
		if err != nil {
			return err
		}
		pool.Check(i, t, b)
		if c.Bool("fix") {
			fixed, steps, _ := checker.Repair(t.Path, b)
			if len(steps) > 0 && string(fixed) != string(b) {
				if r == nil || t.Root != r.Root() {
					return refusal.New(refusal.Invalid, "name only files inside the repository with --fix",
						"--fix stages the repairs as a proposal of this repository, and %s is outside it", changeset.Quote(t.Path))
				}
				draft.Intents = append(draft.Intents, changeset.Intent{Op: changeset.OpEdit, Path: t.Path, Content: fixed})
				for _, s := range steps {
					repairs = append(repairs, fmt.Sprintf("%s:%d %s", t.Path, s.Line, s.Description))
				}
			}
		}
	}
	reports := pool.Wait()
	clean := true
	for _, rep := range reports {
		clean = clean && rep.Clean()
	}
	var fixID string
	if c.Bool("fix") && len(draft.Intents) > 0 {
		p, err := flow.ProposeDraft(r, &draft, flow.ProposeInput{Goal: "repair dead Nika forms (nika check --fix)"})
		if err != nil {
			return err
		}
		if !p.Empty() {
			fixID = p.ID()
		}
	}
	if !clean {
		d.code = exitFindings
	}
	if d.json {
		if reports == nil {
			reports = []checker.Report{}
		}
		return d.writeJSON(checkJSON{Type: "check", Clean: clean, Reports: reports, FixProposal: fixID})
	}
	n := 0
	for _, rep := range reports {
		for _, f := range rep.Findings {
			n++
			fmt.Fprintf(d.stdout, "%s:%d:%d: %s %s: %s\n", escape(rep.Path), f.Line, f.Col, f.Severity, f.Code, escape(f.Message))
			if f.Fix != "" {
				fmt.Fprintf(d.stdout, "    fix: %s\n", escape(f.Fix))
			}
		}
	}
	switch {
	case len(reports) == 0:
		fmt.Fprintln(d.stdout, "no Nika workflow or project file to check")
	case clean && n == 0:
		fmt.Fprintf(d.stdout, "%d file(s) checked: clean\n", len(reports))
	case clean:
		fmt.Fprintf(d.stdout, "%d file(s) checked: clean, with %d warning(s)\n", len(reports), n)
	default:
		fmt.Fprintf(d.stdout, "%d file(s) checked: %d finding(s)\n", len(reports), n)
	}
	for _, rp := range repairs {
		fmt.Fprintf(d.stdout, "repair: %s\n", escape(rp))
	}
	if fixID != "" {
		fmt.Fprintf(d.stdout, "the repairs are staged as proposal %s; review and apply them with: nika apply %s\n", fixID, fixID[:12])
	} else if c.Bool("fix") {
		fmt.Fprintln(d.stdout, "the fix ladder found nothing to repair")
	}
	return nil
}

// checkGCPercent is the collector's target while nika check runs (see
// check).
const checkGCPercent = 400
