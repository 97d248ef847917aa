package main

import (
	"github.com/urfave/cli/v2"

	"github.com/nika-dev/nika/flow"
)

// choiceFrom reads the selection flags of nika apply: whole files (--only,
// --exclude) and hunks (--hunk, --drop-hunk, each PATH:N as the preview
// labels them).
func choiceFrom(c *cli.Context) (flow.Choice, error) {
	ch := flow.Choice{Only: c.StringSlice("only"), Exclude: c.StringSlice("exclude")}
	for _, f := range []struct {
		name string
		into *[]flow.HunkRef
	}{{"hunk", &ch.Keep}, {"drop-hunk", &ch.Drop}} {
		for _, s := range c.StringSlice(f.name) {
			refs, err := flow.ParseHunkRef(s)
			if err != nil {
				return ch, err
			}
			*f.into = append(*f.into, refs...)
		}
	}
	return ch, nil
}
