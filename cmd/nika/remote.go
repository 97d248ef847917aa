package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/nika-dev/nika/flow"
	"github.com/nika-dev/nika/gitstage"
	"github.com/nika-dev/nika/refusal"
)

func init() {
	moreCommands = append(moreCommands,
		func(d *door) *cli.Command {
			return &cli.Command{
				Name:      "push",
				Usage:     "publish a proposal to a remote as refs/nika/proposals/<id>, so CI can verify it before anyone consents",
				ArgsUsage: "[REMOTE] ID",
				Flags:     []cli.Flag{jsonFlag},
				Action:    d.push,
			}
		},
		func(d *door) *cli.Command {
			return &cli.Command{
				Name:      "fetch",
				Usage:     "fetch the proposals published on a remote into refs/nika/proposals/*",
				ArgsUsage: "[REMOTE]",
				Flags:     []cli.Flag{jsonFlag},
				Action:    d.fetch,
			}
		})
}

func remoteName(rm gitstage.Remote) string {
	if rm.Name != "" {
		return rm.Name
	}
	return "the remote"
}

func (d *door) push(c *cli.Context) error {
	var remoteArg, id string
	switch c.NArg() {
	case 1:
		id = c.Args().Get(0)
	case 2:
		remoteArg, id = c.Args().Get(0), c.Args().Get(1)
	default:
		return refusal.New(refusal.Invalid, "nika push [REMOTE] ID, e.g. nika push origin 1cfd3bcb", "nika push takes a proposal id, and optionally a remote first")
	}
	r, err := d.openRepo()
	if err != nil {
		return err
	}
	p, err := flow.Load(r, id)
	if err != nil {
		return err
	}
	rm, err := r.ResolveRemote(remoteArg)
	if err != nil {
		return err
	}
	ref := gitstage.ProposalRefPrefix + p.Proposal.ID
	updated, err := r.PushProposal(rm, p.Proposal.ID, p.Proposal.Commit)
	if err != nil {
		return err
	}
	if d.json {
		return d.writeJSON(map[string]any{"type": "pushed", "id": p.Proposal.ID, "commit": p.Proposal.Commit, "remote": rm.Name, "ref": ref, "updated": updated})
	}
	if updated {
		fmt.Fprintf(d.stdout, "pushed proposal %s to %s as %s\n", p.Proposal.ID[:12], remoteName(rm), ref)
	} else {
		fmt.Fprintf(d.stdout, "%s already has proposal %s as %s\n", remoteName(rm), p.Proposal.ID[:12], ref)
	}
	d.note("CI can prove it with: nika verify %s", ref)
	return nil
}

func (d *door) fetch(c *cli.Context) error {
	if c.NArg() > 1 {
		return refusal.New(refusal.Invalid, "nika fetch [REMOTE]", "nika fetch takes at most one remote")
	}
	r, err := d.openRepo()
	if err != nil {
		return err
	}
	rm, err := r.ResolveRemote(c.Args().First())
	if err != nil {
		return err
	}
	got, err := r.FetchProposals(rm)
	if err != nil {
		return err
	}
	type item struct {
		ID     string `json:"id"`
		Commit string `json:"commit"`
		Ref    string `json:"ref"`
	}
	items := []item{}
	for _, f := range got {
		items = append(items, item{f.ID, f.Commit, gitstage.ProposalRefPrefix + f.ID})
	}
	if d.json {
		return d.writeJSON(map[string]any{"type": "fetched", "remote": rm.Name, "proposals": items})
	}
	if len(items) == 0 {
		fmt.Fprintf(d.stdout, "%s has published no proposals\n", remoteName(rm))
		return nil
	}
	for _, it := range items {
		fmt.Fprintf(d.stdout, "%s  %s\n", it.Ref, it.Commit[:12])
	}
	d.note("prove one with: nika verify %s<id>", gitstage.ProposalRefPrefix)
	return nil
}
