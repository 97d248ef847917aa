package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/nika-dev/nika/flow"
	"github.com/nika-dev/nika/preview"
	"github.com/nika-dev/nika/refusal"
	"github.com/nika-dev/nika/terminal"
)

// The consent door on the controlling terminal, which nika apply and
// nika review both end in.

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
