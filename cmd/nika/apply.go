package main

import (
	"context"
	"errors"
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

// consentOn draws p's preview on the terminal, asks for yes there (the one
// consent reader, terminal.Answer), and applies p on yes or discards it on
// any other answer. nika apply and nika review both end here.
func (d *door) consentOn(r *flow.Repo, p *flow.Proposed, t *terminal.Terminal) error {
	if err := d.drawOn(t, p); err != nil {
		return err
	}
	line, err := t.Answer(fmt.Sprintf("Apply proposal %s to %s? Type yes to apply; anything else discards it: ", short(p.ID()), preview.Escape(p.Branch())))
	if errors.Is(err, terminal.ErrNoAnswer) {
		if d.json {
			d.code = refusal.Code(refusal.NoConsent)
			return d.writeJSON(declinedJSON{Type: "declined", ID: p.ID(), Discarded: false})
		}
		fmt.Fprintf(d.stderr, "not applied: no answer was typed · proposal %s stays pending\n", short(p.ID()))
		return exitErr(refusal.Code(refusal.NoConsent))
	}
	if err != nil {
		return refusal.New(refusal.NoConsent, "", "the terminal could not be read (%v) · nothing was applied", err)
	}
	if !flow.Consents(line) {
		if err := flow.Discard(r, p); err != nil {
			return err
		}
		if d.json {
			d.code = refusal.Code(refusal.NoConsent)
			return d.writeJSON(declinedJSON{Type: "declined", ID: p.ID(), Discarded: true})
		}
		fmt.Fprintf(d.stderr, "not applied: the answer was not yes · proposal %s is discarded; proposing it again stages it anew\n", short(p.ID()))
		return exitErr(refusal.Code(refusal.NoConsent))
	}
	acc, err := flow.Accept(context.Background(), r, p, flow.HookOptions{})
	if err != nil {
		if errors.Is(err, flow.ErrInterrupted) {
			d.note("interrupted: the apply was rolled back; nothing was applied")
		}
		return err
	}
	if !d.json {
		fmt.Fprintf(d.stdout, "applied %s: %s is now at %s (%d file(s))\n", short(p.ID()), preview.Escape(p.Branch()), short(acc.Commit()), len(acc.Result.Paths))
		if acc.Commit() != p.Proposal.Commit {
			fmt.Fprintf(d.stdout, "signed %s (%s): the signed twin of proposal commit %s\n", short(acc.Commit()), escape(p.Signing), short(p.Proposal.Commit))
		}
	}
	return d.afterApply(r, p, acc)
}

// drawOn draws the human preview on the terminal, through the pager when it
// is taller than the terminal. With stdout on the same terminal and no
// --json, that is the whole of it; otherwise stdout gets only the result
// (docs/json.md, "apply and its terminal").
func (d *door) drawOn(t *terminal.Terminal, p *flow.Proposed) error {
	out, err := d.humanPreview(p, d.colorFor(t.File()))
	if err != nil {
		return err
	}
	return d.pageTo(t.File(), out)
}

func (d *door) humanPreview(p *flow.Proposed, colorOn bool) ([]byte, error) {
	json := d.json
	d.json = false
	defer func() { d.json = json }()
	return d.render(p, colorOn)
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
