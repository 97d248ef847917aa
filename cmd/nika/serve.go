package main

import (
	"os"

	"github.com/urfave/cli/v2"

	"github.com/nika-dev/nika/protocol"
	"github.com/nika-dev/nika/refusal"
)

// `nika serve --stdio`: the session machine over the JSON-lines protocol
// of package protocol (docs/protocol.md). This file only reads the flags
// and opens the project.

func (d *door) serveCommand() *cli.Command {
	return &cli.Command{
		Name:  "serve",
		Usage: "drive the session over a JSON-lines protocol on stdin and stdout (see docs/protocol.md)",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "stdio", Usage: "speak the protocol on standard input and output"},
			jsonFlag,
		},
		// Its host sends consents and gate answers for a human: an agent
		// host's command environment is refused, as at nika apply.
		Action: humansOnly(d.serve),
	}
}

func (d *door) serve(c *cli.Context) error {
	if !c.Bool("stdio") {
		return refusal.New(refusal.Invalid, "run nika serve --stdio", "nika serve speaks only on standard input and output for now")
	}
	d.json = true
	eng, err := d.openEngine()
	if err != nil {
		return err
	}
	eng.Color = false // a preview in JSON is plain text
	home, _ := os.UserHomeDir()
	return protocol.Serve(protocol.Options{Repo: d.repo, Engine: eng, Verbs: d.verbs(), Home: home,
		In: d.stdin, Out: d.stdout, Err: d.stderr})
}
