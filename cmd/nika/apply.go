package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/nika-dev/nika/doorwords"
	"github.com/nika-dev/nika/flow"
	"github.com/nika-dev/nika/preview"
	"github.com/nika-dev/nika/refusal"
	"github.com/nika-dev/nika/terminal"
)

func (d *door) applyCommand() *cli.Command {
	return &cli.Command{Name: "apply", Usage: "show the preview on the terminal, ask for yes there, and apply", ArgsUsage: "ID",
		Flags: []cli.Flag{jsonFlag,
			&cli.StringSliceFlag{Name: "only", Usage: "apply only the changes to these paths (or globs), as a derived proposal; repeatable"},
			&cli.StringSliceFlag{Name: "exclude", Usage: "apply all but the changes to these paths (or globs), as a derived proposal; repeatable"},
			&cli.StringSliceFlag{Name: "hunk", Usage: "apply only these hunks of a file, PATH:N as the preview labels them (PATH:N,M for several), as a derived proposal; repeatable"},
			&cli.StringSliceFlag{Name: "drop-hunk", Usage: "apply all but these hunks of a file, PATH:N as the preview labels them, as a derived proposal; repeatable"},
		}, Action: humansOnly(d.apply)}
}

// apply is the consent door. The order is the law: the proposal is checked
// as the apply will check it (so a human is never asked for what will then
// be refused), the preview is drawn on the controlling terminal whatever
// stdout is, input typed ahead is discarded, and only then is the prompt
// shown and one typed line read. The apply checks everything again under
// git's locks.
func (d *door) apply(c *cli.Context) error {
	r, p, err := d.load(c)
	if err != nil {
		return err
	}
	ch, err := choiceFrom(c)
	if err != nil {
		return err
	}
	if !ch.Empty() {
		if _, _, err := flow.Choose(p, ch); err != nil {
			return err
		}
	}
	if err := flow.Ready(r, p); err != nil {
		return err
	}
	// No terminal, no question: refused before a derived proposal is staged.
	t, err := terminal.Open()
	if err != nil {
		return refusal.New(refusal.NoConsent,
			fmt.Sprintf("run nika apply %s in a terminal and type yes; consent is never read from a pipe or a flag", short(p.ID())),
			"no terminal to ask for consent (%v) · nothing was applied", err)
	}
	defer t.Close()
	if !ch.Empty() {
		sub, err := flow.Derive(r, p, ch)
		if err != nil {
			return err
		}
		if sub != p {
			d.note("a derived proposal %s holds the chosen changes; %s stays pending", short(sub.ID()), short(p.ID()))
			if err := flow.Ready(r, sub); err != nil {
				return err
			}
		}
		p = sub
	}
	return d.consentOn(r, p, t)
}

// afterApply tells the human the post-apply verdict (already recorded as a
// git note), carries out (or withholds) the run request, and ends with the
// verdict's exit code: 0 clean, exitNotClean when a check or hook failed
// (the apply stays).
func (d *door) afterApply(r *flow.Repo, p *flow.Proposed, acc *flow.Accepted) error {
	res, v := acc.Result, acc.Verdict
	out := appliedJSON{Type: "applied", ID: p.ID(), Commit: acc.Commit(), Branch: p.Branch(), Paths: pathStrings(res.Paths), Verdict: v, Clean: v.Clean()}
	if acc.Commit() != p.Proposal.Commit {
		out.ProposalCommit = p.Proposal.Commit // the branch moved to its signed twin
	}
	if acc.NoteErr != nil {
		d.note("nika: the verdict could not be recorded as a git note: %s", preview.Escape(d.scrub(acc.NoteErr.Error())))
		out.NoteError = d.scrub(acc.NoteErr.Error())
	}
	if !d.json {
		io.WriteString(d.stdout, preview.EscapeText(d.scrub(v.Text())))
		if adv := v.Advice(acc.Commit()); adv != "" {
			// The library names git's own undo; the CLI adds its own.
			fmt.Fprintf(d.stdout, "%s (or: nika revert %s)\n\n", strings.TrimSuffix(adv, "\n"), acc.Commit())
		}
	}
	if run := flow.RunOf(p); run != nil {
		var echo io.Writer
		if !d.json {
			echo = terminal.EscapingWriter(d.stdout)
		}
		rr := flow.CarryRun(r, *run, v.Clean(), flow.RunIO{Echo: echo, Err: terminal.EscapingWriter(d.stderr),
			Started: func(argv []string) { d.say("run requested: %s\n", escape(strings.Join(argv, " "))) }})
		out.Run = d.runResult(*run, rr)
	}
	if !v.Clean() {
		d.code = exitNotClean
	}
	if d.json {
		return d.writeJSON(out)
	}
	return nil
}

// runResult reports a carried-out run request and returns its JSON.
func (d *door) runResult(run flow.RunSpec, rr *flow.RunResult) *runJSON {
	j := &runJSON{Workflow: run.Workflow, Status: string(rr.Status)}
	w := preview.Escape(run.Workflow)
	switch rr.Status {
	case flow.Withheld:
		d.say("run of %s withheld: the check after the apply is not clean\n", w)
	case flow.NotConfigured:
		j.Command = doorwords.SuggestedRun(run)
		d.say("run requested: no runner is configured (git config nika.runner \"<argv template>\"); to run it:\n  %s\n", preview.Escape(j.Command))
	case flow.NotStarted:
		j.Error = d.scrub(rr.Err.Error())
		d.say("run requested, but the runner %s could not start: %s\n", preview.Escape(rr.Argv[0]), preview.Escape(j.Error))
	case flow.Ran:
		exit := rr.Exit
		j.Exit = &exit
		d.say("runner exited %d\n", rr.Exit)
	}
	return j
}

// say prints a line for the human on stdout, never in --json mode.
func (d *door) say(format string, args ...any) {
	if !d.json {
		fmt.Fprintf(d.stdout, format, args...)
	}
}
