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
	recs, rerr := consent.Recover(r)
	if d.json {
		if recs == nil {
			recs = []consent.Recovery{}
		}
		for i := range recs {
			if recs[i].Attention == nil {
				recs[i].Attention = []consent.Attention{}
			}
		}
		if rerr != nil {
			// The refusal follows on the same stream; what was settled
			// is said first, so nothing a human must look at is lost.
			if err := d.writeJSON(map[string]any{"type": "recover", "recovered": recs}); err != nil {
				return err
			}
			return rerr
		}
		return d.writeJSON(map[string]any{"type": "recover", "recovered": recs})
	}
	if len(recs) == 0 && rerr == nil {
		fmt.Fprintln(d.stdout, "nothing to recover: no interrupted apply")
		return nil
	}
	for _, rc := range recs {
		if rc.State == "incomplete" {
			fmt.Fprintf(d.stdout, "could not finish recovering %s yet; its journal is kept\n", rc.ID[:12])
		} else {
			fmt.Fprintf(d.stdout, "recovered %s: %s\n", rc.ID[:12], rc.State)
		}
		if len(rc.Locks) > 0 {
			fmt.Fprintf(d.stdout, "  removed its stale locks: %s\n", strings.Join(rc.Locks, ", "))
		}
		kept := map[string]bool{}
		for _, k := range rc.Kept {
			kept[k] = true
		}
		for _, a := range rc.Attention {
			verb := "look at"
			if kept[a.Path] {
				verb = "kept"
			}
			fmt.Fprintf(d.stdout, "  %s %s: %s\n", verb, a.Path, a.Why)
		}
	}
	if rerr != nil {
		return rerr
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
