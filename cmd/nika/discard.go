package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/nika-dev/nika/flow"
)

func (d *door) discardCommand() *cli.Command {
	return &cli.Command{Name: "discard", Usage: "discard a pending proposal", ArgsUsage: "ID", Flags: []cli.Flag{jsonFlag}, Action: d.discard}
}

func (d *door) discard(c *cli.Context) error {
	r, p, err := d.load(c)
	if err != nil {
		return err
	}
	if err := flow.Discard(r, p); err != nil {
		return err
	}
	if d.json {
		return d.writeJSON(discardedJSON{Type: "discarded", ID: p.ID()})
	}
	fmt.Fprintf(d.stdout, "discarded %s\n", short(p.ID()))
	return nil
}
