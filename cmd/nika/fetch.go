package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/nika-dev/nika/flow"
	"github.com/nika-dev/nika/refusal"
)

func (d *door) fetchCommand() *cli.Command {
	return &cli.Command{
		Name:      "fetch",
		Usage:     "fetch the proposals published on a remote into refs/nika/proposals/*",
		ArgsUsage: "[REMOTE]",
		Flags:     []cli.Flag{jsonFlag},
		Action:    d.fetch,
	}
}

func (d *door) fetch(c *cli.Context) error {
	if c.NArg() > 1 {
		return refusal.New(refusal.Invalid, "nika fetch [REMOTE]", "nika fetch takes at most one remote")
	}
	r, err := d.openRepo()
	if err != nil {
		return err
	}
	remote, got, err := flow.Fetch(r, c.Args().First())
	if err != nil {
		return err
	}
	if d.json {
		out := fetchedJSON{Type: "fetched", Remote: remote, Proposals: []fetchedItem{}}
		for _, f := range got {
			out.Proposals = append(out.Proposals, fetchedItem{ID: f.ID, Commit: f.Commit, Ref: f.Ref})
		}
		return d.writeJSON(out)
	}
	if len(got) == 0 {
		fmt.Fprintf(d.stdout, "%s has published no proposals\n", remoteName(remote))
		return nil
	}
	for _, f := range got {
		fmt.Fprintf(d.stdout, "%s  %s\n", escape(f.Ref), short(f.Commit))
	}
	d.note("prove one with: nika verify %s<id>", flow.ProposalRefPrefix)
	return nil
}
