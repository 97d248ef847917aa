package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/nika-dev/nika/flow"
	"github.com/nika-dev/nika/refusal"
)

func (d *door) pushCommand() *cli.Command {
	return &cli.Command{
		Name:      "push",
		Usage:     "publish a proposal to a remote as refs/nika/proposals/<id>, so CI can verify it before anyone consents",
		ArgsUsage: "[REMOTE] ID",
		Flags:     []cli.Flag{jsonFlag},
		Action:    d.push,
	}
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
	p, err := flow.Push(r, remoteArg, id)
	if err != nil {
		return err
	}
	if d.json {
		return d.writeJSON(pushedJSON{Type: "pushed", ID: p.ID, Commit: p.Commit, Remote: p.Remote, Ref: p.Ref, Updated: p.Updated})
	}
	if p.Updated {
		fmt.Fprintf(d.stdout, "pushed proposal %s to %s as %s\n", short(p.ID), remoteName(p.Remote), p.Ref)
	} else {
		fmt.Fprintf(d.stdout, "%s already has proposal %s as %s\n", remoteName(p.Remote), short(p.ID), p.Ref)
	}
	d.note("CI can prove it with: nika verify %s", p.Ref)
	return nil
}

// remoteName is a remote as the human named it, escaped for the terminal.
func remoteName(name string) string {
	if name != "" {
		return escape(name)
	}
	return "the remote"
}
