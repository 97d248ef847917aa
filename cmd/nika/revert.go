package main

import (
	"github.com/urfave/cli/v2"

	"github.com/nika-dev/nika/flow"
	"github.com/nika-dev/nika/proof"
	"github.com/nika-dev/nika/refusal"
)

func (d *door) revertCommand() *cli.Command {
	return &cli.Command{
		Name:      "revert",
		Usage:     "propose the inverse of an applied proposal against HEAD, as a new proposal with its own preview",
		ArgsUsage: "ID|COMMIT",
		Flags:     []cli.Flag{jsonFlag},
		Action:    d.revert,
	}
}

func (d *door) revert(c *cli.Context) error {
	if c.NArg() != 1 {
		return refusal.New(refusal.Invalid, "name the proposal by its id, or its commit (nika log shows both)",
			"nika revert takes one proposal id or commit")
	}
	r, err := d.openRepo()
	if err != nil {
		return err
	}
	sel, err := proof.Select(r.Git(), c.Args().First(), true)
	if err != nil {
		return err
	}
	p, err := flow.Revert(r, sel.Include[0])
	if err != nil {
		return err
	}
	if p.Empty() {
		if d.json {
			return d.writeJSON(nothingJSON{Type: "nothing", Format: p.Format, Unchanged: []string{}})
		}
		d.note("nothing to revert: HEAD already holds the proposal's before-bytes")
		return nil
	}
	if err := d.showProposal(p); err != nil {
		return err
	}
	d.proposedNotes(p, "to apply the revert")
	return nil
}
