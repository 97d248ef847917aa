package main

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/nika-dev/nika/flow"
	"github.com/nika-dev/nika/refusal"
	"github.com/nika-dev/nika/review"
	"github.com/nika-dev/nika/terminal"
)

func (d *door) reviewCommand() *cli.Command {
	return &cli.Command{
		Name:      "review",
		Usage:     "review a proposal on the terminal: toggle files and hunks, comment, then apply the part you keep (after its preview and your yes) or discard it",
		ArgsUsage: "ID",
		Flags:     []cli.Flag{jsonFlag},
		Action:    d.review,
	}
}

// review is the interactive review. The screen (package review) only
// chooses: it ends by building the part the human kept, which is then a
// derived proposal previewed and consented outside the screen through the
// same consent reader as nika apply (consentOn), or by discarding the
// proposal. The comments are kept with the proposal either way, redacted,
// for the model.
func (d *door) review(c *cli.Context) error {
	r, p, err := d.load(c)
	if err != nil {
		return err
	}
	if err := flow.Ready(r, p); err != nil {
		return err
	}
	t, err := terminal.Open()
	if err != nil {
		return refusal.New(refusal.NoConsent,
			fmt.Sprintf("run nika review %s in a terminal", short(p.ID())),
			"no terminal to review on (%v) · nothing was decided", err)
	}
	defer t.Close()
	in, err := review.InputOf(p)
	if err != nil {
		return err
	}
	in.Color = d.colorFor(t.File())
	res, err := review.Run(t.File(), in)
	if err != nil {
		return err
	}
	switch res.Decision {
	case review.Discard:
		kinds, err := flow.SaveComments(r, p, res.FlowComments())
		if err != nil {
			return err
		}
		if err := flow.Discard(r, p); err != nil {
			return err
		}
		d.redactedNote(kinds)
		if d.json {
			return d.writeJSON(reviewedJSON{Type: "reviewed", ID: p.ID(), Decision: flow.DecisionDiscarded, Comments: len(res.Comments)})
		}
		fmt.Fprintf(d.stdout, "discarded proposal %s; %d %s kept for the model\n", short(p.ID()), len(res.Comments), plural(len(res.Comments), "comment", "comments"))
		return nil
	case review.Build:
	default:
		d.note("left the review: nothing was decided, no comment was kept · proposal %s stays pending", short(p.ID()))
		if d.json {
			return d.writeJSON(reviewedJSON{Type: "reviewed", ID: p.ID(), Decision: flow.DecisionPending})
		}
		return nil
	}
	kinds, err := flow.SaveComments(r, p, res.FlowComments())
	if err != nil {
		return err
	}
	d.redactedNote(kinds)
	sub, err := flow.Derive(r, p, res.Choice())
	if err != nil {
		return err
	}
	if sub != p {
		fmt.Fprintf(t, "review: kept %d of %d hunks; a derived proposal %s holds them; %s stays pending\r\n", res.Kept, res.Total, short(sub.ID()), short(p.ID()))
		if err := flow.Ready(r, sub); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(t, "review: kept every hunk of proposal %s\r\n", short(p.ID()))
	}
	return d.consentOn(r, sub, t)
}

// redactedNote tells the human that a comment held what looks like a
// secret, which was kept redacted.
func (d *door) redactedNote(kinds []string) {
	if len(kinds) > 0 {
		d.note("a comment held what looks like a secret (%s): it was kept redacted", strings.Join(kinds, ", "))
	}
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
