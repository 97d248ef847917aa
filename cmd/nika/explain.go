package main

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/nika-dev/nika/changeset"
	"github.com/nika-dev/nika/checker"
	"github.com/nika-dev/nika/refusal"
)

func (d *door) explainCommand() *cli.Command {
	return &cli.Command{Name: "explain", Usage: "explain a finding code", ArgsUsage: "CODE", Flags: []cli.Flag{jsonFlag}, Action: d.explain}
}

func (d *door) explain(c *cli.Context) error {
	if c.NArg() != 1 {
		return refusal.New(refusal.Invalid, "run nika explain NIKA-PARSE-002, for example", "nika explain takes one finding code")
	}
	code := strings.ToUpper(strings.TrimSpace(c.Args().First()))
	text, ok := checker.Explain(code)
	if !ok {
		return refusal.New(refusal.NotFound, "codes look like NIKA-PARSE-002; nika check prints them", "no finding has the code %s", changeset.Quote(code))
	}
	if d.json {
		return d.writeJSON(explainJSON{Type: "explain", Code: code, Text: text})
	}
	fmt.Fprintf(d.stdout, "%s\n\n%s\n", code, strings.TrimRight(text, "\n"))
	return nil
}
