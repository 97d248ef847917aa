package main

import (
	"bytes"
	"encoding/json"

	"github.com/urfave/cli/v2"

	"github.com/nika-dev/nika/doorwords"
	"github.com/nika-dev/nika/flow"
	"github.com/nika-dev/nika/preview"
	"github.com/nika-dev/nika/refusal"
)

func (d *door) showCommand() *cli.Command {
	return &cli.Command{Name: "show", Usage: "print a proposal's preview again, byte for byte", ArgsUsage: "ID", Flags: []cli.Flag{jsonFlag}, Action: d.show}
}

func (d *door) show(c *cli.Context) error {
	r, p, err := d.load(c)
	if err != nil {
		return err
	}
	if err := d.showProposal(p); err != nil {
		return err
	}
	// The state, from the same check the apply makes before it asks.
	switch st, why := flow.StatusOf(r, p); {
	case why != nil:
		e := asRefusal(why)
		d.note("state: %s: %s · %s", st, escape(d.scrub(e.Text)), escape(d.scrub(doorwords.CLIHint(e))))
	case st == flow.Pending:
		d.note("state: pending; to apply it: nika apply %s", short(p.ID()))
	default:
		d.note("state: %s", st)
	}
	return nil
}

// load opens the repository and the one proposal a verb names.
func (d *door) load(c *cli.Context) (*flow.Repo, *flow.Proposed, error) {
	if c.NArg() != 1 {
		return nil, nil, refusal.New(refusal.Invalid, "run nika list to see the ids", "nika %s takes one proposal id", c.Command.Name)
	}
	r, err := d.openRepo()
	if err != nil {
		return nil, nil, err
	}
	p, err := flow.Load(r, c.Args().First())
	return r, p, err
}

// render builds the preview bytes of a proposal: the human text, or JSON.
func (d *door) render(p *flow.Proposed, colorOn bool) ([]byte, error) {
	var b bytes.Buffer
	in := flow.PreviewInput(p)
	if d.json {
		// The proposal, and what the human said about it (for the model).
		v, err := preview.JSONValue(in)
		if err != nil {
			return nil, err
		}
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		st, _ := flow.StatusOf(d.repo, p)
		if err := enc.Encode(shownJSON{ProposalJSON: v, State: string(st), Feedback: flow.FeedbackOf(p)}); err != nil {
			return nil, err
		}
		return []byte(d.scrub(b.String())), nil
	}
	err := preview.Human(&b, in, preview.Options{Color: colorOn})
	return b.Bytes(), err
}

// showProposal prints a proposal's preview on stdout, through the pager.
func (d *door) showProposal(p *flow.Proposed) error {
	out, err := d.render(p, d.colorOn())
	if err != nil {
		return err
	}
	return d.page(out)
}
