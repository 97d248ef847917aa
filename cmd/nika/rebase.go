package main

import (
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/nika-dev/nika/changeset"
	"github.com/nika-dev/nika/flow"
	"github.com/nika-dev/nika/preview"
)

func (d *door) rebaseCommand() *cli.Command {
	return &cli.Command{
		Name:      "rebase",
		Usage:     "bring a stale proposal forward onto HEAD, merging each file three ways, as a new proposal with its own preview",
		ArgsUsage: "ID",
		Flags:     []cli.Flag{jsonFlag},
		Action:    d.rebase,
	}
}

// rebase stages the proposal that brings a stale one forward and shows its
// preview; the human consents to that new proposal with nika apply, as to
// any other. A conflict refuses with nothing staged.
func (d *door) rebase(c *cli.Context) error {
	r, p, err := d.load(c)
	if err != nil {
		return err
	}
	rb, err := flow.Rebase(r, p)
	if err != nil {
		return err
	}
	if rb.Current {
		if d.json {
			return d.writeJSON(rebasedJSON{Type: "rebased", ID: p.ID(), Current: true, Carried: []string{}, Merged: []string{}, Already: []string{}})
		}
		d.note("proposal %s is already built on HEAD: nothing to bring forward", short(p.ID()))
		return nil
	}
	if rb.Proposed == nil {
		if d.json {
			return d.writeJSON(rebasedJSON{Type: "rebased", ID: p.ID(), Carried: []string{}, Merged: []string{}, Already: pathList(rb.Already)})
		}
		d.note("HEAD already holds every change of proposal %s: nothing to propose", short(p.ID()))
		return nil
	}
	if d.json {
		return d.writeJSON(rebasedJSON{Type: "rebased", ID: p.ID(), New: rb.ID(), Commit: rb.Proposal.Commit,
			Carried: pathList(rb.Carried), Merged: pathList(rb.Merged), Already: pathList(rb.Already)})
	}
	if err := d.showProposal(rb.Proposed); err != nil {
		return err
	}
	for _, what := range []struct {
		label string
		ps    []changeset.Path
	}{{"carried forward unchanged (HEAD did not touch them)", rb.Carried}, {"merged with HEAD's changes", rb.Merged}, {"left out: HEAD already holds the change", rb.Already}} {
		if len(what.ps) > 0 {
			d.note("%s: %s", what.label, escapedPaths(what.ps))
		}
	}
	d.note("proposal %s brings %s forward onto HEAD; %s stays as it was", short(rb.ID()), short(p.ID()), short(p.ID()))
	d.proposedNotes(rb.Proposed, "to apply it")
	return nil
}

func pathList(ps []changeset.Path) []string {
	out := make([]string, 0, len(ps))
	for _, p := range ps {
		out = append(out, string(p))
	}
	return out
}

func escapedPaths(ps []changeset.Path) string {
	var q []string
	for _, p := range ps {
		q = append(q, preview.Escape(string(p)))
	}
	return strings.Join(q, ", ")
}
