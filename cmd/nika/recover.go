package main

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/nika-dev/nika/consent"
)

func init() {
	moreCommands = append(moreCommands, func(d *door) *cli.Command {
		return &cli.Command{
			Name:   "recover",
			Usage:  "finish or undo an apply that a crash interrupted",
			Flags:  []cli.Flag{jsonFlag},
			Action: d.recover,
		}
	})
}

func (d *door) recover(c *cli.Context) error {
	d.recovering = true
	r, err := d.openRepo()
	if err != nil {
		return err
	}
	recs, err := consent.Recover(r)
	if err != nil {
		return err
	}
	if d.json {
		if recs == nil {
			recs = []consent.Recovery{}
		}
		return d.writeJSON(map[string]any{"type": "recover", "recovered": recs})
	}
	if len(recs) == 0 {
		fmt.Fprintln(d.stdout, "nothing to recover: no interrupted apply")
		return nil
	}
	for _, rc := range recs {
		fmt.Fprintf(d.stdout, "recovered %s: %s\n", rc.ID[:12], rc.State)
		if len(rc.Locks) > 0 {
			fmt.Fprintf(d.stdout, "  removed its stale locks: %s\n", strings.Join(rc.Locks, ", "))
		}
		for _, k := range rc.Kept {
			fmt.Fprintf(d.stdout, "  kept %s: it holds bytes no one proposed, so nika left it as it is\n", k)
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
	ids, err := consent.Interrupted(d.repo)
	if err != nil || len(ids) == 0 {
		return
	}
	for _, id := range ids {
		fmt.Fprintf(d.stderr, "nika: an apply of %s was interrupted; run nika recover to finish or undo it\n", id[:12])
	}
}
