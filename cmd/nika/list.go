package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/nika-dev/nika/flow"
	"github.com/nika-dev/nika/preview"
)

func (d *door) listCommand() *cli.Command {
	return &cli.Command{Name: "list", Usage: "list pending proposals, with their state",
		Flags:  []cli.Flag{jsonFlag, &cli.BoolFlag{Name: "all", Usage: "also list applied and discarded ones"}},
		Action: d.list}
}

func (d *door) list(c *cli.Context) error {
	r, err := d.openRepo()
	if err != nil {
		return err
	}
	ls, err := flow.List(r, c.Bool("all"))
	if err != nil {
		return err
	}
	if d.json {
		out := listJSON{Type: "list", Proposals: []listItem{}}
		for _, l := range ls {
			it := listItem{ID: l.ID, Commit: l.Commit, Branch: flow.BranchName(l.Branch), Goal: l.Goal, State: string(l.State)}
			if l.Base != "" {
				base := l.Base
				it.Base = &base
			}
			out.Proposals = append(out.Proposals, it)
		}
		return d.writeJSON(out)
	}
	if len(ls) == 0 {
		if c.Bool("all") {
			fmt.Fprintln(d.stdout, "no proposals")
		} else {
			fmt.Fprintln(d.stdout, "no pending proposals")
		}
		return nil
	}
	for _, l := range ls {
		fmt.Fprintf(d.stdout, "%s  %-9s %-12s %s\n", short(l.ID), l.State, preview.Escape(flow.BranchName(l.Branch)), preview.Escape(firstLine(l.Goal)))
	}
	return nil
}
