package main

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/urfave/cli/v2"

	"github.com/nika-dev/nika/changeset"
	"github.com/nika-dev/nika/changeset/hunks"
	"github.com/nika-dev/nika/cmd/nika/internal/review"
	"github.com/nika-dev/nika/flow"
	"github.com/nika-dev/nika/preview"
	"github.com/nika-dev/nika/refusal"
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

// review is the interactive review. The screen (internal/review) only
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
	f, err := openTTY()
	if err != nil {
		return refusal.New(refusal.NoConsent,
			fmt.Sprintf("run nika review %s in a terminal", short(p.ID())),
			"no terminal to review on (%v) · nothing was decided", err)
	}
	defer f.Close()
	in, err := reviewInput(p)
	if err != nil {
		return err
	}
	in.Color = d.colorFor(f)
	m := review.New(in)
	opts := []tea.ProgramOption{tea.WithInput(f), tea.WithOutput(f), tea.WithoutSignalHandler()}
	if !in.Color {
		opts = append(opts, tea.WithColorProfile(colorprofile.NoTTY))
	}
	if _, err := tea.NewProgram(m, opts...).Run(); err != nil {
		return refusal.New(refusal.Io, "", "the review screen failed (%v) · nothing was decided", err)
	}
	res := m.Result()
	t := newTerminal(f)
	switch res.Decision {
	case review.Discard:
		kinds, err := flow.SaveComments(r, p, comments(res))
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
	kinds, err := flow.SaveComments(r, p, comments(res))
	if err != nil {
		return err
	}
	d.redactedNote(kinds)
	ch := flow.Choice{}
	for _, h := range res.Dropped {
		ch.Drop = append(ch.Drop, flow.HunkRef{Path: h.Path, N: h.N})
	}
	sub, err := flow.Derive(r, p, ch)
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

func comments(res review.Result) []flow.Comment {
	var out []flow.Comment
	for _, c := range res.Comments {
		out = append(out, flow.Comment{On: c.On, Text: c.Text})
	}
	return out
}

// reviewInput is the screen's view of a proposal: each change with its
// numbered hunks (changeset/hunks, the preview's own), raw; the screen
// escapes everything it draws.
func reviewInput(p *flow.Proposed) (review.Input, error) {
	in := review.Input{ID: p.ID(), Goal: p.Proposal.Set.Goal, Branch: p.Branch()}
	for _, c := range p.Proposal.Set.Changes {
		us, err := hunks.Of(c)
		if err != nil {
			return in, refusal.New(refusal.Internal, "", "%v", err)
		}
		f := review.File{Path: string(c.Path), From: string(c.From), Kind: string(c.Kind)}
		for _, u := range us {
			h := review.Hunk{N: u.N}
			switch {
			case !u.Whole:
				h.Title = u.Hunks[0].Header()
			case c.Kind == changeset.Move:
				h.Title = "the whole move"
			case c.Kind == changeset.Update:
				h.Title = "the mode change " + c.Before.Mode.String() + " → " + c.After.Mode.String()
			default:
				h.Title = "the whole file"
			}
			for i, hk := range u.Hunks {
				if u.Whole || i > 0 {
					h.Lines = append(h.Lines, " "+hk.Header())
				}
				for _, l := range hk.Lines {
					h.Lines = append(h.Lines, string(l.Op)+l.Text)
				}
			}
			if len(h.Lines) == 0 {
				h.Lines = []string{" (no lines: " + preview.Escape(h.Title) + ")"}
			}
			f.Hunks = append(f.Hunks, h)
		}
		in.Files = append(in.Files, f)
	}
	return in, nil
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
