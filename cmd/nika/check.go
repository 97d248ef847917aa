package main

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/nika-dev/nika/changeset"
	"github.com/nika-dev/nika/checker"
	"github.com/nika-dev/nika/flow"
	"github.com/nika-dev/nika/preview"
	"github.com/nika-dev/nika/refusal"
)

func (d *door) checkCommand() *cli.Command {
	return &cli.Command{
		Name:      "check",
		Usage:     "check Nika workflows and project files on disk (exit 0 clean, 2 findings, 3 internal error)",
		ArgsUsage: "[PATH...]",
		Flags: []cli.Flag{jsonFlag,
			&cli.BoolFlag{Name: "fix", Usage: "stage the fix ladder's repairs as a proposal (never writes in place)"}},
		Action: d.check,
	}
}

// checkTargets lists the workflow and project files named by args (files,
// or directories walked for them), repo-relative; with no args, every
// workflow and project file in the working tree.
func (d *door) checkTargets(root string, args []string) ([]string, error) {
	wd, _ := os.Getwd()
	if len(args) == 0 {
		args = []string{root}
	}
	seen := map[string]bool{}
	var out []string
	for _, a := range args {
		abs := a
		if !filepath.IsAbs(a) {
			abs = filepath.Join(wd, a)
		}
		rel, err := filepath.Rel(root, abs)
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return nil, refusal.New(refusal.NotAllowed, "name files inside the repository", "%s is outside the repository", changeset.Quote(a))
		}
		fi, err := os.Lstat(abs)
		if err != nil {
			return nil, refusal.New(refusal.NotFound, "check the path", "cannot check %s: %v", changeset.Quote(a), unwrapPath(err))
		}
		if !fi.IsDir() {
			p := filepath.ToSlash(rel)
			if !seen[p] {
				seen[p] = true
				out = append(out, p)
			}
			continue
		}
		err = filepath.WalkDir(abs, func(p string, e fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			if e.IsDir() && (e.Name() == ".git" || e.Name() == "node_modules") {
				return filepath.SkipDir
			}
			if !e.Type().IsRegular() {
				return nil
			}
			r, _ := filepath.Rel(root, p)
			r = filepath.ToSlash(r)
			if changeset.Classify(changeset.Path(r)).Audited() && !seen[r] {
				seen[r] = true
				out = append(out, r)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	sort.Strings(out)
	return out, nil
}

func (d *door) check(c *cli.Context) error {
	r, err := d.openRepo()
	if err != nil {
		return err
	}
	paths, err := d.checkTargets(r.Root(), c.Args().Slice())
	if err != nil {
		return err
	}
	var reports []checker.Report
	var draft changeset.Draft
	draft.Format = "fix"
	var repairs []string
	for _, p := range paths {
		b, err := os.ReadFile(filepath.Join(r.Root(), filepath.FromSlash(p)))
		if err != nil {
			return refusal.New(refusal.Io, "", "cannot read %s: %v", changeset.Quote(p), unwrapPath(err))
		}
		reports = append(reports, checker.Check(p, b))
		if c.Bool("fix") {
			fixed, steps, _ := checker.Repair(p, b)
			if len(steps) > 0 && string(fixed) != string(b) {
				draft.Intents = append(draft.Intents, changeset.Intent{Op: changeset.OpEdit, Path: p, Content: fixed})
				for _, s := range steps {
					repairs = append(repairs, fmt.Sprintf("%s:%d %s", p, s.Line, s.Description))
				}
			}
		}
	}
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
			fmt.Fprintf(d.stdout, "%s:%d:%d: %s %s: %s\n", preview.Escape(rep.Path), f.Line, f.Col, f.Severity, f.Code, preview.Escape(f.Message))
			if f.Fix != "" {
				fmt.Fprintf(d.stdout, "    fix: %s\n", preview.Escape(f.Fix))
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
		fmt.Fprintf(d.stdout, "repair: %s\n", preview.Escape(rp))
	}
	if fixID != "" {
		fmt.Fprintf(d.stdout, "the repairs are staged as proposal %s; review and apply them with: nika apply %s\n", fixID, fixID[:12])
	} else if c.Bool("fix") {
		fmt.Fprintln(d.stdout, "the fix ladder found nothing to repair")
	}
	return nil
}
