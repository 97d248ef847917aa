package review

import (
	"os"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"

	"github.com/nika-dev/nika/changeset"
	"github.com/nika-dev/nika/changeset/hunks"
	"github.com/nika-dev/nika/flow"
	"github.com/nika-dev/nika/preview"
	"github.com/nika-dev/nika/refusal"
)

// InputOf is the screen's view of a proposal: each change with its
// numbered hunks (changeset/hunks, the preview's own), raw; the screen
// escapes everything it draws.
func InputOf(p *flow.Proposed) (Input, error) {
	in := Input{ID: p.ID(), Goal: p.Proposal.Set.Goal, Branch: p.Branch()}
	for _, c := range p.Proposal.Set.Changes {
		us, err := hunks.Of(c)
		if err != nil {
			return in, refusal.New(refusal.Internal, "", "%v", err)
		}
		f := File{Path: string(c.Path), From: string(c.From), Kind: string(c.Kind)}
		for _, u := range us {
			h := Hunk{N: u.N}
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

// Run runs the screen on the terminal f until the human ends the review,
// and returns what they decided. in.Color is the door's decision; without
// it the screen draws no style at all.
func Run(f *os.File, in Input) (Result, error) {
	m := New(in)
	opts := []tea.ProgramOption{tea.WithInput(f), tea.WithOutput(f), tea.WithoutSignalHandler()}
	if !in.Color {
		opts = append(opts, tea.WithColorProfile(colorprofile.NoTTY))
	}
	if _, err := tea.NewProgram(m, opts...).Run(); err != nil {
		return Result{}, refusal.New(refusal.Io, "", "the review screen failed (%v) · nothing was decided", err)
	}
	return m.Result(), nil
}

// Choice is the part of the proposal the human kept, as flow derives it:
// every hunk but the dropped ones.
func (r Result) Choice() flow.Choice {
	ch := flow.Choice{}
	for _, h := range r.Dropped {
		ch.Drop = append(ch.Drop, flow.HunkRef{Path: h.Path, N: h.N})
	}
	return ch
}

// FlowComments are the human's comments as flow keeps them with the
// proposal.
func (r Result) FlowComments() []flow.Comment {
	var out []flow.Comment
	for _, c := range r.Comments {
		out = append(out, flow.Comment{On: c.On, Text: c.Text})
	}
	return out
}
