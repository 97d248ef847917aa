package main

import (
	"fmt"
	"strings"

	"github.com/nika-dev/nika/flow"
	"github.com/urfave/cli/v2"
)

func (d *door) recoverCommand() *cli.Command {
	return &cli.Command{
		Name:   "recover",
		Usage:  "finish or undo an apply that a crash interrupted",
		Flags:  []cli.Flag{jsonFlag},
		Action: d.recover,
	}
}

func (d *door) recover(c *cli.Context) error {
	d.recovering = true
	r, err := d.openRepo()
	if err != nil {
		return err
	}
	recs, err := flow.Recover(r)
	if err != nil {
		return err
	}
	if d.json {
		if recs == nil {
			recs = []flow.Recovery{}
		}
		return d.writeJSON(recoverJSON{Type: "recover", Recovered: recs})
	}
	if len(recs) == 0 {
		fmt.Fprintln(d.stdout, "nothing to recover: no interrupted apply")
		return nil
	}
	for _, rc := range recs {
		fmt.Fprintf(d.stdout, "recovered %s: %s\n", short(rc.ID), rc.State)
		if len(rc.Locks) > 0 {
			fmt.Fprintf(d.stdout, "  removed its stale locks: %s\n", escape(strings.Join(rc.Locks, ", ")))
		}
		for _, k := range rc.Kept {
			fmt.Fprintf(d.stdout, "  kept %s: it holds bytes no one proposed, so nika left it as it is\n", escape(k))
		}
	}
	return nil
}

// warnInterrupted tells the human, on any command but recover, that an
// interrupted apply waits.
func (d *door) warnInterrupted() {
	if d.repo == nil || d.recovering {
		return
	}
	ids, err := d.repo.Interrupted()
	if err != nil || len(ids) == 0 {
		return
	}
	for _, id := range ids {
		fmt.Fprintf(d.stderr, "nika: an apply of %s was interrupted; run nika recover to finish or undo it\n", short(id))
	}
}
