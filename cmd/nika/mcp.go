package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	nikamcp "github.com/nika-dev/nika/mcp"
	"github.com/nika-dev/nika/refusal"
)

// `nika mcp`: the agents' door (package mcp). This file only reads its
// flags and hands the server the human's allow list.

func (d *door) mcpCommand() *cli.Command {
	return &cli.Command{
		Name:  "mcp",
		Usage: "serve agents over MCP on stdin and stdout: they propose, check, show, list and withdraw; only you apply (see docs/agents.md)",
		Flags: []cli.Flag{
			&cli.StringSliceFlag{Name: "allow", Usage: "let proposals touch a supporting file (a path or a glob), as propose --allow; repeatable; the human writes it in the host's configuration"},
			&cli.StringFlag{Name: "repo", Usage: "the project's directory (default: the directory the host starts nika mcp in)"},
			jsonFlag,
		},
		Action: d.mcp,
	}
}

func (d *door) mcp(c *cli.Context) error {
	if c.NArg() > 0 {
		return refusal.New(refusal.Invalid, "run nika mcp with no arguments, from the host's configuration (see docs/agents.md)",
			"nika mcp takes no arguments, got %s", strings.Join(c.Args().Slice(), " "))
	}
	dir := c.String("repo")
	if dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return refusal.New(refusal.Io, "", "could not read the working directory: %v", unwrapPath(err))
		}
		dir = wd
	} else if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	d.json = true
	err := nikamcp.Serve(nikamcp.Options{Dir: dir, Allow: c.StringSlice("allow"), Version: version().Version,
		In: d.stdin, Out: d.stdout, Err: d.stderr})
	if errors.Is(err, nikamcp.ErrEnded) {
		return exitErr(refusal.Code(refusal.Io))
	}
	return err
}
