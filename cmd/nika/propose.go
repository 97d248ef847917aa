package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/nika-dev/nika/changeset"
	"github.com/nika-dev/nika/flow"
	"github.com/nika-dev/nika/preview"
	"github.com/nika-dev/nika/refusal"
)

func (d *door) proposeCommand() *cli.Command {
	return &cli.Command{
		Name:      "propose",
		Usage:     "stage a proposal from a model's reply (a file, or - for stdin) and print its preview",
		ArgsUsage: "[FILE|-]",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "goal", Aliases: []string{"m"}, Usage: "what the proposal is for; it becomes the commit message"},
			&cli.StringSliceFlag{Name: "allow", Usage: "allow a supporting file (a path or a glob); repeatable"},
			&cli.StringFlag{Name: "format", Value: "auto", Usage: "the input's format: " + strings.Join(flow.Formats, ", ")},
			&cli.IntFlag{Name: "max-input", Value: 16 << 20, Usage: "refuse inputs larger than this many bytes"},
			&cli.StringFlag{Name: "run", Usage: "after a clean apply, request a run of this workflow"},
			&cli.StringSliceFlag{Name: "var", Usage: "a variable of the run request, NAME=VALUE; repeatable"},
			&cli.Float64Flag{Name: "max-cost-usd", Usage: "the run request's cost ceiling in US dollars"},
			jsonFlag,
		},
		Action: d.propose,
	}
}

func (d *door) propose(c *cli.Context) error {
	r, err := d.openRepo()
	if err != nil {
		return err
	}
	max := c.Int("max-input")
	input, err := d.readInput(c, max)
	if err != nil {
		return err
	}
	in := flow.ProposeInput{Input: input, Format: c.String("format"), Goal: c.String("goal"), Allow: c.StringSlice("allow"), MaxInput: max}
	if w := c.String("run"); w != "" {
		in.Run = &flow.RunInput{Workflow: w, Vars: map[string]string{}, MaxCostUSD: c.Float64("max-cost-usd")}
		for _, v := range c.StringSlice("var") {
			k, val, ok := strings.Cut(v, "=")
			if !ok || k == "" {
				return refusal.New(refusal.Invalid, "write --var NAME=VALUE", "--var %s is not NAME=VALUE", changeset.Quote(v))
			}
			in.Run.Vars[k] = val
		}
	} else if len(c.StringSlice("var")) > 0 || c.IsSet("max-cost-usd") {
		return refusal.New(refusal.Invalid, "add --run WORKFLOW", "--var and --max-cost-usd belong to a run request")
	}
	p, err := flow.Propose(r, in)
	if err != nil {
		return err
	}
	if p.Empty() {
		return d.nothing(p, "nothing was proposed: the input names no file")
	}
	if err := d.showProposal(p); err != nil {
		return err
	}
	if f := c.String("format"); f == "" || f == "auto" {
		d.note("format: %s (detected; choose with --format)", p.Format)
	}
	d.proposedNotes(p, "to apply it")
	return nil
}

// proposedNotes tells the human, on stderr, what the preview leaves out:
// unchanged files, the fix ladder's notes, whether the input was already
// staged, and the command that applies it.
func (d *door) proposedNotes(p *flow.Proposed, what string) {
	for _, u := range p.Unchanged {
		d.note("unchanged: %s already holds the proposed bytes", preview.Escape(string(u)))
	}
	for _, n := range p.Notes {
		d.note("fix ladder: %s", preview.Escape(n))
	}
	if p.Again {
		d.note("this input was already staged: proposal %s, commit %s, nothing new was written", short(p.ID()), short(p.Proposal.Commit))
	}
	d.note("%s: nika apply %s", what, short(p.ID()))
}

// nothing reports an input that proposes no change.
func (d *door) nothing(p *flow.Proposed, none string) error {
	if d.json {
		return d.writeJSON(nothingJSON{Type: "nothing", Format: p.Format, Unchanged: pathStrings(p.Unchanged)})
	}
	if len(p.Unchanged) > 0 {
		fmt.Fprintf(d.stdout, "nothing to propose: the named files already hold these bytes (%d unchanged)\n", len(p.Unchanged))
	} else {
		fmt.Fprintln(d.stdout, none)
	}
	return nil
}

// readInput reads the one input of propose: a file, or standard input.
func (d *door) readInput(c *cli.Context, max int) ([]byte, error) {
	var r io.Reader = d.stdin
	name := "standard input"
	if c.NArg() > 1 {
		return nil, refusal.New(refusal.Invalid, "give one file, or - for standard input", "nika propose takes one input, got %d", c.NArg())
	}
	if a := c.Args().First(); a != "" && a != "-" {
		f, err := os.Open(a)
		if err != nil {
			return nil, refusal.New(refusal.NotFound, "check the file name", "could not open the input %s: %v", changeset.Quote(a), unwrapPath(err))
		}
		defer f.Close()
		r, name = f, changeset.Quote(a)
	}
	b, err := io.ReadAll(io.LimitReader(r, int64(max)+1))
	if err != nil {
		return nil, refusal.New(refusal.Io, "", "could not read %s: %v", name, err)
	}
	if len(b) > max {
		return nil, refusal.New(refusal.TooLarge, "split the proposal, or raise the limit with --max-input",
			"%s is larger than the limit of %d bytes", name, max)
	}
	return b, nil
}

func unwrapPath(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}

func pathStrings(ps []changeset.Path) []string {
	out := make([]string, 0, len(ps))
	for _, p := range ps {
		out = append(out, string(p))
	}
	return out
}
